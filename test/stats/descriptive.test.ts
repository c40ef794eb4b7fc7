import { describe, expect, test } from 'vitest'
import {
  coefficientOfVariation,
  madOutliers,
  mean,
  median,
  medianAbsoluteDeviation,
  quantile,
  standardDeviation,
  summarize,
  toSamples,
  toSortedSamples,
  tukeyFences,
  variance,
} from '../../src/stats/index.js'
import { isEnergyError } from '../../src/model/index.js'

function code(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (error) {
    return isEnergyError(error) ? error.code : `not an EnergyError: ${String(error)}`
  }
  return undefined
}

describe('descriptive statistics on hand-computable inputs', () => {
  test('1..6', () => {
    const s = toSortedSamples([6, 1, 5, 2, 4, 3])
    expect(s, 'sorted copy').toEqual([1, 2, 3, 4, 5, 6])
    expect(mean(s), 'mean').toBe(3.5)
    expect(median(s), 'median').toBe(3.5)
    expect(quantile(s, 0.75), 'p75 (type 7)').toBe(4.75)
    expect(quantile(s, 0.25), 'p25').toBe(2.25)
    expect(quantile(s, 0), 'p0').toBe(1)
    expect(quantile(s, 1), 'p100').toBe(6)
    // Σ(x − 3.5)² = 17.5, / 5 = 3.5
    expect(variance(s), 's²').toBeCloseTo(3.5, 14)
    expect(standardDeviation(s), 's').toBeCloseTo(Math.sqrt(3.5), 14)
    expect(coefficientOfVariation(s), 'cv').toBeCloseTo(Math.sqrt(3.5) / 3.5, 14)
    // |x − 3.5| = 2.5 1.5 .5 .5 1.5 2.5 → median 1.5
    expect(medianAbsoluteDeviation(s), 'MAD').toBe(1.5)
  })

  test('summarize tolerates one run', () => {
    const s = summarize(toSortedSamples([2.5]))
    expect(s, 'n = 1').toEqual({
      n: 1,
      mean: 2.5,
      median: 2.5,
      sd: 0,
      cv: 0,
      mad: 0,
      min: 2.5,
      max: 2.5,
    })
  })

  test('the input of toSortedSamples is not modified', () => {
    const input = [3, 1, 2]
    toSortedSamples(input)
    expect(input).toEqual([3, 1, 2])
  })

  test('user-facing errors', () => {
    expect(
      code(() => toSamples([])),
      'empty',
    ).toBe('E_STATS_EMPTY_SAMPLES')
    expect(
      code(() => toSamples([1, Number.NaN])),
      'NaN',
    ).toBe('E_STATS_NON_FINITE')
    expect(
      code(() => toSamples([1, Infinity])),
      'Infinity',
    ).toBe('E_STATS_NON_FINITE')
    expect(
      code(() => standardDeviation(toSamples([1]))),
      'sd of one',
    ).toBe('E_STATS_TOO_FEW_SAMPLES')
    expect(
      code(() => quantile(toSortedSamples([1, 2]), 1.5)),
      'q > 1',
    ).toBe('E_STATS_INVALID_ARGUMENT')
    expect(
      code(() => coefficientOfVariation(toSamples([-1, 1]))),
      'cv of zero mean',
    ).toBe('E_STATS_INVALID_ARGUMENT')
  })
})

describe('outlier flags', () => {
  test("Tukey's fences: [1..9, 50]", () => {
    // Q1 = 3.25, Q3 = 7.75, IQR = 4.5 → fences −3.5, 14.5
    const r = tukeyFences(toSamples([1, 2, 3, 4, 5, 6, 7, 8, 9, 50]))
    expect(r.lower, 'lower fence').toBeCloseTo(-3.5, 12)
    expect(r.upper, 'upper fence').toBeCloseTo(14.5, 12)
    expect(r.indices, 'outliers').toEqual([9])
  })

  test('MAD modified z-score: [10, 10.1, 9.9, 10.2, 9.8, 30]', () => {
    // median 10.05, |dev| = .05 .05 .15 .15 .25 19.95 → MAD .15, 1.4826·MAD = .22239
    const r = madOutliers(toSamples([10, 10.1, 9.9, 10.2, 9.8, 30]))
    expect(r.indices, 'outliers').toEqual([5])
    expect(r.upper, 'upper limit').toBeCloseTo(10.05 + 3.5 * 1.4826 * 0.15, 10)
  })

  test('MAD = 0 flags every value that differs from the median', () => {
    expect(madOutliers(toSamples([5, 5, 5, 5, 6])).indices).toEqual([4])
  })
})
