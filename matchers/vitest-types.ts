// Typings for the energy matchers in Vitest 4 (`Matchers<T>` augmentation), loaded with the matchers.
import type { EnergyMatchers } from './_types.js'

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-explicit-any
  interface Matchers<T = any> extends EnergyMatchers<T> {}
}

export type { EnergyMatchers }
