/** Error codes of the external power-meter parsers (docs/formats/meter.md). */
export const MeterErrors = {
  /** The text is none of the supported meter formats. */
  UNKNOWN_FORMAT: 'E_METER_UNKNOWN_FORMAT',
  /** A CSV header lacks a time column or a current/power column. */
  MISSING_COLUMN: 'E_METER_MISSING_COLUMN',
  /** A CSV column's unit is missing or unsupported (e.g. `Main Avg Current` without `(mA)`). */
  UNKNOWN_UNIT: 'E_METER_UNKNOWN_UNIT',
  /** A data row has the wrong number of fields or a non-numeric value (truncated or corrupted). */
  BAD_ROW: 'E_METER_BAD_ROW',
  /** The file has no voltage and no `nominalVoltageV` was given, so power cannot be computed. */
  NO_VOLTAGE: 'E_METER_NO_VOLTAGE',
  /** A timestamp is not after the previous one. */
  TIME_NOT_INCREASING: 'E_METER_TIME_NOT_INCREASING',
  /** The file has a header but no samples. */
  EMPTY: 'E_METER_EMPTY',
} as const satisfies Record<string, `E_${string}`>
