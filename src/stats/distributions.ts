/**
 * Distribution functions simple-statistics lacks or approximates too coarsely: the regularized
 * incomplete beta function, the Student t CDF and quantile built on it, and the standard normal
 * CDF and quantile (erf series/continued fraction; Acklam + Halley).
 * Reference: Press et al., Numerical Recipes 3rd ed., §6.4 (betacf by the modified Lentz method).
 */
import { gammaln } from 'simple-statistics'
import { invalidArgument } from './samples.js'

const EPS = 1e-15
const TINY = 1e-300
const MAX_ITER = 300

/**
 * Regularized incomplete beta Iₓ(a, b) = B(x; a, b) / B(a, b), for a, b > 0 and x in [0, 1],
 * evaluated by its continued fraction (NR §6.4), using the symmetry Iₓ(a,b) = 1 − I₁₋ₓ(b,a) where
 * the fraction converges faster.
 */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (!(a > 0 && b > 0))
    throw invalidArgument(
      `incomplete beta needs a, b > 0 (got ${a}, ${b})`,
      'Check the degrees of freedom.',
    )
  if (!(x >= 0 && x <= 1))
    throw invalidArgument(
      `incomplete beta needs x in [0, 1] (got ${x})`,
      'This is a bug in the caller.',
    )
  if (x === 0 || x === 1) return x
  const lnFront = gammaln(a + b) - gammaln(a) - gammaln(b) + a * Math.log(x) + b * Math.log1p(-x)
  const front = Math.exp(lnFront)
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a
  return 1 - (front * betaContinuedFraction(1 - x, b, a)) / b
}

function betaContinuedFraction(x: number, a: number, b: number): number {
  const qab = a + b
  const qap = a + 1
  const qam = a - 1
  let c = 1
  let d = 1 - (qab * x) / qap
  if (Math.abs(d) < TINY) d = TINY
  d = 1 / d
  let h = d
  for (let m = 1; m <= MAX_ITER; m++) {
    const m2 = 2 * m
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2))
    d = 1 + aa * d
    if (Math.abs(d) < TINY) d = TINY
    c = 1 + aa / c
    if (Math.abs(c) < TINY) c = TINY
    d = 1 / d
    h *= d * c
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2))
    d = 1 + aa * d
    if (Math.abs(d) < TINY) d = TINY
    c = 1 + aa / c
    if (Math.abs(c) < TINY) c = TINY
    d = 1 / d
    const del = d * c
    h *= del
    if (Math.abs(del - 1) < EPS) break
  }
  return h
}

/**
 * Student t cumulative distribution P(T ≤ t) with ν degrees of freedom (ν > 0, not necessarily an
 * integer, as Welch's test needs): for t ≥ 0, 1 − ½·I_{ν/(ν+t²)}(ν/2, ½); symmetric for t < 0.
 */
export function studentTCdf(t: number, df: number): number {
  if (!(df > 0))
    throw invalidArgument(`Student t needs df > 0 (got ${df})`, 'Use at least two runs per group.')
  if (t === Infinity) return 1
  if (t === -Infinity) return 0
  const tail = 0.5 * regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5)
  return t >= 0 ? 1 - tail : tail
}

/**
 * Student t quantile: the t with P(T ≤ t) = p. Found by bisection on `studentTCdf` to 1e-13
 * relative, then one Newton polish. E.g. t(0.975, 10) = 2.2281388519649….
 * @param p probability in (0, 1)
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1))
    throw invalidArgument(
      `quantile p = ${p} is outside (0, 1)`,
      'Pass e.g. 0.975 for a two-sided 95% interval.',
    )
  if (!(df > 0))
    throw invalidArgument(`Student t needs df > 0 (got ${df})`, 'Use at least two runs per group.')
  if (p === 0.5) return 0
  if (p < 0.5) return -studentTQuantile(1 - p, df)
  let lo = 0
  let hi = 1
  while (studentTCdf(hi, df) < p) {
    lo = hi
    hi *= 2
    if (hi > 1e300) return Infinity
  }
  for (let i = 0; i < 200 && hi - lo > 1e-13 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2
    if (studentTCdf(mid, df) < p) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

/** Standard normal CDF Φ(z) = ½(1 + erf(z/√2)), to ~1e-15. */
export function normalCdf(z: number): number {
  if (z === Infinity) return 1
  if (z === -Infinity) return 0
  // simple-statistics' cumulativeStdNormalProbability reads a table in steps of 0.01; use erf.
  return 0.5 * (1 + erf(z / Math.SQRT2))
}

/**
 * Standard normal quantile Φ⁻¹(p), p in (0, 1): Acklam's rational approximation (1.15e-9) refined
 * by one Halley step on `normalCdf`, ~1e-15. (simple-statistics' `probit` is off by ~3e-3 at
 * p = 0.975, because its inverse error function is a coarse approximation.)
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1))
    throw invalidArgument(`quantile p = ${p} is outside (0, 1)`, 'Pass e.g. 0.975.')
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ]
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972,
    -13.28068155288572,
  ]
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
    4.374664141464968, 2.938163982698783,
  ]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number]
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number]
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number]
  const [d0, d1, d2, d3] = d as [number, number, number, number]
  const pLow = 0.02425
  let x: number
  if (p < pLow) {
    const q = Math.sqrt(-2 * Math.log(p))
    x =
      (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
      ((((d0 * q + d1) * q + d2) * q + d3) * q + 1)
  } else if (p <= 1 - pLow) {
    const q = p - 0.5
    const r = q * q
    x =
      ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) /
      (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1)
  } else {
    const q = Math.sqrt(-2 * Math.log1p(-p))
    x =
      -(((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
      ((((d0 * q + d1) * q + d2) * q + d3) * q + 1)
  }
  // Halley refinement: e = Φ(x) − p, u = e·√(2π)·exp(x²/2), x ← x − u / (1 + x·u/2).
  const e = normalCdf(x) - p
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2)
  return x - u / (1 + (x * u) / 2)
}

/**
 * Error function to ~1e-15: Maclaurin series below 2.5, Lentz continued fraction of erfc above.
 * (simple-statistics' `errorFunction` is a 1e-7 approximation, too coarse for small p-values.)
 */
function erf(x: number): number {
  const ax = Math.abs(x)
  let r: number
  if (ax < 2.5) {
    // Maclaurin series: erf x = 2/√π Σ (−1)ⁿ x^(2n+1) / (n! (2n+1)).
    let term = ax
    let sum = ax
    const x2 = ax * ax
    for (let n = 1; n < 200; n++) {
      term *= -x2 / n
      const add = term / (2 * n + 1)
      sum += add
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break
    }
    r = (2 / Math.sqrt(Math.PI)) * sum
  } else {
    // Continued fraction for erfc (Lentz).
    r = 1 - erfcContinuedFraction(ax)
  }
  return x < 0 ? -r : r
}

function erfcContinuedFraction(x: number): number {
  // erfc x = exp(−x²)/√π · 1/(x + 1/2/(x + 1/(x + 3/2/(x + 2/(x + …)))))
  let f = x
  let c = x
  let d = 0
  for (let n = 1; n < 500; n++) {
    const an = n / 2
    d = x + an * d
    d = Math.abs(d) < TINY ? TINY : d
    c = x + an / c
    c = Math.abs(c) < TINY ? TINY : c
    d = 1 / d
    const delta = c * d
    f *= delta
    if (Math.abs(delta - 1) < EPS) break
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f
}
