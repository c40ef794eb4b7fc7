/**
 * `vitest-energy doctor` against the virtual device (`startVirtualDevice` on a free port, `-P` to
 * reach it), one phone configuration per test with its expected verdict and key lines; its JSON
 * shape; an adb server that is not there (through the real executable: one message, no stack);
 * bad arguments.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { runCommand } from '../../src/cli/index.js'
import type { DoctorReport } from '../../src/cli/doctor/report.js'
import { connectAdb, shell } from '../../src/device/index.js'
import {
  DEMO_APP_MODEL,
  startVirtualDevice,
  type StartVirtualDeviceOptions,
  type VirtualDeviceServer,
} from '../../src/virtual-device/index.js'
import { deadPort, runBin } from './_run.js'

const APP = 'com.example.trails'

const servers: VirtualDeviceServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function phone(options: StartVirtualDeviceOptions = {}): Promise<VirtualDeviceServer> {
  const server = await startVirtualDevice({ time: 'fast', ...options })
  servers.push(server)
  return server
}

/** The app open on the phone, as a user leaves it before checking. */
async function openApp(server: VirtualDeviceServer): Promise<void> {
  const adb = await connectAdb({ port: server.port })
  const r = await shell(adb.device(server.serials[0] ?? ''), [
    'am',
    'start',
    '-W',
    '-n',
    `${APP}/.MainActivity`,
  ])
  expect(r.stdout).toContain('Status: ok')
}

async function doctor(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await runCommand(['doctor', ...args], {
    out: (t) => (out += t),
    err: (t) => (err += t),
    cwd: process.cwd(),
    signal: new AbortController().signal,
    env,
  })
  return { code, out, err }
}

/** The line of a check (`✓ power source: …`) and what is indented under it. */
function section(out: string, title: string): string {
  const lines = out.split('\n')
  const start = lines.findIndex((l) => new RegExp(`^[✓!✗-] ${title}: `).test(l))
  if (start < 0) throw new Error(`no '${title}' line in:\n${out}`)
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('  '))
  return lines.slice(start, end < 0 ? undefined : end).join('\n')
}

function verdict(out: string): string {
  return out.trimEnd().split('\n').at(-1) ?? ''
}

