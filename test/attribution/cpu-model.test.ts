import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { attributeIntervals, attributeSamples } from '../../src/attribution/index.js'
import {
  cpuModelEnergies,
  modelledCpuRails,
  modelledMethodPower,
  nominalScales,
  withModelFrequencies,
  type CpuPowerModel,
} from '../../src/attribution/cpu-model.js'
import type { CpuSchedule, CpuSlice } from '../../src/model/samples.js'
import { MS, S, call, cpuSchedule, trace, win } from './_helpers.js'

/** Two clusters: CPUs 0–1 (little) and 2 (big). */
const MODEL: CpuPowerModel = {
  clusters: [
    {
      cpus: [0, 1],
      currents: { speedsKhz: [1_000_000, 2_000_000], currentsMa: [100, 200], clusterMa: 10 },
    },
    { cpus: [2], currents: { speedsKhz: [1_000_000, 3_000_000], currentsMa: [300, 900] } },
  ],
  activeMa: 5,
}
const V = 4

describe('cpuModelEnergies (the framework’s CPU model on a schedule)', () => {
  test('a hand-computed schedule: core at its frequency, cluster once, cpu.active once', () => {
    // cpu0 runs 0–1 s; cpu1 runs 0.5–1 s; the little cluster goes 1 → 2 GHz at 0.5 s; cpu2 runs
    // 0.25–0.75 s at 1 GHz (its first change, at 0.6 s, stands in before it: 3 GHz).
    const schedule: CpuSchedule = {
      ...cpuSchedule(
        [
          { cpu: 0, tid: 1, startNs: 0, endNs: S },
          { cpu: 1, tid: 2, startNs: 0.5 * S, endNs: S },
          { cpu: 2, tid: 3, startNs: 0.25 * S, endNs: 0.75 * S },
        ],
        [0, 1, 2],
      ),
      frequencies: [
        { cpu: 0, tNs: 0, khz: 1_000_000 },
        { cpu: 1, tNs: 0, khz: 1_000_000 },
        { cpu: 0, tNs: 0.5 * S, khz: 2_000_000 },
        { cpu: 1, tNs: 0.5 * S, khz: 2_000_000 },
        { cpu: 2, tNs: 0.6 * S, khz: 1_000_000 },
      ],
    }
    const e = cpuModelEnergies(MODEL, schedule, [0, 0.5 * S, S], V)
    const w = V / 1000
    // Little: 0–0.5 s one core at 100 + cluster 10; 0.5–1 s two cores at 200 + 10.
    expect(e.clusters[0]?.[1]).toBeCloseTo((100 + 10) * w * 0.5, 12)
    expect(e.clusters[0]?.[2]).toBeCloseTo((100 + 10) * w * 0.5 + (400 + 10) * w * 0.5, 12)
    // Big: the first traced frequency (1 GHz at 0.6 s) stands in before it: 0.5 s at 300 mA.
    expect(e.clusters[1]?.[2]).toBeCloseTo(300 * w * 0.5, 12)
    // cpu.active while any CPU runs: the whole second.
    expect(e.active[2]).toBeCloseTo(5 * w * 1, 12)
    expect(e.active[0]).toBe(0)
  })

  test('without frequency events: the assumed frequency, else the middle of the table', () => {
    const schedule = cpuSchedule([{ cpu: 2, tid: 3, startNs: 0, endNs: S }], [2])
    const assumed = cpuModelEnergies(MODEL, schedule, [0, S], V, [undefined, 3_000_000])
    expect(assumed.clusters[1]?.[1]).toBeCloseTo(900 * (V / 1000), 12)
    const middle = cpuModelEnergies(MODEL, schedule, [0, S], V)
    expect(middle.clusters[1]?.[1]).toBeCloseTo(900 * (V / 1000), 12)
  })

  test('energy is additive over any split of the query times (property)', () => {
    fc.assert(
      fc.property(
        randomSchedule(),
        fc.array(fc.integer({ min: 1, max: 999 }), { minLength: 1 }),
        (schedule, cuts) => {
          const times = [0, ...[...new Set(cuts)].sort((a, b) => a - b).map((c) => c * MS), S]
          const fine = cpuModelEnergies(MODEL, schedule, times, V)
          const coarse = cpuModelEnergies(MODEL, schedule, [0, S], V)
          expect(fine.clusters[0]?.at(-1)).toBeCloseTo(coarse.clusters[0]?.[1] ?? NaN, 9)
          expect(fine.active.at(-1)).toBeCloseTo(coarse.active[1] ?? NaN, 9)
          for (let i = 1; i < times.length; i++) {
            expect(fine.active[i] ?? 0).toBeGreaterThanOrEqual((fine.active[i - 1] ?? 0) - 1e-15)
          }
        },
      ),
    )
  })
})

