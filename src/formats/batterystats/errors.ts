/** Error codes of the batterystats parsers (documented in docs/formats/batterystats.md). */
export const BatterystatsErrors = {
  /** A checkin line does not start with `<version>,<uid>,<category>,<type>`. */
  CHECKIN_NOT_CHECKIN: 'E_BATTERYSTATS_CHECKIN_NOT_CHECKIN',
  /** A known checkin row (`vers`, `uid`, `pws`, `pwi`) has too few fields. */
  CHECKIN_SHORT_ROW: 'E_BATTERYSTATS_CHECKIN_SHORT_ROW',
  /** A numeric field of a known checkin row is not a number. */
  CHECKIN_BAD_NUMBER: 'E_BATTERYSTATS_CHECKIN_BAD_NUMBER',
  /** A history line's time token (`0`, `+1m02s345ms`) is malformed. */
  HISTORY_BAD_TIME: 'E_BATTERYSTATS_HISTORY_BAD_TIME',
  /** The input has no battery history lines at all. */
  HISTORY_NOT_FOUND: 'E_BATTERYSTATS_HISTORY_NOT_FOUND',
  /** A bugreport (or all-services `dumpsys`) without a `DUMP OF SERVICE batterystats:` section. */
  BUGREPORT_NO_BATTERYSTATS: 'E_BATTERYSTATS_BUGREPORT_NO_BATTERYSTATS',
  /** A line the parser reads is longer than 1 MiB (`MAX_LINE_LENGTH`). */
  LINE_TOO_LONG: 'E_BATTERYSTATS_LINE_TOO_LONG',
} as const satisfies Record<string, `E_${string}`>

/** Warning codes the history parser puts in `BatteryHistory.warnings`. */
export const BatterystatsWarnings = {
  /** The history section ended at an unindented line that is neither blank nor a continuation. */
  HISTORY_CUT: 'W_BATTERYSTATS_HISTORY_CUT',
  /** Time on battery from the history disagrees with the dump's own `Time on battery:`. */
  HISTORY_INCOMPLETE: 'W_BATTERYSTATS_HISTORY_INCOMPLETE',
} as const satisfies Record<string, `W_${string}`>
