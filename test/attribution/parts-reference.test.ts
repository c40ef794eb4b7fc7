/**
 * The schedule split's fast paths (cursors instead of binary searches, the busy-CPU count from
 * merged sorted runs or straight from each CPU's run of slices, running time kept per schedule and
 * shared by the floor fit, the split and the warnings) against the straightforward implementation
 * they replaced, kept here as the reference, on random phone-like schedules (slices in any order,
 * overlapping, empty, on shared instants; frequency changes; windows inside the readings). Cluster
 * rails: the same numbers to the last bit. The shared (1/N) rail: its running time per interval is
 * the time anything ran and a slice's ∫ 1/N is summed step by step — equal in exact arithmetic,
 * within SHARED_REL (and a few ulps of the schedule's span for tiny stretches) in floating point.
 */
import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import {
  currentAtKhz,
  Cursor,
  fitTwo,
  fittedFloorW,
  inverseBusyFromRuns,
  inverseBusySorted,
  netEnergyJ,
  partIntervals,
  partRunning,
  runningPerInterval,
  runningWeight,
  type PowerPart,
  type RunningWeight,
} from '../../src/attribution/_parts.js'
import { lastAtOrBefore } from '../../src/attribution/curve.js'
import { cpuMethodPower } from '../../src/attribution/index.js'
import { otherThreadsEnergy } from '../../src/attribution/_warning-facts.js'
import type { EnergyWindow } from '../../src/model/energy.js'
import type { CpuSchedule, CpuSlice } from '../../src/model/samples.js'
import { NS_PER_S } from '../../src/model/units.js'
import { mulberry32 } from '../../src/stats/index.js'
import { rail } from './_helpers.js'

// ---- The reference: the implementation before the fast paths, written for clarity. ----

function refStepWeight(steps: ReadonlyArray<readonly [number, number]>, holdFirst: boolean) {
  const times: number[] = []
  const values: number[] = []
  for (const [t, v] of steps) {
    if (times.length > 0 && times[times.length - 1] === t) values[values.length - 1] = v
    else {
      times.push(t)
      values.push(v)
    }
  }
  const at = Float64Array.from(times)
  const before = holdFirst ? (values[0] ?? 0) : 0
  const prefix = new Float64Array(at.length)
  for (let i = 1; i < at.length; i++) {
    prefix[i] =
      (prefix[i - 1] as number) +
      (values[i - 1] as number) * ((at[i] as number) - (at[i - 1] as number))
  }
  const first = at[0] ?? 0
  const integral = (t: number): number => {
    const i = lastAtOrBefore(at, t)
    if (i < 0) return before * (t - first)
    return (prefix[i] as number) + (values[i] as number) * (t - (at[i] as number))
  }
  return {
    between: (a: number, b: number) => integral(b) - integral(a),
    at: (t: number) => {
      const i = lastAtOrBefore(at, t)
      return i < 0 ? before : (values[i] as number)
    },
  }
}

function refWeight(part: PowerPart, slices: readonly CpuSlice[], schedule: CpuSchedule) {
  const cpus = part.cpus
  if (cpus !== undefined) {
    const changes = (schedule.frequencies ?? []).filter((c) => cpus.includes(c.cpu))
    if (changes.length === 0) return { between: (a: number, b: number) => b - a, at: () => 1 }
    const table = part.coreCurrents
    return refStepWeight(
      changes.map(
        (c) =>
          [c.tNs, table === undefined ? (c.khz / 1e6) ** 2 : currentAtKhz(table, c.khz)] as const,
      ),
      true,
    )
  }
  const edges: Array<[number, number]> = []
  for (const s of slices) if (s.endNs > s.startNs) edges.push([s.startNs, 1], [s.endNs, -1])
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1])
  let busy = 0
  return refStepWeight(
    edges.map(([t, d]) => {
      busy += d
      return [t, busy > 0 ? 1 / busy : 0] as const
    }),
    false,
  )
}

function refRunning(
  slices: readonly CpuSlice[],
  weight: Pick<RunningWeight, 'between'>,
  bounds: Float64Array,
): Float64Array {
  const running = new Float64Array(bounds.length - 1)
  const from = bounds[0] as number
  const to = bounds[bounds.length - 1] as number
  for (const slice of slices) {
    const a = Math.max(slice.startNs, from)
    const b = Math.min(slice.endNs, to)
    if (!(b > a)) continue
    for (let j = Math.max(0, lastAtOrBefore(bounds, a)); j < running.length; j++) {
      if ((bounds[j] as number) >= b) break
      const overlap = Math.min(b, bounds[j + 1] as number) - Math.max(a, bounds[j] as number)
      if (!(overlap > 0)) continue
      const start = Math.max(a, bounds[j] as number)
      running[j] = (running[j] as number) + weight.between(start, start + overlap)
    }
  }
  return running
}

