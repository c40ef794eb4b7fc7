/**
 * The battery history read a window at a time for the modelled components of a phone without
 * rails: the reset's anchor on boottime, the fuel-gauge collector's `components` against the
 * virtual device's ground truth over adb (when the app switched Wi-Fi and GPS on, and a GPS left
 * on carried into the next window), and every way the history can fail a window's components
 * without failing the window.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  batteryHistoryReader,
  fuelGaugeCollector,
  readComponentRails,
  resetBatterystats,
  type BatteryHistoryReader,
  type CollectorContext,
  type PowerData,
} from '../../src/collectors/index.js'
import {
  connectAdb,
  probeCapabilities,
  shell,
  type AdbDevice,
  type FuelGaugeCapability,
} from '../../src/device/index.js'
import { parsePowerProfile } from '../../src/formats/power-profile/index.js'
import type { RailSeries } from '../../src/model/index.js'
import {
  startVirtualDevice,
  type GroundTruth,
  type VirtualDeviceServer,
} from '../../src/virtual-device/index.js'

const PIXEL6 = parsePowerProfile(
  readFileSync(
    join(
      import.meta.dirname,
      '..',
      'fixtures',
      'corpus',
      '1_power_profile',
      'aosp_pixel6_oriole_power_profile.xml',
    ),
    'utf8',
  ),
)
/** The virtual phone's nominal battery voltage: its ground truth is priced at it. */
const SIM_VOLTAGE_V = 3.85

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Demo-app taps: refresh on the feed (a Wi-Fi burst), the map tab (a GPS listener never removed). */
const REFRESH = ['input', 'tap', '920', '155']
const MAP_TAB = ['input', 'tap', '324', '2325']

function contextFor(
  device: AdbDevice,
  windowId: string,
  kept?: Map<string, string>,
): CollectorContext {
  return {
    device,
    app: 'com.example.trails',
    deviceDir: '/data/local/tmp/vitest-energy',
    windowId,
    ...(kept === undefined
      ? {}
      : {
          keepArtifact: (name: string, data: Uint8Array | string) => kept.set(name, String(data)),
        }),
  }
}

async function truth(device: AdbDevice, fromNs: number, toNs: number): Promise<GroundTruth> {
  const { stdout } = await shell(device, [
    'vdev',
    'ground-truth',
    '--from',
    String(Math.round(fromNs)),
    '--to',
    String(Math.round(toNs)),
  ])
  return JSON.parse(stdout) as GroundTruth
}

function componentsOf(data: PowerData): Map<string, RailSeries> {
  if (data.kind !== 'series') throw new Error('expected a series')
  return new Map((data.components ?? []).map((r) => [r.rail, r]))
}

const energyJ = (rail: RailSeries | undefined): number =>
  (rail?.readings.at(-1)?.energyJ ?? NaN) - (rail?.readings[0]?.energyJ ?? NaN)

/** When the rail first draws: the reading its first rising interval starts at. */
function firstRiseNs(rail: RailSeries | undefined): number | undefined {
  const r = rail?.readings ?? []
  for (let i = 1; i < r.length; i++) if (r[i]!.energyJ > r[i - 1]!.energyJ) return r[i - 1]!.tNs
  return undefined
}

/** When the rail first switches on from drawing nothing (the app's launch may leave a burst on). */
function firstSwitchOnNs(rail: RailSeries | undefined): number | undefined {
  const r = rail?.readings ?? []
  for (let i = 1; i + 1 < r.length; i++) {
    const off = r[i]!.energyJ === r[i - 1]!.energyJ
    if (off && r[i + 1]!.energyJ > r[i]!.energyJ) return r[i]!.tNs
  }
  return undefined
}

/** A phone that answers every shell command with `answer(command)` (an Error: adb fails). */
function fakeDevice(answer: (command: string) => string | Error): AdbDevice {
  return {
    serial: 'fake-0001',
    client: { host: '127.0.0.1', port: 1 },
    raw: {
      shell: async (command: string) => {
        const reply = answer(command)
        if (reply instanceof Error) throw reply
        return Readable.from([Buffer.from(reply)])
      },
    },
  } as unknown as AdbDevice
}

