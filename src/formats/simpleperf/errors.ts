/** Error codes of the simpleperf report-sample parsers and writers (docs/formats/simpleperf.md). */
export const SimpleperfErrors = {
  /** The input is a raw `perf.data` recording (`PERFILE2`), not `report-sample` output. */
  PERF_DATA: 'E_SIMPLEPERF_PERF_DATA',
  /** The input is neither report-sample text nor report-sample protobuf. */
  NOT_REPORT_SAMPLE: 'E_SIMPLEPERF_NOT_REPORT_SAMPLE',
  /** The input is perf-script text (`report_sample.py`, `perf script`), not report-sample output. */
  PERF_SCRIPT: 'E_SIMPLEPERF_PERF_SCRIPT',
  /** A text line is not `key: value` or a block header at a known indent. */
  TEXT_SYNTAX: 'E_SIMPLEPERF_TEXT_SYNTAX',
  /** A known text field holds a value of the wrong shape (e.g. `time: abc`). */
  TEXT_VALUE: 'E_SIMPLEPERF_TEXT_VALUE',
  /** A `sample:` block lacks a required field (time, thread_id, or the top frame). */
  INCOMPLETE_SAMPLE: 'E_SIMPLEPERF_INCOMPLETE_SAMPLE',
  /** Protobuf stream: the `SIMPLEPERF` magic or the version is wrong. */
  PROTO_HEADER: 'E_SIMPLEPERF_PROTO_HEADER',
  /** Protobuf stream: ends before the `LE32 0` terminator or inside a record. */
  TRUNCATED: 'E_SIMPLEPERF_TRUNCATED',
  /** Protobuf stream: a record does not decode as `Record`. */
  PROTO_CORRUPT: 'E_SIMPLEPERF_PROTO_CORRUPT',
  /** Protobuf stream: a sample refers to a file id or symbol id that no `File` record defines. */
  BAD_REFERENCE: 'E_SIMPLEPERF_BAD_REFERENCE',
  /** A 64-bit value (time, count) does not fit a JavaScript safe integer. */
  UNSAFE_INTEGER: 'E_SIMPLEPERF_UNSAFE_INTEGER',
  /** A clock name that simpleperf `--clockid` or the model does not know. */
  UNKNOWN_CLOCK: 'E_SIMPLEPERF_UNKNOWN_CLOCK',
  /** A writer was given data it cannot express (e.g. a sample with no frames). */
  WRITER_INPUT: 'E_SIMPLEPERF_WRITER_INPUT',
} as const satisfies Record<string, `E_${string}`>
