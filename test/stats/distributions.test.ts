import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import {
  normalCdf,
  normalQuantile,
  regularizedIncompleteBeta,
  studentTCdf,
  studentTQuantile,
} from '../../src/stats/index.js'
import reference from './scipy-reference.json' with { type: 'json' }

describe('Student t against table values', () => {
  test('t(0.975, 10) = 2.228138851986…', () => {
    expect(studentTQuantile(0.975, 10), 't(0.975, 10)').toBeCloseTo(2.228138851986, 11)
  })
  test('classic table: t(0.975, 1) = 12.706, t(0.975, 30) = 2.042, t(0.995, 5) = 4.032', () => {
    expect(studentTQuantile(0.975, 1), 'df 1').toBeCloseTo(12.7062, 4)
    expect(studentTQuantile(0.975, 30), 'df 30').toBeCloseTo(2.0423, 4)
    expect(studentTQuantile(0.995, 5), 'df 5').toBeCloseTo(4.0321, 4)
  })
  test('df = 1 is the Cauchy distribution: F(t) = ½ + atan(t)/π', () => {
    for (const t of [-3, -0.5, 0, 0.7, 4])
      expect(studentTCdf(t, 1), `t = ${t}`).toBeCloseTo(0.5 + Math.atan(t) / Math.PI, 13)
  })
  test('matches scipy quantiles and CDFs', () => {
    for (const r of reference.tQuantile)
      expect(studentTQuantile(r.p, r.df), `t(${r.p}, ${r.df})`).toBeCloseTo(r.t, 9)
    for (const r of reference.tCdf)
      expect(studentTCdf(r.t, r.df), `F(${r.t}; ${r.df})`).toBeCloseTo(r.cdf, 12)
  })
  test('regularized incomplete beta matches scipy.special.betainc', () => {
    for (const r of reference.betainc)
      expect(regularizedIncompleteBeta(r.x, r.a, r.b), `I(${r.x}; ${r.a}, ${r.b})`).toBeCloseTo(
        r.I,
        12,
      )
  })
  test('quantile inverts the CDF (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.double({ min: 0.5, max: 200, noNaN: true }),
        (p, df) => {
          expect(studentTCdf(studentTQuantile(p, df), df)).toBeCloseTo(p, 9)
        },
      ),
    )
  })
  test('invalid arguments are EnergyErrors', () => {
    expect(() => studentTQuantile(1, 3)).toThrow(/E_STATS_INVALID_ARGUMENT/)
    expect(() => studentTCdf(1, 0)).toThrow(/E_STATS_INVALID_ARGUMENT/)
    expect(() => regularizedIncompleteBeta(2, 1, 1)).toThrow(/E_STATS_INVALID_ARGUMENT/)
  })
})

describe('normal distribution', () => {
  test('matches scipy', () => {
    for (const r of reference.normalCdf) expect(normalCdf(r.z), `Φ(${r.z})`).toBeCloseTo(r.cdf, 14)
    expect(normalQuantile(0.975), 'z(0.975)').toBeCloseTo(1.959963984540054, 8)
  })
})

describe('normal quantile', () => {
  test('inverts Φ across the range (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-10, max: 1 - 1e-10, noNaN: true }), (p) => {
        expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 12)
      }),
    )
  })
  test('known values', () => {
    expect(normalQuantile(0.5), 'median').toBeCloseTo(0, 15)
    expect(normalQuantile(0.995), 'z(0.995)').toBeCloseTo(2.5758293035489, 12)
    expect(normalQuantile(0.001), 'z(0.001)').toBeCloseTo(-3.0902323061678, 12)
  })
})
