/**
 * Baseline-vs-current comparison of repeated energy measurements, with a verdict the matchers and
 * the reporter print. Energy: more joules is worse.
 *
 * Verdict rules, in order (m = minEffectPct/100 · |mean(baseline)|, the equivalence margin in J):
 * 1. `same`: the (1 − α) interval of the difference lies inside [−m, +m] (m > 0): whatever the
 *    p-value, any real change is smaller than the effect you said you care about.
 * 2. `worse` / `better`: p < α and |deltaPct| ≥ minEffectPct: a significant change at least as
 *    large as the minimum effect; `worse` when current uses more energy.
 * 3. `inconclusive`: everything else: not significant but the interval is too wide to rule out
 *    an effect of size m, or significant but smaller than m without the interval proving it.
 *    `requiredRepetitions` estimates how many more runs would decide.
 */
import { mean, standardDeviation } from './descriptive.js'
import { normalQuantile, studentTQuantile } from './distributions.js'
import { bootstrapDifferenceInterval, type ConfidenceInterval } from './intervals.js'
import { invalidArgument, requireAtLeast, toSamples, type Samples } from './samples.js'
import { mannWhitneyU, welchTTest } from './tests.js'

export type Verdict = 'better' | 'worse' | 'same' | 'inconclusive'

export interface CompareOptions {
  /** Significance level. @default 0.05 */
  readonly alpha?: number
  /** Hypothesis test. @default 'mann-whitney' */
  readonly test?: 'mann-whitney' | 'welch'
  /** Smallest change (in % of the baseline mean) that matters; also the equivalence margin. @default 5 */
  readonly minEffectPct?: number
  /** Seed of the bootstrap used for the Mann–Whitney interval. @default 1 */
  readonly seed?: number
}

export interface Comparison {
  /** mean(current) − mean(baseline), in J. */
  readonly deltaJ: number
  /** 100 · deltaJ / mean(baseline); ±Infinity when the baseline mean is 0 and deltaJ ≠ 0. */
  readonly deltaPct: number
  /** Two-sided p-value of the chosen test. */
  readonly pValue: number
  /**
   * (1 − α) interval of deltaJ: Welch's t interval for `welch`; a seeded percentile bootstrap of
   * the difference of means for `mann-whitney`.
   */
  readonly interval: ConfidenceInterval
  readonly verdict: Verdict
  readonly test: 'mann-whitney' | 'welch'
  readonly alpha: number
  readonly minEffectPct: number
  /** Runs per group. */
  readonly baselineN: number
  readonly currentN: number
}

function resolve(options: CompareOptions): Required<CompareOptions> {
  const alpha = options.alpha ?? 0.05
  if (!(alpha > 0 && alpha < 1))
    throw invalidArgument(`alpha ${alpha} is outside (0, 1)`, 'Use e.g. 0.05.')
  const minEffectPct = options.minEffectPct ?? 5
  if (!(minEffectPct >= 0) || !Number.isFinite(minEffectPct))
    throw invalidArgument(
      `minEffectPct ${minEffectPct} must be a finite number ≥ 0`,
      'Use e.g. 5 for 5%.',
    )
  const test = options.test ?? 'mann-whitney'
  if (test !== 'mann-whitney' && test !== 'welch')
    throw invalidArgument(`unknown test '${String(test)}'`, "Use 'mann-whitney' or 'welch'.")
  return { alpha, minEffectPct, test, seed: options.seed ?? 1 }
}

