/** Error codes of the Jest adapter (docs/errors.md), and its setup errors as Jest prints them. */
import type { EnergyErrorCode } from '../model/index.js'
import { setupFailure } from '../session/setup-failure.js'

export const JestErrors = {
  /** The test environment ran without the global setup's run (no phones to lease). */
  SETUP_MISSING: 'E_JEST_SETUP_MISSING',
  /** `energy.measure()` / `repeat()` / `baseline()` outside a test (a phone is leased per test). */
  OUTSIDE_TEST: 'E_ENERGY_OUTSIDE_TEST',
  /** Two tests of one file ran at once (`test.concurrent`): one phone measures one test at a time. */
  CONCURRENT: 'E_JEST_CONCURRENT_TEST',
} as const satisfies Record<string, EnergyErrorCode>

/**
 * `setupFailure` for the test environment, whose errors Jest prints under "Test suite failed to
 * run" (jest-message-util's `formatExecError`): the message, then the stack's lines after its
 * first as frames — so the stack `setupFailure` gives (the message again) printed the hint a
 * second time. Here the stack is the message's first line only, which Jest takes for the message:
 * code, message and hint print once.
 */
export function suiteSetupFailure(error: unknown): unknown {
  const plain = setupFailure(error)
  if (plain === error || !(plain instanceof Error)) return plain
  plain.stack = `${plain.name}: ${plain.message.split('\n')[0] ?? ''}`
  return plain
}
