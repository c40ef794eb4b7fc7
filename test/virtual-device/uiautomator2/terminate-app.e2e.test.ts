/**
 * `mobile: terminateApp` + `mobile: activateApp` through the real UiAutomator2 driver give a fresh
 * app, as on a phone: appium-adb lists the app's pids from `dumpsys activity processes`
 * (`listAppProcessIds`), force-stops it only when it finds some, then queryAppState (same dump,
 * then `dumpsys window`) sees it gone; activateApp starts it cold on its launcher activity.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { startAppiumServer, type AppiumServer } from '../../../src/session/appium-server.js'
import { closeDriver, createDriver } from '../../../src/session/driver.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../../src/virtual-device/index.js'

const PKG = 'com.example.trails'
// Appium's APP_STATE (appium-android-driver): NOT_RUNNING 1, RUNNING_IN_FOREGROUND 4.
const NOT_RUNNING = 1
const RUNNING_IN_FOREGROUND = 4

let vd: VirtualDeviceServer
let appium: AppiumServer

beforeAll(async () => {
  vi.stubEnv('TSX_DISABLE_CACHE', '1')
  vd = await startVirtualDevice({ devices: 1 })
  appium = await startAppiumServer({ userAppiumHome: false })
}, 60_000)

afterAll(async () => {
  await appium?.close()
  await vd?.close()
  vi.unstubAllEnvs()
})

test('terminateApp kills the app on the map screen; activateApp relaunches it on MainActivity', async () => {
  const { device, phone } = vd.devices[0]!
  const driver = await createDriver({
    appiumPort: appium.port,
    serial: vd.serials[0]!,
    app: PKG,
    adbPort: vd.port,
  })
  try {
    expect(await driver.getCurrentActivity()).toBe('.MainActivity')
    expect(await driver.execute('mobile: queryAppState', { appId: PKG })).toBe(
      RUNNING_IN_FOREGROUND,
    )
    await driver.$('~map').click()
    expect(await driver.getCurrentActivity()).toBe('.MapActivity')
    const pid = phone.appProcess?.pid
    expect(pid).toBeTypeOf('number')

    const logged = device.commandLog.length
    expect(await driver.execute('mobile: terminateApp', { appId: PKG })).toBe(true)
    const commands = device.commandLog.slice(logged).join('\n')
    expect(commands).toMatch(/dumpsys '?activity'? '?processes'?/)
    expect(commands).toMatch(/am '?force-stop'? '?com\.example\.trails'?/)
    expect(phone.appProcess).toBeUndefined()
    expect(await driver.execute('mobile: queryAppState', { appId: PKG })).toBe(NOT_RUNNING)
    // Nothing left to terminate.
    expect(await driver.execute('mobile: terminateApp', { appId: PKG })).toBe(false)

    await driver.execute('mobile: activateApp', { appId: PKG })
    expect(await driver.getCurrentActivity()).toBe('.MainActivity')
    expect(phone.appProcess?.pid).not.toBe(pid)
    expect(await driver.execute('mobile: queryAppState', { appId: PKG })).toBe(
      RUNNING_IN_FOREGROUND,
    )
  } finally {
    await closeDriver(driver)
  }
}, 180_000)
