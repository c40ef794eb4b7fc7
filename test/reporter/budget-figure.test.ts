// A repeated test is judged by the mean of its repetitions (src/budgets/figure.ts): the terminal,
// JSON and markdown show that figure, with its 95% interval and n, beside the budget.
import { readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { htmlData } from '../../reporter/html/data.js'
import { renderJson } from '../../reporter/json.js'
import { renderMarkdown } from '../../reporter/markdown.js'
import { buildEnergyReport, type EnergyReport, type ReportEntry } from '../../reporter/report.js'
import { plainScreen } from '../../reporter/screen.js'
import { formatBudgetFigure, renderTerminal } from '../../reporter/terminal.js'
import { repetitionGroups, testBudgetFigure, type BudgetFile } from '../../src/budgets/index.js'
import { measuredResult, type MeasuredEnergyResult } from '../../src/model/index.js'

function window(label: string, netEnergyJ: number): MeasuredEnergyResult {
  return measuredResult({
    label,
    window: { clock: 'boottime', startNs: 0, endNs: 3e8 },
    grossEnergyJ: netEnergyJ,
    baselinePowerW: 0,
    components: [],
    rails: [],
    methods: [],
    sources: { power: 'odpm', sampleCount: 3 },
    warnings: [],
  })
}

// Five repetitions of 13.9 mJ on average: deviations ±0.4, ±0.2, 0 mJ give s² = 0.1 mJ², so the
// t interval is 13.9 ± 2.776 · √(0.1/5) = 13.9 ± 0.39 mJ.
const scrolls = [13.5, 13.9, 14.3, 13.7, 14.1].map((mJ, i) =>
  window(`scrolling the feed #${i + 1}`, mJ / 1000),
)
const entries: ReportEntry[] = [
  {
    file: 'feed.test.ts',
    name: 'scrolling the feed',
    state: 'passed',
    results: scrolls,
    errors: [],
  },
  {
    file: 'feed.test.ts',
    name: 'scrolling, no budget',
    state: 'passed',
    results: scrolls,
    errors: [],
  },
  {
    file: 'feed.test.ts',
    name: 'opening the feed',
    state: 'passed',
    results: [window('opening the feed', 2)],
    errors: [],
  },
  {
    file: 'feed.test.ts',
    name: 'one window, no budget',
    state: 'passed',
    results: [window('one', 1)],
    errors: [],
  },
]
const budgets: BudgetFile = {
  schemaVersion: 1,
  tests: {
    'feed.test.ts': {
      'scrolling the feed': { '*': { energyJ: 0.016 } },
      'opening the feed': { '*': { energyJ: 2.2 } },
    },
  },
}
const report = buildEnergyReport(entries, { budgets: { file: budgets, path: 'b.json' } })
const byName = (name: string) => report.tests.find((t) => t.name === name)!

test('the JSON keeps netEnergyJ the sum of every window and adds the figure the budget checked', () => {
  const t = byName('scrolling the feed')
  expect(t.netEnergyJ, 'sum of the 5 repetitions').toBeCloseTo(0.0695, 12)
  expect(t.budgetFigure?.valueJ, 'mean').toBeCloseTo(0.0139, 12)
  expect(t.budgetFigure?.n).toBe(5)
  expect(t.budgetFigure?.intervalJ?.level).toBe(0.95)
  expect(t.budgetFigure?.intervalJ?.low, 'mean − t·s/√n').toBeCloseTo(0.0139 - 0.0003926, 6)
  expect(t.budgetFigure?.intervalJ?.high, 'mean + t·s/√n').toBeCloseTo(0.0139 + 0.0003926, 6)
  expect(t.budget).toEqual({
    energyJ: 0.016,
    device: '*',
    valueJ: t.budgetFigure?.valueJ,
    verdict: 'within',
  })
  // Repetitions without a budget still show their figure; one window with a budget shows it too;
  // one window without a budget has nothing to add to netEnergyJ.
  expect(byName('scrolling, no budget').budgetFigure?.n).toBe(5)
  expect(byName('scrolling, no budget').budget).toBeUndefined()
  expect(byName('opening the feed').budgetFigure).toEqual({ valueJ: 2, n: 1 })
  expect(byName('one window, no budget').budgetFigure).toBeUndefined()
})

test('the JSON validates against the schema, and the schema rejects a malformed figure', () => {
  const schema = JSON.parse(
    readFileSync(new URL('../../reporter/energy-report.schema.json', import.meta.url), 'utf8'),
  ) as object
  const validate = new Ajv({ allErrors: true, strict: true }).compile(schema)
  const json = JSON.parse(renderJson(report)) as EnergyReport
  expect(validate(json), JSON.stringify(validate.errors)).toBe(true)
  const broken = {
    ...json,
    tests: json.tests.map((t) => ({ ...t, budgetFigure: { valueJ: 1, n: 0 } })),
  }
  expect(validate(broken)).toBe(false)
})

test('the terminal row shows the mean with its interval and n beside the budget', () => {
  const lines = renderTerminal(report, plainScreen).split('\n')
  const row = (name: string): string => lines.find((l) => l.includes(` ${name} `)) ?? ''
  expect(row('scrolling the feed')).toMatch(
    /✓ scrolling the feed +· +69\.5 mJ net .* {2}13\.9 mJ ± 393 µJ \(mean of 5\) {2}87% of budget 16\.0 mJ ✓$/,
  )
  expect(row('scrolling, no budget')).toMatch(/ {2}13\.9 mJ ± 393 µJ \(mean of 5\)$/)
  expect(row('opening the feed')).toMatch(/ {2}2\.00 J {2}91% of budget 2\.20 J ✓$/)
  expect(row('one window, no budget')).toMatch(/ 1\.00 J net \(1\.00 J gross\)$/)
  const verbose = renderTerminal(report, plainScreen, { verbose: true }).split('\n')
  expect(verbose.find((l) => l.includes(' one window, no budget '))).toMatch(/ 300 ms$/)
})

test('the markdown table has a budget figure column', () => {
  const md = renderMarkdown(report)
  expect(md).toContain('| duration | budget figure | budget / limit |')
  expect(md).toContain(
    '| ✅ | feed.test.ts › scrolling the feed | 69.5 mJ | 69.5 mJ | 46.3 mW | 1.50 s | 13.9 mJ ± 393 µJ (mean of 5) | 16.0 mJ ✅ |',
  )
  expect(md).toContain(
    '| ✅ | feed.test.ts › one window, no budget | 1.00 J | 1.00 J | 3.33 W | 300 ms | – | – |',
  )
})

test("the figure: ± its half-width in that width's own unit when symmetric, a range when not, n over repetitions", () => {
  const i = (low: number, high: number) => ({ low, high, level: 0.95 })
  expect(formatBudgetFigure({ valueJ: 0.0139, intervalJ: i(0.0133, 0.0145), n: 5 })).toBe(
    '13.9 mJ ± 600 µJ (mean of 5)',
  )
  expect(formatBudgetFigure({ valueJ: 2, intervalJ: i(1.95, 2.05), n: 1 })).toBe('2.00 J ± 50 mJ')
  expect(formatBudgetFigure({ valueJ: 2, intervalJ: i(1.9999, 2.0001), n: 3 }), 'tiny').toBe(
    '2.00 J ± 100 µJ (mean of 3)',
  )
  expect(formatBudgetFigure({ valueJ: 2, intervalJ: i(1.8, 2.1), n: 1 })).toBe(
    '2.00 J (95% 1.80 J – 2.10 J)',
  )
  expect(formatBudgetFigure({ valueJ: 0.5, n: 1 })).toBe('500 mJ')
})

test('without a budget, the markdown row shows the matcher limit the terminal row shows', () => {
  const check = (limit: number, passed: boolean) =>
    ({
      matcher: 'toConsumeLessThan',
      negated: false,
      comparison: '<',
      limit,
      unit: 'J',
      scope: 'net',
      value: 1,
      n: 1,
      verdict: passed ? 'within' : 'over',
      passed,
    }) as const
  const limited = buildEnergyReport([
    {
      file: 'feed.test.ts',
      name: 'within its limit',
      state: 'passed',
      results: [window('a', 1)],
      limits: [check(4, true), check(2, true)],
      errors: [],
    },
    {
      file: 'feed.test.ts',
      name: 'over its limit',
      state: 'failed',
      results: [window('b', 1)],
      limits: [check(0.5, false)],
      errors: [],
    },
  ])
  const md = renderMarkdown(limited)
  // The most used of two passing limits, and how many more there are ('<' escaped for HTML).
  expect(md).toContain('| 50% of limit &lt; 2.00 J ✅ (+1 limit) |')
  expect(md).toContain('| 200% of limit &lt; 500 mJ ❌ over |')
})

test('a limit on a method that did not run names the method and says there was no figure', () => {
  const missing = {
    matcher: 'toConsumeLessThan',
    negated: false,
    comparison: '<',
    limit: 0.4,
    unit: 'J',
    scope: 'inclusive',
    n: 1,
    verdict: 'unjudgeable',
    passed: false,
    target: { kind: 'method', label: 'FeedAdaptor.bind' },
    reason: "method 'FeedAdaptor.bind' did not run (or was never sampled) in 'typo'",
  } as const
  const report = buildEnergyReport([
    {
      file: 'feed.test.ts',
      name: 'typo',
      state: 'failed',
      results: [window('typo', 1)],
      limits: [missing],
      errors: [],
    },
  ])
  const row = renderTerminal(report, plainScreen)
    .split('\n')
    .find((l) => l.includes(' typo '))
  expect(row).toMatch(/FeedAdaptor\.bind: limit < 400 mJ ✗ no figure$/)
  expect(renderMarkdown(report)).toContain('| FeedAdaptor.bind: limit &lt; 400 mJ ❌ no figure |')
})

// Two energy.repeat() calls with the same label (the test's name) are two workloads: summed, each
// as its mean, never one mean of six.
test('two repeat() calls with the same label are two parts of the figure, summed', () => {
  const high = [0.61, 0.62, 0.63].map((j, i) => window(`brightness #${i + 1}`, j))
  const low = [-0.21, -0.2, -0.19].map((j, i) => window(`brightness #${i + 1}`, j))
  const figure = testBudgetFigure([...high, ...low])
  expect(figure?.parts).toBe(2)
  expect(figure?.n).toBe(3)
  expect(figure?.valueJ).toBeCloseTo(0.62 - 0.2, 12)
  const report = buildEnergyReport([
    {
      file: 'b.test.ts',
      name: 'brightness',
      state: 'passed',
      results: [...high, ...low],
      errors: [],
    },
  ])
  expect(report.tests[0]?.budgetFigure?.valueJ).toBeCloseTo(0.42, 12)
  const out = renderTerminal(report, plainScreen)
  expect(out).toMatch(/420 mJ ± [\d.]+ mJ \(sum of 2 windows, repetitions as their mean\)/)
  expect(out).not.toContain('mean of 6')
  // A measure() after a repeat(): two parts too.
  const mixed = testBudgetFigure([...high, window('brightness', 1)])
  expect(mixed).toMatchObject({ parts: 2, n: 3 })
  expect(mixed?.valueJ).toBeCloseTo(1.62, 12)
})

test('repetition groups: in order, one label each, numbers rising; another #1 starts a group', () => {
  const label = fc.oneof(
    fc.constantFrom('a', 'b', 'a (2)'),
    fc
      .tuple(fc.constantFrom('a', 'b'), fc.integer({ min: 1, max: 4 }))
      .map(([b, k]) => `${b} #${k}`),
  )
  fc.assert(
    fc.property(fc.array(label, { maxLength: 12 }), (labels) => {
      const windows = labels.map((l) => ({ label: l }))
      const groups = repetitionGroups(windows)
      expect(groups.flat()).toEqual(windows)
      for (const g of groups) {
        const parsed = g.map((w) => /^(.*) #(\d+)$/.exec(w.label))
        if (g.length > 1) {
          expect(new Set(parsed.map((m) => m?.[1])).size).toBe(1)
          const ks = parsed.map((m) => Number(m?.[2]))
          for (let i = 1; i < ks.length; i++) expect(ks[i]).toBeGreaterThan(ks[i - 1] ?? Infinity)
        }
        expect(parsed.every((m) => m !== null) || g.length === 1).toBe(true)
      }
    }),
  )
  const labels = ['x #1', 'x #2', 'x #1', 'x #2', 'y', 'y']
  expect(repetitionGroups(labels.map((label) => ({ label }))).map((g) => g.length)).toEqual([
    2, 2, 1, 1,
  ])
})

test("the HTML report's data says how many windows a figure sums", () => {
  const high = [0.61, 0.62, 0.63].map((j, i) => window(`brightness #${i + 1}`, j))
  const low = [-0.21, -0.2, -0.19].map((j, i) => window(`brightness (2) #${i + 1}`, j))
  const two = buildEnergyReport([
    { file: 'b.test.ts', name: 'two', state: 'passed', results: [...high, ...low], errors: [] },
    { file: 'b.test.ts', name: 'one', state: 'passed', results: high, errors: [] },
  ])
  const [both, one] = htmlData(two).tests
  expect(both?.budgetFigure).toMatchObject({ n: 3, parts: 2 })
  expect(one?.budgetFigure).toMatchObject({ n: 3 })
  expect(one?.budgetFigure && 'parts' in one.budgetFigure, 'one part: not said').toBe(false)
})

test("a budget figure leaves out what another test left on, as the matchers' net does", () => {
  const own = window('syncing', 1.2)
  const interval = { low: 1.1, high: 1.3, level: 0.95 }
  const carried: MeasuredEnergyResult = { ...own, netIntervalJ: interval, carriedOverJ: 0.5 }
  expect(testBudgetFigure([carried])).toMatchObject({
    valueJ: 1.2 - 0.5,
    intervalJ: { low: 1.1 - 0.5, high: 1.3 - 0.5 },
  })
  // Repetitions too: each one's own energy.
  const reps = [1.0, 1.1, 1.2].map((j, i) => ({ ...window(`r #${i + 1}`, j), carriedOverJ: 0.1 }))
  expect(testBudgetFigure(reps)?.valueJ).toBeCloseTo(1.0, 12)
})