describe('modelled rails divided among methods', () => {
  test("each method gets its thread's modelled energy exactly, other processes' stays unattributed (interval method)", () => {
    fc.assert(
      fc.property(randomSchedule(), (traced) => {
        const window = win(0, S)
        const schedule = withModelFrequencies(MODEL, traced, window)
        const rails = modelledCpuRails(MODEL, schedule, window, nominalScales(MODEL), V)
        const power = modelledMethodPower(rails, MODEL)
        // Threads 1 and 2 are the app's: each runs one method for the whole window.
        const calls = trace([call(1, 'a', 0, S), call(2, 'b', 0, S)])
        const r = attributeIntervals(calls, power.curve, {
          window,
          parts: power.parts,
          schedule,
        })
        for (const [tid, method] of [
          [1, 'a'],
          [2, 'b'],
        ] as const) {
          const expected = threadModelEnergyJ(schedule, tid)
          const got = r.methods.find((m) => m.method === method)?.localEnergyJ ?? 0
          expect(got).toBeCloseTo(expected, 9)
        }
      }),
      { numRuns: 40 },
    )
  })

  test('the same through stack samples (sampling split)', () => {
    const window = win(0, S)
    const schedule = withModelFrequencies(
      MODEL,
      cpuSchedule(
        [
          { cpu: 0, tid: 1, startNs: 0, endNs: 400 * MS },
          { cpu: 2, tid: 2, startNs: 200 * MS, endNs: 600 * MS },
          { cpu: 1, tid: 9, startNs: 100 * MS, endNs: 900 * MS },
        ],
        [0, 1, 2],
      ),
      window,
    )
    const scales = { clusters: [1.2, 0.8], active: 1.1 }
    const rails = modelledCpuRails(MODEL, schedule, window, scales, V)
    const power = modelledMethodPower(rails, MODEL)
    const samples = []
    for (let t = 0.5 * MS; t < S; t += MS) {
      if (t < 400 * MS) samples.push({ tNs: t, threadId: 1, frames: ['a'], periodNs: MS })
      if (t >= 200 * MS && t < 600 * MS)
        samples.push({ tNs: t, threadId: 2, frames: ['b'], periodNs: MS })
    }
    const r = attributeSamples({ clock: 'boottime', samples, lostCount: 0 }, power.curve, {
      window,
      parts: power.parts,
      schedule,
    })
    const local = (m: string) => r.methods.find((x) => x.method === m)?.localEnergyJ ?? NaN
    expect(local('a')).toBeCloseTo(threadModelEnergyJ(schedule, 1, scales), 9)
    expect(local('b')).toBeCloseTo(threadModelEnergyJ(schedule, 2, scales), 9)
  })
})

/**
 * A thread's modelled energy by brute force: every 0.1 ms, its core's current at the cluster's
 * frequency, the cluster's current shared among the cluster's running CPUs, cpu.active shared
 * among all running CPUs.
 */
function threadModelEnergyJ(
  schedule: CpuSchedule,
  tid: number,
  scales = { clusters: [1, 1], active: 1 },
): number {
  const step = 0.01 * MS
  const w = V / 1000
  let total = 0
  for (let t = step / 2; t < S; t += step) {
    const running = schedule.slices.filter((s) => s.startNs <= t && t < s.endNs)
    const mine = running.find((s) => s.tid === tid)
    if (mine === undefined) continue
    const k = MODEL.clusters.findIndex((c) => c.cpus.includes(mine.cpu))
    const cluster = MODEL.clusters[k]
    if (cluster === undefined) continue
    const khz = frequencyAt(schedule, cluster.cpus, t) ?? cluster.currents.speedsKhz[1] ?? 0
    const table = cluster.currents
    const core = table.currentsMa[table.speedsKhz.indexOf(khz)] ?? NaN
    const sameCluster = running.filter((s) => cluster.cpus.includes(s.cpu)).length
    const scale = scales.clusters[k] ?? 1
    total +=
      (scale * (core + (table.clusterMa ?? 0) / sameCluster) +
        (scales.active * MODEL.activeMa) / running.length) *
      w *
      (step / S)
  }
  return total
}

function frequencyAt(
  schedule: CpuSchedule,
  cpus: readonly number[],
  t: number,
): number | undefined {
  const changes = (schedule.frequencies ?? []).filter((c) => cpus.includes(c.cpu))
  let khz = changes[0]?.khz
  for (const c of changes) if (c.tNs <= t) khz = c.khz
  return khz
}

/** Random slices of threads 1, 2 (the app) and 9 (another process), on 10 µs boundaries. */
function randomSchedule(): fc.Arbitrary<CpuSchedule> {
  const slice = fc
    .record({
      cpu: fc.integer({ min: 0, max: 2 }),
      tid: fc.constantFrom(1, 2, 9),
      start: fc.integer({ min: 0, max: 9_000 }),
      length: fc.integer({ min: 1, max: 3_000 }),
    })
    .map(({ cpu, tid, start, length }) => ({
      cpu,
      tid,
      startNs: start * 0.1 * MS,
      endNs: Math.min(10_000, start + length) * 0.1 * MS,
    }))
  const change = fc.record({
    cluster: fc.integer({ min: 0, max: 1 }),
    t: fc.integer({ min: 0, max: 9_999 }),
    high: fc.boolean(),
  })
  return fc
    .record({
      slices: fc.array(slice, { maxLength: 12 }),
      changes: fc.array(change, { maxLength: 6 }),
    })
    .map(({ slices, changes }) => {
      // One thread per CPU at a time, and one CPU per thread at a time: keep what does not overlap.
      const kept: CpuSlice[] = []
      for (const s of slices) {
        const clash = kept.some(
          (k) => (k.cpu === s.cpu || k.tid === s.tid) && k.startNs < s.endNs && s.startNs < k.endNs,
        )
        if (!clash && s.endNs > s.startNs) kept.push(s)
      }
      kept.sort((a, b) => a.cpu - b.cpu || a.startNs - b.startNs)
      const frequencies = changes
        .map((c) => ({
          cpus: MODEL.clusters[c.cluster]?.cpus ?? [],
          tNs: c.t * 0.1 * MS,
          khz: MODEL.clusters[c.cluster]?.currents.speedsKhz[c.high ? 1 : 0] ?? 0,
        }))
        .sort((a, b) => a.tNs - b.tNs)
        .flatMap((c) => c.cpus.map((cpu) => ({ cpu, tNs: c.tNs, khz: c.khz })))
      return { ...cpuSchedule(kept, [0, 1, 2]), frequencies }
    })
}
