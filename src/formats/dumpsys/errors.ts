/** Error codes of the dumpsys battery / powerstats / power parsers (docs/formats/dumpsys.md). */
export const DumpsysErrors = {
  /** No `Current Battery Service state:` block in the input. */
  BATTERY_NOT_FOUND: 'E_DUMPSYS_BATTERY_NOT_FOUND',
  /** A known `dumpsys battery` field has a value of the wrong type (e.g. `level: abc`). */
  BATTERY_BAD_VALUE: 'E_DUMPSYS_BATTERY_BAD_VALUE',
  /** dumpsys printed that the service does not exist (`Can't find service: …`). */
  SERVICE_MISSING: 'E_DUMPSYS_SERVICE_MISSING',
  /** Neither a powerstats channel list nor a PowerStats HAL energy-meter table was found. */
  POWERSTATS_NOT_FOUND: 'E_DUMPSYS_POWERSTATS_NOT_FOUND',
  /** A powerstats line in a known section is malformed (bad id, bad number). */
  POWERSTATS_BAD_LINE: 'E_DUMPSYS_POWERSTATS_BAD_LINE',
  /** The energy-meter table started but its end marker is missing (truncated output). */
  POWERSTATS_TRUNCATED: 'E_DUMPSYS_POWERSTATS_TRUNCATED',
  /** No `Wake Locks: size=N` section in a `dumpsys power` dump. */
  POWER_WAKE_LOCKS_NOT_FOUND: 'E_DUMPSYS_POWER_WAKE_LOCKS_NOT_FOUND',
  /** Fewer wake lock lines than `size=N` announced, or a line of an unknown shape. */
  POWER_BAD_WAKE_LOCK: 'E_DUMPSYS_POWER_BAD_WAKE_LOCK',
} as const satisfies Record<string, `E_${string}`>
