/** Error codes of the statistics core (`src/stats`). Each is thrown as an `EnergyError`. */
import type { EnergyErrorCode } from '../model/index.js'

export const StatsErrors = {
  /** A statistic was asked of an empty sample. */
  EMPTY_SAMPLES: 'E_STATS_EMPTY_SAMPLES',
  /** The statistic needs more observations than were given (e.g. an SD of one run). */
  TOO_FEW_SAMPLES: 'E_STATS_TOO_FEW_SAMPLES',
  /** A sample contained NaN or ±Infinity. */
  NON_FINITE: 'E_STATS_NON_FINITE',
  /** An argument is out of its domain (a probability outside (0, 1), a negative count, …). */
  INVALID_ARGUMENT: 'E_STATS_INVALID_ARGUMENT',
  /** The regression design matrix has collinear columns or columns that never vary. */
  RANK_DEFICIENT: 'E_STATS_RANK_DEFICIENT',
  /** Design matrix and response do not have matching shapes. */
  SHAPE_MISMATCH: 'E_STATS_SHAPE_MISMATCH',
} as const satisfies Record<string, EnergyErrorCode>
