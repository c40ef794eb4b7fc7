/**
 * The simulated phone through real ADB clients: adbkit (always) and the Debian `adb` binary (skipped
 * with a notice when absent), on servers with 1 and 4 devices.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import type { Client } from '@devicefarmer/adbkit'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { adbkit, adbkitPull, adbkitShell } from './_adbkit.js'
import { parseArtTrace } from '../../../src/formats/art-trace/index.js'
import { parseDumpsysPowerstats } from '../../../src/formats/dumpsys/index.js'
import { decodePowerTrace } from '../../../src/formats/perfetto/index.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../../src/virtual-device/index.js'
import type { GroundTruth } from '../../../src/virtual-device/sim/simulation.js'

const ADB = '/usr/bin/adb'
const hasAdb = existsSync(ADB)
if (!hasAdb)
  console.warn('NOTICE: /usr/bin/adb missing; real adb client tests are skipped (apt install adb)')

function client(port: number): Client {
  return adbkit.Adb.createClient({ host: '127.0.0.1', port, bin: '/nonexistent-adb' })
}

const shell = adbkitShell

const pull = adbkitPull

function runAdb(
  port: number,
  args: readonly string[],
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(ADB, ['-P', String(port), ...args], {
      env: { ...process.env, ADB_SERVER_SOCKET: `tcp:127.0.0.1:${port}`, ANDROID_SERIAL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (d: Buffer) => out.push(d))
    child.stderr.on('data', (d: Buffer) => err.push(d))
    child.on('error', reject)
    child.on('close', (code) =>
      resolve({
        code: code ?? -1,
        out: Buffer.concat(out).toString(),
        err: Buffer.concat(err).toString(),
      }),
    )
  })
}

function center(bounds: readonly number[]): string {
  return `${Math.floor(((bounds[0] ?? 0) + (bounds[2] ?? 0)) / 2)} ${Math.floor(((bounds[1] ?? 0) + (bounds[3] ?? 0)) / 2)}`
}

/** Widget bounds from a uiautomator dump, by content-desc. */
function boundsIn(xml: string, desc: string): number[] {
  const node = new RegExp(
    `content-desc="${desc}"[^>]*bounds="\\[(\\d+),(\\d+)\\]\\[(\\d+),(\\d+)\\]"`,
  ).exec(xml)
  if (node === null) throw new Error(`~${desc} not in dump`)
  return node.slice(1, 5).map(Number)
}

