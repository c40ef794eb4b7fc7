import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import {
  bootstrapDifferenceInterval,
  bootstrapInterval,
  median,
  tInterval,
  toSamples,
  toSortedSamples,
  wilsonInterval,
} from '../../src/stats/index.js'

describe('t interval', () => {
  test('1..5: 3 ± t(0.975, 4)·√2.5/√5', () => {
    const r = tInterval(toSamples([1, 2, 3, 4, 5]))
    const half = 2.7764451051977987 * Math.sqrt(2.5 / 5)
    expect(r.estimate, 'mean').toBe(3)
    expect(r.lower, 'lower').toBeCloseTo(3 - half, 10)
    expect(r.upper, 'upper').toBeCloseTo(3 + half, 10)
  })
  test('needs two runs', () => {
    expect(() => tInterval(toSamples([1]))).toThrow(/E_STATS_TOO_FEW_SAMPLES/)
  })
})

describe('bootstrap', () => {
  const data = toSamples([10.2, 9.8, 10.5, 10.1, 9.9, 10.4, 10.0, 10.3])
  test('same seed, same interval; different seed, different interval', () => {
    const a = bootstrapInterval(data, { seed: 42 })
    const b = bootstrapInterval(data, { seed: 42 })
    const c = bootstrapInterval(data, { seed: 43 })
    expect(a, 'reproducible').toEqual(b)
    expect(a.lower === c.lower && a.upper === c.upper, 'seed matters').toBe(false)
  })
  test('percentile interval of the mean is close to the t interval on well-behaved data', () => {
    const boot = bootstrapInterval(data, { resamples: 4000, seed: 7 })
    const t = tInterval(data)
    expect(boot.lower, 'lower').toBeGreaterThan(t.lower - 0.1)
    expect(boot.upper, 'upper').toBeLessThan(t.upper + 0.1)
    expect(boot.upper - boot.lower, 'narrower than the range').toBeLessThan(0.7)
  })
  test('custom statistic (median)', () => {
    const r = bootstrapInterval(data, { seed: 1 }, (s) => median(toSortedSamples(s)))
    expect(r.estimate, 'sample median').toBeCloseTo(10.15, 12)
  })
  test('intervals contain the point estimate (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 2, maxLength: 20 }),
        fc.integer(),
        (xs, seed) => {
          const s = toSamples(xs)
          for (const r of [
            tInterval(s),
            bootstrapInterval(s, { seed, resamples: 50 }),
            bootstrapDifferenceInterval(s, s, { seed, resamples: 50 }),
          ]) {
            expect(r.lower).toBeLessThanOrEqual(r.estimate)
            expect(r.upper).toBeGreaterThanOrEqual(r.estimate)
          }
        },
      ),
    )
  })
  test('bad options', () => {
    expect(() => bootstrapInterval(data, { resamples: 3 })).toThrow(/E_STATS_INVALID_ARGUMENT/)
    expect(() => bootstrapInterval(data, { confidence: 1 })).toThrow(/E_STATS_INVALID_ARGUMENT/)
  })
})

describe('Wilson score interval', () => {
  test('8 of 10 at 95%: (0.4902, 0.9433)', () => {
    const r = wilsonInterval(8, 10)
    expect(r.estimate, 'p̂').toBe(0.8)
    expect(r.lower, 'lower').toBeCloseTo(0.49016, 4)
    expect(r.upper, 'upper').toBeCloseTo(0.94332, 4)
  })
  test('0 of n has lower bound 0 and upper z²/(n + z²)', () => {
    const z = 1.959963984540054
    const r = wilsonInterval(0, 20)
    expect(r.lower, 'lower').toBe(0)
    expect(r.upper, 'upper').toBeCloseTo((z * z) / (20 + z * z), 12)
  })
  test('contains p̂ and stays in [0, 1] (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (n, f) => {
          const x = Math.round(f * n)
          const r = wilsonInterval(x, n)
          expect(r.lower).toBeGreaterThanOrEqual(0)
          expect(r.upper).toBeLessThanOrEqual(1)
          expect(r.lower).toBeLessThanOrEqual(r.estimate + 1e-12)
          expect(r.upper).toBeGreaterThanOrEqual(r.estimate - 1e-12)
        },
      ),
    )
  })
  test('bad counts', () => {
    expect(() => wilsonInterval(11, 10)).toThrow(/E_STATS_INVALID_ARGUMENT/)
    expect(() => wilsonInterval(1, 0)).toThrow(/E_STATS_INVALID_ARGUMENT/)
    expect(() => wilsonInterval(1.5, 10)).toThrow(/E_STATS_INVALID_ARGUMENT/)
  })
})
