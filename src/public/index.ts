/**
 * `vitest-energy` (worker side): the `test` with energy fixtures (with `describe` and the hooks),
 * and Vitest's `expect` with the energy matchers registered.
 */
import { type afterAll as vitestAfterAll, type beforeAll as vitestBeforeAll, expect } from 'vitest'
import { energyMatchers } from '../../matchers/index.js'
import { test, type WorkerFixtures } from '../vitest/fixtures.js'

expect.extend(energyMatchers)

export { expect }
export { test }
/**
 * Vitest's `describe`, `it` and hooks, from the energy `test`: typed so that `beforeEach`/`afterEach`
 * receive the fixtures (`driver`, `energy`, `device`) and `beforeAll`/`afterAll` the per-worker ones
 * (`driver`, `device`). The suite hooks find the fixtures through `this`, hence bound.
 */
export const { describe, beforeEach, afterEach } = test
export const beforeAll: typeof vitestBeforeAll<WorkerFixtures> = test.beforeAll.bind(test)
export const afterAll: typeof vitestAfterAll<WorkerFixtures> = test.afterAll.bind(test)
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
export { runsFromReport } from '../../reporter/earlier-run.js'
export type { EarlierRuns, RunsFromReportOptions } from '../../reporter/earlier-run.js'
