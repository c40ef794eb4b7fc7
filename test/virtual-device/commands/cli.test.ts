import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { runCommand } from '../../../src/cli/index.js'
import { connectAdb, probeCapabilities, shell } from '../../../src/device/index.js'
import { DEMO_APP_MODEL } from '../../../src/virtual-device/sim/demo-app.js'

function io(signal: AbortSignal) {
  let out = ''
  let err = ''
  return {
    io: {
      out: (t: string) => {
        out += t
      },
      err: (t: string) => {
        err += t
      },
      cwd: process.cwd(),
      signal,
    },
    get out() {
      return out
    },
    get err() {
      return err
    },
  }
}

/** Runs `vitest-energy virtual-device --time fast <args>` until `stop()`; its first phone over ADB. */
async function startCli(args: readonly string[]) {
  const controller = new AbortController()
  const cap = io(controller.signal)
  const running = runCommand(['virtual-device', '--time', 'fast', ...args], cap.io)
  for (let i = 0; i < 200 && !cap.out.includes('serials:'); i++)
    await new Promise((r) => setTimeout(r, 10))
  const port = Number(/port: (\d+)/.exec(cap.out)?.[1])
  return {
    device: (await connectAdb({ port })).device('vdev-0001'),
    async stop(): Promise<number> {
      controller.abort()
      return running
    },
  }
}

