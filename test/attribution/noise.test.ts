// A window's net energy carries the idle phone's own noise: hand-checkable idle windows, and the
// interval that follows from them.
import { describe, expect, test } from 'vitest'
import { idleNoise, netEnergyIntervalJ, netNoiseHalfWidthJ } from '../../src/attribution/index.js'
import { MS, rail, win } from './_helpers.js'

/** A rail read every 100 ms for 1 s, drawing the given power in each interval. */
function railDrawing(powersW: readonly number[]): ReturnType<typeof rail> {
  let energyJ = 0
  const points: [number, number][] = [[0, 0]]
  powersW.forEach((w, i) => {
    energyJ += w * 0.1
    points.push([(i + 1) * 100 * MS, energyJ])
  })
  return rail('S4M_VDD_CPUCL0', points)
}

describe('idleNoise', () => {
  test('a steady idle phone: level, no spread, ten 100 ms intervals', () => {
    const noise = idleNoise({
      window: win(0, 1000 * MS),
      power: [railDrawing(Array(10).fill(0.5))],
    })
    expect(noise.levelW, 'level').toBeCloseTo(0.5, 12)
    expect(noise.spreadW, 'spread').toBeCloseTo(0, 12)
    expect(noise.intervals, 'intervals').toBe(10)
    expect(noise.intervalS, 'interval length').toBeCloseTo(0.1, 12)
  })

  test('a fluctuating idle phone: the median level and 1.4826 × MAD', () => {
    // |p − median 0.5| = 0.1 for 8 of 10 intervals, 0 for 2 → MAD 0.1.
    const powers = [0.4, 0.6, 0.4, 0.6, 0.5, 0.5, 0.4, 0.6, 0.4, 0.6]
    const noise = idleNoise({ window: win(0, 1000 * MS), power: [railDrawing(powers)] })
    expect(noise.levelW, 'level').toBeCloseTo(0.5, 12)
    expect(noise.spreadW, 'spread').toBeCloseTo(0.14826, 12)
  })
})

describe('netNoiseHalfWidthJ and netEnergyIntervalJ', () => {
  test('σ² = T·τ·s² + (T·1.2533·s/√k)²: 2 s, τ 0.1 s, s 0.1 W, k 10', () => {
    const noise = { levelW: 0.5, spreadW: 0.1, intervals: 10, intervalS: 0.1 }
    const interval = netEnergyIntervalJ(0.3, netNoiseHalfWidthJ(2, noise))
    const sigma = Math.sqrt(2 * 0.1 * 0.01 + ((2 * 1.2533 * 0.1) / Math.sqrt(10)) ** 2)
    expect(interval.low, 'low').toBeCloseTo(0.3 - 1.96 * sigma, 12)
    expect(interval.high, 'high').toBeCloseTo(0.3 + 1.96 * sigma, 12)
    expect(interval.level).toBe(0.95)
  })

  test('a steady idle phone still has the sensor resolution: ± 1.96 · r/√3', () => {
    const noise = { levelW: 0.5, spreadW: 0, intervals: 10, intervalS: 0.1 }
    const interval = netEnergyIntervalJ(0, netNoiseHalfWidthJ(1, noise, 12e-6))
    expect(interval.high, 'half-width').toBeCloseTo((1.96 * 12e-6) / Math.sqrt(3), 15)
    expect(interval.low).toBeCloseTo(-interval.high, 15)
  })

  test('grows with the window: a longer window carries more idle noise', () => {
    const noise = { levelW: 0.5, spreadW: 0.05, intervals: 30, intervalS: 0.1 }
    const width = (s: number): number => {
      const i = netEnergyIntervalJ(0, netNoiseHalfWidthJ(s, noise))
      return i.high - i.low
    }
    expect(width(10)).toBeGreaterThan(width(1))
    expect(width(1)).toBeGreaterThan(width(0.1))
  })
})
