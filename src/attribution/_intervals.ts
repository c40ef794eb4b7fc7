/**
 * Internal: the two intervals sampling attribution needs, expressed in the model's `Interval`
 * shape. The statistics themselves live in `src/stats` (Wilson, Student t quantile).
 */
import type { Interval } from '../model/energy.js'
import { studentTQuantile, wilsonInterval } from '../stats/index.js'

/** Wilson interval of a proportion `successes / trials` (EDATA's p̂, Eq. 3.5). */
export function proportionInterval(successes: number, trials: number, level: number): Interval {
  const w = wilsonInterval(successes, trials, level)
  return { low: w.lower, high: w.upper, level }
}

/** t interval of a mean from k values: mean ± t(1 − α/2, k − 1) · √(variance / k). Needs k ≥ 2. */
export function meanInterval(k: number, mean: number, variance: number, level: number): Interval {
  const t = tQuantile(level, k - 1)
  const half = t * Math.sqrt(variance / k)
  return { low: mean - half, high: mean + half, level }
}

/** Two-sided t quantiles by level and degrees of freedom: a run asks for the same few many times. */
const quantiles = new Map<number, Map<number, number>>()

function tQuantile(level: number, df: number): number {
  let byDf = quantiles.get(level)
  if (byDf === undefined) {
    byDf = new Map()
    quantiles.set(level, byDf)
  }
  let q = byDf.get(df)
  if (q === undefined) {
    q = studentTQuantile(1 - (1 - level) / 2, df)
    if (byDf.size < 100_000) byDf.set(df, q)
  }
  return q
}
