/**
 * Sample types with their invariants in the type system (tinybench style): a `Samples` tuple is
 * never empty; a `SortedSamples` is also sorted ascending, which only `sortSamples` can certify.
 */
import { EnergyError } from '../model/index.js'
import { StatsErrors } from './errors.js'

/** A non-empty list of finite observations (joules, watts, seconds: the caller's unit). */
export type Samples = [number, ...number[]]

declare const sortedBrand: unique symbol
/** `Samples` sorted ascending. Obtain one with `sortSamples` / `toSortedSamples`. */
export type SortedSamples = Samples & { readonly [sortedBrand]: true }

/**
 * Checks that `values` is non-empty and finite and returns it typed as `Samples` (same array).
 * @throws EnergyError `E_STATS_EMPTY_SAMPLES` or `E_STATS_NON_FINITE`
 */
export function toSamples(values: readonly number[], what = 'samples'): Samples {
  if (values.length === 0) {
    throw new EnergyError({
      code: StatsErrors.EMPTY_SAMPLES,
      message: `${what} is empty`,
      hint: 'Run the measurement at least once before computing statistics.',
    })
  }
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (v === undefined || !Number.isFinite(v)) {
      throw new EnergyError({
        code: StatsErrors.NON_FINITE,
        message: `${what}[${i}] is ${String(v)}, not a finite number`,
        hint: 'Drop failed runs (NaN/Infinity) before computing statistics.',
        details: { index: i },
      })
    }
  }
  return values as Samples
}

/** Sorts `samples` ascending in place and certifies it as `SortedSamples`. */
export function sortSamples(samples: Samples): asserts samples is SortedSamples {
  samples.sort((a, b) => a - b)
}

/** Validated, sorted copy of `values` (the input is not modified). */
export function toSortedSamples(values: readonly number[], what = 'samples'): SortedSamples {
  const copy = [...toSamples(values, what)] as Samples
  sortSamples(copy)
  return copy
}

/** Throws `E_STATS_TOO_FEW_SAMPLES` unless `samples` has at least `min` observations. */
export function requireAtLeast(samples: readonly number[], min: number, what: string): void {
  if (samples.length < min) {
    throw new EnergyError({
      code: StatsErrors.TOO_FEW_SAMPLES,
      message: `${what} needs at least ${min} observations, got ${samples.length}`,
      hint: `Repeat the measurement at least ${min} times (EDATA recommends 20–30 repetitions).`,
      details: { needed: min, got: samples.length },
    })
  }
}

export function invalidArgument(message: string, hint: string): EnergyError {
  return new EnergyError({ code: StatsErrors.INVALID_ARGUMENT, message, hint })
}
