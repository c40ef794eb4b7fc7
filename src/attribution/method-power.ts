/**
 * The power that per-method attribution should divide when the source has per-rail data: the CPU
 * rails above their idle level. Screen and radio power is not caused by whatever code happened to
 * be sampled (radios are charged to their initiators through tails instead).
 */
import type { EnergyWindow } from '../model/energy.js'
import type { RailSeries } from '../model/samples.js'
import { componentOfRail } from './components.js'
import { railsCurve, type EnergyCurve } from './curve.js'
import { lowestRailPowerW } from './initiators.js'

/**
 * The CPU rails' curve and their idle level (the lowest power each showed in the window, or lower
 * if `floorsW` knows it from earlier windows); `undefined` when the data has no CPU rail.
 */
export function cpuMethodPower(
  rails: readonly RailSeries[],
  window: EnergyWindow,
  floorsW?: ReadonlyMap<string, number>,
): { readonly curve: EnergyCurve; readonly baselinePowerW: number } | undefined {
  const cpu = rails.filter(
    (r) =>
      componentOfRail({ rail: r.rail, ...(r.subsystem ? { subsystem: r.subsystem } : {}) }) ===
      'cpu',
  )
  if (cpu.length === 0) return undefined
  let baselinePowerW = 0
  for (const rail of cpu) {
    const lowest = lowestRailPowerW(rail, window)
    if (lowest === undefined) return undefined
    baselinePowerW += Math.min(lowest, floorsW?.get(rail.rail) ?? lowest)
  }
  return { curve: railsCurve(cpu, { edges: 'hold' }), baselinePowerW }
}
