/**
 * Internal: power divided part by part (one SoC rail, a cluster's CPUs) and the window's sensor
 * intervals, shared by the interval and sampling estimators.
 */
import type { EnergyWindow } from '../model/energy.js'
import type { CpuFrequencyChange, CpuSchedule, CpuSlice } from '../model/samples.js'
import { NS_PER_S } from '../model/units.js'
import { MAD_TO_SD } from '../stats/index.js'
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
  /**
   * A shared domain (no `cpus`) whose power follows the cores' power rather than how many of them
   * run: memory traffic grows with CPU throughput, so a big core at its top frequency causes more
   * of it than a little core at its bottom. With a CPU schedule and cluster parts, each sensor
   * interval's energy is then shared among the clusters as their rails' net energy in it, and
   * within a cluster as that cluster's rail is. @default false (1/N among what runs)
   */
  readonly followsCorePower?: boolean
  /**
   * A cluster's per-core current at each of its frequencies (power_profile.xml's
   * `cpu.core_speeds.clusterN` / `cpu.core_power.clusterN`), when the user gave the phone's
   * profile: a running ns then weighs that current at the cluster's frequency instead of the
   * (f / 1 GHz)² proxy. Only with `cpus`.
   */
  readonly coreCurrents?: CoreCurrents
}

/** Per-core current at each selectable frequency of one cluster, parallel arrays in ascending kHz. */
export interface CoreCurrents {
  readonly speedsKhz: readonly number[]
  readonly currentsMa: readonly number[]
  /**
   * The cluster's own current while any of its cores runs (`cpu.cluster_power.clusterN`), shared
   * by the cores running at each moment. @default 0
   */
  readonly clusterMa?: number
}

/**
 * The current at `khz`: the listed frequency's, linear between two listed ones (a governor
 * reports only listed frequencies; a profile from another build may list others), the nearest
 * end's outside the range.
 */
export function currentAtKhz(table: CoreCurrents, khz: number): number {
  const n = Math.min(table.speedsKhz.length, table.currentsMa.length)
  if (n === 0) return (khz / 1e6) ** 2
  let i = 0
  while (i < n && (table.speedsKhz[i] as number) < khz) i++
  if (i === 0) return table.currentsMa[0] as number
  if (i === n) return table.currentsMa[n - 1] as number
  const f0 = table.speedsKhz[i - 1] as number
  const f1 = table.speedsKhz[i] as number
  const c0 = table.currentsMa[i - 1] as number
  const c1 = table.currentsMa[i] as number
  return f1 === f0 ? c1 : c0 + ((c1 - c0) * (khz - f0)) / (f1 - f0)
}

/** A part's net energy over [a, b): the curve's energy minus its baseline and modelled tails, J. */
export function netEnergyJ(part: PowerPart, a: number, b: number): number {
  const tails = part.tails ?? []
  return (
    part.curve.energyJ(a, b) -
    (part.baselinePowerW * (b - a)) / NS_PER_S -
    (tails.length > 0 ? tailCumulativeJ(tails, b) - tailCumulativeJ(tails, a) : 0)
  )
}

/** The part's net energy in each of the window's sensor intervals. */
export function partIntervals(
  part: PowerPart,
  window: EnergyWindow,
): { readonly bounds: Float64Array; readonly energyJ: Float64Array } {
  const bounds = sensorIntervalBounds(part.curve, window)
  const energyJ = new Float64Array(bounds.length - 1)
  for (let j = 0; j < energyJ.length; j++) {
    energyJ[j] = netEnergyJ(part, bounds[j] as number, bounds[j + 1] as number)
  }
  return { bounds, energyJ }
}

/** Calls `fn` with each sensor interval that [t0, t1) overlaps and the overlap, ns. */
export function forEachInterval(
  bounds: Float64Array,
  t0: number,
  t1: number,
  fn: (j: number, overlapNs: number) => void,
  cursor?: Cursor,
): void {
  const intervals = bounds.length - 1
  const first = cursor === undefined ? lastAtOrBefore(bounds, t0) : cursor.index(t0)
  for (let j = Math.max(0, first); j < intervals; j++) {
    if ((bounds[j] as number) >= t1) break
    const overlap = Math.min(t1, bounds[j + 1] as number) - Math.max(t0, bounds[j] as number)
    if (overlap > 0) fn(j, overlap)
  }
}

/**
 * `lastAtOrBefore` over one sorted array, searching outwards from its previous answer: a few steps
 * when the times asked come in order (samples, one CPU's slices), never more than a binary search.
 * Same answers as `lastAtOrBefore`.
 */
export class Cursor {
  private i = 0
  constructor(private readonly times: Float64Array) {}

  /** Index of the last element `≤ t`, −1 if none. */
  index(t: number): number {
    const times = this.times
    const n = times.length
    if (n === 0 || !(t >= (times[0] as number))) return lastAtOrBefore(times, t)
    let lo: number
    let hi: number
    const i = Math.min(this.i, n - 1)
    if ((times[i] as number) <= t) {
      // Gallop forwards to an element above t (or the end).
      let step = 1
      lo = i
      while (lo + step < n && (times[lo + step] as number) <= t) {
        lo += step
        step *= 2
      }
      hi = Math.min(n - 1, lo + step)
    } else {
      // Gallop backwards to an element at or below t (times[0] is).
      let step = 1
      hi = i
      while (hi - step >= 0 && (times[hi - step] as number) > t) {
        hi -= step
        step *= 2
      }
      lo = Math.max(0, hi - step)
    }
    // times[lo] ≤ t, and every element after hi is above t.
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if ((times[mid] as number) <= t) lo = mid
      else hi = mid - 1
    }
    this.i = lo
    return lo
  }
}

