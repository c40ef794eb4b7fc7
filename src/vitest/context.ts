/** What the main process hands to workers (Vitest provide/inject), as plain JSON. */
import type { DeviceTarget, ProvidedEnergyOptions } from '../session/target.js'

export type { DeviceTarget, ProvidedEnergyOptions }

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
