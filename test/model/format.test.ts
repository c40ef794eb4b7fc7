import { describe, expect, test } from 'vitest'
import {
  formatJoules,
  formatJoulesWithInterval,
  formatPercent,
  formatSeconds,
  formatWatts,
} from '../../src/model/index.js'

describe('human units', () => {
  test('joules pick a prefix and keep three significant digits', () => {
    expect(formatJoules(2.5), '2.5 J').toBe('2.50 J')
    expect(formatJoules(0.312), '312 mJ').toBe('312 mJ')
    expect(formatJoules(4.52e-5), '45.2 µJ').toBe('45.2 µJ')
    expect(formatJoules(123.4), '123 J').toBe('123 J')
    expect(formatJoules(0), 'zero').toBe('0 J')
    expect(formatJoules(-0.05), 'negative').toBe('-50.0 mJ')
    expect(formatJoules(9.57e-14), 'below a nanojoule').toBe('≈ 0 J')
    expect(formatJoules(-3.6e-12)).toBe('≈ 0 J')
  })

  test('watts, seconds and percentages', () => {
    expect(formatWatts(0.35)).toBe('350 mW')
    expect(formatSeconds(1.5)).toBe('1.50 s')
    expect(formatSeconds(0.25)).toBe('250 ms')
    expect(formatSeconds(125)).toBe('2m 05s')
    expect(formatPercent(0.0423)).toBe('0.042%')
    expect(formatPercent(12.5)).toBe('12.5%')
  })
})

describe('formatJoulesWithInterval', () => {
  test('a symmetric interval as ± its half-width, in its own unit', () => {
    expect(
      formatJoulesWithInterval(0.884, { low: 0.884 - 1.03e-5, high: 0.884 + 1.03e-5, level: 0.95 }),
    ).toBe('884 mJ ± 10 µJ')
  })
  test('an asymmetric one as its bounds', () => {
    expect(formatJoulesWithInterval(0.0136, { low: 0.0132, high: 0.0141, level: 0.95 })).toBe(
      '13.6 mJ (95% 13.2 mJ – 14.1 mJ)',
    )
  })
  test('no interval: the value alone; another level is named', () => {
    expect(formatJoulesWithInterval(2.5, undefined)).toBe('2.50 J')
    expect(formatJoulesWithInterval(1, { low: 0.9, high: 1.1, level: 0.9 })).toBe(
      '1.00 J ± 100 mJ (90%)',
    )
  })
})
