/**
 * Linear-time check for parsers, without a wall-clock threshold: time the parser on an input of
 * size n and on one of size `factor`·n (each the best of a few rounds, each round repeated until it
 * lasts long enough to time) and compare. A linear parser's ratio is near `factor` (16); a
 * quadratic one's near `factor`² (256). The check fails above 4·`factor`, so timer noise and a
 * shared machine have room, and a quadratic parser does not. Used by the dumpsys, meter,
 * power-profile and perfetto tests.
 */
import { performance } from 'node:perf_hooks'
import { expect } from 'vitest'

const MIN_ROUND_MS = 20

/** Mean ms per call of `run(input)`, over as many calls as fit in one timed round. */
function perCallMs(input: unknown, run: (input: never) => unknown): number {
  let calls = 0
  const start = performance.now()
  let elapsed = 0
  do {
    run(input as never)
    calls++
    elapsed = performance.now() - start
  } while (elapsed < MIN_ROUND_MS)
  return elapsed / calls
}

/**
 * Asserts that `run` (a parse that succeeds or throws; throwing counts as done) costs time
 * proportional to the size of what `make(n)` builds. `n` must be large enough that a quadratic
 * parser's extra work dominates at size n already (thousands of characters).
 */
export function expectLinear<T>(
  make: (n: number) => T,
  run: (input: T) => unknown,
  n: number,
  factor = 16,
): void {
  const quiet = (input: T): void => {
    try {
      run(input)
    } catch {
      // a refusal is an outcome too; only the time matters here
    }
  }
  const small = make(n)
  const large = make(n * factor)
  quiet(small) // warm up (JIT)
  let best = Number.POSITIVE_INFINITY
  for (let round = 0; round < 3 && best > 4 * factor; round++) {
    const ratio = perCallMs(large, quiet) / perCallMs(small, quiet)
    best = Math.min(best, ratio)
  }
  expect(best, `time(${factor}·n) / time(n) for n = ${n}`).toBeLessThan(4 * factor)
}
