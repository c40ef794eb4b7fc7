export { checkTestBudget } from './check.js'
export type { TestBudgetCheck } from './check.js'
export { BudgetErrors } from './errors.js'
export {
  ANY_DEVICE,
  BUDGET_SCHEMA_VERSION,
  emptyBudgetFile,
  lookupBudget,
  parseBudgetFile,
  serializeBudgetFile,
} from './file.js'
export type { BudgetEntry, BudgetFile, BudgetKey, BudgetTable } from './file.js'
export {
  budgetFromMeasurement,
  ceilSignificant,
  repetitionGroups,
  roundSignificant,
  testBudgetFigure,
} from './figure.js'
export type { BudgetFigure } from './figure.js'
export {
  BUDGET_WRITER_PROVIDE_KEY,
  DEFAULT_BUDGETS_FILE,
  budgetFileKey,
  budgetReporterHint,
  budgetUpdateMode,
  isUpdateRequested,
  providedBudgetWriter,
  readBudgetFile,
  resolveBudgetsFile,
  updateCommand,
  writeBudgetFile,
} from './load.js'
export type { BudgetUpdateMode, BudgetWriter } from './load.js'
export { addMissingBudgets, obsoleteBudgets, updateBudgets, writesBudget } from './update.js'
export type { BudgetObservation, BudgetRef, BudgetUpdate } from './update.js'
export { decide, moreRepetitionsToDecide } from './verdict.js'
export type { Decision, Verdict } from './verdict.js'
