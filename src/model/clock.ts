/**
 * Every timestamp names its clock. Device clocks differ (ART wall time is CLOCK_MONOTONIC µs since
 * the trace start, ODPM/Perfetto use CLOCK_BOOTTIME, simpleperf uses what --clockid says), and the
 * host is another clock altogether, so data is mapped explicitly, never by assuming simultaneous starts.
 */
import type { CallTrace } from './samples.js'

export type ClockName =
  | 'boottime'
  | 'monotonic'
  | 'monotonic_raw'
  | 'realtime'
  /** Host-side `process.hrtime` / `performance.now` timeline. */
  | 'host'
  /** Per-thread CPU time (ART thread-cpu clock). */
  | 'thread-cpu'

/** An affine map `to = from + offsetNs`, with the uncertainty of the estimate. */
export interface ClockMapping {
  readonly from: ClockName
  readonly to: ClockName
  readonly offsetNs: number
  /** Half the round trip of the best paired reading: the offset is exact within ± this. */
  readonly uncertaintyNs: number
}

export function mapTime(tNs: number, mapping: ClockMapping): number {
  return tNs + mapping.offsetNs
}

export function invertMapping(mapping: ClockMapping): ClockMapping {
  return {
    from: mapping.to,
    to: mapping.from,
    offsetNs: -mapping.offsetNs,
    uncertaintyNs: mapping.uncertaintyNs,
  }
}

/**
 * A call trace moved onto another clock by a constant offset (e.g. an ART trace's CLOCK_MONOTONIC
 * wall times onto CLOCK_BOOTTIME). Thread-CPU times are per thread and stay as they are.
 */
export function shiftCallTrace<T extends CallTrace>(
  trace: T,
  offsetNs: number,
  clock: ClockName,
): T {
  return {
    ...trace,
    clock,
    calls: trace.calls.map((c) => ({
      ...c,
      startNs: c.startNs + offsetNs,
      endNs: c.endNs + offsetNs,
    })),
  }
}
