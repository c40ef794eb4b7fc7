import type { EnergyWindow } from '../../src/model/energy.js'
import type {
  CallInterval,
  CallTrace,
  CpuSchedule,
  CpuSlice,
  PowerSeries,
  RailSeries,
  StackSample,
  StackSampleSet,
} from '../../src/model/samples.js'

export const S = 1e9
export const MS = 1e6

export function series(
  points: ReadonlyArray<readonly [number, number]>,
  source = 'meter',
): PowerSeries {
  return {
    kind: 'instant',
    source,
    clock: 'boottime',
    samples: points.map(([tNs, powerW]) => ({ tNs, powerW })),
  }
}

export function rail(
  name: string,
  points: ReadonlyArray<readonly [number, number]>,
  subsystem?: string,
): RailSeries {
  return {
    kind: 'cumulative',
    rail: name,
    ...(subsystem === undefined ? {} : { subsystem }),
    source: 'odpm',
    clock: 'boottime',
    readings: points.map(([tNs, energyJ]) => ({ tNs, energyJ })),
  }
}

/** A sched_switch schedule of `slices` on the boottime clock. */
export function cpuSchedule(slices: readonly CpuSlice[], cpus: readonly number[]): CpuSchedule {
  return { source: 'test', clock: 'boottime', slices, cpus, lostEvents: false }
}

export function win(startNs: number, endNs: number): EnergyWindow {
  return { clock: 'boottime', startNs, endNs }
}

export function call(
  threadId: number,
  method: string,
  startNs: number,
  endNs: number,
  depth = 0,
  cpu?: readonly [number, number],
): CallInterval {
  return {
    threadId,
    method,
    startNs,
    endNs,
    depth,
    clippedStart: false,
    clippedEnd: false,
    unwound: false,
    ...(cpu === undefined ? {} : { cpuStartNs: cpu[0], cpuEndNs: cpu[1] }),
  }
}

export function trace(
  calls: readonly CallInterval[],
  mode: CallTrace['mode'] = 'sampling',
): CallTrace {
  const ids = [...new Set(calls.map((c) => c.threadId))]
  return {
    clock: 'boottime',
    threads: ids.map((id) => ({ id, name: `t${id}` })),
    calls,
    overflowed: false,
    mode,
  }
}

export function stacks(samples: readonly StackSample[], lostCount = 0): StackSampleSet {
  return { clock: 'boottime', samples, lostCount }
}

export function sample(tNs: number, frames: readonly string[], periodNs?: number): StackSample {
  return { tNs, threadId: 1, frames, ...(periodNs === undefined ? {} : { periodNs }) }
}

/** Asserts that `fn` throws an EnergyError with `code`, returning it for further checks. */
export function codeOf(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    return (error as { code?: string }).code ?? 'no code'
  }
  return 'did not throw'
}
