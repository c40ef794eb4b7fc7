import { describe, expect, test } from 'vitest'
import { railCurve } from '../../src/attribution/curve.js'
import { AttributionErrors } from '../../src/attribution/errors.js'
import { attributeSamples } from '../../src/attribution/sampling.js'
import { attributeSamplesByRegression } from '../../src/attribution/sampling-regression.js'
import type { StackSample } from '../../src/model/samples.js'
import { invariantViolations } from '../../src/model/build.js'
import { attributeTest } from '../../src/attribution/attribute.js'
import { mulberry32 } from '../../src/stats/index.js'
import { MS, S, codeOf, rail, stacks, win } from './_helpers.js'

/**
 * EDATA's random workload (§4.3): six methods of different power picked at random every 10 ms for
 * 2 minutes, 1 kHz stack samples, and an ODPM-like cumulative counter read at 10 Hz.
 */

function randomWorkload(seed: number, sliceMs: number) {
  const rand = mulberry32(seed)
  const powerW = [1, 1.5, 2, 2.5, 3, 3.5]
  const T = 120 * S
  const slices: number[] = []
  for (let t = 0; t < T; t += sliceMs * MS) slices.push(Math.floor(rand() * powerW.length))
  const at = (t: number) =>
    slices[Math.min(slices.length - 1, Math.floor(t / (sliceMs * MS)))] as number
  const truthJ = powerW.map(() => 0)
  slices.forEach(
    (m) => (truthJ[m] = (truthJ[m] as number) + ((powerW[m] as number) * sliceMs) / 1000),
  )
  const readings: Array<[number, number]> = []
  let energyJ = 0
  for (let t = 0; t <= T; t += 100 * MS) {
    readings.push([t, energyJ])
    for (let u = t; u < t + 100 * MS; u += sliceMs * MS)
      energyJ += ((powerW[at(u)] as number) * sliceMs) / 1000
  }
  const samples: StackSample[] = []
  for (let t = 0.5 * MS; t < T; t += MS) {
    samples.push({ tNs: t, threadId: 1, frames: [`m${at(t)}`, 'Main.loop'], periodNs: MS })
  }
  return {
    rail: rail('VSYS', readings),
    curve: railCurve(rail('VSYS', readings)),
    samples: stacks(samples),
    truthJ,
    window: win(0, T),
  }
}

const mmre = (truthJ: readonly number[], estimate: (m: string) => number): number =>
  truthJ.reduce((s, t, m) => s + Math.abs(estimate(`m${m}`) - t) / t, 0) / truthJ.length

describe('sampling with regression power over sensor intervals', () => {
  const w = randomWorkload(3, 10)
  const r = attributeSamplesByRegression(w.samples, w.curve, { window: w.window })

  test('recovers per-method energy on EDATA-style 10 ms switching at a 10 Hz counter', () => {
    const est = (m: string) => r.methods.find((x) => x.method === m)?.localEnergyJ ?? 0
    const edata = attributeSamples(w.samples, w.curve, { window: w.window })
    const edataEst = (m: string) => edata.methods.find((x) => x.method === m)?.localEnergyJ ?? 0
    const regressionError = mmre(w.truthJ, est)
    const edataError = mmre(w.truthJ, edataEst)
    expect(regressionError, 'regression MMRE').toBeLessThan(0.01)
    expect(
      edataError,
      'EDATA Eq. 3.7 cannot resolve methods faster than the sensor',
    ).toBeGreaterThan(0.1)
    expect(r.intervals).toBe(1200)
  })

  test('non-local energy of the caller is the sum of its callees; conservation of samples', () => {
    const main = r.methods.find((m) => m.method === 'Main.loop')
    const leaves = r.methods.filter((m) => m.method !== 'Main.loop')
    expect(main?.localEnergyJ).toBe(0)
    expect(main?.nonLocalEnergyJ).toBeCloseTo(
      leaves.reduce((s, m) => s + m.localEnergyJ, 0),
      9,
    )
    expect(r.attributedEnergyJ).toBeCloseTo(
      w.truthJ.reduce((a, b) => a + b, 0),
      0,
    )
    for (const m of r.methods) expect(m.attribution).toBe('regression')
  })

  test('background power drawn while the app idles is fitted and left unattributed', () => {
    // The app runs only in the first 60 ms of every 100 ms; a 0.4 W wakelock runs all the time.
    const T = 60 * S
    const readings: Array<[number, number]> = []
    const samples: StackSample[] = []
    let e = 0
    for (let t = 0; t <= T; t += 100 * MS) {
      readings.push([t, e])
      const busyMs = 30 + ((t / (100 * MS)) % 7) * 10 // 30–90 ms of CPU per interval
      e += 0.4 * 0.1 + (2 * busyMs) / 1000
      for (let u = 0.5; u < busyMs; u += 1) {
        samples.push({ tNs: t + u * MS, threadId: 1, frames: ['Work.run'], periodNs: MS })
      }
    }
    const r = attributeSamplesByRegression(stacks(samples), railCurve(rail('VSYS', readings)), {
      window: win(0, T),
      background: true,
    })
    expect(r.backgroundPowerW).toBeCloseTo(0.4, 6)
    expect(r.fit.coefficients.find((c) => c.method === 'Work.run')?.powerW).toBeCloseTo(2, 6)
    expect(r.methods.map((m) => m.method)).toEqual(['Work.run'])
  })

  test('methods beyond maxMethods share one column', () => {
    const grouped = attributeSamplesByRegression(w.samples, w.curve, {
      window: w.window,
      maxMethods: 3,
    })
    expect(grouped.fit.coefficients.map((c) => c.method)).toContain('(other methods)')
    expect(grouped.fit.coefficients).toHaveLength(4)
  })

  test('through attributeTest, with conservation', () => {
    const a = attributeTest({
      label: 'random workload',
      window: w.window,
      power: [w.rail],
      execution: { kind: 'samples', samples: w.samples, power: 'regression' },
    })
    expect(invariantViolations(a.result)).toEqual([])
    expect(a.samplingRegression?.intervals).toBe(1200)
    expect(a.result.methods.every((m) => m.attribution === 'regression')).toBe(true)
    expect(a.result.unattributedEnergyJ / a.result.netEnergyJ).toBeLessThan(0.01)
  })

  test('refuses when there are fewer sensor intervals than methods', () => {
    const short = win(0, 150 * MS) // two intervals, six methods
    expect(codeOf(() => attributeSamplesByRegression(w.samples, w.curve, { window: short }))).toBe(
      AttributionErrors.RANK_DEFICIENT,
    )
    expect(
      codeOf(() =>
        attributeSamplesByRegression({ ...w.samples, clock: 'monotonic' }, w.curve, {
          window: w.window,
        }),
      ),
    ).toBe(AttributionErrors.CLOCK_MISMATCH)
  })
})
