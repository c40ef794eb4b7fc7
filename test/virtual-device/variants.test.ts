/**
 * The phones `startVirtualDevice` can present besides the default Pixel 6 on Android 13: without
 * ODPM rails, on battery or another charger, with a vendor's flipped fuel gauge, on another Android
 * release. Each is checked over ADB the way the product sees it: the raw shell output, and the
 * capability probe's reading of it.
 */
import { afterEach, describe, expect, test } from 'vitest'
import {
  connectAdb,
  probeCapabilities,
  shell,
  shellScript,
  type AdbDevice,
} from '../../src/device/index.js'
import { decodePowerTrace, formatPerfettoTextConfig } from '../../src/formats/perfetto/index.js'
import { isEnergyError } from '../../src/model/index.js'
import {
  startVirtualDevice,
  type SiliconReport,
  type StartVirtualDeviceOptions,
  type VirtualDeviceServer,
} from '../../src/virtual-device/index.js'

const servers: VirtualDeviceServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function phone(options: StartVirtualDeviceOptions = {}): Promise<AdbDevice> {
  const server = await startVirtualDevice({ time: 'fast', ...options })
  servers.push(server)
  return (await connectAdb({ port: server.port })).device(server.serials[0] ?? '')
}

async function sh(device: AdbDevice, line: string): Promise<string> {
  return (await shellScript(device, `${line} 2>&1`)).stdout
}

const POWER_CONFIG = formatPerfettoTextConfig({
  buffers: [{ sizeKb: 1024, fillPolicy: 'RING_BUFFER', unknownFields: [] }],
  dataSources: [
    {
      name: 'android.power',
      androidPowerConfig: {
        batteryPollMs: 100,
        batteryCounters: ['BATTERY_COUNTER_CURRENT'],
        collectPowerRails: true,
        unknownFields: [],
      },
      unknownFields: [],
      dataSourceUnknownFields: [],
    },
  ],
  durationMs: 500,
  unknownFields: [],
})

/** A short android.power session with rails and battery current, decoded. */
async function powerSession(device: AdbDevice): Promise<ReturnType<typeof decodePowerTrace>> {
  const file = '/data/misc/perfetto-traces/variants.pftrace'
  const r = await shellScript(device, `echo '${POWER_CONFIG}' | perfetto --txt -c - -o ${file}`)
  expect(r.exitCode, r.stdout).toBe(0)
  const bytes = await shell(device, ['cat', file])
  return decodePowerTrace(bytes.output)
}

describe('defaults are unchanged', () => {
  test('a Pixel 6 on Android 13, USB powered, with ODPM rails', async () => {
    const d = await phone()
    expect(await sh(d, 'getprop ro.build.version.sdk')).toBe('33\n')
    expect(await sh(d, 'getprop ro.build.version.release')).toBe('13\n')
    expect(await sh(d, 'dumpsys powerstats')).toMatch(
      /^ChannelId: 0, ChannelName: S4M_VDD_CPUCL0, ChannelSubsystem: CPU\(LITTLE\)$/m,
    )
    expect(await sh(d, 'dumpsys battery')).toContain('  USB powered: true\n')
    expect(await sh(d, 'cat /sys/class/power_supply/battery/status')).toBe('Charging\n')
    expect(await sh(d, 'perfetto --version')).toBe('Perfetto v30.0 (unknown)\n')
    expect((await powerSession(d)).railDescriptors.length).toBe(11) // with the phone physics' GPU and memory rails
  })
})

describe('odpm: false (a phone without a power monitor)', () => {
  test('dumpsys powerstats prints nothing, the HAL service is missing, perfetto records no rails', async () => {
    const d = await phone({ odpm: false })
    const powerstats = await shellScript(d, 'dumpsys powerstats')
    expect(powerstats).toMatchObject({ stdout: '', exitCode: 0 })
    expect(await sh(d, 'dumpsys android.hardware.power.stats.IPowerStats/default')).toBe(
      "Can't find service: android.hardware.power.stats.IPowerStats/default\n",
    )
    expect(await sh(d, 'dumpsys -l')).not.toContain('IPowerStats')
    const trace = await powerSession(d)
    expect(trace.railDescriptors, 'no rails').toEqual([])
    expect(trace.battery[0]?.readings.length, 'the battery counters still work').toBeGreaterThan(1)
  })

  test('the probe finds no rails, by either route', async () => {
    const caps = await probeCapabilities(await phone({ odpm: false }))
    expect(caps.odpm).toMatchObject({ available: false, rails: [] })
    expect(caps.odpm.evidence.map((e) => e.command)).toEqual([
      'dumpsys powerstats',
      expect.stringContaining('perfetto --txt -c -'),
    ])
    expect(caps.odpm.evidence[1]?.line).toBe('the trace has no power_rails rail_descriptor packets')
  })
})

