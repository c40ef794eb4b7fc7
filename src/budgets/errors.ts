/** Error codes of the budget file and budget checks (documented in docs/budgets.md). */
import type { EnergyErrorCode } from '../model/index.js'

export const BudgetErrors = {
  /**
   * `energy-budgets.json` is not valid JSON or not a budget file of a known schema version;
   * `details`: `file`, `line`, `column` (1-based) and, for a malformed value, its JSON `path`.
   */
  FILE_INVALID: 'E_BUDGET_FILE_INVALID',
  /** The budget file could not be read or written (permissions, a directory in the way). */
  FILE_IO: 'E_BUDGET_FILE_IO',
  /** A test's energy is over its budget (automatic check, `checkBudgets: true`). */
  EXCEEDED: 'E_BUDGET_EXCEEDED',
  /** The budget lies inside the figure's 95% interval (automatic check). */
  INCONCLUSIVE: 'E_BUDGET_INCONCLUSIVE',
} as const satisfies Record<string, EnergyErrorCode>
