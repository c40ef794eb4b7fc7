/**
 * CPU power from the scheduler, for phones without power rails: what ran on each CPU
 * (`sched_switch`), at which frequency (`cpu_frequency`), priced with the phone's power profile —
 * the framework's own CPU model (PowerProfile / CpuPowerCalculator: a running core draws its
 * per-core current at the cluster's frequency, a cluster draws its own current while any of its
 * cores runs, and `cpu.active` is drawn while any CPU runs), scaled per cluster by a calibration
 * against the fuel gauge. The modelled power is turned into cumulative "rails", one per cluster and
 * one for `cpu.active`, so that per-method attribution divides it exactly as it divides ODPM's
 * cluster rails (`runningWeight` weighs running time by the same currents): a method's figure is
 * its own CPU work's modelled energy, never the screen's or a radio's, and never negative.
 */
import type { EnergyWindow } from '../model/energy.js'
import type { CpuFrequencyChange, CpuSchedule, RailSeries } from '../model/samples.js'
import { NS_PER_S } from '../model/units.js'
import { railCurve, railsCurve } from './curve.js'
import { currentAtKhz, type CoreCurrents, type PowerPart } from './_parts.js'
import type { MethodPower } from './method-power.js'

/** One CPU cluster (a cpufreq policy) as the model prices it. */
export interface ClusterModel {
  /** Its CPUs, as the phone numbers them (cpufreq `related_cpus`). */
  readonly cpus: readonly number[]
  /** Per-core current per frequency and the cluster's own current, mA (power_profile.xml). */
  readonly currents: CoreCurrents
}

/** The phone's CPU power model: its clusters, little first, and the SoC's `cpu.active`. */
export interface CpuPowerModel {
  readonly clusters: readonly ClusterModel[]
  /** `cpu.active`: drawn once while any CPU runs, mA. */
  readonly activeMa: number
}

/** Calibration factors on the profile's currents; 1 = the profile as shipped. */
export interface CpuModelScales {
  /** Per cluster, in the model's order: on its per-core and cluster currents. */
  readonly clusters: readonly number[]
  /** On `cpu.active`. */
  readonly active: number
}

/** The profile as shipped: every factor 1. */
export function nominalScales(model: CpuPowerModel): CpuModelScales {
  return { clusters: model.clusters.map(() => 1), active: 1 }
}

/** Modelled CPU energy at each query time, J since the first: per cluster and for `cpu.active`. */
export interface CpuModelEnergies {
  readonly clusters: readonly Float64Array[]
  readonly active: Float64Array
}

/**
 * The model's cumulative energy (nominal currents × `voltageV`) at each of `timesNs` (ascending),
 * from the first of them: one sweep over the schedule's slice edges and frequency changes.
 *
 * A cluster's frequency is its policy's: the last `cpu_frequency` change of any of its CPUs (one
 * policy changes them together). Before the cluster's first change the first known frequency
 * stands in — as `runningWeight` does — or, when the trace has none for it, `assumedKhz[k]`
 * (the caller says so in a warning); with neither, the table's middle frequency.
 */