const onCpus = (part: PowerPart, schedule: CpuSchedule): CpuSlice[] =>
  schedule.slices.filter((x) => part.cpus === undefined || part.cpus.includes(x.cpu))

function refFittedFloorW(
  part: PowerPart,
  schedule: CpuSchedule,
  window: EnergyWindow,
): number | undefined {
  const { bounds, energyJ } = partIntervals({ ...part, baselinePowerW: 0, tails: [] }, window)
  if (energyJ.length < 10) return undefined
  const slices = onCpus(part, schedule)
  const running = refRunning(slices, refWeight(part, slices, schedule), bounds)
  const t = new Float64Array(energyJ.length)
  const x = new Float64Array(energyJ.length)
  for (let j = 0; j < t.length; j++) {
    t[j] = ((bounds[j + 1] as number) - (bounds[j] as number)) / NS_PER_S
    x[j] = (running[j] as number) / NS_PER_S
  }
  const fit = fitTwo(t, x, energyJ, 0.01)
  if (fit === undefined) return undefined
  return fit[0] > 0 && fit[1] > 0 && Number.isFinite(fit[0]) ? fit[0] : undefined
}

/** Bounds taken whole at the window's edges, and the plain (not core-power) share and rate. */
function refPartRunning(part: PowerPart, schedule: CpuSchedule, window: EnergyWindow) {
  // The readings inside the window, and the nearest one beyond each edge when there is one.
  const { curve } = part
  const inside = curve
    .readingTimesIn(window.startNs, window.endNs)
    .filter((t) => t > window.startNs && t < window.endNs)
  const before = curve.readingTimesIn(curve.firstNs, window.startNs).at(-1) ?? window.startNs
  const after = curve.readingTimesIn(window.endNs, curve.lastNs)[0] ?? window.endNs
  const bounds = Float64Array.from([
    Math.min(before, window.startNs),
    ...inside,
    Math.max(after, window.endNs),
  ])
  const energyJ = new Float64Array(bounds.length - 1)
  for (let j = 0; j < energyJ.length; j++) {
    // Cut at the window's edge only where no reading lies beyond it.
    energyJ[j] = netEnergyJ(part, bounds[j] as number, bounds[j + 1] as number)
  }
  const slices = onCpus(part, schedule)
  const weight = refWeight(part, slices, schedule)
  const running = refRunning(slices, weight, bounds)
  return {
    bounds,
    energyJ,
    slices,
    running,
    shareOf: (a: number, b: number, j: number) => weight.between(a, b) / (running[j] as number),
    rateAt: (t: number, j: number) => weight.at(t) / (running[j] as number),
  }
}

// ---- Random phone-like inputs. ----

const CLUSTERS = [
  [0, 1, 2, 3],
  [4, 5],
  [6, 7],
] as const