/** A phone whose `dumpsys batterystats` prints these history lines (after the section's header). */
const printing = (...lines: string[]): AdbDevice =>
  fakeDevice(() => ['Battery History (0% used):', ...lines, ''].join('\n'))

const SPAN = { startNs: 2e9, endNs: 3e9 }

describe('the fuel gauge with modelled components, on the virtual phone (real time)', () => {
  let server: VirtualDeviceServer
  let device: AdbDevice
  let gauge: FuelGaugeCapability

  beforeAll(async () => {
    server = await startVirtualDevice({
      devices: 1,
      seed: 5,
      charger: 'none',
      sensors: { updateHz: 5 },
    })
    device = (await connectAdb({ port: server.port })).device(server.serials[0]!)
    await shell(device, ['am', 'start', '-W', '-n', 'com.example.trails/.MainActivity'])
    gauge = (await probeCapabilities(device, { perfettoRails: false })).fuelGauge
  })
  afterAll(async () => server.close())

  test('the reset anchors the history on boottime exactly: Android 13 keeps it on elapsedRealtime', async () => {
    const before = Number((await shell(device, ['vdev', 'now'])).stdout)
    const anchor = await resetBatterystats(device)
    expect(anchor.historyMs).toBeDefined()
    expect(anchor.bootNs).toBe((anchor.historyMs ?? NaN) * 1e6)
    expect(anchor.uncertaintyNs, 'the history’s 1 ms').toBe(1e6)
    expect(anchor.bootNs - before).toBeGreaterThanOrEqual(-1e6)
    expect(anchor.bootNs - before).toBeLessThan(1e9)
  })

  test('Wi-Fi and GPS switched on in a window show there within the history’s 1 ms; the GPS left on carries into the next window', async () => {
    const anchor = await resetBatterystats(device)
    const reader = batteryHistoryReader(anchor)
    const components = { profile: PIXEL6, history: reader, voltageV: SIM_VOLTAGE_V }

    const first = fuelGaugeCollector({ gauge, components })
    await first.start(contextFor(device, 'w1'))
    await sleep(400)
    await shell(device, REFRESH)
    await sleep(700)
    await shell(device, MAP_TAB)
    await sleep(1200)
    const one = await first.stop(contextFor(device, 'w1'))
    expect(one.warnings.map((w) => w.message)).toEqual([])
    const rails = componentsOf(one)
    expect([...rails.keys()]).toEqual(['MODEL_DISPLAY', 'MODEL_WLAN', 'MODEL_GNSS'])
    if (one.kind !== 'series') throw new Error('series')
    const samples = one.series.samples
    for (const rail of rails.values()) {
      expect(rail.readings[0]?.tNs, rail.rail).toBe(samples[0]?.tNs)
      expect(rail.readings.at(-1)?.tNs, rail.rail).toBe(samples.at(-1)?.tNs)
    }
    // When each switched on (from nothing: the app's launch leaves a Wi-Fi burst running as the
    // window opens): the truth draws nothing up to the modelled rise and something from the
    // millisecond after it (history times are whole ms, truncated).
    for (const [rail, component] of [
      ['MODEL_WLAN', 'wifi'],
      ['MODEL_GNSS', 'gps'],
    ] as const) {
      const on = firstSwitchOnNs(rails.get(rail))
      if (on === undefined) throw new Error(`${rail} never switched on`)
      expect((await truth(device, on - 250e6, on)).components[component], `${rail} before`).toBe(0)
      expect(
        (await truth(device, on + 1e6, on + 50e6)).components[component],
        `${rail} after`,
      ).toBeGreaterThan(0)
    }
    // The GPS is priced as the phone's physics prices it (gps.on, else the poor-signal current).
    const window1 = await truth(device, samples[0]!.tNs, samples.at(-1)!.tNs)
    const gps1 = energyJ(rails.get('MODEL_GNSS'))
    expect(Math.abs(gps1 - window1.components.gps) / window1.components.gps).toBeLessThan(0.01)

    // The next window: nothing switches, the GPS stays on from the first window's record.
    const kept = new Map<string, string>()
    const second = fuelGaugeCollector({ gauge, components })
    await second.start(contextFor(device, 'w2', kept))
    await sleep(1000)
    const two = await second.stop(contextFor(device, 'w2', kept))
    if (two.kind !== 'series') throw new Error('series')
    const gnss = componentsOf(two).get('MODEL_GNSS')
    const s2 = two.series.samples
    const window2 = await truth(device, s2[0]!.tNs, s2.at(-1)!.tNs)
    expect(firstRiseNs(gnss), 'on from the window’s first reading').toBe(s2[0]!.tNs)
    expect(Math.abs(energyJ(gnss) - window2.components.gps) / window2.components.gps).toBeLessThan(
      0.01,
    )
    // Only what the history gained since the first window's last record was read.
    const text = kept.get('batterystats-history.txt') ?? ''
    expect(text).toMatch(/^ {2}NEXT: \d+$/m)
    expect(text).not.toContain('RESET')
  })

  test('a history over the read limit costs the window its components only (W_NO_COMPONENTS)', async () => {
    const anchor = await resetBatterystats(device)
    const collector = fuelGaugeCollector({
      gauge,
      components: { profile: PIXEL6, history: batteryHistoryReader(anchor, { maxChars: 100 }) },
    })
    await collector.start(contextFor(device, 'w3'))
    await sleep(600)
    const data = await collector.stop(contextFor(device, 'w3'))
    if (data.kind !== 'series') throw new Error('series')
    expect(data.components).toBeUndefined()
    expect(data.series.samples.length).toBeGreaterThan(1)
    const warning = data.warnings.find((w) => w.code === 'W_NO_COMPONENTS')
    expect(warning?.message).toMatch(/longer than 100 characters/)
  })
})

