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
    return stepWeight(
      changes.map((c) => [c.tNs, (c.khz / 1e6) ** 2] as const),
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

/**
 * What ran on a part's CPUs in each sensor interval: the schedule's slices on those CPUs, their
 * weight (`runningWeight`), and Σ weight per interval — what each interval's energy is divided by.
 */
export function partRunning(
  part: PowerPart,
  schedule: CpuSchedule,
  window: EnergyWindow,
  bounds: Float64Array,
): {
  readonly slices: readonly CpuSlice[]
  readonly weight: RunningWeight
  readonly running: Float64Array
} {
  const cpus = part.cpus === undefined ? undefined : new Set(part.cpus)
  const slices = schedule.slices.filter((x) => cpus === undefined || cpus.has(x.cpu))
  const weight = runningWeight(part, slices, schedule.frequencies)
  const running = new Float64Array(bounds.length - 1)
  for (const slice of slices) {
    const a = Math.max(slice.startNs, window.startNs)
    const b = Math.min(slice.endNs, window.endNs)
    if (!(b > a)) continue
    forEachInterval(bounds, a, b, (j, overlap) => {
      const from = Math.max(a, bounds[j] as number)
      running[j] = (running[j] as number) + weight.between(from, from + overlap)
    })
  }
  return { slices, weight, running }
}
