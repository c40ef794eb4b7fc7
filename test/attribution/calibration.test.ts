import { describe, expect, test } from 'vitest'
import {
  fitCpuScales,
  PROFILE_RELATIVE_SD,
  type CalibrationSpan,
} from '../../src/attribution/calibration.js'
import { mulberry32 } from '../../src/stats/index.js'

/**
 * Spans of a calibration on a 4+2+2 phone: idle, then per cluster one core and all cores busy at
 * the top frequency. Nominal model energies per second (J): a core's and the cluster's own, and
 * cpu.active while anything runs.
 */
const CORE_J = [0.225, 0.304, 0.85] // per core per second at the top frequency
const CLUSTER_J = [0.001, 0.012, 0.023]
const CORES = [4, 2, 2]
const ACTIVE_J = 0.0476

function spans(
  truth: { clusters: readonly number[]; active: number; otherW: number },
  noiseSeJ: number,
  seed = 1,
): CalibrationSpan[] {
  const random = mulberry32(seed)
  const gaussian = (): number =>
    Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const durationS = 4
  const out: CalibrationSpan[] = []
  const span = (label: string, clusterJ: number[], activeJ: number): void => {
    const exact =
      truth.otherW * durationS +
      clusterJ.reduce((a, j, k) => a + j * (truth.clusters[k] ?? 1), 0) +
      activeJ * truth.active
    out.push({
      label,
      durationS,
      measuredJ: exact + gaussian() * noiseSeJ,
      measuredSeJ: noiseSeJ,
      clusterJ,
      activeJ,
    })
  }
  // The idle phone still runs a little (kernel threads): 2% of a little core.
  span('idle', [0.02 * CORE_J[0]! * durationS, 0, 0], 0.02 * ACTIVE_J * durationS)
  for (let k = 0; k < 3; k++) {
    for (const n of new Set([1, CORES[k]!])) {
      const clusterJ = [0, 0, 0]
      clusterJ[k] = (n * CORE_J[k]! + CLUSTER_J[k]!) * durationS
      span(`cluster ${k} × ${n}`, clusterJ, ACTIVE_J * durationS)
    }
  }
  return out
}

describe('fitCpuScales', () => {
  const truth = { clusters: [1.22, 0.81, 1.14], active: 0.88, otherW: 1.1 }

  test('recovers per-cluster scales from noise-free spans', () => {
    const fit = fitCpuScales(spans(truth, 1e-6), 3)
    fit.scales.clusters.forEach((s, k) =>
      expect(s, `cluster ${k}`).toBeCloseTo(truth.clusters[k]!, 4),
    )
    expect(fit.scales.active).toBeCloseTo(truth.active, 3)
    expect(fit.otherPowerW).toBeCloseTo(truth.otherW, 5)
  })

  test('with a gauge’s noise: within the reported standard errors, most of the time', () => {
    let inside = 0
    let total = 0
    for (let seed = 1; seed <= 200; seed++) {
      const fit = fitCpuScales(spans(truth, 0.01, seed), 3)
      fit.scales.clusters.forEach((s, k) => {
        const se = fit.clusterSe[k]
        if (se === undefined) return
        total++
        if (Math.abs(s - truth.clusters[k]!) <= 1.96 * se) inside++
      })
    }
    expect(total).toBeGreaterThan(500)
    // 95% nominal; a 7-row fit's scatter-based errors are themselves noisy.
    expect(inside / total).toBeGreaterThan(0.88)
  })

  test('a cluster that was never loaded keeps the profile and says it could not be told', () => {
    const onlyTwo = spans(truth, 1e-6).filter((s) => !s.label.startsWith('cluster 2'))
    const fit = fitCpuScales(onlyTwo, 3)
    expect(fit.scales.clusters[2]).toBe(1)
    expect(fit.clusterSe[2]).toBeUndefined()
    expect(fit.scales.clusters[0]).toBeCloseTo(truth.clusters[0]!, 2)
  })

  test('a gauge too noisy to tell leaves every scale at the profile', () => {
    const fit = fitCpuScales(spans(truth, 50), 3)
    expect(fit.scales.clusters).toEqual([1, 1, 1])
    expect(fit.clusterSe).toEqual([undefined, undefined, undefined])
  })
})

describe('fitCpuScales: cpu.active, which a short calibration tells only roughly', () => {
  // cpu.active 25% under the profile: within what silicon departs by (10–30%).
  const truth = { clusters: [1.22, 0.81, 1.14], active: 0.75, otherW: 1.1 }

  test('a rough measurement is weighed with the profile’s value, not thrown away', () => {
    const errors: number[] = []
    let inside = 0
    let weak = 0
    for (let seed = 1; seed <= 200; seed++) {
      const fit = fitCpuScales(spans(truth, 0.012, seed), 3)
      const se = fit.activeSe
      expect(se, `seed ${seed}`).toBeDefined()
      // On its own the measurement would not be trusted (the rule for clusters: 10%).
      if ((se ?? 0) > 0.1 * fit.scales.active) weak++
      errors.push(Math.abs(fit.scales.active - truth.active))
      if (Math.abs(fit.scales.active - truth.active) <= 1.96 * (se ?? 0)) inside++
    }
    expect(weak, 'spans that tell cpu.active only roughly').toBeGreaterThan(80)
    const meanError = errors.reduce((a, e) => a + e, 0) / errors.length
    // Keeping the profile's value would be off by 0.25 every time.
    expect(meanError).toBeLessThan(0.12)
    expect(inside / errors.length).toBeGreaterThan(0.85)
  })

  test('with nothing measured of it, cpu.active is the profile’s value with the profile’s spread', () => {
    // Every span draws cpu.active and nothing else tells it apart: a gauge far too noisy.
    const fit = fitCpuScales(spans(truth, 50), 3)
    expect(fit.scales.active).toBeCloseTo(1, 2)
    expect(fit.activeSe).toBeCloseTo(PROFILE_RELATIVE_SD, 2)
  })
})
