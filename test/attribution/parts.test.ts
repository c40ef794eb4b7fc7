import { describe, expect, test } from 'vitest'
import { runningWeight, type PowerPart } from '../../src/attribution/_parts.js'
import type { CpuSlice } from '../../src/model/samples.js'

/** The weight functions read no curve. */
const part = (cpus?: number[]): PowerPart =>
  ({ curve: undefined, baselinePowerW: 0, ...(cpus === undefined ? {} : { cpus }) }) as never

const slice = (cpu: number, tid: number, startNs: number, endNs: number): CpuSlice => ({
  cpu,
  tid,
  startNs,
  endNs,
})

describe('runningWeight', () => {
  test('a cluster without cpu_frequency data: running time', () => {
    const w = runningWeight(part([0, 1]), [slice(0, 5, 0, 100)])
    expect(w.between(10, 60)).toBe(50)
    expect(w.at(30)).toBe(1)
  })

  test("a cluster with cpu_frequency changes: running time × (f / 1 GHz)², other clusters' changes ignored", () => {
    const frequencies = [
      { cpu: 0, tNs: 100, khz: 500_000 },
      { cpu: 1, tNs: 100, khz: 500_000 },
      { cpu: 4, tNs: 150, khz: 3_000_000 },
      { cpu: 0, tNs: 200, khz: 2_000_000 },
      { cpu: 1, tNs: 200, khz: 2_000_000 },
    ]
    const w = runningWeight(part([0, 1]), [], frequencies)
    // Before the first change the first known frequency stands in.
    expect(w.between(0, 100)).toBeCloseTo(100 * 0.25, 9)
    expect(w.between(150, 250)).toBeCloseTo(50 * 0.25 + 50 * 4, 9)
    expect(w.at(199)).toBe(0.25)
    expect(w.at(200)).toBe(4)
    // A stretch at 2 GHz weighs 16× one of the same length at 500 MHz.
    expect(w.between(200, 300) / w.between(100, 200)).toBeCloseTo(16, 9)
  })

  test('a shared domain: 1/N of the CPUs busy at each moment, whatever the frequencies', () => {
    const slices = [slice(0, 5, 0, 100), slice(4, 6, 50, 100)]
    const w = runningWeight(part(), slices, [{ cpu: 0, tNs: 0, khz: 2_000_000 }])
    expect(w.between(0, 50)).toBe(50)
    expect(w.between(50, 100)).toBe(25)
    expect(w.at(75)).toBe(0.5)
    expect(w.at(150)).toBe(0)
  })
})
