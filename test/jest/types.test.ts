// Type tests for the Jest typings (matchers/jest-types.ts, src/jest/globals.ts): the `expect`
// package's Matchers, which `import { expect } from '@jest/globals'` returns, gain every energy
// matcher; the test environment's globals have their types.
import type { expect as jestExpect } from '@jest/globals'
import { expectTypeOf, test } from 'vitest'
import type { BudgetOptions, RegressionOptions } from '../../matchers/index.js'
import type {} from '../../matchers/jest-types.js'
import type { EnergyRun, RepeatedEnergyRun } from '../../src/public/jest.js'

type JestAssertion = ReturnType<typeof jestExpect>

test('Jest expect() has the energy matchers with their parameters', () => {
  expectTypeOf<JestAssertion['toConsumeLessThan']>().parameters.toEqualTypeOf<
    [joules: number, options?: BudgetOptions]
  >()
  expectTypeOf<JestAssertion['toConsumeAtMost']>().returns.toBeVoid()
  expectTypeOf<JestAssertion['toDrawLessThan']>().parameters.toEqualTypeOf<
    [watts: number, options?: BudgetOptions]
  >()
  expectTypeOf<JestAssertion['toUseLessThanPercentOfBattery']>().toBeFunction()
  expectTypeOf<JestAssertion['toNotRegressFrom']>().parameters.toEqualTypeOf<
    [baseline: unknown, options?: RegressionOptions]
  >()
  expectTypeOf<JestAssertion['toStayWithinBudget']>().parameters.toEqualTypeOf<
    [options?: Pick<BudgetOptions, 'stat' | 'inconclusive'>]
  >()
  expectTypeOf<JestAssertion['not']['toBeRed']>().parameters.toEqualTypeOf<[]>()
  expectTypeOf<JestAssertion['toBeGreen']>().parameters.toEqualTypeOf<[]>()
  expectTypeOf<jest.Matchers<void>['toConsumeLessThan']>().returns.toBeVoid()
  // @ts-expect-error not a matcher
  expectTypeOf<JestAssertion['toConsumeMoreThan']>().toBeFunction()
})

test('the environment’s globals: energy, driver, device', () => {
  expectTypeOf<typeof energy.measure>().returns.resolves.toEqualTypeOf<EnergyRun>()
  expectTypeOf<typeof energy.repeat>().returns.resolves.toEqualTypeOf<RepeatedEnergyRun>()
  expectTypeOf<typeof energy.baseline>().parameters.toEqualTypeOf<
    [options?: { readonly durationMs?: number }]
  >()
  expectTypeOf<typeof driver.$>().toBeFunction()
  expectTypeOf<typeof device.shell>().returns.resolves.toBeString()
})