/**
 * ∫ weight dt and the weight at an instant, for a part's running time. `lane` (a CPU) keeps its own
 * search position: one CPU's slices come in time order, all CPUs' together do not.
 */
export interface RunningWeight {
  /** ∫ weight dt over [startNs, endNs), ns. */
  readonly between: (startNs: number, endNs: number, lane?: number) => number
  /** The weight at one instant. */
  readonly at: (tNs: number, lane?: number) => number
  /**
   * Σ of `between` over every slice the weight was built from, in each interval of `bounds`, when
   * the weight knows it without going slice by slice: for 1/N, the time anything ran (Σ of 1/N
   * over the N slices running at an instant is 1). Equal to the slice-by-slice sum in exact
   * arithmetic; in floating point it differs by that sum's rounding (its terms are differences of
   * a prefix integral that grows over the whole schedule).
   */
  readonly perInterval?: (bounds: Float64Array) => Float64Array
}

/**
 * How much of a part one stretch of running on its CPUs weighs, as ∫ weight dt over [a, b):
 * - a CPU cluster's rail (`cpus` given): running time, weighted by the cluster's frequency when the
 *   schedule has `cpu_frequency` changes for its CPUs — (f / 1 GHz)², a core's dynamic power
 *   growing with f·V² and V roughly with f over the DVFS range (the Pixel 6 profile's core
 *   currents grow 21–36× over a 5.6–6× frequency range), so a millisecond at the top of the table
 *   weighs more than one at its bottom. Before a CPU's first change in the window its frequency
 *   is unknown (ftrace reports changes only) and the first known one stands in;
 * - a shared domain (memory, interconnect: no `cpus`): running time divided by the number of CPUs
 *   busy at that moment — the domain's power while busy is shared by whatever runs then (vLens
 *   Fig. 4's 1/N), so a thread running alone is charged more per second than one running beside
 *   others.
 * Over an interval, Σ of the weights of every slice is the total the part's energy is divided by.
 */
export function runningWeight(
  part: PowerPart,
  slices: readonly CpuSlice[],
  frequencies: readonly CpuFrequencyChange[] = [],
): RunningWeight {
  if (part.cpus !== undefined) {
    const cpus = new Set(part.cpus)
    // One policy per cluster: every CPU of the part changes together; any of them tells.
    const changes = frequencies.filter((c) => cpus.has(c.cpu))
    if (changes.length === 0) return new FlatWeight()
    const table = part.coreCurrents
    const times = Float64Array.from(changes, (c) => c.tNs)
    const values = Float64Array.from(changes, (c) =>
      table === undefined ? (c.khz / 1e6) ** 2 : currentAtKhz(table, c.khz),
    )
    const clusterMa = table?.clusterMa ?? 0
    if (clusterMa > 0) return withClusterCost(times, values, slices, clusterMa)
    return stepWeight(times, values, true)
  }
  // Number of busy CPUs as a step function, 1/N after each start or end.
  const { times, counts } = inverseBusyFromRuns(slices) ?? inverseBusySorted(slices)
  return new InverseBusyWeight(times, counts)
}

/**
 * A cluster rail's weight with the profile's cluster cost: a running core at an instant weighs its
 * core current at the cluster's frequency (`times`/`currents`, the first standing before it) plus
 * the cluster's current shared by the cores of the cluster running then — as the cluster draws
 * it, once while any of its cores runs. So a stretch at a low frequency, where the cluster's cost
 * is a large part of the rail, is not charged as if the rail were core current only.
 */
function withClusterCost(
  times: Float64Array,
  currents: Float64Array,
  slices: readonly CpuSlice[],
  clusterMa: number,
): RunningWeight {
  const edges: number[] = []
  for (const s of slices) if (s.endNs > s.startNs) edges.push(s.startNs, -s.endNs)
  // Ends before starts at one instant (an end is stored negated).
  const order = Float64Array.from(edges).sort((a, b) => Math.abs(a) - Math.abs(b) || a - b)
  const at: number[] = []
  const value: number[] = []
  let f = 0
  let busy = 0
  let e = 0
  const first = currents[0] ?? 0
  const push = (t: number): void => {
    const core = f === 0 ? first : (currents[f - 1] as number)
    at.push(t)
    value.push(core + (busy > 0 ? clusterMa / busy : 0))
  }
  while (f < times.length || e < order.length) {
    const tf = f < times.length ? (times[f] as number) : Infinity
    const te = e < order.length ? Math.abs(order[e] as number) : Infinity
    const t = Math.min(tf, te)
    while (f < times.length && (times[f] as number) === t) f++
    while (e < order.length && Math.abs(order[e] as number) === t) {
      busy += (order[e] as number) < 0 ? -1 : 1
      e++
    }
    push(t)
  }
  return stepWeight(Float64Array.from(at), Float64Array.from(value), true)
}

/** Busy steps: breakpoints in ascending order and how many slices run from each on. */
export interface BusySteps {
  readonly times: Float64Array
  readonly counts: Int32Array
}

/**
 * N (slices running) after each start and end, from start and end times sorted apart and merged
 * (ends first at one time), collapsed to the count after the last event at each time.
 */