describe('phone configurations', () => {
  test('default Pixel 6: ODPM rails, ready', async () => {
    const vd = await phone()
    const r = await doctor(['-P', String(vd.port)])
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    expect(section(r.out, 'adb server')).toMatch(
      /^✓ adb server: 127\.0\.0\.1:\d+ \(from -H\/-P\) answers, adb protocol 41/,
    )
    expect(section(r.out, 'phones')).toContain(
      'vdev-0001 device usb:1-1 product:oriole model:Pixel_6__virtual_',
    )
    expect(r.out).toContain('vdev-0001: Pixel 6 (virtual), Android 13 (API 33)')
    const power = section(r.out, 'power source')
    expect(power).toMatch(
      /^✓ power source: ODPM rails through perfetto, 11 rails: S4M_VDD_CPUCL0, S3M_VDD_CPUCL1, S2M_VDD_CPUCL2, S5M_VDD_INT, VSYS_PWR_DISPLAY, /,
    )
    expect(power).toContain('$ dumpsys powerstats\n      ChannelId: 0, ChannelName: S4M_VDD_CPUCL0')
    expect(section(r.out, 'charging')).toMatch(
      /^✓ charging: USB powered \(charging\)\n.*downstream of the battery/,
    )
    expect(section(r.out, 'simpleperf')).toContain(
      '✓ simpleperf: present: Simpleperf version 1.build.',
    )
    expect(section(r.out, 'perfetto')).toContain('✓ perfetto: present: Perfetto v30.0 (unknown)')
    expect(section(r.out, 'clock mapping')).toMatch(
      /^✓ clock mapping: host → boottime within ±[\d.]+ ms/,
    )
    expect(section(r.out, 'app')).toBe('- app: not checked: pass --app <package>')
    expect(verdict(r.out)).toBe('✓ ready: a run measures on vdev-0001 with ODPM rails (perfetto).')
  })

  test('the app profileable (am profile accepts it): app and profileable pass', async () => {
    const vd = await phone()
    await openApp(vd)
    const r = await doctor(['-P', String(vd.port), '--app', APP])
    expect(r.code).toBe(0)
    expect(section(r.out, 'app')).toMatch(
      /^✓ app: com\.example\.trails is installed, version 1\.4\.2/,
    )
    const profileable = section(r.out, 'profileable')
    expect(profileable).toMatch(/^✓ profileable: profileable by shell: am profile accepted it/)
    expect(profileable).toContain('$ am profile start --sampling 1000 com.example.trails ')
    expect(verdict(r.out)).toMatch(/^✓ ready/)
    // The trial trace is gone and the app still runs (doctor did not start it, so it does not stop it).
    const adb = await connectAdb({ port: vd.port })
    const device = adb.device('vdev-0001')
    expect((await shell(device, ['ls', '/data/local/tmp/vitest-energy'])).stdout.trim()).toBe('')
    expect((await shell(device, ['pidof', APP])).exitCode).toBe(0)
  })

  test('the app not running: doctor starts its launcher activity to ask am profile, then stops it', async () => {
    const vd = await phone()
    const r = await doctor(['-P', String(vd.port), '--app', APP])
    expect(r.code).toBe(0)
    const profileable = section(r.out, 'profileable')
    expect(profileable).toMatch(/^✓ profileable: profileable by shell: am profile accepted it/)
    expect(profileable).toContain('$ pidof com.example.trails (exit 1)\n      (not running)')
    expect(profileable).toContain(
      '$ cmd package resolve-activity --brief -c android.intent.category.LAUNCHER com.example.trails\n      com.example.trails/.MainActivity',
    )
    expect(profileable).toContain(
      '$ am start -W -n com.example.trails/.MainActivity\n      Status: ok',
    )
    const device = (await connectAdb({ port: vd.port })).device('vdev-0001')
    expect((await shell(device, ['pidof', APP])).exitCode, 'force-stopped again').not.toBe(0)
  })

  test('no rails, on battery: falls back to the fuel gauge, ready with a note', async () => {
    const vd = await phone({ odpm: false, charger: 'none' })
    const r = await doctor(['-P', String(vd.port)])
    expect(r.code).toBe(0)
    const power = section(r.out, 'power source')
    expect(power).toMatch(
      /^✓ power source: the battery fuel gauge \(\/sys\/class\/power_supply\/battery\)\n/,
    )
    expect(power).toContain(
      'no ODPM rails (dumpsys powerstats lists no channels, perfetto records none)',
    )
    expect(power).toContain('the trace has no power_rails rail_descriptor packets')
    expect(section(r.out, 'fuel gauge')).toContain('negative while discharging (kernel convention)')
    expect(section(r.out, 'charging')).toMatch(/^✓ charging: on battery \(discharging\)/)
    expect(verdict(r.out)).toBe('✓ ready: a run measures on vdev-0001 with the fuel gauge.')
  })

  test('a fuel gauge with its sign flipped: detected and said', async () => {
    const vd = await phone({ odpm: false, charger: 'none', sensors: { currentSign: 'flipped' } })
    const r = await doctor(['-P', String(vd.port)])
    expect(r.code).toBe(0)
    const gauge = section(r.out, 'fuel gauge')
    expect(gauge).toMatch(
      /^✓ fuel gauge: \/sys\/class\/power_supply\/battery: current_now \d+ in µA \(kernel ABI\); positive while discharging: the vendor flipped the sign, detected and corrected/,
    )
    expect(gauge).toMatch(/\$ cat \/sys\/class\/power_supply\/battery\/status\n {6}Discharging/)
    expect(verdict(r.out)).toMatch(/^✓ ready/)
  })

  test('charging without rails: the gauge reads the charger; fix: unplug, wireless adb; not ready', async () => {
    const vd = await phone({ odpm: false })
    const r = await doctor(['-P', String(vd.port)])
    expect(r.code).toBe(1)
    const charging = section(r.out, 'charging')
    expect(charging).toMatch(
      /^✗ charging: USB powered \(charging\): the fuel gauge reads the battery's net current, which shows the charger, not the app/,
    )
    expect(charging).toContain(
      'fix: Unplug USB power while measuring: use wireless adb (`adb tcpip 5555`',
    )
    expect(section(r.out, 'power source')).toMatch(
      /^✗ power source: the battery fuel gauge .*sign of current_now cannot be told \[E_POWER_SOURCE_UNAVAILABLE\]/,
    )
    expect(section(r.out, 'fuel gauge')).toMatch(
      /^! fuel gauge: .*sign unknown: read while charging/,
    )
    expect(verdict(r.out)).toBe('✗ not ready: 2 problems would make a run fail (and 1 warning).')
  })

  test('charging with rails: harmless, said so', async () => {
    const vd = await phone({ charger: 'ac' })
    const r = await doctor(['-P', String(vd.port)])
    expect(r.code).toBe(0)
    expect(section(r.out, 'charging')).toMatch(
      /^✓ charging: AC powered \(charging\)\n {4}Harmless here/,
    )
  })

  test('the app missing: not ready, exit 1', async () => {
    const vd = await phone()
    const r = await doctor(['-P', String(vd.port), '--app', 'com.example.missing'])
    expect(r.code).toBe(1)
    const app = section(r.out, 'app')
    expect(app).toMatch(/^✗ app: com\.example\.missing is not installed \[E_APP_NOT_INSTALLED\]/)
    expect(app).toContain('$ dumpsys package com.example.missing')
    expect(app).toContain('fix: Install the app under test first (`adb install -r app.apk`)')
    expect(section(r.out, 'profileable')).toBe(
      '- profileable: not checked: the app is not installed',
    )
    expect(verdict(r.out)).toBe('✗ not ready: 1 problem would make a run fail.')
  })

  test('an app neither debuggable nor profileable: warns, no method attribution, with the manifest fix', async () => {
    const vd = await phone({ app: { ...DEMO_APP_MODEL, profileable: false, debuggable: false } })
    await openApp(vd)
    const r = await doctor(['-P', String(vd.port), '--app', APP])
    expect(r.code).toBe(0)
    const profileable = section(r.out, 'profileable')
    expect(profileable).toMatch(
      /^! profileable: neither debuggable nor profileable by shell \(am profile refused it\): no per-method energy, only per-test figures \[W_NO_EXECUTION\]/,
    )
    expect(profileable).toContain(
      'java.lang.SecurityException: Process not debuggable, and not profileable by shell: com.example.trails',
    )
    expect(profileable).toContain(
      'fix: Add <profileable android:shell="true"/> inside <application>',
    )
    expect(verdict(r.out)).toMatch(
      /^! ready, with warnings: a run measures on vdev-0001 with ODPM rails \(perfetto\); 1 warning/,
    )
  })

  test('a debuggable app: warns that a debug build inflates energy', async () => {
    const vd = await phone({ app: { ...DEMO_APP_MODEL, debuggable: true } })
    const r = await doctor(['-P', String(vd.port), '--app', APP])
    expect(section(r.out, 'profileable')).toMatch(
      /^! profileable: debuggable: .*inflates energy \[W_DEBUGGABLE\]/,
    )
    expect(r.code).toBe(0)
  })

  test('Android 10 (API 29): rails only through perfetto, what that implies', async () => {
    const vd = await phone({ androidVersion: 29 })
    const r = await doctor(['-P', String(vd.port)])
    expect(r.code).toBe(0)
    const android = section(r.out, 'Android')
    expect(android).toMatch(/^✓ Android: 10 \(API 29\)\n/)
    expect(android).toContain('Before Android 12 there is no `dumpsys powerstats`')
    expect(android).toContain('persist.traced.enable')
    const power = section(r.out, 'power source')
    expect(power).toMatch(/^✓ power source: ODPM rails through perfetto, 11 rails/)
    expect(power).toContain("Can't find service: powerstats")
    expect(power).toContain('rail_descriptor { index: 0 rail_name: "S4M_VDD_CPUCL0"')
    expect(section(r.out, 'perfetto')).toMatch(/\$ getprop persist\.traced\.enable\n {6}1/)
    expect(r.out).toContain('vdev-0001: Pixel 6 (virtual), Android 10 (API 29)')
  })

  test('several phones: each is checked; an unauthorized one is left out with a warning', async () => {
    const vd = await phone({ devices: 3 })
    const third = vd.devices[2]
    if (third === undefined) throw new Error('three phones expected')
    third.device.state = 'unauthorized'
    const r = await doctor(['-P', String(vd.port)])
    expect(r.code).toBe(0)
    expect(section(r.out, 'phones')).toMatch(
      /^! phones: 2 phones ready \(vdev-0001, vdev-0002\); a run measures on each, one Vitest worker per phone; vdev-0003 is unauthorized, so a run leaves it out \[E_DEVICE_UNAUTHORIZED\]/,
    )
    expect(r.out).toContain('vdev-0002: Pixel 6 (virtual), Android 13 (API 33)')
    expect(r.out).not.toContain('vdev-0003: Pixel 6')

    const only = await doctor(['-P', String(vd.port), '--serial', 'vdev-0002'])
    expect(only.out).not.toContain('vdev-0001: Pixel 6')
    expect(section(only.out, 'phones')).toMatch(/^✓ phones: vdev-0002 is attached and authorized\n/)

    const refused = await doctor(['-P', String(vd.port), '--serial', 'vdev-0003'])
    expect(refused.code).toBe(1)
    expect(section(refused.out, 'phones')).toMatch(
      /^✗ phones: device vdev-0003: the device has not authorized this computer \[E_DEVICE_UNAUTHORIZED\]/,
    )
    expect(section(refused.out, 'phones')).toContain(
      'fix: Unlock the phone and accept the "Allow USB debugging?" RSA prompt',
    )
  })

  test('a serial that is not attached: not ready', async () => {
    const vd = await phone()
    const r = await doctor(['-P', String(vd.port), '--serial', 'R5CT1234'])
    expect(r.code).toBe(1)
    expect(section(r.out, 'phones')).toMatch(
      /^✗ phones: device R5CT1234 is not attached .*\[E_NO_DEVICE\]/,
    )
  })
})

