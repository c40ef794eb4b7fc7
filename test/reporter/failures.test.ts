// How failures read in the report: whole messages, no ANSI codes, no stack frames.
import { expect, test } from 'vitest'
import { cleanMessage, failureMessage, reportedFailure } from '../../reporter/failures.js'
import { EnergyError } from '../../src/model/index.js'

test('a message keeps every line, loses ANSI codes and stack frames', () => {
  expect(
    cleanMessage(
      '\u001b[31mexpect(received)\u001b[39m.toConsumeLessThan(400 mJ)\n\nmethod did not run\n' +
        '    at Object.<anonymous> (/app/feed.test.mjs:14:20)\n    at /app/node_modules/x.js:1:2\n',
    ),
  ).toBe('expect(received).toConsumeLessThan(400 mJ)\n\nmethod did not run')
  expect(cleanMessage('Expected: at most 2 J\n  at least one sample')).toBe(
    'Expected: at most 2 J\n  at least one sample',
  )
})

test('the error name is kept when it says something: TypeError, not Error or AssertionError', () => {
  expect(failureMessage({ name: 'TypeError', message: 'x is not a function' })).toBe(
    'TypeError: x is not a function',
  )
  expect(failureMessage({ name: 'AssertionError', message: 'expected 6 to be less than 5' })).toBe(
    'expected 6 to be less than 5',
  )
  expect(failureMessage({ name: 'Error', message: '' })).toBe('Error')
  expect(failureMessage('thrown string')).toBe('thrown string')
})

test("an EnergyError's code is kept; other codes (ENOENT) are not", () => {
  const error = new EnergyError({ code: 'E_NO_DEVICE', message: 'no phone', hint: 'Plug one in.' })
  expect(reportedFailure(error)).toEqual({
    message: '[E_NO_DEVICE] no phone\n  → Plug one in.',
    code: 'E_NO_DEVICE',
  })
  // As Vitest serializes it for the main process: a plain object.
  expect(
    reportedFailure(
      JSON.parse(JSON.stringify({ ...error, name: 'EnergyError', message: error.message })),
    ).code,
  ).toBe('E_NO_DEVICE')
  expect(reportedFailure({ name: 'Error', code: 'ENOENT', message: 'no such file' })).toEqual({
    message: 'no such file',
  })
  expect(reportedFailure({ message: 'could not log in' }, 'login')).toEqual({
    message: 'could not log in',
    suite: 'login',
  })
})
