/**
 * Internal: the two intervals sampling attribution needs, expressed in the model's `Interval`
 * shape. The statistics themselves live in `src/stats` (Wilson, Student t quantile).
 */
import type { Interval } from '../model/energy.js'
import { studentTQuantile } from '../stats/distributions.js'
import { wilsonInterval } from '../stats/intervals.js'

/** Wilson interval of a proportion `successes / trials` (EDATA's p̂, Eq. 3.5). */
export function proportionInterval(successes: number, trials: number, level: number): Interval {
  const w = wilsonInterval(successes, trials, level)
  return { low: w.lower, high: w.upper, level }
}

/** t interval of a mean from k values: mean ± t(1 − α/2, k − 1) · √(variance / k). Needs k ≥ 2. */
export function meanInterval(k: number, mean: number, variance: number, level: number): Interval {
  const t = studentTQuantile(1 - (1 - level) / 2, k - 1)
  const half = t * Math.sqrt(variance / k)
  return { low: mean - half, high: mean + half, level }
}
