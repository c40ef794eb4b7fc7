// The Jest environment's setup errors as Jest prints them under "Test suite failed to run"
// (src/jest/errors.ts): through jest-message-util's formatExecError, the function Jest's default
// reporter formats a file's error with, after the error crossed from the worker as
// { message, stack } — its code, message and hint once, and no frames.
import { formatExecError } from 'jest-message-util'
import { expect, test } from 'vitest'
import { suiteSetupFailure } from '../../src/jest/errors.js'
import { jestEnergyOptions } from '../../src/jest/options.js'
import { EnergyError } from '../../src/model/index.js'

/** What Jest prints for a file whose environment threw `error` (no colours). */
function printed(error: unknown): string {
  const { message, stack } = error as Error
  const crossed = { message, stack } // jest-runner's testWorker sends these fields
  return formatExecError(crossed, { rootDir: '/p', testMatch: [] }, { noStackTrace: false })
}

const count = (text: string, part: string): number => text.split(part).length - 1

test('a missing globalSetup: the code, message and hint once', () => {
  const missing = new EnergyError({
    code: 'E_JEST_SETUP_MISSING',
    message: 'the vitest-energy test environment ran without its global setup',
    hint: "Add globalSetup: 'vitest-energy/jest-global-setup' to the Jest config.",
  })
  const out = printed(suiteSetupFailure(missing))
  expect(out).toContain('Test suite failed to run')
  expect(out).toContain('[E_JEST_SETUP_MISSING] the vitest-energy test environment ran without')
  expect(count(out, "→ Add globalSetup: 'vitest-energy/jest-global-setup'")).toBe(1)
})

test('a wrong option: E_INVALID_OPTION and its hint once', () => {
  let thrown: unknown
  try {
    jestEnergyOptions({ rootDir: '/p', testEnvironmentOptions: { app: 'x', powr: 'odpm' } })
  } catch (error) {
    thrown = error
  }
  const out = printed(suiteSetupFailure(thrown))
  expect(out).toContain('[E_INVALID_OPTION]')
  expect(out).toContain('did you mean `power`?')
  expect(count(out, '→ In the Jest config, fix')).toBe(1)
})

test('anything unexpected keeps its stack', () => {
  const bug = new TypeError('x is undefined')
  expect(suiteSetupFailure(bug)).toBe(bug)
})
