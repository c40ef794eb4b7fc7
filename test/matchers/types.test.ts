// Type tests for every matcher's Vitest typings (checked by `tsc --noEmit`; the runtime
// assertions make sure each @ts-expect-error line is also rejected at run time).
import { describe, expect, expectTypeOf, test } from 'vitest'
import {
  energyMatchers,
  type BudgetOptions,
  type RegressionOptions,
  type Scope,
  type Stat,
} from '../../matchers/index.js'

expect.extend(energyMatchers)

const anything: unknown = {}
const a = expect(anything)

describe('matcher typings (Vitest Matchers<T> augmentation)', () => {
  test('every matcher is on expect(), with its parameters', () => {
    expectTypeOf(a.toConsumeLessThan).parameters.toEqualTypeOf<
      [joules: number, options?: BudgetOptions]
    >()
    expectTypeOf(a.toConsumeAtMost).parameters.toEqualTypeOf<
      [joules: number, options?: BudgetOptions]
    >()
    expectTypeOf(a.toDrawLessThan).parameters.toEqualTypeOf<
      [watts: number, options?: BudgetOptions]
    >()
    expectTypeOf(a.toUseLessThanPercentOfBattery).parameters.toEqualTypeOf<
      [percent: number, options?: Pick<BudgetOptions, 'stat' | 'inconclusive'>]
    >()
    expectTypeOf(a.toNotRegressFrom).parameters.toEqualTypeOf<
      [baseline: unknown, options?: RegressionOptions]
    >()
    expectTypeOf(a.toStayWithinBudget).parameters.toEqualTypeOf<
      [options?: Pick<BudgetOptions, 'stat' | 'inconclusive'>]
    >()
    expectTypeOf(a.toBeGreen).parameters.toEqualTypeOf<[]>()
    expectTypeOf(a.toBeRed).parameters.toEqualTypeOf<[]>()
    expectTypeOf(a.not.toBeRed).toBeFunction()
  })

  test('option types', () => {
    expectTypeOf<Stat>().toEqualTypeOf<'mean' | 'median' | 'upper95'>()
    expectTypeOf<'rail:S4M_VDD_CPUCL0'>().toMatchTypeOf<Scope>()
    expectTypeOf<'component:cpu'>().toMatchTypeOf<Scope>()
    expectTypeOf<RegressionOptions['test']>().toEqualTypeOf<'mann-whitney' | 'welch' | undefined>()
  })

  test('wrong arguments do not compile (and fail at run time)', () => {
    // @ts-expect-error joules are a number
    expect(() => a.toConsumeAtMost('1 J')).toThrow()
    // @ts-expect-error stat is mean, median or upper95
    expect(() => a.toConsumeLessThan(1, { stat: 'max' })).toThrow()
    // @ts-expect-error watts are a number
    expect(() => a.toDrawLessThan(undefined)).toThrow()
    // @ts-expect-error the battery matcher takes no scope
    expect(() => a.toUseLessThanPercentOfBattery(1, { scope: 'net' })).toThrow()
    // @ts-expect-error maxPct is a number
    expect(() => a.toNotRegressFrom([1, 2], { maxPct: '5%' })).toThrow()
    // @ts-expect-error colours take no argument
    expect(() => a.toBeGreen('green')).toThrow()
  })
})
