/** Options shared by the energy-budget matchers, and the process-wide defaults. */
import type { Scope, Stat } from './_subject.js'

export interface BudgetOptions {
  /** Which part of the window the budget applies to. @default 'net' */
  readonly scope?: Scope
  /** Over repeated windows: the mean (default), the median, or the upper bound of the mean's 95% interval. */
  readonly stat?: Stat
  /**
   * What to do when the budget lies inside the figure's 95% interval: fail with
   * "inconclusive: N more repetitions would decide", or decide by the point estimate and warn.
   * @default 'fail'
   */
  readonly inconclusive?: 'fail' | 'warn'
}

/** Process-wide matcher settings (the plugin sets them from config; Jest users call it in setup). */
export interface EnergyMatcherSettings {
  /** @default 'fail' */
  readonly inconclusive?: 'fail' | 'warn'
  /**
   * Budget file for `toStayWithinBudget()`: absolute, or relative to the project root (found by
   * walking up from the test file). @default 'energy-budgets.json'
   */
  readonly budgetsFile?: string
  /**
   * `true`: update mode, `toStayWithinBudget()` passes and the reporter writes budgets from
   * measurements (as `-u`); `false`: a missing budget fails (as in CI). @default the runner's
   * snapshot update mode: `-u` or VITEST_ENERGY_UPDATE=1 update; `new` (outside CI) passes a test
   * without a budget and the reporter writes it; `none` (CI) fails it
   */
  readonly updateBudgets?: boolean
}

let defaults: EnergyMatcherSettings & Required<Pick<EnergyMatcherSettings, 'inconclusive'>> = {
  inconclusive: 'fail',
}

/** Sets defaults for every energy matcher in this process (the plugin calls it from config). */
export function configureEnergyMatchers(options: EnergyMatcherSettings): void {
  defaults = { ...defaults, ...options }
}

export function matcherSettings(): EnergyMatcherSettings {
  return defaults
}

export function inconclusiveMode(options: BudgetOptions | undefined): 'fail' | 'warn' {
  return options?.inconclusive ?? defaults.inconclusive
}
