/**
 * What a run's setup (in the main process) hands to the processes that run tests, as plain JSON:
 * the options after validation, and where the phones and the Appium server are. The Vitest
 * plugin passes them through provide/inject, the Jest global setup through the environment.
 */
import type { PhoneAddress } from '../device/index.js'
import type { ResolvedEnergyOptions } from './options.js'

/** Where the devices are, decided once by the run's setup. */
export interface DeviceTarget {
  /**
   * The pool: every phone of the run, on one adb server or several. Which one a test process
   * measures on is the lease store's choice (worker N → phone N mod count with lock files; the
   * least used with a shared store).
   */
  readonly phones: readonly PhoneAddress[]
  /**
   * The run's id: the runners (shards) of one run that share a lease store and this id share each
   * phone's idle baseline. VITEST_ENERGY_RUN_ID, else the CI's pipeline id, else this runner's own.
   */
  readonly run: string
  /** True when the devices are the bundled virtual device. */
  readonly virtual: boolean
  /** The Appium server started for the run, when one was. */
  readonly appium?: { readonly host: string; readonly port: number }
  /**
   * A folder for this run only (removed at its end): what one worker learns about a phone that
   * every worker on it shares, such as the idle baseline.
   */
  readonly runDir: string
}

/**
 * The file a test process leaves in the run's folder once it has measured a window, so that the
 * run's end can tell a run that measured energy without reporting it.
 */
export const MEASURED_MARKER = 'measured'

/** The options as test processes receive them. */
export type ProvidedEnergyOptions = ResolvedEnergyOptions & {
  /** The user gave an adb address: it must answer (no fallback to the virtual device). */
  readonly adbConfigured: boolean
}
