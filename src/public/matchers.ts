/**
 * `vitest-energy/matchers`: the matcher object for `expect.extend`, in Vitest or Jest:
 *
 *   import { energyMatchers } from 'vitest-energy/matchers'
 *   expect.extend(energyMatchers)
 */
export { configureEnergyMatchers, energyMatchers } from '../../matchers/index.js'
export type {
  BudgetOptions,
  EnergyMatcherSettings,
  RegressionOptions,
  Scope,
  Stat,
} from '../../matchers/index.js'
