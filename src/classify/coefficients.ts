/**
 * Spectrum-based fault-localization coefficients, reported beside the colour. With n11 = excessive
 * tests that executed the method, n10 = other tests that executed it, n01 = excessive tests that
 * did not, n00 = other tests that did not (a ratio with a zero denominator is 0):
 * - Ochiai = n11 / √((n11 + n01)(n11 + n10))
 * - Tarantula = [n11/(n11 + n01)] / [n11/(n11 + n01) + n10/(n10 + n00)]
 * - Jaccard = n11 / (n11 + n01 + n10)
 * - DStar (* = 2) = n11² / (n01 + n10); `null` (unbounded) when n01 + n10 = 0 and n11 > 0
 * - Energy-weighted Ochiai = e11 / √(E_F · (e11 + e10)), with e11/e10 = the method's energy in
 *   excessive/other tests and E_F = total energy of the excessive tests; hit bits replaced by
 *   joules, in [0, 1]. `null` when some test lacks the method's energy.
 */

export interface Spectrum2x2 {
  readonly n11: number
  readonly n10: number
  readonly n01: number
  readonly n00: number
}

const ratio = (a: number, b: number): number => (b === 0 ? 0 : a / b)

export function ochiai({ n11, n10, n01 }: Spectrum2x2): number {
  return ratio(n11, Math.sqrt((n11 + n01) * (n11 + n10)))
}

export function tarantula({ n11, n10, n01, n00 }: Spectrum2x2): number {
  const f = ratio(n11, n11 + n01)
  const p = ratio(n10, n10 + n00)
  return ratio(f, f + p)
}

export function jaccard({ n11, n10, n01 }: Spectrum2x2): number {
  return ratio(n11, n11 + n01 + n10)
}

/** DStar with * = 2; null means +∞ (executed by every excessive test and by no other test). */
export function dstar({ n11, n10, n01 }: Spectrum2x2): number | null {
  const d = n01 + n10
  if (d === 0) return n11 > 0 ? null : 0
  return (n11 * n11) / d
}

/** Energy-weighted Ochiai; see the module comment. */
export function energyWeightedOchiai(e11J: number, e10J: number, excessiveEnergyJ: number): number {
  return ratio(e11J, Math.sqrt(excessiveEnergyJ * (e11J + e10J)))
}
