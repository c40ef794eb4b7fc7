import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { appendLateResult, readLateResults } from '../../reporter/late-results.js'
import type { TestEnergyMeta } from '../../src/model/index.js'

const meta = (energyJ: number): TestEnergyMeta =>
  ({ schemaVersion: 1, results: [], totalEnergyJ: energyJ }) as unknown as TestEnergyMeta

describe('the late results folder (windows read after their test ended)', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vitest-energy-late-test-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  test("reads back each test's record, the latest when a test wrote twice", () => {
    expect(appendLateResult(dir, 'a_1', meta(1))).toBe(true)
    expect(appendLateResult(dir, 'a_2', meta(2))).toBe(true)
    expect(appendLateResult(dir, 'a_1', meta(3))).toBe(true)
    const found = readLateResults(dir)
    expect([...found.keys()].sort()).toEqual(['a_1', 'a_2'])
    expect(found.get('a_1')).toEqual(meta(3))
    expect(found.get('a_2')).toEqual(meta(2))
  })

  test("a line cut short by a killed process, another schema's or junk is skipped, not fatal", () => {
    appendLateResult(dir, 'kept', meta(1))
    const file = join(dir, `${process.pid}.jsonl`)
    appendFileSync(file, '{"schemaVersion":1,"testId":"torn","meta":{"res')
    writeFileSync(
      join(dir, '1.jsonl'),
      [
        JSON.stringify({ schemaVersion: 2, testId: 'future', meta: meta(1) }),
        JSON.stringify({ schemaVersion: 1, testId: 7, meta: meta(1) }),
        JSON.stringify({ schemaVersion: 1, testId: 'no-meta' }),
        'null',
        '[1,2]',
        '',
      ].join('\n'),
    )
    writeFileSync(join(dir, 'notes.txt'), 'not a record file')
    expect([...readLateResults(dir).keys()]).toEqual(['kept'])
  })

  test('a folder that is gone reads as nothing, and writing there says it failed', () => {
    rmSync(dir, { recursive: true })
    expect(readLateResults(dir).size).toBe(0)
    expect(appendLateResult(dir, 'x', meta(1))).toBe(false)
  })
})
