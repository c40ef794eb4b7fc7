/**
 * A WebdriverIO session on the test's phone through a running Appium server, with Appium's
 * UiAutomator2 driver on real and virtual phones alike (or another driver by `automationName`).
 * The `driver` fixture calls {@link createDriver} with the worker's device and {@link closeDriver}
 * after the test.
 */
import { remote } from 'webdriverio'
import { EnergyError } from '../model/index.js'
import { AppiumDriverErrors } from '../virtual-device/appium-driver/errors.js'

/** Options of {@link createDriver}. */
export interface CreateDriverOptions {
  /** Port of the Appium server (see `startAppiumServer`). */
  readonly appiumPort: number
  /** Host of the Appium server. @default '127.0.0.1' */
  readonly appiumHost?: string
  /** The device's adb serial (`appium:udid`). */
  readonly serial: string
  /** The app's package name (`appium:appPackage`), e.g. `com.example.trails`. */
  readonly app: string
  /**
   * Activity to launch (`appium:appActivity`), e.g. `.MainActivity`. @default the app's launcher
   * activity, which the driver resolves on the phone (`cmd package resolve-activity`)
   */
  readonly appActivity?: string
  /** Appium driver. @default 'UiAutomator2' */
  readonly automationName?: string
  /** adb server host the driver talks to. @default '127.0.0.1' */
  readonly adbHost?: string
  /** adb server port the driver talks to (the virtual device's port). @default 5037 */
  readonly adbPort?: number
  /** Keep the app's state between sessions (`appium:noReset`). @default false */
  readonly noReset?: boolean
  /** Further capabilities, merged last (e.g. `{ 'appium:newCommandTimeout': 120 }`). */
  readonly capabilities?: Readonly<Record<string, unknown>>
  /** WebdriverIO's own log level. @default 'silent' */
  readonly logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent'
}

function badOption(name: string, why: string): EnergyError {
  return new EnergyError({
    code: AppiumDriverErrors.DRIVER_OPTIONS,
    message: `createDriver: option '${name}' ${why}`,
    hint: 'Pass appiumPort (from startAppiumServer), serial, app and, for the virtual device, adbPort.',
    details: { option: name },
  })
}

function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 65535
}

/** The W3C capabilities {@link createDriver} sends. */
export function driverCapabilities(options: CreateDriverOptions): Record<string, unknown> {
  const automationName = options.automationName ?? 'UiAutomator2'
  const virtual = automationName.toLowerCase() === 'virtualdevice'
  return {
    platformName: 'Android',
    'appium:automationName': automationName,
    'appium:udid': options.serial,
    'appium:appPackage': options.app,
    ...(options.appActivity === undefined ? {} : { 'appium:appActivity': options.appActivity }),
    // UiAutomator2 streams `adb logcat` for the whole session by default: work on the phone
    // (logd, adbd) that would draw power inside every energy window. Ask for it explicitly.
    ...(virtual ? {} : { 'appium:skipLogcatCapture': true }),
    'appium:noReset': options.noReset ?? false,
    ...(options.adbPort === undefined ? {} : { 'appium:adbPort': options.adbPort }),
    ...(options.adbHost === undefined
      ? {}
      : virtual
        ? { 'appium:adbHost': options.adbHost }
        : { 'appium:remoteAdbHost': options.adbHost }),
    ...options.capabilities,
  }
}

/**
 * Opens an Appium session on `serial` and launches the app. Throws `E_APPIUM_DRIVER_OPTIONS` for
 * bad options and `E_APPIUM_SESSION` when Appium refuses the session (with Appium's reason).
 */
export async function createDriver(options: CreateDriverOptions): Promise<WebdriverIO.Browser> {
  if (!isPort(options.appiumPort)) {
    throw badOption('appiumPort', `must be a TCP port, got ${String(options.appiumPort)}`)
  }
  if (options.adbPort !== undefined && !isPort(options.adbPort)) {
    throw badOption('adbPort', `must be a TCP port, got ${String(options.adbPort)}`)
  }
  if (typeof options.serial !== 'string' || options.serial === '') {
    throw badOption('serial', 'must be the device serial (`adb devices`)')
  }
  if (typeof options.app !== 'string' || !/^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/.test(options.app)) {
    throw badOption('app', `must be an Android package name, got ${JSON.stringify(options.app)}`)
  }
  const host = options.appiumHost ?? '127.0.0.1'
  try {
    return await remote({
      hostname: host,
      port: options.appiumPort,
      path: '/',
      // WebdriverIO's own logger would print failures the test already reports (and a DELETE that
      // races Appium's shutdown at the end of a run); errors still reach the test as exceptions.
      logLevel: options.logLevel ?? 'silent',
      connectionRetryCount: 0,
      capabilities: driverCapabilities(options) as WebdriverIO.Capabilities,
    })
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause)
    // appium-adb's words when it finds no adb client (no SDK root, no adb on the PATH).
    const noAdb = /ANDROID_HOME|ANDROID_SDK_ROOT|Could not find 'adb/.test(reason)
    throw new EnergyError({
      code: AppiumDriverErrors.SESSION,
      message: `Appium on ${host}:${options.appiumPort} did not open a session on ${options.serial}: ${reason}`,
      hint: noAdb
        ? "Appium's UiAutomator2 driver runs the adb client: install it (apt-get install adb, " +
          "or the Android SDK's platform-tools) so that `adb` is on the PATH, or set ANDROID_HOME."
        : 'Check that Appium runs (startAppiumServer), that the driver for automationName is ' +
          'installed (`appium driver list`), and that the device is in `adb devices`.',
      details: {
        serial: options.serial,
        automationName: options.automationName ?? 'UiAutomator2',
      },
      cause,
    })
  }
}

/** Ends the session (the driver stops the app unless `noReset`). Safe on an ended session. */
export async function closeDriver(browser: WebdriverIO.Browser): Promise<void> {
  try {
    await browser.deleteSession()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    // Already ended, or Appium already shut down at the end of the run (the session went with it).
    if (
      /invalid session id|session .*(not found|terminated|deleted)|ECONNRESET|ECONNREFUSED/i.test(
        message,
      )
    )
      return
    throw error
  }
}
