import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { attributeTest } from '../../src/attribution/attribute.js'
import { tailCumulativeJ, type TailInvocation } from '../../src/attribution/tails.js'
import { AttributionWarnings } from '../../src/attribution/warnings.js'
import { invariantViolations } from '../../src/model/build.js'
import type { CallInterval, PowerSeries, StackSample } from '../../src/model/samples.js'
import { mulberry32 } from '../../src/stats/index.js'
import { MS, S, call, sample, series, stacks, trace, win } from './_helpers.js'

/** A random power series over [0, 12 s], random nested calls on 1–3 threads, random tails. */
function world(seed: number) {
  const rand = mulberry32(seed)
  const pts: Array<[number, number]> = []
  let t = 0
  // Power covers 12 s so tails (ending ≤ 10.7 s) extending the window stay inside the data.
  while (t < 12 * S) {
    pts.push([t, 0.2 + 3 * rand()])
    t += (1 + Math.floor(rand() * 400)) * MS
  }
  pts.push([12 * S, 1])
  const calls: CallInterval[] = []
  const nest = (thread: number, a: number, b: number, depth: number): void => {
    let cursor = a
    while (cursor < b && depth < 4) {
      const start = cursor + rand() * (b - cursor) * 0.5
      const end = start + rand() * (b - start)
      if (end - start < 1000) break
      const cpu = rand() < 0.5 ? ([0, rand() * (end - start)] as const) : undefined
      calls.push(call(thread, `m${Math.floor(rand() * 6)}`, start, end, depth, cpu))
      if (rand() < 0.6) nest(thread, start, end, depth + 1)
      cursor = end + 1
      if (rand() < 0.3) break
    }
  }
  const threads = 1 + Math.floor(rand() * 3)
  for (let th = 1; th <= threads; th++) nest(th, 0, 10 * S, 0)
  const tails: TailInvocation[] = []
  for (let i = 0; i < Math.floor(rand() * 4); i++) {
    const s = rand() * 8 * S
    tails.push({
      method: `m${Math.floor(rand() * 6)}`,
      component: rand() < 0.5 ? 'wifi' : 'gps',
      startNs: s,
      endNs: s + rand() * 0.5 * S,
      tailEnergyJ: rand() * 0.5,
      tailDurationNs: (0.2 + rand() * 2) * S,
    })
  }
  return { power: series(pts), calls, tails, rand }
}

const policies = ['split-among-overlapping', 'charge-to-initiator', 'leave-unattributed'] as const

describe('conservation: attributed + unattributed + baseline = measured', () => {
  test('interval attribution, every joule of the window lands exactly once', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.constantFrom(...policies),
        fc.constantFrom('extend', 'clip'),
        (seed, tailPolicy, afterWindow) => {
          const w = world(seed)
          const a = attributeTest({
            label: 't',
            window: win(1 * S, 7 * S),
            power: w.power,
            baseline: { kind: 'configured', powerW: w.rand() },
            execution: { kind: 'trace', trace: trace(w.calls) },
            tails: w.tails,
            tailPolicy,
            afterWindow: afterWindow as 'extend' | 'clip',
          })
          const r = a.result
          expect(invariantViolations(r)).toEqual([])
          const sum = r.attributedEnergyJ + r.unattributedEnergyJ + r.baselineEnergyJ
          expect(Math.abs(sum - r.grossEnergyJ)).toBeLessThanOrEqual(
            1e-9 * Math.max(1, r.grossEnergyJ),
          )
          // Stronger: local energy + idle energy + modelled tails inside the window = net.
          const interval = a.interval
          if (interval === undefined) throw new Error('no interval result')
          const tailsIn =
            tailCumulativeJ(a.tails, r.window.endNs) - tailCumulativeJ(a.tails, r.window.startNs)
          const local = interval.methods.reduce((s, m) => s + m.localEnergyJ, 0)
          expect(local + interval.idleEnergyJ + tailsIn).toBeCloseTo(r.netEnergyJ, 9)
          // Tails charged to methods show up as async energy.
          const charged = a.tails.reduce((s, c) => s + (c.method === undefined ? 0 : c.energyJ), 0)
          expect(r.methods.reduce((s, m) => s + m.asyncEnergyJ, 0)).toBeCloseTo(charged, 9)
        },
      ),
      { numRuns: 150 },
    )
  })

  test('sampling attribution keeps the accounting identities', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const w = world(seed)
        const samples: StackSample[] = []
        for (let i = 0; i < 300; i++) {
          const depth = 1 + Math.floor(w.rand() * 4)
          const frames = Array.from({ length: depth }, () => `m${Math.floor(w.rand() * 6)}`)
          // Periods differ (1–10 ms): split must sum each sample's own energy.
          samples.push(sample(w.rand() * 10 * S, frames, (1 + Math.floor(w.rand() * 10)) * MS))
        }
        const run = (power: 'reading' | 'split') =>
          attributeTest({
            label: 't',
            window: win(0.5 * S, 9.5 * S),
            power: w.power,
            baseline: { kind: 'idle-window', startNs: 0, endNs: 0.5 * S },
            execution: { kind: 'samples', samples: stacks(samples), power },
          })
        // split (default): Σ local ê = the window's net energy, every joule once.
        const split = run('split')
        expect(invariantViolations(split.result)).toEqual([])
        expect(split.sampling?.attributedEnergyJ).toBeCloseTo(
          split.test.grossEnergyJ - split.test.baselinePowerW * split.test.durationS,
          9,
        )
        const a = run('reading')
        expect(invariantViolations(a.result)).toEqual([])
        const s = a.sampling
        if (s === undefined) throw new Error('no sampling result')
        // reading (EDATA): Σ local ê = t_exec × mean net power at the samples.
        let meanW = 0
        let n = 0
        for (const x of samples) {
          if (x.tNs < 0.5 * S || x.tNs > 9.5 * S) continue
          meanW += a.test.curve.powerAtW(x.tNs) - a.test.baselinePowerW
          n++
        }
        expect(s.attributedEnergyJ).toBeCloseTo(s.execTimeS * (meanW / n), 9)
      }),
      { numRuns: 60 },
    )
  })
})

