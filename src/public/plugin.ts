/** `vitest-energy/plugin` (main process): the Vite plugin for vitest.config.ts. */
export { energy } from '../vitest/plugin.js'
export type { EnergyOptions } from '../session/options.js'
