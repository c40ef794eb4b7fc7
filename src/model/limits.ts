/**
 * What an energy matcher checked in a test — `expect(run).toConsumeLessThan(2.5)` and the other
 * matchers that compare a figure with a limit — recorded by the matcher for the reporter, which
 * shows it beside (or instead of) the test's budget. JSON-safe: it travels in `task.meta.energy`
 * (and the Jest side files) and is written as is in the JSON report's `tests[].limits`.
 */

/**
 * The limit's unit, shared by `limit`, `value` and `interval`: joules (energy), watts (average
 * power), or percent (`toUseLessThanPercentOfBattery`: of the battery's capacity;
 * `toNotRegressFrom`: increase over the baseline's mean).
 */
export type LimitUnit = 'J' | 'W' | '%'

/**
 * What the figure was compared with the limit by: `within` (below, or at it for `≤`), `over`,
 * `inconclusive` (the limit inside the figure's 95% interval), `unjudgeable` (no figure: a failed
 * window, a rail or method that is not there; `reason` says why).
 */
export type LimitVerdict = 'within' | 'over' | 'inconclusive' | 'unjudgeable'

/** What a matcher was applied to. */
export interface LimitTarget {
  /**
   * `window`: one measured window; `repetitions`: the windows of an `energy.repeat`; `method`: a
   * method's energy in one window (`run.method(…)`); `method-repetitions`: a method across the
   * repetitions (`runs.method(…)`).
   */
  readonly kind: 'window' | 'repetitions' | 'method' | 'method-repetitions'
  /** The window's label (repetitions: without ` #i`), or the method's name. */
  readonly label: string
  /** For a method: the label of the window it was measured in, when the test knows it. */
  readonly window?: string
}

export interface LimitCheck {
  /** The matcher, e.g. `toConsumeLessThan`. */
  readonly matcher: string
  /** `expect(x).not.…`: the assertion passes when the figure is *not* within the limit. */
  readonly negated: boolean
  /** `<` (strictly below) or `<=` (at or below). */
  readonly comparison: '<' | '<='
  /** The limit, in `unit`. */
  readonly limit: number
  readonly unit: LimitUnit
  /**
   * Which figure: `net`, `gross`, `rail:<name>`, `component:<name>` of a window; `inclusive` or
   * `inclusive+async` for a method; `increase` for `toNotRegressFrom`; `battery` for the share of the battery.
   */
  readonly scope: string
  /** Over repetitions, the statistic compared: mean, median, or the upper bound of the mean's 95% interval. */
  readonly stat?: 'mean' | 'median' | 'upper95'
  /** The figure compared with the limit, in `unit`; absent when `verdict` is `unjudgeable`. */
  readonly value?: number
  /** Its 95% interval, in `unit`, when known. */
  readonly interval?: { readonly low: number; readonly high: number }
  /** Repetitions behind `value` (1 for one window). */
  readonly n: number
  readonly verdict: LimitVerdict
  /** The assertion's outcome, after `.not` and `inconclusive: 'warn'` (decided by the estimate). */
  readonly passed: boolean
  readonly target?: LimitTarget
  /** Why the matcher could not judge (`unjudgeable`), one line. */
  readonly reason?: string
  /**
   * A method judged `inclusive`: the energy it caused after it ran (a radio tail, the GPS it left
   * on), J, which the figure leaves out (`inclusive+async` counts it). Absent when none.
   */
  readonly uncountedAsyncJ?: number
}

/** `value` as a percentage of `limit`; undefined without a value or with a limit of 0. */
export function limitUse(check: Pick<LimitCheck, 'value' | 'limit'>): number | undefined {
  return check.value === undefined || check.limit === 0
    ? undefined
    : (100 * check.value) / check.limit
}

/** What is wrong with checks read back from JSON (the first problem), or undefined when nothing is. */
export function invalidLimitChecks(value: unknown): string | undefined {
  if (!Array.isArray(value)) return '`limits` is not an array'
  for (const [i, c] of value.entries()) {
    const x = c as Record<string, unknown> | null
    if (
      typeof x !== 'object' ||
      x === null ||
      typeof x['matcher'] !== 'string' ||
      typeof x['limit'] !== 'number' ||
      (x['unit'] !== 'J' && x['unit'] !== 'W' && x['unit'] !== '%') ||
      typeof x['passed'] !== 'boolean' ||
      typeof x['verdict'] !== 'string'
    )
      return `limits[${i}] needs matcher, limit, unit (J, W or %), verdict and passed`
  }
  return undefined
}
