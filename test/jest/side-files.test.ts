import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { JEST_SIDE_DIR_ENV, readSideFiles, recordEnergy } from '../../reporter/jest-side-files.js'
import { isEnergyError, measuredResult, summarize } from '../../src/model/index.js'

const result = measuredResult({
  label: 'w',
  window: { clock: 'boottime', startNs: 0, endNs: 1e9 },
  grossEnergyJ: 1,
  baselinePowerW: 0.1,
  components: [],
  rails: [],
  methods: [],
  sources: { power: 'odpm', sampleCount: 10 },
  warnings: [],
})

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vitest-energy-side-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

test('without the Jest reporter recordEnergy does nothing', () => {
  expect(recordEnergy(result, {})).toBe(false)
})

test('outside a Jest test recordEnergy throws E_JEST_NO_CURRENT_TEST', () => {
  // Vitest without globals: there is no global `expect` with a current Jest test.
  try {
    recordEnergy(result, { [JEST_SIDE_DIR_ENV]: dir })
    expect.unreachable()
  } catch (error) {
    expect(isEnergyError(error) && error.code).toBe('E_JEST_NO_CURRENT_TEST')
  }
})

test('records are read back; broken lines are reported with file and line, not crashed on', async () => {
  const good = JSON.stringify({
    schemaVersion: 1,
    testPath: '/p/a.test.mjs',
    name: 'a',
    meta: summarize([result]),
  })
  await writeFile(
    join(dir, '1.jsonl'),
    [
      good,
      '{ torn',
      JSON.stringify({ schemaVersion: 2 }),
      good.replace('"meta":{"schemaVersion":1', '"meta":{"schemaVersion":9'),
      '',
    ].join('\n'),
  )
  await writeFile(join(dir, 'ignored.txt'), 'x')
  const problems: string[] = []
  const records = readSideFiles(dir, problems)
  expect(records).toHaveLength(1)
  expect(records[0]).toMatchObject({ testPath: '/p/a.test.mjs', name: 'a' })
  expect(problems).toHaveLength(3)
  expect(problems[0]).toMatch(/^1\.jsonl line 2: /)
  expect(problems[1]).toContain('line 3: not a vitest-energy side record')
  expect(problems[2]).toContain('E_META_INVALID')
  expect(readSideFiles(join(dir, 'missing'), problems)).toEqual([])
  expect(await readFile(join(dir, '1.jsonl'), 'utf8')).toContain('"name":"a"')
})
