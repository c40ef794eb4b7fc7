/**
 * Test failures as the report shows them: the whole message (every line, so a matcher's
 * explanation is not cut to its `expect(received)…` line), without ANSI codes or stack frames.
 */
import { stripVTControlCharacters } from 'node:util'
import type { ReportedFailure } from './report.js'

/** What the reporter reads of an error: Vitest's serialized errors, Jest's, or a thrown value. */
export interface ErrorLike {
  readonly message?: unknown
  readonly name?: unknown
  readonly code?: unknown
}

/** Names that add nothing to the message (an EnergyError's message starts with its code). */
const PLAIN_NAMES = new Set(['Error', 'AssertionError', 'EnergyError'])

/** A stack frame line: `    at fn (file:1:2)` or `    at file:1:2`. */
const STACK_FRAME = /^\s+at (?:.*\(.*\)|\S+:\d+:\d+)$/

/** The message without ANSI codes, stack frames or trailing blank lines. */
export function cleanMessage(text: string): string {
  return stripVTControlCharacters(text)
    .split(/\r?\n/)
    .filter((line) => !STACK_FRAME.test(line))
    .join('\n')
    .trimEnd()
}

/** The error's whole message, `TypeError: …` when its name says something the message does not. */
export function failureMessage(error: unknown): string {
  const e = asErrorLike(error)
  const message = cleanMessage(typeof e.message === 'string' ? e.message : String(error))
  const name = typeof e.name === 'string' ? e.name : ''
  if (name === '' || PLAIN_NAMES.has(name) || message.startsWith(name)) return message || name
  return message === '' ? name : `${name}: ${message}`
}

/** The error as a report failure, with its code when it is an EnergyError (or looks like one). */
export function reportedFailure(error: unknown, suite?: string): ReportedFailure {
  const e = asErrorLike(error)
  const code =
    typeof e.code === 'string' && (e.name === 'EnergyError' || /^E_[A-Z0-9_]+$/.test(e.code))
      ? e.code
      : undefined
  return {
    message: failureMessage(error),
    ...(code === undefined ? {} : { code }),
    ...(suite === undefined ? {} : { suite }),
  }
}

function asErrorLike(error: unknown): ErrorLike {
  return typeof error === 'object' && error !== null ? error : {}
}
