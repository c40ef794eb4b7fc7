import { describe, expect, test } from 'vitest'
import { AttributionErrors } from '../../src/attribution/errors.js'
import { idlePowerW, testEnergy } from '../../src/attribution/test-energy.js'
import { mAhToJ } from '../../src/model/units.js'
import { MS, S, codeOf, rail, series, win } from './_helpers.js'

describe('per-test energy', () => {
  // 0.5 W idle until 2 s, then 2.5 W from 2 s to 6 s (held readings every 250 ms).
  const pts: Array<[number, number]> = []
  for (let t = 0; t <= 6000; t += 250) pts.push([t * MS, t < 2000 ? 0.5 : 2.5])
  const s = series(pts)

  test('gross, idle-window baseline, net, average power, duration', () => {
    const e = testEnergy({
      window: win(2 * S, 6 * S),
      power: s,
      integration: 'zero-order-hold',
      baseline: { kind: 'idle-window', startNs: 0, endNs: 2 * S },
    })
    expect(e.durationS).toBe(4)
    expect(e.grossEnergyJ).toBeCloseTo(10, 12)
    expect(e.baselinePowerW).toBeCloseTo(0.5, 12)
    expect(e.baselineEnergyJ).toBeCloseTo(2, 12)
    expect(e.netEnergyJ).toBeCloseTo(8, 12)
    expect(e.averagePowerW).toBeCloseTo(2.5, 12)
    expect(e.sampleCount, 'readings at 2.00, 2.25, …, 6.00 s').toBe(17)
    expect(e.sensorRateHz, 'the value never changes inside the window').toBe(0)
  })

  test('partial samples at the edges are split pro rata', () => {
    const e = testEnergy({
      window: win(1.9 * S, 2.1 * S),
      power: s,
      integration: 'zero-order-hold',
      baseline: { kind: 'configured', powerW: 0.5 },
    })
    expect(e.grossEnergyJ, '0.1 s at 0.5 W + 0.1 s at 2.5 W').toBeCloseTo(0.3, 12)
    expect(e.netEnergyJ).toBeCloseTo(0.2, 12)
  })

  test('battery context: % of capacity and hourly extrapolation', () => {
    const capacityJ = mAhToJ(4000, 3.85) // 55 440 J
    const e = testEnergy({
      window: win(2 * S, 6 * S),
      power: s,
      integration: 'zero-order-hold',
      batteryCapacityJ: capacityJ,
    })
    expect(e.battery?.capacityJ).toBe(capacityJ)
    expect(e.battery?.percentOfCapacity).toBeCloseTo((10 / capacityJ) * 100, 12)
    expect(e.battery?.percentPerHour, '2.5 W for an hour = 9000 J').toBeCloseTo(
      (9000 / capacityJ) * 100,
      10,
    )
  })

  test('rails: per-rail energy sums to the total; sensor rate counts counter updates', () => {
    const cpu = rail(
      'S4M_VDD_CPUCL0',
      [
        [0, 0],
        [1 * S, 1],
        [2 * S, 3],
        [3 * S, 6],
      ],
      'CPU(LITTLE)',
    )
    const disp = rail('VSYS_PWR_DISPLAY', [
      [0, 100],
      [1.5 * S, 101.5],
      [3 * S, 103],
    ])
    const e = testEnergy({ window: win(0.5 * S, 2.5 * S), power: [cpu, disp] })
    expect(e.rails.map((r) => r.rail)).toEqual(['S4M_VDD_CPUCL0', 'VSYS_PWR_DISPLAY'])
    expect(e.rails[0]?.subsystem).toBe('CPU(LITTLE)')
    expect(e.rails[0]?.energyJ, '0.5 + 2 + 1.5').toBeCloseTo(4, 12)
    expect(e.rails[1]?.energyJ).toBeCloseTo(2, 12)
    expect(e.grossEnergyJ).toBeCloseTo(6, 12)
  })

  test('a counter polled faster than it refreshes: repeats are not updates', () => {
    // Polled every 100 ms, the counter moves every 250 ms or so.
    const stuck = rail('VDD', [
      [0, 0],
      [0.1 * S, 0],
      [0.2 * S, 0],
      [0.3 * S, 1],
      [0.4 * S, 1],
      [0.5 * S, 2],
      [0.6 * S, 2],
      [0.7 * S, 2],
      [0.8 * S, 3],
      [0.9 * S, 3],
      [1.0 * S, 3],
    ])
    const e = testEnergy({ window: win(0, 1 * S), power: [stuck] })
    expect(e.sampleCount).toBe(11)
    expect(e.sensorRateHz, '3 refreshes in 1 s').toBe(3)
    expect(e.grossEnergyJ).toBeCloseTo(3, 12)
  })

  test('rejects empty windows, foreign clocks, bad baselines and capacities', () => {
    expect(codeOf(() => testEnergy({ window: win(1, 1), power: s }))).toBe(
      AttributionErrors.EMPTY_WINDOW,
    )
    expect(codeOf(() => testEnergy({ window: { ...win(0, S), clock: 'host' }, power: s }))).toBe(
      AttributionErrors.CLOCK_MISMATCH,
    )
    expect(
      codeOf(() =>
        testEnergy({ window: win(0, S), power: s, baseline: { kind: 'configured', powerW: -1 } }),
      ),
    ).toBe(AttributionErrors.INVALID_OPTION)
    expect(
      codeOf(() =>
        testEnergy({
          window: win(0, S),
          power: s,
          baseline: { kind: 'idle-window', startNs: 5, endNs: 5 },
        }),
      ),
    ).toBe(AttributionErrors.EMPTY_WINDOW)
    expect(codeOf(() => testEnergy({ window: win(0, S), power: s, batteryCapacityJ: 0 }))).toBe(
      AttributionErrors.INVALID_OPTION,
    )
    expect(codeOf(() => testEnergy({ window: win(0, 7 * S), power: s }))).toBe(
      AttributionErrors.WINDOW_NOT_COVERED,
    )
    expect(codeOf(() => testEnergy({ window: win(0, Number.POSITIVE_INFINITY), power: s }))).toBe(
      AttributionErrors.NOT_FINITE,
    )
  })
})

