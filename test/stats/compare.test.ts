import { describe, expect, test } from 'vitest'
import { compare, requiredRepetitions } from '../../src/stats/index.js'

const base = [10.0, 10.2, 9.9, 10.1, 10.0, 9.8, 10.2, 10.1, 9.9, 10.0]

describe('compare verdicts', () => {
  test('clearly more energy is worse (both tests)', () => {
    const current = base.map((x) => x + 2)
    for (const t of ['mann-whitney', 'welch'] as const) {
      const r = compare(base, current, { test: t })
      expect(r.verdict, t).toBe('worse')
      expect(r.deltaJ, `${t} ΔJ`).toBeCloseTo(2, 12)
      expect(r.deltaPct, `${t} Δ% = 2 / 10.02`).toBeCloseTo(200 / 10.02, 10)
      expect(r.pValue, `${t} p`).toBeLessThan(0.001)
      expect(r.interval.lower, `${t} interval above 0`).toBeGreaterThan(0)
    }
  })
  test('clearly less energy is better', () => {
    expect(
      compare(
        base,
        base.map((x) => x - 2),
      ).verdict,
    ).toBe('better')
  })
  test('same: the interval of the difference lies inside ±minEffect', () => {
    const current = base.map((x, i) => x + (i % 2 === 0 ? 0.01 : -0.01))
    const r = compare(base, current, { minEffectPct: 5, test: 'welch' })
    expect(r.verdict).toBe('same')
    expect(r.interval.lower, 'lower > −0.5 J').toBeGreaterThan(-0.5)
    expect(r.interval.upper, 'upper < 0.5 J').toBeLessThan(0.5)
  })
  test('inconclusive: too few noisy runs to tell', () => {
    const r = compare([10, 14, 8], [12, 9, 15], { test: 'welch' })
    expect(r.verdict).toBe('inconclusive')
  })
  test('significant but below minEffectPct is not worse', () => {
    const tight = [10.0, 10.001, 9.999, 10.0, 10.001, 9.999, 10.0, 10.0]
    const r = compare(
      tight,
      tight.map((x) => x + 0.1),
      { minEffectPct: 5, test: 'welch' },
    )
    expect(r.pValue, 'significant').toBeLessThan(0.05)
    expect(r.verdict, '1% change inside a 5% margin').toBe('same')
    const r0 = compare(
      tight,
      tight.map((x) => x + 0.1),
      { minEffectPct: 0, test: 'welch' },
    )
    expect(r0.verdict, 'no margin → worse').toBe('worse')
  })
  test('errors', () => {
    expect(() => compare([1], [1, 2])).toThrow(/E_STATS_TOO_FEW_SAMPLES/)
    expect(() => compare([], [1, 2])).toThrow(/E_STATS_EMPTY_SAMPLES/)
    expect(() => compare([1, 2], [1, 2], { alpha: 0 })).toThrow(/E_STATS_INVALID_ARGUMENT/)
    expect(() => compare([1, 2], [1, 2], { minEffectPct: -1 })).toThrow(/E_STATS_INVALID_ARGUMENT/)
  })
})

describe('requiredRepetitions', () => {
  test('difference target: n = 2(z₀.₉₇₅ + z₀.₈)²σ²/Δ²', () => {
    // σ = 1 in both groups, Δ = 1: n = 2·(1.95996 + 0.84162)²  = 15.70 → 16
    const a = [9, 10, 11]
    const b = [10, 11, 12]
    const r = requiredRepetitions(a, b, { minEffectPct: 5 })
    expect(r, 'estimate').toEqual({ runsPerGroup: 16, additionalRuns: 13, target: 'difference' })
  })
  test('equivalence target when the observed change is inside the margin', () => {
    // σ = 1, Δ = 0, margin = 10% of 10 = 1: n = 2·1.95996² / 1 = 7.68 → 8
    const r = requiredRepetitions([9, 10, 11], [9, 10, 11], { minEffectPct: 10 })
    expect(r).toEqual({ runsPerGroup: 8, additionalRuns: 5, target: 'equivalence' })
  })
  test('undefined when nothing can decide (no spread)', () => {
    expect(requiredRepetitions([1, 1], [1, 1], { minEffectPct: 0 })).toBeUndefined()
  })
  test('an inconclusive comparison asks for more runs', () => {
    const a = [10, 14, 8]
    const b = [12, 9, 15]
    expect(compare(a, b, { test: 'welch' }).verdict, 'inconclusive').toBe('inconclusive')
    const est = requiredRepetitions(a, b, { minEffectPct: 5 })
    expect(est?.additionalRuns, 'needs more runs').toBeGreaterThan(0)
  })
})
