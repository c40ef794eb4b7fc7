/**
 * `energy-budgets.json`: budgets keyed by test file (relative to the budget file, `/`-separated),
 * full test name and device model (`*` = any device), written with sorted keys so diffs review
 * like snapshots.
 *
 *   { "schemaVersion": 1,
 *     "tests": { "trails.test.ts": { "opening the feed": { "Pixel 6": { "energyJ": 2.8, "measuredEnergyJ": 2.53 } } } } }
 */
import { EnergyError } from '../model/index.js'
import { BudgetErrors } from './errors.js'

export const BUDGET_SCHEMA_VERSION = 1 as const

/** Device key used when a window does not know its device model. */
export const ANY_DEVICE = '*'

/** One budget. */
export interface BudgetEntry {
  /** The budget, joules (net energy of the test, see docs/budgets.md). */
  readonly energyJ: number
  /** The measurement the budget was written from, joules (3 significant digits), for review. */
  readonly measuredEnergyJ?: number
}

/** file → full test name → device model (or `*`) → budget. */
export type BudgetTable = Readonly<
  Record<string, Readonly<Record<string, Readonly<Record<string, BudgetEntry>>>>>
>

export interface BudgetFile {
  readonly schemaVersion: typeof BUDGET_SCHEMA_VERSION
  readonly tests: BudgetTable
}

/** Identifies one test's budget. */
export interface BudgetKey {
  /** Test file relative to the budget file's directory, `/`-separated. */
  readonly file: string
  /** Full test name: describe blocks and test name joined by ` > `. */
  readonly name: string
  /** Device model the test ran on; `undefined` when unknown. */
  readonly device?: string
}

export function emptyBudgetFile(): BudgetFile {
  return { schemaVersion: BUDGET_SCHEMA_VERSION, tests: {} }
}

/** Parses and validates a budget file's text. `source` names it in errors. */
export function parseBudgetFile(text: string, source = 'energy-budgets.json'): BudgetFile {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    const position = /position (\d+)/.exec(String(error))?.[1]
    throw invalid(
      source,
      `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      position === undefined ? {} : { offset: Number(position) },
    )
  }
  if (!isRecord(value)) throw invalid(source, 'expected a JSON object at the top level')
  if (value['schemaVersion'] !== BUDGET_SCHEMA_VERSION) {
    throw invalid(
      source,
      `schemaVersion ${JSON.stringify(value['schemaVersion'])} is not supported (this build reads ${BUDGET_SCHEMA_VERSION})`,
    )
  }
  const tests = value['tests']
  if (!isRecord(tests)) throw invalid(source, '`tests` must be an object keyed by test file')
  for (const [file, names] of Object.entries(tests)) {
    if (!isRecord(names)) throw invalid(source, `tests[${JSON.stringify(file)}] must be an object`)
    for (const [name, devices] of Object.entries(names)) {
      const path = `tests[${JSON.stringify(file)}][${JSON.stringify(name)}]`
      if (!isRecord(devices))
        throw invalid(source, `${path} must be an object keyed by device model`)
      for (const [device, entry] of Object.entries(devices)) {
        const at = `${path}[${JSON.stringify(device)}]`
        if (!isRecord(entry))
          throw invalid(source, `${at} must be an object like { "energyJ": 2.5 }`)
        const energyJ = entry['energyJ']
        if (typeof energyJ !== 'number' || !Number.isFinite(energyJ) || energyJ < 0) {
          throw invalid(
            source,
            `${at}.energyJ must be a finite number ≥ 0 (got ${JSON.stringify(energyJ)})`,
          )
        }
        const measured = entry['measuredEnergyJ']
        if (measured !== undefined && (typeof measured !== 'number' || !Number.isFinite(measured)))
          throw invalid(source, `${at}.measuredEnergyJ must be a finite number`)
      }
    }
  }
  return value as unknown as BudgetFile
}

/** Serializes with every object's keys sorted, two-space indent and a final newline. */
export function serializeBudgetFile(file: BudgetFile): string {
  return `${JSON.stringify(sortKeys(file), null, 2)}\n`
}

/** The budget for a test: its device's entry, else the `*` entry. */
export function lookupBudget(
  file: BudgetFile,
  key: BudgetKey,
): { readonly device: string; readonly entry: BudgetEntry } | undefined {
  const devices = file.tests[key.file]?.[key.name]
  if (devices === undefined) return undefined
  if (key.device !== undefined) {
    const own = devices[key.device]
    if (own !== undefined) return { device: key.device, entry: own }
  }
  const any = devices[ANY_DEVICE]
  return any === undefined ? undefined : { device: ANY_DEVICE, entry: any }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (!isRecord(value)) return value
  const out: Record<string, unknown> = {}
  // schemaVersion first, then the rest in code-point order (stable across locales).
  const keys = Object.keys(value).sort((a, b) =>
    a === 'schemaVersion' ? -1 : b === 'schemaVersion' ? 1 : a < b ? -1 : a > b ? 1 : 0,
  )
  for (const key of keys) out[key] = sortKeys(value[key])
  return out
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function invalid(source: string, message: string, details: { offset?: number } = {}): EnergyError {
  return new EnergyError({
    code: BudgetErrors.FILE_INVALID,
    message,
    hint: 'Fix the file by hand, or delete it and re-run with `vitest -u` (or VITEST_ENERGY_UPDATE=1) to write budgets from measurements.',
    details: { format: source, ...details },
  })
}
