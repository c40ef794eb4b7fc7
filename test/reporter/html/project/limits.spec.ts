// Tests without a budget that check their energy with matchers: each matcher records its limit
// for the test running it, as in a test that uses the `energy` fixture, and the report shows it.
import { afterEach, describe, expect, test } from 'vitest'
import { EnergyRun, RepeatedEnergyRun } from '../../../../src/session/run.js'
import type { TestEnergy } from '../../../../src/session/test-energy.js'
import { measuredTest } from '../../../fixtures/limits/measured-test.js'
import { PIXEL_RAILS, method, window } from './_energy.js'

const TRAILS = 'com.example.trails.TrailList'

describe('trails', () => {
  let energy: TestEnergy | undefined
  afterEach(async ({ task }) => {
    // What the fixture does when the test ends.
    await energy?.abort()
    if (energy !== undefined) task.meta.energy = energy.summary()
    energy = undefined
  })

  test('loading the trails within its limits', () => {
    const w = window({
      label: 'loading the trails',
      at: 50,
      durationS: 2,
      grossEnergyJ: 2.1,
      rails: PIXEL_RAILS,
      methods: [method(`${TRAILS}.load`, 0.3, 0.2)],
    })
    energy = measuredTest(w)
    const run = new EnergyRun(w)
    expect(run).toConsumeLessThan(2.5)
    expect(run).toDrawLessThan(1.5, { scope: 'gross' })
  })

  test('rendering a trail: a method over its limit', () => {
    const w = window({
      label: 'rendering a trail',
      at: 55,
      durationS: 1.5,
      grossEnergyJ: 1.2,
      rails: PIXEL_RAILS,
      methods: [method(`${TRAILS}.render`, 0.25, 0.05)],
    })
    energy = measuredTest(w)
    const run = new EnergyRun(w)
    expect(run).toConsumeLessThan(2)
    expect(run.method('TrailList.render')).toConsumeLessThan(0.2)
  })

  test('opening a trail: a limit on a method that never ran', () => {
    const w = window({
      label: 'opening a trail',
      at: 58,
      durationS: 1,
      grossEnergyJ: 0.9,
      rails: PIXEL_RAILS,
      methods: [method(`${TRAILS}.render`, 0.1, 0.02)],
    })
    energy = measuredTest(w)
    // A typo: no method of that name ran, so the limit has no figure to judge.
    expect(new EnergyRun(w).method('TrailList.opne')).toConsumeLessThan(0.2)
  })

  test('filtering the trails, judged by the mean of 5', () => {
    const windows = [0.081, 0.078, 0.084, 0.08, 0.079].map((net, i) =>
      window({
        label: `filtering #${i + 1}`,
        at: 60 + 2 * i,
        durationS: 1,
        grossEnergyJ: net + 0.25,
        rails: PIXEL_RAILS,
      }),
    )
    energy = measuredTest(...windows)
    expect(new RepeatedEnergyRun(windows)).toConsumeLessThan(0.1)
  })
})
