/**
 * `energy-budgets.json`: budgets keyed by test file (relative to the budget file, `/`-separated),
 * full test name and device model (`*` = any device), written with sorted keys so diffs review
 * like snapshots.
 *
 *   { "schemaVersion": 1,
 *     "tests": { "trails.test.ts": { "opening the feed": { "Pixel 6": { "energyJ": 2.8, "measuredEnergyJ": 2.53 } } } } }
 */
import { closestName, EnergyError } from '../model/index.js'
import {
  findJsonSyntaxProblem,
  findJsonValue,
  formatJsonPath,
  lineColumn,
  type JsonPath,
} from './_json-location.js'
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

/**
 * Parses and validates a budget file's text. `source` names it in errors, which carry where the
 * problem is: `details.line` and `details.column` (1-based), and for a value of the wrong shape
 * its JSON path (`details.path`). A leading byte-order mark is ignored.
 */
export function parseBudgetFile(text: string, source = 'energy-budgets.json'): BudgetFile {
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (error) {
    const found = findJsonSyntaxProblem(json)
    const reason = found?.problem ?? (error instanceof Error ? error.message : String(error))
    throw invalid(source, json, found?.offset, [], (at) => `not valid JSON${at}: ${reason}`, error)
  }
  const problem = shapeProblem(value)
  if (problem === undefined) return value as BudgetFile
  const subject = formatJsonPath(problem.path)
  // A missing value has no place of its own: the nearest enclosing value's is given.
  let offset: number | undefined
  for (let depth = problem.path.length; offset === undefined && depth >= 0; depth--)
    offset = findJsonValue(json, problem.path.slice(0, depth))
  throw invalid(source, json, offset, problem.path, (at) => `${subject}${at} ${problem.what}`)
}

/** The fields of a budget entry (`BudgetEntry`). */
const ENTRY_FIELDS: readonly string[] = ['energyJ', 'measuredEnergyJ']

/** The first value that does not fit the format: its path and what is wrong with it. */
function shapeProblem(value: unknown): { path: JsonPath; what: string } | undefined {
  const example = '{ "schemaVersion": 1, "tests": {} }'
  if (!isRecord(value))
    return { path: [], what: `must be an object like ${example} (got ${shown(value)})` }
  const version = value['schemaVersion']
  if (version !== BUDGET_SCHEMA_VERSION) {
    const what = `must be ${BUDGET_SCHEMA_VERSION}, the version this build reads (got ${shown(version)})`
    return { path: ['schemaVersion'], what }
  }
  const tests = value['tests']
  if (!isRecord(tests))
    return { path: ['tests'], what: `must be an object keyed by test file (got ${shown(tests)})` }
  for (const [file, names] of Object.entries(tests)) {
    if (!isRecord(names)) {
      return {
        path: ['tests', file],
        what: `must be an object keyed by full test name (got ${shown(names)})`,
      }
    }
    for (const [name, devices] of Object.entries(names)) {
      if (!isRecord(devices)) {
        return {
          path: ['tests', file, name],
          what: `must be an object keyed by device model (got ${shown(devices)})`,
        }
      }
      for (const [device, entry] of Object.entries(devices)) {
        const at = ['tests', file, name, device]
        if (!isRecord(entry))
          return {
            path: at,
            what: `must be an object like { "energyJ": 2.5 } (got ${shown(entry)})`,
          }
        // A misspelt field would be dropped when the reporter rewrites the file, or read as none.
        const unknown = Object.keys(entry).find((k) => !ENTRY_FIELDS.includes(k))
        if (unknown !== undefined) {
          const near = closestName(unknown, ENTRY_FIELDS)
          return {
            path: [...at, unknown],
            what: `is not a field of a budget${near === undefined ? '' : ` (did you mean "${near}"?)`}: an entry has ${ENTRY_FIELDS.map((f) => `"${f}"`).join(' and ')}`,
          }
        }
        const energyJ = entry['energyJ']
        if (typeof energyJ !== 'number' || !Number.isFinite(energyJ) || energyJ < 0) {
          return {
            path: [...at, 'energyJ'],
            what: `must be a finite number ≥ 0 (got ${shown(energyJ)})`,
          }
        }
        const measured = entry['measuredEnergyJ']
        if (
          measured !== undefined &&
          (typeof measured !== 'number' || !Number.isFinite(measured))
        ) {
          return {
            path: [...at, 'measuredEnergyJ'],
            what: `must be a finite number (got ${shown(measured)})`,
          }
        }
      }
    }
  }
  return undefined
}

/** A JSON value in a message: scalars as written (long strings cut), containers by kind. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (Array.isArray(value)) return 'an array'
  if (isRecord(value)) return 'an object'
  const text = JSON.stringify(value)
  return text.length > 40 ? `${text.slice(0, 37)}…` : text
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

/** E_BUDGET_FILE_INVALID at `offset` in `json` (when known): the message and `details` give the line and column. */
function invalid(
  source: string,
  json: string,
  offset: number | undefined,
  path: JsonPath,
  /** The message, given ` (at line:column)` or '' when the place is unknown. */
  message: (at: string) => string,
  cause?: unknown,
): EnergyError {
  const where = offset === undefined ? undefined : lineColumn(json, offset)
  const place = where === undefined ? '' : ` (at ${where.line}:${where.column})`
  return new EnergyError({
    code: BudgetErrors.FILE_INVALID,
    message: message(place),
    hint: `Fix the file by hand${where === undefined ? '' : ` at line ${where.line}, column ${where.column}`} (the format: docs/budgets.md), or delete it and re-run with \`vitest -u\` (or VITEST_ENERGY_UPDATE=1) to write budgets from measurements.`,
    details: {
      format: source,
      file: source,
      ...(where === undefined ? {} : { line: where.line, column: where.column }),
      ...(path.length === 0 ? {} : { path: formatJsonPath(path) }),
    },
    ...(cause === undefined ? {} : { cause }),
  })
}
