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

let defaults: Required<Pick<BudgetOptions, 'inconclusive'>> = { inconclusive: 'fail' }

/** Sets defaults for every energy matcher in this process (the plugin calls it from config). */
export function configureEnergyMatchers(options: Pick<BudgetOptions, 'inconclusive'>): void {
  defaults = { ...defaults, ...options }
}

export function inconclusiveMode(options: BudgetOptions | undefined): 'fail' | 'warn' {
  return options?.inconclusive ?? defaults.inconclusive
}
