import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { powerCurve, railCurve } from '../../src/attribution/curve.js'
import { AttributionErrors } from '../../src/attribution/errors.js'
import { attributeSamples } from '../../src/attribution/sampling.js'
import { studentTQuantile } from '../../src/stats/index.js'
import { MS, S, codeOf, rail, sample, series, stacks, win } from './_helpers.js'

const Z95 = 1.959963984540054

/** Wilson interval written out independently of src/stats. */
function wilson(k: number, n: number): [number, number] {
  const p = k / n
  const z2 = Z95 * Z95
  const d = 1 + z2 / n
  const c = (p + z2 / (2 * n)) / d
  const h = (Z95 / d) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))
  return [c - h, c + h]
}

// Fuel gauge: 1 W until 15 ms, then 3 W (held).
const gauge = powerCurve(
  series([
    [0, 1],
    [15 * MS, 3],
    [100 * MS, 3],
  ]),
  { integration: 'zero-order-hold' },
)
const worked = stacks([
  sample(0, ['A'], 10 * MS),
  sample(10 * MS, ['B', 'A'], 10 * MS),
  sample(20 * MS, ['A', 'B', 'A'], 10 * MS), // recursion: A counted once (local)
  sample(30 * MS, ['C'], 10 * MS),
])

describe('sampling attribution (EDATA Eqs. 3.5–3.8)', () => {
  const r = attributeSamples(worked, gauge, { power: 'reading', window: win(0, 40 * MS) })
  const d = (m: string) => {
    const x = r.details.find((e) => e.method === m)
    if (x === undefined) throw new Error(m)
    return x
  }

  test('p̂ = n_m/n, t̂ = p̂·t_exec, pôw = mean power of its samples, ê = pôw·t̂', () => {
    expect(r.sampleCount).toBe(4)
    expect(r.execTimeS, 't_exec = Σ periods').toBeCloseTo(0.04, 12)
    const a = d('A')
    expect(a.local.samples).toBe(2)
    expect(a.local.probability).toBe(0.5)
    expect(a.local.timeS).toBeCloseTo(0.02, 12)
    expect(a.local.powerW, '(1 W + 3 W) / 2').toBeCloseTo(2, 12)
    expect(a.local.energyJ).toBeCloseTo(0.04, 12)
    expect(a.nonLocal.samples, 'only under B in sample 2; sample 3 counts A once, as leaf').toBe(1)
    expect(a.nonLocal.energyJ).toBeCloseTo(0.25 * 0.04 * 1, 12)
    expect(d('B').local.energyJ).toBeCloseTo(0.01, 12)
    expect(d('B').nonLocal.energyJ).toBeCloseTo(0.03, 12)
    expect(d('C').local.energyJ).toBeCloseTo(0.03, 12)
  })

  test('inclusive = local + non-local, and Σ local ê = t_exec × mean power', () => {
    for (const m of r.methods) {
      expect(m.inclusiveEnergyJ).toBeCloseTo(m.localEnergyJ + m.nonLocalEnergyJ, 12)
      expect(m.attribution).toBe('sampling')
    }
    const a = d('A')
    expect(a.inclusive.energyJ).toBeCloseTo(a.local.energyJ + a.nonLocal.energyJ, 12)
    expect(r.attributedEnergyJ).toBeCloseTo(0.04 * ((1 + 1 + 3 + 3) / 4), 12)
  })

  test('Wilson interval for p̂, t interval over distinct readings, energy from the products', () => {
    const a = d('A').local
    const [lo, hi] = wilson(2, 4)
    expect(a.probabilityInterval?.low).toBeCloseTo(lo, 10)
    expect(a.probabilityInterval?.high).toBeCloseTo(hi, 10)
    expect(a.timeIntervalS?.high).toBeCloseTo(hi * 0.04, 10)
    expect(a.distinctReadings).toBe(2)
    // Distinct readings 1 W and 3 W: mean 2, s = √2, half = t(0.975, 1) · √2/√2.
    const half = studentTQuantile(0.975, 1)
    expect(a.powerIntervalW?.low).toBeCloseTo(2 - half, 10)
    expect(a.powerIntervalW?.high).toBeCloseTo(2 + half, 10)
    const products = [lo * (2 - half), lo * (2 + half), hi * (2 - half), hi * (2 + half)].map(
      (x) => x * 0.04,
    )
    expect(a.energyIntervalJ?.low).toBeCloseTo(Math.min(...products), 10)
    expect(a.energyIntervalJ?.high).toBeCloseTo(Math.max(...products), 10)
    // One distinct reading: no power interval, so no energy interval.
    expect(d('C').local.powerIntervalW).toBeUndefined()
    expect(d('C').local.energyIntervalJ).toBeUndefined()
  })

  test("EDATA Table 3.1's shape: p̂ 0.25 with an interval, non-local 0.00 with none ([-1, -1])", () => {
    // 100 samples, X is the leaf in 25 of them and never below another frame.
    const pts: Array<[number, number]> = []
    for (let i = 0; i <= 100; i++) pts.push([i * 10 * MS, 1 + (i % 7) * 0.1])
    const c = powerCurve(series(pts), { integration: 'zero-order-hold' })
    const set = stacks(
      Array.from({ length: 100 }, (_, i) =>
        sample(i * 10 * MS, i % 4 === 0 ? ['X'] : ['Y', 'Z'], 10 * MS),
      ),
    )
    const x = attributeSamples(set, c, { power: 'reading', window: win(0, 1 * S) }).details.find(
      (e) => e.method === 'X',
    )
    expect(x?.local.probability).toBe(0.25)
    expect(x?.nonLocal.probability).toBe(0)
    expect(x?.nonLocal.probabilityInterval, 'EDATA prints [-1, -1]').toBeUndefined()
    const [lo, hi] = wilson(25, 100)
    expect(x?.local.probabilityInterval?.low).toBeCloseTo(lo, 10)
    expect(x?.local.probabilityInterval?.high).toBeCloseTo(hi, 10)
    // Table 3.1 prints [0.16, 0.33]; Wilson at n = 100 gives [0.175, 0.343] (see docs/attribution.md).
    expect(lo).toBeCloseTo(0.1754, 3)
    expect(hi).toBeCloseTo(0.343, 3)
  })

  test('readings repeated between sensor updates count once for the power interval', () => {
    // Polled at 10 ms, updates every 50 ms: 10 samples see 2 distinct readings.
    const pts: Array<[number, number]> = []
    for (let i = 0; i <= 10; i++) pts.push([i * 10 * MS, i < 5 ? 1 : 2])
    const c = powerCurve(series(pts), { integration: 'zero-order-hold' })
    const set = stacks(Array.from({ length: 10 }, (_, i) => sample(i * 10 * MS + MS, ['M'], MS)))
    const m = attributeSamples(set, c, { power: 'reading', window: win(0, 100 * MS) }).details[0]
    expect(m?.local.samples).toBe(10)
    expect(m?.local.distinctReadings).toBe(2)
  })

  test('periods: from the sample, from options, else window / n; unsorted input is sorted', () => {
    const noPeriod = stacks([sample(20 * MS, ['a']), sample(10 * MS, ['b'])])
    expect(
      attributeSamples(noPeriod, gauge, { power: 'reading', window: win(0, 40 * MS) }).execTimeS,
    ).toBeCloseTo(0.04, 12)
    expect(
      attributeSamples(noPeriod, gauge, {
        power: 'reading',
        window: win(0, 40 * MS),
        samplePeriodNs: MS,
      }).execTimeS,
    ).toBeCloseTo(0.002, 12)
    const outside = stacks([sample(50 * MS, ['late'], MS), sample(5 * MS, [], MS)])
    const r2 = attributeSamples(outside, gauge, { power: 'reading', window: win(0, 40 * MS) })
    expect(r2.sampleCount).toBe(0)
    expect(r2.emptySamples).toBe(1)
    expect(r2.methods).toHaveLength(0)
  })

  test('threads sampled at the same time share the power 1/N (EDATA charges each the whole device)', () => {
    const c = powerCurve(
      series([
        [0, 2],
        [20 * MS, 2],
      ]),
    )
    const both: ReturnType<typeof sample>[] = []
    for (let i = 0; i < 10; i++) {
      both.push({ ...sample(i * MS + 0.5 * MS, ['ui'], MS), threadId: 1 })
      both.push({ ...sample(i * MS + 0.5 * MS, ['worker'], MS), threadId: 2 })
    }
    const shared = attributeSamples(stacks(both), c, { power: 'reading', window: win(0, 10 * MS) })
    expect(shared.execTimeS, 'two threads × 10 ms of CPU').toBeCloseTo(0.02, 12)
    expect(shared.attributedEnergyJ, '∫P over the 10 ms the app ran').toBeCloseTo(0.02, 12)
    expect(shared.methods.map((m) => m.localEnergyJ)).toEqual([
      expect.closeTo(0.01, 12),
      expect.closeTo(0.01, 12),
    ])
    const device = attributeSamples(stacks(both), c, {
      power: 'reading',
      window: win(0, 10 * MS),
      threadShare: 'device',
    })
    expect(device.attributedEnergyJ, 'EDATA double counts concurrent threads').toBeCloseTo(0.04, 12)
  })

  test('baseline is subtracted from the power at each sample', () => {
    const r2 = attributeSamples(worked, gauge, {
      power: 'reading',
      window: win(0, 40 * MS),
      baselinePowerW: 1,
    })
    expect(r2.attributedEnergyJ).toBeCloseTo(0.04, 12)
  })

  test('rejects mismatched clocks, non-finite times and bad levels', () => {
    expect(
      codeOf(() =>
        attributeSamples({ ...worked, clock: 'monotonic' }, gauge, {
          power: 'reading',
          window: win(0, S),
        }),
      ),
    ).toBe(AttributionErrors.CLOCK_MISMATCH)
    expect(
      codeOf(() =>
        attributeSamples(stacks([sample(Number.NaN, ['a'])]), gauge, {
          power: 'reading',
          window: win(0, S),
        }),
      ),
    ).toBe(AttributionErrors.NOT_FINITE)
    expect(
      codeOf(() =>
        attributeSamples(worked, gauge, { power: 'reading', window: win(0, S), level: 1 }),
      ),
    ).toBe(AttributionErrors.INVALID_OPTION)
  })
})

