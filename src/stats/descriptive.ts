/**
 * Descriptive statistics. Thin, typed wrappers over simple-statistics where it has the function;
 * each JSDoc gives the exact formula so results can be checked by hand.
 */
import {
  mean as ssMean,
  medianAbsoluteDeviation as ssMad,
  medianSorted as ssMedianSorted,
  sampleStandardDeviation as ssSampleSd,
} from 'simple-statistics'
import { invalidArgument, requireAtLeast, type Samples, type SortedSamples } from './samples.js'

/** Arithmetic mean: x̄ = (1/n) Σ xᵢ. */
export function mean(samples: Samples): number {
  return ssMean(samples)
}

/** Median: the middle value, or the mean of the two middle values when n is even. */
export function median(sorted: SortedSamples): number {
  return ssMedianSorted(sorted)
}

/**
 * Quantile by linear interpolation between order statistics (Hyndman–Fan type 7, the default of R
 * and NumPy): h = (n − 1)·q, Q(q) = x₍⌊h⌋₎ + (h − ⌊h⌋)·(x₍⌊h⌋+1₎ − x₍⌊h⌋₎), 0-based.
 * @param q probability in [0, 1]
 */
export function quantile(sorted: SortedSamples, q: number): number {
  if (!(q >= 0 && q <= 1)) {
    throw invalidArgument(`quantile q = ${q} is outside [0, 1]`, 'Pass a probability such as 0.95.')
  }
  const h = (sorted.length - 1) * q
  const lo = Math.floor(h)
  const a = sorted[lo] ?? sorted[0]
  const b = sorted[Math.min(lo + 1, sorted.length - 1)] ?? a
  return a + (h - lo) * (b - a)
}

/** Sample variance with Bessel's correction: s² = Σ (xᵢ − x̄)² / (n − 1). Needs n ≥ 2. */
export function variance(samples: Samples): number {
  const sd = standardDeviation(samples)
  return sd * sd
}

/** Sample standard deviation: s = √(Σ (xᵢ − x̄)² / (n − 1)). Needs n ≥ 2. */
export function standardDeviation(samples: Samples): number {
  requireAtLeast(samples, 2, 'the standard deviation')
  return ssSampleSd(samples)
}

/**
 * Coefficient of variation: CV = s / x̄ (a ratio, not %). Needs n ≥ 2 and x̄ ≠ 0.
 */
export function coefficientOfVariation(samples: Samples): number {
  const m = mean(samples)
  if (m === 0) {
    throw invalidArgument(
      'the coefficient of variation of a zero-mean sample is undefined',
      'Use the standard deviation instead.',
    )
  }
  return standardDeviation(samples) / Math.abs(m)
}

/**
 * Median absolute deviation, NOT scaled: MAD = median(|xᵢ − median(x)|). Multiply by 1.4826 for a
 * consistent estimator of σ under normality (`MAD_TO_SD`).
 */
export function medianAbsoluteDeviation(samples: Samples): number {
  return ssMad(samples)
}

/** Normal-consistency factor for the MAD: 1 / Φ⁻¹(3/4) ≈ 1.4826. */
export const MAD_TO_SD = 1.4826

/** Summary of one set of runs. Units are those of the input (J for energy, W for power). */
export interface Summary {
  /** Number of observations. */
  readonly n: number
  /** Arithmetic mean x̄. */
  readonly mean: number
  /** Median. */
  readonly median: number
  /** Sample SD (n − 1); 0 when n = 1. */
  readonly sd: number
  /** s / |x̄|; 0 when n = 1 or x̄ = 0. */
  readonly cv: number
  /** Unscaled median absolute deviation. */
  readonly mad: number
  readonly min: number
  readonly max: number
}

/** All descriptive statistics at once. Tolerates n = 1 (sd and cv are then 0). */
export function summarize(sorted: SortedSamples): Summary {
  const m = mean(sorted)
  const sd = sorted.length >= 2 ? standardDeviation(sorted) : 0
  return {
    n: sorted.length,
    mean: m,
    median: median(sorted),
    sd,
    cv: m === 0 ? 0 : sd / Math.abs(m),
    mad: medianAbsoluteDeviation(sorted),
    min: sorted[0],
    max: sorted[sorted.length - 1] ?? sorted[0],
  }
}