export function cpuModelEnergies(
  model: CpuPowerModel,
  schedule: CpuSchedule,
  timesNs: ArrayLike<number>,
  voltageV: number,
  assumedKhz?: readonly (number | undefined)[],
): CpuModelEnergies {
  const k = model.clusters.length
  const clusterOf = new Map<number, number>()
  model.clusters.forEach((c, i) => c.cpus.forEach((cpu) => clusterOf.set(cpu, i)))
  const q = timesNs.length
  const fromNs = q > 0 ? (timesNs[0] as number) : 0
  const toNs = q > 0 ? (timesNs[q - 1] as number) : 0
  // Edges: +1 start / −1 end per CPU, and frequency changes, in time order — only of the slices
  // that reach into the queried span, so a window cut from a long trace costs its own slices.
  // Per CPU, the starts and ends of its slices that reach into the span, each in time order: the
  // schedule lists a CPU's slices by start, and a CPU runs one at a time, so merging the CPUs'
  // streams orders every edge without sorting them all.
  const cpus = [...clusterOf.keys()]
  const cpuIndex = new Map(cpus.map((cpu, i) => [cpu, i]))
  const starts: number[][] = cpus.map(() => [])
  const ends: number[][] = cpus.map(() => [])
  for (const s of schedule.slices) {
    if (!(s.endNs > s.startNs) || s.endNs < fromNs || s.startNs > toNs) continue
    const i = cpuIndex.get(s.cpu)
    if (i === undefined) continue
    ;(starts[i] as number[]).push(s.startNs)
    ;(ends[i] as number[]).push(s.endNs)
  }
  // Each CPU's edges as one stream in time order (+1 a start, −1 an end), Infinity at its end.
  const streams = cpus.map((_, i) => edgeStream(starts[i] as number[], ends[i] as number[]))
  const at = new Int32Array(cpus.length)
  const running = new Int32Array(cpus.length)
  const clusterOfIndex = cpus.map((cpu) => clusterOf.get(cpu) as number)
  /** The earliest edge not processed yet, ns (Infinity when none is left). */
  const nextEdgeNs = (): number => {
    let m = Infinity
    for (let i = 0; i < streams.length; i++) {
      const t = (streams[i] as EdgeStream).times[at[i] as number] as number
      if (t < m) m = t
    }
    return m
  }
  const all = (schedule.frequencies ?? []).filter((c) => clusterOf.has(c.cpu))
  const khz = model.clusters.map((c, i) => startKhz(c, i, all, clusterOf, assumedKhz))
  // Changes before the span only set each cluster's frequency at its start.
  const freqs: CpuFrequencyChange[] = []
  for (const c of all) {
    if (c.tNs <= fromNs) khz[clusterOf.get(c.cpu) as number] = c.khz
    else if (c.tNs <= toNs) freqs.push(c)
  }
  const busy = new Int32Array(k)
  let busyAll = 0
  const mw = voltageV / 1000 // mA → W
  const powerW = new Float64Array(k)
  let activeW = 0
  const update = (): void => {
    for (let i = 0; i < k; i++) {
      const c = model.clusters[i] as ClusterModel
      const n = busy[i] as number
      powerW[i] =
        n === 0
          ? 0
          : (n * currentAtKhz(c.currents, khz[i] as number) + (c.currents.clusterMa ?? 0)) * mw
    }
    activeW = busyAll > 0 ? model.activeMa * mw : 0
  }
  update()

  const clusters = model.clusters.map(() => new Float64Array(q))
  const active = new Float64Array(q)
  const acc = new Float64Array(k)
  let accActive = 0
  let f = 0
  let t = q > 0 ? (timesNs[0] as number) : 0
  // Bring the state to the first query time without counting energy.
  const advanceTo = (until: number, count: boolean): void => {
    for (;;) {
      const te = nextEdgeNs()
      const tf = f < freqs.length ? (freqs[f] as CpuFrequencyChange).tNs : Infinity
      const next = Math.min(te, tf)
      if (next > until) break
      if (count && next > t) integrate(next)
      t = Math.max(t, next)
      if (te === next) {
        for (let i = 0; i < streams.length; i++) {
          const stream = streams[i] as EdgeStream
          let j = at[i] as number
          if (stream.times[j] !== next) continue
          const before = running[i] as number
          let after = before
          while (stream.times[j] === next) after += stream.deltas[j++] as number
          at[i] = j
          if (after === before) continue
          running[i] = after
          const cl = clusterOfIndex[i] as number
          if (before <= 0 && after > 0) {
            busy[cl] = (busy[cl] as number) + 1
            busyAll++
          } else if (before > 0 && after <= 0) {
            busy[cl] = (busy[cl] as number) - 1
            busyAll--
          }
        }
      }
      while (f < freqs.length && (freqs[f] as CpuFrequencyChange).tNs === next) {
        const c = freqs[f] as CpuFrequencyChange
        khz[clusterOf.get(c.cpu) as number] = c.khz
        f++
      }
      update()
    }
    if (count && until > t) integrate(until)
    t = Math.max(t, until)
  }
  function integrate(to: number): void {
    const dtS = (to - t) / NS_PER_S
    for (let i = 0; i < k; i++) acc[i] = (acc[i] as number) + (powerW[i] as number) * dtS
    accActive += activeW * dtS
  }
  for (let i = 0; i < q; i++) {
    advanceTo(timesNs[i] as number, i > 0)
    for (let c = 0; c < k; c++) (clusters[c] as Float64Array)[i] = acc[c] as number
    active[i] = accActive
  }
  return { clusters, active }
}

/** One CPU's slice edges in time order: +1 at a start, −1 at an end; `times` ends with Infinity. */
interface EdgeStream {
  readonly times: Float64Array
  readonly deltas: Int8Array
}

/** Merges a CPU's starts and ends (each sorted here if a garbled trace left them out of order). */
function edgeStream(starts: readonly number[], ends: readonly number[]): EdgeStream {
  const s = ascending(starts)
  const e = ascending(ends)
  const times = new Float64Array(s.length + e.length + 1)
  const deltas = new Int8Array(times.length)
  let i = 0
  let j = 0
  let k = 0
  while (i < s.length || j < e.length) {
    // At one instant an end comes first: the CPU switches from one thread to the next.
    if (j < e.length && (i >= s.length || (e[j] as number) <= (s[i] as number))) {
      times[k] = e[j++] as number
      deltas[k++] = -1
    } else {
      times[k] = s[i++] as number
      deltas[k++] = 1
    }
  }
  times[k] = Infinity
  return { times, deltas }
}

function ascending(values: readonly number[]): Float64Array {
  const out = Float64Array.from(values)
  for (let i = 1; i < out.length; i++) {
    if ((out[i] as number) < (out[i - 1] as number)) return out.sort()
  }
  return out
}