describe('--json', () => {
  test('a stable shape: schemaVersion, verdict, adb, host checks, phones with their checks', async () => {
    const vd = await phone({ odpm: false, charger: 'none' })
    await openApp(vd)
    const r = await doctor(['-P', String(vd.port), '--app', APP, '--json'])
    expect(r.code).toBe(0)
    const report = JSON.parse(r.out) as DoctorReport
    expect(report).toMatchObject({
      schemaVersion: 1,
      verdict: 'pass',
      adb: { host: '127.0.0.1', port: vd.port, from: 'options', envVars: [] },
      app: APP,
    })
    expect(Object.keys(report)).toEqual([
      'schemaVersion',
      'verdict',
      'adb',
      'app',
      'checks',
      'phones',
    ])
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['adb-server', 'pass'],
      ['devices', 'pass'],
      ['appium', 'pass'],
      ['uiautomator2-driver', 'pass'],
    ])
    const [p] = report.phones
    expect(p).toMatchObject({
      serial: 'vdev-0001',
      model: 'Pixel 6 (virtual)',
      sdk: 33,
      release: '13',
      powerSource: 'fuel-gauge',
    })
    expect(p?.checks.map((c) => c.id)).toEqual([
      'android-version',
      'power-source',
      'fuel-gauge',
      'charging',
      'power-profile',
      'app',
      'profileable',
      'simpleperf',
      'perfetto',
      'clock',
    ])
    for (const c of [...report.checks, ...(p?.checks ?? [])]) {
      const keys = Object.keys(c)
      const order = ['id', 'title', 'status', 'found', 'note', 'evidence', 'fix', 'code']
      expect(keys, 'keys in the documented order').toEqual(order.filter((k) => keys.includes(k)))
      expect(['pass', 'warn', 'fail', 'skip']).toContain(c.status)
      expect(typeof c.title).toBe('string')
      expect(typeof c.found).toBe('string')
      for (const e of c.evidence) expect(typeof e.command).toBe('string')
    }
    expect(p?.checks.find((c) => c.id === 'power-source')).toMatchObject({ status: 'pass' })
  })

  test('--json with a failing phone: verdict fail, exit 1, the codes', async () => {
    const vd = await phone({ odpm: false })
    const r = await doctor(['-P', String(vd.port), '--json'])
    expect(r.code).toBe(1)
    const report = JSON.parse(r.out) as DoctorReport
    expect(report.verdict).toBe('fail')
    expect(report.phones[0]?.checks.find((c) => c.id === 'power-source')).toMatchObject({
      status: 'fail',
      code: 'E_POWER_SOURCE_UNAVAILABLE',
    })
  })
})

