/** Error codes of the ART method trace reader and writer (docs/formats/art-trace.md#errors). */
export const ArtTraceErrors = {
  /** The input is not an ART method trace at all (no `*version` text, no `SLOW` magic). */
  NOT_ART_TRACE: 'E_ART_TRACE_NOT_A_TRACE',
  /** The text key section is malformed (missing section, bad line, bad method id). */
  BAD_HEADER: 'E_ART_TRACE_BAD_HEADER',
  /** The binary section does not start with the `SLOW` magic. */
  BAD_MAGIC: 'E_ART_TRACE_BAD_MAGIC',
  /** Binary version other than 1, 2, 3 (or 4/5, see `V2_FORMAT`). */
  UNSUPPORTED_VERSION: 'E_ART_TRACE_UNSUPPORTED_VERSION',
  /** The newer "V2" method trace format (versions 4/5, LEB128 blocks): not supported yet. */
  V2_FORMAT: 'E_ART_TRACE_V2_FORMAT',
  /** Record size in the header is impossible for the version/clock. */
  BAD_RECORD_SIZE: 'E_ART_TRACE_BAD_RECORD_SIZE',
  /** The input ended in the middle of the header, a record or a control packet. */
  TRUNCATED: 'E_ART_TRACE_TRUNCATED',
  /** A record has action bits 3, which no ART or Dalvik version writes. */
  BAD_RECORD: 'E_ART_TRACE_BAD_RECORD',
  /** A streaming control packet has an unknown opcode, or data follows the summary. */
  BAD_PACKET: 'E_ART_TRACE_BAD_PACKET',
  /** An exit does not match the method on top of its thread's stack (dmtracedump aborts too). */
  MISMATCHED_EXIT: 'E_ART_TRACE_MISMATCHED_EXIT',
  /** The writer was given input it cannot encode (thread id too large, dual clock in v1, …). */
  INVALID_WRITE: 'E_ART_TRACE_INVALID_WRITE',
  /** `vitest-energy trace`: the file does not exist or cannot be read. */
  FILE_UNREADABLE: 'E_ART_TRACE_FILE_UNREADABLE',
  /** A `--thread` / `thread` filter names no thread of the trace. */
  UNKNOWN_THREAD: 'E_ART_TRACE_UNKNOWN_THREAD',
} as const

export type ArtTraceErrorCode = (typeof ArtTraceErrors)[keyof typeof ArtTraceErrors]
