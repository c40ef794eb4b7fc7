import { describe, expect, test } from 'vitest'
import { powerCurve, railCurve } from '../../src/attribution/curve.js'
import { AttributionErrors } from '../../src/attribution/errors.js'
import { attributeIntervals } from '../../src/attribution/interval.js'
import { MS, S, call, codeOf, rail, series, trace, win } from './_helpers.js'

const flat = (w: number, endS = 10) =>
  powerCurve(
    series([
      [0, w],
      [endS * S, w],
    ]),
  )

const byName = (r: ReturnType<typeof attributeIntervals>, name: string) => {
  const m = r.methods.find((x) => x.method === name)
  if (m === undefined) throw new Error(`no ${name}`)
  return m
}

describe('interval attribution (PETrA Eq. 3)', () => {
  test('inclusive = ∫P over the call; exclusive subtracts same-thread children', () => {
    const r = attributeIntervals(
      trace([
        call(1, 'A', 0, 4 * S),
        call(1, 'B', 1 * S, 2 * S, 1),
        call(1, 'C', 2.5 * S, 3 * S, 1),
      ]),
      flat(1),
      { window: win(0, 5 * S) },
    )
    expect(byName(r, 'A').inclusiveEnergyJ).toBeCloseTo(4, 12)
    expect(byName(r, 'A').localEnergyJ, '4 − 1 − 0.5').toBeCloseTo(2.5, 12)
    expect(byName(r, 'B').inclusiveEnergyJ).toBeCloseTo(1, 12)
    expect(byName(r, 'C').localEnergyJ).toBeCloseTo(0.5, 12)
    expect(r.idleEnergyJ, '4 s → 5 s has no call').toBeCloseTo(1, 12)
    expect(r.attributedEnergyJ + r.idleEnergyJ, 'every joule lands once').toBeCloseTo(5, 12)
    expect(byName(r, 'A').localTimeS).toBeCloseTo(2.5, 12)
    expect(byName(r, 'A').calls).toBe(1)
  })

  test('PETrA Eq. 3: a call spanning a power change sums the frames J = Σ P_Δ·T_Δ', () => {
    // Zero-order hold: 1 W until 2 s, then 3 W (a component changed state).
    const c = powerCurve(
      series([
        [0, 1],
        [2 * S, 3],
        [10 * S, 3],
      ]),
      { integration: 'zero-order-hold' },
    )
    const r = attributeIntervals(trace([call(1, 'm', 1 * S, 4 * S)]), c, { window: win(0, 10 * S) })
    expect(byName(r, 'm').inclusiveEnergyJ, '1 W × 1 s + 3 W × 2 s').toBeCloseTo(7, 12)
  })

  test('recursion is counted once in inclusive energy', () => {
    const r = attributeIntervals(
      trace([call(1, 'A', 0, 4 * S), call(1, 'A', 1 * S, 2 * S, 1)]),
      flat(1),
      { window: win(0, 4 * S) },
    )
    const a = byName(r, 'A')
    expect(a.inclusiveEnergyJ).toBeCloseTo(4, 12)
    expect(a.localEnergyJ).toBeCloseTo(4, 12)
    expect(a.nonLocalEnergyJ).toBeCloseTo(0, 12)
    expect(a.calls).toBe(2)
  })

  test('vLens Fig. 4: T1 gets E(t1,t2) + ½E(t2,t3) + ⅓E(t3,t4)', () => {
    // Varying power so each segment has a different energy.
    const c = powerCurve(
      series([
        [0, 1],
        [1 * S, 2],
        [2 * S, 4],
        [3 * S, 8],
        [4 * S, 8],
      ]),
    )
    const [t1, t2, t3, t4] = [0, 1 * S, 2 * S, 3 * S]
    const r = attributeIntervals(
      trace([call(1, 'T1.api', t1, t4), call(2, 'T2.run', t2, t4), call(3, 'T3.run', t3, t4)]),
      c,
      { window: win(0, 4 * S) },
    )
    const expected = c.energyJ(t1, t2) + c.energyJ(t2, t3) / 2 + c.energyJ(t3, t4) / 3
    expect(byName(r, 'T1.api').inclusiveEnergyJ).toBeCloseTo(expected, 12)
    expect(byName(r, 'T2.run').inclusiveEnergyJ).toBeCloseTo(
      c.energyJ(t2, t3) / 2 + c.energyJ(t3, t4) / 3,
      12,
    )
    expect(byName(r, 'T3.run').inclusiveEnergyJ).toBeCloseTo(c.energyJ(t3, t4) / 3, 12)
  })

  test('dual clock: concurrent threads share by thread-CPU delta, 1/N when asked', () => {
    const calls = [
      call(1, 'busy', 0, 1 * S, 0, [0, 0.75 * S]),
      call(2, 'light', 0, 1 * S, 0, [0, 0.25 * S]),
    ]
    const r = attributeIntervals(trace(calls), flat(2), { window: win(0, 1 * S) })
    expect(byName(r, 'busy').inclusiveEnergyJ).toBeCloseTo(1.5, 12)
    expect(byName(r, 'light').inclusiveEnergyJ).toBeCloseTo(0.5, 12)
    const eq = attributeIntervals(trace(calls), flat(2), {
      window: win(0, 1 * S),
      threadShare: 'equal',
    })
    expect(byName(eq, 'busy').inclusiveEnergyJ).toBeCloseTo(1, 12)
    // One thread without CPU clock → 1/N for that segment.
    const mixed = attributeIntervals(
      trace([calls[0] as never, call(2, 'light', 0, 1 * S)]),
      flat(2),
      { window: win(0, 1 * S) },
    )
    expect(byName(mixed, 'light').inclusiveEnergyJ).toBeCloseTo(1, 12)
  })

  test('vLens Eq. 1: a call shorter than the sampling interval gets (t2−t1)/(t4−t3) · E(t3,t4)', () => {
    const [t3, t4] = [0, 1 * S]
    const [t1, t2] = [0.3 * S, 0.35 * S]
    // Cumulative counter read only at t3 and t4.
    const counter = railCurve(
      rail('VDD', [
        [t3, 10],
        [t4, 10.8],
      ]),
    )
    const r = attributeIntervals(trace([call(1, 'short', t1, t2)]), counter, {
      window: win(t3, t4),
      split: 'time',
    })
    expect(byName(r, 'short').inclusiveEnergyJ).toBeCloseTo(((t2 - t1) / (t4 - t3)) * 0.8, 12)
    // Same with a held reading (PETrA's frames).
    const held = powerCurve(
      series([
        [t3, 0.8],
        [t4, 5],
      ]),
      { integration: 'zero-order-hold' },
    )
    const r2 = attributeIntervals(trace([call(1, 'short', t1, t2)]), held, { window: win(t3, t4) })
    expect(byName(r2, 'short').inclusiveEnergyJ).toBeCloseTo(
      ((t2 - t1) / (t4 - t3)) * held.energyJ(t3, t4),
      12,
    )
  })

  describe("split: 'activity' (the default for counters)", () => {
    const [t3, t4] = [0, 1 * S]
    const counter = railCurve(
      rail('VDD', [
        [t3, 10],
        [0.5 * S, 10.6],
        [t4, 10.8],
      ]),
    )

    test("a counter interval's energy goes to the only activity inside it, however short", () => {
      const r = attributeIntervals(trace([call(1, 'short', 0.3 * S, 0.35 * S)]), counter, {
        window: win(t3, t4),
      })
      expect(byName(r, 'short').inclusiveEnergyJ, 'all of [0, 0.5 s]').toBeCloseTo(0.6, 12)
      expect(r.idleEnergyJ, '[0.5 s, 1 s] had no traced activity').toBeCloseTo(0.2, 12)
    })

    test('inside one counter interval, calls share by thread-CPU time (dual clock)', () => {
      // 'a' runs 50 ms on CPU, 'b' is open 200 ms but on CPU for 10 ms of it.
      const r = attributeIntervals(
        trace([
          call(1, 'a', 0.1 * S, 0.15 * S, 0, [0, 0.05 * S]),
          call(2, 'b', 0.2 * S, 0.4 * S, 0, [0, 0.01 * S]),
        ]),
        counter,
        { window: win(t3, 0.5 * S) },
      )
      expect(byName(r, 'a').localEnergyJ).toBeCloseTo((0.6 * 50) / 60, 12)
      expect(byName(r, 'b').localEnergyJ).toBeCloseTo((0.6 * 10) / 60, 12)
      expect(r.idleEnergyJ).toBeCloseTo(0, 12)
    })

    test("a parent's own CPU rate excludes its children's, whatever the window clips", () => {
      // P runs 0.1–0.4 s: 0.2 s of its own on CPU at full rate; its child C (0.2–0.3 s) sleeps.
      const calls = [
        call(1, 'P', 0.1 * S, 0.4 * S, 0, [0, 0.2 * S]),
        call(1, 'C', 0.2 * S, 0.3 * S, 1, [0.1 * S, 0.1 * S]),
      ]
      const r = attributeIntervals(trace(calls), counter, { window: win(t3, 0.5 * S) })
      expect(byName(r, 'C').localEnergyJ, 'no CPU, no energy').toBeCloseTo(0, 12)
      expect(byName(r, 'P').localEnergyJ).toBeCloseTo(0.6, 12)
    })

    test("split: 'time' spreads a counter interval evenly over time instead (PETrA)", () => {
      const r = attributeIntervals(trace([call(1, 'short', 0.3 * S, 0.35 * S)]), counter, {
        window: win(t3, t4),
        split: 'time',
      })
      expect(byName(r, 'short').inclusiveEnergyJ).toBeCloseTo((0.05 / 0.5) * 0.6, 12)
    })
  })

  test('baseline is subtracted and calls are clipped to the window', () => {
    const r = attributeIntervals(trace([call(1, 'm', -1 * S, 2 * S)]), flat(2, 10), {
      window: win(0, 1 * S),
      baselinePowerW: 0.5,
    })
    const m = byName(r, 'm')
    expect(m.inclusiveEnergyJ, '(2 − 0.5) W × 1 s inside the window').toBeCloseTo(1.5, 12)
    expect(m.inclusiveTimeS).toBeCloseTo(1, 12)
    const c = powerCurve(
      series([
        [-2 * S, 2],
        [10 * S, 2],
      ]),
    )
    expect(
      byName(
        attributeIntervals(trace([call(1, 'm', -1 * S, 2 * S)]), c, { window: win(0, 1 * S) }),
        'm',
      ).inclusiveEnergyJ,
    ).toBeCloseTo(2, 12)
  })

  test('rejects corrupt traces and mismatched clocks', () => {
    expect(
      codeOf(() => attributeIntervals(trace([call(1, 'm', 2, 1)]), flat(1), { window: win(0, S) })),
    ).toBe(AttributionErrors.BAD_TRACE)
    expect(
      codeOf(() =>
        attributeIntervals(trace([call(1, 'a', 0, 3), call(1, 'b', 2, 5, 1)]), flat(1), {
          window: win(0, S),
        }),
      ),
    ).toBe(AttributionErrors.BAD_TRACE)
    expect(
      codeOf(() =>
        attributeIntervals({ ...trace([]), clock: 'monotonic' }, flat(1), { window: win(0, S) }),
      ),
    ).toBe(AttributionErrors.CLOCK_MISMATCH)
  })
})