describe('no adb server', () => {
  test('the real executable: ✗ adb server, a clear message, no stack, exit 1', async () => {
    const port = await deadPort()
    const r = runBin(['doctor', '-P', String(port)])
    expect(r.code).toBe(1)
    expect(r.err).toBe('')
    expect(r.out).not.toContain('    at ')
    expect(section(r.out, 'adb server')).toMatch(
      new RegExp(
        `^✗ adb server: no adb server on 127\\.0\\.0\\.1:${port} \\(address from -H/-P\\) \\[E_ADB_UNREACHABLE\\]`,
      ),
    )
    expect(section(r.out, 'adb server')).toContain('fix: Run `adb start-server`')
    expect(section(r.out, 'phones')).toBe('- phones: not checked: no adb server to ask')
    expect(r.out).not.toContain('\x1b[') // NO_COLOR
    expect(verdict(r.out)).toBe('✗ not ready: 1 problem would make a run fail.')
  })

  test('found as adb finds it: ANDROID_ADB_SERVER_PORT, which the plugin does not read', async () => {
    const vd = await phone()
    const r = await doctor([], { ANDROID_ADB_SERVER_PORT: String(vd.port) })
    expect(r.code).toBe(0)
    const server = section(r.out, 'adb server')
    expect(server).toMatch(
      /^! adb server: 127\.0\.0\.1:\d+ \(from ANDROID_ADB_SERVER_PORT\) answers/,
    )
    expect(server).toContain(
      `fix: Give the plugin the same address: energy({ adb: { host: '127.0.0.1', port: ${vd.port} } })`,
    )
    const socket = await doctor([], {
      ADB_SERVER_SOCKET: `tcp:127.0.0.1:${vd.port}`,
      ANDROID_ADB_SERVER_PORT: '1',
    })
    expect(section(socket.out, 'adb server')).toMatch(
      /^! adb server: .*\(from ADB_SERVER_SOCKET\) answers/,
    )
  })
})