export function inverseBusySorted(slices: readonly CpuSlice[]): BusySteps {
  let count = 0
  for (let i = 0; i < slices.length; i++) {
    const s = slices[i] as CpuSlice
    if (s.endNs > s.startNs) count++
  }
  const starts = new Float64Array(count)
  const ends = new Float64Array(count)
  count = 0
  for (let i = 0; i < slices.length; i++) {
    const s = slices[i] as CpuSlice
    if (!(s.endNs > s.startNs)) continue
    starts[count] = s.startNs
    ends[count++] = s.endNs
  }
  const startsSorted = sortedTimes(starts)
  const endsSorted = sortedTimes(ends)
  const times = new Float64Array(2 * count)
  const counts = new Int32Array(2 * count)
  let busy = 0
  let m = 0
  for (let i = 0, k = 0, e = 0; e < 2 * count; e++) {
    const end =
      k < count && (i === count || (endsSorted[k] as number) <= (startsSorted[i] as number))
    const t = end ? (endsSorted[k++] as number) : (startsSorted[i++] as number)
    busy += end ? -1 : 1
    if (m > 0 && times[m - 1] === t) counts[m - 1] = busy
    else {
      times[m] = t
      counts[m++] = busy
    }
  }
  return { times: times.subarray(0, m), counts: counts.subarray(0, m) }
}

/**
 * The same steps, collapsed, when the slices are a few runs that each follow one another without
 * overlapping (sched_switch gives each CPU's slices so): a run's starts and ends then alternate
 * in time order, and the runs are merged directly, without sorting starts and ends apart or
 * copying them. Which of several events at one time comes first does not matter: only the count
 * after all of them is kept. `undefined` for more runs than `MAX_EVENT_RUNS` or an infinite time.
 */
export function inverseBusyFromRuns(slices: readonly CpuSlice[]): BusySteps | undefined {
  // Each run's first slice index; a slice that starts before the previous one ended starts a run.
  const runs: number[] = []
  let count = 0
  let previousEnd = 0
  for (let i = 0; i < slices.length; i++) {
    const s = slices[i] as CpuSlice
    if (!(s.endNs > s.startNs)) continue
    // An infinite time would tie with the runs that are done (their next event is Infinity).
    if (!Number.isFinite(s.startNs) || !Number.isFinite(s.endNs)) return undefined
    if (count === 0 || !(s.startNs >= previousEnd)) {
      if (runs.length === MAX_EVENT_RUNS) return undefined
      runs.push(i)
    }
    previousEnd = s.endNs
    count++
  }
  const k = runs.length
  // Per run: the slice at its head, its last index, whether the head's end is next, and the time
  // of that next event (Infinity once the run is done).
  const head = Int32Array.from(runs)
  const stop = Int32Array.from(runs, (_, r) => (runs[r + 1] ?? slices.length) - 1)
  const atEnd = new Uint8Array(k)
  const next = Float64Array.from(runs, (i) => (slices[i] as CpuSlice).startNs)
  const times = new Float64Array(2 * count)
  const counts = new Int32Array(2 * count)
  let m = 0
  let busy = 0
  for (let e = 0; e < 2 * count; e++) {
    let best = 0
    for (let r = 1; r < k; r++) if ((next[r] as number) < (next[best] as number)) best = r
    const t = next[best] as number
    const i = head[best] as number
    if (atEnd[best] === 1) {
      busy--
      atEnd[best] = 0
      // The run's next slice that is not empty.
      let j = i + 1
      const last = stop[best] as number
      while (j <= last && !((slices[j] as CpuSlice).endNs > (slices[j] as CpuSlice).startNs)) j++
      head[best] = j
      next[best] = j <= last ? (slices[j] as CpuSlice).startNs : Infinity
    } else {
      busy++
      atEnd[best] = 1
      next[best] = (slices[i] as CpuSlice).endNs
    }
    if (m > 0 && times[m - 1] === t) counts[m - 1] = busy
    else {
      times[m] = t
      counts[m++] = busy
    }
  }
  return { times: times.subarray(0, m), counts: counts.subarray(0, m) }
}

/** Runs `inverseBusyFromRuns` merges (a phone's CPUs, with room for a window cut per CPU). */
const MAX_EVENT_RUNS = 16

/**
 * The time within each interval of `bounds` where the step function is above 0, ns: one sweep
 * over the steps and the intervals together (0 before the first step).
 */
function busyPerInterval(steps: BusySteps, bounds: Float64Array): Float64Array {
  const { times, counts } = steps
  const intervals = Math.max(0, bounds.length - 1)
  const busy = new Float64Array(intervals)
  const m = times.length
  // The step in effect at the interval's start (or the first step, when it starts later).
  let i = Math.max(0, lastAtOrBefore(times, bounds[0] as number))
  for (let j = 0; j < intervals; j++) {
    const lo = bounds[j] as number
    const hi = bounds[j + 1] as number
    while (i + 1 < m && (times[i + 1] as number) <= lo) i++
    let sum = 0
    for (let k = i; k < m && (times[k] as number) < hi; k++) {
      if (!((counts[k] as number) > 0)) continue
      const a = Math.max(lo, times[k] as number)
      const b = k + 1 < m ? Math.min(hi, times[k + 1] as number) : hi
      if (b > a) sum += b - a
    }
    busy[j] = sum
  }
  return busy
}

/**
 * `times` in ascending order: its ascending runs merged when there are few of them (each CPU's
 * slices come in time order), else sorted. May sort `times` in place.
 */
function sortedTimes(times: Float64Array): Float64Array {
  const n = times.length
  const runs = [0]
  for (let i = 1; i < n; i++) {
    const t = times[i] as number
    const prev = times[i - 1] as number
    if (t >= prev) continue
    // A time below the one before starts a run; a NaN is left to sort().
    if (!(t < prev) || runs.length === MAX_MERGED_RUNS) return times.sort()
    runs.push(i)
  }
  runs.push(n)
  let from = times
  let to: Float64Array = new Float64Array(n)
  while (runs.length > 2) {
    const merged = [0]
    for (let r = 0; r + 1 < runs.length; r += 2) {
      const lo = runs[r] as number
      const mid = runs[r + 1] as number
      const hi = r + 2 < runs.length ? (runs[r + 2] as number) : mid
      let i = lo
      let k = mid
      let o = lo
      while (i < mid && k < hi) {
        to[o++] =
          (from[i] as number) <= (from[k] as number) ? (from[i++] as number) : (from[k++] as number)
      }
      while (i < mid) to[o++] = from[i++] as number
      while (k < hi) to[o++] = from[k++] as number
      merged.push(hi)
    }
    const was = from
    from = to
    to = was
    runs.splice(0, runs.length, ...merged)
  }
  return from
}

