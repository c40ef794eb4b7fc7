import { describe, expect, test } from 'vitest'
import { fitGaugeCalibration } from '../../src/attribution/calibration.js'
import { railCurve } from '../../src/attribution/curve.js'
import {
  gaugeCurve,
  gaugeUpdatePeriodNs,
  gaugeUpdates,
  periodAverages,
} from '../../src/attribution/gauge.js'
import type { PowerSeries } from '../../src/model/samples.js'
import { mulberry32 } from '../../src/stats/index.js'
import { S, rail, series } from './_helpers.js'

/** A 50 Hz poll of a gauge that refreshes every second with each period's average of `powerAt`. */
function polledGauge(powerAt: (tS: number) => number, seconds: number, phaseS = 0.37): PowerSeries {
  const refresh = (k: number): number => {
    // The average over (k − 1 + phase, k + phase] s, by a fine sum.
    let sum = 0
    for (let i = 0; i < 1000; i++) sum += powerAt(k - 1 + phaseS + (i + 0.5) / 1000)
    return sum / 1000
  }
  const points: [number, number][] = []
  for (let t = 0; t < seconds; t += 0.02) {
    const k = Math.floor(t - phaseS)
    points.push([Math.round(t * S), refresh(k)])
  }
  return series(points, 'fuel-gauge')
}

describe('gaugeUpdates and the period', () => {
  test('one reading per refresh; the period is the median gap between refreshes', () => {
    const updates = gaugeUpdates(polledGauge((t) => 1 + 0.1 * Math.sin(t), 10))
    expect(updates.samples.length).toBe(11) // the first poll and ten refreshes
    expect(gaugeUpdatePeriodNs(updates)).toBeCloseTo(1 * S, -6)
  })
})

describe('gaugeCurve', () => {
  // 1 W, with a 3 W burst over 4.5–4.8 s.
  const powerAt = (t: number): number => (t >= 4.5 && t < 4.8 ? 3 : 1)
  const trueJ = (a: number, b: number): number =>
    (b - a) * 1 + 2 * Math.max(0, Math.min(b, 4.8) - Math.max(a, 4.5))

  test('whole periods: exactly the readings’ energy; a trapezoid over the polls is a period late', () => {
    const gauge = polledGauge(powerAt, 10)
    const curve = gaugeCurve(gauge, { edges: 'hold' })
    // Refreshes at 1.37, 2.37, … seen by the next poll (1.38, …): (3.37, 5.37] holds the burst,
    // off by at most the 10 ms the polls see it late.
    expect(Math.abs(curve.energyJ(3.38 * S, 5.38 * S) - trueJ(3.37, 5.37))).toBeLessThan(0.011)
  })

  test('a window that cuts a period: the shape puts the burst on its side of the cut', () => {
    const gauge = polledGauge(powerAt, 10)
    // A model that knows the burst (its CPU part): 2 W extra over 4.5–4.8 s.
    const model = railCurve(
      rail('MODEL', [
        [0, 0],
        [4.5 * S, 0],
        [4.8 * S, 0.6],
        [10 * S, 0.6],
      ]),
      { edges: 'hold' },
    )
    const even = gaugeCurve(gauge, { edges: 'hold' })
    const shaped = gaugeCurve(gauge, { edges: 'hold', shape: model, floorW: 1 })
    // The window 4.0–5.0 s cuts (3.37, 4.37] and (4.37, 5.37]; the burst lies inside it.
    const truth = trueJ(4, 5)
    expect(Math.abs(shaped.energyJ(4 * S, 5 * S) - truth)).toBeLessThan(0.011)
    expect(Math.abs(even.energyJ(4 * S, 5 * S) - truth)).toBeGreaterThan(0.1)
    // Every period's energy is still the gauge's own.
    expect(shaped.energyJ(4.38 * S, 5.38 * S)).toBeCloseTo(even.energyJ(4.38 * S, 5.38 * S), 9)
  })

  test('a moving-average gauge: the periods’ averages come back', () => {
    const truth = [1, 1, 1, 4, 4, 1, 1, 2, 2, 2]
    const tau = 3
    let r = 1
    const updates = series(
      truth.map((p, k) => {
        const alpha = Math.exp(-1 / tau)
        r = alpha * r + (1 - alpha) * p
        return [(k + 1) * S, r]
      }),
    )
    const back = periodAverages(updates, { kind: 'iir', tauS: tau }).samples.map((s) => s.powerW)
    back.slice(1).forEach((p, i) => expect(p).toBeCloseTo(truth[i + 1] ?? NaN, 9))
  })
})

describe('fitGaugeCalibration', () => {
  /**
   * A calibration as the session runs it on a 2-cluster phone: 6 s idle, cluster 0 with one then
   * both cores busy, cluster 1 with one core, at 1 refresh a second; model energies per second.
   */
  function run(tauS: number, noiseW: number, seed = 1) {
    const corePerS = [0.2, 0.6]
    const phases: (readonly [number, number])[] = [
      [-1, 0],
      [0, 1],
      [0, 2],
      [1, 1],
    ]
    const truthScales = [1.25, 0.8]
    const otherW = 1.3
    const times: number[] = []
    const clusters = [[] as number[], [] as number[]]
    const active: number[] = []
    const readings: number[] = []
    const random = mulberry32(seed)
    const gaussian = (): number =>
      Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
    let acc = [0, 0]
    let accActive = 0
    let r = otherW
    for (let k = 0; k <= 24; k++) {
      const [cluster, cores] = phases[Math.min(3, Math.floor(Math.max(0, k - 1) / 6))] as [
        number,
        number,
      ]
      const x = [0, 0]
      if (cluster >= 0) x[cluster] = cores * (corePerS[cluster] as number)
      const a = cluster >= 0 ? 0.05 : 0
      if (k > 0) {
        acc = acc.map((v, c) => v + (x[c] as number))
        accActive += a
        const p = otherW + x.reduce((s, v, c) => s + v * (truthScales[c] as number), 0) + a * 0.9
        const alpha = tauS > 0 ? Math.exp(-1 / tauS) : 0
        r = alpha * r + (1 - alpha) * p
      }
      times.push(k * S)
      clusters[0]?.push(acc[0] as number)
      clusters[1]?.push(acc[1] as number)
      active.push(accActive)
      readings.push(r + gaussian() * noiseW)
    }
    return fitGaugeCalibration(times, readings, { clusters, active }, 2)
  }

  test('a period-average gauge: τ 0 and the scales', () => {
    const fit = run(0, 0.001)
    expect(fit?.gaugeTauS).toBe(0)
    expect(fit?.scales.clusters[0]).toBeCloseTo(1.25, 1)
    expect(fit?.scales.clusters[1]).toBeCloseTo(0.8, 1)
    expect(fit?.gaugePeriodS).toBeCloseTo(1, 6)
  })

  test('a gauge that averages over 5 s: its time constant is found and the scales still come out', () => {
    const fit = run(5, 0.001)
    expect(fit?.gaugeTauS).toBe(5)
    expect(Math.abs((fit?.scales.clusters[0] ?? 0) - 1.25)).toBeLessThan(0.03)
    expect(Math.abs((fit?.scales.clusters[1] ?? 0) - 0.8)).toBeLessThan(0.03)
  })

  test('too few refreshes: no fit', () => {
    expect(
      fitGaugeCalibration(
        [0, S, 2 * S],
        [1, 1, 1],
        { clusters: [[0, 0, 0]], active: [0, 0, 0] },
        1,
      ),
    ).toBeUndefined()
  })
})
