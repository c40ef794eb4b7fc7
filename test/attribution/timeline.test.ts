// The window's power timeline for reports: thinning keeps each rail's energy (exactly, over the
// window and over every bucket), stays within its bound, keeps the sensor's readings when they fit;
// method activity lanes from stack samples and from a method trace on the same buckets.
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { powerCurve, railCurve } from '../../src/attribution/curve.js'
import { activityLanes, thinPower } from '../../src/attribution/timeline.js'
import { TIMELINE_MAX_BUCKETS, type RailSeries } from '../../src/model/index.js'
import { MS, S, call, rail, sample, series, stacks, trace, win } from './_helpers.js'

/** Σ powerW × bucket length over the buckets between two edges (seconds from the window start). */
function areaJ(edgesS: readonly number[], powerW: readonly number[], fromS: number, toS: number) {
  let sum = 0
  powerW.forEach((p, i) => {
    const a = edgesS[i] as number
    const b = edgesS[i + 1] as number
    if (a >= fromS && b <= toS) sum += p * (b - a)
  })
  return sum
}

const close = (a: number, b: number): boolean =>
  Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b))

describe('thinPower', () => {
  test('few readings: the buckets are the sensor’s intervals, each at the counter’s slope', () => {
    // 1 W, then 3 W, then 2 W; the window 0.5 s → 2.5 s, readings every second from 0 to 3 s.
    const r = rail('S4M_VDD_CPUCL0', [
      [0, 0],
      [1 * S, 1],
      [2 * S, 4],
      [3 * S, 6],
    ])
    const { timeline } = thinPower([r], win(0.5 * S, 2.5 * S))
    // Context: 10% of the 2 s window either side, where the sensor read.
    expect(timeline.edgesS).toEqual([-0.2, 0, 0.5, 1.5, 2, 2.2])
    expect(timeline.series.map((x) => x.name)).toEqual(['S4M_VDD_CPUCL0'])
    expect(timeline.series[0]?.powerW.map((p) => +p.toFixed(12))).toEqual([1, 1, 3, 2, 2])
    expect(areaJ(timeline.edgesS, timeline.series[0]?.powerW ?? [], 0, 2)).toBeCloseTo(
      railCurve(r).energyJ(0.5 * S, 2.5 * S),
      12,
    )
  })

  test('no context where the sensor did not read', () => {
    const r = rail('R', [
      [0, 0],
      [1 * S, 1],
    ])
    const { timeline } = thinPower([r], win(0, 1 * S))
    expect(timeline.edgesS).toEqual([0, 1])
  })

  test('many readings: at most 200 buckets, the window’s edges among them, energy kept', () => {
    // 100 Hz for 60 s: 6,000 readings, power rising and falling.
    const points: Array<[number, number]> = []
    let e = 0
    for (let i = 0; i <= 6000; i++) {
      points.push([i * 10 * MS, e])
      e += 0.01 * (1 + Math.sin(i / 50))
    }
    const r = rail('R', points, 'CPU(BIG)')
    const w = win(5 * S, 55.003 * S)
    const { timeline, edgesNs } = thinPower([r], w)
    expect(timeline.series[0]?.powerW.length).toBe(TIMELINE_MAX_BUCKETS)
    expect(edgesNs.length).toBe(TIMELINE_MAX_BUCKETS + 1)
    expect(timeline.series[0]?.subsystem).toBe('CPU(BIG)')
    expect(Array.from(edgesNs)).toContain(w.startNs)
    expect(Array.from(edgesNs)).toContain(w.endNs)
    const inside = areaJ(timeline.edgesS, timeline.series[0]?.powerW ?? [], 0, 50.003)
    expect(close(inside, railCurve(r).energyJ(w.startNs, w.endNs))).toBe(true)
  })

  test('a power series (fuel gauge) is integrated as the window was: trapezoid by default', () => {
    const s = series(
      [
        [0, 1],
        [1 * S, 3],
        [2 * S, 1],
      ],
      'fuel-gauge',
    )
    const { timeline } = thinPower(s, win(0, 2 * S))
    expect(timeline.series.map((x) => x.name)).toEqual(['fuel-gauge'])
    expect(timeline.series[0]?.powerW).toEqual([2, 2])
    const held = thinPower(s, win(0, 2 * S), { integration: 'zero-order-hold' })
    expect(held.timeline.series[0]?.powerW).toEqual([1, 3])
  })

  test('property: each rail’s energy over the window and over the whole range is kept; bounded size', () => {
    const railArb = fc
      .array(
        fc.tuple(
          fc.integer({ min: 1, max: 50_000_000 }),
          fc.double({ min: 0, max: 5, noNaN: true }),
        ),
        { minLength: 1, maxLength: 400 },
      )
      .map((steps) => {
        let t = 0
        let e = 0
        const points: Array<[number, number]> = [[0, 0]]
        for (const [dt, p] of steps) {
          t += dt
          e += (p * dt) / S
          points.push([t, e])
        }
        return points
      })
    fc.assert(
      fc.property(
        fc.array(railArb, { minLength: 1, maxLength: 4 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 2, max: 250 }),
        (pointSets, a, b, maxBuckets) => {
          const rails: RailSeries[] = pointSets.map((p, i) => rail(`R${i}`, p))
          const lastNs = Math.min(...pointSets.map((p) => p[p.length - 1]?.[0] ?? 0))
          const lo = Math.min(a, b) * lastNs
          const hi = Math.max(a, b) * lastNs
          if (!(hi - lo >= 1)) return
          const w = win(lo, hi)
          const { timeline, edgesNs } = thinPower(rails, w, { maxBuckets })
          expect(timeline.edgesS.length).toBeLessThanOrEqual(maxBuckets + 1)
          expect(edgesNs.includes(lo) && edgesNs.includes(hi)).toBe(true)
          for (let i = 1; i < edgesNs.length; i++)
            expect(edgesNs[i] as number).toBeGreaterThan(edgesNs[i - 1] as number)
          rails.forEach((r, k) => {
            const powerW = timeline.series[k]?.powerW ?? []
            expect(powerW.length).toBe(edgesNs.length - 1)
            const curve = railCurve(r, { edges: 'hold' })
            const windowJ = curve.energyJ(lo, hi)
            let inside = 0
            let all = 0
            powerW.forEach((p, i) => {
              const e = (p * ((edgesNs[i + 1] as number) - (edgesNs[i] as number))) / S
              all += e
              if ((edgesNs[i] as number) >= lo && (edgesNs[i + 1] as number) <= hi) inside += e
            })
            expect(close(inside, windowJ)).toBe(true)
            const rangeJ = curve.energyJ(
              edgesNs[0] as number,
              edgesNs[edgesNs.length - 1] as number,
            )
            expect(close(all, rangeJ)).toBe(true)
          })
        },
      ),
      { numRuns: 300 },
    )
  })

  test('property: a power series’ energy over the window is kept too', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 8, noNaN: true }), { minLength: 2, maxLength: 600 }),
        fc.integer({ min: 1, max: 100 }),
        (powers, dtMs) => {
          const s = series(powers.map((p, i) => [i * dtMs * MS, p] as [number, number]))
          const end = (powers.length - 1) * dtMs * MS
          const w = win(0.25 * end, 0.75 * end)
          const { timeline, edgesNs } = thinPower(s, w, { maxBuckets: 50 })
          expect(edgesNs.length).toBeLessThanOrEqual(51)
          const powerW = timeline.series[0]?.powerW ?? []
          let inside = 0
          powerW.forEach((p, i) => {
            if ((edgesNs[i] as number) >= w.startNs && (edgesNs[i + 1] as number) <= w.endNs)
              inside += (p * ((edgesNs[i + 1] as number) - (edgesNs[i] as number))) / S
          })
          const expected = powerCurve(s, { edges: 'hold' }).energyJ(w.startNs, w.endNs)
          expect(close(inside, expected)).toBe(true)
        },
      ),
      { numRuns: 200 },
    )
  })
})

