/** Raw report-sample data, as simpleperf prints it (text) or serializes it (protobuf). */

/** How a frame's code ran, from `--show-execution-type` (protobuf `CallChainEntry.ExecutionType`). */
export type SimpleperfExecutionType =
  'native_method' | 'interpreted_jvm_method' | 'jit_jvm_method' | 'art_method'

/** One frame of a sample's call chain. */
export interface SimpleperfFrame {
  /**
   * Address of the instruction inside its ELF/dex file, lowercase hex without `0x`, exactly as
   * `vaddr_in_file:` (or `ip:` in old builds, which print the absolute address) shows it.
   * Kept as a string because kernel addresses exceed 2^53.
   */
  readonly vaddrInFile: string
  /** `file:` (or old `dso:`): path of the ELF/dex/oat file, or `[kernel.kallsyms]`, `[JIT app cache]`… */
  readonly file: string
  /** Demangled symbol as simpleperf prints it; `unknown` style marks kept verbatim. */
  readonly symbol: string
  /** Only present when recorded with `--show-execution-type`. */
  readonly executionType?: SimpleperfExecutionType
}

/** One `sample:` block / protobuf `Sample`. */
export interface SimpleperfSample {
  /**
   * `event_type:` (text) or `meta_info.event_type[event_type_id]` (protobuf), e.g. `task-clock`.
   * Old text without the field: the meta block's only event type, else `''`.
   */
  readonly eventType: string
  /** `time:`: ns on the recording's `--clockid` clock (default `perf`≈monotonic). */
  readonly timeNs: number
  /**
   * `event_count:`: events since the thread's previous sample (ns for task-clock/cpu-clock).
   * Absent in old builds' text, which did not print it.
   */
  readonly eventCount?: number
  readonly threadId: number
  /** `thread_name:` (text) or the matching protobuf `Thread` record; `''` when unknown. */
  readonly threadName: string
  /** Frames leaf first: `frames[0]` is the sampled instruction, then its callers. */
  readonly frames: readonly SimpleperfFrame[]
  /** Protobuf `unwinding_result.error_code` name when simpleperf attached one. */
  readonly unwindingError?: string
}

/** `meta_info:` block / protobuf `MetaInfo`. Unknown keys land in `extra`. */
export interface SimpleperfMetaInfo {
  readonly eventTypes: readonly string[]
  readonly appPackageName?: string
  readonly appType?: string
  readonly androidSdkVersion?: string
  readonly androidBuildType?: string
  readonly traceOffcpu?: boolean
  /** Keys this parser does not know (text form only), in order, verbatim. */
  readonly extra: ReadonlyArray<readonly [string, string]>
}

/** `lost_situation:` block / protobuf `LostSituation`. */
export interface SimpleperfLostSituation {
  /** Samples reported (after simpleperf's own filtering). */
  readonly sampleCount: number
  /** Samples the kernel dropped (ring buffer full). */
  readonly lostCount: number
}

/** `context_switch:` block (recorded with `--trace-offcpu` / `-e sched:sched_switch` on new builds). */
export interface SimpleperfContextSwitch {
  /** `true`: the thread was switched on a CPU; `false`: switched off. */
  readonly switchOn: boolean
  readonly timeNs: number
  readonly threadId: number
}

/** Protobuf `Thread` record. */
export interface SimpleperfThread {
  readonly threadId: number
  readonly processId: number
  readonly threadName: string
}

/** Everything one report-sample output holds, in model-independent form. */
export interface SimpleperfReport {
  /** Which serialization the report came from. */
  readonly format: 'text' | 'protobuf'
  /**
   * Text only: `vaddr_in_file` (new builds: `vaddr_in_file:`/`file:`) or `ip` (old builds:
   * `ip:`/`dso:`); `undefined` for protobuf or when the text had no sample.
   */
  readonly keyStyle?: 'vaddr_in_file' | 'ip'
  readonly meta?: SimpleperfMetaInfo
  readonly samples: readonly SimpleperfSample[]
  readonly lost?: SimpleperfLostSituation
  readonly contextSwitches: readonly SimpleperfContextSwitch[]
  /** Protobuf only (text has names inline). */
  readonly threads: readonly SimpleperfThread[]
}
