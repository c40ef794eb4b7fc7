import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { expect } from 'vitest'
import { EnergyError } from '../../../src/model/errors.js'

/**
 * The shared corpus next to the checkout (`../shared/corpus`, PROVENANCE.md §7): real files
 * under MPL-2.0 among them, read in place rather than copied into test/fixtures.
 */
export const SHARED_CORPUS = join(import.meta.dirname, '../../../../shared/corpus/4_simpleperf')
export const hasSharedCorpus = existsSync(SHARED_CORPUS)

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

/** A way to cut an input: at random offsets, or into chunks of cycling random sizes. */
export interface Split {
  readonly cuts?: readonly number[]
  readonly sizes?: readonly number[]
}

export const splits: fc.Arbitrary<Split> = fc.oneof(
  fc.record({ cuts: fc.array(fc.nat(), { maxLength: 12 }) }),
  fc.record({
    sizes: fc.array(fc.integer({ min: 1, max: 70_000 }), { minLength: 1, maxLength: 6 }),
  }),
)

/** The pieces of a string or byte array cut as `split` says (shared with the ART trace tests). */
export function* cut<T extends { readonly length: number; slice(from: number, to?: number): T }>(
  input: T,
  split: Split,
): Generator<T> {
  if (split.cuts !== undefined) {
    const at = [...new Set(split.cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b)
    let from = 0
    for (const to of [...at, input.length]) {
      yield input.slice(from, to)
      from = to
    }
    return
  }
  const sizes = split.sizes ?? [input.length]
  for (let from = 0, i = 0; from < input.length; i++) {
    const size = sizes[i % sizes.length] ?? 1
    yield input.slice(from, from + size)
    from += size
  }
}
