/** Raw measurements as collectors return them, each on a named clock. */
import type { ClockName } from './clock.js'

/** One instantaneous power reading (fuel gauge, external meter). */
export interface PowerSample {
  /** When the sensor reported it, on `PowerSeries.clock`. */
  readonly tNs: number
  readonly powerW: number
}

/** A power sensor's output over a window. */
export interface PowerSeries {
  readonly kind: 'instant'
  /** e.g. `fuel-gauge`, `external-meter`, `batterystats-model`. */
  readonly source: string
  readonly clock: ClockName
  /** Sorted by `tNs`, strictly increasing. */
  readonly samples: readonly PowerSample[]
}

/** One cumulative energy counter reading (ODPM rail: µWs since boot, stored here in J). */
export interface RailReading {
  readonly tNs: number
  /** Cumulative energy since an arbitrary origin; only differences are meaningful. */
  readonly energyJ: number
}

/** A cumulative counter per rail (ODPM power rails). */
export interface RailSeries {
  readonly kind: 'cumulative'
  /** Rail name as the device reports it, e.g. `S4M_VDD_CPUCL0`. */
  readonly rail: string
  /** Subsystem when known, e.g. `CPU(LITTLE)`, `Display`. */
  readonly subsystem?: string
  readonly source: string
  readonly clock: ClockName
  /** Sorted by `tNs`. */
  readonly readings: readonly RailReading[]
}

/** One method call on one thread, from a method trace. */
export interface CallInterval {
  readonly threadId: number
  /** Fully qualified `com.example.Foo.bar`. */
  readonly method: string
  /** Wall-clock start and end on `CallTrace.clock`. */
  readonly startNs: number
  readonly endNs: number
  /** Thread-CPU time at entry and exit, when the trace has that clock (dual / thread-cpu). */
  readonly cpuStartNs?: number
  readonly cpuEndNs?: number
  /** Nesting depth on its thread, 0 = outermost. */
  readonly depth: number
  /** The call was already open when the trace started (its true start is unknown). */
  readonly clippedStart: boolean
  /** The call was still open when the trace ended (its true end is unknown). */
  readonly clippedEnd: boolean
  /** Ended by exception unwinding rather than a normal exit. */
  readonly unwound: boolean
}

export interface CallTrace {
  readonly clock: ClockName
  readonly threads: ReadonlyArray<{ readonly id: number; readonly name: string }>
  readonly calls: readonly CallInterval[]
  /** `data-file-overflow=true`: the buffer filled, the tail of the window is missing. */
  readonly overflowed: boolean
  /** Sampling trace (synthesized stack diffs) or full instrumentation. */
  readonly mode: 'sampling' | 'instrumentation'
}

/** One stack sample (simpleperf task-clock, ART sampling). */
export interface StackSample {
  readonly tNs: number
  readonly threadId: number
  readonly threadName?: string
  /** Frames leaf first: `frames[0]` is the method that was running. */
  readonly frames: readonly string[]
  /** On-CPU time this sample stands for (task-clock period), when known. */
  readonly periodNs?: number
}

export interface StackSampleSet {
  readonly clock: ClockName
  readonly samples: readonly StackSample[]
  /** Samples the kernel reported as lost. */
  readonly lostCount: number
}

/** One stretch of a thread running on one CPU, from the scheduler's `sched_switch` events. */
export interface CpuSlice {
  readonly cpu: number
  /** Linux thread id (the process's main thread has tid = pid). */
  readonly tid: number
  /** Thread name at the switch (`next_comm`), when the trace has it. */
  readonly comm?: string
  /** On `CpuSchedule.clock`; a slice runs over [startNs, endNs). */
  readonly startNs: number
  readonly endNs: number
}

/** A CPU's frequency from an instant on (the kernel's `power/cpu_frequency` event). */
export interface CpuFrequencyChange {
  readonly cpu: number
  /** On `CpuSchedule.clock`. */
  readonly tNs: number
  readonly khz: number
}

/** A CPU entering or leaving an idle state (the kernel's `power/cpu_idle` event). */
export interface CpuIdleChange {
  readonly cpu: number
  /** On `CpuSchedule.clock`. */
  readonly tNs: number
  /** The idle state entered (0 = shallowest, e.g. WFI), or -1 when the CPU leaves idle (the kernel writes 4294967295, PWR_EVENT_EXIT). */
  readonly state: number
}

/** What ran on each CPU over a window (idle time, tid 0, is left out). */
export interface CpuSchedule {
  /** e.g. `perfetto.sched_switch`. */
  readonly source: string
  readonly clock: ClockName
  /** Sorted by CPU, then start. */
  readonly slices: readonly CpuSlice[]
  /** CPUs that reported events at all (a CPU without a slice here was idle or offline). */
  readonly cpus: readonly number[]
  /** Some per-CPU buffer lost events: slices there may be missing or too long. */
  readonly lostEvents: boolean
  /**
   * Frequency changes (`power/cpu_frequency`) when the trace recorded them, sorted by time; a
   * CPU's frequency before its first change in the window is unknown. @default none
   */
  readonly frequencies?: readonly CpuFrequencyChange[]
  /**
   * Idle-state changes (`power/cpu_idle`) when the trace recorded them, sorted by time; absent when
   * the trace has no cpu_idle events. A CPU's state before its first change is unknown.
   */
  readonly idle?: readonly CpuIdleChange[]
}