/** A cluster's frequency at the start: its first traced change, else assumed, else mid-table. */
function startKhz(
  cluster: ClusterModel,
  index: number,
  freqs: readonly CpuFrequencyChange[],
  clusterOf: ReadonlyMap<number, number>,
  assumedKhz: readonly (number | undefined)[] | undefined,
): number {
  const first = freqs.find((c) => clusterOf.get(c.cpu) === index)
  if (first !== undefined) return first.khz
  const assumed = assumedKhz?.[index]
  if (assumed !== undefined) return assumed
  const speeds = cluster.currents.speedsKhz
  return speeds[Math.floor(speeds.length / 2)] ?? 0
}

/**
 * The schedule with a frequency for every cluster of the model from the window's start: a
 * cluster without a `cpu_frequency` change in the trace gets `assumedKhz` (else its table's
 * middle) as a change just before the window, on each of its CPUs. Per-method attribution weighs
 * running time by the frequency it finds in the schedule, so it must see the one the model priced.
 */
export function withModelFrequencies(
  model: CpuPowerModel,
  schedule: CpuSchedule,
  window: EnergyWindow,
  assumedKhz?: readonly (number | undefined)[],
): CpuSchedule {
  const changes = schedule.frequencies ?? []
  const added: CpuFrequencyChange[] = []
  model.clusters.forEach((cluster, i) => {
    const cpus = new Set(cluster.cpus)
    if (changes.some((c) => cpus.has(c.cpu))) return
    const speeds = cluster.currents.speedsKhz
    const khz = assumedKhz?.[i] ?? speeds[Math.floor(speeds.length / 2)] ?? 0
    for (const cpu of cluster.cpus) added.push({ cpu, tNs: window.startNs - 1, khz })
  })
  if (added.length === 0) return schedule
  return { ...schedule, frequencies: [...added, ...changes].sort((a, b) => a.tNs - b.tNs) }
}

/** Rail names of the modelled CPU power: cluster n is `MODEL_CPUCL<n>` (so `clusterOfRail` finds it). */
export const MODELLED_ACTIVE_RAIL = 'MODEL_CPU_ACTIVE'
export function modelledClusterRail(index: number): string {
  return `MODEL_CPUCL${index}`
}

/** Between two readings of a modelled rail: fine enough that a call's share is its own. */
const MODEL_GRID_NS = 10e6

/**
 * The window's modelled CPU energy as cumulative rails on the window's clock, scaled by the
 * calibration: one per cluster (`MODEL_CPUCL<n>`, subsystem `CPU model`) and `MODEL_CPU_ACTIVE`
 * for `cpu.active`. Readings fall on the window's edges and every 10 ms from them, over the window
 * or a wider `span` (the whole recording), so no interval straddles an edge.
 */
export function modelledCpuRails(
  model: CpuPowerModel,
  schedule: CpuSchedule,
  window: EnergyWindow,
  scales: CpuModelScales,
  voltageV: number,
  assumedKhz?: readonly (number | undefined)[],
  span?: { readonly startNs: number; readonly endNs: number },
): RailSeries[] {
  const times: number[] = []
  const from = Math.min(window.startNs, span?.startNs ?? window.startNs)
  const to = Math.max(window.endNs, span?.endNs ?? window.endNs)
  // On the window's edges, and every 10 ms from them outwards.
  for (let t = window.startNs - MODEL_GRID_NS; t > from; t -= MODEL_GRID_NS) times.push(t)
  if (from < window.startNs) times.push(from)
  times.reverse()
  for (let t = window.startNs; t < window.endNs; t += MODEL_GRID_NS) times.push(t)
  for (let t = window.endNs; t < to; t += MODEL_GRID_NS) times.push(t)
  times.push(to)
  const energies = cpuModelEnergies(model, schedule, times, voltageV, assumedKhz)
  const rail = (name: string, subsystem: string, cumulative: Float64Array, scale: number) =>
    ({
      kind: 'cumulative',
      rail: name,
      subsystem,
      source: 'cpu-model',
      clock: window.clock,
      readings: times.map((tNs, i) => ({ tNs, energyJ: (cumulative[i] as number) * scale })),
    }) satisfies RailSeries
  return [
    ...energies.clusters.map((c, i) =>
      rail(modelledClusterRail(i), `CPU model (cluster ${i})`, c, scales.clusters[i] ?? 1),
    ),
    rail(MODELLED_ACTIVE_RAIL, 'CPU model (cpu.active)', energies.active, scales.active),
  ]
}

/**
 * What per-method attribution divides on a phone without rails: the modelled rails, each a part —
 * a cluster's on its CPUs with its currents (so running time is weighed as the model priced it),
 * `cpu.active` shared 1/N among what runs — above a floor of 0 (a model draws nothing idle).
 */
export function modelledMethodPower(
  rails: readonly RailSeries[],
  model: CpuPowerModel,
): MethodPower {
  const parts: PowerPart[] = rails.map((rail) => {
    const index = model.clusters.findIndex((_, i) => modelledClusterRail(i) === rail.rail)
    const cluster = model.clusters[index]
    return {
      curve: railCurve(rail, { edges: 'hold' }),
      baselinePowerW: 0,
      ...(cluster === undefined ? {} : { cpus: cluster.cpus, coreCurrents: cluster.currents }),
    }
  })
  return { curve: railsCurve(rails, { edges: 'hold' }), baselinePowerW: 0, parts }
}
