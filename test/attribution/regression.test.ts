import { describe, expect, test } from 'vitest'
import { AttributionErrors } from '../../src/attribution/errors.js'
import {
  attributeRegression,
  regressionWindowOf,
  type RegressionWindow,
} from '../../src/attribution/regression.js'
import { mulberry32 } from '../../src/stats/index.js'
import type { EnergyError } from '../../src/model/errors.js'

describe('regression attribution (vLens §3.2.2)', () => {
  // Three methods with true power 2 W, 0.5 W and 1.2 W; 40 windows over 4 tests, small noise, and
  // one GC-like spike of +3 J.
  const truth: Record<string, number> = { 'A.draw': 2, 'B.parse': 0.5, 'C.io': 1.2 }
  const rand = mulberry32(7)
  const windows: RegressionWindow[] = []
  for (let i = 0; i < 40; i++) {
    const cpu: Record<string, number> = {}
    let e = 0
    for (const [m, w] of Object.entries(truth)) {
      const t = 0.1 + rand()
      cpu[m] = t
      e += w * t
    }
    e += (rand() - 0.5) * 0.02
    if (i === 17) e += 3
    windows.push({ label: `test ${i % 4} #${Math.floor(i / 4)}`, energyJ: e, cpuTimeS: cpu })
  }

  test('recovers per-method power and flags the spike as an outlier with its excess energy', () => {
    const r = attributeRegression(windows)
    for (const c of r.coefficients) expect(c.powerW).toBeCloseTo(truth[c.method] ?? NaN, 1)
    const flagged = r.windows.filter((w) => w.outlier)
    expect(flagged.map((w) => w.label)).toEqual(['test 1 #4'])
    expect(flagged[0]?.outlierEnergyJ).toBeCloseTo(3, 1)
    const w0 = r.windows[0]
    expect(w0?.methods.every((m) => m.attribution === 'regression')).toBe(true)
    expect(w0?.predictedJ).toBeCloseTo(
      (w0?.methods ?? []).reduce((s, m) => s + m.localEnergyJ, 0),
      12,
    )
  })

  test('refuses a design that cannot tell methods apart, naming the tests to repeat', () => {
    const together: RegressionWindow[] = [1, 2, 3, 4].map((k) => ({
      label: `scroll feed #${k}`,
      energyJ: 3 * k,
      cpuTimeS: { 'A.x': k, 'B.y': 2 * k },
    }))
    try {
      attributeRegression(together)
      expect.unreachable()
    } catch (error) {
      const e = error as EnergyError
      expect(e.code).toBe(AttributionErrors.RANK_DEFICIENT)
      expect(e.message).toContain('B.y')
      expect(e.hint).toContain('scroll feed')
    }
  })

  test('refuses fewer windows than methods', () => {
    try {
      attributeRegression([{ label: 'login #1', energyJ: 1, cpuTimeS: { a: 1, b: 1 } }])
      expect.unreachable()
    } catch (error) {
      const e = error as EnergyError
      expect(e.code).toBe(AttributionErrors.RANK_DEFICIENT)
      expect(e.hint).toContain('login')
    }
  })

  test('windows can be built from per-method local times', () => {
    const w = regressionWindowOf('login #2', 1.5, [
      { method: 'a', localTimeS: 0.2 },
      { method: 'b', localTimeS: 0 },
      { method: 'a', localTimeS: 0.1 },
      { method: 'c' },
    ])
    expect(w).toEqual({ label: 'login #2', energyJ: 1.5, cpuTimeS: { a: expect.closeTo(0.3, 12) } })
  })

  test('rejects non-finite energies and negative CPU times', () => {
    expect(() => attributeRegression([{ label: 'x', energyJ: NaN, cpuTimeS: {} }])).toThrow(
      AttributionErrors.NOT_FINITE,
    )
    expect(() => attributeRegression([{ label: 'x', energyJ: 1, cpuTimeS: { a: -1 } }])).toThrow(
      AttributionErrors.NOT_FINITE,
    )
  })
})
