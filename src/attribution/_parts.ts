/**
 * Internal: power divided part by part (one SoC rail, a cluster's CPUs) and the window's sensor
 * intervals, shared by the interval and sampling estimators.
 */
import type { EnergyWindow } from '../model/energy.js'
import type { CpuSchedule, CpuSlice } from '../model/samples.js'
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

/**
 * How much of a part one stretch of running on its CPUs weighs, as ∫ weight dt over [a, b):
 * - a CPU cluster's rail (`cpus` given): running time (each core draws its own power);
 * - a shared domain (memory, interconnect: no `cpus`): running time divided by the number of CPUs
 *   busy at that moment — the domain's power while busy is shared by whatever runs then (vLens
 *   Fig. 4's 1/N), so a thread running alone is charged more per second than one running beside
 *   others.
 * Over an interval, Σ of the weights of every slice is the total the part's energy is divided by.
 */
export function runningWeight(
  part: PowerPart,
  slices: readonly CpuSlice[],
): {
  /** ∫ weight dt over [startNs, endNs), ns. */
  readonly between: (startNs: number, endNs: number) => number
  /** The weight at one instant (1, or 1/N for a shared domain). */
  readonly at: (tNs: number) => number
} {
  if (part.cpus !== undefined) return { between: (a, b) => b - a, at: () => 1 }
  // Number of busy CPUs as a step function: breakpoints and 1/N after each.
  const edges: Array<[number, number]> = []
  for (const s of slices) {
    if (s.endNs > s.startNs) edges.push([s.startNs, 1], [s.endNs, -1])
  }
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1])
  const times: number[] = []
  const inverse: number[] = []
  let busy = 0
  for (const [t, d] of edges) {
    busy += d
    if (times.length > 0 && times[times.length - 1] === t)
      inverse[inverse.length - 1] = busy > 0 ? 1 / busy : 0
    else {
      times.push(t)
      inverse.push(busy > 0 ? 1 / busy : 0)
    }
  }
  const at = Float64Array.from(times)
  // Prefix integral of 1/N up to each breakpoint.
  const prefix = new Float64Array(at.length)
  for (let i = 1; i < at.length; i++) {
    prefix[i] =
      (prefix[i - 1] as number) +
      (inverse[i - 1] as number) * ((at[i] as number) - (at[i - 1] as number))
  }
  const integral = (t: number): number => {
    const i = lastAtOrBefore(at, t)
    if (i < 0) return 0
    return (prefix[i] as number) + (inverse[i] as number) * (t - (at[i] as number))
  }
  return {
    between: (a, b) => integral(b) - integral(a),
    at: (t) => {
      const i = lastAtOrBefore(at, t)
      return i < 0 ? 0 : (inverse[i] as number)
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
  readonly weight: ReturnType<typeof runningWeight>
  readonly running: Float64Array
} {
  const cpus = part.cpus === undefined ? undefined : new Set(part.cpus)
  const slices = schedule.slices.filter((x) => cpus === undefined || cpus.has(x.cpu))
  const weight = runningWeight(part, slices)
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