describe('Android 15: the history on MonotonicClock, anchored by the reset', () => {
  let server: VirtualDeviceServer
  let device: AdbDevice

  beforeAll(async () => {
    server = await startVirtualDevice({ devices: 1, seed: 6, charger: 'none', androidVersion: 35 })
    device = (await connectAdb({ port: server.port })).device(server.serials[0]!)
    await shell(device, ['am', 'start', '-W', '-n', 'com.example.trails/.MainActivity'])
  })
  afterAll(async () => server.close())

  test('the offset is measured around the reset, and the GPS lands within it', async () => {
    const anchor = await resetBatterystats(device)
    expect(anchor.historyMs).toBeDefined()
    // Days ahead of boottime: not snapped, known to the reset's round trip on the phone.
    expect((anchor.historyMs ?? 0) * 1e6 - anchor.bootNs).toBeGreaterThan(86_400e9)
    expect(anchor.uncertaintyNs).toBeGreaterThan(1e6)
    const reader = batteryHistoryReader(anchor)
    const from = Number((await shell(device, ['vdev', 'now'])).stdout)
    await shell(device, MAP_TAB)
    await sleep(300)
    const to = Number((await shell(device, ['vdev', 'now'])).stdout)
    const got = await readComponentRails(
      contextFor(device, 'a15'),
      { profile: PIXEL6, history: reader },
      { startNs: from, endNs: to },
    )
    expect(got.warnings).toEqual([])
    const on = firstRiseNs(got.rails?.find((r) => r.rail === 'MODEL_GNSS'))
    if (on === undefined) throw new Error('no GPS')
    const slack = anchor.uncertaintyNs + 1e6
    expect((await truth(device, on - 300e6, on - slack)).components.gps).toBe(0)
    expect((await truth(device, on + slack, on + slack + 50e6)).components.gps).toBeGreaterThan(0)
  })
})

