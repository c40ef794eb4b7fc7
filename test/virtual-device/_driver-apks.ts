// The real APKs Appium's UiAutomator2 driver installs on a phone, from its npm packages (the
// versions package-lock.json pins): what the virtual device's package manager is tested with.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const driverRequire = createRequire(
  createRequire(import.meta.url).resolve('appium-uiautomator2-driver/package.json'),
)
const serverApks = join(
  dirname(driverRequire.resolve('appium-uiautomator2-server/package.json')),
  'apks',
)

/** `io.appium.settings`, the settings helper. */
export const SETTINGS_APK = join(
  dirname(driverRequire.resolve('io.appium.settings/package.json')),
  'apks',
  'settings_apk-debug.apk',
)
/** `io.appium.uiautomator2.server`, the UiAutomator2 server. */
export const SERVER_APK = join(serverApks, 'appium-uiautomator2-server-v10.6.6.apk')
/** `io.appium.uiautomator2.server.test`, the instrumentation that runs the server. */
export const SERVER_TEST_APK = join(serverApks, 'appium-uiautomator2-server-debug-androidTest.apk')
