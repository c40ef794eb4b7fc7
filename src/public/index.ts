/**
 * `vitest-energy` (worker side): the `test` with energy fixtures (with `describe` and the hooks),
 * and Vitest's `expect` with the energy matchers registered.
 */
import { expect } from 'vitest'
import { energyMatchers } from '../../matchers/index.js'
import { test } from '../vitest/fixtures.js'

expect.extend(energyMatchers)

export { expect }
export { test }
/**
 * Vitest's `describe`, `it` and hooks, from the energy `test`: the same functions as Vitest's, typed
 * so that `beforeEach`/`afterEach` receive the fixtures (`driver`, `energy`, `device`).
 */
export const { describe, beforeEach, afterEach, beforeAll, afterAll } = test
export const it = test
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