describe('charger', () => {
  test("'none': on battery, discharging; the probe judges the gauge's sign", async () => {
    const d = await phone({ charger: 'none', sensors: { noiseUa: 0 } })
    const battery = await sh(d, 'dumpsys battery')
    for (const line of ['AC powered: false', 'USB powered: false', 'Wireless powered: false'])
      expect(battery).toContain(`  ${line}\n`)
    expect(battery).toContain('  status: 3\n')
    expect(await sh(d, 'cat /sys/class/power_supply/battery/status')).toBe('Discharging\n')
    expect(await sh(d, 'cat /sys/class/power_supply/usb/online')).toBe('0\n')
    expect(Number(await sh(d, 'cat /sys/class/power_supply/battery/current_now'))).toBeLessThan(0)
    const caps = await probeCapabilities(d)
    expect(caps.charging).toMatchObject({ powered: false, status: 3 })
    expect(caps.fuelGauge).toMatchObject({
      currentSign: 'negative-discharge',
      dischargeAmperesPerUnit: -1e-6,
    })
  })

  test("'ac' and 'wireless': the framework says which; reset goes back to it", async () => {
    const ac = await phone({ charger: 'ac' })
    expect(await sh(ac, 'dumpsys battery')).toMatch(/AC powered: true\n {2}USB powered: false/)
    expect(await sh(ac, 'cat /sys/class/power_supply/battery/status')).toBe('Charging\n')
    await sh(ac, 'dumpsys battery unplug')
    expect(await sh(ac, 'dumpsys battery')).toContain('AC powered: false')
    await sh(ac, 'dumpsys battery reset')
    expect(await sh(ac, 'dumpsys battery')).toContain('AC powered: true')

    const pad = await phone({ charger: 'wireless' })
    expect(await sh(pad, 'dumpsys battery')).toContain('  Wireless powered: true\n')
    expect(await sh(pad, 'cat /sys/class/power_supply/wireless/online')).toBe('1\n')
    expect(await sh(pad, 'cat /sys/class/power_supply/usb/online')).toBe('0\n')
  })

  test("'usb' (the default) charges: the gauge's sign cannot be judged", async () => {
    const caps = await probeCapabilities(await phone({ odpm: false }))
    expect(caps.charging).toMatchObject({ usb: true, powered: true, status: 2 })
    expect(caps.fuelGauge.currentSign).toBe('unknown')
    expect(caps.fuelGauge.dischargeAmperesPerUnit).toBeUndefined()
  })

  test('a phone on battery does not start charging after `unplug`, even with chargesWhenUnplugged', async () => {
    const d = await phone({ charger: 'none', sensors: { chargesWhenUnplugged: true } })
    await sh(d, 'dumpsys battery unplug')
    await sh(d, 'sleep 1')
    expect(await sh(d, 'cat /sys/class/power_supply/battery/status')).toBe('Discharging\n')
  })
})

test("sensors.currentSign 'flipped' on battery: the probe detects the vendor's sign", async () => {
  const d = await phone({ charger: 'none', sensors: { currentSign: 'flipped', noiseUa: 0 } })
  expect(Number(await sh(d, 'cat /sys/class/power_supply/battery/current_now'))).toBeGreaterThan(0)
  const caps = await probeCapabilities(d)
  expect(caps.fuelGauge).toMatchObject({
    currentSign: 'positive-discharge',
    dischargeAmperesPerUnit: 1e-6,
    currentConvention: { unit: 'uA', sign: -1 },
  })
})

