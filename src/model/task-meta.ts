/**
 * Types Vitest's `task.meta.energy`, the one-way channel from the worker (fixture) to the
 * reporter. Type-only: importing the model brings the augmentation along. Vitest re-exports
 * TaskMeta from @vitest/runner, which is where the interface must be augmented.
 */
import type { TestEnergyMeta } from './summary.js'

declare module '@vitest/runner' {
  interface TaskMeta {
    /** Written by the vitest-energy fixture after each test; read by the `energy` reporter. */
    energy?: TestEnergyMeta
    /**
     * On a test file: the energy of its tests whose automatic window's end was read in the
     * background (option `windowEnd`), by test id — written when the file ends, after those
     * tests' own meta has reached the reporter. It replaces theirs.
     */
    energyBehind?: Record<string, TestEnergyMeta>
  }
}

export type { TestEnergyMeta }
