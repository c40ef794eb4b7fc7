// How a matcher's check reads in the terminal, HTML and markdown: the figure with its unit when
// it is not the row's net energy, and what a method's figure left out.
import { expect, test } from 'vitest'
import { describeLimit } from '../../reporter/limits.js'
import type { LimitCheck } from '../../src/model/index.js'

const check = (over: Partial<LimitCheck>): LimitCheck => ({
  matcher: 'toConsumeLessThan',
  negated: false,
  comparison: '<',
  limit: 0.5,
  unit: 'J',
  scope: 'net',
  value: 0.25,
  n: 1,
  verdict: 'within',
  passed: true,
  ...over,
})

test("a window's net energy is the row's: only its share of the limit", () => {
  expect(describeLimit(check({}))).toBe('50% of limit < 500 mJ')
})

test('any other figure gives its value and unit', () => {
  expect(
    describeLimit(
      check({ matcher: 'toDrawLessThan', unit: 'W', scope: 'gross', limit: 2, value: 1.42 }),
    ),
  ).toBe('power, gross: 1.42 W, 71% of limit < 2.00 W')
  expect(describeLimit(check({ scope: 'rail:S4M_VDD_CPUCL0', value: 0.1 }))).toBe(
    'rail S4M_VDD_CPUCL0: 100 mJ, 20% of limit < 500 mJ',
  )
})

test('a method judged without what it caused says how much it left out; with it, nothing', () => {
  const target = { kind: 'method', label: 'com.example.trails.SyncManager.syncAll' } as const
  expect(
    describeLimit(check({ scope: 'inclusive', value: 0.0033, target, uncountedAsyncJ: 2.11 })),
  ).toBe('SyncManager.syncAll (without 2.11 J async it caused): 3.30 mJ, 1% of limit < 500 mJ')
  expect(describeLimit(check({ scope: 'inclusive+async', value: 2.11, target }))).toBe(
    'SyncManager.syncAll with async: 2.11 J, 422% of limit < 500 mJ',
  )
})
