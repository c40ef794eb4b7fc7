/**
 * The batterystats model against the virtual device (through adbkit) and its ground truth.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  batterystatsCollector,
  batterystatsPowerSeries,
  CollectorErrors,
  modelCurrents,
} from '../../src/collectors/index.js'
import type { AdbDevice } from '../../src/device/index.js'
import { historyTimeline, parseBatterystatsHistory } from '../../src/formats/batterystats/index.js'
import { parsePowerProfile } from '../../src/formats/power-profile/index.js'
import { isEnergyError } from '../../src/model/index.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../src/virtual-device/index.js'
import { adbDevice, contextFor, groundTruth, nowNs, run, TAP, trapezoidJ } from './_vdev.js'

const CORPUS = join(import.meta.dirname, '..', 'fixtures', 'corpus')
const PIXEL6 = join(CORPUS, '1_power_profile', 'aosp_pixel6_oriole_power_profile.xml')
const profile = parsePowerProfile(readFileSync(PIXEL6, 'utf8'))

let server: VirtualDeviceServer
let device: AdbDevice

beforeAll(async () => {
  server = await startVirtualDevice({ time: 'fast', seed: 11 })
  device = await adbDevice(server.port, server.serials[0]!)
})
afterAll(async () => {
  await server.close()
})

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (isEnergyError(error)) return error.code
    throw error
  }
  throw new Error('expected an EnergyError')
}

describe('batterystats collector on the virtual device', () => {
  // Measured: −6.0 % on all three seeds (the seed only moves the CPU jitter) over a 21 s window with
  // the screen on (brightness changed), a Wi-Fi burst and a cellular burst with its 10 s tail;
  // −10.1 % with the screen turned off right after the sync (radio- and CPU-dominated).
  // PETrA reports a mean relative error < 5 % against a Monsoon, but it reads CPU frequencies from
  // systrace and names network use as its main error source. This collector has no frequencies
  // (`running` is priced at one cluster-0 core at its middle speed whatever ran) and cannot split a
  // radio's active period from its tail (the whole span is priced at one current), so a coarser
  // bound is honest: 25 %, which still catches a unit or voltage slip (×1000, ×3.85, mA vs A).
  test.each([
    [11, 'screen on'],
    [3, 'screen on'],
    [42, 'screen on'],
    [11, 'screen off'],
  ] as const)(
    'seed %i, %s: screen + Wi-Fi + cellular window, model within 25 % of the ground truth',
    async (seed, screen) => {
      const vd = await startVirtualDevice({ time: 'fast', seed })
      try {
        const d = await adbDevice(vd.port, vd.serials[0]!)
        await run(d, 'am start -W -n com.example.trails/.MainActivity')
        const context = contextFor(d)
        const collector = batterystatsCollector({ profile: PIXEL6 })
        await collector.start(context)
        await run(
          d,
          screen === 'screen on'
            ? `${TAP.refresh}; sleep 1; ${TAP.navSync}; ${TAP.syncNow}; sleep 2; ${TAP.navSettings}; ${TAP.brightnessHigh}; sleep 18`
            : `${TAP.refresh}; sleep 1; ${TAP.navSync}; ${TAP.syncNow}; sleep 2; input keyevent 26; sleep 18`,
        )
        const data = await collector.stop(context)
        if (data.kind !== 'series') throw new Error('expected a series')
        const { samples } = data.series
        expect(data.series.clock).toBe('boottime')
        expect(data.series.source).toBe('batterystats-model')
        for (let i = 1; i < samples.length; i++)
          expect(samples[i]!.tNs).toBeGreaterThan(samples[i - 1]!.tNs)
        const first = samples[0]!.tNs
        const last = samples[samples.length - 1]!.tNs
        const truth = await groundTruth(d, first, last)
        expect(truth.components.screen).toBeGreaterThan(0)
        expect(truth.components.wifi).toBeGreaterThan(0)
        expect(truth.components.cellular).toBeGreaterThan(0)
        const modelJ = trapezoidJ(samples)
        const error = (modelJ - truth.totalEnergyJ) / truth.totalEnergyJ
        console.info(
          `seed ${seed}, ${screen}: batterystats model ${modelJ.toFixed(3)} J vs ground truth ${truth.totalEnergyJ.toFixed(3)} J (${(error * 100).toFixed(1)} %) over ${((last - first) / 1e9).toFixed(1)} s`,
        )
        expect(Math.abs(error)).toBeLessThan(0.25)
        // The window maps onto boottime: it ends where the device clock was at stop.
        expect(Math.abs(last - (await nowNs(d)))).toBeLessThan(1e9)
        expect(data.warnings.map((w) => w.code)).toContain('W_BATTERYSTATS_MODEL')
      } finally {
        await vd.close()
      }
    },
  )

  test('without a profile: the virtual device has no plain-text power_profile.xml → E_COLLECTOR_PROFILE_UNAVAILABLE at start', async () => {
    const context = contextFor(device)
    const collector = batterystatsCollector()
    expect(await codeOf(collector.start(context))).toBe(CollectorErrors.PROFILE_UNAVAILABLE)
  })

  test('a profile path that does not exist → E_COLLECTOR_PROFILE_UNAVAILABLE at start', async () => {
    const context = contextFor(device)
    const collector = batterystatsCollector({ profile: '/nonexistent/power_profile.xml' })
    expect(await codeOf(collector.start(context))).toBe(CollectorErrors.PROFILE_UNAVAILABLE)
  })

  test('stop before start → E_COLLECTOR_NOT_STARTED', async () => {
    expect(await codeOf(batterystatsCollector().stop(contextFor(device)))).toBe(
      CollectorErrors.NOT_STARTED,
    )
  })
})

describe('the model on hand-written histories', () => {
  const history = (body: string): ReturnType<typeof historyTimeline> =>
    historyTimeline(parseBatterystatsHistory(`Battery History (1% used):\n${body}\n`))

  test('prices each state with the profile currents and the history voltage (golden)', () => {
    const c = modelCurrents(profile)
    const t = history(
      [
        '                    0 (2) RESET:TIME: 2026-11-22-01-00-00',
        '                    0 (2) 100 status=discharging volt=4000',
        '               +1s000ms (2) 100 +screen brightness=bright',
        '               +2s000ms (2) 100 +wifi_radio',
        '               +3s000ms (2) 100 -wifi_radio volt=3900',
        '               +4s000ms (2) 100 -screen',
      ].join('\n'),
    )
    const { samples, usedNominalVoltage } = batterystatsPowerSeries(t, profile, { offsetNs: 5e9 })
    expect(usedNominalVoltage).toBe(false)
    const screenMa = c.suspendMa + c.awakeMa + c.screenOnMa + c.screenFullMa * 0.9
    const expected =
      (c.suspendMa / 1000) * 4 * 1 +
      (screenMa / 1000) * 4 * 1 +
      ((screenMa + c.wifiRadioMa) / 1000) * 4 * 1 +
      (screenMa / 1000) * 3.9 * 1
    expect(samples[0]!.tNs).toBe(5e9)
    expect(samples[samples.length - 1]!.tNs).toBe(9e9)
    expect(trapezoidJ(samples)).toBeCloseTo(expected, 6)
  })

  test('a profile with per-display keys (screen.on.display0, as on Fairphone 4) prices the screen', () => {
    const perDisplay = parsePowerProfile(
      [
        '<device name="Android">',
        '  <item name="cpu.suspend">5</item>',
        '  <item name="cpu.idle">10</item>',
        '  <item name="cpu.active">20</item>',
        '  <item name="screen.on.display0">72</item>',
        '  <item name="screen.full.display0">300</item>',
        '</device>',
      ].join('\n'),
    )
    const c = modelCurrents(perDisplay)
    expect(c.screenOnMa, 'screen on').toBe(72)
    expect(c.screenFullMa, 'screen full').toBe(300)
  })

  test('no volt= reading: nominal voltage, flagged', () => {
    const t = history(
      [
        '                    0 (2) RESET:TIME: 2026-11-22-01-00-00',
        '               +1s000ms (2) 100 +gps',
        '               +3s000ms (2) 100 -gps',
      ].join('\n'),
    )
    const r = batterystatsPowerSeries(t, profile, { offsetNs: 0, nominalVoltageV: 4 })
    expect(r.usedNominalVoltage).toBe(true)
    const c = modelCurrents(profile)
    expect(trapezoidJ(r.samples)).toBeCloseTo(
      (c.suspendMa / 1000) * 4 * 3 + (c.gpsMa / 1000) * 4 * 2,
      9,
    )
  })

  test('energy is additive: splitting a state at any point does not change the total (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.constantFrom('screen', 'wifi_radio', 'mobile_radio', 'gps', 'running'), {
          minLength: 1,
          maxLength: 12,
        }),
        (gaps, flags) => {
          const lines = [
            '                    0 (2) RESET:TIME: 2026-11-22-01-00-00',
            '                    0 (2) 100 volt=3850',
          ]
          const on = new Set<string>()
          let tMs = 0
          let expectedJ = 0
          const c = modelCurrents(profile)
          const ma = (): number => {
            let m = c.suspendMa
            if (on.has('screen') || on.has('running')) m += c.awakeMa
            if (on.has('running')) m += c.runningMa
            if (on.has('screen')) m += c.screenOnMa + c.screenFullMa * 0.1 // no bin yet: dark
            if (on.has('wifi_radio')) m += c.wifiRadioMa
            if (on.has('mobile_radio')) m += c.mobileRadioMa
            if (on.has('gps')) m += c.gpsMa
            return m
          }
          gaps.forEach((gap, i) => {
            expectedJ += (ma() / 1000) * 3.85 * (gap / 1000)
            tMs += gap
            const flag = flags[i % flags.length]!
            const sign = on.has(flag) ? '-' : '+'
            if (sign === '+') on.add(flag)
            else on.delete(flag)
            lines.push(`               +${tMs}ms (2) 100 ${sign}${flag}`)
          })
          const t = history(lines.join('\n'))
          const { samples } = batterystatsPowerSeries(t, profile, { offsetNs: 0 })
          expect(trapezoidJ(samples)).toBeCloseTo(expectedJ, 9)
        },
      ),
      { numRuns: 100 },
    )
  })
})

describe('real batterystats histories (corpus)', () => {
  // (the 1.6 MB asksven capture is left out: the brute-force reference takes ~20 s on it)
  const files = [
    'emanafa_bstats1.log',
    'petra_batterystats_example.txt',
    'redmik80pro_android15_batterystats.txt',
    'redmik80pro_android15_batterystats0.txt',
    'redmik80pro_android15_batterystats3.txt',
  ]
  const nexus5 = parsePowerProfile(
    readFileSync(join(CORPUS, '1_power_profile', 'cm_nexus5_hammerhead_power_profile.xml'), 'utf8'),
  )

  /** Independent reference: the state at each sample time by scanning every interval. */
  function referenceJ(t: ReturnType<typeof historyTimeline>, p: typeof profile): number {
    const c = modelCurrents(p)
    const names = new Set([
      'running',
      'screen',
      'wake_lock',
      'wifi_radio',
      'wifi_running',
      'mobile_radio',
      'gps',
      'audio',
      'video',
      'camera',
      'flashlight',
      'brightness',
      'screen_doze',
      'wifi_scan',
      'gps_signal_quality',
      'bluetooth',
      'ble_scan',
    ])
    const edges = new Set<number>([t.startNs, t.endNs])
    for (const i of t.intervals) if (names.has(i.name)) edges.add(i.startNs).add(i.endNs)
    for (const b of t.battery) edges.add(b.tNs)
    const times = [...edges].filter((x) => x >= t.startNs && x <= t.endNs).sort((a, b) => a - b)
    const bins = ['dark', 'dim', 'medium', 'light', 'bright']
    let e = 0
    for (let k = 0; k + 1 < times.length; k++) {
      const at = times[k]!
      const on = (n: string) =>
        t.intervals.find((i) => i.name === n && i.startNs <= at && at < i.endNs)
      let ma = c.suspendMa
      if (on('screen') || on('wake_lock') || on('running')) ma += c.awakeMa
      if (on('running')) ma += c.runningMa
      if (on('screen')) {
        // No bin printed yet: dark; Android 15 prints `brightness-N`; anything else: the middle.
        const value = on('brightness')?.value
        const numbered = /^brightness-(\d)$/.exec(value ?? '')
        const bin =
          value === undefined
            ? 0
            : bins.includes(value)
              ? bins.indexOf(value)
              : numbered !== null
                ? Number(numbered[1])
                : 2
        ma += c.screenOnMa + (c.screenFullMa * (bin + 0.5)) / 5
      } else if (on('screen_doze')) ma += c.screenDozeMa
      if (on('wifi_radio')) ma += c.wifiRadioMa
      if (on('wifi_running')) ma += c.wifiOnMa
      if (on('wifi_scan')) ma += c.wifiScanMa
      if (on('mobile_radio')) ma += c.mobileRadioMa
      if (on('gps')) ma += on('gps_signal_quality')?.value === 'good' ? c.gpsGoodSignalMa : c.gpsMa
      if (on('bluetooth')) ma += c.bluetoothOnMa
      if (on('ble_scan')) ma += c.bleScanMa
      if (on('audio')) ma += c.audioMa
      if (on('video')) ma += c.videoMa
      if (on('camera')) ma += c.cameraMa
      if (on('flashlight')) ma += c.flashlightMa
      const v =
        [...t.battery].reverse().find((b) => b.tNs <= at && b.voltageV !== undefined)?.voltageV ??
        t.battery.find((b) => b.voltageV !== undefined)?.voltageV ??
        3.85
      e += (ma / 1000) * v * ((times[k + 1]! - at) / 1e9)
    }
    return e
  }

  test.each(files)('%s: the sweep agrees with a brute-force reference', (file) => {
    const t = historyTimeline(
      parseBatterystatsHistory(readFileSync(join(CORPUS, '2_batterystats', file), 'utf8')),
    )
    const { samples } = batterystatsPowerSeries(t, nexus5, { offsetNs: 0 })
    for (let i = 1; i < samples.length; i++)
      expect(samples[i]!.tNs).toBeGreaterThan(samples[i - 1]!.tNs)
    const j = trapezoidJ(samples)
    expect(j).toBeGreaterThan(0)
    expect(j).toBeCloseTo(referenceJ(t, nexus5), 6)
  })
})