describe('bad arguments', () => {
  test.each([
    [['-P', 'abc'], "-P must be a TCP port from 1 to 65535, got 'abc'"],
    [['-P', '70000'], '-P must be a TCP port'],
    [
      ['--app', 'not a package'],
      "--app takes a package name like com.example.app, got 'not a package'",
    ],
    [['--serial', 'two words'], '--serial takes a serial'],
    [['--bogus'], "Unknown option '--bogus'"],
    [['extra'], "Unexpected argument 'extra'"],
    [['-H', ' '], '-H takes a host name or address'],
    [['--app'], "Option '--app <value>' argument missing"],
  ])('%j → E_CLI_USAGE, exit 2, usage printed', async (args, message) => {
    const r = await doctor(args)
    expect(r.code).toBe(2)
    expect(r.out).toBe('')
    expect(r.err).toContain('[E_CLI_USAGE]')
    expect(r.err).toContain(message)
    expect(r.err).toContain('Usage: vitest-energy doctor [options]')
    expect(r.err).not.toContain('    at ')
  })

  test.each([
    [
      { ANDROID_ADB_SERVER_PORT: 'x' },
      "ANDROID_ADB_SERVER_PORT must be a TCP port from 1 to 65535, got 'x'",
    ],
    [{ ADB_SERVER_SOCKET: 'localfilesystem:/tmp/adb' }, 'is not a tcp:[host:]port socket spec'],
  ])('environment %j → E_CLI_USAGE', async (env, message) => {
    const r = await doctor([], env)
    expect(r.code).toBe(2)
    expect(r.err).toContain(message)
  })

  test('doctor is in the command list and has its own --help', () => {
    const list = runBin(['--help'])
    expect(list.out).toMatch(/^ {2}doctor {10}check a phone the way a run would/m)
    const help = runBin(['doctor', '--help'])
    expect(help.code).toBe(0)
    expect(help.out).toContain('--json')
    expect(help.out).toContain('ANDROID_ADB_SERVER_PORT')
  })
})

describe('a lab: every adb server of the plugin’s list', () => {
  test('--adb twice: a report per server, each naming its phones; one server down fails the check', async () => {
    const a = await phone({ host: '127.0.0.2', serialPrefix: 'lab' })
    const b = await phone({ host: '127.0.0.3', serialPrefix: 'lab' })
    const both = await doctor([
      '--adb',
      `127.0.0.2:${a.port}`,
      '--adb',
      `127.0.0.3:${b.port}`,
      '--json',
    ])
    const json = JSON.parse(both.out) as { schemaVersion: number; servers: DoctorReport[] }
    expect(json.servers.map((r) => `${r.adb.host}:${r.adb.port}`)).toEqual([
      `127.0.0.2:${a.port}`,
      `127.0.0.3:${b.port}`,
    ])
    expect(json.servers.map((r) => r.phones.map((p) => p.serial))).toEqual([
      ['lab-0001'],
      ['lab-0001'],
    ])

    const down = await deadPort()
    const text = await doctor(['--adb', `127.0.0.2:${a.port}`, '--adb', `127.0.0.3:${down}`])
    expect(text.code).toBe(1)
    expect(text.out).toContain(`adb server 127.0.0.2:${a.port}`)
    expect(text.out).toContain(`adb server 127.0.0.3:${down}`)

    const bad = await doctor(['--adb', 'lab-1'])
    expect(bad.code).toBe(2)
    expect(bad.err).toContain("--adb takes host:port, got 'lab-1'")
  })
})
