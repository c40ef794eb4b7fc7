/**
 * What the kernel scheduler's `sched_switch` events would show of the simulation: the execution
 * slices of every thread — the app's and, with `physics: 'phone'`, other processes' — per core,
 * cut to a window. Idle time (no slice on a core) is left out,
 * as in the model's `CpuSchedule`; the perfetto encoder writes it as switches to `swapper/<cpu>`.
 */
import type { CpuSchedule, CpuSlice } from '../../model/index.js'
import type { CpuFrequencyChange } from '../../model/samples.js'
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
