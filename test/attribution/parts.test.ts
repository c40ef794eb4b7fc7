import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import {
  currentAtKhz,
  fittedFloorW,
  runningWeight,
  type PowerPart,
} from '../../src/attribution/_parts.js'
import { cpuMethodPower, lowestRailPowerW, railCurve } from '../../src/attribution/index.js'
import type { CpuSchedule, CpuSlice, RailSeries } from '../../src/model/samples.js'
import { cpuSchedule } from './_helpers.js'

/** The weight functions read no curve. */
const part = (cpus?: number[]): PowerPart =>
  ({ curve: undefined, baselinePowerW: 0, ...(cpus === undefined ? {} : { cpus }) }) as never

const slice = (cpu: number, tid: number, startNs: number, endNs: number): CpuSlice => ({
  cpu,
  tid,
  startNs,
  endNs,
})

describe('runningWeight', () => {
  test('a cluster without cpu_frequency data: running time', () => {
    const w = runningWeight(part([0, 1]), [slice(0, 5, 0, 100)])
    expect(w.between(10, 60)).toBe(50)
    expect(w.at(30)).toBe(1)
  })

  test("a cluster with cpu_frequency changes: running time × (f / 1 GHz)², other clusters' changes ignored", () => {
    const frequencies = [
      { cpu: 0, tNs: 100, khz: 500_000 },
      { cpu: 1, tNs: 100, khz: 500_000 },
      { cpu: 4, tNs: 150, khz: 3_000_000 },
      { cpu: 0, tNs: 200, khz: 2_000_000 },
      { cpu: 1, tNs: 200, khz: 2_000_000 },
    ]
    const w = runningWeight(part([0, 1]), [], frequencies)
    // Before the first change the first known frequency stands in.
    expect(w.between(0, 100)).toBeCloseTo(100 * 0.25, 9)
    expect(w.between(150, 250)).toBeCloseTo(50 * 0.25 + 50 * 4, 9)
    expect(w.at(199)).toBe(0.25)
    expect(w.at(200)).toBe(4)
    // A stretch at 2 GHz weighs 16× one of the same length at 500 MHz.
    expect(w.between(200, 300) / w.between(100, 200)).toBeCloseTo(16, 9)
  })

  test('a shared domain: 1/N of the CPUs busy at each moment, whatever the frequencies', () => {
    const slices = [slice(0, 5, 0, 100), slice(4, 6, 50, 100)]
    const w = runningWeight(part(), slices, [{ cpu: 0, tNs: 0, khz: 2_000_000 }])
    expect(w.between(0, 50)).toBe(50)
    expect(w.between(50, 100)).toBe(25)
    expect(w.at(75)).toBe(0.5)
    expect(w.at(150)).toBe(0)
  })
})

describe('runningWeight with the power profile’s per-core currents', () => {
  // Pixel 6's little cluster (power_profile.xml): three of its frequencies and their currents.
  const coreCurrents = { speedsKhz: [300_000, 1_098_000, 1_803_000], currentsMa: [8, 33, 98] }
  const withTable = (cpus: number[]): PowerPart =>
    ({ curve: undefined, baselinePowerW: 0, cpus, coreCurrents }) as never

  test("a running ns weighs the profile's current at the cluster's frequency, not (f / 1 GHz)²", () => {
    const frequencies = [
      { cpu: 0, tNs: 0, khz: 300_000 },
      { cpu: 0, tNs: 100, khz: 1_803_000 },
    ]
    const w = runningWeight(withTable([0, 1]), [], frequencies)
    expect(w.between(0, 100)).toBeCloseTo(100 * 8, 9)
    expect(w.at(150)).toBe(98)
    // 98 / 8 = 12.25 where the proxy says (1.803 / 0.3)² ≈ 36.
    expect(w.between(100, 200) / w.between(0, 100)).toBeCloseTo(12.25, 9)
    const proxy = runningWeight(part([0, 1]), [], frequencies)
    expect(proxy.between(100, 200) / proxy.between(0, 100)).toBeCloseTo((1803 / 300) ** 2, 6)
  })

  test("with the cluster's own current: each running core weighs its core current plus the cluster's shared by the cores running", () => {
    const withCluster = {
      curve: undefined,
      baselinePowerW: 0,
      cpus: [0, 1],
      coreCurrents: { ...coreCurrents, clusterMa: 10 },
    } as never
    const frequencies = [
      { cpu: 0, tNs: 0, khz: 300_000 },
      { cpu: 0, tNs: 100, khz: 1_803_000 },
    ]
    // CPU 0 runs over [0, 200), CPU 1 over [50, 150): alone, two at once, alone again, at 300 MHz
    // before 100 and 1.8 GHz after.
    const slices = [slice(0, 1, 0, 200), slice(1, 2, 50, 150)]
    const w = runningWeight(withCluster, slices, frequencies)
    expect(w.at(25)).toBe(8 + 10)
    expect(w.at(75)).toBe(8 + 10 / 2)
    expect(w.at(125)).toBe(98 + 10 / 2)
    expect(w.at(175)).toBe(98 + 10)
    expect(w.between(0, 200)).toBeCloseTo(50 * 18 + 50 * 13 + 50 * 103 + 50 * 108, 9)
    // What the rail draws over [0, 200) is Σ of every running slice's weight: the cores' currents
    // and the cluster's once while any runs.
    const drawn = 100 * 8 + 100 * 98 + 50 * 8 + 50 * 98 + 200 * 10
    expect(w.between(0, 200) + w.between(50, 150)).toBeCloseTo(drawn, 9)
    // Without it, the core current alone.
    expect(runningWeight(withTable([0, 1]), slices, frequencies).at(75)).toBe(8)
  })

  test('between listed frequencies linear, outside them the nearest end', () => {
    expect(currentAtKhz(coreCurrents, 1_098_000)).toBe(33)
    expect(currentAtKhz(coreCurrents, (1_098_000 + 1_803_000) / 2)).toBeCloseTo((33 + 98) / 2, 9)
    expect(currentAtKhz(coreCurrents, 100_000)).toBe(8)
    expect(currentAtKhz(coreCurrents, 3_000_000)).toBe(98)
  })
})

