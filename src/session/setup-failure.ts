/**
 * Setup mistakes (a missing app, an adb address with no server, a bad option) are expected: the
 * user needs the code, what happened and what to do — printed once, not a stack trace of our
 * internals or Vitest's `Serialized Error` dump of the error's fields. Vitest prints an error's
 * stack (which starts with its message) and then its enumerable own properties; this returns an
 * error with neither beyond the message. Anything unexpected is passed through untouched.
 */
import { isEnergyError } from '../model/index.js'

export function setupFailure(error: unknown): unknown {
  if (!isEnergyError(error)) return error
  const plain = new Error(error.message)
  plain.name = 'vitest-energy'
  // The message starts with the code (`[E_…]`); any property more would be printed as a dump.
  plain.stack = `${plain.name}: ${error.message}`
  return plain
}
