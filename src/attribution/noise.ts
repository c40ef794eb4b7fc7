/**
 * How far a window's net energy could move by chance, so that a net within the measurement's own
 * noise is judged as such and never by its sign. Two sources:
 * - the idle phone's own fluctuation over the window: the idle window's per-interval powers spread
 *   by s (a robust spread: 1.4826 × MAD), so m sensor intervals of τ seconds add a variance of
 *   m·(τ·s)² = T·τ·s² over a window of T seconds;
 * - the uncertainty of the idle level itself: the median of k intervals has a standard error of
 *   ≈ 1.2533·s/√k, which the whole window multiplies: (T·1.2533·s/√k)²;
 * plus the sensor's resolution at the window's two edges (`resolutionJ`, a ± bound: ODPM counters
 * count whole µWs per rail). The 95% interval is net ± 1.96·σ.
 */
import type { EnergyWindow, Interval } from '../model/energy.js'
import type { PowerSeries, RailSeries } from '../model/samples.js'
import { NS_PER_S } from '../model/units.js'
import {
  MAD_TO_SD,
  median,
  medianAbsoluteDeviation,
  toSamples,
  toSortedSamples,
} from '../stats/index.js'
import { sensorIntervalBounds } from './curve.js'
import { curveFor } from './test-energy.js'

/** The idle window's level and how much it fluctuated, per sensor interval. */
export interface IdleNoise {
  /** Median power over the idle window's sensor intervals, W. */
  readonly levelW: number
  /** Robust spread of those intervals' powers (1.4826 × median absolute deviation), W. */
  readonly spreadW: number
  /** Number of sensor intervals in the idle window. */
  readonly intervals: number
  /** Mean sensor interval length, s. */
  readonly intervalS: number
}

/** The idle window's per-interval powers, summarized. */
export function idleNoise(input: {
  readonly window: EnergyWindow
  readonly power: PowerSeries | readonly RailSeries[]
}): IdleNoise {
  const curve = curveFor({ ...input, edges: 'hold' })
  const bounds = sensorIntervalBounds(curve, input.window)
  const powers: number[] = []
  for (let j = 0; j + 1 < bounds.length; j++) {
    const a = bounds[j] as number
    const b = bounds[j + 1] as number
    if (b > a) powers.push((curve.energyJ(a, b) * NS_PER_S) / (b - a))
  }
  const level = powers.length === 0 ? 0 : median(toSortedSamples(powers, 'idle intervals'))
  const spread =
    powers.length === 0
      ? 0
      : MAD_TO_SD * medianAbsoluteDeviation(toSamples(powers, 'idle intervals'))
  const spanS = (input.window.endNs - input.window.startNs) / NS_PER_S
  return {
    levelW: level,
    spreadW: spread,
    intervals: powers.length,
    intervalS: powers.length === 0 ? spanS : spanS / powers.length,
  }
}

/**
 * Half the width of a window's 95% net-energy interval: 1.96·σ of the idle noise, the resolution
 * and the sensor's own reading noise over the window (`sensorNoiseJ`, one σ: a fuel gauge's, whose
 * few readings a short idle window may show as one quantized value and no spread).
 */
export function netNoiseHalfWidthJ(
  durationS: number,
  noise: IdleNoise | undefined,
  resolutionJ = 0,
  sensorNoiseJ = 0,
): number {
  let variance = (resolutionJ * resolutionJ) / 3 // a uniform error within ± resolutionJ
  variance += sensorNoiseJ * sensorNoiseJ
  if (noise !== undefined && noise.intervals > 0) {
    const fluctuation = durationS * noise.intervalS * noise.spreadW ** 2
    const levelError = (durationS * 1.2533 * noise.spreadW) / Math.sqrt(noise.intervals)
    variance += fluctuation + levelError ** 2
  }
  return 1.96 * Math.sqrt(variance)
}

/** The 95% interval of a window's net energy, given its half-width (`netNoiseHalfWidthJ`). */
export function netEnergyIntervalJ(netEnergyJ: number, halfWidthJ: number): Interval {
  return { low: netEnergyJ - halfWidthJ, high: netEnergyJ + halfWidthJ, level: 0.95 }
}
