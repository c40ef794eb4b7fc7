/**
 * What the kernel scheduler's `sched_switch` events would show of the simulation: the execution
 * slices of every thread — the app's and, with `physics: 'phone'`, other processes' — per core,
 * cut to a window. Idle time (no slice on a core) is left out,
 * as in the model's `CpuSchedule`; the perfetto encoder writes it as switches to `swapper/<cpu>`.
 */
import type { CpuSchedule, CpuSlice } from '../../model/index.js'
import type { CpuFrequencyChange } from '../../model/samples.js'
import type { PowerModel } from './power-model.js'
import type { Simulation } from './simulation.js'

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
  // Whole ns like the kernel's clock (a sleep of 1.1 s is not an integer number of ns in floats);
  // rounding is monotonic, so slices of one core still do not overlap.
  const clipped = sim.slices
    .map((s) => ({
      s,
      startNs: Math.round(Math.max(s.startNs, startNs)),
      endNs: Math.round(Math.min(s.endNs, stopNs)),
    }))
    .filter((c) => c.endNs > c.startNs)
    .sort((a, b) => a.s.core - b.s.core || a.startNs - b.startNs)
  for (const { s, startNs: from, endNs: to } of clipped) {
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
    for (const change of governor.changes) {
      const tNs = Math.round(change.tNs)
      if (tNs < startNs || tNs >= stopNs) continue
      for (let i = 0; i < cores; i++) out.push({ cpu: firstCore + i, tNs, khz: change.khz })
    }
  }
  return out.sort((a, b) => a.tNs - b.tNs || a.cpu - b.cpu)
}
