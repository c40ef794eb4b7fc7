/** Random byte flips in a valid trace: the decoder either decodes it or throws an EnergyError. */
import fc from 'fast-check'
import { expect } from 'vitest'
import { decodePowerTrace } from '../../../src/formats/perfetto/index.js'

export function expectCorruptionDecodesOrThrowsEnergyError(sample: Uint8Array): void {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(sample.length - 1), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 6,
      }),
      (flips) => {
        const bytes = sample.slice()
        for (const [at, value] of flips) bytes[at] = value
        try {
          decodePowerTrace(bytes)
        } catch (error) {
          expect((error as { name?: string }).name).toBe('EnergyError')
        }
      },
    ),
    { numRuns: 300 },
  )
}