for (const count of [1, 4]) {
  describe(`adbkit against a server with ${count} device(s)`, () => {
    let server: VirtualDeviceServer
    let c: Client
    beforeAll(async () => {
      server = await startVirtualDevice({ devices: count, time: 'fast', seed: 5 })
      c = client(server.port)
    })
    afterAll(async () => {
      await server.close()
    })

    test('lists every serial', async () => {
      const devices = await c.listDevices()
      expect(devices.map((d: { id: string }) => d.id)).toEqual(server.serials)
    })

    test('every command on every device, devices independent', async () => {
      for (const [i, serial] of server.serials.entries()) {
        const start = await shell(c, serial, 'am start -W -n com.example.trails/.MainActivity')
        expect(start).toContain('LaunchState: COLD')
        await shell(c, serial, 'uiautomator dump /data/local/tmp/ui.xml')
        const xml = (await pull(c, serial, '/data/local/tmp/ui.xml')).toString('utf8')
        const taps = i + 1
        for (let k = 0; k < taps; k++)
          await shell(c, serial, `input tap ${center(boundsIn(xml, 'feed-list'))}`)
        expect(await shell(c, serial, 'pm list packages trails')).toBe(
          'package:com.example.trails\n',
        )
        expect(await shell(c, serial, 'pm path com.example.trails')).toMatch(
          /^package:\/data\/app\//,
        )
        expect(await shell(c, serial, 'cmd package compile -m speed -f com.example.trails')).toBe(
          'Success\n',
        )
        await shell(c, serial, 'settings put system screen_brightness 200')
        expect(await shell(c, serial, 'settings get system screen_brightness')).toBe('200\n')
        expect(await shell(c, serial, 'dumpsys battery')).toMatch(
          /^Current Battery Service state:\n {2}AC powered: false\n {2}USB powered: true\n/,
        )
        await shell(c, serial, 'dumpsys battery unplug')
        expect(await shell(c, serial, 'dumpsys battery')).toContain(
          "(UPDATES STOPPED -- use 'reset' to restart)\n  AC powered: false\n  USB powered: false",
        )
        await shell(c, serial, 'dumpsys battery reset')
        expect(await shell(c, serial, 'dumpsys powerstats')).toContain(
          'ChannelId: 0, ChannelName: S4M_VDD_CPUCL0, ChannelSubsystem: CPU(LITTLE)',
        )
        expect(
          Number(await shell(c, serial, 'cat /sys/class/power_supply/battery/voltage_now')),
        ).toBeGreaterThan(3_400_000)
        await shell(c, serial, 'am profile start com.example.trails /data/local/tmp/p.trace')
        await shell(c, serial, `input tap ${center(boundsIn(xml, 'refresh'))}`)
        await shell(c, serial, 'sleep 1')
        await shell(c, serial, 'am profile stop com.example.trails')
        const trace = parseArtTrace(
          new Uint8Array(await pull(c, serial, '/data/local/tmp/p.trace')),
        )
        expect(trace.methods.map((m) => `${m.className}.${m.name}`)).toContain(
          'com.example.trails.FeedAdapter.bind',
        )
        await shell(c, serial, 'am force-stop com.example.trails')
        expect(await shell(c, serial, 'pidof com.example.trails')).toBe('')
      }
      // Each phone saw only its own taps: device i tapped the list i+1 times.
      for (const [i, phone] of server.devices.entries()) {
        expect(phone.phone.sim.actionLog.filter((a) => a.startsWith('tap feed-list'))).toHaveLength(
          i + 1,
        )
      }
    })

    test('background profilers over adb: simpleperf (kill -INT) and perfetto (stdin config, kill)', async () => {
      for (const serial of server.serials) {
        await shell(c, serial, 'am start -W -n com.example.trails/.MainActivity')
        const spPid = (
          await shell(
            c,
            serial,
            'simpleperf record --app com.example.trails -e task-clock -f 4000 --call-graph dwarf --clockid monotonic_raw -o /data/local/tmp/perf.data & echo $!',
          )
        ).trim()
        const config =
          'buffers { size_kb: 4096 } data_sources { config { name: "android.power" android_power_config { battery_poll_ms: 200 battery_counters: BATTERY_COUNTER_CURRENT collect_power_rails: true } } }'
        const pfPid = (
          await shell(
            c,
            serial,
            `echo '${config}' | perfetto -c - --txt -o /data/local/tmp/p.pftrace --background`,
          )
        ).trim()
        expect(spPid).toMatch(/^\d+$/)
        expect(pfPid).toMatch(/^\d+$/)
        await shell(c, serial, 'input tap 540 1200; input text hello; input keyevent 4; sleep 2')
        await shell(c, serial, `kill -INT ${spPid}; kill ${pfPid}; sleep 0.1`)
        const report = await shell(
          c,
          serial,
          'simpleperf report-sample --show-callchain -i /data/local/tmp/perf.data',
        )
        expect(report).toContain('symbol: com.example.trails.ElevationProfile.smooth')
        const trace = decodePowerTrace(
          new Uint8Array(await pull(c, serial, '/data/local/tmp/p.pftrace')),
        )
        expect(trace.rails.length).toBe(11) // the phone physics adds the GPU and memory rails
        expect(trace.battery[0]?.readings.length).toBeGreaterThanOrEqual(10)
        await shell(c, serial, 'am force-stop com.example.trails')
      }
    })

    test('vdev ground-truth over adb returns JSON whose sums hold', async () => {
      const serial = server.serials.at(-1) ?? ''
      const from = Number(await shell(c, serial, 'vdev now'))
      await shell(c, serial, 'am start -W -n com.example.trails/.MainActivity')
      await shell(c, serial, 'sleep 5')
      const to = Number(await shell(c, serial, 'vdev now'))
      const gt = JSON.parse(
        await shell(c, serial, `vdev ground-truth --from ${from} --to ${to}`),
      ) as GroundTruth
      expect(gt.durationNs).toBe(to - from)
      const sum = Object.values(gt.components).reduce((a, b) => a + b, 0)
      expect(sum).toBeCloseTo(gt.totalEnergyJ, 12)
      const self = gt.methods.reduce((a, m) => a + m.selfEnergyJ, 0)
      expect(self).toBeCloseTo(gt.appCpuEnergyJ, 12)
      expect(gt.methods.some((m) => m.method === 'com.example.trails.MainActivity.onResume')).toBe(
        true,
      )
      const bad = await shell(c, serial, `vdev ground-truth --from ${to} --to ${from}`)
      expect(bad).toContain('window ends before it starts')
    })

    test.skipIf(!hasAdb)('the real adb client runs the commands on every device', async () => {
      const listed = await runAdb(server.port, ['devices'])
      for (const serial of server.serials) expect(listed.out).toContain(`${serial}\tdevice`)
      for (const serial of server.serials) {
        const r = await runAdb(server.port, [
          '-s',
          serial,
          'shell',
          'am start -W -n com.example.trails/.MainActivity; dumpsys battery; vdev now',
        ])
        expect(r.out).toMatch(
          /Complete\nCurrent Battery Service state:\n[^]* {2}level: \d+\n[^]*\n\d+\n$/,
        )
        const from = Number(r.out.trim().split('\n').at(-1))
        const gt = await runAdb(server.port, [
          '-s',
          serial,
          'shell',
          `vdev ground-truth --from ${from - 1_000_000_000} --to ${from}`,
        ])
        expect((JSON.parse(gt.out) as GroundTruth).totalEnergyJ).toBeGreaterThan(0)
        const ui = await runAdb(server.port, ['-s', serial, 'shell', 'uiautomator dump'])
        expect(ui.out).toBe('UI hierchary dumped to: /sdcard/window_dump.xml\n')
      }
    })
  })
}