describe('split by a CPU schedule (sched_switch)', () => {
  // Two 100 ms counter intervals. The little cluster (CPUs 0–3) rail draws 0.1 J in the first, the
  // big cluster (CPUs 6–7) rail 0.4 J; the system rail 0.1 J, following work on any CPU.
  const counter = (name: string, j: number) =>
    railCurve(
      rail(name, [
        [0, 0],
        [100 * MS, j],
        [200 * MS, j],
      ]),
    )
  const little = { curve: counter('CPUCL0', 0.1), baselinePowerW: 0, cpus: [0, 1, 2, 3] }
  const big = { curve: counter('CPUCL2', 0.4), baselinePowerW: 0, cpus: [6, 7] }
  const system = { curve: counter('INT', 0.1), baselinePowerW: 0 }
  // Main thread (tid 100) runs `bind` on CPU 6 for 40 ms; a pool thread (101) runs `decode` on CPU 1
  // for 40 ms at the same time; another process (tid 500) runs 20 ms on CPU 2.
  const calls = trace([call(100, 'bind', 10 * MS, 60 * MS), call(101, 'decode', 10 * MS, 60 * MS)])
  const schedule = {
    source: 'test',
    clock: 'boottime' as const,
    cpus: [0, 1, 2, 3, 6, 7],
    lostEvents: false,
    slices: [
      { cpu: 1, tid: 101, startNs: 15 * MS, endNs: 55 * MS },
      { cpu: 2, tid: 500, startNs: 60 * MS, endNs: 80 * MS },
      { cpu: 6, tid: 100, startNs: 12 * MS, endNs: 52 * MS },
    ],
  }

  test("each cluster rail goes to the threads that ran on its CPUs; other processes' share stays unattributed", () => {
    const r = attributeIntervals(calls, counter('sum', 0.6), {
      window: win(0, 200 * MS),
      parts: [little, big, system],
      schedule,
    })
    // little: 40 ms of decode + 20 ms of another process → decode 0.1 × 40/60. The system rail
    // (no CPUs) is shared 1/N among what runs at each moment: bind and decode overlap 37 ms and
    // each runs 3 ms alone, the other process 20 ms alone: weights 21.5, 21.5, 20 of 63.
    expect(byName(r, 'decode').localEnergyJ).toBeCloseTo(0.1 * (40 / 60) + 0.1 * (21.5 / 63), 12)
    // big: only bind ran there.
    expect(byName(r, 'bind').localEnergyJ).toBeCloseTo(0.4 + 0.1 * (21.5 / 63), 12)
    expect(r.attributedEnergyJ + r.idleEnergyJ, 'every joule once').toBeCloseTo(0.6, 12)
    expect(r.idleEnergyJ).toBeCloseTo(0.1 * (20 / 60) + 0.1 * (20 / 63), 12)
  })

  test('without the schedule the same data is shared by CPU time (the limit it fixes)', () => {
    const r = attributeIntervals(calls, counter('sum', 0.6), {
      window: win(0, 200 * MS),
      parts: [little, big, system],
    })
    expect(byName(r, 'bind').localEnergyJ).toBeCloseTo(0.3, 12)
    expect(byName(r, 'decode').localEnergyJ).toBeCloseTo(0.3, 12)
  })
})

