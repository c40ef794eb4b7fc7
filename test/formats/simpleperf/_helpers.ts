import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'
import { EnergyError } from '../../../src/model/errors.js'

export function fixture(path: string): Buffer {
  return readFileSync(fileURLToPath(new URL(`../../fixtures/${path}`, import.meta.url)))
}

export function fixtureText(path: string): string {
  return fixture(path).toString('utf8')
}

/** Run `fn`, require an EnergyError with `code`, and return it for further checks. */
export function expectEnergyError(fn: () => unknown, code: string): EnergyError {
  let caught: unknown
  try {
    fn()
  } catch (error) {
    caught = error
  }
  expect(caught, `expected ${code}`).toBeInstanceOf(EnergyError)
  const error = caught as EnergyError
  expect(error.code).toBe(code)
  expect(error.hint.length).toBeGreaterThan(10)
  return error
}
