/** Error codes of the Jest adapter (docs/errors.md). */
import type { EnergyErrorCode } from '../model/index.js'

export const JestErrors = {
  /** The test environment ran without the global setup's run (no phones to lease). */
  SETUP_MISSING: 'E_JEST_SETUP_MISSING',
  /** `energy.measure()` / `repeat()` / `baseline()` outside a test (a phone is leased per test). */
  OUTSIDE_TEST: 'E_ENERGY_OUTSIDE_TEST',
  /** Two tests of one file ran at once (`test.concurrent`): one phone measures one test at a time. */
  CONCURRENT: 'E_JEST_CONCURRENT_TEST',
} as const satisfies Record<string, EnergyErrorCode>
