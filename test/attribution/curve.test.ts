import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { powerCurve, railCurve, railsCurve } from '../../src/attribution/curve.js'
import { AttributionErrors } from '../../src/attribution/errors.js'
import { EnergyError } from '../../src/model/errors.js'
import { MS, S, codeOf, rail, series } from './_helpers.js'

describe('powerCurve', () => {
  // 1 W at 0 s, 3 W at 2 s, 3 W at 4 s.
  const s = series([
    [0, 1],
    [2 * S, 3],
    [4 * S, 3],
  ])

  test('trapezoid integrates linearly varying power exactly', () => {
    const c = powerCurve(s)
    expect(c.energyJ(0, 2 * S), '(1+3)/2 × 2 s').toBeCloseTo(4, 12)
    expect(c.energyJ(0, 4 * S)).toBeCloseTo(10, 12)
    // Partial sample at the edge: power at 1 s is 2 W, ∫0..1 = (1+2)/2 = 1.5 J.
    expect(c.energyJ(0, 1 * S), 'pro rata inside a sample').toBeCloseTo(1.5, 12)
    expect(c.energyJ(1 * S, 3 * S), '∫1..2 (2→3) + ∫2..3 (3)').toBeCloseTo(2.5 + 3, 12)
    expect(c.powerAtW(1 * S)).toBeCloseTo(2, 12)
  })

  test('zero-order hold holds each reading until the next', () => {
    const c = powerCurve(s, { integration: 'zero-order-hold' })
    expect(c.energyJ(0, 2 * S)).toBeCloseTo(2, 12)
    expect(c.energyJ(1 * S, 3 * S), '1 W × 1 s + 3 W × 1 s').toBeCloseTo(4, 12)
    expect(c.powerAtW(1.99 * S)).toBe(1)
  })

  test('interval-average: each reading is the average since the previous one', () => {
    const c = powerCurve(s, { integration: 'interval-average' })
    expect(c.energyJ(0, 2 * S), 'the 3 W reported at 2 s covers 0–2 s').toBeCloseTo(6, 12)
    expect(c.energyJ(1 * S, 3 * S), '3 W × 1 s + 3 W × 1 s').toBeCloseTo(6, 12)
    expect(c.powerAtW(1 * S)).toBe(3)
    expect(c.powerAtW(0), 'at a reading: the interval it closes').toBe(1)
    expect(c.readingIdAt(1 * S)).toBe(c.readingIdAt(2 * S))
  })

  test('edges: error by default, hold extends the edge readings', () => {
    expect(codeOf(() => powerCurve(s).energyJ(-1 * S, 1 * S))).toBe(
      AttributionErrors.WINDOW_NOT_COVERED,
    )
    const held = powerCurve(s, { edges: 'hold' })
    expect(held.energyJ(-1 * S, 0), '1 W held before').toBeCloseTo(1, 12)
    expect(held.energyJ(4 * S, 6 * S), '3 W held after').toBeCloseTo(6, 12)
  })

  test('counts real sensor updates, not repeated readings', () => {
    // A fuel gauge polled at 10 Hz that updates at 2 Hz repeats each value 5 times.
    const pts: Array<[number, number]> = []
    for (let i = 0; i <= 20; i++) pts.push([i * 100 * MS, 1 + Math.floor(i / 5)])
    const c = powerCurve(series(pts))
    expect(c.countReadings(0, 2 * S)).toBe(21)
    expect(c.countUpdates(0, 2 * S), 'values change at 0.5, 1.0, 1.5, 2.0 s').toBe(4)
    expect(c.readingIdAt(0.3 * S)).toBe(c.readingIdAt(0.1 * S))
    expect(c.readingIdAt(0.6 * S)).not.toBe(c.readingIdAt(0.4 * S))
  })

  test('rejects bad input with a code, the source and the reading index', () => {
    expect(codeOf(() => powerCurve(series([])))).toBe(AttributionErrors.TOO_FEW_SAMPLES)
    expect(
      codeOf(() =>
        powerCurve(
          series([
            [0, 1],
            [0, 2],
          ]),
        ),
      ),
    ).toBe(AttributionErrors.UNSORTED)
    try {
      powerCurve(
        series([
          [0, 1],
          [1, Number.NaN],
        ]),
      )
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(EnergyError)
      const e = error as EnergyError
      expect(e.code).toBe(AttributionErrors.NOT_FINITE)
      expect(e.details.format).toBe('meter')
      expect(e.details['index']).toBe(1)
      expect(e.hint.length).toBeGreaterThan(10)
    }
    expect(codeOf(() => powerCurve(series([[0, 1]]), { integration: 'cubic' as never }))).toBe(
      AttributionErrors.INVALID_OPTION,
    )
    expect(codeOf(() => powerCurve(series([[0, 1]])).energyJ(Number.NaN, 0))).toBe(
      AttributionErrors.NOT_FINITE,
    )
  })
})

