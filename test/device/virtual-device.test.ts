/**
 * The device layer against the virtual device, driven only through adbkit over TCP (the virtual
 * device's ADB server), exactly as a phone behind a real adb server.
 *
 * The full simulation (dumpsys, am, perfetto, sysfs battery) is not merged yet, so the probe tests
 * register extra ShellCommands / files on a `createDevice` handle that print outputs in the real
 * formats (test/fixtures/device/, see its README). They say so where they do it.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { mapDeviceClock, hostNowNs } from '../../src/device/clock.js'
import { connectAdb, type AdbClient } from '../../src/device/client.js'
import { listDevices, pickDevice } from '../../src/device/discovery.js'
import { acquireLease, withLease } from '../../src/device/lease.js'
import { probeCapabilities } from '../../src/device/probe.js'
import { quoteShellArg, shell, shellScript, shellStream } from '../../src/device/shell.js'
import { pull, pullToFile, push, statFile } from '../../src/device/transfer.js'
import { isEnergyError } from '../../src/model/index.js'
import { encodePowerTrace } from '../../src/formats/perfetto/index.js'
import { startAdbServer, type AdbServer } from '../../src/virtual-device/adb/index.js'
import type { ShellCommand, VirtualDeviceHandle } from '../../src/virtual-device/contract.js'
import { createDevice } from '../../src/virtual-device/device.js'
import { startVirtualDevice } from '../../src/virtual-device/index.js'

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'device')
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8')

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (isEnergyError(error)) return error.code
    throw error
  }
  throw new Error('expected an EnergyError')
}

let server: AdbServer
let phone: VirtualDeviceHandle
let adb: AdbClient

beforeAll(async () => {
  phone = createDevice({ serial: 'vdev-0001' })
  server = await startAdbServer({ port: 0, devices: [phone] })
  adb = await connectAdb({ port: server.port })
})
afterAll(async () => {
  await server.close()
})

describe('discovery', () => {
  afterEach(() => {
    phone.state = 'device'
    server.removeDevice('vdev-0002')
  })

  test('version and host:devices-l', async () => {
    expect(await adb.version()).toBe(41)
    const devices = await listDevices(adb)
    expect(devices).toHaveLength(1)
    expect(devices[0]).toMatchObject({
      serial: 'vdev-0001',
      state: 'device',
      // `Pixel 6 (virtual)` as adb's `devices -l` sanitizes it (`Pixel_6__virtual_`), underscores
      // turned back into spaces.
      model: 'Pixel 6 virtual',
      product: 'oriole',
      device: 'oriole',
    })
  })

  test('auto picks the only device; by serial works too', async () => {
    expect((await pickDevice(adb)).serial).toBe('vdev-0001')
    expect((await pickDevice(adb, { serial: 'vdev-0001' })).serial).toBe('vdev-0001')
  })

  test('several devices and auto → E_DEVICE_AMBIGUOUS; unknown serial → E_NO_DEVICE', async () => {
    server.addDevice(createDevice({ serial: 'vdev-0002' }))
    expect(await codeOf(pickDevice(adb))).toBe('E_DEVICE_AMBIGUOUS')
    expect((await pickDevice(adb, { serial: 'vdev-0002' })).serial).toBe('vdev-0002')
    expect(await codeOf(pickDevice(adb, { serial: 'nope' }))).toBe('E_NO_DEVICE')
  })

  test('ANDROID_SERIAL picks the device when no serial is given, as adb does', async () => {
    server.addDevice(createDevice({ serial: 'vdev-0002' }))
    const saved = process.env['ANDROID_SERIAL']
    process.env['ANDROID_SERIAL'] = 'vdev-0002'
    try {
      expect((await pickDevice(adb)).serial).toBe('vdev-0002')
      expect((await pickDevice(adb, { serial: 'vdev-0001' })).serial).toBe('vdev-0001')
    } finally {
      if (saved === undefined) delete process.env['ANDROID_SERIAL']
      else process.env['ANDROID_SERIAL'] = saved
    }
  })

  test('unauthorized and offline devices get their own errors', async () => {
    phone.state = 'unauthorized'
    expect(await codeOf(pickDevice(adb))).toBe('E_DEVICE_UNAUTHORIZED')
    phone.state = 'offline'
    expect(await codeOf(pickDevice(adb))).toBe('E_DEVICE_OFFLINE')
  })

  test('no device at all → E_NO_DEVICE', async () => {
    const empty = await startAdbServer({ port: 0 })
    try {
      const client = await connectAdb({ port: empty.port })
      expect(await codeOf(pickDevice(client))).toBe('E_NO_DEVICE')
    } finally {
      await empty.close()
    }
  })
})

describe('shell', () => {
  test('exit status comes back and is stripped from the output', async () => {
    const device = adb.device('vdev-0001')
    const ok = await shell(device, ['echo', 'hello world'])
    expect(ok).toMatchObject({ stdout: 'hello world\n', exitCode: 0 })
    expect((await shell(device, ['false'])).exitCode).toBe(1)
    const missing = await shell(device, ['ls', '/no such dir'])
    expect(missing.exitCode).not.toBe(0)
    expect(missing.stdout).toContain('/no such dir')
  })

  test('arguments reach the device as single words (command log)', async () => {
    const device = adb.device('vdev-0001')
    await shell(device, ['ls', "/data/local/tmp/it's a $HOME `trace`"])
    expect(phone.commandLog.at(-1)).toContain(`ls '/data/local/tmp/it'\\''s a $HOME \`trace\`'`)
  })

  test('arbitrary strings survive echo on the device byte for byte (property)', async () => {
    const device = adb.device('vdev-0001')
    // mksh's echo interprets backslashes and leading -n/-e/-E: `-E` turns escapes off and the `|`
    // prefix keeps each word from looking like an option. Quoting is what is under test.
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.fullUnicodeString({ maxLength: 20 }).filter((s) => !s.includes('\0')),
          {
            minLength: 1,
            maxLength: 3,
          },
        ),
        async (words) => {
          const result = await shell(device, ['echo', '-E', ...words.map((w) => `|${w}`)])
          expect(result.exitCode).toBe(0)
          expect(
            result.output.equals(Buffer.from(`${words.map((w) => `|${w}`).join(' ')}\n`)),
          ).toBe(true)
        },
      ),
      { numRuns: 60 },
    )
  })

  test('shellScript runs a line with redirects; shellStream streams a long command', async () => {
    const device = adb.device('vdev-0001')
    const r = await shellScript(device, `ls /nope 2>&1; echo ${quoteShellArg('after')}`)
    expect(r.stdout).toMatch(/nope[\s\S]*after\n$/)
    const stream = await shellStream(device, ['echo', 'streamed'])
    const chunks: Buffer[] = []
    for await (const chunk of stream) chunks.push(chunk as Buffer)
    expect(Buffer.concat(chunks).toString()).toBe('streamed\n')
  })
})

describe('aborts and unreadable exit status', () => {
  test('aborting a running shell command → E_ABORTED', async () => {
    const controller = new AbortController()
    const running = shell(adb.device('vdev-0001'), ['sleep', '30'], { signal: controller.signal })
    setTimeout(() => controller.abort(), 50)
    expect(await codeOf(running)).toBe('E_ABORTED')
  })

  test('aborting a pull → E_ABORTED', async () => {
    phone.fs.writeFile('/data/local/tmp/abort.bin', randomBytes(4 * 1024 * 1024))
    const controller = new AbortController()
    const pulling = pull(adb.device('vdev-0001'), '/data/local/tmp/abort.bin', {
      signal: controller.signal,
      onProgress: () => controller.abort(),
    })
    expect(await codeOf(pulling)).toBe('E_ABORTED')
  })

  test('an exit-status line that is not a number → E_SHELL_OUTPUT', async () => {
    const dev = createDevice({ serial: 'vdev-echo' })
    // A broken `echo` that appends text: the status after the marker is no longer digits.
    dev.commands.set('echo', ({ argv, io }) => {
      io.write(`${argv.slice(1).join(' ')} (and more)\n`)
      return 0
    })
    server.addDevice(dev)
    try {
      expect(await codeOf(shell(adb.device('vdev-echo'), ['true']))).toBe('E_SHELL_OUTPUT')
    } finally {
      server.removeDevice('vdev-echo')
    }
  })
})

describe('files', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 've-pull-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('pull to a Buffer, stat, and a missing file → E_DEVICE_FILE_MISSING', async () => {
    const device = adb.device('vdev-0001')
    const bytes = randomBytes(200_000)
    phone.fs.writeFile('/data/local/tmp/trace one.trace', bytes)
    expect((await statFile(device, '/data/local/tmp/trace one.trace'))?.sizeBytes).toBe(200_000)
    expect((await pull(device, '/data/local/tmp/trace one.trace')).equals(bytes)).toBe(true)
    expect(await statFile(device, '/data/local/tmp/none')).toBeUndefined()
    expect(await codeOf(pull(device, '/data/local/tmp/none'))).toBe('E_DEVICE_FILE_MISSING')
  })

  test('streaming pull to a file reports progress up to the size', async () => {
    const device = adb.device('vdev-0001')
    const bytes = randomBytes(1_000_000)
    phone.fs.writeFile('/data/local/tmp/big.trace', bytes)
    const progress: number[] = []
    const local = join(dir, 'big.trace')
    const n = await pullToFile(device, '/data/local/tmp/big.trace', local, {
      onProgress: (p) => {
        progress.push(p.bytes)
        expect(p.totalBytes).toBe(1_000_000)
      },
    })
    expect(n).toBe(1_000_000)
    expect(readFileSync(local).equals(bytes)).toBe(true)
    expect(progress.length).toBeGreaterThan(1)
    expect(progress.every((b, i) => i === 0 || b > progress[i - 1]!)).toBe(true)
    expect(progress.at(-1)).toBe(1_000_000)
    expect(await codeOf(pullToFile(device, '/nope', join(dir, 'x')))).toBe('E_DEVICE_FILE_MISSING')
  })

  test('a failing local source fails the push with E_PUSH_SOURCE', async () => {
    const source = new Readable({
      read() {
        this.destroy(new Error('EIO: disk went away'))
      },
    })
    expect(await codeOf(push(adb.device('vdev-0001'), source, '/data/local/tmp/x.bin'))).toBe(
      'E_PUSH_SOURCE',
    )
  })

  test('push then pull round-trips, /proc nodes pull with unknown size', async () => {
    const device = adb.device('vdev-0001')
    const bytes = randomBytes(70_000)
    await push(device, bytes, '/data/local/tmp/pushed.bin')
    expect(Buffer.from(phone.fs.readFile('/data/local/tmp/pushed.bin')).equals(bytes)).toBe(true)
    expect((await pull(device, '/data/local/tmp/pushed.bin')).equals(bytes)).toBe(true)
    expect((await pull(device, '/proc/uptime')).toString()).toMatch(/^\d+\.\d\d \d+\.\d\d\n$/)
  })
})

describe('a device that vanishes', () => {
  test('mid-transfer → E_DEVICE_DISCONNECTED', async () => {
    const phone2 = createDevice({ serial: 'vdev-gone' })
    phone2.fs.writeFile('/data/local/tmp/huge.trace', randomBytes(48 * 1024 * 1024))
    const server2 = await startAdbServer({ port: 0, devices: [phone2] })
    const client = await connectAdb({ port: server2.port })
    let closing: Promise<void> | undefined
    const code = await codeOf(
      pull(client.device('vdev-gone'), '/data/local/tmp/huge.trace', {
        onProgress: () => {
          closing ??= server2.close()
        },
      }),
    )
    await closing
    expect(code).toBe('E_DEVICE_DISCONNECTED')
  })

  test('mid-streaming pull → E_DEVICE_DISCONNECTED and no partial file left', async () => {
    const phone6 = createDevice({ serial: 'vdev-gone4' })
    phone6.fs.writeFile('/data/local/tmp/huge.trace', randomBytes(48 * 1024 * 1024))
    const server6 = await startAdbServer({ port: 0, devices: [phone6] })
    const client = await connectAdb({ port: server6.port })
    const dir = mkdtempSync(join(tmpdir(), 've-pull-'))
    try {
      let closing: Promise<void> | undefined
      const local = join(dir, 'huge.trace')
      const code = await codeOf(
        pullToFile(client.device('vdev-gone4'), '/data/local/tmp/huge.trace', local, {
          onProgress: () => {
            closing ??= server6.close()
          },
        }),
      )
      await closing
      expect(code).toBe('E_DEVICE_DISCONNECTED')
      expect(readdirSync(dir)).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('mid-command → E_DEVICE_DISCONNECTED', async () => {
    const phone3 = createDevice({ serial: 'vdev-gone2' })
    const server3 = await startAdbServer({ port: 0, devices: [phone3] })
    const client = await connectAdb({ port: server3.port })
    const running = shell(client.device('vdev-gone2'), ['sleep', '30'])
    await expect.poll(() => phone3.commandLog.length).toBeGreaterThan(0)
    await server3.close()
    expect(await codeOf(running)).toBe('E_DEVICE_DISCONNECTED')
  })

  test('mid-window under a lease: the window fails clearly and the lease is released', async () => {
    const leaseDir = mkdtempSync(join(tmpdir(), 've-lease-'))
    const phone5 = createDevice({ serial: 'vdev-gone3' })
    const server5 = await startAdbServer({ port: 0, devices: [phone5] })
    const client = await connectAdb({ port: server5.port })
    try {
      const window = withLease('vdev-gone3', { dir: leaseDir, owner: 'test A' }, async () => {
        const running = shell(client.device('vdev-gone3'), ['sleep', '30'])
        await expect.poll(() => phone5.commandLog.length).toBeGreaterThan(0)
        await server5.close() // the phone is unplugged mid-window
        return running
      })
      expect(await codeOf(window)).toBe('E_DEVICE_DISCONNECTED')
      const next = await acquireLease('vdev-gone3', {
        dir: leaseDir,
        owner: 'test B',
        timeoutMs: 1,
      })
      expect(next.holder.owner).toBe('test B')
      await next.release()
    } finally {
      rmSync(leaseDir, { recursive: true, force: true })
    }
  })

  test("`vdev unplug` drops the phone's connections and takes it off the list; --for brings it back", async () => {
    const vd = await startVirtualDevice({ serialPrefix: 'vdev-unplug' })
    try {
      const client = await connectAdb({ host: vd.host, port: vd.port })
      const serial = vd.serials[0] as string
      const device = client.device(serial)
      const running = shell(device, ['sleep', '30'])
      expect(
        (await shell(device, ['vdev', 'unplug', '--after', '50', '--for', '400'])).exitCode,
      ).toBe(0)
      expect(await codeOf(running), 'the open command drops').toBe('E_DEVICE_DISCONNECTED')
      expect((await listDevices(client)).map((d) => d.serial)).not.toContain(serial)
      expect(await codeOf(shell(device, ['true'])), 'new commands fail while unplugged').toBe(
        'E_NO_DEVICE',
      )
      let serials: string[] = []
      for (let i = 0; i < 100 && !serials.includes(serial); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        serials = (await listDevices(client)).map((d) => d.serial)
      }
      expect(serials, 'back after --for').toContain(serial)
      expect((await shell(device, ['echo', 'back'])).stdout).toBe('back\n')
      const bad = await shell(device, ['vdev', 'unplug', '--after', 'soon'])
      expect(bad.exitCode).toBe(1)
      expect(bad.stdout).toContain('--after takes milliseconds')
    } finally {
      await vd.close()
    }
  })

  test('after the server is gone → E_ADB_UNREACHABLE on connect', async () => {
    const server4 = await startAdbServer({ port: 0 })
    const port = server4.port
    await server4.close()
    expect(await codeOf(connectAdb({ port }))).toBe('E_ADB_UNREACHABLE')
  })
})

describe('clock mapping against the device clock (ground truth in-process)', () => {
  test('boottime: the true offset lies within ± uncertainty', async () => {
    const device = adb.device('vdev-0001')
    const mapping = await mapDeviceClock(device, 'boottime')
    // The virtual device's clock and hostNowNs() run in this process: read both at one instant.
    const trueOffsetNs = phone.clock.nowNs('boottime') - hostNowNs()
    expect(mapping.readings).toHaveLength(10)
    expect(mapping.uncertaintyNs).toBeLessThanOrEqual(5_000_000 + mapping.roundTripNs / 2)
    // The kernel truncates /proc/uptime to 10 ms; the virtual device rounds (toFixed(2)), which can
    // put its reading up to 5 ms later than the truncated value the bound assumes. Allow that half
    // step here (reported to the virtual-device owners) plus a few µs between the two reads above.
    expect(Math.abs(mapping.offsetNs - trueOffsetNs)).toBeLessThanOrEqual(
      mapping.uncertaintyNs + 5_000_000 + 50_000,
    )
  })

  test('realtime via date +%s%N', async () => {
    const device = adb.device('vdev-0001')
    const mapping = await mapDeviceClock(device, 'realtime', { samples: 3 })
    const trueOffsetNs = phone.clock.nowNs('realtime') - hostNowNs()
    expect(mapping.command).toBe('date +%s%N')
    expect(Math.abs(mapping.offsetNs - trueOffsetNs)).toBeLessThanOrEqual(
      mapping.uncertaintyNs + 50_000,
    )
  })

  test('monotonic needs /proc/timer_list: E_CLOCK_UNREADABLE without it, exact with it', async () => {
    const device = adb.device('vdev-0001')
    expect(await codeOf(mapDeviceClock(device, 'monotonic', { samples: 1 }))).toBe(
      'E_CLOCK_UNREADABLE',
    )
    // A rooted device: the node in the kernel's format (only the `now at` line matters).
    phone.fs.defineDynamic('/proc/timer_list', {
      mode: 0o444,
      read: () =>
        new TextEncoder().encode(
          `Timer List Version: v0.9\nHRTIMER_MAX_CLOCK_BASES: 8\nnow at ${phone.clock.nowNs('monotonic')} nsecs\n\ncpu: 0\n`,
        ),
    })
    try {
      const mapping = await mapDeviceClock(device, 'monotonic', { samples: 3 })
      const trueOffsetNs = phone.clock.nowNs('monotonic') - hostNowNs()
      expect(Math.abs(mapping.offsetNs - trueOffsetNs)).toBeLessThanOrEqual(
        mapping.uncertaintyNs + 50_000,
      )
    } finally {
      phone.fs.remove('/proc/timer_list')
    }
  })
})

describe('capability probe', () => {
  /**
   * Until the simulation's own dumpsys and sysfs battery land, register them here with outputs in
   * the real formats (fixtures) and real sysfs node values.
   */
  function equip(
    device: VirtualDeviceHandle,
    options: { battery: string; currentNow: string; status: string; packages: string },
  ): void {
    const dumpsys: ShellCommand = ({ argv, io }) => {
      if (argv[1] === 'battery') io.write(options.battery)
      else if (argv[1] === 'powerstats') io.write(fixture('dumpsys-powerstats-pixel6.txt'))
      else if (argv[1] === 'package') io.write(options.packages)
      else return 1
      return 0
    }
    device.commands.set('dumpsys', dumpsys)
    device.commands.set('perfetto', () => 0)
    const supply = '/sys/class/power_supply'
    device.fs.mkdirp(`${supply}/usb`)
    device.fs.writeFile(`${supply}/usb/type`, new TextEncoder().encode('USB\n'))
    device.fs.mkdirp(`${supply}/battery`)
    for (const [node, value] of Object.entries({
      type: 'Battery',
      current_now: options.currentNow,
      voltage_now: '4123000',
      status: options.status,
    })) {
      device.fs.writeFile(`${supply}/battery/${node}`, new TextEncoder().encode(`${value}\n`))
    }
  }

  test('a Pixel 6 with rails, a debuggable app, on USB power', async () => {
    const dev = createDevice({ serial: 'vdev-probe' })
    equip(dev, {
      battery: fixture('dumpsys-battery-usb.txt'),
      currentNow: '-412000',
      status: 'Charging',
      packages: fixture('dumpsys-package-debuggable.txt'),
    })
    server.addDevice(dev)
    try {
      const caps = await probeCapabilities(adb.device('vdev-probe'), { app: 'com.example.trails' })
      expect(caps).toMatchObject({ model: 'Pixel 6 (virtual)', manufacturer: 'Google', sdk: 33 })
      expect(caps.odpm.available).toBe(true)
      expect(caps.odpm.rails).toHaveLength(16)
      expect(caps.odpm.evidence[0]).toEqual({
        command: 'dumpsys powerstats',
        line: 'ChannelId: 0, ChannelName: S10M_VDD_TPU, ChannelSubsystem: TPU',
      })
      expect(caps.charging).toMatchObject({ usb: true, ac: false, powered: true, status: 2 })
      expect(caps.charging.evidence.map((e) => e.line)).toContain('USB powered: true')
      expect(caps.fuelGauge).toMatchObject({
        available: true,
        node: '/sys/class/power_supply/battery',
        currentNowRaw: -412000,
        currentUnit: 'uA',
        currentSign: 'unknown', // charging: the sign says nothing
        voltageUnit: 'uV',
      })
      expect(caps.fuelGauge.dischargeAmperesPerUnit).toBeUndefined()
      expect(caps.perfetto.available).toBe(true)
      expect(caps.simpleperf.available).toBe(false)
      expect(caps.simpleperf.evidence[0]?.exitCode).not.toBe(0)
      expect(caps.app).toMatchObject({ installed: true, debuggable: true, profileable: 'yes' })
      expect(caps.app?.evidence.map((e) => e.line)).toContain(
        'flags=[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]',
      )
    } finally {
      server.removeDevice('vdev-probe')
    }
  })

  test('unplugged, vendor gauge in mA with discharge positive; release app', async () => {
    const dev = createDevice({ serial: 'vdev-probe2' })
    equip(dev, {
      battery: fixture('dumpsys-battery-unplugged.txt'),
      currentNow: '385',
      status: 'Discharging',
      packages: fixture('dumpsys-package-release.txt'),
    })
    server.addDevice(dev)
    try {
      const caps = await probeCapabilities(adb.device('vdev-probe2'), { app: 'com.example.trails' })
      expect(caps.charging.powered).toBe(false)
      expect(caps.fuelGauge).toMatchObject({
        currentUnit: 'mA',
        currentSign: 'positive-discharge',
        dischargeAmperesPerUnit: 1e-3,
        currentConvention: { unit: 'mA', sign: -1 },
      })
      expect(caps.fuelGauge.evidence.map((e) => e.line)).toEqual(
        expect.arrayContaining(['385', 'Discharging']),
      )
      expect(caps.app).toMatchObject({ debuggable: false, profileable: 'unknown' })
    } finally {
      server.removeDevice('vdev-probe2')
    }
  })

  test('no channel list but perfetto android.power writes rail descriptors (Android 11 Pixel)', async () => {
    const dev = createDevice({ serial: 'vdev-a11', props: { 'ro.build.version.sdk': '30' } })
    equip(dev, {
      battery: fixture('dumpsys-battery-unplugged.txt'),
      currentNow: '-300000',
      status: 'Discharging',
      packages: fixture('dumpsys-package-release.txt'),
    })
    // Android 11 has no powerstats service; its perfetto writes power_rails packets (encoded here
    // with the formats writer, the same packets traced_probes writes).
    dev.commands.set('dumpsys', ({ argv, io }) => {
      if (argv[1] === 'powerstats') {
        io.write("Can't find service: powerstats\n")
        return 0
      }
      if (argv[1] === 'battery') io.write(fixture('dumpsys-battery-unplugged.txt'))
      return 0
    })
    const configs: string[] = []
    dev.commands.set('perfetto', ({ argv, stdin, device }) => {
      configs.push(new TextDecoder().decode(stdin))
      const out = argv[argv.indexOf('-o') + 1]!
      const rail = (name: string, subsystem: string) => ({
        kind: 'cumulative' as const,
        rail: name,
        subsystem,
        source: 'odpm',
        clock: 'boottime' as const,
        readings: [
          { tNs: 5e9, energyJ: 10 },
          { tNs: 5.25e9, energyJ: 10.1 },
        ],
      })
      device.fs.mkdirp('/data/misc/perfetto-traces')
      const dir = device.fs.stat('/data/misc/perfetto-traces')
      if (dir?.kind === 'dir') dir.mode = 0o1777 // shell may write and delete there, as on a phone
      device.fs.writeFile(
        out,
        encodePowerTrace({
          rails: [rail('S4M_VDD_CPUCL0', 'CPU(LITTLE)'), rail('VSYS_PWR_DISPLAY', 'Display')],
        }),
      )
      return 0
    })
    server.addDevice(dev)
    try {
      const caps = await probeCapabilities(adb.device('vdev-a11'))
      expect(caps.odpm).toMatchObject({ available: true, via: 'perfetto' })
      expect(caps.odpm.rails.map((r) => r.name)).toEqual(['S4M_VDD_CPUCL0', 'VSYS_PWR_DISPLAY'])
      expect(caps.odpm.evidence[0]?.line).toMatch(/Can't find service: powerstats/)
      expect(caps.odpm.evidence[1]?.line).toContain('rail_name: "S4M_VDD_CPUCL0"')
      expect(configs[0]).toMatch(/collect_power_rails: true/)
      expect(dev.fs.stat('/data/misc/perfetto-traces/vitest-energy-probe.pftrace')).toBeUndefined()
      const skipped = await probeCapabilities(adb.device('vdev-a11'), { perfettoRails: false })
      expect(skipped.odpm.available).toBe(false)
    } finally {
      server.removeDevice('vdev-a11')
    }
  })

  test('a bare device: no rails, no gauge, app not installed', async () => {
    const dev = createDevice({ serial: 'vdev-bare' })
    server.addDevice(dev)
    try {
      const caps = await probeCapabilities(adb.device('vdev-bare'), { app: 'com.example.trails' })
      expect(caps.odpm.available).toBe(false)
      expect(caps.odpm.evidence[0]?.line).toMatch(/dumpsys: (inaccessible or )?not found/)
      expect(caps.fuelGauge.available).toBe(false)
      expect(caps.app?.installed).toBe(false)
      expect(caps.cpuClusters, 'no cpufreq in sysfs: unknown, not a guess').toEqual([])
      expect(caps.evidence.at(-1)?.command).toContain('/sys/devices/system/cpu/cpufreq')
    } finally {
      server.removeDevice('vdev-bare')
    }
  })
})

