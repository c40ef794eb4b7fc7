// Invariants of the pure report builder, over random runs (fast-check).
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { renderMarkdown } from '../../reporter/markdown.js'
import { buildEnergyReport, measuredWindows, type ReportEntry } from '../../reporter/report.js'
import {
  budgetFromMeasurement,
  testBudgetFigure,
  type BudgetFile,
} from '../../src/budgets/index.js'
import { measuredResult, workWindows, type EnergyResult } from '../../src/model/index.js'

const windowArb = fc
  .record({
    label: fc.constantFrom('w', 'w #1', 'w #2', 'x'),
    grossEnergyJ: fc.double({ min: 0, max: 50, noNaN: true }),
    failed: fc.boolean(),
    // energy.baseline()'s window: listed, not summed.
    idle: fc.boolean(),
    // What a radio or the GPS another test left on drew in the window: not the test's own.
    carriedOverJ: fc.option(fc.double({ min: 0, max: 50, noNaN: true }), { nil: undefined }),
  })
  .map(({ label, grossEnergyJ, failed, idle, carriedOverJ }): EnergyResult =>
    failed
      ? {
          schemaVersion: 1,
          status: 'failed',
          label,
          error: { code: 'E_X', message: 'x', hint: 'y' },
          warnings: [],
        }
      : measuredResult({
          label,
          window: { clock: 'boottime', startNs: 0, endNs: 1e9 },
          grossEnergyJ,
          baselinePowerW: 0.5,
          components: [],
          rails: [],
          methods: [],
          sources: { power: 'odpm', sampleCount: 10 },
          warnings: [],
          ...(idle ? { label: 'idle baseline', idleBaseline: true as const } : {}),
          ...(carriedOverJ === undefined ? {} : { carriedOverJ }),
        }),
  )

const entriesArb = fc.uniqueArray(
  fc.record({
    file: fc.constantFrom('a.test.ts', 'b.test.ts'),
    name: fc.string({ maxLength: 12 }),
    state: fc.constantFrom('passed' as const, 'failed' as const),
    results: fc.array(windowArb, { maxLength: 4 }),
    errors: fc.constant([] as string[]),
    budgetRequested: fc.boolean(),
  }),
  { selector: (e) => `${e.file}\u0000${e.name}`, maxLength: 15 },
)

test('totals are the sums of the tests; budget verdicts account for every measured test', () => {
  fc.assert(
    fc.property(entriesArb, fc.double({ min: 0, max: 100, noNaN: true }), (entries, budgetJ) => {
      const tests: Record<string, Record<string, Record<string, { energyJ: number }>>> = {}
      entries.forEach((e, i) => {
        if (i % 2 === 0) (tests[e.file] ??= {})[e.name] = { '*': { energyJ: budgetJ } }
      })
      const file: BudgetFile = { schemaVersion: 1, tests }
      const report = buildEnergyReport(entries as ReportEntry[], {
        budgets: { file, path: 'b.json' },
      })
      const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0)
      expect(report.summary.totalNetEnergyJ).toBeCloseTo(
        sum(report.tests.map((t) => t.netEnergyJ)),
        9,
      )
      for (const t of report.tests)
        expect(t.netEnergyJ, 'the idle baseline window is not the test’s work').toBeCloseTo(
          sum(measuredWindows(t).flatMap((w) => (w.idleBaseline === true ? [] : [w.netEnergyJ]))),
          9,
        )
      expect(report.tests.length).toBe(entries.length)
      for (const t of report.tests)
        expect(t.noEnergyReason === undefined, 'a reason exactly when nothing was measured').toBe(
          measuredWindows(t).length > 0,
        )
      expect(sum(Object.values(report.summary.states))).toBe(entries.length)
      const measured = report.tests.filter((t) => measuredWindows(t).length > 0)
      const b = report.budgets!
      const judged = measured.filter((t) => t.budget !== undefined)
      expect(b.within + b.over + b.inconclusive).toBe(judged.length)
      // Without a budget counts only what -u would write: tests that asked, above their noise.
      const writable = entries.filter((e, i) => {
        const f = testBudgetFigure(e.results)
        const above = f !== undefined && f.valueJ > 0 && (f.intervalJ?.low ?? 1) > 0
        return e.budgetRequested && above && report.tests[i]?.budget === undefined
      })
      expect(b.missing).toBe(writable.length)
      for (const t of report.tests) {
        if (t.budget?.verdict === 'within') expect(t.budget.valueJ).toBeLessThanOrEqual(budgetJ)
        if (t.budget?.verdict === 'over') expect(t.budget.valueJ).toBeGreaterThan(budgetJ)
      }
    }),
  )
})

test('the hungriest tests are those with the most energy of their own, not of another test, above idle', () => {
  fc.assert(
    fc.property(entriesArb, (entries) => {
      const report = buildEnergyReport(entries as ReportEntry[])
      const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0)
      for (const t of report.tests)
        expect(t.ownEnergyJ, 'net without what another test left on').toBeCloseTo(
          t.netEnergyJ - sum(workWindows(t.results).map((w) => w.carriedOverJ ?? 0)),
          9,
        )
      const worst = report.summary.worst
      worst.forEach((w, i) => {
        const t = report.tests.find((x) => x.file === w.file && x.name === w.name)
        expect(w.ownEnergyJ).toBe(t?.ownEnergyJ)
        expect(w.netEnergyJ).toBe(t?.netEnergyJ)
        if (i > 0) expect(w.ownEnergyJ).toBeLessThanOrEqual(worst[i - 1]?.ownEnergyJ ?? Infinity)
        expect(w.ownEnergyJ, 'below idle is not ranked').toBeGreaterThan(0)
      })
      // Every test left out, with work to rank, has no more energy of its own than the last listed
      // (none listed: none above idle).
      const listed = new Set(worst.map((w) => `${w.file}\u0000${w.name}`))
      for (const t of report.tests)
        if (!listed.has(`${t.file}\u0000${t.name}`) && workWindows(t.results).length > 0)
          expect(t.ownEnergyJ).toBeLessThanOrEqual(worst.at(-1)?.ownEnergyJ ?? 0)
    }),
  )
})

test('a budget written from a measurement is never over for that same measurement', () => {
  fc.assert(
    fc.property(
      fc.double({ min: 0, max: 1e4, noNaN: true }),
      fc.integer({ min: 0, max: 50 }),
      (m, h) => {
        // Up to 1e-12 relative: floating-point noise is not rounded up (see ceilSignificant).
        expect(budgetFromMeasurement(m, h)).toBeGreaterThanOrEqual(m * (1 - 1e-12))
      },
    ),
  )
})

test('markdown rows stay one row per test whatever the test name', () => {
  fc.assert(
    fc.property(entriesArb, (entries) => {
      const report = buildEnergyReport(entries as ReportEntry[])
      const rows = renderMarkdown(report)
        .split('\n')
        .filter((l) => /^\| (✅|❌|⏭️) \|/.test(l))
      expect(rows).toHaveLength(report.tests.length)
      for (const row of rows) expect(row.replace(/\\\|/g, '').split('|')).toHaveLength(12)
    }),
  )
})
