/**
 * Error codes of the attribution area. Every failure is an `EnergyError` with one of these codes, a
 * message naming the input (`details.format`) and the index of the offending reading, and a hint.
 */
import { EnergyError, type EnergyErrorDetails } from '../model/errors.js'

export const AttributionErrors = {
  /** The energy window is empty or ends before it starts. */
  EMPTY_WINDOW: 'E_ATTR_EMPTY_WINDOW',
  /** A power series or rail has too few readings to integrate. */
  TOO_FEW_SAMPLES: 'E_ATTR_TOO_FEW_SAMPLES',
  /** Timestamps are not strictly increasing. */
  UNSORTED: 'E_ATTR_UNSORTED',
  /** A timestamp, power or energy value is NaN or infinite. */
  NOT_FINITE: 'E_ATTR_NOT_FINITE',
  /** A cumulative energy counter went backwards (counter reset or wrap inside the window). */
  COUNTER_RESET: 'E_ATTR_COUNTER_RESET',
  /** The window (or the idle window) reaches outside the time the power data covers. */
  WINDOW_NOT_COVERED: 'E_ATTR_WINDOW_NOT_COVERED',
  /** Inputs are on different clocks; attribution only accepts data already mapped onto one clock. */
  CLOCK_MISMATCH: 'E_ATTR_CLOCK_MISMATCH',
  /** An attribution option is out of range. */
  INVALID_OPTION: 'E_ATTR_INVALID_OPTION',
  /** A method trace is inconsistent (a call ends before it starts, bad nesting). */
  BAD_TRACE: 'E_ATTR_BAD_TRACE',
  /** The regression design cannot identify every method: too few or collinear windows. */
  RANK_DEFICIENT: 'E_ATTR_RANK_DEFICIENT',
} as const

export type AttributionErrorCode = (typeof AttributionErrors)[keyof typeof AttributionErrors]

export function attributionError(
  code: AttributionErrorCode,
  message: string,
  hint: string,
  details?: EnergyErrorDetails,
  cause?: unknown,
): EnergyError {
  return new EnergyError({
    code,
    message,
    hint,
    ...(details === undefined ? {} : { details }),
    ...(cause === undefined ? {} : { cause }),
  })
}
