/**
 * `vitest-energy` (worker side): the `test` with energy fixtures, and Vitest's `expect` with the
 * energy matchers registered.
 */
import { expect } from 'vitest'
import { energyMatchers } from '../../matchers/index.js'

expect.extend(energyMatchers)

export { expect }
export { test } from '../vitest/fixtures.js'
export type { EnergyApi, RepeatOptions } from '../session/test-energy.js'
export { EnergyRun, RepeatedEnergyRun } from '../session/run.js'
export type { MissingMethod } from '../session/run.js'
export { configureEnergyMatchers, energyMatchers } from '../../matchers/index.js'
export type { BudgetOptions, RegressionOptions, Scope, Stat } from '../../matchers/index.js'
export type {
  EnergyResult,
  EnergyWarning,
  MeasuredEnergyResult,
  MethodEnergy,
  TestEnergyMeta,
} from '../model/index.js'
export { EnergyError, isEnergyError } from '../model/index.js'
