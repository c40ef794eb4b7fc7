/**
 * Typings of the globals the vitest-energy Jest environment defines in every test file (loaded
 * with `import 'vitest-energy/jest'`, like the matchers' typings).
 */
// The `WebdriverIO` namespace, kept in the emitted .d.ts (an `import type {}` is dropped there).
/// <reference types="webdriverio" preserve="true" />
import type { DeviceSession } from '../session/device-session.js'
import type { EnergyApi } from '../session/test-energy.js'

declare global {
  /**
   * The running test's energy: `measure(fn)`, `repeat(n, fn)`, `baseline()`, and `results`. Only
   * inside a test and its `beforeEach`/`afterEach` hooks, which hold the phone.
   */
  var energy: EnergyApi
  /** The test file's WebdriverIO session on its phone, through the run's Appium server. */
  var driver: WebdriverIO.Browser
  /** The test file's phone: `device.shell(argv)`, `device.serial`, its probed capabilities. */
  var device: DeviceSession
}

export {}
