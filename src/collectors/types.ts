/**
 * One interface for every collector: `start()` begins recording on the device, `stop()` ends it
 * and returns raw, timestamped data on a named clock. Collectors never attribute: they hand the
 * attribution layer model types (`PowerSeries`, `RailSeries`, `CallTrace`, `StackSampleSet`).
 */
import type { AdbDevice } from '../device/index.js'
import type {
  CallTrace,
  CpuSchedule,
  EnergyWarning,
  PowerSeries,
  RailSeries,
  StackSampleSet,
} from '../model/index.js'
import type { Progress } from '../model/progress.js'

export interface CollectorContext {
  readonly device: AdbDevice
  /** The app under test (package name). */
  readonly app: string
  /** Device directory for artifacts. @default '/data/local/tmp/vitest-energy' */
  readonly deviceDir: string
  /** A short unique id for this window, used in device file names. */
  readonly windowId: string
  /** The test's progress, for steps that can take long (converting samples, pulling a trace). */
  readonly progress?: Progress
  /**
   * Receives the raw data a collector pulled or read (a file name such as `power.pftrace`, and its
   * bytes or text), so the caller can keep it as a test artifact. Called before parsing, so data
   * that fails to parse is kept too.
   */
  readonly keepArtifact?: (name: string, data: Uint8Array | string) => void
}

/** What a power collector returns. */
export type PowerData =
  | {
      readonly kind: 'series'
      readonly series: PowerSeries
      /**
       * What ran on each CPU and at which frequency, when the collector recorded it alongside (the
       * fuel gauge's Perfetto session, for the CPU power model of a phone without rails).
       */
      readonly schedule?: CpuSchedule
      /**
       * The rest of the phone without rails — screen, Wi-Fi, cellular, GPS, Bluetooth — as
       * modelled cumulative rails over the series' span, when the collector was asked for them
       * (the fuel gauge's `components`: the battery history priced with the power profile, source
       * `batterystats-model`, rails `MODEL_DISPLAY`, `MODEL_WLAN`, `MODEL_MODEM`, `MODEL_GNSS`,
       * `MODEL_BT`). Read like ODPM's component rails; not part of `series` (the gauge already
       * measures them). Absent, with `W_NO_COMPONENTS`, when the history could not be used.
       */
      readonly components?: readonly RailSeries[]
      /** boottime − monotonic (ns), from that session's clock snapshot. */
      readonly monotonicToBoottimeNs?: number
      readonly warnings: readonly EnergyWarning[]
    }
  | {
      readonly kind: 'rails'
      readonly rails: readonly RailSeries[]
      /** What ran on each CPU, when the session recorded `sched_switch` (ODPM via Perfetto). */
      readonly schedule?: CpuSchedule
      /**
       * boottime − monotonic (ns) when the session recorded both clocks at one instant (a Perfetto
       * clock snapshot): puts CLOCK_MONOTONIC method traces on the rails' clock.
       */
      readonly monotonicToBoottimeNs?: number
      /**
       * Where the rails' readings were stamped relative to Perfetto's poll grid (signed ns), so the
       * next window's wait for a reading past its end can allow for it.
       */
      readonly readingOffsetsNs?: { readonly minNs: number; readonly maxNs: number }
      readonly warnings: readonly EnergyWarning[]
    }

/** What an execution collector returns. */
export type ExecutionData =
  | {
      readonly kind: 'calls'
      readonly trace: CallTrace
      readonly warnings: readonly EnergyWarning[]
    }
  | {
      readonly kind: 'stacks'
      readonly samples: StackSampleSet
      readonly warnings: readonly EnergyWarning[]
    }

export interface Collector<T> {
  /** Stable name recorded in results: `fuel-gauge`, `odpm`, `art-sampling`, `simpleperf`, … */
  readonly name: string
  /**
   * Starts recording on the device. When it fails it leaves nothing behind: the window aborts only
   * the collectors that started.
   */
  start(context: CollectorContext): Promise<void>
  /**
   * Ends the recording and returns its data. Whether it succeeds or throws, the process it started
   * has ended and the window's files on the device are removed.
   */
  stop(context: CollectorContext): Promise<T>
  /**
   * Stops what this collector started on the device, without collecting (the window was abandoned
   * or failed), and removes the window's files. It signals its own process by pid, never by name:
   * other windows' recorders on the phone keep running.
   */
  abort(context: CollectorContext): Promise<void>
}

export interface PowerCollector extends Collector<PowerData> {
  /**
   * For sources that read on their own schedule (perfetto polls every 100 ms at best): resolves
   * once a reading at or after the call (the window's end) has been taken. The window calls it
   * before stopping anything, so the phone's last sensor interval holds the test's own tail and
   * not the collectors' stop work (a profiler flushing, a trace being converted). `stop()` waits
   * by itself when this was not called. `endHostNs`: the window's end on the host's clock, when
   * the call comes later (a window ended in the background: the method recorder stopped first).
   */
  awaitEndReading?(context: CollectorContext, endHostNs?: number): Promise<void>
  /**
   * For sources that refresh slowly and report the average since their last refresh (a fuel
   * gauge): resolves right after the source's next refresh, so the window opens on a boundary of
   * the source's periods and its first period holds nothing from before the test. The window calls
   * it once its recorders run, before the test's body.
   */
  awaitStartReading?(context: CollectorContext): Promise<void>
}
export type ExecutionCollector = Collector<ExecutionData>