describe("power: 'split' (the default)", () => {
  // An ODPM-like counter read every 100 ms: 0.5 J in [0, 100 ms) (a 20 ms burst of A, then idle),
  // 0.2 J in [100, 200 ms) (B busy for 50 ms).
  const counter = railCurve(
    rail('VDD_CPU', [
      [0, 0],
      [100 * MS, 0.5],
      [200 * MS, 0.7],
    ]),
  )
  const burst = stacks([
    ...Array.from({ length: 20 }, (_, i) => sample(i * MS, ['A'], MS)),
    ...Array.from({ length: 50 }, (_, i) => sample((100 + i) * MS, ['B'], MS)),
  ])

  test("a sensor interval's energy goes to the samples inside it, not to the idle time around them", () => {
    const reading = attributeSamples(burst, counter, { power: 'reading', window: win(0, 200 * MS) })
    const split = attributeSamples(burst, counter, {
      window: win(0, 200 * MS),
      minSamplesPerGroup: 1,
    })
    const local = (r: typeof split, m: string) => r.details.find((d) => d.method === m)?.local
    // EDATA: 5 W average power × 20 ms = 0.1 J; the counter says the burst cost 0.5 J.
    expect(local(reading, 'A')?.energyJ).toBeCloseTo(0.1, 12)
    expect(local(split, 'A')?.energyJ).toBeCloseTo(0.5, 12)
    expect(local(split, 'B')?.energyJ).toBeCloseTo(0.2, 12)
    expect(split.attributedEnergyJ, 'every joule once').toBeCloseTo(0.7, 12)
  })

  test('intervals are merged until a group has enough samples; one group splits by sample count', () => {
    const one = attributeSamples(burst, counter, {
      window: win(0, 200 * MS),
      minSamplesPerGroup: 70,
    })
    const a = one.details.find((d) => d.method === 'A')?.local
    expect(a?.energyJ, '0.7 J × 20/70').toBeCloseTo((0.7 * 20) / 70, 12)
    // 60 needed: the second interval (50 samples) is too short on its own and joins the first.
    const merged = attributeSamples(burst, counter, {
      window: win(0, 200 * MS),
      minSamplesPerGroup: 60,
    })
    expect(merged.details.find((d) => d.method === 'B')?.local.energyJ).toBeCloseTo(0.5, 12)
    expect(
      merged.details.find((d) => d.method === 'B')?.local.powerIntervalW,
      '`reading` only',
    ).toBe(undefined)
  })

  test('the energy interval is that of a sum of n sampled values, and covers a fair draw', () => {
    const r = attributeSamples(burst, counter, { window: win(0, 200 * MS), minSamplesPerGroup: 70 })
    const a = r.details.find((d) => d.method === 'A')?.inclusive
    // yᵢ = 0.01 J for A's 20 samples, 0 for the other 50: n·ȳ ± t(69)·√(n·s²).
    const n = 70
    const y = 0.7 / 70
    const mean = (20 * y) / n
    const variance = (20 * (y - mean) ** 2 + 50 * mean ** 2) / (n - 1)
    const half = studentTQuantile(0.975, n - 1) * Math.sqrt(n * variance)
    expect(a?.energyIntervalJ?.low).toBeCloseTo(0.2 - half, 12)
    expect(a?.energyIntervalJ?.high).toBeCloseTo(0.2 + half, 12)
  })

  test('rejects a group size that is not a positive integer', () => {
    for (const bad of [0, 1.5, Number.NaN]) {
      expect(
        codeOf(() =>
          attributeSamples(burst, counter, { window: win(0, 200 * MS), minSamplesPerGroup: bad }),
        ),
      ).toBe(AttributionErrors.INVALID_OPTION)
    }
  })
})

