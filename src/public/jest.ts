/**
 * `vitest-energy/jest` (Jest 30): the Jest typings — the energy matchers on `expect` (`expect`
 * module and `jest.Matchers`) and the test environment's globals `energy`, `driver`, `device` —
 * loaded by importing it, and the matcher object and `recordEnergy()` for suites that measure
 * without the vitest-energy test environment:
 *
 *   import { expect } from '@jest/globals'
 *   import { energyMatchers } from 'vitest-energy/jest'
 *   expect.extend(energyMatchers)
 */
import '../../matchers/jest-types.js'
import '../jest/globals.js'

export { configureEnergyMatchers, energyMatchers } from '../../matchers/index.js'
export { recordEnergy } from '../../reporter/jest-side-files.js'
export { runsFromReport } from '../../reporter/earlier-run.js'
export type { EarlierRuns, RunsFromReportOptions } from '../../reporter/earlier-run.js'
export type { JestEnergyReporterOptions } from '../../reporter/jest.js'
export type {
  BudgetOptions,
  EnergyMatcherSettings,
  RegressionOptions,
  Scope,
  Stat,
} from '../../matchers/index.js'
export type { EnergyMatchers } from '../../matchers/jest-types.js'
export type { EnergyApi, RepeatOptions } from '../session/test-energy.js'
export type { EnergyRun, MissingMethod, RepeatedEnergyRun } from '../session/run.js'