/** Ascending runs `sortedTimes` merges before it sorts instead. */
const MAX_MERGED_RUNS = 64

/**
 * A step function from breakpoints in time order and the value from each on (the last value at
 * one time wins), as ∫ over [a, b) and a value at an instant. Before the first step: the first
 * value when `holdFirst`, else 0.
 */
function stepWeight(at: Float64Array, values: Float64Array, holdFirst: boolean): StepWeight {
  // Collapsed in place: the arrays are this function's own.
  let m = 0
  for (let i = 0; i < at.length; i++) {
    const t = at[i] as number
    if (m > 0 && at[m - 1] === t) values[m - 1] = values[i] as number
    else {
      at[m] = t
      values[m++] = values[i] as number
    }
  }
  return new StepWeight(at.subarray(0, m), values.subarray(0, m), holdFirst)
}

/**
 * A step function's ∫ and values (`stepWeight`). A class rather than closures: the split's loops
 * call `between` and `at` for every slice and sample, and V8 inlines a method of one class there.
 */
class StepWeight implements RunningWeight {
  private readonly lanes: LaneCursors
  /** Prefix integral of the value up to each breakpoint. */
  private readonly prefix: Float64Array
  private readonly before: number
  private readonly first: number
  readonly perInterval = undefined

  constructor(
    readonly times: Float64Array,
    readonly values: Float64Array,
    holdFirst: boolean,
  ) {
    const m = times.length
    this.before = holdFirst ? (values[0] ?? 0) : 0
    this.first = times[0] ?? 0
    const prefix = new Float64Array(m)
    for (let i = 1; i < m; i++) {
      prefix[i] =
        (prefix[i - 1] as number) +
        (values[i - 1] as number) * ((times[i] as number) - (times[i - 1] as number))
    }
    this.prefix = prefix
    this.lanes = new LaneCursors(times)
  }

  private integral(t: number, c: Cursor): number {
    const i = c.index(t)
    if (i < 0) return this.before * (t - this.first)
    return (this.prefix[i] as number) + (this.values[i] as number) * (t - (this.times[i] as number))
  }

  between(a: number, b: number, lane = 0): number {
    const c = this.lanes.of(lane)
    const fromA = this.integral(a, c)
    return this.integral(b, c) - fromA
  }

  at(t: number, lane = 0): number {
    const i = this.lanes.of(lane).index(t)
    return i < 0 ? this.before : (this.values[i] as number)
  }
}

/**
 * 1/N, N the slices running (a shared domain's weight), from the busy steps alone: ∫ over [a, b)
 * summed step by step rather than as a difference of a prefix integral. No values or prefix
 * arrays beside the times: with half a million slices those are tens of MB per window, which V8
 * counts as external memory and answers with a full collection of the heap.
 */
class InverseBusyWeight implements RunningWeight, BusySteps {
  private readonly lanes: LaneCursors
  constructor(
    readonly times: Float64Array,
    readonly counts: Int32Array,
  ) {
    this.lanes = new LaneCursors(times)
  }

  between(a: number, b: number, lane = 0): number {
    const times = this.times
    const counts = this.counts
    const m = times.length
    let sum = 0
    // The step in effect at a (none before the first: 0 there), then each step that starts
    // before b.
    let k = this.lanes.of(lane).index(a)
    let from = a
    if (k < 0) {
      k = 0
      if (m > 0 && (times[0] as number) > from) from = times[0] as number
    }
    while (k < m && from < b) {
      const next = k + 1 < m ? (times[k + 1] as number) : b
      const to = next < b ? next : b
      const n = counts[k] as number
      if (n > 0 && to > from) sum += (1 / n) * (to - from)
      if (next > from) from = next
      k++
    }
    return sum
  }

  at(t: number, lane = 0): number {
    const i = this.lanes.of(lane).index(t)
    const n = i < 0 ? 0 : (this.counts[i] as number)
    return n > 0 ? 1 / n : 0
  }

  perInterval(bounds: Float64Array): Float64Array {
    return busyPerInterval(this, bounds)
  }
}

/** Running time unweighted: a cluster without `cpu_frequency` changes. */
class FlatWeight implements RunningWeight {
  readonly perInterval = undefined
  between(a: number, b: number): number {
    return b - a
  }
  at(): number {
    return 1
  }
}

/**
 * Which traced thread a schedule slice belongs to. Exact tid first; ART's non-streaming traces
 * store thread ids in 16 bits, so a slice of a tid above 65535 also matches its low 16 bits — but
 * only when its `comm` agrees with the trace's thread name (the kernel keeps 15 characters; the
 * main thread's comm is the package name, not `main`), so another process whose tid shares the
 * low bits is not credited to the app.
 */
export function scheduleThreadMatcher(
  threads: ReadonlyMap<number, string | undefined>,
): (slice: CpuSlice) => number | undefined {
  return (slice) => {
    if (threads.has(slice.tid)) return slice.tid
    if (slice.tid <= 0xffff) return undefined
    const low = slice.tid & 0xffff
    if (!threads.has(low)) return undefined
    const name = threads.get(low)
    if (slice.comm === undefined || name === undefined || name === 'main') return low
    return name.slice(0, 15) === slice.comm.slice(0, 15) ? low : undefined
  }
}

