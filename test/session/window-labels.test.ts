// Each energy.measure()/repeat() call of a test gets a label of its own, so two calls are never
// taken for one workload (the budget figure, the reporter's repetition blocks and the baseline
// comparison group windows by label). A scripted phone stands in for the device.
import { expect, test } from 'vitest'
import { buildEnergyReport } from '../../reporter/report.js'
import { plainScreen } from '../../reporter/screen.js'
import { renderTerminal } from '../../reporter/terminal.js'
import type { TestEnergy } from '../../src/session/test-energy.js'
import { scriptedPhoneFields, scriptedWindow, testEnergyOn } from './_scripted-phone.js'

/** Measures whatever is asked, one window at a time: a window's net energy is `netJ(label)`. */
function scriptedPhone(netJ: (label: string) => number) {
  return {
    ...scriptedPhoneFields,
    async measure<T>(label: string, _baseline: unknown, body: () => Promise<T>) {
      const value = await body()
      const result = scriptedWindow(label, 1.3 + netJ(label), 1.3)
      return { result, value, power: undefined as never }
    },
    async abandonWindow() {},
  }
}

function testEnergy(netJ: (label: string) => number): TestEnergy {
  return testEnergyOn(
    scriptedPhone(netJ),
    'low brightness costs less than high',
    'settings.test.ts',
  )
}

const quick = { warmup: 0, settleMs: 0 }

test('a second repeat() with the default label is "(2)": two parts, summed, not a mean of six', async () => {
  // The bright screen's repetitions draw 0.6 J above idle, the dark screen's 0.2 J below.
  const energy = testEnergy((label) => (label.includes('(2)') ? -0.2 : 0.6))
  try {
    const high = await energy.api.repeat(3, () => undefined, quick)
    const low = await energy.api.repeat(3, () => undefined, quick)
    expect(high.energyRuns.map((r) => r.label)).toEqual([
      'low brightness costs less than high #1',
      'low brightness costs less than high #2',
      'low brightness costs less than high #3',
    ])
    expect(low.energyRuns.map((r) => r.label)).toEqual([
      'low brightness costs less than high (2) #1',
      'low brightness costs less than high (2) #2',
      'low brightness costs less than high (2) #3',
    ])
  } finally {
    await energy.abort()
  }
  const report = buildEnergyReport([
    {
      file: 'settings.test.ts',
      name: 'low brightness costs less than high',
      state: 'passed',
      errors: [],
      results: energy.summary().results,
    },
  ])
  const [t] = report.tests
  expect(t?.netEnergyJ).toBeCloseTo(3 * 0.6 - 3 * 0.2, 9)
  expect(t?.budgetFigure?.valueJ, 'the sum of the two means').toBeCloseTo(0.6 - 0.2, 9)
  expect(t?.budgetFigure?.n).toBe(3)
  const out = renderTerminal(report, plainScreen, { verbose: true })
  expect(out).toContain('(sum of 2 windows, repetitions as their mean)')
})

test('labels given or defaulted, measure() or repeat(): every call distinct, the first as asked', async () => {
  const energy = testEnergy(() => 0.1)
  try {
    const labels = [
      (await energy.api.measure(() => undefined)).energyResult.label,
      (await energy.api.measure(() => undefined)).energyResult.label,
      (await energy.api.measure(() => undefined, { label: 'scroll' })).energyResult.label,
      (await energy.api.repeat(2, () => undefined, { ...quick, label: 'scroll' })).energyRuns[0]
        ?.label,
      (await energy.api.measure(() => undefined, { label: 'scroll (2)' })).energyResult.label,
    ]
    expect(labels).toEqual([
      'low brightness costs less than high',
      'low brightness costs less than high (2)',
      'scroll',
      'scroll (2) #1',
      'scroll (2) (2)',
    ])
    expect(new Set(energy.results.map((r) => r.label.replace(/ #\d+$/, ''))).size).toBe(5)
  } finally {
    await energy.abort()
  }
})
