/**
 * `expect(run).toStayWithinBudget()`: the run's net energy at or below the current test's budget
 * in `energy-budgets.json` (looked up by test file, full test name and device model). Budgets
 * follow the runner's snapshot update mode: with `-u` (or VITEST_ENERGY_UPDATE=1) it passes and
 * the reporter rewrites the budgets; in `new` mode (the default outside CI) a test without a
 * budget passes and the reporter writes its budget; in `none` (CI) a missing budget fails.
 */
import { basename } from 'node:path'
import { formatJoules } from '../src/model/index.js'
import {
  ANY_DEVICE,
  budgetFileKey,
  budgetReporterHint,
  budgetUpdateMode,
  lookupBudget,
  readBudgetFile,
  resolveBudgetsFile,
  updateCommand,
  type BudgetWriter,
} from '../src/budgets/index.js'
import { checkLimit, type MatcherContext, type MatcherResult } from './_budget.js'
import {
  matcherSettings,
  optionsMistake,
  REPEATED_OPTION_RULES,
  type BudgetOptions,
} from './_options.js'
import { recordBudgetRequest } from './_record.js'
import { energyFigure, isUnjudgeable, resolveSubject, type Subject } from './_subject.js'

/** What Vitest's and Jest's matcher state offer about the current test. */
interface TestState extends MatcherContext {
  readonly testPath?: string
  readonly currentTestName?: string
}

/**
 * Both runners keep their snapshot update mode (`all` with `-u`, `new`, `none` in CI) in the
 * snapshot state's (private) `_updateSnapshot` field.
 */
function snapshotUpdateMode(state: object): string | undefined {
  const snapshot = (state as { snapshotState?: { _updateSnapshot?: unknown } }).snapshotState
  const mode = snapshot?._updateSnapshot
  return typeof mode === 'string' ? mode : undefined
}

export function toStayWithinBudget(
  this: TestState,
  received: unknown,
  options?: Pick<BudgetOptions, 'stat' | 'inconclusive'>,
): MatcherResult {
  const hint = `expect(received)${this.isNot ? '.not' : ''}.toStayWithinBudget()`
  const fail = (why: string): MatcherResult => ({
    pass: this.isNot,
    message: () => `${hint}\n\n${why}`,
  })
  const wrongOption = optionsMistake(options, REPEATED_OPTION_RULES, 'toStayWithinBudget')
  if (wrongOption !== undefined) return fail(wrongOption.message)
  const { testPath, currentTestName } = this
  if (testPath === undefined || currentTestName === undefined) {
    return fail(
      'the current test is unknown (expect.getState() has no testPath/currentTestName); call it inside a test',
    )
  }
  const settings = matcherSettings()
  const mode = budgetUpdateMode(process.env, snapshotUpdateMode(this), settings.updateBudgets)
  const subject = resolveSubject(received)
  if (isUnjudgeable(subject)) return fail(subject.reason)
  const writer = recordBudgetRequest(this)
  const passes = (why: string): MatcherResult => ({
    pass: !this.isNot,
    message: () => `${hint}\n\n${why}`,
  })
  if (mode === 'all' || mode === 'rewrite') {
    // `-u` in a run the fixture knows writes no budgets: passing would hide that. Outside the
    // fixture (results built by hand) nobody can tell, and an explicit `updateBudgets: true` is
    // the caller's own arrangement.
    if (writer === undefined || writer === 'writes' || settings.updateBudgets !== undefined)
      return passes(
        "update mode: the reporter writes this test's budget (with `-u`, only when it has none or its measurement no longer fits it)",
      )
    return fail(
      `update mode, but ${
        writer === 'absent'
          ? `this run has no energy reporter to write the budget of ${currentTestName}: ${budgetReporterHint(process.env)}`
          : `the energy reporter runs with \`updateBudgets: false\` (it checks budgets and writes none), so nothing writes the budget of ${currentTestName}: remove that option`
      }, then review and commit energy-budgets.json.`,
    )
  }
  const budgetsPath = resolveBudgetsFile(testPath, settings.budgetsFile)
  let budgets
  try {
    budgets = readBudgetFile(budgetsPath)
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error))
  }
  const device = deviceOf(subject)
  const key = {
    file: budgetFileKey(budgetsPath, testPath),
    name: currentTestName,
    ...(device === undefined ? {} : { device }),
  }
  const found = lookupBudget(budgets, key)
  const where = `${key.file} › ${key.name}${device === undefined ? '' : ` [${device}]`}`
  if (found === undefined) {
    if (mode === 'new' && writer === 'writes') {
      return passes(
        `no budget for ${where} in ${budgetsPath} yet: the reporter writes one from this measurement (a new budget, as for a new snapshot).`,
      )
    }
    // Passing in `new` mode would leave the test unbudgeted on every run, until CI fails it.
    return fail(`no budget for ${where} in ${budgetsPath}.\n${howToWrite(mode, writer)}`)
  }
  return checkLimit(this, received, {
    matcherName: 'toStayWithinBudget',
    strict: false,
    limit: found.entry.energyJ,
    format: formatJoules,
    unit: 'J',
    scope: 'net',
    figure: (s) => energyFigure(s, 'net', options?.stat),
    note: `Budget:   ${formatJoules(found.entry.energyJ)} for ${where}${found.device === ANY_DEVICE && device !== undefined ? ' (any device)' : ''}${found.entry.measuredEnergyJ === undefined ? '' : `, written from ${formatJoules(found.entry.measuredEnergyJ)}`}`,
    optionRules: REPEATED_OPTION_RULES,
    whenOver: `If the increase is intended, run \`${updateCommand(process.env)}\` to update this budget, then review and commit ${basename(budgetsPath)}.`,
    ...(options === undefined ? {} : { options }),
  })
}

/**
 * How to write a missing budget, after "no budget for …", as the run is: in CI (`none`), or in
 * `new` mode where nothing will write it — no energy reporter, one with `updateBudgets: false`, or
 * results made outside the fixture (which `new` mode never writes).
 */
function howToWrite(mode: 'new' | 'none', writer: BudgetWriter | undefined): string {
  const run = `Run \`${updateCommand(process.env)}\` (or VITEST_ENERGY_UPDATE=1)`
  const then = 'then review and commit the file.'
  if (writer === 'absent')
    return mode === 'new'
      ? `Outside CI a missing budget is written at the end of the run by the energy reporter, but this run has no energy reporter: ${budgetReporterHint(process.env)}, ${then}`
      : `${run} with the energy reporter to write one from this measurement (this run has no energy reporter: ${budgetReporterHint(process.env)}), ${then}`
  if (writer === 'off')
    return `The energy reporter runs with \`updateBudgets: false\`: it checks budgets and writes none. ${run} without that option to write one from this measurement, ${then}`
  if (writer === undefined && mode === 'new')
    return `Outside the energy fixture (Jest: its test environment) the runner's \`new\` mode cannot tell that this test asks for a budget, and writes none. ${run} to write one from this measurement, ${then}`
  return `${run} to write one from this measurement, ${then}`
}

function deviceOf(subject: Subject): string | undefined {
  if (subject.kind === 'window') return subject.result.device?.model
  if (subject.kind === 'repeated') return subject.runs[0]?.device?.model
  return undefined
}
