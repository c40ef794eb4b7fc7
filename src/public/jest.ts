/**
 * `vitest-energy/jest` (Jest 30): the matcher object and the Jest typings (`expect` module and
 * `jest.Matchers` augmentation) in one import:
 *
 *   import { expect } from '@jest/globals'
 *   import { energyMatchers } from 'vitest-energy/jest'
 *   expect.extend(energyMatchers)
 */
import '../../matchers/jest-types.js'

export { configureEnergyMatchers, energyMatchers } from '../../matchers/index.js'
export { recordEnergy } from '../../reporter/jest-side-files.js'
export type { JestEnergyReporterOptions } from '../../reporter/jest.js'
export type {
  BudgetOptions,
  EnergyMatcherSettings,
  RegressionOptions,
  Scope,
  Stat,
} from '../../matchers/index.js'
export type { EnergyMatchers } from '../../matchers/jest-types.js'