describe('rail curves', () => {
  test('difference of the counter, linear interpolation at the edges', () => {
    const r = rail('CPU', [
      [0, 100],
      [1 * S, 102],
      [2 * S, 106],
    ])
    const c = railCurve(r)
    expect(c.energyJ(0, 2 * S)).toBeCloseTo(6, 12)
    expect(c.energyJ(0.5 * S, 1.5 * S), '1 J + 2 J').toBeCloseTo(3, 12)
    expect(c.powerAtW(1.5 * S), 'slope of the second interval').toBeCloseTo(4, 12)
  })

  test('the total of rails read at different times is the exact sum', () => {
    const a = rail('A', [
      [0, 0],
      [2 * S, 2],
      [4 * S, 8],
    ])
    const b = rail('B', [
      [0, 10],
      [1 * S, 11],
      [3 * S, 11],
      [4 * S, 15],
    ])
    const total = railsCurve([a, b])
    const ca = railCurve(a)
    const cb = railCurve(b)
    for (const [x, y] of [
      [0, 4 * S],
      [0.5 * S, 3.5 * S],
      [1.2 * S, 2.7 * S],
    ] as const) {
      expect(total.energyJ(x, y)).toBeCloseTo(ca.energyJ(x, y) + cb.energyJ(x, y), 12)
    }
  })

  test('rejects counter resets, single readings, mixed clocks and disjoint rails', () => {
    expect(
      codeOf(() =>
        railCurve(
          rail('CPU', [
            [0, 5],
            [1, 4],
          ]),
        ),
      ),
    ).toBe(AttributionErrors.COUNTER_RESET)
    expect(codeOf(() => railCurve(rail('CPU', [[0, 5]])))).toBe(AttributionErrors.TOO_FEW_SAMPLES)
    expect(codeOf(() => railsCurve([]))).toBe(AttributionErrors.TOO_FEW_SAMPLES)
    const a = rail('A', [
      [0, 0],
      [1, 1],
    ])
    expect(codeOf(() => railsCurve([a, { ...a, rail: 'B', clock: 'monotonic' }]))).toBe(
      AttributionErrors.CLOCK_MISMATCH,
    )
    const late = rail('C', [
      [5, 0],
      [6, 1],
    ])
    expect(codeOf(() => railsCurve([a, late]))).toBe(AttributionErrors.WINDOW_NOT_COVERED)
  })
})

describe('additivity E(a,c) = E(a,b) + E(b,c)', () => {
  const readings = fc
    .array(
      fc.tuple(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.double({ min: 0, max: 10, noNaN: true }),
      ),
      {
        minLength: 2,
        maxLength: 40,
      },
    )
    .map((steps) => {
      let t = 0
      return steps.map(([dt, p]) => {
        t += dt
        return [t, p] as const
      })
    })

  test.each(['trapezoid', 'zero-order-hold', 'interval-average'] as const)(
    '%s power series',
    (integration) => {
      fc.assert(
        fc.property(
          readings,
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.double({ min: 0, max: 1, noNaN: true }),
          (pts, u, v, w) => {
            const c = powerCurve(series(pts), { integration })
            const t0 = c.firstNs
            const span = c.lastNs - t0
            const [a, b, d] = [u, v, w]
              .map((x) => Math.min(c.lastNs, t0 + x * span))
              .sort((x, y) => x - y) as [number, number, number]
            const sum = c.energyJ(a, b) + c.energyJ(b, d)
            expect(Math.abs(c.energyJ(a, d) - sum)).toBeLessThanOrEqual(
              1e-9 * Math.max(1, Math.abs(sum)),
            )
            expect(
              c.energyJ(a, d),
              'non-negative power gives non-negative energy',
            ).toBeGreaterThanOrEqual(-1e-12)
          },
        ),
      )
    },
  )

  test('cumulative rails', () => {
    fc.assert(
      fc.property(
        readings,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (pts, u, v, w) => {
          let acc = 0
          const counter = pts.map(([t, p]) => {
            acc += p
            return [t, acc] as const
          })
          const c = railCurve(rail('R', counter))
          const t0 = c.firstNs
          const span = c.lastNs - t0
          const [a, b, d] = [u, v, w]
            .map((x) => Math.min(c.lastNs, t0 + x * span))
            .sort((x, y) => x - y) as [number, number, number]
          const sum = c.energyJ(a, b) + c.energyJ(b, d)
          expect(Math.abs(c.energyJ(a, d) - sum)).toBeLessThanOrEqual(
            1e-9 * Math.max(1, Math.abs(sum)),
          )
        },
      ),
    )
  })
})
