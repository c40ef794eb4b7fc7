/**
 * Where the phone physics' scheduler runs an app thread's next piece of work: a wake-up placement
 * in the spirit of Linux's Energy Aware Scheduling (`find_energy_efficient_cpu` in
 * kernel/sched/fair.c; Documentation/scheduler/sched-energy.rst). Documented in
 * docs/virtual-device.md ("Scheduler").
 *
 * - Each thread carries a utilisation like PELT's `util_avg` (`Pelt`): it rises towards
 *   f / f_max(fastest cluster) while the thread runs at f and decays while it sleeps or waits,
 *   with the governor's half-life, so it is frequency- and capacity-invariant (0–1 of the fastest
 *   core at its top frequency). At a wake-up the task's size is util_est's: the larger of
 *   util_avg and an estimate kept from its past activations (`settle`), so a thread that slept
 *   long still has the size of its last bursts.
 * - A cluster's capacity is its top frequency over the fastest cluster's: the simulation gives
 *   every cluster the same work per cycle (work is CPU time at a reference frequency).
 * - Not overutilized (no core's utilisation above 80% of its capacity): among the idle cores of
 *   the allowed clusters where the task fits (utilisation × 1.25 ≤ capacity), each cluster's core
 *   with the most spare capacity, and the previous core, the one whose placement adds the least
 *   to the energy estimate wins; the previous core keeps the task unless the best saves more than
 *   1/16 of the energy with the task on the previous core (the kernel's ≈ 6% margin).
 * - Overutilized: the previous core if idle, else the first idle core where the task fits,
 *   scanning from the previous one (the kernel's `select_idle_capacity`), else the idle core of
 *   most capacity.
 * - No idle core: the allowed core that frees first (the simulation's cores run FIFO).
 */
import { GOVERNOR } from './governor.js'
import type { SimCluster } from './power-model.js'

/** A utilisation like PELT's util_avg, 0–1 of the fastest core's top capacity, as of `atNs`. */
export interface Pelt {
  util: number
  atNs: number
  /** util_est's estimate: util_avg at the end of past activations, through an EWMA (`settle`). */
  est: number
}

/** schedutil's and fits_capacity's margin: a task fits where util × 1.25 ≤ capacity. */
const CAPACITY_MARGIN = GOVERNOR.headroom
/** The previous core keeps the task unless the best saves more than this share of energy. */
const PREV_CPU_MARGIN = 1 / 16
const TAU_NS = GOVERNOR.halfLifeNs / Math.LN2

/** Accrues a stretch of running at `khz` (kHz) on a core of the phone whose fastest is `maxKhz`. */
export function accrue(p: Pelt, startNs: number, endNs: number, khz: number, maxKhz: number): void {
  if (startNs > p.atNs) p.util *= Math.exp(-(startNs - p.atNs) / TAU_NS)
  const d = Math.exp(-Math.max(0, endNs - startNs) / TAU_NS)
  p.util = p.util * d + Math.min(1, khz / maxKhz) * (1 - d)
  p.atNs = Math.max(p.atNs, endNs)
}

/**
 * The end of an activation (the thread sleeps): util_est follows util_avg up at once and down by
 * a quarter of the difference per activation (the kernel's UTIL_EST_WEIGHT_SHIFT 2, with the
 * faster ramp-up of b8c96361402a).
 */
export function settle(p: Pelt): void {
  p.est = p.util >= p.est ? p.util : p.est + (p.util - p.est) / 4
}

/** A waking task's size: util_est = max(util_avg now, the estimate). */
export function taskUtil(p: Pelt, tNs: number): number {
  return Math.max(p.est, utilAt(p, tNs))
}

/** The utilisation at `tNs` (decayed since its last update; as is when that is later). */
export function utilAt(p: Pelt, tNs: number): number {
  return tNs > p.atNs ? p.util * Math.exp(-(tNs - p.atNs) / TAU_NS) : p.util
}

/** The cluster's table frequencies that have a current (as the governor uses them), kHz. */
function steps(c: SimCluster): readonly number[] {
  return c.speedsKhz.slice(0, Math.max(1, c.corePowerMa.length))
}

/** The fastest cluster's top frequency, kHz. */
export function fastestKhz(clusters: readonly SimCluster[]): number {
  return Math.max(1, ...clusters.flatMap((c) => steps(c)))
}

/** Capacity of a cluster's core at its top frequency, 0–1 of the fastest. */
export function capacityOf(c: SimCluster, maxKhz: number): number {
  return Math.max(...steps(c)) / maxKhz
}

export const fits = (util: number, capacity: number): boolean => util * CAPACITY_MARGIN <= capacity

/**
 * Energy model estimate of a cluster (performance domain) whose cores have these utilisations,
 * in mA: the governor's frequency for its busiest core (1.25 × util, lowest table step at or
 * above), each core busy util / (f / f_max) of the time at that frequency's core current, the
 * cluster's cost while its busiest core runs.
 */
export function clusterEnergy(c: SimCluster, utils: readonly number[], maxKhz: number): number {
  const busiest = Math.max(0, ...utils)
  if (busiest <= 0) return 0
  const table = steps(c)
  const want = CAPACITY_MARGIN * busiest * maxKhz
  let step = table.findIndex((khz) => khz >= want)
  if (step < 0) step = table.length - 1
  const khz = table[step] ?? 1
  const coreMa = c.corePowerMa[step] ?? 0
  let sum = 0
  for (const u of utils) sum += Math.min(1, (u * maxKhz) / khz) * coreMa
  return sum + Math.min(1, (busiest * maxKhz) / khz) * c.clusterPowerMa
}

