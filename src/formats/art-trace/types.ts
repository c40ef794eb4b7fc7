/** Public types of the ART method trace reader and writer. Times are µs as in the file. */

/** Which clocks the records carry (`clock=` in the key section). */
export type ArtClock = 'dual' | 'wall' | 'thread-cpu'

/** Container layout: text key section + binary data (`legacy`), or `--streaming` output. */
export type ArtTraceLayout = 'legacy' | 'streaming'

/** What a record means: 0 enter, 1 exit, 2 unwind (exit by exception). */
export type ArtAction = 'enter' | 'exit' | 'unwind'

/** Numeric action codes as stored in the low two bits of the method value. */
export const ACTION_ENTER = 0
export const ACTION_EXIT = 1
export const ACTION_UNWIND = 2

export interface ArtThread {
  /** Thread id as recorded (ART: a small per-trace index or the tid; Dalvik: the thread id). */
  readonly id: number
  readonly name: string
}

export interface ArtMethod {
  /** Method id with the two action bits clear (`0x62830738`). */
  readonly id: number
  /** Declaring class as written in the file: `com/example/Foo` (Dalvik) or `com.example.Foo`. */
  readonly className: string
  /** Method name; empty for the old 4-field lines that carry no name. */
  readonly name: string
  /** JVM signature `(I)V`; empty when the line has none. */
  readonly signature: string
  /** Source file when the line has one. */
  readonly file?: string
  /** Line number when the line has one (`-1` is kept as written). */
  readonly line?: number
}

export interface ArtTraceRecord {
  readonly threadId: number
  readonly methodId: number
  readonly action: ArtAction
  /** Thread-CPU µs since the thread's first event (raw 32-bit value), dual / thread-cpu clocks. */
  readonly threadCpuUs?: number
  /** Wall µs since the header's start time (raw 32-bit value), dual / wall clocks. */
  readonly wallUs?: number
}

/** Everything in the header and key section, without the records. */
export interface ArtTraceInfo {
  readonly layout: ArtTraceLayout
  /** Binary data version: 1 (9-byte records), 2 (10-byte), 3 (size from header). */
  readonly version: 1 | 2 | 3
  /** Version written in the `*version` text section (normally equal to `version`). */
  readonly textVersion: number
  readonly clock: ArtClock
  /** Bytes per record, including the thread id. */
  readonly recordSizeBytes: number
  /** Header start time, µs on CLOCK_MONOTONIC (ART) / gettimeofday (Dalvik). */
  readonly startTimeUs: number
  /** `data-file-overflow=true`: the trace buffer filled and the tail of the window is missing. */
  readonly overflow: boolean
  readonly elapsedTimeUs?: number
  /** `num-method-calls` (non-streaming files only). */
  readonly numMethodCalls?: number
  readonly clockCallOverheadNs?: number
  /** `art` or `dalvik`. */
  readonly vm?: string
  readonly pid?: number
  /** Every `key=value` line of the key section, as written. */
  readonly keys: Readonly<Record<string, string>>
  readonly threads: readonly ArtThread[]
  readonly methods: readonly ArtMethod[]
  /** Things a reader should know (overflow, assumed clock, version mismatch…). */
  readonly warnings: readonly string[]
}

/** A whole trace in memory: `parseArtTrace` output. */
export interface ArtTrace extends ArtTraceInfo {
  readonly records: readonly ArtTraceRecord[]
}