function phone(seed: number) {
  const rand = mulberry32(seed)
  const endNs = 1e9 + rand() * 2e9
  // Integer ns as from ftrace, or fractions (sums then round differently).
  const integer = rand() < 0.5
  const q = (x: number): number => (integer ? Math.round(x) : x)
  const slices: CpuSlice[] = []
  for (let cpu = 0; cpu < 8; cpu++) {
    let t = rand() * 1e6
    while (t < endNs) {
      const len = rand() < 0.05 ? 0 : 20_000 + rand() * 3e6
      const tid = rand() < 0.4 ? 1 + Math.floor(rand() * 4) : 1000 + Math.floor(rand() * 20)
      slices.push({
        cpu,
        tid,
        startNs: q(t),
        endNs: q(Math.min(endNs, t + len)),
        ...(tid >= 1000 && rand() < 0.5 ? { comm: `proc${tid % 5}` } : {}),
      })
      // Sometimes back to back (an end and a start on one instant), sometimes overlapping.
      t += len + (rand() < 0.1 ? 0 : rand() < 0.05 ? -len / 2 : rand() * 500_000)
    }
  }
  const order = rand()
  if (order < 0.3) slices.sort(() => rand() - 0.5)
  else if (order < 0.6) slices.sort((a, b) => a.startNs - b.startNs)
  const frequencies = []
  for (const cpus of CLUSTERS) {
    for (let t = rand() * 20e6; t < endNs; t += rand() < 0.1 ? 0 : 1e6 + rand() * 40e6) {
      const khz = 300_000 + Math.floor(rand() * 8) * 300_000
      for (const cpu of cpus) frequencies.push({ cpu, tNs: q(t), khz })
    }
  }
  frequencies.sort((a, b) => a.tNs - b.tNs || a.cpu - b.cpu)
  const stepNs = 5e6 + rand() * 60e6
  const readings = (): Array<[number, number]> => {
    const points: Array<[number, number]> = [[0, 0]]
    for (let t = 0, e = 0; t < endNs;) {
      t += q(stepNs * (0.9 + 0.2 * rand()))
      e += (stepNs / 1e9) * (0.05 + rand())
      points.push([t, e])
    }
    return points
  }
  const rails = (
    [
      ['S4M_VDD_CPUCL0', 'CPU(LITTLE)'],
      ['S3M_VDD_CPUCL1', 'CPU(MID)'],
      ['S2M_VDD_CPUCL2', 'CPU(BIG)'],
      ['S5M_VDD_INT', 'System'],
    ] as const
  ).map(([name, subsystem]) => rail(name, readings(), subsystem))
  const schedule: CpuSchedule = {
    source: 'test',
    clock: 'boottime',
    slices,
    cpus: [0, 1, 2, 3, 4, 5, 6, 7],
    lostEvents: false,
    frequencies,
  }
  // The profile's per-core currents for every cluster in half the cases, the (f / 1 GHz)² proxy else.
  const coreCurrents =
    rand() < 0.5
      ? CLUSTERS.map(() => ({
          speedsKhz: [300_000, 1_200_000, 2_400_000],
          currentsMa: [5, 31, 150],
        }))
      : undefined
  const startNs = q(rand() * endNs * 0.3)
  const window: EnergyWindow = {
    clock: 'boottime',
    startNs,
    endNs: q(startNs + endNs * (0.3 + 0.4 * rand())),
  }
  return { rails, schedule, window, coreCurrents, rand }
}

/**
 * How far the shared (1/N) rail's figures may move. Its running time per interval is now the time
 * anything ran rather than the sum of every slice's ∫ 1/N, and a slice's ∫ 1/N is summed step by
 * step rather than taken as a difference of a prefix integral over the whole schedule: equal in
 * exact arithmetic. The reference's terms are rounded at the prefix integral's magnitude (up to
 * the schedule's span in ns), so a tiny stretch's ∫ may differ by a few of its ulps beyond the
 * relative tolerance: `SHARED_ULPS` of the span.
 */
const SHARED_REL = 1e-12
const SHARED_ULPS = 8

/** Within `rel` of each expected number plus `abs` (NaN equals NaN). */
function expectClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  rel: number,
  abs = 0,
): void {
  expect(actual.length).toBe(expected.length)
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i] as number
    const e = expected[i] as number
    if (Object.is(a, e)) continue
    const d = Math.abs(a - e)
    if (!(d <= rel * Math.abs(e) + abs)) expect.fail(`index ${i}: ${a} vs ${e} (by ${d})`)
  }
}

/** `SHARED_ULPS` ulps of a time, ns (the reference's rounding of a prefix integral that large). */
const ulpsOf = (tNs: number): number => SHARED_ULPS * Number.EPSILON * Math.abs(tNs)

/** The same numbers, bit for bit (`Object.is`: NaN equals NaN, 0 and −0 differ). */
function expectSame(actual: ArrayLike<number>, expected: ArrayLike<number>): void {
  expect(actual.length).toBe(expected.length)
  for (let i = 0; i < expected.length; i++) {
    if (!Object.is(actual[i], expected[i])) {
      expect.fail(`index ${i}: ${actual[i]} ≠ ${expected[i]}`)
    }
  }
}

describe('Cursor: lastAtOrBefore from the previous answer', () => {
  test('the same index as the binary search for any sequence of times (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 60 }),
        fc.array(fc.double({ min: -60, max: 60, noNaN: true }), { maxLength: 80 }),
        (values, asked) => {
          const times = Float64Array.from(values.sort((a, b) => a - b))
          const cursor = new Cursor(times)
          for (const t of asked) expect(cursor.index(t)).toBe(lastAtOrBefore(times, t))
        },
      ),
      { numRuns: 500 },
    )
  })
})

