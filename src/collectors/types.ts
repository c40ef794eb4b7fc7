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

export interface CollectorContext {
  readonly device: AdbDevice
  /** The app under test (package name). */
  readonly app: string
  /** Device directory for artifacts. @default '/data/local/tmp/vitest-energy' */
  readonly deviceDir: string
  /** A short unique id for this window, used in device file names. */
  readonly windowId: string
  /** Progress for long steps (pulling a big trace), shown by the fixture. */
  readonly onProgress?: (message: string) => void
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
      readonly warnings: readonly EnergyWarning[]
    }
  | {
      readonly kind: 'rails'
      readonly rails: readonly RailSeries[]
      /** What ran on each CPU, when the session recorded `sched_switch` (ODPM via Perfetto). */
      readonly schedule?: CpuSchedule
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
  start(context: CollectorContext): Promise<void>
  stop(context: CollectorContext): Promise<T>
  /** Stops whatever is still running on the device without collecting (after a failure). */
  abort(context: CollectorContext): Promise<void>
}

export type PowerCollector = Collector<PowerData>
export type ExecutionCollector = Collector<ExecutionData>
