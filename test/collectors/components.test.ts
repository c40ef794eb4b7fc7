/**
 * The modelled component rails of a phone without rails (componentRails): exact energies on
 * hand-written histories, the rails' names as attribution reads them, real histories against a
 * brute-force reference, and the invariants of any history (property).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { componentOfRail, findInitiators } from '../../src/attribution/index.js'
import {
  brightnessBin,
  componentRails,
  modelCurrents,
  MODELLED_COMPONENT_RAILS,
} from '../../src/collectors/index.js'
import {
  historyTimeline,
  parseBatterystatsHistory,
  type HistoryTimeline,
} from '../../src/formats/batterystats/index.js'
import { parsePowerProfile } from '../../src/formats/power-profile/index.js'
import type { RailSeries } from '../../src/model/index.js'

const CORPUS = join(import.meta.dirname, '..', 'fixtures', 'corpus')

/** Currents chosen so every component's figure is checkable by hand. */
const profile = parsePowerProfile(
  [
    '<device name="Android">',
    '  <item name="cpu.suspend">5</item>',
    '  <item name="cpu.idle">10</item>',
    '  <item name="screen.on">100</item>',
    '  <item name="screen.full">300</item>',
    '  <item name="ambient.on">20</item>',
    '  <item name="wifi.active">200</item>',
    '  <item name="wifi.on">3</item>',
    '  <item name="wifi.scan">100</item>',
    '  <item name="radio.active">250</item>',
    '  <array name="gps.signalqualitybased"><value>30</value><value>10</value></array>',
    '  <item name="bluetooth.controller.idle">1</item>',
    '  <item name="bluetooth.controller.rx">8</item>',
    '</device>',
  ].join('\n'),
)

const timelineOf = (lines: readonly string[]): HistoryTimeline =>
  historyTimeline(parseBatterystatsHistory(`Battery History (1% used):\n${lines.join('\n')}\n`))

const HAND = [
  '                    0 (2) RESET:TIME: 2026-11-22-01-00-00',
  '                    0 (2) 100 status=discharging volt=4000',
  '               +1s000ms (2) 100 +screen brightness=bright',
  '               +2s000ms (2) 100 +wifi_radio +wifi_running',
  '               +3s000ms (2) 100 -wifi_radio +mobile_radio +gps',
  '               +3s500ms (2) 100 gps_signal_quality=good',
  '               +4s000ms (2) 100 -mobile_radio +ble_scan volt=3900',
  '               +5s000ms (2) 100 -screen +screen_doze -gps -ble_scan',
  '               +6s000ms (2) 100 -screen_doze',
]

/** Energy of a rail between its first and last reading, J. */
const energyJ = (rail: RailSeries | undefined): number =>
  (rail?.readings.at(-1)?.energyJ ?? NaN) - (rail?.readings[0]?.energyJ ?? NaN)

const byName = (rails: readonly RailSeries[]) => new Map(rails.map((r) => [r.rail, r]))

/** The rails of a short history over its first `endNs`, history time on the span's clock. */
const railsOf = (lines: readonly string[], endNs: number): RailSeries[] =>
  componentRails(timelineOf(lines), profile, { startNs: 0, endNs }, { offsetNs: 0 })

