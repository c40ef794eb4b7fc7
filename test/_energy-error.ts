// The EnergyError a call throws, as tests check it: its code and message. Anything else it throws
// is rethrown; returning normally fails the test.
import { isEnergyError } from '../src/model/index.js'

export function energyErrorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn()
  } catch (error) {
    if (isEnergyError(error)) return { code: error.code, message: error.message }
    throw error
  }
  throw new Error('expected an EnergyError')
}
