/**
 * Internal: power divided part by part (one SoC rail, a cluster's CPUs) and the window's sensor
 * intervals, shared by the interval and sampling estimators.
 */
import type { EnergyWindow } from '../model/energy.js'
import { NS_PER_S } from '../model/units.js'
import { lastAtOrBefore, sensorIntervalBounds, type EnergyCurve } from './curve.js'
import { tailCumulativeJ, type TailCharge } from './tails.js'

/** A source of power divided on its own, above its own idle level (e.g. one SoC rail). */
export interface PowerPart {
  readonly curve: EnergyCurve
  readonly baselinePowerW: number
  /** Modelled tail energy removed from this part. @default [] */
  readonly tails?: readonly TailCharge[]
  /**
   * The CPUs whose work this part powers (a CPU cluster's rail). Without it, the part follows
   * the work on every CPU (memory, interconnect).
   */
  readonly cpus?: readonly number[]
}

/** The part's net energy in each of the window's sensor intervals. */
export function partIntervals(
  part: PowerPart,
  window: EnergyWindow,
): { readonly bounds: Float64Array; readonly energyJ: Float64Array } {
  const { curve, baselinePowerW } = part
  const tails = part.tails ?? []
  const bounds = sensorIntervalBounds(curve, window)
  const energyJ = new Float64Array(bounds.length - 1)
  for (let j = 0; j < energyJ.length; j++) {
    const a = bounds[j] as number
    const b = bounds[j + 1] as number
    energyJ[j] =
      curve.energyJ(a, b) -
      (baselinePowerW * (b - a)) / NS_PER_S -
      (tails.length > 0 ? tailCumulativeJ(tails, b) - tailCumulativeJ(tails, a) : 0)
  }
  return { bounds, energyJ }
}

/** Calls `fn` with each sensor interval that [t0, t1) overlaps and the overlap, ns. */
export function forEachInterval(
  bounds: Float64Array,
  t0: number,
  t1: number,
  fn: (j: number, overlapNs: number) => void,
): void {
  const intervals = bounds.length - 1
  for (let j = Math.max(0, lastAtOrBefore(bounds, t0)); j < intervals; j++) {
    if ((bounds[j] as number) >= t1) break
    const overlap = Math.min(t1, bounds[j + 1] as number) - Math.max(t0, bounds[j] as number)
    if (overlap > 0) fn(j, overlap)
  }
}