/** What ran on a part's CPUs in each of its sensor intervals, and what running there is worth. */
export interface PartRunning {
  /** The intervals (the first and last may reach outside the window, see `partRunning`). */
  readonly bounds: Float64Array
  /** Each interval's net energy, J. */
  readonly energyJ: Float64Array
  /** The part's net energy inside the window (edges interpolated), J. */
  readonly insideJ: number
  /** The schedule's slices on the part's CPUs. */
  readonly slices: readonly CpuSlice[]
  /** The share of interval j's energy that running on `cpu` over [a, b) (inside interval j) earns. */
  readonly shareOf: (cpu: number, a: number, b: number, j: number) => number
  /** The same per ns at the instant `tNs` of interval j (asked in time order: samples). */
  readonly rateAt: (cpu: number, tNs: number, j: number) => number
  /** A search of `bounds` for one CPU's slices in time order (`forEachInterval`'s cursor). */
  readonly intervalCursor: (cpu: number) => Cursor
}

/** Weighted running time per interval of `slices`, with `weight`, over the intervals `bounds`. */
export function runningPerInterval(
  slices: readonly CpuSlice[],
  weight: RunningWeight,
  bounds: Float64Array,
): Float64Array {
  const intervals = bounds.length - 1
  const running = new Float64Array(intervals)
  const from = bounds[0] as number
  const to = bounds[intervals] as number
  const cursors = new LaneCursors(bounds)
  // Indexed, not for…of: this loop runs over every slice of every part.
  for (let i = 0; i < slices.length; i++) {
    const slice = slices[i] as CpuSlice
    const a = Math.max(slice.startNs, from)
    const b = Math.min(slice.endNs, to)
    if (!(b > a)) continue
    // forEachInterval inlined: this loop runs for every slice of every part.
    for (let j = Math.max(0, cursors.of(slice.cpu).index(a)); j < intervals; j++) {
      const lo = bounds[j] as number
      if (lo >= b) break
      const overlap = Math.min(b, bounds[j + 1] as number) - Math.max(a, lo)
      if (overlap > 0) {
        const start = Math.max(a, lo)
        running[j] = (running[j] as number) + weight.between(start, start + overlap, slice.cpu)
      }
    }
  }
  return running
}

/**
 * The weighted running time of `slices` in interval `j` of `bounds` alone, summed as
 * `runningPerInterval` sums it (same order, same terms), with one comparison per slice elsewhere.
 */
function runningInInterval(
  slices: readonly CpuSlice[],
  weight: RunningWeight,
  bounds: Float64Array,
  j: number,
): number {
  if (weight.perInterval !== undefined) {
    return weight.perInterval(bounds.subarray(j, j + 2))[0] as number
  }
  const from = bounds[0] as number
  const to = bounds[bounds.length - 1] as number
  const lo = bounds[j] as number
  const hi = bounds[j + 1] as number
  let running = 0
  for (const slice of slices) {
    if (!(slice.endNs > lo) || !(slice.startNs < hi)) continue
    const a = Math.max(slice.startNs, from)
    const b = Math.min(slice.endNs, to)
    if (!(b > a) || lo >= b) continue
    const overlap = Math.min(b, hi) - Math.max(a, lo)
    if (overlap > 0) {
      const start = Math.max(a, lo)
      running += weight.between(start, start + overlap, slice.cpu)
    }
  }
  return running
}

/**
 * One `Cursor` per lane (CPU) over the same sorted times. Its array of cursors is never read past
 * its end nor grows holes: V8 deoptimizes the split's loops that ask for a lane when it does.
 */
export class LaneCursors {
  private readonly cursors: Array<Cursor | undefined> = new Array<Cursor | undefined>(8).fill(
    undefined,
  )
  constructor(private readonly times: Float64Array) {}
  of(lane: number): Cursor {
    const cursors = this.cursors
    if (lane >= 0 && lane < cursors.length) {
      const cursor = cursors[lane]
      if (cursor !== undefined) return cursor
    }
    return this.add(lane)
  }

  private add(lane: number): Cursor {
    const cursor = new Cursor(this.times)
    // Any other lane gets a cursor of its own each time (the same answers, searched afresh).
    if (!(Number.isInteger(lane) && lane >= 0 && lane < MAX_LANES)) return cursor
    while (this.cursors.length <= lane) this.cursors.push(undefined)
    this.cursors[lane] = cursor
    return cursor
  }
}

/** Lanes (CPU numbers) `LaneCursors` keeps a cursor for. */
const MAX_LANES = 1024

/**
 * A part's slices, their weight and the running time per interval of the window's sensor
 * intervals, computed once per schedule for the floor fit and every split of the window. The
 * schedule and the part's arrays are taken as immutable (they are `readonly` everywhere).
 */
interface ScheduleView {
  readonly cpus: string
  readonly coreCurrents: CoreCurrents | undefined
  readonly slices: readonly CpuSlice[]
  readonly weight: RunningWeight
  /** The last intervals asked for, and their running time. */
  last?: { readonly bounds: Float64Array; readonly running: Float64Array }
}

const scheduleViews = new WeakMap<CpuSchedule, ScheduleView[]>()

function scheduleView(part: PowerPart, schedule: CpuSchedule): ScheduleView {
  let views = scheduleViews.get(schedule)
  if (views === undefined) {
    views = []
    scheduleViews.set(schedule, views)
  }
  const key = part.cpus === undefined ? '*' : part.cpus.join(',')
  const found = views.find((v) => v.cpus === key && v.coreCurrents === part.coreCurrents)
  if (found !== undefined) return found
  const cpus = part.cpus === undefined ? undefined : new Set(part.cpus)
  const slices =
    cpus === undefined ? schedule.slices : schedule.slices.filter((x) => cpus.has(x.cpu))
  const view = {
    cpus: key,
    coreCurrents: part.coreCurrents,
    slices,
    weight: runningWeight(part, slices, schedule.frequencies),
  }
  views.push(view)
  return view
}