describe('sample counts against a naive count (property)', () => {
  test('local / non-local counts, recursion once, stacks sharing suffixes with the previous one', () => {
    const name = fc.constantFrom('a', 'b', 'c', 'd', 'e')
    // Each step: keep the bottom `keep` frames of the previous stack and push new ones on top.
    const steps = fc.array(fc.tuple(fc.nat(6), fc.array(name, { minLength: 0, maxLength: 5 })), {
      minLength: 1,
      maxLength: 60,
    })
    fc.assert(
      fc.property(steps, (spec) => {
        let prev: string[] = []
        const stacksList: string[][] = []
        for (const [keep, top] of spec) {
          const bottom = prev.slice(Math.max(0, prev.length - keep))
          const frames = [...top, ...bottom]
          stacksList.push(frames)
          prev = frames
        }
        const set = stacks(
          stacksList.map((f, i) => ({ ...sample(i * MS, f, MS), threadId: 1 + (i % 3) })),
        )
        const r = attributeSamples(set, gauge, { power: 'reading', window: win(0, 100 * MS) })
        const local = new Map<string, number>()
        const nonLocal = new Map<string, number>()
        for (const f of stacksList.slice(0, 61)) {
          const leaf = f[0]
          if (leaf === undefined) continue
          local.set(leaf, (local.get(leaf) ?? 0) + 1)
          for (const m of new Set(f.slice(1))) {
            if (m !== leaf) nonLocal.set(m, (nonLocal.get(m) ?? 0) + 1)
          }
        }
        for (const m of r.methods) {
          expect(m.localSamples ?? 0, `${m.method} local`).toBe(local.get(m.method) ?? 0)
          expect(m.nonLocalSamples ?? 0, `${m.method} non-local`).toBe(nonLocal.get(m.method) ?? 0)
        }
        expect(r.methods.length).toBe(new Set([...local.keys(), ...nonLocal.keys()]).size)
      }),
    )
  })
})

