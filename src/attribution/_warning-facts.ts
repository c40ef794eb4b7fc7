/**
 * The facts `attributionWarnings` reads that come from the window's own data: how much of the
 * window its edges leave to interpolation, how noisy its net energy is, what the display drew,
 * and how much energy methods could have been charged with (the screen left out).
 */
import type { EnergyWindow, MethodEnergy } from '../model/energy.js'
import type { CpuSchedule, CpuSlice, RailSeries } from '../model/samples.js'
import { NS_PER_S } from '../model/units.js'
import { MAD_TO_SD, medianAbsoluteDeviation, toSamples } from '../stats/index.js'
import { componentOfRail } from './components.js'
import { sensorIntervalBounds, type EnergyCurve } from './curve.js'
import { ASYNC_COMPONENTS, findInitiators, lowestRailPowerW } from './initiators.js'
import { partRunning, type PowerPart } from './_parts.js'
import type { TailCharge } from './tails.js'
import type { UnchargedEnergy } from './warnings.js'

/**
 * Share of the window inside the sensor intervals its two edges cut (0–1): their energy is
 * interpolated from the counter interval around each edge. 1 when no reading falls inside.
 */
export function edgeShare(curve: EnergyCurve, window: EnergyWindow): number {
  const span = window.endNs - window.startNs
  const inside = curve.readingTimesIn(window.startNs, window.endNs)
  const first = inside[0]
  const last = inside[inside.length - 1]
  if (first === undefined || last === undefined) return 1
  return (first - window.startNs + (window.endNs - last)) / span
}

/**
 * Real sensor updates per second over the whole record the window was cut from (the readings either
 * side of it too): a window of a few sensor intervals holds too few updates to tell the rate (a
 * 30 ms window between two 100 ms polls holds none).
 */
export function recordRateHz(curve: EnergyCurve, window: EnergyWindow): number | undefined {
  const fromNs = Math.min(curve.firstNs, window.startNs)
  const toNs = Math.max(curve.lastNs, window.endNs)
  return toNs > fromNs ? curve.countUpdates(fromNs, toNs) / ((toNs - fromNs) / 1e9) : undefined
}

/**
 * The longest stretch between two consecutive readings over the whole record, s: what an edge of
 * a window can cut at most. Real rails are read late now and then (the HAL latches a reading after
 * its stamp, a poll slips), so the mean rate understates it.
 */
export function recordLongestIntervalS(curve: EnergyCurve): number | undefined {
  const times = curve.readingTimesIn(curve.firstNs, curve.lastNs)
  let longestNs = 0
  for (let i = 1; i < times.length; i++)
    longestNs = Math.max(longestNs, (times[i] as number) - (times[i - 1] as number))
  return longestNs > 0 ? longestNs / NS_PER_S : undefined
}

/**
 * How far a net energy could be from 0 by chance, J: 1.96·√(T·τ)·s from the window's own power
 * fluctuation between sensor intervals (s: 1.4826 × MAD of their powers, τ: their mean length;
 * work in the window inflates it, so the floor errs towards not warning), and at least the
 * rounding of the figures (a millionth of the gross energy, 1 µJ at the least).
 */
export function netNoiseJ(curve: EnergyCurve, window: EnergyWindow, grossEnergyJ: number): number {
  const bounds = sensorIntervalBounds(curve, window)
  const powers: number[] = []
  for (let j = 0; j + 1 < bounds.length; j++) {
    const a = bounds[j] as number
    const b = bounds[j + 1] as number
    if (b > a) powers.push((curve.energyJ(a, b) * NS_PER_S) / (b - a))
  }
  const rounding = Math.max(1e-6, 1e-6 * Math.abs(grossEnergyJ))
  if (powers.length < 2) return rounding
  const spreadW = MAD_TO_SD * medianAbsoluteDeviation(toSamples(powers, 'sensor intervals'))
  const durationS = (window.endNs - window.startNs) / NS_PER_S
  const intervalS = durationS / powers.length
  return Math.max(rounding, 1.96 * Math.sqrt(durationS * intervalS) * spreadW)
}

/** The display rails' average power over the window, W; undefined without a display rail. */
export function displayPowerW(
  rails: readonly RailSeries[],
  energyOf: (rail: RailSeries) => number,
  durationS: number,
): number | undefined {
  const display = rails.filter((r) => componentOfRail(r) === 'screen')
  if (display.length === 0 || !(durationS > 0)) return undefined
  return display.reduce((sum, r) => sum + energyOf(r), 0) / durationS
}

/**
 * The energy per-method attribution can charge, with per-rail data: what the rails methods divide
 * drew above their idle floor (`methodPool`: CPU clusters, memory, interconnect), plus what radio,
 * GPS and Bluetooth rails drew above their lowest level in the window (charged to their initiators
 * as asynchronous energy) — except bursts already running when the window opened, which no code of
 * this window started (the fixture names them: `W_ASYNC_CARRIED_OVER`, `W_ASYNC_UNKNOWN_ORIGIN`).
 * The display and other rails no code is charged with are left out, so a bright screen is never
 * "invisible" energy. Also where the part no method got went.
 */
