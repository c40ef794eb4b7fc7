/**
 * Errors about the user's own code point at the user's line. Vitest frames an error at the first
 * stack frame of a module it loaded, and Jest at the first outside node_modules; this package's
 * frames come first in ours, and a setup file of ours is one Vitest loaded. Dropping our frames
 * (and Node's) leaves the user's.
 */
import { fileURLToPath, pathToFileURL } from 'node:url'
import { isEnergyError } from '../model/index.js'

/** This package's code: `src/` from source, `dist/src/` installed. */
const OWN_DIR = fileURLToPath(new URL('..', import.meta.url))
const OWN_URL = pathToFileURL(OWN_DIR).href

/** The stack frames of the caller's callers outside this package: `    at …` lines. */
export function callSite(): string {
  return userFrames(new Error().stack ?? '')
}

/** `error` with its stack replaced by `frames` (from `callSite()`), when there are any. */
export function atCallSite<E extends Error>(error: E, frames: string): E {
  if (frames === '') return error
  error.stack = `${error.name}: ${error.message}\n${frames}`
  Object.defineProperty(error, AT_CALL_SITE, { value: true })
  return error
}

/** Whether the error's stack is the user's call site (reporters keep it; others are noise). */
export function isAtCallSite(error: unknown): boolean {
  return typeof error === 'object' && error !== null && AT_CALL_SITE in error
}

const AT_CALL_SITE = Symbol('vitest-energy.atCallSite')

/** `error` with this package's frames dropped from its stack. */
export function atUserLine<E extends Error>(error: E): E {
  return atCallSite(error, userFrames(error.stack ?? ''))
}

function userFrames(stack: string): string {
  return stack
    .split('\n')
    .filter(
      (line) =>
        /^\s+at /.test(line) &&
        !line.includes(OWN_DIR) &&
        !line.includes(OWN_URL) &&
        !line.includes('(node:') &&
        !/^\s+at node:/.test(line),
    )
    .join('\n')
}

/**
 * An expected failure (an `EnergyError`) is printed without a stack trace — our frames say nothing
 * to the user — unless its stack is the user's call site.
 */
export function expectedError(error: unknown): unknown {
  if (isEnergyError(error) && !isAtCallSite(error)) error.stack = `${error.name}: ${error.message}`
  return error
}
