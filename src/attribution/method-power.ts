/**
 * The power that per-method attribution should divide when the source has per-rail data: the
 * SoC's rails (CPU clusters, and the memory/interconnect/"System" domains that rise with them)
 * above their idle level. Screen, radio, GPS, camera and audio power is not caused by whatever code
 * happened to be sampled (radios and GPS are charged to their initiators through tails instead).
 */
import type { Component, EnergyWindow } from '../model/energy.js'
import type { RailSeries } from '../model/samples.js'
import { componentOfRail } from './components.js'
import { railsCurve, type EnergyCurve } from './curve.js'
import { lowestRailPowerW } from './initiators.js'

/** Components whose power follows the code that runs on the CPU. */
const SOC: ReadonlySet<Component> = new Set(['cpu', 'memory'])
/**
 * The SoC's shared domains that rise with CPU work: Pixel's `INFRASTRUCTURE`, the virtual
 * device's `System` (`S5M_VDD_INT`). Not the other rails that fall under `other` (sensor hub/AOC,
 * TPU, UFS): their power follows sensors and I/O that stay on whatever code runs.
 */
const SOC_SHARED = /INFRA|\bSYSTEM\b|VDD_INT\b/i

/** Whether a rail's power follows the code that runs on the CPU. */
export function followsCpu(rail: Pick<RailSeries, 'rail' | 'subsystem'>): boolean {
  const r = { rail: rail.rail, ...(rail.subsystem ? { subsystem: rail.subsystem } : {}) }
  return (
    SOC.has(componentOfRail(r)) ||
    SOC_SHARED.test(rail.subsystem ?? '') ||
    SOC_SHARED.test(rail.rail)
  )
}

/**
 * The SoC rails' curve and their idle level (the lowest power each showed in the window, or lower
 * if `floorsW` knows it from earlier windows); `undefined` when the data has no such rail.
 */
export function cpuMethodPower(
  rails: readonly RailSeries[],
  window: EnergyWindow,
  floorsW?: ReadonlyMap<string, number>,
): { readonly curve: EnergyCurve; readonly baselinePowerW: number } | undefined {
  const cpu = rails.filter(followsCpu)
  if (cpu.length === 0) return undefined
  let baselinePowerW = 0
  for (const rail of cpu) {
    const lowest = lowestRailPowerW(rail, window)
    if (lowest === undefined) return undefined
    baselinePowerW += Math.min(lowest, floorsW?.get(rail.rail) ?? lowest)
  }
  return { curve: railsCurve(cpu, { edges: 'hold' }), baselinePowerW }
}