describe('componentRails on a hand-written history', () => {
  // History 0 = boottime 5 s; the span is history [0.5 s, 5.5 s].
  const offsetNs = 5e9
  const span = { startNs: 5.5e9, endNs: 10.5e9 }
  const rails = componentRails(timelineOf(HAND), profile, span, { offsetNs })
  const r = byName(rails)

  test('each component is current × voltage × time, exactly', () => {
    // screen: bright (bin 4) is screen.on + 0.9 × screen.full = 370 mA; doze 20 mA.
    expect(energyJ(r.get('MODEL_DISPLAY')), 'screen').toBeCloseTo(
      0.37 * 4 * 3 + 0.37 * 3.9 * 1 + 0.02 * 3.9 * 0.5,
      12,
    )
    // Wi-Fi: wifi.active 2–3 s at 4 V; wifi.on from 2 s to the span's end (4 V, then 3.9 V).
    expect(energyJ(r.get('MODEL_WLAN')), 'wifi').toBeCloseTo(
      0.2 * 4 * 1 + 0.003 * 4 * 2 + 0.003 * 3.9 * 1.5,
      12,
    )
    expect(energyJ(r.get('MODEL_MODEM')), 'cellular').toBeCloseTo(0.25 * 4 * 1, 12)
    // GPS: poor signal (signalqualitybased[0]) until the history says good ([1]).
    expect(energyJ(r.get('MODEL_GNSS')), 'gps').toBeCloseTo(
      0.03 * 4 * 0.5 + 0.01 * 4 * 0.5 + 0.01 * 3.9 * 1,
      12,
    )
    expect(energyJ(r.get('MODEL_BT')), 'bluetooth (ble_scan)').toBeCloseTo(0.008 * 3.9 * 1, 12)
  })

  test('readings on every change, 1 ms after it and on the span edges, the same on every rail', () => {
    const changes = [6, 7, 8, 8.5, 9, 10].map((s) => s * 1e9)
    const times = [5.5e9, ...changes.flatMap((t) => [t, t + 1e6]), 10.5e9]
    for (const rail of rails) {
      expect(
        rail.readings.map((x) => x.tNs),
        rail.rail,
      ).toEqual(times)
      expect(rail.readings[0]?.energyJ).toBe(0)
    }
  })

  test('named and typed as attribution reads rails: each maps to its component', () => {
    expect(rails.map((x) => [x.rail, componentOfRail(x)])).toEqual([
      ['MODEL_DISPLAY', 'screen'],
      ['MODEL_WLAN', 'wifi'],
      ['MODEL_MODEM', 'cellular'],
      ['MODEL_GNSS', 'gps'],
      ['MODEL_BT', 'bluetooth'],
    ])
    for (const { rail, subsystem } of Object.values(MODELLED_COMPONENT_RAILS)) {
      // By either name alone too, except Bluetooth's rail name (\bBT\b does not match after `_`).
      const component = componentOfRail({ rail, subsystem })
      expect(componentOfRail({ rail: 'x', subsystem }), subsystem).toBe(component)
      if (component !== 'bluetooth') expect(componentOfRail({ rail }), rail).toBe(component)
    }
    for (const rail of rails) {
      expect(rail).toMatchObject({
        kind: 'cumulative',
        source: 'batterystats-model',
        clock: 'boottime',
      })
    }
  })

  test("the caller's exact brightness replaces the bin from its first change on", () => {
    const exact = componentRails(timelineOf(HAND), profile, span, {
      offsetNs,
      brightness: [{ tNs: offsetNs + 2.5e9, fraction: 0.5 }],
    })
    // 1–2.5 s: bright bin (370 mA); 2.5–5 s: 100 + 0.5 × 300 = 250 mA; then doze.
    expect(energyJ(byName(exact).get('MODEL_DISPLAY'))).toBeCloseTo(
      0.37 * 4 * 1.5 + 0.25 * 4 * 1.5 + 0.25 * 3.9 * 1 + 0.02 * 3.9 * 0.5,
      12,
    )
    expect(exact[0]?.readings.map((x) => x.tNs)).toContain(offsetNs + 2.5e9)
  })

  test('a fixed voltage, and a history without volt= (nominal 3.85 V)', () => {
    const fixed = componentRails(timelineOf(HAND), profile, span, { offsetNs, voltageV: 3.7 })
    expect(energyJ(byName(fixed).get('MODEL_MODEM'))).toBeCloseTo(0.25 * 3.7, 12)
    const noVolt = railsOf(
      ['                    0 (2) 100 +mobile_radio', '  +2s000ms (2) 100 -mobile_radio'],
      2e9,
    )
    expect(energyJ(noVolt[0])).toBeCloseTo(0.25 * 3.85 * 2, 12)
  })

  test('no brightness printed yet is dark; Android 15 prints brightness-N', () => {
    expect(brightnessBin(undefined)).toBe(0)
    expect(brightnessBin('medium')).toBe(2)
    expect(brightnessBin('brightness-3')).toBe(3)
    expect(brightnessBin('glaring')).toBe(2)
    const dark = railsOf(
      ['                    0 (2) 100 volt=4000 +screen', '  +1s000ms (2) 100 -screen'],
      1e9,
    )
    expect(energyJ(dark[0])).toBeCloseTo((0.1 + 0.3 * 0.1) * 4, 12)
  })

  test('only the components the history shows; nothing for the CPU, wake locks or audio', () => {
    const rails = railsOf(
      [
        '                    0 (2) 100 volt=4000 +running +wake_lock +audio +gps',
        '  +1s000ms (2) 100 -running -gps',
      ],
      1e9,
    )
    expect(rails.map((x) => x.rail)).toEqual(['MODEL_GNSS'])
    expect(
      componentRails(timelineOf(HAND), profile, { startNs: 1, endNs: 1 }, { offsetNs: 0 }),
    ).toEqual([])
  })

  test('findInitiators charges a modelled Wi-Fi burst to the app method that ran as it began', () => {
    const samples = {
      clock: 'boottime' as const,
      lostCount: 0,
      samples: [6.9e9, 6.95e9, 7.05e9, 7.5e9].map((tNs, i) => ({
        tNs,
        threadId: 1,
        frames: [i < 2 ? 'com.example.Sync.upload' : 'com.example.Ui.draw'],
      })),
    }
    const found = findInitiators(
      rails,
      samples,
      { clock: 'boottime', ...span },
      {
        isAppMethod: (m) => m.startsWith('com.example.'),
      },
    )
    const wifi = found.invocations.filter((i) => i.component === 'wifi')
    expect(wifi.map((i) => [i.method, i.startNs])).toEqual([['com.example.Sync.upload', 7e9]])
    // Above the rail's floor in the span (0: Wi-Fi was off before 2 s) to the span's end.
    expect(wifi[0]?.tailEnergyJ).toBeCloseTo(energyJ(r.get('MODEL_WLAN')), 9)
  })
})

