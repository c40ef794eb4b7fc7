/**
 * Internal: power divided part by part (one SoC rail, a cluster's CPUs) and the window's sensor
 * intervals, shared by the interval and sampling estimators.
 */
import type { EnergyWindow } from '../model/energy.js'
import type { CpuFrequencyChange, CpuSchedule, CpuSlice } from '../model/samples.js'
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
): void {
  const intervals = bounds.length - 1
  for (let j = Math.max(0, lastAtOrBefore(bounds, t0)); j < intervals; j++) {
    if ((bounds[j] as number) >= t1) break
    const overlap = Math.min(t1, bounds[j + 1] as number) - Math.max(t0, bounds[j] as number)
    if (overlap > 0) fn(j, overlap)
  }
}

/** ∫ weight dt and the weight at an instant, for a part's running time. */
export interface RunningWeight {
  /** ∫ weight dt over [startNs, endNs), ns. */
  readonly between: (startNs: number, endNs: number) => number
  /** The weight at one instant. */
  readonly at: (tNs: number) => number
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
    if (changes.length === 0) return { between: (a, b) => b - a, at: () => 1 }
    const table = part.coreCurrents
    return stepWeight(
      changes.map(
        (c) =>
          [c.tNs, table === undefined ? (c.khz / 1e6) ** 2 : currentAtKhz(table, c.khz)] as const,
      ),
      true,
    )
  }
  // Number of busy CPUs as a step function: breakpoints and 1/N after each.
  const edges: Array<[number, number]> = []
  for (const s of slices) {
    if (s.endNs > s.startNs) edges.push([s.startNs, 1], [s.endNs, -1])
  }
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1])
  const steps: Array<readonly [number, number]> = []
  let busy = 0
  for (const [t, d] of edges) {
    busy += d
    steps.push([t, busy > 0 ? 1 / busy : 0])
  }
  return stepWeight(steps, false)
}

/**
 * A step function from (time, value from then on) pairs in time order (the last value at one
 * time wins), as ∫ over [a, b) and a value at an instant. Before the first step: the first value
 * when `holdFirst`, else 0.
 */
function stepWeight(
  steps: ReadonlyArray<readonly [number, number]>,
  holdFirst: boolean,
): RunningWeight {
  const times: number[] = []
  const values: number[] = []
  for (const [t, v] of steps) {
    if (times.length > 0 && times[times.length - 1] === t) values[values.length - 1] = v
    else {
      times.push(t)
      values.push(v)
    }
  }
  const at = Float64Array.from(times)
  const before = holdFirst ? (values[0] ?? 0) : 0
  // Prefix integral of the value up to each breakpoint.
  const prefix = new Float64Array(at.length)
  for (let i = 1; i < at.length; i++) {
    prefix[i] =
      (prefix[i - 1] as number) +
      (values[i - 1] as number) * ((at[i] as number) - (at[i - 1] as number))
  }
  const first = at[0] ?? 0
  const integral = (t: number): number => {
    const i = lastAtOrBefore(at, t)
    if (i < 0) return before * (t - first)
    return (prefix[i] as number) + (values[i] as number) * (t - (at[i] as number))
  }
  return {
    between: (a, b) => integral(b) - integral(a),
    at: (t) => {
      const i = lastAtOrBefore(at, t)
      return i < 0 ? before : (values[i] as number)
    },
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
  /** The same per ns at the instant `tNs` of interval j. */
  readonly rateAt: (cpu: number, tNs: number, j: number) => number
}

/** Weighted running time per interval of `slices`, with `weight`, over the intervals `bounds`. */
function runningPerInterval(
  slices: readonly CpuSlice[],
  weight: RunningWeight,
  bounds: Float64Array,
): Float64Array {
  const running = new Float64Array(bounds.length - 1)
  const from = bounds[0] as number
  const to = bounds[bounds.length - 1] as number
  for (const slice of slices) {
    const a = Math.max(slice.startNs, from)
    const b = Math.min(slice.endNs, to)
    if (!(b > a)) continue
    forEachInterval(bounds, a, b, (j, overlap) => {
      const start = Math.max(a, bounds[j] as number)
      running[j] = (running[j] as number) + weight.between(start, start + overlap)
    })
  }
  return running
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
  const cpus = part.cpus === undefined ? undefined : new Set(part.cpus)
  const slices = schedule.slices.filter((x) => cpus === undefined || cpus.has(x.cpu))
  const running = runningPerInterval(
    slices,
    runningWeight(part, slices, schedule.frequencies),
    bounds,
  )
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
 * Least squares of y ≈ a·u + b·v without intercept, as [a, b]; `undefined` when u or v is all zero
 * or they are too alike to tell apart (1 − r², uncentred, at most `minSeparation`).
 */
export function fitTwo(
  u: ArrayLike<number>,
  v: ArrayLike<number>,
  y: ArrayLike<number>,
  minSeparation: number,
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
    suu += a * a
    svv += b * b
    suv += a * b
    suy += a * c
    svy += b * c
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
  const cpus = part.cpus === undefined ? undefined : new Set(part.cpus)
  const slices = schedule.slices.filter((x) => cpus === undefined || cpus.has(x.cpu))
  const weight = runningWeight(part, slices, schedule.frequencies)
  const running = runningPerInterval(slices, weight, bounds)
  const plain = {
    shareOf: (_cpu: number, a: number, b: number, j: number): number =>
      weight.between(a, b) / (running[j] as number),
    rateAt: (_cpu: number, tNs: number, j: number): number =>
      weight.at(tNs) / (running[j] as number),
  }
  const clusters = clusterParts.filter((c) => c.cpus !== undefined)
  if (part.cpus !== undefined || part.followsCorePower !== true || clusters.length === 0) {
    return { bounds, energyJ, insideJ, slices, ...plain }
  }
  // Each cluster's rail energy in each of this part's intervals, its running and its weight.
  const byCpu = new Map<number, number>()
  const share: Float64Array[] = []
  const cluster = clusters.map((c, k) => {
    for (const cpu of c.cpus ?? []) byCpu.set(cpu, k)
    const own = slices.filter((x) => c.cpus?.includes(x.cpu))
    const w = runningWeight(c, own, schedule.frequencies)
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
    bounds,
    energyJ,
    insideJ,
    slices,
    shareOf: (cpu, a, b, j) => {
      const f = follows(cpu, j)
      if (f === undefined) return plain.shareOf(cpu, a, b, j)
      return f === 0 ? 0 : f * (cluster[byCpu.get(cpu) as number]?.weight.between(a, b) ?? 0)
    },
    rateAt: (cpu, tNs, j) => {
      const f = follows(cpu, j)
      if (f === undefined) return plain.rateAt(cpu, tNs, j)
      return f === 0 ? 0 : f * (cluster[byCpu.get(cpu) as number]?.weight.at(tNs) ?? 0)
    },
  }
}