/** The view's running time per interval of `bounds` (the last bounds' answer kept). */
function viewRunning(view: ScheduleView, bounds: Float64Array): Float64Array {
  const last = view.last
  if (last !== undefined && sameTimes(last.bounds, bounds)) return last.running
  const running =
    view.weight.perInterval?.(bounds) ?? runningPerInterval(view.slices, view.weight, bounds)
  view.last = { bounds: bounds.slice(), running }
  return running
}

function sameTimes(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * A part's idle power fitted over the window's sensor intervals, W: least squares of each
 * interval's energy ≈ floor·Δt + k·(weighted running time on the part's CPUs, `runningWeight`), no
 * intercept. The lowest interval power is a biased floor wherever the readings' latch times jitter
 * around their stamps (a Pixel's power-stats HAL latches 1–2 ms after the stamp, ±1–2% of a 100 ms
 * interval): the minimum of many noisy intervals sits below the true level, and every interval
 * with activity then charges the difference to whatever ran. Averaging through the fit does not.
 * `undefined` when the window cannot tell floor from activity: fewer than `MIN_FIT_INTERVALS`
 * intervals, running time that does not vary enough from interval to interval (a CPU busy or idle
 * throughout), or a fit that is not positive in both terms.
 */
export function fittedFloorW(
  part: PowerPart,
  schedule: CpuSchedule,
  window: EnergyWindow,
): number | undefined {
  const { bounds, energyJ } = partIntervals({ ...part, baselinePowerW: 0, tails: [] }, window)
  const n = energyJ.length
  if (n < MIN_FIT_INTERVALS) return undefined
  const running = viewRunning(scheduleView(part, schedule), bounds)
  const t = new Float64Array(n)
  const x = new Float64Array(n)
  for (let j = 0; j < n; j++) {
    t[j] = ((bounds[j + 1] as number) - (bounds[j] as number)) / NS_PER_S
    x[j] = (running[j] as number) / NS_PER_S
  }
  // Δt and running time (uncentred) with 1 − r² below 1% cannot be told apart.
  const fit = fitTwo(t, x, energyJ, 0.01)
  if (fit === undefined) return undefined
  const [floorW, perRunningW] = fit
  return floorW > 0 && perRunningW > 0 && Number.isFinite(floorW) ? floorW : undefined
}

/**
 * Least squares of y ≈ a·u + b·v without intercept, as [a, b], each row weighted by `w` (1 without);
 * `undefined` when u or v is all zero or they are too alike to tell apart (1 − r², uncentred, at
 * most `minSeparation`).
 */
export function fitTwo(
  u: ArrayLike<number>,
  v: ArrayLike<number>,
  y: ArrayLike<number>,
  minSeparation: number,
  w?: ArrayLike<number>,
): readonly [number, number] | undefined {
  let suu = 0
  let svv = 0
  let suv = 0
  let suy = 0
  let svy = 0
  for (let j = 0; j < y.length; j++) {
    const a = u[j] as number
    const b = v[j] as number
    const c = y[j] as number
    const q = w === undefined ? 1 : (w[j] as number)
    suu += q * a * a
    svv += q * b * b
    suv += q * a * b
    suy += q * a * c
    svy += q * b * c
  }
  const det = suu * svv - suv * suv
  if (!(suu > 0) || !(svv > 0) || !(det > minSeparation * suu * svv)) return undefined
  return [(svv * suy - suv * svy) / det, (suu * svy - suv * suy) / det]
}

/** Sensor intervals a fitted floor needs at least (two unknowns and their noise). */
const MIN_FIT_INTERVALS = 10

/**
 * A part's sensor intervals for splitting by the CPU schedule, and what running on its CPUs in
 * each is worth: a cluster's rail by (frequency-weighted) running time on its CPUs, a shared
 * domain 1/N among what runs (`runningWeight`) or, when it `followsCorePower`, cluster by cluster
 * as the `clusterParts`' rails drew in the interval.
 *
 * A sensor interval cut by the window's edge is taken whole: the counter tells only how much energy
 * the interval held, and the schedule tells when the work was, so the window keeps the share of the
 * interval's running time that lies inside it (a burst that starts with the window gets its whole
 * interval's energy, where a linear cut of the counter gives it the window's fraction of the
 * interval's time). This needs the schedule to cover the power readings around the window, as when
 * one Perfetto session records both (the ODPM collector); an idle CPU has no slices, so a schedule
 * that starts late cannot be told from an idle phone. Without a reading beyond an edge, that edge
 * interval stays cut as `partIntervals` cuts it. Callers charge only running time inside the
 * window; the rest of an edge interval is nobody's.
 */
export function partRunning(
  part: PowerPart,
  schedule: CpuSchedule,
  window: EnergyWindow,
  clusterParts: readonly PowerPart[] = [],
): PartRunning {
  // The sampling or interval split and the warnings ask for the same parts of the same window.
  const kept = partRunnings.get(part)
  if (
    kept !== undefined &&
    kept.schedule === schedule &&
    kept.startNs === window.startNs &&
    kept.endNs === window.endNs &&
    kept.clusterParts.length === clusterParts.length &&
    kept.clusterParts.every((c, i) => c === clusterParts[i])
  ) {
    return kept.running
  }
  const running = splitRunning(part, schedule, window, clusterParts)
  partRunnings.set(part, { schedule, ...window, clusterParts, running })
  return running
}

const partRunnings = new WeakMap<
  PowerPart,
  {
    readonly schedule: CpuSchedule
    readonly startNs: number
    readonly endNs: number
    readonly clusterParts: readonly PowerPart[]
    readonly running: PartRunning
  }
