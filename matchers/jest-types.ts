// Typings for the energy matchers in Jest 30: augments the `expect` package's `Matchers` (what
// `import { expect } from '@jest/globals'` uses) and the global `jest.Matchers` of @types/jest.
// Load it once, e.g. `import 'vitest-energy/jest'` in a setup file or a `types` entry.
import type {} from 'expect'
import type { EnergyMatchers } from './_types.js'

declare module 'expect' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unused-vars
  interface Matchers<R extends void | Promise<void>, T = unknown> extends EnergyMatchers<R> {}
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    // Same type parameters as @types/jest and Vitest's own declaration (`T = {}`).
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unused-vars
    interface Matchers<R, T = {}> extends EnergyMatchers<R> {}
  }
}

export type { EnergyMatchers }
