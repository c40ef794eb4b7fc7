/**
 * The test process's WebdriverIO session on its phone, through the run's Appium server. Started
 * and ended holding the phone's lease: a session's start launches the app and its end force-stops
 * it, which must never happen inside another worker's test on the same phone.
 */
import { EnergyError } from '../model/index.js'
import { defaultAutomationName } from '../vitest/appium-server.js'
import { closeDriver, createDriver } from '../vitest/driver.js'
import type { DeviceSession } from './device-session.js'

export async function startDriver(device: DeviceSession): Promise<WebdriverIO.Browser> {
  const appium = device.target.appium
  const options = device.options.appium
  if (appium === undefined || options === false) {
    throw new EnergyError({
      code: 'E_APPIUM_DISABLED',
      message:
        'the driver fixture needs an Appium server, and this run started none (appium: false)',
      hint: 'Remove `appium: false` from the vitest-energy plugin options.',
    })
  }
  return device.withLease('starting the Appium session', () =>
    createDriver({
      appiumHost: appium.host,
      appiumPort: appium.port,
      serial: device.serial,
      app: device.options.app,
      ...(options.appActivity === null ? {} : { appActivity: options.appActivity }),
      automationName: options.automationName ?? defaultAutomationName(device.target.virtual),
      adbHost: device.target.host,
      adbPort: device.target.port,
      capabilities: options.capabilities,
    }),
  )
}

export async function endDriver(
  device: DeviceSession,
  browser: WebdriverIO.Browser,
): Promise<void> {
  await device.withLease('ending the Appium session', () => closeDriver(browser))
}
