/**
 * What the kernel scheduler's `sched_switch` events would show of the simulation: the execution
 * slices of every thread — the app's and, with `physics: 'phone'`, other processes' — per core,
 * cut to a window. Idle time (no slice on a core) is left out,
 * as in the model's `CpuSchedule`; the perfetto encoder writes it as switches to `swapper/<cpu>`.
 */
import type { CpuFrequencyChange, CpuIdleChange, CpuSchedule, CpuSlice } from '../../model/index.js'
import type { PowerModel } from './power-model.js'
import type { ExecSlice, Simulation } from './simulation.js'

/** The kernel keeps 15 bytes of a thread name (TASK_COMM_LEN 16 with the NUL), as simpleperf shows it. */
const COMM_LEN = 15

/** Every CPU of the simulated phone: the cores of its power profile's clusters, in order. */
export function simCpus(power: PowerModel): number[] {
  return power.clusters.flatMap((c) => Array.from({ length: c.cores }, (_, i) => c.firstCore + i))
}

/**
 * The schedule over [startNs, stopNs] on CLOCK_BOOTTIME: each core's execution slices clipped to
 * the window, back-to-back slices of one thread joined (the kernel switches only between threads).
 */
export function cpuScheduleOf(sim: Simulation, startNs: number, stopNs: number): CpuSchedule {
  // Periodic work that fell due before the stop is scheduled lazily: bring it in first.
  sim.materialize(stopNs)
  const slices: CpuSlice[] = []
  for (const { s, startNs: from, endNs: to } of clippedSlices(sim, startNs, stopNs)) {
    const last = slices.at(-1)
    if (last !== undefined && last.cpu === s.core && last.tid === s.tid && last.endNs === from) {
      slices[slices.length - 1] = { ...last, endNs: to }
      continue
    }
    const name = sim.commOf(s.tid)
    slices.push({
      cpu: s.core,
      tid: s.tid,
      ...(name === undefined ? {} : { comm: name.slice(0, COMM_LEN) }),
      startNs: from,
      endNs: to,
    })
  }
  return {
    source: 'virtual-device',
    clock: 'boottime',
    slices,
    cpus: simCpus(sim.power),
    lostEvents: false,
    ...(sim.physics === 'phone' ? { frequencies: frequencyChanges(sim, startNs, stopNs) } : {}),
  }
}

/** An execution slice of the simulation cut to a window. */
export interface ClippedSlice {
  readonly s: ExecSlice
  readonly startNs: number
  readonly endNs: number
}

/**
 * The slices that ran in [startNs, stopNs] (already materialized), cut to it, by core then start.
 * Whole ns like the kernel's clock (a sleep of 1.1 s is not an integer number of ns in floats);
 * rounding is monotonic, so slices of one core still do not overlap. Only the slices that may
 * reach into the window are visited (a window late in a long session does not copy the whole
 * session); the sort is stable, so equal keys keep the slices' order.
 */
export function clippedSlices(sim: Simulation, startNs: number, stopNs: number): ClippedSlice[] {
  const clipped: ClippedSlice[] = []
  sim.visitSlices(startNs, stopNs, (s) => {
    const from = Math.round(Math.max(s.startNs, startNs))
    const to = Math.round(Math.min(s.endNs, stopNs))
    if (to > from) clipped.push({ s, startNs: from, endNs: to })
  })
  return clipped.sort((a, b) => a.s.core - b.s.core || a.startNs - b.startNs)
}

/**
 * The governor's frequency changes in [startNs, stopNs), one per CPU of the cluster as the kernel
 * traces them (cpufreq reports a policy's change for each of its CPUs), in time order.
 */
export function frequencyChanges(
  sim: Simulation,
  startNs: number,
  stopNs: number,
): CpuFrequencyChange[] {
  const out: CpuFrequencyChange[] = []
  for (const governor of sim.governors) {
    const { firstCore, cores } = governor.cluster
    const changes = governor.changes
    // Changes are in time order (rounding keeps it): from the first in the window to its end.
    let lo = 0
    let hi = changes.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (Math.round(changes[mid]?.tNs ?? 0) < startNs) lo = mid + 1
      else hi = mid
    }
    for (let c = lo; c < changes.length; c++) {
      const change = changes[c]
      if (change === undefined) continue
      const tNs = Math.round(change.tNs)
      if (tNs >= stopNs) break
      for (let i = 0; i < cores; i++) out.push({ cpu: firstCore + i, tNs, khz: change.khz })
    }
  }
  return out.sort((a, b) => a.tNs - b.tNs || a.cpu - b.cpu)
}

/**
 * The shortest idle gap in which a core goes to its deeper idle state (1: the core powered down)
 * instead of WFI (0). A model assumption of the order of the target residency of an ARM core's
 * power-down state (a few hundred µs to a few ms); the simulation draws no power of its own for an
 * idle core in either state.
 */
export const DEEP_IDLE_NS = 2_000_000

/**
 * The `power/cpu_idle` events of [startNs, stopNs) as the kernel's cpuidle framework writes them
 * (drivers/cpuidle/cpuidle.c `cpuidle_enter_state`: the state entered, then PWR_EVENT_EXIT when the
 * CPU wakes), one pair per idle gap of a core: the state is chosen on entry from the gap's length —
 * state 1 for a gap of at least `DEEP_IDLE_NS`, else 0 — as a cpuidle governor (menu, TEO) that
 * predicted the next wake-up right would; a gap that runs past the stop with no work known after it
 * is taken as long. Only transitions inside the window: a core idle when the window starts has
 * just its exit. Times are whole ns, as `clippedSlices` rounds them.
 */
export function idleChanges(sim: Simulation, startNs: number, stopNs: number): CpuIdleChange[] {
  sim.materialize(stopNs)
  // Busy stretches per core, from slices that reach the window (one ending right at its start
  // tells that the core was not idle then) or start soon enough after it to decide its last gap.
  const horizonNs = stopNs + DEEP_IDLE_NS
  const byCore = new Map<number, [number, number][]>()
  sim.visitSlices(startNs - 1, horizonNs, (s) => {
    const from = Math.round(s.startNs)
    const to = Math.round(s.endNs)
    if (to <= from || to < startNs || from >= horizonNs) return
    const list = byCore.get(s.core)
    if (list === undefined) byCore.set(s.core, [[from, to]])
    else list.push([from, to])
  })
  const out: CpuIdleChange[] = []
  for (const [cpu, list] of byCore) {
    list.sort((a, b) => a[0] - b[0])
    const busy: [number, number][] = []
    for (const [from, to] of list) {
      const last = busy.at(-1)
      if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to)
      else busy.push([from, to])
    }
    busy.forEach(([from, to], i) => {
      // Woken from idle (stretches are apart, and the first one had nothing right before it).
      if (from >= startNs && from < stopNs) out.push({ cpu, tNs: from, state: -1 })
      if (to < startNs || to >= stopNs) return
      const gapNs = (busy[i + 1]?.[0] ?? Number.POSITIVE_INFINITY) - to
      out.push({ cpu, tNs: to, state: gapNs >= DEEP_IDLE_NS ? 1 : 0 })
    })
  }
  // Stable: a core's exit and entry at one instant keep their order.
  return out.sort((a, b) => a.tNs - b.tNs || a.cpu - b.cpu)
}