export function chargeableEnergy(input: {
  readonly rails: readonly RailSeries[]
  readonly energyOf: (rail: RailSeries) => number
  readonly window: EnergyWindow
  readonly methodPoolJ: number
  readonly methods: readonly MethodEnergy[]
  readonly tails: readonly TailCharge[]
  /** What threads outside the method data drew of the pool (`otherThreadsEnergy`): left out. */
  readonly otherThreadsJ?: number
}): { readonly energyJ: number; readonly uncharged: UnchargedEnergy[] } {
  const durationS = (input.window.endNs - input.window.startNs) / NS_PER_S
  const pool = Math.max(0, input.methodPoolJ - (input.otherThreadsJ ?? 0))
  const local = input.methods.reduce((s, m) => s + m.localEnergyJ, 0)
  const uncharged: UnchargedEnergy[] = [{ name: 'CPU and SoC rails', energyJ: pool - local }]
  const chargedByComponent = new Map<string, number>()
  for (const c of input.tails) {
    if (c.method === undefined) continue
    chargedByComponent.set(c.component, (chargedByComponent.get(c.component) ?? 0) + c.energyJ)
  }
  // Without method data every burst that is on at the window's start counts as ongoing.
  const ongoing = new Map<string, number>()
  for (const b of findInitiators(input.rails, undefined, input.window, {
    isAppMethod: () => false,
  }).ongoing)
    ongoing.set(b.rail, (ongoing.get(b.rail) ?? 0) + b.energyJ)
  let energyJ = pool
  for (const rail of input.rails) {
    const component = componentOfRail(rail)
    if (!ASYNC_COMPONENTS.includes(component)) continue
    const floorW = lowestRailPowerW(rail, input.window) ?? 0
    const above = Math.max(
      0,
      input.energyOf(rail) - floorW * durationS - (ongoing.get(rail.rail) ?? 0),
    )
    energyJ += above
    const charged = chargedByComponent.get(component) ?? 0
    chargedByComponent.set(component, Math.max(0, charged - above))
    uncharged.push({ name: rail.subsystem ?? rail.rail, energyJ: above - Math.min(above, charged) })
  }
  return { energyJ, uncharged: uncharged.sort((a, b) => b.energyJ - a.energyJ) }
}

/** A thread of the schedule as `otherThreadsEnergy` sees it (per tid, while its comm stays). */
interface ThreadEntry {
  readonly comm: string | undefined
  readonly name: string
  /** The method data's thread (its energy is the methods'). */
  readonly method: boolean
  /** Its name's index in the sums, −1 before its first share. */
  index: number
}

/**
 * What the threads outside the method data drew of the rails methods divide, per thread name
 * (`comm`), largest first: each sensor interval's energy of each part (above its floor) split by
 * running time among what `sched_switch` shows on the part's CPUs, as the interval method splits
 * it. Other processes (system_server, surfaceflinger, kernel threads), and the app's threads the
 * method data never saw, are what they drew; no method of the window could have been charged with it.
 */
export function otherThreadsEnergy(
  parts: readonly PowerPart[],
  schedule: CpuSchedule,
  window: EnergyWindow,
  isMethodThread: (slice: CpuSlice) => boolean,
): UnchargedEnergy[] {
  // Each name's sum in a typed array, names in the order of their first share (a Map's order); a
  // thread's name and whether it is the method data's looked up once per tid and comm, not per slice.
  const names: string[] = []
  const nameIndex = new Map<string, number>()
  let sums = new Float64Array(64)
  const threads = new Map<number, ThreadEntry>()
  const threadOf = (slice: CpuSlice): ThreadEntry => {
    const known = threads.get(slice.tid)
    if (known !== undefined && known.comm === slice.comm) return known
    const entry = {
      comm: slice.comm,
      name: slice.comm ?? `tid ${slice.tid}`,
      method: isMethodThread(slice),
      index: -1,
    }
    threads.set(slice.tid, entry)
    return entry
  }
  for (const part of parts) {
    const { bounds, energyJ, slices, shareOf, intervalCursor } = partRunning(
      part,
      schedule,
      window,
      parts,
    )
    const intervals = bounds.length - 1
    for (let i = 0; i < slices.length; i++) {
      const slice = slices[i] as CpuSlice
      const a = Math.max(slice.startNs, window.startNs)
      const b = Math.min(slice.endNs, window.endNs)
      if (!(b > a)) continue
      const thread = threadOf(slice)
      if (thread.method) continue
      // forEachInterval's loop, inlined (every other process's slice of every part).
      for (let j = Math.max(0, intervalCursor(slice.cpu).index(a)); j < intervals; j++) {
        if ((bounds[j] as number) >= b) break
        const overlap = Math.min(b, bounds[j + 1] as number) - Math.max(a, bounds[j] as number)
        if (!(overlap > 0)) continue
        const from = Math.max(a, bounds[j] as number)
        const share = (energyJ[j] as number) * shareOf(slice.cpu, from, from + overlap, j)
        if (!Number.isFinite(share)) continue
        if (thread.index < 0) {
          let index = nameIndex.get(thread.name)
          if (index === undefined) {
            index = names.length
            nameIndex.set(thread.name, index)
            names.push(thread.name)
            if (index === sums.length) {
              const wider = new Float64Array(2 * index)
              wider.set(sums)
              sums = wider
            }
          }
          thread.index = index
        }
        sums[thread.index] = (sums[thread.index] as number) + share
      }
    }
  }
  return names
    .map((name, i) => ({ name, energyJ: Math.max(0, sums[i] as number) }))
    .filter((u) => u.energyJ > 0)
    .sort((x, y) => y.energyJ - x.energyJ)
}
