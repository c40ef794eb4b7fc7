/**
 * Real data cross-check: a BattOr power-monitor capture (2 kHz, 30 624 samples, catapult) integrated
 * by the energy curves and compared with exact rational arithmetic done independently in Python
 * (test/fixtures/attribution/battor_golden.py → battor_golden.json).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { powerCurve } from '../../src/attribution/curve.js'
import { testEnergy } from '../../src/attribution/test-energy.js'
import type { PowerSeries } from '../../src/model/samples.js'
import { win } from './_helpers.js'

interface Golden {
  readonly samples: number
  readonly windows: ReadonlyArray<{
    readonly startNs: number
    readonly endNs: number
    readonly trapezoidJ: number
    readonly zeroOrderHoldJ: number
    readonly updates: number
  }>
}

const root = new URL('../fixtures/', import.meta.url)
const golden = JSON.parse(
  readFileSync(new URL('attribution/battor_golden.json', root), 'utf8'),
) as Golden
const text = readFileSync(new URL('corpus/5_power_monitor/catapult_battor.txt', root), 'utf8')
const battor: PowerSeries = {
  kind: 'instant',
  source: 'external-meter',
  clock: 'boottime',
  samples: text
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => {
      const [ms, mA, mV] = l.trim().split(/\s+/).map(Number) as [number, number, number]
      return { tNs: ms * 1e6, powerW: (mA * mV) / 1e6 }
    }),
}

describe('BattOr capture (real data) against exact integration', () => {
  test('sample count matches', () => {
    expect(battor.samples).toHaveLength(golden.samples)
  })

  test.each(golden.windows.map((w, i) => [i, w] as const))('window %i', (_, w) => {
    const trap = powerCurve(battor).energyJ(w.startNs, w.endNs)
    const zoh = powerCurve(battor, { integration: 'zero-order-hold' }).energyJ(w.startNs, w.endNs)
    expect(Math.abs(trap - w.trapezoidJ) / w.trapezoidJ, 'trapezoid').toBeLessThan(1e-9)
    expect(Math.abs(zoh - w.zeroOrderHoldJ) / w.zeroOrderHoldJ, 'zero-order hold').toBeLessThan(
      1e-9,
    )
    const e = testEnergy({ window: win(w.startNs, w.endNs), power: battor })
    expect(e.sensorRateHz * e.durationS).toBeCloseTo(w.updates, 6)
  })
})
