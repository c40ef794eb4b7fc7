/** The powerstats (ODPM without perfetto) collector against the virtual device and its ground truth. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  CollectorErrors,
  powerstatsCollector,
  railsFromSnapshots,
  readPowerstatsSnapshot,
} from '../../src/collectors/index.js'
import type { AdbDevice } from '../../src/device/index.js'
import { formatPowerStatsMeter, meterReadingFromUws } from '../../src/formats/dumpsys/index.js'
import { isEnergyError } from '../../src/model/index.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../src/virtual-device/index.js'
import { adbDevice, contextFor, groundTruth, run, TAP } from './_vdev.js'

let server: VirtualDeviceServer
let device: AdbDevice

beforeAll(async () => {
  // The simple physics: the meter's timestamps come from /proc/uptime (10 ms steps) around each
  // dump, and every rail is checked to 1 %; with the phone physics kernel threads running inside
  // those 10 ms would move a small CPU rail by more than that.
  server = await startVirtualDevice({ time: 'fast', seed: 4, physics: 'simple' })
  device = await adbDevice(server.port, server.serials[0]!)
})
afterAll(async () => {
  await server.close()
})

function codeOf(f: () => unknown): string {
  try {
    f()
  } catch (error) {
    if (isEnergyError(error)) return error.code
    throw error
  }
  throw new Error('expected an EnergyError')
}

describe('powerstats collector on the virtual device', () => {
  test('two meter dumps per window: every rail within 1 % of the ground truth', async () => {
    await run(device, 'am start -W -n com.example.trails/.MainActivity')
    const context = contextFor(device)
    const collector = powerstatsCollector()
    await collector.start(context)
    await run(device, `${TAP.refresh}; sleep 2; ${TAP.navSync}; ${TAP.syncNow}; sleep 5`)
    const data = await collector.stop(context)
    if (data.kind !== 'rails') throw new Error('expected rails')
    expect(data.rails.length).toBeGreaterThan(3)
    const [first] = data.rails
    const fromNs = first!.readings[0]!.tNs
    const toNs = first!.readings[1]!.tNs
    expect(toNs - fromNs).toBeGreaterThanOrEqual(7e9)
    const truth = await groundTruth(device, fromNs, toNs)
    let sumJ = 0
    for (const rail of data.rails) {
      expect(rail.clock).toBe('boottime')
      expect(rail.source).toBe('powerstats')
      expect(rail.readings.map((r) => r.tNs)).toEqual([fromNs, toNs])
      const deltaJ = rail.readings[1]!.energyJ - rail.readings[0]!.energyJ
      const expectedJ = truth.rails[rail.rail]
      expect(expectedJ, rail.rail).toBeDefined()
      // 1 % of the rail, or the meter's print resolution (0.01 mWs at each end) for idle rails.
      expect(Math.abs(deltaJ - expectedJ!), rail.rail).toBeLessThanOrEqual(
        Math.max(0.01 * expectedJ!, 2e-5),
      )
      sumJ += deltaJ
    }
    const error = (sumJ - truth.totalEnergyJ) / truth.totalEnergyJ
    console.info(
      `powerstats: Σ rails ${sumJ.toFixed(4)} J vs ground truth ${truth.totalEnergyJ.toFixed(4)} J (${(error * 100).toFixed(3)} %)`,
    )
    expect(Math.abs(error)).toBeLessThan(0.01)
    expect(data.rails.find((r) => r.rail === 'VSYS_PWR_DISPLAY')?.subsystem).toBe('Display')
  })

  test('stop before start → E_COLLECTOR_NOT_STARTED', async () => {
    await expect(powerstatsCollector().stop(contextFor(device))).rejects.toMatchObject({
      code: CollectorErrors.NOT_STARTED,
    })
  })
})

describe('reading the bracketed dump', () => {
  const meter = (uws: Record<string, number>): string =>
    formatPowerStatsMeter({
      readings: Object.entries(uws).map(([rail, e]) => meterReadingFromUws(rail, 'X', e)),
    })

  test('stamps the readings at the midpoint of the two /proc/uptime reads', () => {
    const s = readPowerstatsSnapshot(`100.00 50.00\n${meter({ A: 5_000_000 })}100.20 50.10\n`)
    expect(s.tNs).toBe(100.1e9)
    expect(s.uncertaintyNs).toBe(0.1e9 + 0.01e9)
    expect(s.readings[0]).toMatchObject({ rail: 'A', energyMws: 5000 })
  })

  test('the pre-HAL layout ("Energy (uWs):" lines) is reported as unreadable, not guessed', () => {
    const text = [
      '100.00 50.00',
      'PowerStatsService dumpsys: available Channels',
      'ChannelId: 0, ChannelName: S4M_VDD_CPUCL0, ChannelSubsystem: CPU(LITTLE)',
      'PowerStatsService dumpsys: last energy measurements',
      'ChannelId: 0, Timestamp (ms): 100000, Duration (ms): 100000, Energy (uWs): 123456',
      '100.00 50.00',
    ].join('\n')
    expect(codeOf(() => readPowerstatsSnapshot(text))).toBe(CollectorErrors.NO_POWER_DATA)
    try {
      readPowerstatsSnapshot(text)
    } catch (error) {
      expect(String(error)).toContain(
        '"Energy (uWs):" line(s), a layout the powerstats parser does not read',
      )
    }
  })

  test('a device without the service → E_DUMPSYS_SERVICE_MISSING from the parser', () => {
    const text = `1.00 1.00\nCan't find service: powerstats\n1.00 1.00\n`
    expect(codeOf(() => readPowerstatsSnapshot(text))).toBe('E_DUMPSYS_SERVICE_MISSING')
  })

  test('output without uptime brackets → E_COLLECTOR_RECORDER_FAILED', () => {
    expect(codeOf(() => readPowerstatsSnapshot(meter({ A: 1 })))).toBe(
      CollectorErrors.RECORDER_FAILED,
    )
  })

  test('a truncated meter table → the parser’s E_DUMPSYS_POWERSTATS_TRUNCATED', () => {
    const cut = meter({ A: 1000, B: 2000 }).split('\n').slice(0, -2).join('\n')
    expect(codeOf(() => readPowerstatsSnapshot(`1.00 1.00\n${cut}\n1.00 1.00\n`))).toBe(
      'E_DUMPSYS_POWERSTATS_TRUNCATED',
    )
  })

  test('rails that appear, vanish or run backwards are skipped with a warning', () => {
    const start = { tNs: 1e9, uncertaintyNs: 0, readings: [r('A', 10), r('B', 10), r('C', 10)] }
    const stop = { tNs: 2e9, uncertaintyNs: 0, readings: [r('A', 12), r('C', 5), r('D', 1)] }
    const { rails, warnings } = railsFromSnapshots(start, stop)
    expect(rails.map((x) => x.rail)).toEqual(['A'])
    expect(rails[0]!.readings).toEqual([
      { tNs: 1e9, energyJ: 0.01 },
      { tNs: 2e9, energyJ: 0.012 },
    ])
    expect(warnings.map((w) => w.code).sort()).toEqual([
      'W_POWERSTATS_COUNTER_RESET',
      'W_POWERSTATS_RAIL_CHANGED',
      'W_POWERSTATS_RAIL_CHANGED',
    ])
  })
})

function r(rail: string, energyMws: number) {
  return { channel: `[${rail}]:X`, rail, subsystem: 'X', energyMws }
}