describe('what the history can do wrong, and the phones without --history-start', () => {
  const anchor = { bootNs: 10e9, uncertaintyNs: 1e6, historyMs: 10_000 }
  const read = (reader: BatteryHistoryReader, device: AdbDevice) =>
    readComponentRails(contextFor(device, 'x'), { profile: PIXEL6, history: reader }, SPAN)

  test('a malformed history: the parser’s error becomes the warning', async () => {
    const device = printing(
      '                    0 (2) 100 +screen',
      '             +3x487ms (2) 100 -screen',
      '  NEXT: 10100',
    )
    const got = await read(batteryHistoryReader({ ...anchor, bootNs: 1e9 }), device)
    expect(got.rails).toBeUndefined()
    expect(got.warnings.map((w) => w.code)).toEqual(['W_NO_COMPONENTS'])
    expect(got.warnings[0]?.message).toMatch(/E_BATTERYSTATS_HISTORY_BAD_TIME/)
  })

  test('a history that cannot be read (adb fails): a warning, no components', async () => {
    const got = await read(
      batteryHistoryReader(anchor),
      fakeDevice(() => new Error('closed')),
    )
    expect(got.rails).toBeUndefined()
    expect(got.warnings[0]?.message).toMatch(/could not be read/)
  })

  test('a disconnected phone is not hidden behind a warning', async () => {
    const gone = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })
    await expect(
      read(
        batteryHistoryReader(anchor),
        fakeDevice(() => gone),
      ),
    ).rejects.toMatchObject({
      code: 'E_DEVICE_DISCONNECTED',
    })
  })

  test('no records, or a history that starts after the window opened (reset by someone else)', async () => {
    const empty = printing('  NEXT: 10000')
    expect((await read(batteryHistoryReader(anchor), empty)).warnings[0]?.message).toMatch(
      /no records/,
    )
    // Its only record is at history 12,500 ms: boottime 12.5 s, after the span's 2 s.
    const late = printing(
      '                    0 (2) RESET:TIME: 2026-01-01-00-00-00',
      '                    0 (2) 100 +screen',
      '  NEXT: 12501',
    )
    const got = await read(batteryHistoryReader(anchor), late)
    expect(got.warnings[0]?.message).toMatch(/starts 10500 ms after the window's start/)
  })

  test('a window opened within the clocks’ tolerance before the first record: that record’s state from its start', async () => {
    // History 10,000 ms is boottime 0, so the record at 12,005 ms is boottime 2.005 s: 5 ms after
    // the span's start, inside the gauge's 10 ms /proc/uptime tick.
    const early = printing(
      '                    0 (2) RESET:TIME: 2026-01-01-00-00-00',
      '                    0 (2) 100 volt=4000 +gps',
      '  NEXT: 12006',
    )
    const got = await read(batteryHistoryReader({ ...anchor, bootNs: 0 }), early)
    const gnss = got.rails?.find((r) => r.rail === 'MODEL_GNSS')
    expect(got.warnings).toEqual([])
    expect(firstRiseNs(gnss)).toBe(SPAN.startNs)
    expect(energyJ(gnss)).toBeCloseTo((PIXEL6.arrays['gps.signalqualitybased']![0]! / 1000) * 4, 9)
  })

  test('an Android without --history-start: the whole history, anchored on its RESET record', async () => {
    const asked: string[] = []
    const old = fakeDevice((command) => {
      asked.push(command)
      if (command.includes('--history-start'))
        return 'Unknown option: --history-start\nBattery stats (batterystats) dump options:\n'
      return [
        'Battery History (0% used):',
        '                    0 (2) 100 +screen',
        '             +1s000ms (2) RESET:TIME: 2026-01-01-00-00-00',
        '             +1s000ms (2) 100 volt=4000 +gps',
        '             +1s500ms (2) 100 -gps',
        '',
      ].join('\n')
    })
    const reader = batteryHistoryReader({ bootNs: 2e9, uncertaintyNs: 5e6, historyMs: 10_000 })
    const got = await read(reader, old)
    const gnss = got.rails?.find((r) => r.rail === 'MODEL_GNSS')
    // The RESET (history +1 s) is boottime 2 s: the GPS ran over boottime [2, 2.5] s.
    expect(firstRiseNs(gnss)).toBe(2e9)
    expect(energyJ(gnss)).toBeCloseTo(
      (PIXEL6.arrays['gps.signalqualitybased']![0]! / 1000) * 4 * 0.5,
      9,
    )
    // Asked once: the next read goes straight to --history.
    await read(reader, old)
    expect(asked.filter((c) => c.includes('--history-start'))).toHaveLength(1)
  })
})
