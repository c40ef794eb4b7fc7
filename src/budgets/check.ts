/**
 * The automatic budget check after each test (`checkBudgets: true`): the test's net energy against
 * its budget, failing the test with an EnergyError when it is over or undecided.
 */
import {
  EnergyError,
  formatJoules,
  formatJoulesWithInterval,
  type EnergyResult,
} from '../model/index.js'
import { BudgetErrors } from './errors.js'
import { lookupBudget } from './file.js'
import { testBudgetFigure } from './figure.js'
import { budgetFileKey, readBudgetFile, resolveBudgetsFile, updateCommand } from './load.js'
import { decide } from './verdict.js'

export interface TestBudgetCheck {
  /** Absolute path of the test file. */
  readonly testPath: string
  /** Full test name (` > `-joined). */
  readonly name: string
  /** `budgets` option. @default 'energy-budgets.json' in the project root */
  readonly budgetsFile?: string
  /** How to treat a budget inside the figure's interval. @default 'fail' */
  readonly inconclusive?: 'fail' | 'warn'
}

/**
 * Checks one test. Returns what was decided (`none` when the test measured nothing or has no
 * budget: the reporter lists those); throws E_BUDGET_EXCEEDED / E_BUDGET_INCONCLUSIVE.
 */
export function checkTestBudget(
  results: readonly EnergyResult[],
  check: TestBudgetCheck,
): 'within' | 'none' | 'inconclusive' {
  const figure = testBudgetFigure(results)
  if (figure === undefined) return 'none'
  const path = resolveBudgetsFile(check.testPath, check.budgetsFile)
  const file = budgetFileKey(path, check.testPath)
  const found = lookupBudget(readBudgetFile(path), {
    file,
    name: check.name,
    ...(figure.device === undefined ? {} : { device: figure.device }),
  })
  if (found === undefined) return 'none'
  const decision = decide(figure.valueJ, found.entry.energyJ, figure.intervalJ, false, figure.n)
  if (decision.verdict === 'within') return 'within'
  const details = { file, test: check.name, budgetJ: found.entry.energyJ, valueJ: figure.valueJ }
  if (decision.verdict === 'over') {
    throw new EnergyError({
      code: BudgetErrors.EXCEEDED,
      message: `${file} › ${check.name} used ${formatJoulesWithInterval(figure.valueJ, figure.intervalJ)}, over its budget of ${formatJoules(found.entry.energyJ)}`,
      hint: `Find the regression (the reporter lists the top methods), or, if the increase is intended, run \`${updateCommand(process.env)}\` and commit the new budget.`,
      details,
    })
  }
  if ((check.inconclusive ?? 'fail') === 'warn') return 'inconclusive'
  const more = decision.moreRepetitions
  throw new EnergyError({
    code: BudgetErrors.INCONCLUSIVE,
    message: `${file} › ${check.name}: the budget ${formatJoules(found.entry.energyJ)} lies inside the 95% interval of ${formatJoulesWithInterval(figure.valueJ, figure.intervalJ)}; inconclusive: ${more !== undefined && Number.isFinite(more) ? `${more} more repetitions would decide` : 'no number of repetitions would decide'}`,
    hint: "Measure with energy.repeat(n, …) to narrow the interval, or set `inconclusive: 'warn'`.",
    details,
  })
}