describe('capability probe on the full simulated phone (startVirtualDevice)', () => {
  async function unpluggedProbe(sensors: {
    currentSign: 'kernel' | 'flipped'
    currentUnit: 'uA' | 'mA'
  }) {
    const vd = await startVirtualDevice({ sensors })
    try {
      const client = await connectAdb({ port: vd.port })
      const device = client.device(vd.serials[0]!)
      await shell(device, ['dumpsys', 'battery', 'unplug'])
      expect((await shell(device, ['cat', '/sys/class/power_supply/battery/status'])).stdout).toBe(
        'Discharging\n',
      )
      // The status is the charger's, at once; the default gauge's current register shows the
      // average of its last 1 s period: wait until a whole period after the unplug shows.
      const discharging = sensors.currentSign === 'flipped' ? 1 : -1
      await expect
        .poll(
          async () =>
            Math.sign(
              Number(
                (await shell(device, ['cat', '/sys/class/power_supply/battery/current_now']))
                  .stdout,
              ),
            ),
          { timeout: 5_000, interval: 200 },
        )
        .toBe(discharging)
      await new Promise((resolve) => setTimeout(resolve, 1100))
      return await probeCapabilities(device, { app: 'com.example.trails' })
    } finally {
      await vd.close()
    }
  }

  test.each([
    [{ currentSign: 'kernel', currentUnit: 'uA' }, 'negative-discharge', 1e-6, -1],
    [{ currentSign: 'flipped', currentUnit: 'mA' }, 'positive-discharge', 1e-3, 1],
  ] as const)('gauge quirks %o are detected as %s', async (sensors, sign, perUnit, signFactor) => {
    const caps = await unpluggedProbe(sensors)
    expect(caps.charging.powered).toBe(false)
    expect(caps.fuelGauge).toMatchObject({
      available: true,
      currentUnit: sensors.currentUnit,
      currentSign: sign,
      dischargeAmperesPerUnit: perUnit * signFactor,
    })
    // A discharging Pixel 6 draws between 20 mA and 5 A: the converted reading must say so.
    const amperes = caps.fuelGauge.currentNowRaw! * caps.fuelGauge.dischargeAmperesPerUnit!
    expect(amperes).toBeGreaterThan(0.02)
    expect(amperes).toBeLessThan(5)
    expect(caps.odpm.available).toBe(true)
    // The simulated phone prints Android 13's flush-left channel list; the probe reads it as is.
    expect(caps.odpm.rails).toContainEqual({
      id: 4,
      name: 'VSYS_PWR_DISPLAY',
      subsystem: 'Display',
    })
    expect(caps.app).toMatchObject({ installed: true })
    expect(caps.simpleperf.available).toBe(true)
    // cpufreq policies 0, 4, 6 of the simulated Tensor: little, mid, big.
    expect(caps.cpuClusters).toEqual([
      [0, 1, 2, 3],
      [4, 5],
      [6, 7],
    ])
  })
})

describe('a lab host that stops answering mid-run', () => {
  test('a command on its phone fails with E_ADB_UNREACHABLE naming the host, not a spawn error', async () => {
    const host = await startVirtualDevice({ host: '127.0.0.2', serialPrefix: 'lab' })
    const device = (await connectAdb({ host: host.host, port: host.port })).device('lab-0001')
    expect((await shell(device, ['echo', 'up'])).stdout).toBe('up\n')
    await host.close()
    const error = await shell(device, ['echo', 'down']).catch((e: unknown) => e)
    expect(isEnergyError(error) && error.code).toBe('E_ADB_UNREACHABLE')
    expect((error as Error).message).toContain(`no adb server on 127.0.0.2:${host.port}\n`)
  })
})
