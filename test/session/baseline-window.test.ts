// energy.baseline() measures the idle phone as the reference for the test's later windows: its
// window is listed with the test's windows, but it is not the test's work, so neither the budget
// figure nor the test's net energy (the terminal's row, the report's totals) counts it.
import { readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import { expect, test } from 'vitest'
import { renderJson } from '../../reporter/json.js'
import { buildEnergyReport, type EnergyReport } from '../../reporter/report.js'
import { plainScreen } from '../../reporter/screen.js'
import { renderTerminal } from '../../reporter/terminal.js'
import { testBudgetFigure } from '../../src/budgets/index.js'
import type { PowerData } from '../../src/collectors/index.js'
import { scriptedPhoneFields, scriptedWindow, testEnergyOn } from './_scripted-phone.js'

/** Idles at 1.55 W during the test's baseline window, 0.25 W above the run's idle level of 1.3 W. */
function scriptedPhone(netJ: (label: string) => number) {
  const baselines: unknown[] = []
  const phone = {
    ...scriptedPhoneFields,
    async measure<T>(label: string, baseline: unknown, body: () => Promise<T>) {
      baselines.push(baseline)
      const value = await body()
      const result = scriptedWindow(label, 1.3 + netJ(label), 1.3)
      const power: PowerData = {
        kind: 'series',
        series: {
          kind: 'instant',
          source: 'fuel-gauge',
          clock: 'boottime',
          samples: [0, 0.25, 0.5, 0.75, 1].map((s) => ({
            tNs: s * 1e9,
            powerW: result.grossEnergyJ / result.durationS,
          })),
        },
        warnings: [],
      }
      return { result, value, power }
    },
    async abandonWindow() {},
  }
  return { phone, baselines }
}

test('the idle baseline window is listed, and counted neither in the budget figure nor in the test’s net energy', async () => {
  const { phone, baselines } = scriptedPhone((label) => (label === 'idle baseline' ? 0.25 : 0.6))
  const energy = testEnergyOn(phone, 'scrolling the feed', 'feed.test.ts')
  try {
    const idle = await energy.api.baseline({ durationMs: 0 })
    expect(idle.energyResult.netEnergyJ).toBeCloseTo(0.25, 9)
    await energy.api.measure(() => undefined, { label: 'scroll' })
  } finally {
    await energy.abort()
  }
  // The window after it is judged against the idle level the baseline measured.
  expect(baselines[1]).toEqual({ kind: 'configured', powerW: expect.closeTo(1.55, 9) })
  const results = energy.summary().results
  expect(results.map((r) => r.label)).toEqual(['idle baseline', 'scroll'])
  expect(testBudgetFigure(results)?.valueJ, 'the budget figure: scroll alone').toBeCloseTo(0.6, 9)
  expect(testBudgetFigure(results)?.parts).toBe(1)
  const report = buildEnergyReport(
    [{ file: 'feed.test.ts', name: 'scrolling the feed', state: 'passed', errors: [], results }],
    {
      budgets: {
        file: {
          schemaVersion: 1,
          tests: { 'feed.test.ts': { 'scrolling the feed': { '*': { energyJ: 1 } } } },
        },
        path: 'energy-budgets.json',
      },
    },
  )
  const [t] = report.tests
  expect(t?.netEnergyJ, 'the test’s net energy: scroll alone').toBeCloseTo(0.6, 9)
  expect(t?.grossEnergyJ).toBeCloseTo(1.9, 9)
  expect(t?.durationS).toBe(1)
  expect(t?.budget?.valueJ).toBeCloseTo(0.6, 9)
  expect(report.summary.totalNetEnergyJ).toBeCloseTo(0.6, 9)
  expect(report.summary.measuredWindows, 'still a measured window of the run').toBe(2)
  const row = renderTerminal(report, plainScreen)
    .split('\n')
    .find((l) => l.includes(' scrolling the feed '))
  expect(row, 'one window of work: no sum of parts').toMatch(
    / 600 mJ net \(1\.90 J gross\) {2}600 mJ {2}60% of budget 1\.00 J ✓$/,
  )
  const schema = JSON.parse(
    readFileSync(new URL('../../reporter/energy-report.schema.json', import.meta.url), 'utf8'),
  ) as object
  const validate = new Ajv({ allErrors: true, strict: true }).compile(schema)
  const json = JSON.parse(renderJson(report)) as EnergyReport
  expect(json.tests[0]?.results[0]).toMatchObject({ label: 'idle baseline', idleBaseline: true })
  expect(validate(json), JSON.stringify(validate.errors)).toBe(true)
})

test('a test that only measures the idle phone has no budget figure', async () => {
  const { phone } = scriptedPhone(() => 0.02)
  const energy = testEnergyOn(phone, 'an idle phone draws less than 2 W', 'settings.test.ts')
  try {
    await energy.api.baseline({ durationMs: 0 })
  } finally {
    await energy.abort()
  }
  const results = energy.summary().results
  expect(results).toHaveLength(1)
  expect(testBudgetFigure(results)).toBeUndefined()
})
