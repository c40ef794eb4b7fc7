/** Error codes of the Perfetto trace decoder/encoder and text-config parser (docs/formats/perfetto.md). */
export const PerfettoErrors = {
  /**
   * The bytes are not a binary Perfetto `Trace`, gzipped or not (e.g. textproto, systrace text,
   * a gzip that does not gunzip, perf.data, ART trace).
   */
  NOT_A_TRACE: 'E_PERFETTO_NOT_A_TRACE',
  /** The trace ends inside a packet. */
  TRUNCATED: 'E_PERFETTO_TRUNCATED',
  /** A packet does not decode as `TracePacket`. */
  CORRUPT: 'E_PERFETTO_CORRUPT',
  /**
   * A power packet's timestamp uses a clock the model cannot name (sequence-scoped clock ids), or an
   * ftrace bundle on a non-boot ftrace clock has no timestamp pair to map it to boottime.
   */
  UNSUPPORTED_CLOCK: 'E_PERFETTO_UNSUPPORTED_CLOCK',
  /** A 64-bit value does not fit a JavaScript safe integer. */
  UNSAFE_INTEGER: 'E_PERFETTO_UNSAFE_INTEGER',
  /** sched_switch events of one CPU go back in time (within a bundle or from one bundle to the next). */
  SCHED_ORDER: 'E_PERFETTO_SCHED_ORDER',
  /**
   * Scheduler data is inconsistent: `compact_sched` arrays of different lengths, a comm index
   * outside its intern table, a bundle without a CPU, an event without a timestamp.
   */
  SCHED_CORRUPT: 'E_PERFETTO_SCHED_CORRUPT',
  /** The encoder was given values it cannot write (negative energy, non-integer index, ...). */
  ENCODE_INPUT: 'E_PERFETTO_ENCODE_INPUT',
  /** Text config: a token or bracket is out of place. */
  CONFIG_SYNTAX: 'E_PERFETTO_CONFIG_SYNTAX',
  /** Text config: a known field holds a value of the wrong type. */
  CONFIG_VALUE: 'E_PERFETTO_CONFIG_VALUE',
  /** Text config: messages nested deeper than 100 levels (a real config nests about five). */
  CONFIG_TOO_DEEP: 'E_PERFETTO_CONFIG_TOO_DEEP',
  /**
   * Inflating the trace (gzip, `compressed_packets`) would exceed the limit on inflated bytes
   * (`maxInflatedBytes`; default the larger of 256 MiB and 64× the input read so far).
   */
  INFLATE_LIMIT: 'E_PERFETTO_INFLATE_LIMIT',
} as const satisfies Record<string, `E_${string}`>
