/**
 * The shared rails' robust rate fit (`robustRate`, src/attribution/_parts.ts: Theil–Sen start,
 * Tukey-bisquare steps) on windows of n sensor intervals: a System-like rail, floor 149 mW plus
 * 47.6 mW per running CPU-second, with ±1 µJ of reading noise. Prints the median time of 5 runs
 * per size; the fit runs once per shared rail and window.
 *
 *   npx tsx bench/robust-rate.ts
 */
import { robustRate } from '../src/attribution/_parts.js'

const RUNS = 5
console.log('command: npx tsx bench/robust-rate.ts')
console.log('| intervals | median of 5 | fitted k (true 47.6 mW) |')
console.log('|---|---|---|')
for (const n of [1_200, 10_000, 100_000]) {
  const dtS = 0.1
  const t = new Float64Array(n).fill(dtS)
  const busyS = Float64Array.from({ length: n }, (_, i) => (dtS * ((i * 7919) % 100)) / 100)
  const energyJ = Float64Array.from(
    { length: n },
    (_, i) => 0.149 * dtS + 0.0476 * (busyS[i] as number) + 1e-6 * Math.sin(i),
  )
  const times: number[] = []
  let k = NaN
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now()
    k = robustRate(t, busyS, energyJ)?.k ?? NaN
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  console.log(
    `| ${n} | ${(times[RUNS >> 1] as number).toFixed(1)} ms | ${(k * 1e3).toFixed(3)} mW |`,
  )
}
