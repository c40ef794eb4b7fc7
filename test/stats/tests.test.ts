import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import { mannWhitneyU, toSamples, welchTTest, type Alternative } from '../../src/stats/index.js'
import reference from './scipy-reference.json' with { type: 'json' }

describe('Mann–Whitney U', () => {
  test('hand case: complete separation of 5 vs 5 → U = 25, exact two-sided p = 2/252', () => {
    const r = mannWhitneyU(toSamples([1, 2, 3, 4, 5]), toSamples([6, 7, 8, 9, 10]))
    expect(r.u, 'U').toBe(25)
    expect(r.method, 'method').toBe('exact')
    expect(r.pValue, 'p').toBeCloseTo(2 / 252, 15)
  })
  test('matches scipy (exact without ties; tie- and continuity-corrected normal otherwise)', () => {
    for (const c of reference.mannWhitney) {
      const r = mannWhitneyU(toSamples(c.x), toSamples(c.y), c.alternative as Alternative)
      const label = `${c.alternative} n=${c.x.length}/${c.y.length}`
      expect(r.u, `U ${label}`).toBe(c.u)
      expect(r.method, `method ${label}`).toBe(c.method)
      expect(r.pValue, `p ${label}`).toBeCloseTo(c.p, 12)
    }
  })
  const groups = fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 12 })
  test('two-sided p is symmetric under swapping the groups (property)', () => {
    fc.assert(
      fc.property(groups, groups, (x, y) => {
        const a = mannWhitneyU(toSamples(x), toSamples(y)).pValue
        const b = mannWhitneyU(toSamples(y), toSamples(x)).pValue
        expect(a).toBeCloseTo(b, 12)
        expect(a).toBeGreaterThan(0)
        expect(a).toBeLessThanOrEqual(1)
      }),
    )
  })
  test('U of one group plus U of the other is n₁·n₂ (property)', () => {
    fc.assert(
      fc.property(groups, groups, (x, y) => {
        expect(
          mannWhitneyU(toSamples(x), toSamples(y)).u + mannWhitneyU(toSamples(y), toSamples(x)).u,
        ).toBe(x.length * y.length)
      }),
    )
  })
})

describe("Welch's t test", () => {
  test('matches scipy ttest_ind(equal_var=False)', () => {
    for (const c of reference.welch) {
      const r = welchTTest(toSamples(c.x), toSamples(c.y), c.alternative as Alternative)
      const label = `${c.alternative} n=${c.x.length}/${c.y.length}`
      expect(r.t, `t ${label}`).toBeCloseTo(c.t, 12)
      expect(r.df, `df ${label}`).toBeCloseTo(c.df, 10)
      expect(r.pValue, `p ${label}`).toBeCloseTo(c.p, 12)
    }
  })
  test('hand case: x = [1,2,3,4,5], y = [2,4,6,8,11]', () => {
    // ȳ − x̄ = 6.2 − 3 = 3.2; s²x = 2.5, s²y = 12.2; se = √(0.5 + 2.44) = √2.94
    const r = welchTTest(toSamples([1, 2, 3, 4, 5]), toSamples([2, 4, 6, 8, 11]))
    expect(r.difference, 'difference').toBeCloseTo(3.2, 14)
    expect(r.standardError, 'se').toBeCloseTo(Math.sqrt(2.94), 14)
    expect(r.df, 'ν').toBeCloseTo(2.94 ** 2 / (0.25 / 4 + 2.44 ** 2 / 4), 12)
  })
  test('zero variance in both groups', () => {
    expect(welchTTest(toSamples([1, 1]), toSamples([1, 1])).pValue, 'equal').toBe(1)
    expect(welchTTest(toSamples([1, 1]), toSamples([2, 2])).pValue, 'different').toBe(0)
  })
  test('needs two runs per group', () => {
    expect(() => welchTTest(toSamples([1]), toSamples([1, 2]))).toThrow(/E_STATS_TOO_FEW_SAMPLES/)
  })
})