describe('activityLanes', () => {
  const edges = Float64Array.from([0, 10 * MS, 20 * MS, 30 * MS])

  test('stack samples: each method’s CPU time per bucket, once per sample however deep', () => {
    const set = stacks([
      sample(1 * MS, ['a', 'b', 'a'], 1 * MS), // a on the stack twice: counted once
      sample(2 * MS, ['b'], 1 * MS),
      sample(12 * MS, ['c', 'b'], 1 * MS),
      sample(25 * MS, ['a'], 5 * MS),
    ])
    const lanes = activityLanes(set, ['a', 'b'], edges, win(0, 30 * MS))
    expect(lanes.map((l) => l.method)).toEqual(['a', 'b'])
    expect(lanes[0]?.busy.map((x) => +x.toFixed(9))).toEqual([0.1, 0, 0.5])
    expect(lanes[1]?.busy.map((x) => +x.toFixed(9))).toEqual([0.2, 0.1, 0])
  })

  test('samples without a period count the window’s length over its samples', () => {
    const set = stacks([sample(1 * MS, ['a']), sample(2 * MS, ['a']), sample(21 * MS, ['b'])])
    const lanes = activityLanes(set, ['a'], edges, win(0, 30 * MS))
    // 30 ms / 3 samples = 10 ms each.
    expect(lanes[0]?.busy.map((x) => +x.toFixed(9))).toEqual([2, 0, 0])
  })

  test('a method trace: wall time of the outermost call of each method on each thread', () => {
    const t = trace([
      call(1, 'a', 5 * MS, 25 * MS, 0),
      call(1, 'a', 8 * MS, 12 * MS, 1), // recursion: already counted
      call(2, 'a', 0, 10 * MS, 0), // another thread: adds
      call(1, 'b', 15 * MS, 16 * MS, 1),
    ])
    const lanes = activityLanes(t, ['a', 'b'], edges, win(0, 30 * MS))
    expect(lanes[0]?.busy.map((x) => +x.toFixed(9))).toEqual([1.5, 1, 0.5])
    expect(lanes[1]?.busy.map((x) => +x.toFixed(9))).toEqual([0, 0.1, 0])
  })

  test('no methods, no lanes', () => {
    expect(activityLanes(stacks([]), [], edges, win(0, 30 * MS))).toEqual([])
  })
})