describe('real time (the default)', () => {
  test('device clocks follow the host; work and ground truth stay consistent', async () => {
    const server = await startVirtualDevice({ seed: 2 })
    try {
      const c = client(server.port)
      const serial = server.serials[0] ?? ''
      const from = Number(await shell(c, serial, 'vdev now'))
      expect(await shell(c, serial, 'am start -W -n com.example.trails/.MainActivity')).toContain(
        'LaunchState: COLD',
      )
      await shell(c, serial, 'input tap 540 1200; sleep 0.3')
      const to = Number(await shell(c, serial, 'vdev now'))
      // At least the -W wait and the sleep elapsed on the device clock.
      expect(to - from).toBeGreaterThan(300_000_000)
      const gt = JSON.parse(
        await shell(c, serial, `vdev ground-truth --from ${from} --to ${to}`),
      ) as GroundTruth
      expect(gt.methods.find((m) => m.method.endsWith('FeedAdapter.bind'))?.calls).toBe(12)
      const sum = Object.values(gt.rails).reduce((a, b) => a + b, 0)
      expect(sum).toBeCloseTo(gt.totalEnergyJ, 12)
    } finally {
      await server.close()
    }
  })
})

describe('collector-style round trip', () => {
  // Read faster than the gauge updates, as the collector does: with the phone physics the gauge's
  // updates drift against the phone's clock (reading at its own 5.7 Hz would alias), and its
  // readings lag by up to a period (each is the average of the period before it), so the window is
  // long enough for that lag to matter little. A Pixel's gauge (175.8 ms), not the default 1 s
  // one, whose lag would take a whole period off each end of a 6 s window.
  test('fuel gauge read at 20 Hz for 6 s integrates to within a few % of ground truth', async () => {
    const server = await startVirtualDevice({
      time: 'fast',
      seed: 9,
      sensors: { profile: 'pixel' },
    })
    try {
      const c = client(server.port)
      const serial = server.serials[0] ?? ''
      await shell(c, serial, 'dumpsys battery unplug')
      await shell(c, serial, 'am start -W -n com.example.trails/.MainActivity')
      const from = Number(await shell(c, serial, 'vdev now'))
      let energyJ = 0
      for (let k = 0; k < 120; k++) {
        await shell(c, serial, 'sleep 0.05')
        if (k === 12) await shell(c, serial, 'input tap 540 1200')
        const [current, voltage] = (
          await shell(
            c,
            serial,
            'cat /sys/class/power_supply/battery/current_now /sys/class/power_supply/battery/voltage_now',
          )
        )
          .trim()
          .split('\n')
          .map(Number)
        // Kernel sign: negative while discharging.
        energyJ += -(current ?? 0) * 1e-6 * (voltage ?? 0) * 1e-6 * 0.05
      }
      const to = Number(await shell(c, serial, 'vdev now'))
      const gt = JSON.parse(
        await shell(c, serial, `vdev ground-truth --from ${from} --to ${to}`),
      ) as GroundTruth
      expect(to - from).toBe(6_000_000_000)
      expect(Math.abs(energyJ - gt.totalEnergyJ) / gt.totalEnergyJ).toBeLessThan(0.05)
    } finally {
      await server.close()
    }
  })

  test('ODPM counters of the PowerStats HAL dump difference to the ground-truth rail energies', async () => {
    const server = await startVirtualDevice({ time: 'fast', seed: 3 })
    try {
      const c = client(server.port)
      const serial = server.serials[0] ?? ''
      // The HAL table carries no timestamp: read the boottime in the same shell, as a collector
      // reads /proc/uptime around it (the fast clock does not move between the two commands).
      const read = async () => {
        const text = await shell(
          c,
          serial,
          'vdev now; dumpsys android.hardware.power.stats.IPowerStats/default',
        )
        const tNs = Number(text.slice(0, text.indexOf('\n')))
        const meter = parseDumpsysPowerstats(text.slice(text.indexOf('\n') + 1)).meter
        return { tNs, byRail: new Map(meter?.readings.map((r) => [r.rail, r.energyMws])) }
      }
      const a = await read()
      await shell(
        c,
        serial,
        'am start -W -n com.example.trails/.MainActivity; input tap 540 1200; sleep 4',
      )
      const b = await read()
      expect(b.tNs).toBeGreaterThan(a.tNs)
      const gt = JSON.parse(
        await shell(c, serial, `vdev ground-truth --from ${a.tNs} --to ${b.tNs}`),
      ) as GroundTruth
      expect(Object.keys(gt.rails).sort()).toEqual([...b.byRail.keys()].sort())
      for (const [rail, j] of Object.entries(gt.rails)) {
        const delta = ((b.byRail.get(rail) ?? Number.NaN) - (a.byRail.get(rail) ?? 0)) / 1e3
        // Readings are float32 µWs printed to 0.01 mWs: at a few kJ since boot that is < 1 mJ.
        expect(Math.abs(delta - j), rail).toBeLessThan(0.002)
      }
    } finally {
      await server.close()
    }
  })
})