describe('androidVersion', () => {
  test.each([
    [29, '10', 'QQ3A.200805.001'],
    [30, '11', 'RQ3A.211001.001'],
    [31, '12', 'SQ1D.220205.004'],
    [34, '14', 'UQ1A.240205.004'],
    [35, '15', 'AP3A.241005.015'],
  ] as const)('API %i: Android %s build properties', async (api, release, buildId) => {
    const d = await phone({ androidVersion: api })
    const props = await sh(d, 'getprop')
    expect(props).toContain(`[ro.build.version.sdk]: [${api}]`)
    expect(props).toContain(`[ro.build.version.release]: [${release}]`)
    expect(props).toContain(`[ro.build.id]: [${buildId}]`)
    expect(props).toContain(`[ro.build.fingerprint]: [google/oriole/oriole:${release}/${buildId}/`)
    expect(props, 'still says it is virtual').toContain('[ro.product.model]: [Pixel 6 (virtual)]')
    expect((await probeCapabilities(d, { perfettoRails: false })).sdk).toBe(api)
  })

  test('API 29 and 30: no powerstats services; the probe finds the rails through perfetto', async () => {
    for (const api of [29, 30] as const) {
      const d = await phone({ androidVersion: api })
      expect(await sh(d, 'dumpsys powerstats')).toBe("Can't find service: powerstats\n")
      expect(await sh(d, 'dumpsys android.hardware.power.stats.IPowerStats/default')).toMatch(
        /^Can't find service/,
      )
      const caps = await probeCapabilities(d)
      expect(caps.odpm).toMatchObject({ available: true, via: 'perfetto' })
      expect(caps.odpm.rails).toHaveLength(11)
    }
  })

  test('API 34+: dumpsys powerstats indents its items (IndentingPrintWriter); 31–33 do not', async () => {
    expect(await sh(await phone({ androidVersion: 34 }), 'dumpsys powerstats')).toMatch(
      /^ {2}ChannelId: 0, ChannelName: S4M_VDD_CPUCL0/m,
    )
    expect(await sh(await phone({ androidVersion: 31 }), 'dumpsys powerstats')).toMatch(
      /^ChannelId: 0, ChannelName: S4M_VDD_CPUCL0/m,
    )
    const caps = await probeCapabilities(await phone({ androidVersion: 35 }))
    expect(caps.odpm).toMatchObject({ available: true, via: 'dumpsys-powerstats' })
  })

  test('perfetto --version follows the release', async () => {
    expect(await sh(await phone({ androidVersion: 29 }), 'perfetto --version')).toBe(
      'Perfetto v0.0 (unknown)\n',
    )
    expect(await sh(await phone({ androidVersion: 35 }), 'perfetto --version')).toBe(
      'Perfetto v46.0 (unknown)\n',
    )
  })
})

describe('silicon: the true CPU currents against the profile the phone ships', () => {
  const siliconOf = async (options: StartVirtualDeviceOptions): Promise<SiliconReport> =>
    JSON.parse(await sh(await phone(options), 'vdev silicon')) as SiliconReport

  test('deviated by default (phone physics), seeded per phone; nominal with the simple physics; either can be forced', async () => {
    const deviated = await siliconOf({ seed: 3 })
    expect(deviated.silicon).toBe('deviated')
    for (const c of deviated.clusters) {
      expect(Math.abs(c.factor - 1)).toBeGreaterThanOrEqual(0.1)
      expect(Math.abs(c.factor - 1)).toBeLessThanOrEqual(0.3)
    }
    expect(await siliconOf({ seed: 3 })).toEqual(deviated)
    expect((await siliconOf({ seed: 4 })).clusters[0]?.factor).not.toBe(
      deviated.clusters[0]?.factor,
    )
    const simple = await siliconOf({ seed: 3, physics: 'simple' })
    expect(simple.silicon).toBe('nominal')
    expect(simple.clusters.map((c) => c.true)).toEqual(simple.clusters.map((c) => c.nominal))
    expect((await siliconOf({ seed: 3, silicon: 'nominal' })).silicon).toBe('nominal')
    expect(await siliconOf({ seed: 3, physics: 'simple', silicon: 'deviated' })).toEqual(deviated)
  })
})

describe('bad options', () => {
  test.each([
    [{ silicon: 'typical' }, 'silicon'],
    [{ androidVersion: 28 }, 'androidVersion'],
    [{ androidVersion: 33.5 }, 'androidVersion'],
    [{ charger: 'solar' }, 'charger'],
    [{ odpm: 'no' }, 'odpm'],
  ])('%j → E_VDEV_BAD_OPTION naming %s', async (options, name) => {
    const error: unknown = await startVirtualDevice(
      options as unknown as StartVirtualDeviceOptions,
    ).then(
      (s) => s.close(),
      (e: unknown) => e,
    )
    expect(isEnergyError(error) && error.code).toBe('E_VDEV_BAD_OPTION')
    expect(isEnergyError(error) && error.details['option']).toBe(name)
  })
})