>()

function splitRunning(
  part: PowerPart,
  schedule: CpuSchedule,
  window: EnergyWindow,
  clusterParts: readonly PowerPart[],
): PartRunning {
  const inside = partIntervals(part, window)
  let insideJ = 0
  for (const e of inside.energyJ) insideJ += e
  const bounds = inside.bounds.slice()
  const energyJ = inside.energyJ.slice()
  const before = part.curve.readingTimesIn(part.curve.firstNs, window.startNs).at(-1)
  if (before !== undefined && before < window.startNs) {
    bounds[0] = before
    energyJ[0] = netEnergyJ(part, before, bounds[1] as number)
  }
  const after = part.curve.readingTimesIn(window.endNs, part.curve.lastNs)[0]
  const last = bounds.length - 1
  if (after !== undefined && after > window.endNs) {
    bounds[last] = after
    energyJ[last - 1] = netEnergyJ(part, bounds[last - 1] as number, after)
  }
  const view = scheduleView(part, schedule)
  const { slices, weight } = view
  // The fit's running time per interval, with the edge intervals taken whole.
  const running = viewRunning(view, inside.bounds).slice()
  if (bounds[0] !== inside.bounds[0]) running[0] = runningInInterval(slices, weight, bounds, 0)
  if (bounds[last] !== inside.bounds[last]) {
    running[last - 1] = runningInInterval(slices, weight, bounds, last - 1)
  }
  const clusters = clusterParts.filter((c) => c.cpus !== undefined)
  const followsClusters = part.cpus === undefined && part.followsCorePower === true
  // A shared domain's interval energy less its reading noise (a memory rail's below, against
  // what the clusters drew).
  if (part.cpus === undefined && !(followsClusters && clusters.length > 0)) {
    energyJ.set(withoutReadingNoise(energyJ, running, bounds))
  }
  const cursors = new LaneCursors(bounds)
  const plain = {
    shareOf: (cpu: number, a: number, b: number, j: number): number =>
      weight.between(a, b, cpu) / (running[j] as number),
    rateAt: (_cpu: number, tNs: number, j: number): number =>
      weight.at(tNs) / (running[j] as number),
  }
  const common = {
    bounds,
    energyJ,
    insideJ,
    slices,
    intervalCursor: (cpu: number) => cursors.of(cpu),
  }
  if (!followsClusters || clusters.length === 0) {
    return { ...common, ...plain }
  }
  // Each cluster's rail energy in each of this part's intervals, its running and its weight.
  const byCpu = new Map<number, number>()
  const share: Float64Array[] = []
  const cluster = clusters.map((c, k) => {
    for (const cpu of c.cpus ?? []) byCpu.set(cpu, k)
    const { slices: own, weight: w } = scheduleView(c, schedule)
    const drawn = new Float64Array(bounds.length - 1)
    for (let j = 0; j < drawn.length; j++) {
      drawn[j] = Math.max(0, netEnergyJ(c, bounds[j] as number, bounds[j + 1] as number))
    }
    share.push(drawn)
    return { weight: w, running: runningPerInterval(own, w, bounds) }
  })
  const total = new Float64Array(bounds.length - 1)
  for (const drawn of share) {
    for (let j = 0; j < total.length; j++) total[j] = (total[j] as number) + (drawn[j] as number)
  }
  energyJ.set(withoutReadingNoise(energyJ, total, bounds))
  // Where the clusters drew nothing above their floors, the rule falls back to 1/N.
  const follows = (cpu: number, j: number): number | undefined => {
    const t = total[j] as number
    if (!(t > 0)) return undefined
    const k = byCpu.get(cpu)
    if (k === undefined) return 0
    const r = cluster[k]?.running[j] as number
    return r > 0 ? (share[k]?.[j] as number) / t / r : 0
  }
  return {
    ...common,
    shareOf: (cpu, a, b, j) => {
      const f = follows(cpu, j)
      if (f === undefined) return plain.shareOf(cpu, a, b, j)
      return f === 0 ? 0 : f * (cluster[byCpu.get(cpu) as number]?.weight.between(a, b, cpu) ?? 0)
    },
    rateAt: (cpu, tNs, j) => {
      const f = follows(cpu, j)
      if (f === undefined) return plain.rateAt(cpu, tNs, j)
      return f === 0 ? 0 : f * (cluster[byCpu.get(cpu) as number]?.weight.at(tNs) ?? 0)
    },
  }
}

/**
 * A shared rail's net energy per sensor interval (`bounds`) with the readings' noise taken out of
 * what each interval's work is charged (noise-aware shrinkage), against `driver`, what the rail
 * follows in each interval (the time anything ran; for memory, what the clusters' rails drew).
 *
 * A counter reading's time stamp is off by the HAL's latch delay (1–2 ms on a Pixel, varying from
 * reading to reading), so an interval of a 149 mW rail holds ±150–300 µJ more or less than its
 * stamps say — as much as a call of a few ms draws from it, and no split inside the interval can
 * tell which. Only a rate learnt over many intervals can: the window's intervals are fitted as
 * floor·Δt + k·driver + residual (`robustRate`), and an interval with activity is charged k·driver
 * plus its residual shrunk by the non-negative garrote, r·max(0, 1 − λ²/r²), at the universal
 * threshold λ = σ·√(2 ln n): the level n residuals of pure noise rarely exceed. A residual well
 * above it (activity the rate does not explain) stays with its interval almost whole; one at the
 * noise's level, and the fit's floor term, are left with the floor, unattributed. Intervals
 * without activity are unchanged. The input itself when the window cannot tell: fewer than
 * `MIN_FIT_INTERVALS` intervals, floor and driver too alike, a rate that is not positive, no
 * spread.
 */