describe('dumpsys power over adbkit', () => {
  test("after the demo app's export action, the leaked wake lock is listed until force-stop", async () => {
    const server = await startVirtualDevice({ time: 'fast', seed: 8 })
    try {
      const c = client(server.port)
      const serial = server.serials[0] ?? ''
      await shell(c, serial, 'am start -W -n com.example.trails/.MainActivity')
      expect(await shell(c, serial, 'dumpsys power')).toContain('\nWake Locks: size=0\n')
      await shell(c, serial, 'uiautomator dump /data/local/tmp/ui.xml')
      let xml = (await pull(c, serial, '/data/local/tmp/ui.xml')).toString('utf8')
      await shell(c, serial, `input tap ${center(boundsIn(xml, 'export'))}`)
      await shell(c, serial, 'uiautomator dump /data/local/tmp/ui.xml')
      xml = (await pull(c, serial, '/data/local/tmp/ui.xml')).toString('utf8')
      await shell(c, serial, `input tap ${center(boundsIn(xml, 'export-gpx'))}; sleep 12`)
      const pid = (await shell(c, serial, 'pidof com.example.trails')).trim()
      expect(pid).toMatch(/^\d+$/)
      const text = await shell(c, serial, 'dumpsys power')
      const section = /\nWake Locks: size=(\d+)\n((?: {2}.*\n)*)\n/.exec(text)
      expect(section?.[1]).toBe('1')
      expect(section?.[2]).toMatch(
        new RegExp(
          `^ {2}PARTIAL_WAKE_LOCK {14}'trails:export' ACQ=-1[12]s\\d{1,3}ms \\(uid=10187 pid=${pid}\\)\\n$`,
        ),
      )
      await shell(c, serial, 'am force-stop com.example.trails')
      expect(await shell(c, serial, 'dumpsys power')).toContain('\nWake Locks: size=0\n')
    } finally {
      await server.close()
    }
  })
})