describe('the schedule split against the reference implementation', () => {
  test('the busy-CPU weight (1/N) from merged sorted runs: every integral and value the same', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const { schedule, window, rand } = phone(seed)
      const fast = runningWeight({} as PowerPart, schedule.slices)
      const slow = refWeight({} as PowerPart, schedule.slices, schedule)
      const span = window.endNs - window.startNs
      for (let k = 0; k < 2000; k++) {
        const a = window.startNs + rand() * span
        const b = a + rand() * 5e6
        const lane = Math.floor(rand() * 8)
        expectSame([fast.at(a, lane)], [slow.at(a)])
        expectClose([fast.between(a, b, lane)], [slow.between(a, b)], SHARED_REL, ulpsOf(b))
      }
    }
  })

  test('the busy-CPU steps merged from runs (sched_switch: each CPU in order) are the sorted ones', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const { schedule, window, rand } = phone(seed)
      // Each CPU's slices in time order without overlaps (empty and back-to-back ones kept), CPU
      // by CPU as the Perfetto parser gives them; in some cases a few CPUs cut in two runs.
      const perCpu: CpuSlice[] = []
      for (let cpu = 0; cpu < 8; cpu++) {
        let endNs = -Infinity
        for (const x of schedule.slices
          .filter((y) => y.cpu === cpu)
          .sort((p, q) => p.startNs - q.startNs)) {
          if (x.startNs < endNs) continue
          perCpu.push(x)
          if (x.endNs > x.startNs) endNs = x.endNs
        }
      }
      if (seed % 3 === 0) perCpu.push(...perCpu.splice(0, perCpu.length >> 2))
      const fromRuns = inverseBusyFromRuns(perCpu)
      expect(fromRuns).toBeDefined()
      expectSame(fromRuns?.times ?? [], inverseBusySorted(perCpu).times)
      expectSame(fromRuns?.counts ?? [], inverseBusySorted(perCpu).counts)
      // And the weight built from them, against the reference.
      const fast = runningWeight({} as PowerPart, perCpu)
      const slow = refWeight({} as PowerPart, perCpu, schedule)
      const span = window.endNs - window.startNs
      for (let k = 0; k < 500; k++) {
        const a = window.startNs + rand() * span
        const b = a + rand() * 5e6
        expectSame([fast.at(a)], [slow.at(a)])
        expectClose([fast.between(a, b)], [slow.between(a, b)], SHARED_REL, ulpsOf(b))
      }
    }
    // Slices that overlap on one CPU break the runs: too many of them, and the sorted path is used.
    const { schedule, rand } = phone(1)
    expect(inverseBusyFromRuns([...schedule.slices].sort(() => rand() - 0.5))).toBeUndefined()
    // So does an infinite time (it would tie with the runs that are done).
    const endless = [{ cpu: 0, tid: 1, startNs: 5, endNs: Infinity }]
    expect(inverseBusyFromRuns(endless)).toBeUndefined()
    expect(runningWeight({} as PowerPart, endless).between(0, 10)).toBe(5)
  })

  test("the shared rail's running time per interval is the time anything ran: the slice-by-slice sums within SHARED_REL", () => {
    for (let seed = 1; seed <= 12; seed++) {
      const { schedule, window, rand } = phone(seed)
      const weight = runningWeight({} as PowerPart, schedule.slices)
      expect(weight.perInterval).toBeDefined()
      // Intervals of 1–60 ms from before the first slice to past the window, some of them empty.
      const firstNs = Math.min(...schedule.slices.map((x) => x.startNs))
      const times = [firstNs - 20e6, firstNs - 1e6]
      while ((times.at(-1) as number) < window.endNs + 5e6) {
        times.push((times.at(-1) as number) + (rand() < 0.05 ? 0 : 1e6 + rand() * 59e6))
      }
      const bounds = Float64Array.from(times)
      const busy = weight.perInterval?.(bounds) ?? new Float64Array()
      expectClose(busy, refRunning(schedule.slices, weight, bounds), SHARED_REL)
      expectClose(busy, runningPerInterval(schedule.slices, weight, bounds), SHARED_REL)
      // No more than the interval, nothing where nothing ran.
      for (let j = 0; j < busy.length; j++) {
        expect(busy[j]).toBeLessThanOrEqual((bounds[j + 1] as number) - (bounds[j] as number))
      }
      expect(busy[0]).toBe(0)
      expect(busy.some((x) => x > 0)).toBe(true)
    }
  })

  test('fitted floors, whole-edge intervals, shares and rates: the same (the shared rail within SHARED_REL)', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const { rails, schedule, window, coreCurrents, rand } = phone(seed)
      const power = cpuMethodPower(rails, window, undefined, CLUSTERS, schedule, coreCurrents)
      expect(power).toBeDefined()
      const parts = power?.parts ?? []
      expect(parts.length).toBe(4)
      for (const part of parts) {
        // Cluster rails to the last bit; the shared rail within SHARED_REL.
        const same =
          part.cpus === undefined
            ? (x: ArrayLike<number>, y: ArrayLike<number>) => expectClose(x, y, SHARED_REL)
            : expectSame
        const unfitted = { ...part, baselinePowerW: 0 }
        same(
          [fittedFloorW(unfitted, schedule, window) ?? Number.NaN],
          [refFittedFloorW(unfitted, schedule, window) ?? Number.NaN],
        )
        const fast = partRunning(part, schedule, window, parts)
        const slow = refPartRunning(part, schedule, window)
        expectSame(fast.bounds, slow.bounds)
        expectSame(fast.energyJ, slow.energyJ)
        expect(fast.slices).toEqual(slow.slices)
        // Asked again (as the warnings ask after the split): the kept answer.
        expect(partRunning(part, schedule, window, parts)).toBe(fast)
        for (const slice of slow.slices.slice(0, 3000)) {
          const j = Math.max(0, lastAtOrBefore(slow.bounds, slice.startNs))
          if (j >= slow.energyJ.length) continue
          const a = Math.max(slice.startNs, slow.bounds[j] as number)
          const b = Math.min(slice.endNs, slow.bounds[j + 1] as number)
          if (!(b > a)) continue
          const t = a + rand() * (b - a)
          same([fast.rateAt(slice.cpu, t, j)], [slow.rateAt(t, j)])
          if (part.cpus !== undefined) {
            expectSame([fast.shareOf(slice.cpu, a, b, j)], [slow.shareOf(a, b, j)])
          } else {
            expectClose(
              [fast.shareOf(slice.cpu, a, b, j)],
              [slow.shareOf(a, b, j)],
              SHARED_REL,
              ulpsOf(b) / (slow.running[j] as number),
            )
          }
        }
      }
    }
  })

  test("other processes' energy per name: the reference's sums", () => {
    for (let seed = 1; seed <= 8; seed++) {
      const { rails, schedule, window } = phone(seed)
      const parts = cpuMethodPower(rails, window, undefined, CLUSTERS, schedule)?.parts ?? []
      const byName = new Map<string, number>()
      for (const part of parts) {
        const { bounds, energyJ, slices, shareOf } = refPartRunning(part, schedule, window)
        for (const slice of slices) {
          if (slice.tid < 1000) continue
          const a = Math.max(slice.startNs, window.startNs)
          const b = Math.min(slice.endNs, window.endNs)
          if (!(b > a)) continue
          const name = slice.comm ?? `tid ${slice.tid}`
          for (let j = Math.max(0, lastAtOrBefore(bounds, a)); j < energyJ.length; j++) {
            if ((bounds[j] as number) >= b) break
            const overlap = Math.min(b, bounds[j + 1] as number) - Math.max(a, bounds[j] as number)
            if (!(overlap > 0)) continue
            const from = Math.max(a, bounds[j] as number)
            const share = (energyJ[j] as number) * shareOf(from, from + overlap, j)
            if (Number.isFinite(share)) byName.set(name, (byName.get(name) ?? 0) + share)
          }
        }
      }
      const expected = [...byName]
        .map(([name, energyJ]) => ({ name, energyJ: Math.max(0, energyJ) }))
        .filter((u) => u.energyJ > 0)
        .sort((x, y) => y.energyJ - x.energyJ)
      expect(expected.length).toBeGreaterThan(0)
      const actual = otherThreadsEnergy(parts, schedule, window, (x) => x.tid < 1000)
      const sortedByName = (list: ReadonlyArray<{ name: string; energyJ: number }>) =>
        [...list].sort((x, y) => x.name.localeCompare(y.name))
      expect(sortedByName(actual).map((u) => u.name)).toEqual(
        sortedByName(expected).map((u) => u.name),
      )
      expectClose(
        sortedByName(actual).map((u) => u.energyJ),
        sortedByName(expected).map((u) => u.energyJ),
        SHARED_REL,
      )
      // Largest first.
      for (let i = 1; i < actual.length; i++) {
        expect(actual[i - 1]?.energyJ).toBeGreaterThanOrEqual(actual[i]?.energyJ as number)
      }
    }
  })
})
