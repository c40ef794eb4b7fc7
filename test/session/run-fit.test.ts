// The CPU model fitted over a run's windows on one phone (a passive calibration): what the test
// windows alone can tell of each cluster's scale, and whether it agrees with the busy loops'.
import { describe, expect, test } from 'vitest'
import type { CpuModelObservation } from '../../src/model/index.js'
import { mulberry32 } from '../../src/stats/index.js'
import { fitRunWindows, type CpuCalibration } from '../../src/session/calibration.js'

/**
 * Windows of 3–8 s on a 2-cluster phone whose true scales are `truth`: the rest of the phone draws
 * 1.2 W plus a screen that varies by `screenSpreadW` from window to window; each window runs
 * random CPU work on each cluster (`cpuW` on average at the profile's currents).
 */
function windows(
  truth: readonly number[],
  options: { n: number; cpuW: number; screenSpreadW: number; seed?: number },
): CpuModelObservation[] {
  const random = mulberry32(options.seed ?? 1)
  return Array.from({ length: options.n }, () => {
    const durationS = 3 + 5 * random()
    const clusterJ = truth.map(() => 2 * options.cpuW * random() * durationS)
    const activeJ = 0.05 * durationS
    const restW = 1.2 + options.screenSpreadW * (random() - 0.5)
    const measuredJ =
      restW * durationS + clusterJ.reduce((a, j, k) => a + j * (truth[k] ?? 1), 0) + activeJ
    return { durationS, measuredJ, noiseJ: 0.002 * measuredJ, clusterJ, activeJ }
  })
}

const active = (scales: readonly number[]): CpuCalibration => ({
  kind: 'active',
  scales: { clusters: scales, active: 1 },
  clusterSe: scales.map(() => 0.02),
})

describe('fitRunWindows', () => {
  test('a CPU-heavy suite on a steady phone tells the scales, and they agree with the busy loops', () => {
    const fit = fitRunWindows(
      windows([0.8, 1.2], { n: 30, cpuW: 1, screenSpreadW: 0.02 }),
      2,
      active([0.81, 1.19]),
    )
    expect(fit.windows).toBe(30)
    expect(fit.clusterScales[0]).toBeCloseTo(0.8, 1)
    expect(fit.clusterScales[1]).toBeCloseTo(1.2, 1)
    expect(fit.agreesWithCalibration).toBe(true)
    expect(fit.cpuShare).toBeGreaterThan(0.3)
  })

  test('one window with something no model sees (a GPU burst) does not pull the scales', () => {
    const clean = windows([0.8, 1.2], { n: 30, cpuW: 1, screenSpreadW: 0.02 })
    const burst = clean.map((o, i) => (i === 7 ? { ...o, measuredJ: o.measuredJ + 5 } : o))
    const fit = fitRunWindows(burst, 2, active([0.81, 1.19]))
    expect(fit.clusterScales[0]).toBeCloseTo(0.8, 1)
    expect(fit.clusterScales[1]).toBeCloseTo(1.2, 1)
    expect(fit.agreesWithCalibration).toBe(true)
  })

  test('a calibration the windows contradict is said to disagree', () => {
    const fit = fitRunWindows(
      windows([0.8, 1.2], { n: 30, cpuW: 1, screenSpreadW: 0.02 }),
      2,
      active([1.1, 1.2]),
    )
    expect(fit.agreesWithCalibration).toBe(false)
  })

  test('a UI suite, where the screen varies more than the CPU draws, cannot tell', () => {
    const fit = fitRunWindows(
      windows([0.8, 1.2], { n: 12, cpuW: 0.02, screenSpreadW: 0.6 }),
      2,
      active([0.8, 1.2]),
    )
    expect(fit.clusterScales).toEqual([null, null])
    expect(fit.agreesWithCalibration).toBeUndefined()
    expect(fit.cpuShare).toBeLessThan(0.1)
  })
})
