/**
 * Two-sample hypothesis tests: Mann–Whitney U (exact for small samples without ties, otherwise the
 * normal approximation with tie and continuity corrections, as R's `wilcox.test`) and Welch's t.
 */
import { mean, variance } from './descriptive.js'
import { normalCdf, studentTCdf } from './distributions.js'
import { requireAtLeast, type Samples } from './samples.js'

/** `greater`: the second group (`y`, e.g. the current build) tends to be larger than the first. */
export type Alternative = 'two-sided' | 'greater' | 'less'

export interface MannWhitneyResult {
  /** U of the second group: #{(i, j) : yⱼ > xᵢ} + ½·#{yⱼ = xᵢ}. U_x = n₁n₂ − U. */
  readonly u: number
  /** p-value under the chosen alternative. */
  readonly pValue: number
  /** `exact` when both n < 50 and there are no ties, else `normal`. */
  readonly method: 'exact' | 'normal'
  /** z statistic of the normal approximation (after corrections); undefined when exact. */
  readonly z?: number
}

/**
 * Mann–Whitney U test of x (baseline) against y (current).
 * - Ranks of the pooled sample use mid-ranks for ties; U = R_y − n₂(n₂ + 1)/2.
 * - Exact (n₁ < 50, n₂ < 50, no ties): P(U ≤ u) from the count of rank arrangements,
 *   c(m, n, u) = c(m − 1, n, u − n) + c(m, n − 1, u).
 * - Otherwise: z = (U − n₁n₂/2 − c) / σ, σ² = n₁n₂/12 · ((N + 1) − Σ(tₖ³ − tₖ)/(N(N − 1))),
 *   c = ±½ continuity correction toward the mean.
 * Two-sided p = min(1, 2·min(P(U ≤ u), P(U ≥ u))).
 */
export function mannWhitneyU(
  x: Samples,
  y: Samples,
  alternative: Alternative = 'two-sided',
): MannWhitneyResult {
  const n1 = x.length
  const n2 = y.length
  const pooled = [...x.map((v) => ({ v, g: 0 })), ...y.map((v) => ({ v, g: 1 }))].sort(
    (a, b) => a.v - b.v,
  )
  const N = pooled.length
  let rankSumY = 0
  let tieTerm = 0
  let hasTies = false
  for (let i = 0; i < N;) {
    let j = i
    while (j + 1 < N && pooled[j + 1]?.v === pooled[i]?.v) j++
    const t = j - i + 1
    if (t > 1) {
      hasTies = true
      tieTerm += t * t * t - t
    }
    const midRank = (i + 1 + (j + 1)) / 2
    for (let k = i; k <= j; k++) if (pooled[k]?.g === 1) rankSumY += midRank
    i = j + 1
  }
  const u = rankSumY - (n2 * (n2 + 1)) / 2
  if (!hasTies && n1 < 50 && n2 < 50) {
    const dist = exactUDistribution(n1, n2)
    const total = dist.reduce((s, c) => s + c, 0)
    const ui = Math.round(u)
    let le = 0
    for (let k = 0; k <= ui; k++) le += dist[k] ?? 0
    let ge = 0
    for (let k = ui; k < dist.length; k++) ge += dist[k] ?? 0
    const pLe = le / total
    const pGe = ge / total
    const pValue =
      alternative === 'greater'
        ? pGe
        : alternative === 'less'
          ? pLe
          : Math.min(1, 2 * Math.min(pLe, pGe))
    return { u, pValue, method: 'exact' }
  }
  const mu = (n1 * n2) / 2
  const sigma = Math.sqrt(((n1 * n2) / 12) * (N + 1 - tieTerm / (N * (N - 1))))
  if (sigma === 0) return { u, pValue: 1, method: 'normal', z: 0 }
  const d = u - mu
  let z: number
  let pValue: number
  if (alternative === 'greater') {
    z = (d - 0.5) / sigma
    pValue = 1 - normalCdf(z)
  } else if (alternative === 'less') {
    z = (d + 0.5) / sigma
    pValue = normalCdf(z)
  } else {
    z = (d - Math.sign(d) * 0.5) / sigma
    pValue = Math.min(1, 2 * (1 - normalCdf(Math.abs(z))))
  }
  return { u, pValue, method: 'normal', z }
}

/**
 * Counts of U = 0 … mn over all C(m + n, m) orderings (floating counts; exact below 2⁵³, relative
 * precision beyond). Recurrence on the largest pooled value: if it is a y it beats all i x's
 * (U shifts by i, sizes (i, j − 1)); if it is an x it beats nothing (sizes (i − 1, j)).
 */
function exactUDistribution(m: number, n: number): number[] {
  // prev[j] is the distribution for sizes (i − 1, j); cur[j] for (i, j).
  let prev: number[][] = []
  for (let j = 0; j <= n; j++) prev.push([1]) // i = 0: U = 0 only
  for (let i = 1; i <= m; i++) {
    const cur: number[][] = [[1]] // j = 0: U = 0 only
    for (let j = 1; j <= n; j++) {
      const row = new Array<number>(i * j + 1).fill(0)
      const xLargest = prev[j] ?? []
      const yLargest = cur[j - 1] ?? []
      for (let k = 0; k < xLargest.length; k++) row[k] = (row[k] ?? 0) + (xLargest[k] ?? 0)
      for (let k = 0; k < yLargest.length; k++) row[k + i] = (row[k + i] ?? 0) + (yLargest[k] ?? 0)
      cur.push(row)
    }
    prev = cur
  }
  return prev[n] ?? [1]
}

export interface WelchResult {
  /** t = (ȳ − x̄) / √(s²ₓ/n₁ + s²ᵧ/n₂). */
  readonly t: number
  /** Welch–Satterthwaite ν = (s²ₓ/n₁ + s²ᵧ/n₂)² / ((s²ₓ/n₁)²/(n₁ − 1) + (s²ᵧ/n₂)²/(n₂ − 1)). */
  readonly df: number
  readonly pValue: number
  /** ȳ − x̄, in the unit of the data. */
  readonly difference: number
  /** Standard error of the difference. */
  readonly standardError: number
}

/** Welch's unequal-variance t test of y (current) against x (baseline). Needs n ≥ 2 per group. */
export function welchTTest(
  x: Samples,
  y: Samples,
  alternative: Alternative = 'two-sided',
): WelchResult {
  requireAtLeast(x, 2, "Welch's t test (baseline)")
  requireAtLeast(y, 2, "Welch's t test (current)")
  const vx = variance(x) / x.length
  const vy = variance(y) / y.length
  const se = Math.sqrt(vx + vy)
  const difference = mean(y) - mean(x)
  if (se === 0) {
    const p = difference === 0 ? 1 : 0
    const directional =
      alternative === 'greater'
        ? difference > 0
          ? 0
          : 1
        : alternative === 'less'
          ? difference < 0
            ? 0
            : 1
          : p
    return {
      t: difference === 0 ? 0 : Math.sign(difference) * Infinity,
      df: x.length + y.length - 2,
      pValue: directional,
      difference,
      standardError: 0,
    }
  }
  const t = difference / se
  const df = (vx + vy) ** 2 / (vx ** 2 / (x.length - 1) + vy ** 2 / (y.length - 1))
  const pValue =
    alternative === 'greater'
      ? 1 - studentTCdf(t, df)
      : alternative === 'less'
        ? studentTCdf(t, df)
        : Math.min(1, 2 * (1 - studentTCdf(Math.abs(t), df)))
  return { t, df, pValue, difference, standardError: se }
}
