/**
 * The power that per-method attribution should divide when the source has per-rail data: the
 * SoC's rails (CPU clusters, and the memory/interconnect/"System" domains that rise with them)
 * above their idle level. Screen, radio, GPS, camera and audio power is not caused by whatever code
 * happened to be sampled (radios and GPS are charged to their initiators through tails instead).
 */
import type { Component, EnergyWindow } from '../model/energy.js'
import type { RailSeries } from '../model/samples.js'
import { componentOfRail } from './components.js'
import { railCurve, railsCurve, type EnergyCurve } from './curve.js'
import type { PowerPart } from './_parts.js'
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
 * Which CPU cluster a rail powers, by name: `CPUCL<n>` (Pixel's rail names), else its subsystem's
 * `LITTLE` / `MID` / `BIG` (first, middle, last cluster); `undefined` for any other rail.
 */
export function clusterOfRail(
  rail: Pick<RailSeries, 'rail' | 'subsystem'>,
  clusterCount: number,
): number | undefined {
  const numbered = /CPU_?CL(\d)/i.exec(rail.rail)
  if (numbered !== null) {
    const n = Number(numbered[1])
    return n < clusterCount ? n : undefined
  }
  const name = `${rail.subsystem ?? ''} ${rail.rail}`
  if (/LITTLE/i.test(name)) return 0
  if (/BIG/i.test(name)) return clusterCount - 1
  if (/MID/i.test(name) && clusterCount >= 3) return 1
  return undefined
}

/** The power per-method attribution divides, whole and per rail. */
export interface MethodPower {
  readonly curve: EnergyCurve
  readonly baselinePowerW: number
  /**
   * Each rail above its floor; CPU cluster rails name their CPUs when the cluster layout is known
   * (so a schedule can give each cluster's energy to the threads that ran there).
   */
  readonly parts: readonly PowerPart[]
}

/**
 * The SoC rails' curve and their idle level (the lowest power each showed in the window, or lower
 * if `floorsW` knows it from earlier windows); `undefined` when the data has no such rail.
 * `clusters`: the CPUs of each cluster, in cluster order (cpufreq policies sorted by first CPU).
 */
export function cpuMethodPower(
  rails: readonly RailSeries[],
  window: EnergyWindow,
  floorsW?: ReadonlyMap<string, number>,
  clusters?: ReadonlyArray<readonly number[]>,
): MethodPower | undefined {
  const cpu = rails.filter(followsCpu)
  if (cpu.length === 0) return undefined
  let baselinePowerW = 0
  const parts: PowerPart[] = []
  for (const rail of cpu) {
    const lowest = lowestRailPowerW(rail, window)
    if (lowest === undefined) return undefined
    const floorW = Math.min(lowest, floorsW?.get(rail.rail) ?? lowest)
    baselinePowerW += floorW
    const cluster = clusters === undefined ? undefined : clusterOfRail(rail, clusters.length)
    const cpus = cluster === undefined ? undefined : clusters?.[cluster]
    parts.push({
      curve: railCurve(rail, { edges: 'hold' }),
      baselinePowerW: floorW,
      ...(cpus === undefined ? {} : { cpus }),
    })
  }
  return { curve: railsCurve(cpu, { edges: 'hold' }), baselinePowerW, parts }
}
