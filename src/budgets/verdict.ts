/**
 * Budget decisions with honest uncertainty. A figure whose 95% interval lies entirely on one side
 * of the budget is decided; one whose interval straddles it is inconclusive, and the matcher says
 * how many more repetitions would likely decide it instead of guessing.
 */
import type { Interval } from '../model/index.js'

export type Verdict = 'within' | 'over' | 'inconclusive'

export interface Decision {
  readonly verdict: Verdict
  /** Repetitions to add before the interval likely clears the budget (inconclusive only). */
  readonly moreRepetitions?: number
}

/**
 * `strict`: within means value < budget (toConsumeLessThan); otherwise value ≤ budget (toConsumeAtMost).
 * `repetitions`: how many runs the interval came from (1 for a single window).
 */
export function decide(
  valueJ: number,
  budgetJ: number,
  interval: Interval | undefined,
  strict: boolean,
  repetitions = 1,
): Decision {
  const within = (x: number): boolean => (strict ? x < budgetJ : x <= budgetJ)
  if (interval === undefined) return { verdict: within(valueJ) ? 'within' : 'over' }
  if (within(interval.high)) return { verdict: 'within' }
  if (!within(interval.low)) return { verdict: 'over' }
  return {
    verdict: 'inconclusive',
    moreRepetitions: moreRepetitionsToDecide(valueJ, budgetJ, interval, repetitions),
  }
}

/**
 * An interval's half-width shrinks like 1/√n, so it clears a budget at distance d once
 * n' = n·(h/d)²; we report n' − n (at least 1). When the estimate sits on the budget no finite
 * number decides it; we say so with Infinity.
 */
export function moreRepetitionsToDecide(
  valueJ: number,
  budgetJ: number,
  interval: Interval,
  repetitions: number,
): number {
  const distance = Math.abs(valueJ - budgetJ)
  const halfWidth = Math.max(interval.high - valueJ, valueJ - interval.low)
  if (distance === 0) return Number.POSITIVE_INFINITY
  const needed = Math.ceil(repetitions * (halfWidth / distance) ** 2)
  return Math.max(1, needed - repetitions)
}