describe('split by a CPU schedule: window edges and memory', () => {
  const oneCluster = (j: number) =>
    railCurve(
      rail('CPUCL2', [
        [0, 0],
        [100 * MS, j],
        [200 * MS, j],
      ]),
    )
  const sched = (slices: Array<{ cpu: number; tid: number; startNs: number; endNs: number }>) => ({
    source: 'test',
    clock: 'boottime' as const,
    cpus: [6, 7],
    lostEvents: false,
    slices,
  })

  test("a sensor interval cut by the window's start is taken whole: a burst that starts with the window gets all of it", () => {
    // The counter holds 1 J in [0, 100 ms); the window opens at 50 ms and the call runs 50–60 ms.
    const big = { curve: oneCluster(1), baselinePowerW: 0, cpus: [6, 7] }
    const r = attributeIntervals(trace([call(100, 'bind', 50 * MS, 60 * MS)]), big.curve, {
      window: win(50 * MS, 200 * MS),
      parts: [big],
      schedule: sched([{ cpu: 6, tid: 100, startNs: 50 * MS, endNs: 60 * MS }]),
    })
    // A linear cut of the counter would give the window (and bind) 0.5 J.
    expect(byName(r, 'bind').localEnergyJ).toBeCloseTo(1, 12)
    // What the window's (interpolated) energy does not cover is negative idle: the identity holds.
    expect(r.attributedEnergyJ + r.idleEnergyJ).toBeCloseTo(0.5, 12)
  })

  test('…and keeps only the share of its running time inside the window', () => {
    // Another process ran 10–20 ms on the same cluster, before the window opened at 50 ms.
    const big = { curve: oneCluster(1), baselinePowerW: 0, cpus: [6, 7] }
    const slices = [
      { cpu: 7, tid: 500, startNs: 10 * MS, endNs: 20 * MS },
      { cpu: 6, tid: 100, startNs: 50 * MS, endNs: 60 * MS },
    ]
    const r = attributeIntervals(trace([call(100, 'bind', 50 * MS, 60 * MS)]), big.curve, {
      window: win(50 * MS, 200 * MS),
      parts: [big],
      schedule: sched(slices),
    })
    expect(byName(r, 'bind').localEnergyJ).toBeCloseTo(0.5, 12)
  })

  test("the window's end: the interval past it is taken whole too", () => {
    const big = { curve: oneCluster(1), baselinePowerW: 0, cpus: [6, 7] }
    // The call runs 40–60 ms; the window ends at 60 ms, the reading comes at 100 ms.
    const r = attributeIntervals(trace([call(100, 'bind', 40 * MS, 60 * MS)]), big.curve, {
      window: win(0, 60 * MS),
      parts: [big],
      schedule: sched([{ cpu: 6, tid: 100, startNs: 40 * MS, endNs: 60 * MS }]),
    })
    expect(byName(r, 'bind').localEnergyJ).toBeCloseTo(1, 12)
  })

  test('a memory rail that follows core power is shared as the cluster rails drew, not 1/N', () => {
    const counter = (name: string, j: number) =>
      railCurve(
        rail(name, [
          [0, 0],
          [100 * MS, j],
        ]),
      )
    const little = { curve: counter('CPUCL0', 0.1), baselinePowerW: 0, cpus: [0, 1, 2, 3] }
    const big = { curve: counter('CPUCL2', 0.3), baselinePowerW: 0, cpus: [6, 7] }
    const memory = { curve: counter('MIF', 0.2), baselinePowerW: 0, followsCorePower: true }
    const calls = trace([call(100, 'bind', 0, 100 * MS), call(101, 'decode', 0, 100 * MS)])
    const schedule = {
      ...sched([
        { cpu: 1, tid: 101, startNs: 0, endNs: 100 * MS },
        { cpu: 6, tid: 100, startNs: 0, endNs: 100 * MS },
      ]),
      cpus: [0, 1, 2, 3, 6, 7],
    }
    const r = attributeIntervals(calls, counter('sum', 0.6), {
      window: win(0, 100 * MS),
      parts: [little, big, memory],
      schedule,
    })
    // The big cluster drew 3/4 of the cores' energy: bind gets 3/4 of the memory rail.
    expect(byName(r, 'bind').localEnergyJ).toBeCloseTo(0.3 + 0.2 * 0.75, 12)
    expect(byName(r, 'decode').localEnergyJ).toBeCloseTo(0.1 + 0.2 * 0.25, 12)
    // Without the flag the same rail is shared 1/N.
    const plain = attributeIntervals(calls, counter('sum', 0.6), {
      window: win(0, 100 * MS),
      parts: [little, big, { ...memory, followsCorePower: false }],
      schedule,
    })
    expect(byName(plain, 'bind').localEnergyJ).toBeCloseTo(0.3 + 0.1, 12)
  })
})

