/**
 * `adb install`, `adb install-multiple` and `adb uninstall` with the real adb client, as Appium's
 * UiAutomator2 driver runs them: the push + `pm install` path and the `pm install-create/-write/
 * -commit` session path (the APK streamed on the `exec:` connection), with real APKs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVirtualDevice, type VirtualDeviceServer } from '../../../src/virtual-device/index.js'
import { encodeData } from '../../../src/virtual-device/adb/wire.js'
import { SETTINGS_APK } from '../_driver-apks.js'
import { hasAdb, runAdb, transportSocket } from './_helpers.js'

describe.skipIf(!hasAdb)('installing APKs with the real adb client', () => {
  let vd: VirtualDeviceServer
  let serial: string

  beforeAll(async () => {
    vd = await startVirtualDevice({ devices: 1 })
    serial = vd.serials[0]!
  })
  afterAll(async () => vd.close())

  const packages = async (): Promise<string> =>
    (
      await runAdb(vd.port, ['-s', serial, 'shell', 'pm', 'list', 'packages', 'appium'])
    ).stdout.toString()

  it('install, then uninstall', async () => {
    const install = await runAdb(vd.port, ['-s', serial, 'install', '-g', SETTINGS_APK])
    expect(install.code, install.stderr).toBe(0)
    expect(install.stdout.toString()).toMatch(/Performing Push Install[\s\S]*Success\n$/)
    expect(await packages()).toBe('package:io.appium.settings\n')
    // The pushed copy is the client's to remove, and it does.
    const tmp = await runAdb(vd.port, ['-s', serial, 'shell', 'ls', '/data/local/tmp'])
    expect(tmp.stdout.toString()).not.toContain('settings_apk-debug.apk')
    const uninstall = await runAdb(vd.port, ['-s', serial, 'uninstall', 'io.appium.settings'])
    expect(uninstall.code, uninstall.stderr).toBe(0)
    expect(uninstall.stdout.toString()).toBe('Success\n')
    expect(await packages()).toBe('')
  })

  it('install-multiple streams the APK into an install session', async () => {
    const r = await runAdb(vd.port, ['-s', serial, 'install-multiple', '-r', SETTINGS_APK])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.toString()).toContain('Success')
    expect(await packages()).toBe('package:io.appium.settings\n')
    const log = vd.devices[0]!.device.commandLog.join('\n')
    expect(log).toMatch(/pm install-create -S \d+/)
    expect(log).toMatch(/pm install-write -S \d+ \d+ /)
    expect(log).toMatch(/pm install-commit \d+/)
  })

  it('a file that is not an APK fails the install with the package manager’s reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vdev-install-'))
    const fake = join(dir, 'fake.apk')
    writeFileSync(fake, 'not a zip')
    const r = await runAdb(vd.port, ['-s', serial, 'install', '-r', fake])
    rmSync(dir, { recursive: true, force: true })
    // The legacy shell stream carries no exit status, so adb exits 0 and the reason is in its
    // output, where Appium's adb layer looks for `Failure`.
    expect(r.code).toBe(0)
    expect(r.stdout.toString()).toMatch(/Failure \[INSTALL_PARSE_FAILED_NOT_APK: /)
  })
})

describe('install-write over exec:', () => {
  it('refuses a declared size over 512 MiB without reading it', async () => {
    const vd = await startVirtualDevice({ devices: 1 })
    try {
      const socket = await transportSocket(vd.port, vd.serials[0]!)
      const reply = await new Promise<string>((resolve) => {
        let got = ''
        socket.on('data', (d: Buffer) => (got += d.toString()))
        socket.on('close', () => resolve(got))
        socket.write(encodeData('exec:pm install-write -S 600000000 1 base.apk -'))
      })
      expect(reply).toBe("OKAYError: APK of 600000000 bytes exceeds the virtual device's limit\n")
      expect(vd.devices[0]!.device.commandLog).toEqual([])
    } finally {
      await vd.close()
    }
  })
})
