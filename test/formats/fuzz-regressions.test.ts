// Every input the fuzzer (fuzz/, `npm run fuzz`) ever found failing stays a regression test: it
// must parse or be refused with a coded EnergyError, and its chunked decoder must agree with itself
// and with the one-shot parser, however the input is split (where the failure was found among
// them: `<name>.points.json`).
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { prng, splits } from '../../fuzz/mutate.js'
import { problem, runInput } from '../../fuzz/run-input.js'
import { targetNamed } from '../../fuzz/targets.js'

const saved = fileURLToPath(new URL('../fixtures/fuzz/', import.meta.url))

const cases = existsSync(saved)
  ? readdirSync(saved).flatMap((target) =>
      readdirSync(join(saved, target))
        .filter((file) => file.endsWith('.bin'))
        .map((file) => ({ target, file })),
    )
  : []

describe.runIf(cases.length > 0)('inputs the fuzzer found', () => {
  test.each(cases)('$target: $file', ({ target: name, file }) => {
    const target = targetNamed(name)
    expect(target, `fuzz target ${name}`).toBeDefined()
    const input = new Uint8Array(readFileSync(join(saved, name, file)))
    // The split points the failure needed, when the fuzzer saved them (fuzz/minimize.ts).
    const pointsFile = join(saved, name, file.replace(/\.bin$/, '.points.json'))
    const found = existsSync(pointsFile)
      ? (JSON.parse(readFileSync(pointsFile, 'utf8')) as number[])
      : []
    const rand = prng(input.length)
    for (const points of [found, [], [1], splits(input.length, rand), splits(input.length, rand)]) {
      expect(problem(target!, runInput(target!, input, points))).toBeUndefined()
    }
  })
})
