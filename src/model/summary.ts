/**
 * The JSON-safe form of a test's energy that travels through Vitest's `task.meta.energy` (and the
 * Jest reporter's side files). Method lists are trimmed and each window's timeline and call tree
 * stored to the digits they mean, so a large suite's meta stays small.
 */
import { EnergyError } from './errors.js'
import { SCHEMA_VERSION, type EnergyResult, type MeasuredEnergyResult } from './energy.js'
import { invalidLimitChecks, type LimitCheck } from './limits.js'
import type { CallTreeNode, PowerTimeline } from './timeline.js'

export interface TestEnergyMeta {
  readonly schemaVersion: typeof SCHEMA_VERSION
  /** Every energy window the test measured, in order (the automatic window is labelled by the test). */
  readonly results: readonly EnergyResult[]
  /**
   * What the test's energy matchers checked, in call order (`toConsumeLessThan` and the others
   * with a limit); absent when none ran. Added within schema version 1: older readers ignore it.
   */
  readonly limits?: readonly LimitCheck[]
  /**
   * The test asked for a budget (it called `toStayWithinBudget()`, or ran with `checkBudgets`): in
   * the runner's `new` update mode the reporter writes one when it has none. Added within schema
   * version 1: older readers ignore it.
   */
  readonly budgetRequested?: true
}

export interface SummaryOptions {
  /** Keep this many methods per window, highest inclusive energy first. @default 20 */
  readonly topMethods?: number
  /** The matchers' checks to carry along (`TestEnergyMeta.limits`). @default none */
  readonly limits?: readonly LimitCheck[]
  /** `TestEnergyMeta.budgetRequested`. @default false */
  readonly budgetRequested?: boolean
}

export function summarize(
  results: readonly EnergyResult[],
  options: SummaryOptions = {},
): TestEnergyMeta {
  const topMethods = options.topMethods ?? 20
  return {
    schemaVersion: SCHEMA_VERSION,
    results: results.map((r) => (r.status === 'measured' ? summarizeWindow(r, topMethods) : r)),
    ...(options.limits === undefined || options.limits.length === 0
      ? {}
      : { limits: options.limits }),
    ...(options.budgetRequested === true ? { budgetRequested: true as const } : {}),
  }
}

function summarizeWindow(r: MeasuredEnergyResult, topMethods: number): MeasuredEnergyResult {
  if (r.methods.length <= topMethods && r.timeline === undefined && r.callTree === undefined)
    return r
  return {
    ...r,
    methods: r.methods.slice(0, topMethods),
    ...(r.timeline === undefined ? {} : { timeline: compactTimeline(r.timeline) }),
    ...(r.callTree === undefined ? {} : { callTree: compactTree(r.callTree) }),
  }
}

/** Significant digits of powers and energies in timelines and trees: ≤ 5 · 10⁻⁷ of each value. */
const DIGITS = 6

const digits = (x: number): number =>
  Number.isFinite(x) && x !== 0 ? Number(x.toPrecision(DIGITS)) : x
/** Bucket edges to the nanosecond they were read at; activity to a thousandth of a thread. */
const nano = (s: number): number => Math.round(s * 1e9) / 1e9
const milli = (x: number): number => Math.round(x * 1e3) / 1e3

function compactTimeline(t: PowerTimeline): PowerTimeline {
  return {
    ...t,
    edgesS: t.edgesS.map(nano),
    series: t.series.map((s) => ({ ...s, powerW: s.powerW.map(digits) })),
    ...(t.lanes === undefined
      ? {}
      : { lanes: t.lanes.map((l) => ({ ...l, busy: l.busy.map(milli) })) }),
  }
}

function compactTree(n: CallTreeNode): CallTreeNode {
  return {
    ...n,
    selfEnergyJ: digits(n.selfEnergyJ),
    inclusiveEnergyJ: digits(n.inclusiveEnergyJ),
    ...(n.children === undefined ? {} : { children: n.children.map(compactTree) }),
  }
}

/**
 * Reads meta back from JSON (a merged blob report, a Jest side file). Rejects anything that is not
 * a meta object of a schema version this build understands.
 */
export function parseTestEnergyMeta(value: unknown): TestEnergyMeta {
  if (typeof value !== 'object' || value === null) {
    throw invalid(`expected an object, got ${value === null ? 'null' : typeof value}`)
  }
  const record = value as Record<string, unknown>
  if (record['schemaVersion'] !== SCHEMA_VERSION) {
    throw invalid(
      `schemaVersion ${String(record['schemaVersion'])} is not supported (this build reads ${SCHEMA_VERSION})`,
    )
  }
  const results = record['results']
  if (!Array.isArray(results)) throw invalid('`results` is not an array')
  results.forEach((r: unknown, i) => {
    const status = (r as { status?: unknown } | null)?.status
    if (status !== 'measured' && status !== 'skipped' && status !== 'failed') {
      throw invalid(`results[${i}].status must be measured, skipped or failed`)
    }
  })
  if (record['limits'] !== undefined) {
    const problem = invalidLimitChecks(record['limits'])
    if (problem !== undefined) throw invalid(problem)
  }
  if (record['budgetRequested'] !== undefined && record['budgetRequested'] !== true)
    throw invalid('`budgetRequested` must be true when present')
  return value as TestEnergyMeta
}

function invalid(message: string): EnergyError {
  return new EnergyError({
    code: 'E_META_INVALID',
    message: `energy meta: ${message}`,
    hint: 'The report was written by a different vitest-energy version; re-run the tests with this version.',
  })
}