describe('componentRails on real histories (corpus)', () => {
  const pixel6 = parsePowerProfile(
    readFileSync(join(CORPUS, '1_power_profile', 'aosp_pixel6_oriole_power_profile.xml'), 'utf8'),
  )
  const nexus5 = parsePowerProfile(
    readFileSync(join(CORPUS, '1_power_profile', 'cm_nexus5_hammerhead_power_profile.xml'), 'utf8'),
  )

  /** Independent reference: each component's current at every change, found by scanning every interval. */
  function referenceJ(t: HistoryTimeline, p: typeof profile): Record<string, number> {
    const c = modelCurrents(p)
    const edges = new Set<number>([t.startNs, t.endNs])
    for (const i of t.intervals) edges.add(i.startNs).add(i.endNs)
    for (const b of t.battery) edges.add(b.tNs)
    const times = [...edges].filter((x) => x >= t.startNs && x <= t.endNs).sort((a, b) => a - b)
    const out: Record<string, number> = { screen: 0, wifi: 0, cellular: 0, gps: 0, bluetooth: 0 }
    for (let k = 0; k + 1 < times.length; k++) {
      const at = times[k]!
      const on = (n: string) =>
        t.intervals.find((i) => i.name === n && i.startNs <= at && at < i.endNs)
      const v =
        [...t.battery].reverse().find((b) => b.tNs <= at && b.voltageV !== undefined)?.voltageV ??
        t.battery.find((b) => b.voltageV !== undefined)?.voltageV ??
        3.85
      const s = ((times[k + 1]! - at) / 1e9) * v
      const bin = brightnessBin(on('brightness')?.value)
      if (on('screen'))
        out.screen! += ((c.screenOnMa + (c.screenFullMa * (bin + 0.5)) / 5) / 1000) * s
      else if (on('screen_doze')) out.screen! += (c.screenDozeMa / 1000) * s
      if (on('wifi_radio')) out.wifi! += (c.wifiRadioMa / 1000) * s
      if (on('wifi_running')) out.wifi! += (c.wifiOnMa / 1000) * s
      if (on('wifi_scan')) out.wifi! += (c.wifiScanMa / 1000) * s
      if (on('mobile_radio')) out.cellular! += (c.mobileRadioMa / 1000) * s
      if (on('gps')) {
        const good = on('gps_signal_quality')?.value === 'good'
        out.gps! += ((good ? c.gpsGoodSignalMa : c.gpsMa) / 1000) * s
      }
      if (on('bluetooth')) out.bluetooth! += (c.bluetoothOnMa / 1000) * s
      if (on('ble_scan')) out.bluetooth! += (c.bleScanMa / 1000) * s
    }
    return out
  }

  test.each([
    ['redmik80pro_android15_batterystats0.txt', 'Pixel 6', pixel6],
    ['redmik80pro_android15_batterystats.txt', 'Pixel 6', pixel6],
    ['petra_batterystats_example.txt', 'Nexus 5', nexus5],
  ] as const)(
    '%s with the %s profile: each rail agrees with a brute-force reference',
    (file, _, p) => {
      const t = historyTimeline(
        parseBatterystatsHistory(readFileSync(join(CORPUS, '2_batterystats', file), 'utf8')),
      )
      const rails = componentRails(t, p, { startNs: t.startNs, endNs: t.endNs }, { offsetNs: 0 })
      const expected = referenceJ(t, p)
      expect(rails.length).toBeGreaterThan(0)
      for (const rail of rails) {
        const component = componentOfRail(rail)
        expect(energyJ(rail), `${file}: ${rail.rail}`).toBeCloseTo(expected[component] ?? NaN, 6)
        for (let i = 1; i < rail.readings.length; i++) {
          expect(rail.readings[i]!.tNs).toBeGreaterThan(rail.readings[i - 1]!.tNs)
          expect(rail.readings[i]!.energyJ).toBeGreaterThanOrEqual(rail.readings[i - 1]!.energyJ)
        }
      }
      // What these captures show: the screen and Wi-Fi everywhere; the long one cellular, GPS and BLE scans.
      expect(rails.map((r) => r.rail)).toEqual(
        expect.arrayContaining(['MODEL_DISPLAY', 'MODEL_WLAN']),
      )
    },
  )
})