export interface PlacementInput {
  readonly clusters: readonly SimCluster[]
  /** Clusters the thread's cpuset allows. */
  readonly allowed: readonly number[]
  /**
   * The slowest cluster the thread starts its search at (the top app's UI threads: the UI
   * cluster); slower allowed clusters are used only when no faster one has an idle core.
   */
  readonly startCluster: number
  /** The thread's utilisation at the wake-up. */
  readonly taskUtil: number
  /** Each core's utilisation without the thread (by global core number). */
  readonly coreUtil: readonly number[]
  /** When each core's queued work ends, ns. */
  readonly freeAtNs: (core: number) => number
  readonly readyNs: number
  /** The core the thread last ran on. */
  readonly prevCore: number
}

export type PlacementPath = 'energy' | 'overutilized' | 'misfit' | 'busy'

export interface Placement {
  readonly core: number
  readonly cluster: number
  readonly path: PlacementPath
}

interface Core {
  readonly core: number
  readonly cluster: SimCluster
  readonly capacity: number
}

/** EAS-like wake-up placement (see the module's comment). */
export function placeTask(input: PlacementInput): Placement {
  const { clusters, taskUtil, coreUtil, readyNs, prevCore } = input
  const maxKhz = fastestKhz(clusters)
  const allowed = clusters.filter((c) => input.allowed.includes(c.index))
  const start = clusters[input.startCluster]
  const startCapacity = start === undefined ? 0 : capacityOf(start, maxKhz)
  const coresOf = (list: readonly SimCluster[]): Core[] =>
    list.flatMap((c) => {
      const capacity = capacityOf(c, maxKhz)
      return Array.from({ length: c.cores }, (_, i) => ({
        core: c.firstCore + i,
        cluster: c,
        capacity,
      }))
    })
  const allowedCores = coresOf(allowed)
  const idle = (c: Core): boolean => input.freeAtNs(c.core) <= readyNs
  const util = (core: number): number => coreUtil[core] ?? 0
  const result = (c: Core, path: PlacementPath): Placement => ({
    core: c.core,
    cluster: c.cluster.index,
    path,
  })
  const idleAllowed = allowedCores.filter(idle)
  if (idleAllowed.length === 0) {
    // Every allowed core is busy: queue on the one that frees first.
    const first = allowedCores.reduce((a, b) =>
      input.freeAtNs(b.core) < input.freeAtNs(a.core) ? b : a,
    )
    return result(first, 'busy')
  }
  const preferred = idleAllowed.filter((c) => c.capacity >= startCapacity)
  const candidates = preferred.length > 0 ? preferred : idleAllowed
  const roomy = (c: Core): boolean => fits(util(c.core) + taskUtil, c.capacity)
  const mostCapacity = (list: readonly Core[]): Core =>
    list.reduce((a, b) =>
      b.capacity > a.capacity || (b.capacity === a.capacity && util(b.core) < util(a.core)) ? b : a,
    )
  const prev = candidates.find((c) => c.core === prevCore)
  const overutilized = coresOf(clusters).some((c) => !fits(util(c.core), c.capacity))
  if (overutilized) {
    if (prev !== undefined) return result(prev, 'overutilized')
    const from = candidates.findIndex((c) => c.core > prevCore)
    const scan = from < 0 ? candidates : [...candidates.slice(from), ...candidates.slice(0, from)]
    return result(scan.find(roomy) ?? mostCapacity(candidates), 'overutilized')
  }
  // Energy-aware: per cluster the fitting idle core with the most spare capacity, and prev.
  const fitting = candidates.filter(roomy)
  const perCluster = new Map<number, Core>()
  for (const c of fitting) {
    const best = perCluster.get(c.cluster.index)
    if (best === undefined || util(c.core) < util(best.core)) perCluster.set(c.cluster.index, c)
  }
  const options = [...perCluster.values()]
  const prevFits = prev !== undefined && roomy(prev)
  if (prevFits && !options.includes(prev)) options.push(prev)
  if (options.length === 0) return result(mostCapacity(candidates), 'misfit')
  const utilsOf = (c: SimCluster): number[] =>
    Array.from({ length: c.cores }, (_, i) => util(c.firstCore + i))
  const baseOf = new Map(clusters.map((c) => [c.index, clusterEnergy(c, utilsOf(c), maxKhz)]))
  const delta = (c: Core): number => {
    const utils = utilsOf(c.cluster)
    utils[c.core - c.cluster.firstCore] = util(c.core) + taskUtil
    return clusterEnergy(c.cluster, utils, maxKhz) - (baseOf.get(c.cluster.index) ?? 0)
  }
  let best = options[0] as Core
  let bestDelta = delta(best)
  for (const c of options.slice(1)) {
    const d = delta(c)
    if (d < bestDelta) {
      best = c
      bestDelta = d
    }
  }
  if (prevFits && prev !== best) {
    const prevDelta = delta(prev)
    const base = [...baseOf.values()].reduce((a, b) => a + b, 0)
    if (prevDelta - bestDelta <= PREV_CPU_MARGIN * (prevDelta + base)) return result(prev, 'energy')
  }
  return result(best, 'energy')
}
