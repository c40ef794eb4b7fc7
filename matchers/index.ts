/**
 * The energy matchers: one object for both Vitest's and Jest's `expect.extend`.
 *
 *   import { energyMatchers } from 'vitest-energy/matchers'
 *   expect.extend(energyMatchers)
 */
import './vitest-types.js'
import { toBeGreen, toBeRed } from './toBeGreen.js'
import { toConsumeAtMost } from './toConsumeAtMost.js'
import { toConsumeLessThan } from './toConsumeLessThan.js'
import { toDrawLessThan } from './toDrawLessThan.js'
import { toNotRegressFrom } from './toNotRegressFrom.js'
import { toStayWithinBudget } from './toStayWithinBudget.js'
import { toUseLessThanPercentOfBattery } from './toUseLessThanPercentOfBattery.js'

export const energyMatchers = {
  toConsumeLessThan,
  toConsumeAtMost,
  toDrawLessThan,
  toUseLessThanPercentOfBattery,
  toNotRegressFrom,
  toStayWithinBudget,
  toBeGreen,
  toBeRed,
}

export type { BudgetOptions } from './_options.js'
export { configureEnergyMatchers } from './_options.js'
export type { EnergyMatcherSettings } from './_options.js'
export type { Scope, Stat } from './_subject.js'
export type { RegressionOptions } from './toNotRegressFrom.js'
