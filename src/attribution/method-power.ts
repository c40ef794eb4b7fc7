/**
 * The power that per-method attribution should divide when the source has per-rail data: the
 * SoC's rails (CPU clusters, and the memory/interconnect/"System" domains that rise with them)
 * above their idle level. Screen, radio, GPS, camera and audio power is not caused by whatever code
 * happened to be sampled (radios and GPS are charged to their initiators through tails instead).
 */
import type { Component, EnergyWindow } from '../model/energy.js'
import type { CpuSchedule, RailSeries } from '../model/samples.js'
import { componentOfRail } from './components.js'
import { railCurve, railsCurve, type EnergyCurve } from './curve.js'
import {
  fitTwo,
  fittedFloorW,
  netEnergyJ,
  partIntervals,
  type CoreCurrents,
  type PowerPart,
} from './_parts.js'
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
 * The SoC rails' curve and their idle level; `undefined` when the data has no such rail. The idle
 * level of each rail is fitted over the window's sensor intervals when `schedule` (sched_switch,
 * on the window's clock) is given and the fit can tell floor from activity (`fittedFloorW`);
 * otherwise it is the lowest power the rail showed in the window, or lower if `floorsW` knows it
 * from earlier windows. `clusters`: the CPUs of each cluster, in cluster order (cpufreq policies
 * sorted by first CPU). `coreCurrents`: per cluster, in the same order, the profile's per-core
 * current per frequency (from the user's power_profile.xml), which then weighs running time on a
 * cluster rail instead of the (f / 1 GHz)² proxy.
 */
export function cpuMethodPower(
  rails: readonly RailSeries[],
  window: EnergyWindow,
  floorsW?: ReadonlyMap<string, number>,
  clusters?: ReadonlyArray<readonly number[]>,
  schedule?: CpuSchedule,
  coreCurrents?: readonly CoreCurrents[],
): MethodPower | undefined {
  const cpu = rails.filter(followsCpu)
  if (cpu.length === 0) return undefined
  const floorOf = (rail: RailSeries): number | undefined => {
    const lowest = lowestRailPowerW(rail, window)
    return lowest === undefined ? undefined : Math.min(lowest, floorsW?.get(rail.rail) ?? lowest)
  }
  let baselinePowerW = 0
  const parts: PowerPart[] = []
  for (const rail of cpu) {
    const cluster = clusters === undefined ? undefined : clusterOfRail(rail, clusters.length)
    const cpus = cluster === undefined ? undefined : clusters?.[cluster]
    const memory = componentOfRail(rail) === 'memory'
    const table = cluster === undefined ? undefined : coreCurrents?.[cluster]
    const part = {
      curve: railCurve(rail, { edges: 'hold' }),
      ...(cpus === undefined ? {} : { cpus }),
      ...(cpus === undefined || table === undefined ? {} : { coreCurrents: table }),
      // Memory traffic follows what the cores draw, not how many of them run.
      ...(memory ? { followsCorePower: true } : {}),
    }
    // With a schedule the floor is fitted over the window's intervals (the lowest interval power
    // sits below the idle level when readings jitter); the lowest level when the fit cannot tell.
    const floorW =
      (schedule === undefined
        ? undefined
        : fittedFloorW({ ...part, baselinePowerW: 0 }, schedule, window)) ?? floorOf(rail)
    if (floorW === undefined) return undefined
    baselinePowerW += floorW
    parts.push({ ...part, baselinePowerW: floorW })
  }
  // Memory traffic follows the GPU as well as the CPUs: the part of a memory rail that goes with
  // the GPU rail is the GPU's (the frames'), not the code's that happened to run meanwhile.
  const gpu = rails.filter((r) => componentOfRail(r) === 'gpu')
  let curve = railsCurve(cpu, { edges: 'hold' })
  const gpuFloorW = gpu.reduce((a, r) => a + (floorOf(r) ?? 0), 0)
  const gpuPart: PowerPart | undefined =
    gpu.length === 0
      ? undefined
      : { curve: railsCurve(gpu, { edges: 'hold' }), baselinePowerW: gpuFloorW }
  const cpuParts = parts.filter((_, i) => componentOfRail(cpu[i] as RailSeries) === 'cpu')
  if (schedule !== undefined) {
    parts.forEach((part, i) => {
      if (componentOfRail(cpu[i] as RailSeries) !== 'memory') return
      const floorW = drivenFloorW(part, cpuParts, gpuPart, window)
      if (floorW === undefined) return
      baselinePowerW += floorW - part.baselinePowerW
      parts[i] = { ...part, baselinePowerW: floorW }
    })
  }
  if (gpuPart !== undefined) {
    parts.forEach((part, i) => {
      if (componentOfRail(cpu[i] as RailSeries) !== 'memory') return
      const perGpuJ = gpuShareOf(part, gpuPart, cpuParts, window)
      if (!(perGpuJ > 0)) return
      const adjusted = minusCurve(part.curve, gpuPart.curve, perGpuJ)
      parts[i] = {
        ...part,
        curve: adjusted,
        baselinePowerW: part.baselinePowerW - perGpuJ * gpuFloorW,
      }
      baselinePowerW -= perGpuJ * gpuFloorW
      curve = minusCurve(curve, gpuPart.curve, perGpuJ)
    })
  }
  return { curve, baselinePowerW, parts }
}

/**
 * A memory rail's idle power fitted against what drives it, W: least squares over the window's
 * sensor intervals of its energy ≈ floor·Δt + a·(CPU rails' net energy) [+ b·(GPU rail's net
 * energy), when the GPU varied], no intercept. Memory traffic follows what the cores draw and the
 * frames, not how long anything ran, so `fittedFloorW`'s running-time term leaves part of it in
 * the floor: on the virtual phone that floor sat ≈ 0.5 mW below the rail's idle level, ≈ 50 µJ
 * per 100 ms interval charged to whatever ran — the whole memory energy of a short call alone in
 * an interval, ten times its own. `undefined` when the window cannot tell (fewer than
 * `MIN_FIT_INTERVALS` intervals, terms too alike, a floor or CPU term that is not positive).
 */
function drivenFloorW(
  memory: PowerPart,
  cpu: readonly PowerPart[],
  gpu: PowerPart | undefined,
  window: EnergyWindow,
): number | undefined {
  const { bounds, energyJ: m } = partIntervals({ ...memory, baselinePowerW: 0 }, window)
  const n = m.length
  if (n < MIN_FIT_INTERVALS) return undefined
  const t = new Float64Array(n)
  const c = new Float64Array(n)
  const g = new Float64Array(n)
  let gpuVaries = false
  for (let j = 0; j < n; j++) {
    const a = bounds[j] as number
    const b = bounds[j + 1] as number
    t[j] = (b - a) / 1e9
    for (const part of cpu) c[j] = (c[j] as number) + netEnergyJ(part, a, b)
    g[j] = gpu === undefined ? 0 : netEnergyJ(gpu, a, b)
    if (g[j] !== 0) gpuVaries = true
  }
  const fit =
    (gpuVaries ? leastSquares([t, c, g], m, 1e-9) : undefined) ?? leastSquares([t, c], m, 1e-9)
  if (fit === undefined) return undefined
  const [floorW, perCpuJ] = fit as [number, number]
  return floorW > 0 && perCpuJ > 0 && Number.isFinite(floorW) ? floorW : undefined
}

/** Sensor intervals a fitted floor needs at least (as `fittedFloorW`). */
const MIN_FIT_INTERVALS = 10

/**
 * Least squares of y ≈ Σ coefficient·column, no intercept, by the normal equations on columns
 * scaled to unit length (Gaussian elimination with partial pivoting); `undefined` when a column is
 * all zero or the columns are too alike (a pivot at most `minPivot` of the scaled matrix's).
 */
export function leastSquares(
  columns: readonly ArrayLike<number>[],
  y: ArrayLike<number>,
  minPivot: number,
): number[] | undefined {
  const k = columns.length
  const norms = columns.map((col) => {
    let s = 0
    for (let j = 0; j < y.length; j++) s += (col[j] as number) ** 2
    return Math.sqrt(s)
  })
  if (!norms.every((x) => x > 0 && Number.isFinite(x))) return undefined
  // Augmented normal matrix [XᵀX | Xᵀy] of the scaled columns.
  const a = columns.map((u, p) =>
    [...columns, y].map((v, q) => {
      let s = 0
      for (let j = 0; j < y.length; j++) s += (u[j] as number) * (v[j] as number)
      return s / (norms[p] as number) / (q < k ? (norms[q] as number) : 1)
    }),
  )
  for (let p = 0; p < k; p++) {
    let best = p
    for (let r = p + 1; r < k; r++) {
      if (Math.abs(a[r]?.[p] as number) > Math.abs(a[best]?.[p] as number)) best = r
    }
    ;[a[p], a[best]] = [a[best] as number[], a[p] as number[]]
    const row = a[p] as number[]
    const pivot = row[p] as number
    if (!(Math.abs(pivot) > minPivot)) return undefined
    for (let r = 0; r < k; r++) {
      if (r === p) continue
      const other = a[r] as number[]
      const f = (other[p] as number) / pivot
      for (let q = p; q <= k; q++) other[q] = (other[q] as number) - f * (row[q] as number)
    }
  }
  return a.map((row, p) => (row[k] as number) / (row[p] as number) / (norms[p] as number))
}

/**
 * How many J of a memory rail go with each J of the GPU rail: least squares over the window's
 * sensor intervals of memory ≈ a·CPU + b·GPU (net energies above their floors, no intercept);
 * returns b, or 0 when the GPU did not vary enough to tell (or the fit is not positive).
 */
function gpuShareOf(
  memory: PowerPart,
  gpu: PowerPart,
  cpu: readonly PowerPart[],
  window: EnergyWindow,
): number {
  const { bounds, energyJ: m } = partIntervals(memory, window)
  const c = new Float64Array(m.length)
  const g = new Float64Array(m.length)
  for (let j = 0; j < m.length; j++) {
    const a = bounds[j] as number
    const b = bounds[j + 1] as number
    g[j] = netEnergyJ(gpu, a, b)
    for (const part of cpu) c[j] = (c[j] as number) + netEnergyJ(part, a, b)
  }
  const share = fitTwo(c, g, m, 1e-12)?.[1] ?? 0
  return share > 0 && Number.isFinite(share) ? share : 0
}

/** `a − k·b` as a curve on `a`'s readings (a rail with another rail's part taken out). */
function minusCurve(a: EnergyCurve, b: EnergyCurve, k: number): EnergyCurve {
  return {
    source: a.source,
    clock: a.clock,
    kind: a.kind,
    firstNs: a.firstNs,
    lastNs: a.lastNs,
    edges: a.edges,
    cumulativeJ: (t) => a.cumulativeJ(t) - k * b.cumulativeJ(t),
    energyJ: (from, to) => a.energyJ(from, to) - k * b.energyJ(from, to),
    powerAtW: (t) => a.powerAtW(t) - k * b.powerAtW(t),
    readingIdAt: (t) => a.readingIdAt(t),
    countReadings: (from, to) => a.countReadings(from, to),
    readingTimesIn: (from, to) => a.readingTimesIn(from, to),
    countUpdates: (from, to) => a.countUpdates(from, to),
  }
}
