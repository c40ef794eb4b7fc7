/**
 * The sampling pass (names interned in a null-prototype object, the accumulators' arrays read once
 * per sample) against a straightforward count of the same samples: each method's local and
 * non-local samples and the sum of their energies (as `onSample` reports them) in sample order,
 * so the sums must agree to the last bit. Method names include ones an ordinary object already
 * has (`__proto__`, `constructor`) and ones that look like array indices.
 */
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { railCurve } from '../../src/attribution/curve.js'
import { attributeSamples, type SamplingOptions } from '../../src/attribution/sampling.js'
import type { CpuSchedule, CpuSlice, StackSample } from '../../src/model/samples.js'
import { MS, rail, stacks, win } from './_helpers.js'

const NAMES = [
  'com.example.Feed.render',
  'com.example.Feed.bind',
  'android.os.Looper.loop',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '0',
  '17',
  '-1',
  '',
  'é.ü.ß',
]

const WINDOW_NS = 200 * MS

// A counter read every 10 ms, 0.5–2.5 W in turn.
const readings: Array<[number, number]> = [[0, 0]]
for (let i = 1; i <= 22; i++) {
  const [, e] = readings[i - 1] as [number, number]
  readings.push([i * 10 * MS, e + 0.01 * (0.5 + (i % 5) * 0.5)])
}
const curve = railCurve(rail('VSYS', readings))

/** Per method, local and non-local: samples, Σ energy, Σ energy². */
interface Counted {
  samples: number
  energyJ: number
  squaresJ2: number
}

/** `energies`: each sample's worth as `onSample` reported it, in the order attribution met them. */
function countByHand(energies: ReadonlyMap<StackSample, number>) {
  const local = new Map<string, Counted>()
  const nonLocal = new Map<string, Counted>()
  const add = (into: Map<string, Counted>, method: string, e: number): void => {
    const c = into.get(method) ?? { samples: 0, energyJ: 0, squaresJ2: 0 }
    c.samples += 1
    c.energyJ += e
    c.squaresJ2 += e * e
    into.set(method, c)
  }
  for (const [s, e] of energies) {
    const [leaf, ...rest] = s.frames
    if (leaf === undefined) continue
    add(local, leaf, e)
    // Each method once per sample.
    const seen = new Set([leaf])
    for (const f of rest) {
      if (seen.has(f)) continue
      seen.add(f)
      add(nonLocal, f, e)
    }
  }
  return { local, nonLocal }
}

const arbSample = fc.record({
  tNs: fc.integer({ min: -5, max: 210 }).map((ms) => ms * MS),
  threadId: fc.integer({ min: 1, max: 3 }),
  frames: fc.array(fc.constantFrom(...NAMES), { maxLength: 7 }),
  periodNs: fc.option(
    fc.integer({ min: 1, max: 4 }).map((ms) => ms * MS),
    { nil: undefined },
  ),
})

/** Each thread on its own CPU in 1–6 ms slices with gaps. */
function scheduleFor(seed: number): CpuSchedule {
  const slices: CpuSlice[] = []
  for (let tid = 1; tid <= 3; tid++) {
    for (let t = (seed % 3) * MS, i = 0; t < WINDOW_NS; i++) {
      const len = (1 + ((seed + i * tid) % 6)) * MS
      slices.push({ cpu: tid - 1, tid, startNs: t, endNs: t + len })
      t += len + ((i + seed) % 3) * MS
    }
  }
  return { source: 'test', clock: 'boottime', slices, cpus: [0, 1, 2], lostEvents: false }
}

describe('the sampling pass against counting by hand', () => {
  test('samples and energies per method and kind, to the last bit (property)', () => {
    fc.assert(
      fc.property(
        fc.array(arbSample, { maxLength: 120 }),
        fc.constantFrom('groups', 'schedule', 'device'),
        fc.nat(),
        (drawn, mode, seed) => {
          const samples = drawn.map((s) => ({
            tNs: s.tNs,
            threadId: s.threadId,
            frames: s.frames,
            ...(s.periodNs === undefined ? {} : { periodNs: s.periodNs }),
          }))
          const energies = new Map<StackSample, number>()
          const options: SamplingOptions = {
            window: win(0, WINDOW_NS),
            minSamplesPerGroup: 3,
            ...(mode === 'schedule' ? { schedule: scheduleFor(seed) } : {}),
            ...(mode === 'device' ? { threadShare: 'device' as const } : {}),
            onSample: (s, e) => energies.set(s, e),
          }
          const r = attributeSamples(stacks(samples), curve, options)
          const { local, nonLocal } = countByHand(energies)
          const names = new Set([...local.keys(), ...nonLocal.keys()])
          expect(new Set(r.details.map((d) => d.method))).toEqual(names)
          for (const d of r.details) {
            const l = local.get(d.method) ?? { samples: 0, energyJ: 0, squaresJ2: 0 }
            const n = nonLocal.get(d.method) ?? { samples: 0, energyJ: 0, squaresJ2: 0 }
            expect([d.local.samples, d.nonLocal.samples, d.inclusive.samples]).toEqual([
              l.samples,
              n.samples,
              l.samples + n.samples,
            ])
            expect(Object.is(d.local.energyJ, l.energyJ), `${d.method} local`).toBe(true)
            expect(Object.is(d.nonLocal.energyJ, n.energyJ), `${d.method} non-local`).toBe(true)
            expect(Object.is(d.inclusive.energyJ, l.energyJ + n.energyJ)).toBe(true)
          }
          // Nothing else was charged: Σ local = Σ of what the samples were worth.
          let total = 0
          for (const e of energies.values()) total += e
          expect(r.attributedEnergyJ).toBeCloseTo(total, 12)
        },
      ),
      { numRuns: 300 },
    )
  })

  test("a method named like an object's own key is a method like any other", () => {
    const r = attributeSamples(
      stacks([
        { tNs: 1 * MS, threadId: 1, frames: ['__proto__', 'constructor'], periodNs: MS },
        { tNs: 2 * MS, threadId: 1, frames: ['constructor', '__proto__', '0'], periodNs: MS },
        { tNs: 3 * MS, threadId: 1, frames: ['0', '__proto__'], periodNs: MS },
      ]),
      curve,
      { window: win(0, 4 * MS) },
    )
    const samples = Object.fromEntries(
      r.details.map((d) => [`m:${d.method}`, [d.local.samples, d.nonLocal.samples]]),
    )
    expect(samples).toEqual({
      'm:__proto__': [1, 2],
      'm:constructor': [1, 1],
      'm:0': [1, 1],
    })
  })
})
