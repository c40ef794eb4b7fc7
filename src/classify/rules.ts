/**
 * Colouring rules of the two presets, in exact integer arithmetic.
 *
 * `couto2014` (Couto 2014, §5.4): uncoloured when never executed; green when never executed by an
 * excessive test (n11 = 0); red when p = n11/(n11 + n10) ≥ 0.70, i.e. 10·n11 ≥ 7·(n11 + n10);
 * yellow otherwise. A class (package, project) is red when more than 50% of its coloured members
 * are red (2r > k), green when more than 50% are green (2g > k), yellow otherwise, and uncoloured
 * when no member is coloured.
 *
 * `greendroid-code` (GreenDroid's shipped `ProjectAnalyser.assignCoefficients` and
 * `ResultClass/ResultPackage.getFactor`): red when n11 > 0 and n10 < 0.4·(n11 + n10), i.e.
 * 5·n10 < 2·(n11 + n10) (same outcome as Java's double arithmetic for every count below 10⁵,
 * checked in tests); green when n11 = 0, including never-executed methods; yellow otherwise.
 * Aggregation over all t members with Java integer division: one member → its colour; red when
 * r > ⌊t/2⌋; green when g ≥ ⌊t/2⌋; yellow otherwise (uncoloured when no member is coloured).
 */
import type { MethodColor } from '../model/index.js'

export type Preset = 'couto2014' | 'greendroid-code'

export const PRESETS: readonly Preset[] = ['couto2014', 'greendroid-code']

/** Hit counts of one method: n11 = executed in excessive tests, n10 = executed in other tests. */
export interface HitCounts {
  readonly n11: number
  readonly n10: number
}

/** Colour of one method under a preset. */
export function methodColor(preset: Preset, { n11, n10 }: HitCounts): MethodColor {
  if (preset === 'couto2014') {
    if (n11 + n10 === 0) return 'uncolored'
    if (n11 === 0) return 'green'
    return 10 * n11 >= 7 * (n11 + n10) ? 'red' : 'yellow'
  }
  if (n11 === 0) return 'green'
  return 5 * n10 < 2 * (n11 + n10) ? 'red' : 'yellow'
}

/** Colour of a class from its methods' colours, or of a package from its classes' colours. */
export function aggregateColor(preset: Preset, members: readonly MethodColor[]): MethodColor {
  let r = 0
  let g = 0
  let y = 0
  for (const c of members) {
    if (c === 'red') r++
    else if (c === 'green') g++
    else if (c === 'yellow') y++
  }
  if (r + g + y === 0) return 'uncolored'
  if (preset === 'couto2014') {
    const k = r + g + y
    if (2 * r > k) return 'red'
    if (2 * g > k) return 'green'
    return 'yellow'
  }
  const t = members.length
  if (t === 1) return members[0] ?? 'uncolored'
  const half = Math.floor(t / 2)
  if (r > half) return 'red'
  if (g >= half) return 'green'
  return 'yellow'
}
