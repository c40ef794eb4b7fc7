/** What the main process hands to workers (Vitest provide/inject), as plain JSON. */
import type { ResolvedEnergyOptions } from './options.js'

/** Where the devices are, decided once by the global setup. */
export interface DeviceTarget {
  readonly host: string
  readonly port: number
  /** Serials workers share; worker N uses serials[(N − 1) mod length]. */
  readonly serials: readonly string[]
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

/** The plugin's options as workers receive them. */
export type ProvidedEnergyOptions = ResolvedEnergyOptions & {
  /** The user gave an adb address: it must answer (no fallback to the virtual device). */
  readonly adbConfigured: boolean
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Plugin options after validation and defaults. */
    vitestEnergyOptions: ProvidedEnergyOptions
    /** Set by the global setup. */
    vitestEnergyTarget: DeviceTarget
  }
}

export const OPTIONS_KEY = 'vitestEnergyOptions'
export const TARGET_KEY = 'vitestEnergyTarget'