describe('vitest-energy virtual-device', () => {
  test('the shipped JSON fixture is the demo model', () => {
    const json = JSON.parse(
      readFileSync('test/fixtures/virtual-device/trails-app.json', 'utf8'),
    ) as unknown
    expect(json).toEqual(JSON.parse(JSON.stringify(DEMO_APP_MODEL)))
  })

  test('prints port and serials, runs until the signal aborts', async () => {
    const controller = new AbortController()
    const cap = io(controller.signal)
    const running = runCommand(
      [
        'virtual-device',
        '--app',
        'test/fixtures/virtual-device/trails-app.json',
        '--devices',
        '3',
        '--seed',
        '4',
        '--time',
        'fast',
      ],
      cap.io,
    )
    for (let i = 0; i < 200 && !cap.out.includes('serials:'); i++)
      await new Promise((r) => setTimeout(r, 10))
    expect(cap.out).toMatch(/port: \d+\nserials: vdev-0001 vdev-0002 vdev-0003\n/)
    controller.abort()
    expect(await running).toBe(0)
    expect(cap.out).toContain('virtual device stopped\n')
  })

  test('--host and --serial-prefix: a second lab host on another loopback address', async () => {
    const controller = new AbortController()
    const cap = io(controller.signal)
    const running = runCommand(
      ['virtual-device', '--time', 'fast', '--host', '127.0.0.3', '--serial-prefix', 'lab-b'],
      cap.io,
    )
    for (let i = 0; i < 200 && !cap.out.includes('serials:'); i++)
      await new Promise((r) => setTimeout(r, 10))
    expect(cap.out).toMatch(/^virtual device: ADB server on 127\.0\.0\.3:\d+\n/)
    expect(cap.out).toContain('serials: lab-b-0001\n')
    expect(cap.out).toMatch(/try: adb -H 127\.0\.0\.3 -P \d+ -s lab-b-0001 shell/)
    // A loopback address: no network warning.
    expect(cap.out).not.toContain('warning')
    const port = Number(/port: (\d+)/.exec(cap.out)?.[1])
    const device = (await connectAdb({ host: '127.0.0.3', port })).device('lab-b-0001')
    expect((await shell(device, ['getprop', 'ro.serialno'])).stdout.trim()).toBe('lab-b-0001')
    controller.abort()
    expect(await running).toBe(0)
    const bad = io(controller.signal)
    expect(await runCommand(['virtual-device', '--serial-prefix', 'a b'], bad.io)).toBe(2)
    expect(bad.err).toContain("--serial-prefix takes letters, digits, '.', '_' and '-'")
  })

  test('bad options are usage errors; a bad model names the field', async () => {
    const controller = new AbortController()
    const a = io(controller.signal)
    expect(await runCommand(['virtual-device', '--time', 'slow'], a.io)).toBe(2)
    expect(a.err).toContain("--time takes 'real' or 'fast'")
    const b = io(controller.signal)
    expect(await runCommand(['virtual-device', '--devices', 'x'], b.io)).toBe(2)
    const c = io(controller.signal)
    expect(
      await runCommand(
        ['virtual-device', '--app', 'test/fixtures/virtual-device/bad-app.json'],
        c.io,
      ),
    ).toBe(1)
    expect(c.err).toContain('$.screens[0].widgets[0].bounds')
    const d = io(controller.signal)
    expect(await runCommand(['virtual-device', '--devices', '0'], d.io)).toBe(1)
    expect(d.err).toContain("option 'devices' must be an integer from 1 to 64")
  })

  test('--android, --charger, --no-rails, --gauge-sign: the phone presents them', async () => {
    const cli = await startCli([
      '--android',
      '30',
      '--charger',
      'none',
      '--no-rails',
      '--gauge-sign',
      'flipped',
    ])
    expect((await shell(cli.device, ['getprop', 'ro.build.version.sdk'])).stdout).toBe('30\n')
    const caps = await probeCapabilities(cli.device)
    expect(caps.odpm.available).toBe(false)
    expect(caps.charging.powered).toBe(false)
    expect(caps.fuelGauge.currentSign).toBe('positive-discharge')
    expect(await cli.stop()).toBe(0)
  })

  test('--no-rails alone: on battery, since a fuel gauge cannot measure while charging; --charger still wins', async () => {
    const alone = await startCli(['--no-rails'])
    expect((await probeCapabilities(alone.device)).charging.powered).toBe(false)
    expect(await alone.stop()).toBe(0)
    const usb = await startCli(['--no-rails', '--charger', 'usb'])
    expect((await probeCapabilities(usb.device)).charging.powered).toBe(true)
    expect(await usb.stop()).toBe(0)
  })

  test('--silicon nominal: the phone physics on the profile’s own currents', async () => {
    const controller = new AbortController()
    const cap = io(controller.signal)
    const running = runCommand(['virtual-device', '--time', 'fast', '--silicon', 'nominal'], cap.io)
    for (let i = 0; i < 200 && !cap.out.includes('serials:'); i++)
      await new Promise((r) => setTimeout(r, 10))
    const port = Number(/port: (\d+)/.exec(cap.out)?.[1])
    const device = (await connectAdb({ port })).device('vdev-0001')
    const report = JSON.parse((await shell(device, ['vdev', 'silicon'])).stdout) as {
      silicon: string
    }
    expect(report.silicon).toBe('nominal')
    controller.abort()
    expect(await running).toBe(0)
  })

  test('--gauge samsung: a gauge reporting mA, as the probe reads it', async () => {
    const cli = await startCli([
      '--charger',
      'none',
      '--gauge',
      'samsung',
      '--gauge-averaging',
      'iir:2000',
    ])
    const caps = await probeCapabilities(cli.device)
    expect(caps.fuelGauge.currentUnit).toBe('mA')
    expect(caps.fuelGauge.currentSign).toBe('negative-discharge')
    expect(await cli.stop()).toBe(0)
  })

  test.each([
    [
      ['--gauge', 'nokia'],
      "--gauge takes typical, pixel, samsung, oplus, ti-bq27xxx, mediatek-legacy, got 'nokia'",
    ],
    [
      ['--gauge-averaging', 'iir:abc'],
      "--gauge-averaging takes period, instant, iir:<tau ms> or boxcar:<window ms>, got 'iir:abc'",
    ],
    [['--android', '28'], '--android takes an API level from 29, 30, 31, 32, 33, 34, 35, got 28'],
    [['--android', 'ten'], '--android takes a non-negative integer'],
    [['--charger', 'solar'], "--charger takes usb, ac, wireless, none, got 'solar'"],
    [['--gauge-sign', 'up'], "--gauge-sign takes 'kernel' or 'flipped', got 'up'"],
    [['--silicon', 'typical'], "--silicon takes nominal, deviated, got 'typical'"],
  ])('%j is a usage error', async (args, message) => {
    const cap = io(AbortSignal.abort())
    expect(await runCommand(['virtual-device', ...args], cap.io)).toBe(2)
    expect(cap.err).toContain(message)
  })
})
