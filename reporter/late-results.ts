/**
 * The energy of tests whose window's end was read in the background (option `windowEnd`), on its
 * way to the reporter as soon as it arrives, not only when the test file ends: a run stopped
 * meanwhile (Ctrl-C, `--bail`, a worker that dies) keeps every window that was read. The energy
 * reporter makes a folder for the run and provides it; each test process appends one JSON line
 * per test to `<dir>/<pid>.jsonl` (one writer per file, so lines never interleave):
 * `{ "schemaVersion": 1, "testId": "…", "meta": TestEnergyMeta }`. The file's meta
 * (`energyBehind`) still carries them when the file ends; the reporter prefers that.
 */
import { appendFileSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TestEnergyMeta } from '../src/model/index.js'

/** The provided key the energy reporter sets to the folder's path. */
export const LATE_RESULTS_PROVIDE_KEY = 'vitestEnergyLateResults'

const SCHEMA_VERSION = 1

/**
 * Appends `meta` for the test `testId`; false when it could not be written (the reporter's folder
 * is gone: the run is ending). Synchronous: a test process may be stopped right after.
 */
export function appendLateResult(dir: string, testId: string, meta: TestEnergyMeta): boolean {
  try {
    const line = JSON.stringify({ schemaVersion: SCHEMA_VERSION, testId, meta })
    appendFileSync(join(dir, `${process.pid}.jsonl`), `${line}\n`)
    return true
  } catch {
    return false
  }
}

/**
 * Every test's latest record in `dir`, by test id. A line cut short (a process killed while
 * writing it) or of another schema is skipped: that test keeps what its own meta says.
 */
export function readLateResults(dir: string): Map<string, unknown> {
  const found = new Map<string, unknown>()
  let names: string[]
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.jsonl'))
  } catch {
    return found
  }
  for (const name of names.sort()) {
    let text: string
    try {
      text = readFileSync(join(dir, name), 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n')) {
      if (line === '') continue
      let record: unknown
      try {
        record = JSON.parse(line)
      } catch {
        continue
      }
      if (typeof record !== 'object' || record === null) continue
      const { schemaVersion, testId, meta } = record as Record<string, unknown>
      if (schemaVersion === SCHEMA_VERSION && typeof testId === 'string' && meta !== undefined)
        found.set(testId, meta)
    }
  }
  return found
}