describe('matching the schedule to the trace’s threads', () => {
  const counter = railCurve(
    rail('CPUCL2', [
      [0, 0],
      [100 * MS, 0.4],
    ]),
  )
  const part = { curve: counter, baselinePowerW: 0, cpus: [6] }
  const schedule = (tid: number, comm: string) => ({
    source: 'test',
    clock: 'boottime' as const,
    cpus: [6],
    lostEvents: false,
    slices: [{ cpu: 6, tid, comm, startNs: 10 * MS, endNs: 50 * MS }],
  })
  // ART stores thread ids in 16 bits: tid 70000 is 4464 in the trace.
  const art = {
    ...trace([call(4464, 'decode', 0, 60 * MS)]),
    threads: [{ id: 4464, name: 'pool-1-thread-1' }],
  }

  test('a tid above 65535 matches its low 16 bits when the thread name agrees', () => {
    const r = attributeIntervals(art, counter, {
      window: win(0, 100 * MS),
      parts: [part],
      schedule: schedule(70000, 'pool-1-thread-1'),
    })
    expect(byName(r, 'decode').localEnergyJ).toBeCloseTo(0.4, 12)
  })

  test("another process's thread sharing the low bits is not credited to the app", () => {
    const r = attributeIntervals(art, counter, {
      window: win(0, 100 * MS),
      parts: [part],
      schedule: schedule(70000, 'surfaceflinger'),
    })
    expect(byName(r, 'decode').localEnergyJ).toBe(0)
    expect(r.idleEnergyJ).toBeCloseTo(0.4, 12)
  })

  test('a schedule on another clock is refused', () => {
    expect(
      codeOf(() =>
        attributeIntervals(art, counter, {
          window: win(0, 100 * MS),
          parts: [part],
          schedule: { ...schedule(4464, 'x'), clock: 'monotonic' },
        }),
      ),
    ).toBe(AttributionErrors.CLOCK_MISMATCH)
  })
})
