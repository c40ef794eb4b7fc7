/** Outlier flags for repeated runs: Tukey's fences and the MAD-based modified z-score. */
import { MAD_TO_SD, median, medianAbsoluteDeviation, quantile } from './descriptive.js'
import { invalidArgument, sortSamples, type Samples, type SortedSamples } from './samples.js'

export interface OutlierFlags {
  /** Lowest value not flagged as low. */
  readonly lower: number
  /** Highest value not flagged as high. */
  readonly upper: number
  /** One flag per input value, in input order. */
  readonly flags: readonly boolean[]
  /** Indices (into the input) of flagged values. */
  readonly indices: readonly number[]
}

/**
 * Tukey's fences: a value is an outlier when it lies outside [Q1 − k·IQR, Q3 + k·IQR], with
 * IQR = Q3 − Q1 (type-7 quartiles). k = 1.5 flags "outliers", k = 3 "far out".
 * @param k fence multiplier, @default 1.5
 */
export function tukeyFences(samples: Samples, k = 1.5): OutlierFlags {
  if (!(k >= 0))
    throw invalidArgument(`Tukey k must be ≥ 0 (got ${k})`, 'Use 1.5 (outliers) or 3 (far out).')
  const sorted = [...samples] as Samples
  sortSamples(sorted)
  const q1 = quantile(sorted, 0.25)
  const q3 = quantile(sorted, 0.75)
  const iqr = q3 - q1
  return flag(samples, q1 - k * iqr, q3 + k * iqr)
}

/**
 * Modified z-score (Iglewicz & Hoaglin): Mᵢ = (xᵢ − median) / (1.4826·MAD); a value is an outlier
 * when |Mᵢ| > threshold. When MAD = 0 (over half the values equal) any value different from the
 * median is flagged.
 * @param threshold @default 3.5
 */
export function madOutliers(samples: Samples, threshold = 3.5): OutlierFlags {
  if (!(threshold > 0))
    throw invalidArgument(`MAD threshold must be > 0 (got ${threshold})`, 'Use 3.5.')
  const sorted = [...samples] as Samples
  sortSamples(sorted)
  const med = median(sorted as SortedSamples)
  const scale = MAD_TO_SD * medianAbsoluteDeviation(sorted)
  return flag(samples, med - threshold * scale, med + threshold * scale)
}

function flag(samples: Samples, lower: number, upper: number): OutlierFlags {
  const flags = samples.map((v) => v < lower || v > upper)
  const indices: number[] = []
  flags.forEach((f, i) => {
    if (f) indices.push(i)
  })
  return { lower, upper, flags, indices }
}
