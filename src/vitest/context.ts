/** What the main process hands to workers (Vitest provide/inject), as plain JSON. */
import type { DeviceTarget, ProvidedEnergyOptions } from '../session/target.js'

export type { DeviceTarget, ProvidedEnergyOptions }

declare module 'vitest' {
  export interface ProvidedContext {
    /** Plugin options after validation and defaults. */
    vitestEnergyOptions: ProvidedEnergyOptions
    /** Set by the global setup. */
    vitestEnergyTarget: DeviceTarget
    /**
     * Set by the energy reporter when it draws a live status line: the loopback port where test
     * processes send their progress (src/model/progress.ts).
     */
    vitestEnergyProgress?: { readonly port: number }
    /** Set by the energy reporter: it writes the budgets tests ask for (docs/budgets.md). */
    vitestEnergyBudgetWriter?: boolean
    /**
     * Set by the energy reporter: the folder where test processes write the energy of windows
     * read in the background as it arrives (reporter/late-results.ts).
     */
    vitestEnergyLateResults?: string
  }
}

export const OPTIONS_KEY = 'vitestEnergyOptions'
export const TARGET_KEY = 'vitestEnergyTarget'
export { BUDGET_WRITER_PROVIDE_KEY as BUDGET_WRITER_KEY } from '../budgets/load.js'
export { PROGRESS_PROVIDE_KEY as PROGRESS_KEY } from '../model/progress.js'
export { LATE_RESULTS_PROVIDE_KEY as LATE_RESULTS_KEY } from '../../reporter/late-results.js'
