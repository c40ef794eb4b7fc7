// A machine without the adb client: UiAutomator2 cannot start a session, and the error says what to
// install (the driver's own message names only environment variables).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { isEnergyError } from '../../../src/model/index.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../../src/virtual-device/index.js'
import { startAppiumServer, type AppiumServer } from '../../../src/session/appium-server.js'
import { createDriver } from '../../../src/session/driver.js'

let vd: VirtualDeviceServer
let appium: AppiumServer
const emptyPath = mkdtempSync(join(tmpdir(), 'no-adb-'))

beforeAll(async () => {
  vi.stubEnv('PATH', emptyPath)
  vi.stubEnv('ANDROID_HOME', undefined)
  vi.stubEnv('ANDROID_SDK_ROOT', undefined)
  vi.stubEnv('TSX_DISABLE_CACHE', '1')
  vd = await startVirtualDevice({ devices: 1 })
  appium = await startAppiumServer({ userAppiumHome: false })
}, 60_000)

afterAll(async () => {
  await appium?.close()
  await vd?.close()
  vi.unstubAllEnvs()
  rmSync(emptyPath, { recursive: true, force: true })
})

test('E_APPIUM_SESSION names the adb client to install', async () => {
  const error = await createDriver({
    appiumPort: appium.port,
    serial: vd.serials[0]!,
    app: 'com.example.trails',
    adbPort: vd.port,
  }).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(isEnergyError(error) && error.code).toBe('E_APPIUM_SESSION')
  expect(String((error as Error).message)).toMatch(/ANDROID_HOME|ANDROID_SDK_ROOT/)
  expect(isEnergyError(error) && error.hint).toContain('apt-get install adb')
}, 60_000)
