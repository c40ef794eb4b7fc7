/** Confidence intervals: Student t for a mean, seeded percentile bootstrap, Wilson for a proportion. */
import { mean, quantile, standardDeviation } from './descriptive.js'
import { normalQuantile, studentTQuantile } from './distributions.js'
import { mulberry32 } from './random.js'
import { invalidArgument, requireAtLeast, sortSamples, type Samples } from './samples.js'

/** A two-sided interval around a point estimate, in the unit of the data. */
export interface ConfidenceInterval {
  /** The point estimate (mean, proportion, difference, …). */
  readonly estimate: number
  readonly lower: number
  readonly upper: number
  /** Nominal coverage, e.g. 0.95. */
  readonly confidence: number
}

function checkConfidence(confidence: number): void {
  if (!(confidence > 0 && confidence < 1)) {
    throw invalidArgument(
      `confidence ${confidence} is outside (0, 1)`,
      'Use e.g. 0.95 for a 95% interval.',
    )
  }
}

/**
 * t interval for the mean: x̄ ± t(1 − α/2, n − 1) · s/√n, with α = 1 − confidence. Needs n ≥ 2.
 * @param confidence default 0.95
 */
export function tInterval(samples: Samples, confidence = 0.95): ConfidenceInterval {
  checkConfidence(confidence)
  requireAtLeast(samples, 2, 'a t interval')
  const m = mean(samples)
  const half =
    (studentTQuantile(1 - (1 - confidence) / 2, samples.length - 1) * standardDeviation(samples)) /
    Math.sqrt(samples.length)
  return { estimate: m, lower: m - half, upper: m + half, confidence }
}

export interface BootstrapOptions {
  /** Coverage. @default 0.95 */
  readonly confidence?: number
  /** Number of resamples B. @default 2000 */
  readonly resamples?: number
  /** PRNG seed; the same seed and data give the same interval. @default 1 */
  readonly seed?: number
}

/**
 * Percentile bootstrap interval of `statistic` (default: the mean): draw B resamples with
 * replacement (mulberry32 seeded by `seed`), compute the statistic on each, and take the type-7
 * quantiles α/2 and 1 − α/2 of the B values. The estimate is the statistic on the original data.
 */
export function bootstrapInterval(
  samples: Samples,
  options: BootstrapOptions = {},
  statistic: (resample: Samples) => number = mean,
): ConfidenceInterval {
  const confidence = options.confidence ?? 0.95
  checkConfidence(confidence)
  const b = resampleCount(options.resamples)
  const random = mulberry32(options.seed ?? 1)
  const values: number[] = []
  for (let i = 0; i < b; i++) values.push(statistic(resample(samples, random)))
  return percentile(statistic(samples), values, confidence)
}

/**
 * Percentile bootstrap interval of the difference of means, mean(current) − mean(baseline): each
 * resample draws both groups independently with replacement.
 */
export function bootstrapDifferenceInterval(
  baseline: Samples,
  current: Samples,
  options: BootstrapOptions = {},
): ConfidenceInterval {
  const confidence = options.confidence ?? 0.95
  checkConfidence(confidence)
  const b = resampleCount(options.resamples)
  const random = mulberry32(options.seed ?? 1)
  const values: number[] = []
  for (let i = 0; i < b; i++)
    values.push(mean(resample(current, random)) - mean(resample(baseline, random)))
  return percentile(mean(current) - mean(baseline), values, confidence)
}

function resampleCount(resamples: number | undefined): number {
  const b = resamples ?? 2000
  if (!Number.isInteger(b) || b < 10)
    throw invalidArgument(
      `bootstrap needs an integer number of resamples ≥ 10 (got ${b})`,
      'Use the default of 2000.',
    )
  return b
}

function resample(samples: Samples, random: () => number): Samples {
  const out: number[] = []
  for (let j = 0; j < samples.length; j++)
    out.push(samples[Math.floor(random() * samples.length)] ?? samples[0])
  return out as Samples
}

function percentile(estimate: number, values: number[], confidence: number): ConfidenceInterval {
  const sorted = values as Samples
  sortSamples(sorted)
  const alpha = 1 - confidence
  return {
    estimate,
    lower: Math.min(estimate, quantile(sorted, alpha / 2)),
    upper: Math.max(estimate, quantile(sorted, 1 - alpha / 2)),
    confidence,
  }
}

/**
 * Wilson score interval for a proportion p̂ = x/n (e.g. EDATA's Eq. 3.5, the share of samples in
 * which a method was observed): with z = Φ⁻¹(1 − α/2),
 * centre = (p̂ + z²/2n) / (1 + z²/n), half-width = z/(1 + z²/n) · √(p̂(1 − p̂)/n + z²/4n²).
 * The estimate reported is p̂ itself (always inside the interval).
 */
export function wilsonInterval(
  successes: number,
  trials: number,
  confidence = 0.95,
): ConfidenceInterval {
  checkConfidence(confidence)
  if (!Number.isInteger(trials) || trials < 1)
    throw invalidArgument(
      `Wilson interval needs trials ≥ 1 (got ${trials})`,
      'Pass the total number of samples.',
    )
  if (!Number.isInteger(successes) || successes < 0 || successes > trials) {
    throw invalidArgument(
      `Wilson interval needs 0 ≤ successes ≤ trials (got ${successes} of ${trials})`,
      'Pass integer counts.',
    )
  }
  const z = normalQuantile(1 - (1 - confidence) / 2)
  const n = trials
  const p = successes / n
  const z2 = z * z
  const denom = 1 + z2 / n
  const centre = (p + z2 / (2 * n)) / denom
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))
  // At x = 0 (x = n) the bound is exactly 0 (1); computing it would leave rounding residue.
  const lower = successes === 0 ? 0 : Math.max(0, centre - half)
  const upper = successes === n ? 1 : Math.min(1, centre + half)
  return { estimate: p, lower, upper, confidence }
}