/** Compares energy runs (J) of a baseline build and a current build. Needs ≥ 2 runs per group. */
export function compare(
  baselineRuns: readonly number[],
  currentRuns: readonly number[],
  options: CompareOptions = {},
): Comparison {
  const o = resolve(options)
  const baseline = toSamples(baselineRuns, 'baseline runs')
  const current = toSamples(currentRuns, 'current runs')
  requireAtLeast(baseline, 2, 'a comparison (baseline)')
  requireAtLeast(current, 2, 'a comparison (current)')
  const baseMean = mean(baseline)
  const deltaJ = mean(current) - baseMean
  const deltaPct = pct(deltaJ, baseMean)
  let pValue: number
  let interval: ConfidenceInterval
  if (o.test === 'welch') {
    const w = welchTTest(baseline, current)
    pValue = w.pValue
    const half =
      w.standardError === 0 ? 0 : studentTQuantile(1 - o.alpha / 2, w.df) * w.standardError
    interval = {
      estimate: deltaJ,
      lower: deltaJ - half,
      upper: deltaJ + half,
      confidence: 1 - o.alpha,
    }
  } else {
    pValue = mannWhitneyU(baseline, current).pValue
    interval = bootstrapDifferenceInterval(baseline, current, {
      confidence: 1 - o.alpha,
      seed: o.seed,
    })
  }
  const margin = (o.minEffectPct / 100) * Math.abs(baseMean)
  let verdict: Verdict
  if (margin > 0 && interval.lower >= -margin && interval.upper <= margin) verdict = 'same'
  else if (pValue < o.alpha && Math.abs(deltaPct) >= o.minEffectPct && deltaJ !== 0)
    verdict = deltaJ > 0 ? 'worse' : 'better'
  else verdict = 'inconclusive'
  return {
    deltaJ,
    deltaPct,
    pValue,
    interval,
    verdict,
    test: o.test,
    alpha: o.alpha,
    minEffectPct: o.minEffectPct,
    baselineN: baseline.length,
    currentN: current.length,
  }
}

function pct(delta: number, base: number): number {
  if (base === 0) return delta === 0 ? 0 : Math.sign(delta) * Infinity
  return (100 * delta) / Math.abs(base)
}

export interface RepetitionEstimate {
  /** Runs per group the estimate says would decide (≥ the current size). */
  readonly runsPerGroup: number
  /** Further runs per group beyond the larger group already measured (0 = already enough). */
  readonly additionalRuns: number
  /** What the runs would establish: a real difference, or equivalence within the margin. */
  readonly target: 'difference' | 'equivalence'
}

/**
 * How many more repetitions per group would likely decide an inconclusive comparison, by the
 * normal approximation with the pooled SD σ̂ = √((s²_b + s²_c)/2) and the observed |Δ|:
 * - when |Δ| ≥ m (margin): detect Δ with power 1 − β: n = 2(z₁₋α/₂ + z₁₋β)² σ̂² / Δ² (`difference`);
 * - when |Δ| < m: make the interval half-width fit inside the margin: z₁₋α/₂ σ̂ √(2/n) ≤ m − |Δ|,
 *   n = 2 z² σ̂² / (m − |Δ|)² (`equivalence`).
 * Returns undefined when no number of runs would decide (zero spread and no margin).
 * @param power 1 − β, @default 0.8
 */
export function requiredRepetitions(
  baselineRuns: readonly number[],
  currentRuns: readonly number[],
  options: CompareOptions & { readonly power?: number; readonly maxRuns?: number } = {},
): RepetitionEstimate | undefined {
  const o = resolve(options)
  const power = options.power ?? 0.8
  if (!(power > 0 && power < 1))
    throw invalidArgument(`power ${power} is outside (0, 1)`, 'Use e.g. 0.8.')
  const baseline: Samples = toSamples(baselineRuns, 'baseline runs')
  const current: Samples = toSamples(currentRuns, 'current runs')
  requireAtLeast(baseline, 2, 'a repetition estimate (baseline)')
  requireAtLeast(current, 2, 'a repetition estimate (current)')
  const sigma = Math.sqrt((standardDeviation(baseline) ** 2 + standardDeviation(current) ** 2) / 2)
  const delta = Math.abs(mean(current) - mean(baseline))
  const margin = (o.minEffectPct / 100) * Math.abs(mean(baseline))
  const zA = normalQuantile(1 - o.alpha / 2)
  const have = Math.max(baseline.length, current.length)
  let n: number
  let target: RepetitionEstimate['target']
  if (sigma === 0) return undefined
  if (delta >= margin && delta > 0) {
    n = (2 * (zA + normalQuantile(power)) ** 2 * sigma ** 2) / delta ** 2
    target = 'difference'
  } else if (margin > delta) {
    n = (2 * zA ** 2 * sigma ** 2) / (margin - delta) ** 2
    target = 'equivalence'
  } else return undefined
  const runsPerGroup = Math.max(have, Math.ceil(n))
  const capped = Math.min(runsPerGroup, options.maxRuns ?? Number.MAX_SAFE_INTEGER)
  return { runsPerGroup: capped, additionalRuns: capped - have, target }
}
