import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import {
  classify,
  dstar,
  energyWeightedOchiai,
  jaccard,
  ochiai,
  tarantula,
  testSpectrum,
} from '../../src/classify/index.js'

const counts = fc
  .tuple(fc.nat(50), fc.nat(50), fc.nat(50), fc.nat(50))
  .map(([n11, n10, n01, n00]) => ({ n11, n10, n01, n00 }))

describe('SFL coefficients', () => {
  test('bounded in [0, 1] (Ochiai, Tarantula, Jaccard) and DStar ≥ 0 (property)', () => {
    fc.assert(
      fc.property(counts, (c) => {
        for (const v of [ochiai(c), tarantula(c), jaccard(c)]) {
          expect(v).toBeGreaterThanOrEqual(0)
          expect(v).toBeLessThanOrEqual(1 + 1e-15)
        }
        const d = dstar(c)
        if (d !== null) expect(d).toBeGreaterThanOrEqual(0)
      }),
    )
  })
  test('moving an excessive test from "did not run it" to "ran it" never lowers the suspicion (property)', () => {
    fc.assert(
      fc.property(counts, (c) => {
        fc.pre(c.n01 > 0)
        const more = { ...c, n11: c.n11 + 1, n01: c.n01 - 1 }
        expect(ochiai(more)).toBeGreaterThanOrEqual(ochiai(c) - 1e-15)
        expect(tarantula(more)).toBeGreaterThanOrEqual(tarantula(c) - 1e-15)
        expect(jaccard(more)).toBeGreaterThanOrEqual(jaccard(c) - 1e-15)
        expect(dstar(more) ?? Infinity).toBeGreaterThanOrEqual(dstar(c) ?? Infinity)
      }),
    )
  })
  test('DStar is unbounded (null) for a method run by every excessive test and nothing else', () => {
    expect(dstar({ n11: 3, n10: 0, n01: 0, n00: 5 })).toBeNull()
    expect(dstar({ n11: 0, n10: 0, n01: 0, n00: 5 })).toBe(0)
    expect(
      JSON.parse(JSON.stringify({ d: dstar({ n11: 3, n10: 0, n01: 0, n00: 5 }) })).d,
    ).toBeNull()
  })
  test('energy-weighted Ochiai by hand', () => {
    // method: 0.6 J in excessive tests, 0.2 J elsewhere; excessive tests drew 2 J in total
    expect(energyWeightedOchiai(0.6, 0.2, 2)).toBeCloseTo(0.6 / Math.sqrt(2 * 0.8), 14)
    expect(energyWeightedOchiai(0, 0, 0)).toBe(0)
  })
})

describe('energy-weighted coefficient inside classify', () => {
  const tests = [
    testSpectrum({
      id: 'greedy',
      energyJ: 4,
      durationS: 1,
      methods: [
        { name: 'a.B.hot', energyJ: 3 },
        { name: 'a.B.cold', energyJ: 0.1 },
      ],
    }),
    testSpectrum({
      id: 'calm',
      energyJ: 1,
      durationS: 1,
      methods: [{ name: 'a.B.cold', energyJ: 0.5 }],
    }),
  ]
  test('ranks the method that burns the energy of the greedy test first', () => {
    const r = classify(tests)
    expect(r.excessive).toEqual(['greedy'])
    const hot = r.methods.find((m) => m.name === 'a.B.hot')
    expect(hot?.energyWeighted, 'hot = 3/√(4·3)').toBeCloseTo(3 / Math.sqrt(12), 14)
    expect(hot?.energyJ, 'hot energy').toBe(3)
    expect(r.rankings.energyWeighted[0]).toBe('a.B.hot')
  })
  test('null when a test lacks the per-method energy', () => {
    const r = classify([
      ...tests,
      testSpectrum({ id: 'x', energyJ: 1, durationS: 1, methods: ['a.B.hot'] }),
    ])
    expect(r.methods.find((m) => m.name === 'a.B.hot')?.energyWeighted).toBeNull()
    expect(r.rankings.energyWeighted).not.toContain('a.B.hot')
  })
})
