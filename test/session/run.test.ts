// A run's energy as a test reads it: `netEnergyJ` keeps what an earlier test left on, and
// `ownEnergyJ` is what the matchers judge, so a hand-written assertion can agree with them.
import { expect, test } from 'vitest'
import { energyMatchers } from '../../matchers/index.js'
import { measuredResult, type MeasuredEnergyResult } from '../../src/model/index.js'
import { EnergyRun, RepeatedEnergyRun } from '../../src/session/run.js'

expect.extend(energyMatchers)

function result(carriedOverJ?: number): MeasuredEnergyResult {
  return measuredResult({
    label: 'opening the map',
    window: { clock: 'boottime', startNs: 0, endNs: 2_000_000_000 },
    grossEnergyJ: 1.4,
    baselinePowerW: 0.2, // net 1.0 J
    components: [{ component: 'cpu', energyJ: 1.4 }],
    rails: [],
    methods: [],
    sources: { power: 'odpm', execution: 'simpleperf', sampleCount: 40, sensorRateHz: 20 },
    ...(carriedOverJ === undefined ? {} : { carriedOverJ }),
  })
}

test('ownEnergyJ leaves out what an earlier test left on, as the matchers do', () => {
  const run = new EnergyRun(result(0.3))
  expect(run.netEnergyJ).toBeCloseTo(1.0, 9)
  expect(run.carriedOverJ).toBeCloseTo(0.3, 9)
  expect(run.ownEnergyJ).toBeCloseTo(0.7, 9)
  // The matcher's verdict and the getter agree: 0.8 J is over the net but not over the own.
  expect(run).toConsumeLessThan(0.8)
  expect(run.netEnergyJ).toBeGreaterThan(0.8)
})

test('with nothing left on, own and net are the same; repetitions give each', () => {
  const plain = new EnergyRun(result())
  expect(plain.carriedOverJ).toBe(0)
  expect(plain.ownEnergyJ).toBe(plain.netEnergyJ)
  const runs = new RepeatedEnergyRun([result(0.3), result()])
  expect(runs.netEnergiesJ.map((j) => j.toFixed(3))).toEqual(['1.000', '1.000'])
  expect(runs.ownEnergiesJ.map((j) => j.toFixed(3))).toEqual(['0.700', '1.000'])
})
