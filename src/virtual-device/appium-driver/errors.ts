/** Stable codes of the virtual device's Appium driver and of the programmatic Appium server. */
import type { EnergyErrorCode } from '../../model/index.js'

export const AppiumDriverErrors = {
  /** `uiautomator dump` failed on the device or printed something that is not a window hierarchy. */
  HIERARCHY: 'E_APPIUM_HIERARCHY',
  /** An XPath or UiSelector locator uses syntax outside the supported subset, or is malformed. */
  SELECTOR: 'E_APPIUM_SELECTOR',
  /** A device command the driver relies on (`am`, `input`, `pidof`) failed. */
  DEVICE_COMMAND: 'E_APPIUM_DEVICE_COMMAND',
  /** The Appium server could not be started (port, APPIUM_HOME, extension loading). */
  SERVER_START: 'E_APPIUM_SERVER_START',
  /** `createDriver` options are missing or invalid. */
  DRIVER_OPTIONS: 'E_APPIUM_DRIVER_OPTIONS',
  /** Appium refused to create a session (driver missing, device unreachable, bad capabilities). */
  SESSION: 'E_APPIUM_SESSION',
} as const satisfies Record<string, EnergyErrorCode>

export type AppiumDriverErrorCode = (typeof AppiumDriverErrors)[keyof typeof AppiumDriverErrors]
