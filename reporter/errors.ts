/** Error codes of the reporter (documented in docs/reporter.md). */
import type { EnergyErrorCode } from '../src/model/index.js'

export const ReporterErrors = {
  /** The `baseline` report cannot be read, is not JSON, or is not an energy report of a known version. */
  BASELINE_INVALID: 'E_REPORT_BASELINE_INVALID',
  /**
   * An output (JSON report, sunburst hierarchy, markdown summary, HTML report) cannot be written;
   * or a Jest worker cannot write a test's side record (the test fails).
   */
  OUTPUT_IO: 'E_REPORT_OUTPUT_IO',
  /** `runsFromReport()`: the test is not in the earlier report, or measured nothing there. */
  TEST_NOT_FOUND: 'E_REPORT_TEST_NOT_FOUND',
  /** `recordEnergy()` was called outside a Jest test (no current test to attribute energy to). */
  JEST_NO_CURRENT_TEST: 'E_JEST_NO_CURRENT_TEST',
} as const satisfies Record<string, EnergyErrorCode>
