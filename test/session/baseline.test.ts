// The measured baseline kept per rail: radio rails drop to the lowest level the phone has shown.
import { expect, test } from 'vitest'
import type { RailSeries } from '../../src/model/index.js'
import { radioAwareBaselineW } from '../../src/session/window.js'

const MS = 1e6
/** A rail at `powerW(t)` (piecewise per 100 ms reading), readings every 100 ms over [0, 1 s]. */
function rail(name: string, powerW: (ms: number) => number): RailSeries {
  const readings = [{ tNs: 0, energyJ: 0 }]
  for (let t = 100; t <= 1000; t += 100) {
    readings.push({ tNs: t * MS, energyJ: (readings.at(-1)?.energyJ ?? 0) + powerW(t - 100) * 0.1 })
  }
  return { kind: 'cumulative', rail: name, source: 'odpm', clock: 'boottime', readings }
}

const baseline = [
  { rail: 'VSYS_PWR_DISPLAY', powerW: 0.9, radio: false },
  // The idle window caught the modem's tail at 0.75 W.
  { rail: 'VSYS_PWR_MODEM', powerW: 0.75, radio: true },
]
const window = { clock: 'boottime' as const, startNs: 0, endNs: 1000 * MS }

test("a radio's tail in the idle window stops counting once a window shows the radio off", () => {
  // The tail ends at 400 ms inside this window: the modem's lowest level here is 0.
  const rails = [
    rail('VSYS_PWR_DISPLAY', () => 0.9),
    rail('VSYS_PWR_MODEM', (t) => (t < 400 ? 0.75 : 0)),
  ]
  expect(radioAwareBaselineW(baseline, rails, window, undefined)).toBeCloseTo(0.9, 12)
})

test('while the radio stays on, the baseline keeps it (the window and the idle window agree)', () => {
  const rails = [rail('VSYS_PWR_DISPLAY', () => 0.9), rail('VSYS_PWR_MODEM', () => 0.75)]
  expect(radioAwareBaselineW(baseline, rails, window, undefined)).toBeCloseTo(1.65, 12)
  // …unless an earlier window on this phone already showed it lower.
  expect(
    radioAwareBaselineW(baseline, rails, window, new Map([['VSYS_PWR_MODEM', 0.01]])),
  ).toBeCloseTo(0.91, 12)
})

test('other rails keep their idle level even when a window shows them lower (a dimmer screen)', () => {
  const rails = [rail('VSYS_PWR_DISPLAY', () => 0.3), rail('VSYS_PWR_MODEM', () => 0)]
  expect(
    radioAwareBaselineW(baseline, rails, window, new Map([['VSYS_PWR_DISPLAY', 0.3]])),
  ).toBeCloseTo(0.9, 12)
})
