// The energy matchers' signatures, shared by the Vitest and Jest augmentations.
import type { BudgetOptions } from './_options.js'
import type { RegressionOptions } from './toNotRegressFrom.js'

export interface EnergyMatchers<R = unknown> {
  /** Energy (joules, net by default) strictly below `joules`. */
  toConsumeLessThan(joules: number, options?: BudgetOptions): R
  /** Energy (joules, net by default) at or below `joules`. */
  toConsumeAtMost(joules: number, options?: BudgetOptions): R
  /** Average power (watts) over the window strictly below `watts`. */
  toDrawLessThan(watts: number, options?: BudgetOptions): R
  /** Share of the battery's capacity strictly below `percent` (0–100). */
  toUseLessThanPercentOfBattery(
    percent: number,
    options?: Pick<BudgetOptions, 'stat' | 'inconclusive'>,
  ): R
  /** Repeated windows do not use significantly more energy than `baseline` (Mann–Whitney). */
  toNotRegressFrom(baseline: unknown, options?: RegressionOptions): R
  /**
   * Net energy at or below the current test's budget in `energy-budgets.json` (by test file, full
   * name and device model). Passes in update mode (`vitest -u`, VITEST_ENERGY_UPDATE=1).
   */
  toStayWithinBudget(options?: Pick<BudgetOptions, 'stat' | 'inconclusive'>): R
  /** The spectrum classifier coloured this method green. */
  toBeGreen(): R
  /** The spectrum classifier coloured this method red. */
  toBeRed(): R
}