describe('idlePowerW (the measured baseline)', () => {
  test('a burst of start-up work in the idle window does not raise it (median, not mean)', () => {
    // 0.5 W idle, 3 W for the first 200 ms of a 1 s window; readings every 100 ms.
    const readings: Array<[number, number]> = [[0, 0]]
    for (let t = 100; t <= 1000; t += 100) {
      const w = t <= 200 ? 3 : 0.5
      readings.push([t * MS, (readings[readings.length - 1] as [number, number])[1] + w * 0.1])
    }
    const power = [rail('VDD', readings)]
    const window = win(0, 1000 * MS)
    expect(idlePowerW({ window, power })).toBeCloseTo(0.5, 12)
    const mean = testEnergy({ window, power }).averagePowerW
    expect(mean, 'the mean would say 1 W').toBeCloseTo(1, 12)
  })

  test('intervals count by their duration; an instantaneous series works too', () => {
    // 1 W for 700 ms, then 2 W: the time-weighted median is 1 W.
    const s = series([
      [0, 1],
      [700 * MS, 1],
      [701 * MS, 2],
      [1000 * MS, 2],
    ])
    expect(
      idlePowerW({ window: win(0, 1000 * MS), power: s, integration: 'zero-order-hold' }),
    ).toBe(1)
  })

  test('rejects an empty window', () => {
    const s = series([
      [0, 1],
      [S, 1],
    ])
    expect(codeOf(() => idlePowerW({ window: win(5, 5), power: s }))).toBe(
      AttributionErrors.EMPTY_WINDOW,
    )
  })
})