describe('additivity of per-method energy across adjacent windows', () => {
  test('interval attribution over [a,c] = over [a,b] + over [b,c], method by method', () => {
    fc.assert(
      fc.property(fc.integer(), fc.double({ min: 0.05, max: 0.95, noNaN: true }), (seed, u) => {
        const w = world(seed)
        const t = trace(w.calls)
        const [a, c] = [1 * S, 9 * S]
        const b = a + u * (c - a)
        const run = (from: number, to: number) =>
          new Map(
            attributeTest({
              label: 't',
              window: win(from, to),
              power: w.power,
              baseline: { kind: 'configured', powerW: 0.3 },
              execution: { kind: 'trace', trace: t },
            }).result.methods.map((m) => [m.method, m.localEnergyJ]),
          )
        const whole = run(a, c)
        const left = run(a, b)
        const right = run(b, c)
        for (const [method, e] of whole) {
          expect(e).toBeCloseTo((left.get(method) ?? 0) + (right.get(method) ?? 0), 9)
        }
      }),
      { numRuns: 100 },
    )
  })
})

describe('attributeTest', () => {
  const flat: PowerSeries = series([
    [0, 1],
    [20 * S, 1],
  ])

  test('tail energy landing after the window is charged to the initiator and the window extended', () => {
    const a = attributeTest({
      label: 'upload',
      window: win(0, 2 * S),
      power: flat,
      execution: { kind: 'trace', trace: trace([call(1, 'Uploader.send', 1 * S, 1.5 * S)]) },
      tails: [
        {
          method: 'Uploader.send',
          component: 'cellular',
          startNs: 1 * S,
          endNs: 1.5 * S,
          tailEnergyJ: 2,
          tailDurationNs: 5 * S,
        },
      ],
    })
    const r = a.result
    expect(r.window.endNs, 'extended to the end of the tail').toBe(6.5 * S)
    expect(r.grossEnergyJ).toBeCloseTo(6.5, 12)
    const m = r.methods.find((x) => x.method === 'Uploader.send')
    expect(m?.asyncEnergyJ).toBeCloseTo(2, 12)
    // The call itself draws the flat 1 W minus the tail power that overlaps it (none: tail starts at its end).
    expect(m?.localEnergyJ).toBeCloseTo(0.5, 12)
    expect(invariantViolations(r)).toEqual([])
  })

  test('clip keeps only the tail inside the window', () => {
    const a = attributeTest({
      label: 'upload',
      window: win(0, 2 * S),
      power: flat,
      afterWindow: 'clip',
      tails: [
        {
          method: 'u',
          component: 'wifi',
          startNs: 0,
          endNs: 1 * S,
          tailEnergyJ: 2,
          tailDurationNs: 4 * S,
        },
      ],
    })
    expect(a.result.window.endNs).toBe(2 * S)
    expect(a.result.methods[0]?.asyncEnergyJ, 'a quarter of the tail is inside').toBeCloseTo(
      0.5,
      12,
    )
  })

  test('without method data there is no "energy invisible to the app" warning: nothing was looked at', () => {
    const a = attributeTest({ label: 'power only', window: win(0, 2 * S), power: flat })
    expect(a.result.warnings.map((w) => w.code)).not.toContain(AttributionWarnings.INVISIBLE_ENERGY)
    expect(a.result.attributedEnergyJ).toBe(0)
  })

  test('sources, battery and warnings end up in the result', () => {
    const a = attributeTest({
      label: 'scroll',
      window: win(0, 2 * S),
      power: flat,
      batteryCapacityJ: 50_000,
      execution: { kind: 'trace', trace: trace([call(1, 'a', 0, 0.1 * S)], 'instrumentation') },
      facts: { charging: true, debuggable: true },
      sourceNames: { power: 'external-meter' },
    })
    const codes = a.result.warnings.map((w) => w.code)
    expect(codes).toContain(AttributionWarnings.CHARGING)
    expect(codes).toContain(AttributionWarnings.DEBUGGABLE)
    expect(codes).toContain(AttributionWarnings.FULL_TRACING)
    expect(codes).toContain(AttributionWarnings.SLOW_SENSOR)
    expect(codes, 'only 0.1 J of 2 J attributed').toContain(AttributionWarnings.INVISIBLE_ENERGY)
    expect(a.result.sources).toEqual({
      power: 'external-meter',
      execution: 'art-instrumentation',
      sensorRateHz: 0,
      sampleCount: 1,
    })
    expect(a.result.battery?.percentOfCapacity).toBeCloseTo((2 / 50_000) * 100, 12)
  })
})