describe("power: 'split' with a CPU schedule", () => {
  const counter = (name: string, j: number) =>
    railCurve(
      rail(name, [
        [0, 0],
        [100 * MS, j],
      ]),
    )
  // In one 100 ms interval: the big cluster rail 0.4 J, the little one 0.1 J. The main thread
  // (tid 100) ran 40 ms on CPU 6, a pool thread (101) 40 ms on CPU 1, another process 10 ms on CPU 2.
  const parts = [
    { curve: counter('CPUCL0', 0.1), baselinePowerW: 0, cpus: [0, 1, 2, 3] },
    { curve: counter('CPUCL2', 0.4), baselinePowerW: 0, cpus: [6, 7] },
  ]
  const schedule = {
    source: 'test',
    clock: 'boottime' as const,
    cpus: [0, 1, 2, 3, 6, 7],
    lostEvents: false,
    slices: [
      { cpu: 1, tid: 101, startNs: 10 * MS, endNs: 50 * MS },
      { cpu: 2, tid: 500, startNs: 50 * MS, endNs: 60 * MS },
      { cpu: 6, tid: 100, startNs: 10 * MS, endNs: 50 * MS },
    ],
  }
  const s = (tNs: number, tid: number, leaf: string) => ({
    tNs,
    threadId: tid,
    frames: [leaf],
    periodNs: 10 * MS,
  })
  const set = stacks([
    ...[15, 25, 35, 45].map((t) => s(t * MS, 100, 'bind')),
    ...[15, 25, 35, 45].map((t) => s(t * MS, 101, 'decode')),
  ])

  test("each sample is worth its period at the energy per running second of its CPU's rail", () => {
    const r = attributeSamples(set, counter('sum', 0.5), {
      window: win(0, 100 * MS),
      parts,
      schedule,
    })
    const local = (m: string) => r.details.find((d) => d.method === m)?.local.energyJ
    expect(local('bind'), 'the whole big-cluster rail').toBeCloseTo(0.4, 12)
    expect(local('decode'), "little rail minus the other process's 10 ms").toBeCloseTo(0.08, 12)
  })

  test('a rail without CPUs (interconnect) is shared 1/N among what runs at the same moment', () => {
    // 0.1 J on the system rail: bind and decode run together 10–50 ms, the other process alone
    // 50–60 ms: the union of running time is 50 ms; each app sample stands for 10 ms at 1/2.
    const system = { curve: counter('INT', 0.1), baselinePowerW: 0 }
    const r = attributeSamples(set, counter('sum', 0.1), {
      window: win(0, 100 * MS),
      parts: [system],
      schedule,
    })
    const local = (m: string) => r.details.find((d) => d.method === m)?.local.energyJ
    expect(local('bind')).toBeCloseTo((0.1 * 20) / 50, 12)
    expect(local('decode')).toBeCloseTo((0.1 * 20) / 50, 12)
  })

  test('without the schedule both threads share one power', () => {
    const r = attributeSamples(set, counter('sum', 0.5), {
      window: win(0, 100 * MS),
      minSamplesPerGroup: 1,
    })
    const local = (m: string) => r.details.find((d) => d.method === m)?.local.energyJ
    expect(local('bind')).toBeCloseTo(0.25, 12)
    expect(local('decode')).toBeCloseTo(0.25, 12)
  })
})