describe('fittedFloorW: the idle level fitted over the sensor intervals', () => {
  const MS = 1e6
  const window = { clock: 'boottime' as const, startNs: 0, endNs: 3000 * MS }
  /**
   * A System-like rail: `floorW` always, `perBusyW` more while any CPU runs; readings every 100 ms
   * whose energy is latched `latchMs(k)` after the stamp (a power-stats HAL's refresh).
   */
  function systemRail(
    floorW: number,
    perBusyW: number,
    busy: readonly CpuSlice[],
    latchMs: (k: number) => number,
  ): RailSeries {
    const busyNsBefore = (t: number): number =>
      busy.reduce((a, s) => a + Math.max(0, Math.min(t, s.endNs) - s.startNs), 0)
    const energyAt = (t: number): number => (floorW * t + perBusyW * busyNsBefore(t)) / 1e9
    const readings = []
    for (let k = 0; k <= 30; k++) {
      const stamp = k * 100 * MS
      readings.push({ tNs: stamp, energyJ: energyAt(stamp + latchMs(k) * MS) })
    }
    return {
      kind: 'cumulative',
      rail: 'S5M_VDD_INT',
      subsystem: 'System',
      source: 'odpm',
      clock: 'boottime',
      readings,
    }
  }
  const schedule = (slices: readonly CpuSlice[]): CpuSchedule => cpuSchedule(slices, [0, 1, 2, 3])
  /** Short bursts (a kernel thread's 0–40 ms) in most intervals, none in every fifth. */
  const bursts = (seed: number): CpuSlice[] => {
    const out: CpuSlice[] = []
    let x = seed
    for (let k = 0; k < 30; k++) {
      x = (x * 1_103_515_245 + 12_345) % 2 ** 31
      const ms = x % 40
      if (k % 5 !== 3)
        out.push(slice(k % 4, 100 + k, (k * 100 + 30) * MS, (k * 100 + 30 + ms) * MS))
    }
    return out
  }

  test('readings latched 1–2 ms after their stamps: the fit finds the idle level, the lowest interval does not', () => {
    const busy = bursts(7)
    // 2 ms after odd stamps, 1 ms after even ones: every other interval holds 99 ms of energy.
    const latch = (k: number): number => 1 + (k % 2)
    const rail = systemRail(0.05, 0.03, busy, latch)
    const fitted = fittedFloorW(
      { curve: railCurve(rail, { edges: 'hold' }), baselinePowerW: 0 },
      schedule(busy),
      window,
    )
    expect(fitted).toBeDefined()
    expect(Math.abs((fitted ?? 0) / 0.05 - 1)).toBeLessThan(0.002)
    // The lowest interval power (an idle interval from an odd stamp): 1% low.
    expect(lowestRailPowerW(rail, window) ?? 0).toBeLessThan(0.05 * 0.995)
    // cpuMethodPower uses the fit when it has the schedule, the lowest level without it.
    const withSchedule = cpuMethodPower([rail], window, undefined, undefined, schedule(busy))
    const without = cpuMethodPower([rail], window)
    expect(withSchedule?.baselinePowerW).toBeCloseTo(fitted ?? 0, 12)
    expect(without?.baselinePowerW).toBeCloseTo(lowestRailPowerW(rail, window) ?? 0, 12)
  })

  test('exact readings: the fitted floor is the idle level for any activity that varies (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        fc.double({ min: 0.001, max: 2, noNaN: true }),
        fc.integer({ min: 1, max: 1e6 }),
        (floorW, perBusyW, seed) => {
          const busy = bursts(seed)
          const rail = systemRail(floorW, perBusyW, busy, () => 0)
          const fitted = fittedFloorW(
            { curve: railCurve(rail, { edges: 'hold' }), baselinePowerW: 0 },
            schedule(busy),
            window,
          )
          // Only a window whose running time hardly varies may be refused.
          if (fitted === undefined) return
          expect(fitted / floorW).toBeCloseTo(1, 6)
        },
      ),
      { numRuns: 100 },
    )
  })

  test('a CPU busy throughout cannot tell floor from activity: no fit', () => {
    const busy = [slice(0, 5, 0, 3000 * MS)]
    const rail = systemRail(0.05, 0.03, busy, () => 1.5)
    const part = { curve: railCurve(rail, { edges: 'hold' }), baselinePowerW: 0 }
    expect(fittedFloorW(part, schedule(busy), window)).toBeUndefined()
    expect(fittedFloorW(part, schedule([]), window)).toBeUndefined()
  })
})
