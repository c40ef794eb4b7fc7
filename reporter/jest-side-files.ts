/**
 * Jest has no task meta, so energy travels from Jest workers to the Jest reporter through side
 * files: each worker process appends JSON lines to `<dir>/<pid>.jsonl` (one writer per file, so
 * workers never interleave), and the reporter merges every file at the end of the run.
 *
 * Line format: `{ "schemaVersion": 1, "testPath": "/abs/feed.test.mjs", "name": "feed opens", "meta": TestEnergyMeta }`,
 * plus `"attempt": n` when the vitest-energy test environment wrote it (the test's n-th run under
 * `jest.retryTimes`: only the last attempt's energy is reported). Writers: `recordEnergy()` in a
 * test, and the test environment after each test.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BudgetWriter } from '../src/budgets/index.js'
import {
  EnergyError,
  parseTestEnergyMeta,
  summarize,
  type EnergyResult,
  type TestEnergyMeta,
} from '../src/model/index.js'
import { ReporterErrors } from './errors.js'

/** Environment variable naming the side-file directory (set by the Jest reporter). */
export const JEST_SIDE_DIR_ENV = 'VITEST_ENERGY_JEST_DIR'
/** Set by the Jest reporter beside the side-file directory: `0` when it writes no budgets. */
export const JEST_WRITES_BUDGETS_ENV = 'VITEST_ENERGY_JEST_WRITES_BUDGETS'

/**
 * What the run's Jest energy reporter does with the budgets tests ask for — writes them (all but
 * its `updateBudgets: false`), or is not there — as a worker reads it from the environment it
 * inherited.
 */
export function jestBudgetWriter(env: Readonly<Record<string, string | undefined>>): BudgetWriter {
  if (env[JEST_SIDE_DIR_ENV] === undefined) return 'absent'
  return env[JEST_WRITES_BUDGETS_ENV] === '0' ? 'off' : 'writes'
}

export interface SideRecord {
  readonly testPath: string
  /** Jest's `currentTestName` (describe blocks and test joined by spaces). */
  readonly name: string
  readonly meta: TestEnergyMeta
  /** The test's run (1 = first) when retried; absent for `recordEnergy()`. */
  readonly attempt?: number
}

interface ExpectState {
  readonly testPath?: string
  readonly currentTestName?: string
}

/**
 * Records energy results for the current Jest test (call it in the test, e.g. after measuring).
 * Without the vitest-energy Jest reporter (no side-file directory) it does nothing and returns false.
 */
export function recordEnergy(
  results: EnergyResult | readonly EnergyResult[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  const dir = env[JEST_SIDE_DIR_ENV]
  if (dir === undefined || dir === '') return false
  const state = (globalThis as { expect?: { getState?: () => ExpectState } }).expect?.getState?.()
  if (state?.testPath === undefined || state.currentTestName === undefined) {
    throw new EnergyError({
      code: ReporterErrors.JEST_NO_CURRENT_TEST,
      message:
        'recordEnergy() was called outside a Jest test (expect.getState() has no current test)',
      hint: 'Call recordEnergy(result) inside test(...) so the reporter can attribute the energy.',
    })
  }
  const list: readonly EnergyResult[] = Array.isArray(results)
    ? (results as readonly EnergyResult[])
    : [results as EnergyResult]
  appendSideRecord(dir, {
    testPath: state.testPath,
    name: state.currentTestName,
    meta: summarize(list),
  })
  return true
}

/**
 * Appends one record to this process's side file in `dir`. Throws E_REPORT_OUTPUT_IO when it
 * cannot be written (the folder removed with its parent, or not writable): the test's energy
 * would be missing from the report.
 */
export function appendSideRecord(dir: string, record: SideRecord): void {
  const line = JSON.stringify({ schemaVersion: 1, ...record })
  const path = join(dir, `${process.pid}.jsonl`)
  try {
    mkdirSync(dir, { recursive: true })
    appendFileSync(path, `${line}\n`)
  } catch (error) {
    throw new EnergyError({
      code: ReporterErrors.OUTPUT_IO,
      message: `could not hand the energy of '${record.name}' to the Jest energy reporter: writing its side file ${path} failed: ${error instanceof Error ? error.message : String(error)}`,
      hint: `The reporter's folder (${JEST_SIDE_DIR_ENV}) must stay writable while the tests run: check that nothing cleans the temporary folder during the run, and the disk has room.`,
      details: { path },
      cause: error,
    })
  }
}

/** Reads every side file; records of one test are concatenated in file order. */
export function readSideFiles(dir: string, problems: string[]): SideRecord[] {
  let names: string[]
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.jsonl'))
      .sort()
  } catch {
    return []
  }
  const out: SideRecord[] = []
  for (const name of names) {
    const lines = readFileSync(join(dir, name), 'utf8').split('\n')
    lines.forEach((line, i) => {
      if (line.trim() === '') return
      try {
        const value = JSON.parse(line) as Record<string, unknown>
        if (
          value['schemaVersion'] !== 1 ||
          typeof value['testPath'] !== 'string' ||
          typeof value['name'] !== 'string'
        )
          throw new Error('not a vitest-energy side record of schema version 1')
        const attempt = value['attempt']
        out.push({
          testPath: value['testPath'],
          name: value['name'],
          meta: parseTestEnergyMeta(value['meta']),
          ...(typeof attempt === 'number' ? { attempt } : {}),
        })
      } catch (error) {
        problems.push(
          `${name} line ${i + 1}: ${error instanceof Error ? error.message : String(error)}`,
        )
      }
    })
  }
  return out
}
