/** Error codes of the spectrum classifier (`src/classify`). Each is thrown as an `EnergyError`. */
import type { EnergyErrorCode } from '../model/index.js'

export const ClassifyErrors = {
  /** The spectrum JSON does not have the documented shape (details.path names the field). */
  INVALID_SPECTRUM: 'E_CLASSIFY_INVALID_SPECTRUM',
  /** The spectrum has no tests. */
  EMPTY_SPECTRUM: 'E_CLASSIFY_EMPTY_SPECTRUM',
  /** Two tests share an id. */
  DUPLICATE_TEST: 'E_CLASSIFY_DUPLICATE_TEST',
  /** `excessive` names a test id that is not in `tests`. */
  UNKNOWN_TEST: 'E_CLASSIFY_UNKNOWN_TEST',
  /** A method name is not `package.Class.method` (at least `Class.method`). */
  INVALID_METHOD_NAME: 'E_CLASSIFY_INVALID_METHOD_NAME',
  /** Preset or error-vector name is not one of the supported ones. */
  UNKNOWN_PRESET: 'E_CLASSIFY_UNKNOWN_PRESET',
  /** Error vector `budget` was chosen but no test carries a `budgetJ`. */
  NO_BUDGETS: 'E_CLASSIFY_NO_BUDGETS',
  /** Error vector `statistical` needs ≥ 2 repetitions per test. */
  NEEDS_REPETITIONS: 'E_CLASSIFY_NEEDS_REPETITIONS',
  /** The knowledge-base file does not exist or cannot be read. */
  KB_READ: 'E_CLASSIFY_KB_READ',
  /** The knowledge-base file is not valid JSON of the documented shape. */
  KB_INVALID: 'E_CLASSIFY_KB_INVALID',
  /** The knowledge-base file cannot be written. */
  KB_WRITE: 'E_CLASSIFY_KB_WRITE',
} as const satisfies Record<string, EnergyErrorCode>