export function withoutReadingNoise(
  energyJ: Float64Array,
  driver: ArrayLike<number>,
  bounds: Float64Array,
): Float64Array {
  const n = energyJ.length
  if (n < MIN_FIT_INTERVALS || driver.length !== n || bounds.length !== n + 1) return energyJ
  const t = new Float64Array(n)
  for (let j = 0; j < n; j++) t[j] = ((bounds[j + 1] as number) - (bounds[j] as number)) / NS_PER_S
  if (fitTwo(t, driver, energyJ, 0.01) === undefined) return energyJ
  const fit = robustRate(t, driver, energyJ)
  if (fit === undefined) return energyJ
  const { k, residuals, sigma } = fit
  const lambda2 = sigma * sigma * 2 * Math.log(n)
  const out = energyJ.slice()
  for (let j = 0; j < n; j++) {
    const x = driver[j] as number
    if (!(x > 0)) continue
    const r = residuals[j] as number
    out[j] = k * x + (r === 0 ? 0 : r * Math.max(0, 1 - lambda2 / (r * r)))
  }
  return out
}

/**
 * y ≈ floor·t + k·x fitted so that no single interval sets the rate: a short call's charge is k
 * times its running time, and a window may have only one interval with much running time — if
 * that interval also holds activity the rate does not explain (a real interconnect's DMA, say),
 * least squares (and an M-estimator started from it) follows it and charges every other call the
 * wrong rate. Theil–Sen's median of pairwise slopes (powers against the share of the interval
 * busy) starts the fit, then Tukey-bisquare steps (c = 4.685, scale 1.4826 × median |residual|)
 * refine it: the start is not moved by one interval, the steps make it as efficient as least
 * squares where nothing is out of line. `undefined` when the rate is not positive or the residuals
 * have no spread (exact readings: nothing to take out).
 */
export function robustRate(
  t: Float64Array,
  x: ArrayLike<number>,
  y: Float64Array,
): { readonly k: number; readonly residuals: Float64Array; readonly sigma: number } | undefined {
  const n = y.length
  const start = theilSen(t, x, y)
  if (start === undefined) return undefined
  let [floorW, k] = start
  const residuals = new Float64Array(n)
  const weights = new Float64Array(n)
  let sigma = 0
  let settled = false
  for (let it = 0; it <= BISQUARE_STEPS; it++) {
    for (let j = 0; j < n; j++) {
      residuals[j] = (y[j] as number) - floorW * (t[j] as number) - k * (x[j] as number)
    }
    sigma = MAD_TO_SD * medianOfAbs(residuals)
    if (!(sigma > 0) || it === BISQUARE_STEPS || settled) break
    for (let j = 0; j < n; j++) {
      const u = (residuals[j] as number) / (BISQUARE_C * sigma)
      weights[j] = Math.abs(u) < 1 ? (1 - u * u) ** 2 : 0
    }
    const next = fitTwo(t, x, y, 1e-12, weights)
    if (next === undefined) break
    // A step that no longer moves the fit ends the iteration (a long window's steps each sort n).
    settled =
      Math.abs(next[0] - floorW) <= SETTLED * Math.abs(floorW) &&
      Math.abs(next[1] - k) <= SETTLED * Math.abs(k)
    ;[floorW, k] = next
  }
  if (!(k > 0) || !Number.isFinite(k) || !Number.isFinite(floorW) || !(sigma > 0)) return undefined
  return { k, residuals, sigma }
}

const BISQUARE_C = 4.685
const BISQUARE_STEPS = 20
const SETTLED = 1e-9

/**
 * Theil–Sen on powers p = y/t against busy shares u = x/t: the median of the pairwise slopes, the
 * floor the median of p − k·u. All pairs up to `ALL_PAIRS` intervals, else each interval with the
 * ones at up to `PAIR_STRIDES` strides ahead, at most ≈ `MAX_PAIRS` in all (a long window's pairs,
 * sampled evenly).
 */
function theilSen(
  t: Float64Array,
  x: ArrayLike<number>,
  y: Float64Array,
): [number, number] | undefined {
  const n = y.length
  const u = Float64Array.from(t, (dt, j) => (x[j] as number) / dt)
  const p = Float64Array.from(t, (dt, j) => (y[j] as number) / dt)
  const slopes: number[] = []
  const add = (i: number, j: number): void => {
    const du = (u[j] as number) - (u[i] as number)
    if (du !== 0) slopes.push(((p[j] as number) - (p[i] as number)) / du)
  }
  if (n <= ALL_PAIRS) {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) add(i, j)
  } else {
    // At most ≈ MAX_PAIRS slopes, so a long window at a fast sensor stays linear (100 k intervals:
    // 2 strides, not 100 — 10 M slopes to sort took ≈ 1 s).
    const strides = Math.max(1, Math.min(PAIR_STRIDES, Math.floor(MAX_PAIRS / n)))
    for (let s = 1; s <= strides; s++) {
      const stride = Math.max(1, Math.round((s * (n - 1)) / (strides + 1)))
      for (let i = 0; i + stride < n; i++) add(i, i + stride)
    }
  }
  if (slopes.length === 0) return undefined
  const k = median(Float64Array.from(slopes))
  const levels = Float64Array.from(p, (v, j) => v - k * (u[j] as number))
  return [median(levels), k]
}

const ALL_PAIRS = 200
const PAIR_STRIDES = 100
const MAX_PAIRS = 200_000

function median(values: Float64Array): number {
  values.sort()
  const m = values.length >> 1
  return values.length % 2 === 1
    ? (values[m] as number)
    : ((values[m - 1] as number) + (values[m] as number)) / 2
}

function medianOfAbs(values: Float64Array): number {
  return median(Float64Array.from(values, Math.abs))
}
