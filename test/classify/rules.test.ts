/** Boundaries of the colouring rules: p exactly 0.70, power exactly at the threshold, aggregation ties. */
import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import {
  aggregateColor,
  classify,
  errorVector,
  methodColor,
  testSpectrum,
} from '../../src/classify/index.js'
import type { MethodColor } from '../../src/model/index.js'

describe('couto2014 method rule', () => {
  test('p exactly 0.70 is red; just below is yellow', () => {
    expect(methodColor('couto2014', { n11: 7, n10: 3 }), '7/10').toBe('red')
    expect(methodColor('couto2014', { n11: 70, n10: 30 }), '70/100').toBe('red')
    expect(methodColor('couto2014', { n11: 69, n10: 30 }), '69/99 = 0.6969…').toBe('yellow')
    expect(methodColor('couto2014', { n11: 6, n10: 3 }), '6/9').toBe('yellow')
  })
  test('green, uncoloured', () => {
    expect(methodColor('couto2014', { n11: 0, n10: 5 })).toBe('green')
    expect(methodColor('couto2014', { n11: 0, n10: 0 })).toBe('uncolored')
    expect(methodColor('couto2014', { n11: 1, n10: 0 })).toBe('red')
  })
  test('agrees with exact rational comparison for all counts (property)', () => {
    fc.assert(
      fc.property(fc.nat(5000), fc.nat(5000), (n11, n10) => {
        const c = methodColor('couto2014', { n11, n10 })
        const expected =
          n11 + n10 === 0
            ? 'uncolored'
            : n11 === 0
              ? 'green'
              : BigInt(n11) * 10n >= BigInt(n11 + n10) * 7n
                ? 'red'
                : 'yellow'
        expect(c).toBe(expected)
      }),
    )
  })
})

describe('greendroid-code method rule', () => {
  test('red when n10 < 0.4·(n11 + n10): n10 = 0.4·n exactly is yellow', () => {
    expect(methodColor('greendroid-code', { n11: 3, n10: 2 }), '2 < 2.0 is false').toBe('yellow')
    expect(methodColor('greendroid-code', { n11: 3, n10: 1 }), '1 < 1.6').toBe('red')
    expect(methodColor('greendroid-code', { n11: 2, n10: 1 }), 'p = 2/3 < 0.7 but red here').toBe(
      'red',
    )
    expect(methodColor('greendroid-code', { n11: 0, n10: 0 }), 'never executed').toBe('green')
  })
  test("integer rule equals Java's double arithmetic n10 < 0.4*(n11+n10) (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100000 }), fc.nat(100000), (n11, n10) => {
        const java = n10 < 0.4 * (n11 + n10)
        expect(methodColor('greendroid-code', { n11, n10 }) === 'red').toBe(java)
      }),
    )
  })
})

describe('aggregation', () => {
  const cases: [MethodColor[], MethodColor, MethodColor][] = [
    // members, couto2014, greendroid-code
    [['red', 'red', 'green', 'green'], 'yellow', 'green'],
    [['red', 'green'], 'yellow', 'green'],
    [['red', 'red', 'green'], 'red', 'red'],
    [['red', 'uncolored', 'uncolored'], 'red', 'yellow'],
    [['green', 'green', 'red', 'red', 'yellow'], 'yellow', 'green'],
    [['red', 'yellow'], 'yellow', 'yellow'],
    [['green', 'yellow'], 'yellow', 'green'],
    [['yellow'], 'yellow', 'yellow'],
    [['red'], 'red', 'red'],
    [['uncolored', 'uncolored'], 'uncolored', 'uncolored'],
    [['green', 'green', 'yellow'], 'green', 'green'],
  ]
  test.each(cases)('%j → couto2014 %s, greendroid-code %s', (members, couto, gd) => {
    expect(aggregateColor('couto2014', members), 'couto2014').toBe(couto)
    expect(aggregateColor('greendroid-code', members), 'greendroid-code').toBe(gd)
  })
})

describe('couto2014 error vector boundary', () => {
  test('a test exactly at the mean power is not excessive', () => {
    const tests = [1, 2, 3].map((w, i) =>
      testSpectrum({ id: `t${i}`, energyJ: w, durationS: 1, methods: ['a.B.m'] }),
    )
    const ev = errorVector(tests)
    expect(ev.thresholdW, 'mean of 1, 2, 3 W').toBe(2)
    expect(ev.excessive, 'only the 3 W test').toEqual(['t2'])
  })
  test('the knowledge base shifts the threshold', () => {
    const tests = [1, 2, 3].map((w, i) =>
      testSpectrum({ id: `t${i}`, energyJ: w, durationS: 1, methods: [] }),
    )
    const ev = errorVector(tests, { knowledgeBase: [0, 0, 0] })
    expect(ev.thresholdW, '(0+0+0+1+2+3)/6').toBe(1)
    expect(ev.excessive).toEqual(['t1', 't2'])
    expect(ev.knowledgeBase, 'recorded').toMatchObject({ size: 3, meanPowerW: 0 })
  })
  test('every test equal: none is excessive, everything executed is green', () => {
    const tests = [1, 1].map((w, i) =>
      testSpectrum({ id: `t${i}`, energyJ: w, durationS: 1, methods: ['a.B.m'] }),
    )
    const r = classify(tests)
    expect(r.excessive).toEqual([])
    expect(r.methods[0]?.color).toBe('green')
  })
})
