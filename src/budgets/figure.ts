/**
 * What a budget applies to, and how a new budget is derived from a measurement.
 *
 * A test's budget figure is its net energy: the sum over its measured windows, where the
 * repetitions of one `energy.repeat` call (labelled `label #1`, `label #2`, …) count once, as their
 * mean, and the idle phone `energy.baseline()` measured does not count.
 */
import { ownNetEnergy, workWindows, type Interval, type EnergyResult } from '../model/index.js'
import { tInterval, toSamples } from '../stats/index.js'

export interface BudgetFigure {
  /** Net energy of the test, joules. */
  readonly valueJ: number
  /** 95% interval, when every part of the figure has one (sum of the parts' bounds). */
  readonly intervalJ?: Interval
  /** Largest number of repetitions behind a part (1 without repetitions). */
  readonly n: number
  /** How many parts are summed: windows, a repeat() call's repetitions counting as one. */
  readonly parts: number
  /** Device model of the first measured window, when known. */
  readonly device?: string
}

const REPETITION = / #(\d+)$/

/**
 * A test's windows in order, the repetitions of each `energy.repeat` call (`label #1`, `#2`, …)
 * grouped. A repetition joins the group before it when it has the same label and a higher number;
 * another `#1` (a second repeat() with the same label) starts a group of its own, and windows
 * without a number are one each, whatever their label: two different workloads are never
 * averaged together.
 */
export function repetitionGroups<T extends { readonly label: string }>(
  windows: readonly T[],
): T[][] {
  const groups: T[][] = []
  let open: { base: string; index: number; group: T[] } | undefined
  for (const w of windows) {
    const m = REPETITION.exec(w.label)
    if (m === null) {
      groups.push([w])
      open = undefined
      continue
    }
    const base = w.label.slice(0, m.index)
    const index = Number(m[1])
    if (open !== undefined && open.base === base && index > open.index) {
      open.group.push(w)
      open.index = index
      continue
    }
    open = { base, index, group: [w] }
    groups.push(open.group)
  }
  return groups
}

/** The test's budget figure, or `undefined` when no window of its work was measured. */
export function testBudgetFigure(results: readonly EnergyResult[]): BudgetFigure | undefined {
  // energy.baseline()'s window is the idle reference, not the test's work.
  const measured = workWindows(results)
  if (measured.length === 0) return undefined
  const groups = repetitionGroups(measured)
  let valueJ = 0
  let low = 0
  let high = 0
  let intervals = true
  let n = 1
  for (const runs of groups) {
    // The test's own: what a radio or the GPS another test left on drew is judged apart.
    const values = runs.map((r) => ownNetEnergy(r).valueJ)
    const mean = values.reduce((a, b) => a + b, 0) / values.length
    valueJ += mean
    n = Math.max(n, runs.length)
    if (runs.length >= 2 && values.some((v) => v !== values[0])) {
      const t = tInterval(toSamples(values, 'repetitions'))
      low += t.lower
      high += t.upper
    } else if (runs.length === 1 && runs[0]?.netIntervalJ !== undefined) {
      const own = ownNetEnergy(runs[0]).intervalJ ?? runs[0].netIntervalJ
      low += own.low
      high += own.high
    } else {
      intervals = false
    }
  }
  const device = measured.find((r) => r.device !== undefined)?.device?.model
  return {
    valueJ,
    ...(intervals ? { intervalJ: { low, high, level: 0.95 } } : {}),
    n,
    parts: groups.length,
    ...(device === undefined ? {} : { device }),
  }
}

/**
 * Rounds up to `digits` significant digits: 2.531 → 2.6, 0.01234 → 0.013, 0 → 0. Rounding up
 * keeps the headroom at least what was asked for; differences below 1e-12 relative (floating-point
 * noise such as 0.30000000000000004) do not bump the last digit. Works in decimal text, so tiny
 * and huge values (subnormals, 1e300) are exact too.
 */
export function ceilSignificant(value: number, digits = 2): number {
  if (!Number.isFinite(value) || !(value > 0)) return value === Infinity ? value : 0
  const [mantissaText, exponentText] = value.toExponential(15).split('e')
  let exponent = Number(exponentText)
  // Mantissa scaled to `digits` integer digits, e.g. 2.531 → 25.31, with noise trimmed.
  const scaled = Number((Number(mantissaText) * 10 ** (digits - 1)).toPrecision(12))
  let up = Math.ceil(scaled)
  if (up >= 10 ** digits) {
    up /= 10
    exponent += 1
  }
  return Number(`${up}e${exponent - digits + 1}`)
}

/** Rounds to `digits` significant digits (for the `measuredEnergyJ` record). */
export function roundSignificant(value: number, digits = 3): number {
  return value === 0 || !Number.isFinite(value) ? value : Number(value.toPrecision(digits))
}

/**
 * A new budget from a measurement: `measured × (1 + headroomPct/100)`, rounded up to 2 significant
 * digits — or, when the measurement's 95% interval is wider than that headroom, its upper bound
 * plus its half-width (`measured + 2 × (high − measured)`): a budget inside the interval would be
 * inconclusive, and fail, on the next run of the same code, and one at its edge on every other.
 */
export function budgetFromMeasurement(
  measuredJ: number,
  headroomPct: number,
  highJ?: number,
): number {
  const m = Math.max(0, measuredJ)
  const noise = highJ === undefined || !(highJ > m) ? 0 : 2 * (highJ - m)
  return ceilSignificant(Math.max(m * (1 + headroomPct / 100), m + noise), 2)
}