describe('componentRails invariants (property)', () => {
  const states = [
    'screen',
    'screen_doze',
    'wifi_radio',
    'wifi_scan',
    'mobile_radio',
    'gps',
    'ble_scan',
  ]
  const arbitraryHistory = fc.array(
    fc.record({
      gapMs: fc.integer({ min: 0, max: 3000 }),
      state: fc.constantFrom(...states, 'brightness', 'volt'),
      bin: fc.integer({ min: 0, max: 4 }),
      volt: fc.integer({ min: 3500, max: 4400 }),
    }),
    { minLength: 1, maxLength: 30 },
  )

  function history(
    steps: ReadonlyArray<{ gapMs: number; state: string; bin: number; volt: number }>,
  ): HistoryTimeline {
    const lines = ['                    0 (2) RESET:TIME: 2026-11-22-01-00-00']
    const on = new Set<string>()
    let ms = 0
    for (const s of steps) {
      ms += s.gapMs
      let token: string
      if (s.state === 'brightness')
        token = `brightness=${['dark', 'dim', 'medium', 'light', 'bright'][s.bin]}`
      else if (s.state === 'volt') token = `volt=${s.volt}`
      else {
        token = `${on.has(s.state) ? '-' : '+'}${s.state}`
        if (on.has(s.state)) on.delete(s.state)
        else on.add(s.state)
      }
      lines.push(`  +${ms}ms (2) 100 ${token}`)
    }
    return timelineOf(lines)
  }

  test('readings sorted on the span edges, energy non-negative and additive over any split', () => {
    fc.assert(
      fc.property(
        arbitraryHistory,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: -1e12, max: 1e12 }),
        (steps, x, y, z, offsetNs) => {
          const t = history(steps)
          const [a, b, c] = [x, y, z]
            .map((f) => Math.round(t.startNs + f * (t.endNs - t.startNs + 2e9)) + offsetNs)
            .sort((p, q) => p - q) as [number, number, number]
          if (!(a < b && b < c)) return
          const whole = byName(componentRails(t, profile, { startNs: a, endNs: c }, { offsetNs }))
          const left = byName(componentRails(t, profile, { startNs: a, endNs: b }, { offsetNs }))
          const right = byName(componentRails(t, profile, { startNs: b, endNs: c }, { offsetNs }))
          for (const [name, rail] of whole) {
            const rs = rail.readings
            expect(rs[0]?.tNs).toBe(a)
            expect(rs.at(-1)?.tNs).toBe(c)
            for (let i = 1; i < rs.length; i++) {
              expect(rs[i]!.tNs).toBeGreaterThan(rs[i - 1]!.tNs)
              expect(rs[i]!.energyJ).toBeGreaterThanOrEqual(rs[i - 1]!.energyJ)
            }
            const sum = energyJ(left.get(name)) + energyJ(right.get(name))
            expect(Math.abs(energyJ(rail) - sum)).toBeLessThanOrEqual(1e-9 * (1 + energyJ(rail)))
          }
        },
      ),
      { numRuns: 200 },
    )
  })
})
