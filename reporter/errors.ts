/** Error codes of the reporter (documented in docs/reporter.md). */
import type { EnergyErrorCode } from '../src/model/index.js'

export const ReporterErrors = {
  /** The `baseline` report cannot be read, is not JSON, or is not an energy report of a known version. */
  BASELINE_INVALID: 'E_REPORT_BASELINE_INVALID',
  /** A reporter option has the wrong type or value. */
  INVALID_OPTION: 'E_REPORT_INVALID_OPTION',
} as const satisfies Record<string, EnergyErrorCode>
