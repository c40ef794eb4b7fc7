/**
 * The budget file on disk: where it is, reading it (cached by modification time, so a worker reads
 * it once per change), and writing it atomically (temporary file + rename).
 */
import { existsSync, readFileSync, renameSync, statSync, writeFileSync, mkdirSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { EnergyError } from '../model/index.js'
import { BudgetErrors } from './errors.js'
import { emptyBudgetFile, parseBudgetFile, serializeBudgetFile, type BudgetFile } from './file.js'

/** Default file name, in the project root. */
export const DEFAULT_BUDGETS_FILE = 'energy-budgets.json'

const ROOT_MARKERS = [
  DEFAULT_BUDGETS_FILE,
  'vitest.config.ts',
  'vitest.config.mts',
  'vitest.config.js',
  'vitest.config.mjs',
  'vite.config.ts',
  'vite.config.js',
  'jest.config.js',
  'jest.config.mjs',
  'jest.config.cjs',
  'jest.config.ts',
  'package.json',
]

/**
 * The budget file for a test: `configured` when absolute; otherwise `configured` (default
 * `energy-budgets.json`) in the project root, found by walking up from the test file to the first
 * directory with a budget file, a Vitest/Vite/Jest config or a package.json.
 */
export function resolveBudgetsFile(testPath: string, configured?: string): string {
  if (configured !== undefined && isAbsolute(configured)) return configured
  const name = configured ?? DEFAULT_BUDGETS_FILE
  let dir = dirname(resolve(testPath))
  for (;;) {
    if (ROOT_MARKERS.some((m) => existsSync(join(dir, m)))) return join(dir, name)
    const parent = dirname(dir)
    if (parent === dir) return join(dirname(resolve(testPath)), name)
    dir = parent
  }
}

/** The key of a test file: relative to the budget file's directory, `/`-separated. */
export function budgetFileKey(budgetsPath: string, testPath: string): string {
  return relative(dirname(budgetsPath), testPath).split('\\').join('/')
}

const cache = new Map<string, { mtimeMs: number; size: number; file: BudgetFile }>()

/** Reads the budget file; a missing file is an empty one. */
export function readBudgetFile(path: string): BudgetFile {
  let stat
  try {
    stat = statSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyBudgetFile()
    throw io(path, 'read', error)
  }
  const cached = cache.get(path)
  if (cached !== undefined && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size)
    return cached.file
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw io(path, 'read', error)
  }
  const file = parseBudgetFile(text, path)
  cache.set(path, { mtimeMs: stat.mtimeMs, size: stat.size, file })
  return file
}

/** Writes the budget file atomically (sorted keys). */
export function writeBudgetFile(path: string, file: BudgetFile): void {
  const tmp = `${path}.${process.pid}.tmp`
  try {
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(tmp, serializeBudgetFile(file))
    renameSync(tmp, path)
  } catch (error) {
    throw io(path, 'write', error)
  }
  cache.delete(path)
}

function io(path: string, what: 'read' | 'write', error: unknown): EnergyError {
  return new EnergyError({
    code: BudgetErrors.FILE_IO,
    message: `could not ${what} the budget file ${path}: ${error instanceof Error ? error.message : String(error)}`,
    hint: 'Check the path (`budgets` option) and its permissions.',
    details: { format: 'energy-budgets.json' },
    cause: error,
  })
}

/**
 * The command that writes budgets, as the user of this process runs their tests: `jest -u` in a
 * Jest test process (Jest sets JEST_WORKER_ID there), else `vitest -u`.
 */
export function updateCommand(env: Readonly<Record<string, string | undefined>>): string {
  // Only the energy reporter writes budgets: `vitest -u` alone would pass and write nothing. A
  // Jest project lists its reporter in the config.
  return env['JEST_WORKER_ID'] === undefined ? 'vitest -u --reporter=energy' : 'jest -u'
}

/**
 * What the Vitest energy reporter provides to test processes (provide/inject): `true` when it
 * writes the budgets tests ask for, `false` with its `updateBudgets: false`; unset without it.
 */
export const BUDGET_WRITER_PROVIDE_KEY = 'vitestEnergyBudgetWriter'

/**
 * What the run's energy reporter does with the budgets its tests ask for: `writes` them, or only
 * checks them (`off`: its option `updateBudgets: false`); `absent`: the run has no energy reporter.
 */
export type BudgetWriter = 'writes' | 'off' | 'absent'

/** The Vitest reporter's provided value (`BUDGET_WRITER_PROVIDE_KEY`) as a BudgetWriter. */
export function providedBudgetWriter(provided: unknown): BudgetWriter {
  return provided === true ? 'writes' : provided === false ? 'off' : 'absent'
}

/** How to add the reporter that writes budgets, as the user of this process runs their tests. */
export function budgetReporterHint(env: Readonly<Record<string, string | undefined>>): string {
  return env['JEST_WORKER_ID'] === undefined
    ? "run with `--reporter=energy` (or list 'energy' in the config's `reporters`)"
    : "list 'vitest-energy/jest-reporter' in Jest's `reporters`"
}

/**
 * `VITEST_ENERGY_UPDATE=1` (or `true`) asks for budgets to be written from measurements, as `-u`;
 * `VITEST_ENERGY_UPDATE=rewrite` for every one to be rewritten.
 */
export function isUpdateRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  const v = env['VITEST_ENERGY_UPDATE']
  return v === '1' || v === 'true' || v === 'rewrite'
}

/**
 * When budgets are written, as the runner writes snapshots: `all` (`-u`) writes the budgets of
 * tests that asked for one and have none or no longer fit theirs, and removes obsolete ones;
 * `rewrite` (`VITEST_ENERGY_UPDATE=rewrite`) rewrites every one from this run; `new` writes the
 * missing budgets of tests that asked for one and keeps the rest (the runners' default outside
 * CI); `none` only checks (CI).
 */
export type BudgetUpdateMode = 'all' | 'rewrite' | 'new' | 'none'

/**
 * The budget update mode: an explicit `updateBudgets` option (`true`: all, `false`: none), else
 * `rewrite` with VITEST_ENERGY_UPDATE=rewrite, `all` with VITEST_ENERGY_UPDATE=1, else the runner's snapshot update mode (Vitest's
 * `snapshotOptions.updateSnapshot`, Jest's `updateSnapshot`; unknown: `none`).
 */
export function budgetUpdateMode(
  env: Readonly<Record<string, string | undefined>>,
  snapshotMode: unknown,
  option?: boolean,
): BudgetUpdateMode {
  if (option !== undefined) return option ? 'all' : 'none'
  if (env['VITEST_ENERGY_UPDATE'] === 'rewrite') return 'rewrite'
  if (isUpdateRequested(env)) return 'all'
  return snapshotMode === 'all' || snapshotMode === 'new' ? snapshotMode : 'none'
}
