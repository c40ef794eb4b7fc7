// The reporter's side of the budget update modes (as the runners' snapshot modes): `new` writes the
// missing budgets of tests that asked for one and leaves every other entry and the file's bytes
// alone; `none` never writes; the reports say what was written. Real files in a temporary root.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { htmlData } from '../../reporter/html/data.js'
import { renderMarkdown } from '../../reporter/markdown.js'
import type { ReportEntry } from '../../reporter/report.js'
import { buildRunReport, type RunReportSettings } from '../../reporter/run-report.js'
import { plainScreen } from '../../reporter/screen.js'
import { renderTerminal } from '../../reporter/terminal.js'
import { parseBudgetFile } from '../../src/budgets/index.js'
import { measuredResult } from '../../src/model/index.js'

function entry(
  name: string,
  netEnergyJ: number,
  budgetRequested: ReportEntry['budgetRequested'],
): ReportEntry {
  return {
    file: 'test/feed.test.ts',
    name,
    state: 'passed',
    errors: [],
    results: [
      measuredResult({
        label: name,
        window: { clock: 'boottime', startNs: 0, endNs: 1e9 },
        grossEnergyJ: netEnergyJ + 0.5,
        baselinePowerW: 0.5,
        netIntervalJ: { low: netEnergyJ - 0.01, high: netEnergyJ + 0.01, level: 0.95 },
        device: { serial: 'vdev-0001', model: 'Pixel 6' },
        components: [],
        rails: [],
        methods: [],
        sources: { power: 'odpm', sampleCount: 100 },
        warnings: [],
      }),
    ],
    ...(budgetRequested === undefined || budgetRequested === false ? {} : { budgetRequested }),
  }
}

// Not the serializer's layout (one line, unsorted keys): a rewrite of the file would show.
const existing =
  '{"tests":{"test/feed.test.ts":{"feed > opening":{"*":{"energyJ":2.8,"measuredEnergyJ":2.53}},"feed > gone":{"*":{"energyJ":1}}}},"schemaVersion":1}\n'

const entries: ReportEntry[] = [
  entry('feed > opening', 3.5, true), // over its budget: still checked, not rewritten
  entry('feed > scrolling', 0.5, true), // asked, no budget: written
  entry('feed > not asked', 1.2, false), // never asked: none
  entry('feed > idle', 0.005, true), // asked, but within its own noise: none, as with -u
]

describe('budget update modes in the reporter', () => {
  let root = ''
  let path = ''
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'vitest-energy-new-budgets-'))
    path = join(root, 'energy-budgets.json')
  })
  afterEach(async () => rm(root, { recursive: true, force: true }))

  const settings = (update: RunReportSettings['update']): RunReportSettings => ({
    root,
    budgetsPath: path,
    headroomPct: 10,
    update,
    classify: false,
  })

  test('new: writes the missing budget of the test that asked, keeps the others, reports it', async () => {
    await writeFile(path, existing)
    const problems: string[] = []
    const built = buildRunReport(entries, settings('new'), problems)
    expect(problems).toEqual([])

    const written = parseBudgetFile(await readFile(path, 'utf8'))
    expect(written.tests['test/feed.test.ts']).toEqual({
      'feed > opening': { '*': { energyJ: 2.8, measuredEnergyJ: 2.53 } },
      'feed > gone': { '*': { energyJ: 1 } },
      'feed > scrolling': { 'Pixel 6': { energyJ: 0.55, measuredEnergyJ: 0.5 } },
    })

    const b = built.report.budgets
    expect(b?.updated).toBe(false)
    expect(b?.added).toEqual([
      { file: 'test/feed.test.ts', name: 'feed > scrolling', device: 'Pixel 6' },
    ])
    expect(b?.changed).toEqual([])
    expect(b?.over).toBe(1)
    expect(b?.within, 'a budget written now is no verdict').toBe(0)
    expect(b?.missing, 'not asked, and within noise: -u would write neither').toBe(0)
    expect(b?.obsolete).toEqual([{ file: 'test/feed.test.ts', name: 'feed > gone', device: '*' }])
    expect(
      built.budgetReview?.after?.tests['test/feed.test.ts']?.['feed > scrolling'],
    ).toBeDefined()
    expect(
      built.report.tests.some((t) => 'budgetRequested' in t),
      'not in the JSON report',
    ).toBe(false)

    const terminal = renderTerminal(built.report, plainScreen, { topMethods: 3, verbose: false })
    expect(terminal).toContain(
      'Budgets   1 written (new) — review energy-budgets.json and commit it · 1 over\n',
    )
    expect(terminal).toContain('1 obsolete in energy-budgets.json (vitest -u removes them)')
    // 'feed > gone' is one typo away from no test of the run: nothing guessed.
    expect(terminal).not.toContain('a typo or a renamed test')
    expect(renderMarkdown(built.report)).toContain(
      'Budgets (`energy-budgets.json`): **1 written (new)**: review and commit the file; 0 within, 1 over,',
    )
    // The HTML report's Budgets view lists the new one (with its value and test) and the obsolete.
    const html = htmlData(built.report, { budgetReview: built.budgetReview! }).budgets
    expect(html?.updated).toBe(false)
    expect(html?.entries.map((e) => [e.kind, e.name, e.after?.energyJ, e.test])).toEqual([
      ['added', 'feed > scrolling', 0.55, 1],
      ['obsolete', 'feed > gone', undefined, undefined],
    ])
  })

  test("a run none of whose tests has a budget or asks for one says so (not '0 within')", async () => {
    await writeFile(path, existing)
    const other = { ...entry('map > opening', 1.2, false), file: 'test/map.test.ts' }
    const built = buildRunReport([other], settings('new'), [])
    const terminal = renderTerminal(built.report, plainScreen, { topMethods: 3, verbose: false })
    expect(terminal).toContain(
      "Budgets   none of this run's tests has one in energy-budgets.json\n",
    )
    expect(terminal).not.toContain('0 within')
  })

  test('a run whose tests all failed before measuring: no budget checked, not "none has one"', async () => {
    await writeFile(path, existing)
    const failure = { code: 'E_POWER_SOURCE_UNAVAILABLE', message: 'the fuel gauge is unreadable' }
    const failed: ReportEntry = {
      file: 'test/feed.test.ts',
      name: 'feed > opening',
      state: 'failed',
      errors: [failure.message],
      results: [],
      failure,
    }
    const built = buildRunReport([failed], settings('new'), [])
    const terminal = renderTerminal(built.report, plainScreen, { topMethods: 3, verbose: false })
    expect(terminal).toContain('Budgets   none checked: no test measured energy\n')
  })

  test('new: a fresh project gets its budget file; nothing missing leaves the file untouched', async () => {
    const built = buildRunReport([entry('feed > opening', 2.5, true)], settings('new'), [])
    expect(built.report.budgets?.added).toHaveLength(1)
    expect(renderTerminal(built.report, plainScreen, { topMethods: 3, verbose: false })).toContain(
      'Budgets   1 written (new) — review energy-budgets.json and commit it\n',
    )
    expect(parseBudgetFile(await readFile(path, 'utf8')).tests).toEqual({
      'test/feed.test.ts': {
        'feed > opening': { 'Pixel 6': { energyJ: 2.8, measuredEnergyJ: 2.5 } },
      },
    })

    await writeFile(path, existing)
    const before = await stat(path)
    const again = buildRunReport([entry('feed > opening', 2.5, true)], settings('new'), [])
    expect(await readFile(path, 'utf8')).toBe(existing)
    expect((await stat(path)).mtimeMs).toBe(before.mtimeMs)
    expect(again.report.budgets?.added).toEqual([])
    expect(again.report.budgets?.within).toBe(1)
  })

  test('none (CI) and an interrupted run never write', async () => {
    const none = buildRunReport(entries, settings('none'), [])
    expect(none.report.budgets, 'no file, nothing written: no budgets section').toBeUndefined()
    await expect(stat(path)).rejects.toThrow(/ENOENT/)

    await writeFile(path, existing)
    const interrupted = buildRunReport(entries, settings('new'), [], { interrupted: true })
    expect(await readFile(path, 'utf8')).toBe(existing)
    expect(interrupted.report.budgets?.added).toEqual([])
    expect(interrupted.report.budgets?.missing, 'the one -u would write').toBe(1)
  })

  test('a budget file that cannot be read: said in full once, shorter when a failed test said it', async () => {
    await writeFile(path, '{ not json')
    const alone: string[] = []
    buildRunReport(entries, settings('none'), alone)
    expect(alone).toHaveLength(1)
    expect(alone[0]).toMatch(
      /^\[E_BUDGET_FILE_INVALID\] .*energy-budgets\.json, line 1: not valid JSON/,
    )
    // The test's toStayWithinBudget failed with the same error: the reporter does not repeat it.
    const failed: ReportEntry = {
      ...entry('feed > opening', 3.5, true),
      state: 'failed',
      errors: [`expect(received).toStayWithinBudget()\n\n${alone[0] ?? ''}`],
    }
    const problems: string[] = []
    buildRunReport([failed], settings('none'), problems)
    expect(problems).toEqual([
      "the budgets in energy-budgets.json were neither checked nor written (the file's problem is in the failed test above)",
    ])
  })

  test('new: a budget whose test name is one typo from a test that ran says so', async () => {
    await writeFile(path, existing.replace('"feed > gone"', '"feed > scroling"'))
    const built = buildRunReport(entries, settings('new'), [])
    expect(built.report.budgets?.added.map((a) => a.name)).toEqual(['feed > scrolling'])
    const terminal = renderTerminal(built.report, plainScreen, { topMethods: 3, verbose: false })
    expect(terminal).toContain(
      "test/feed.test.ts › feed > scroling (the test 'feed > scrolling' ran: a typo or a renamed test? put its name in the file to keep this budget)",
    )
  })

  test('all (-u): every measured test that asked, and obsolete entries removed', async () => {
    await writeFile(path, existing)
    const built = buildRunReport(entries, settings('all'), [])
    expect(built.report.budgets?.updated).toBe(true)
    expect(
      Object.keys(
        parseBudgetFile(await readFile(path, 'utf8')).tests['test/feed.test.ts'] ?? {},
      ).sort(),
    ).toEqual(['feed > opening', 'feed > scrolling'])
    expect(built.report.budgets?.added.map((r) => r.name)).toEqual([
      'feed > opening', // for Pixel 6: the file had only '*'
      'feed > scrolling',
    ])
  })

  test('all (-u) leaves the entry of a test that no longer asks as it is', async () => {
    await writeFile(path, existing)
    buildRunReport([entry('feed > opening', 0.9, false)], settings('all'), [])
    expect(parseBudgetFile(await readFile(path, 'utf8')).tests['test/feed.test.ts']).toEqual({
      'feed > opening': { '*': { energyJ: 2.8, measuredEnergyJ: 2.53 } },
    })
  })

  // The summary's promise, "N without a budget (vitest -u writes them)", is what -u then does;
  // the HTML report's Budgets view lists those tests.
  test('the tests counted without a budget are exactly those -u then writes', async () => {
    const arb = fc.uniqueArray(
      fc.record({
        name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
        netEnergyJ: fc.constantFrom(-0.3, 0, 0.005, 0.02, 0.5, 2),
        asked: fc.constantFrom(true, false, 'unknown' as const),
      }),
      { selector: (t) => t.name, minLength: 1 },
    )
    await fc.assert(
      fc.asyncProperty(arb, async (tests) => {
        await writeFile(
          path,
          '{"schemaVersion":1,"tests":{"other.test.ts":{"x":{"*":{"energyJ":1}}}}}\n',
        )
        const run = tests.map((t) => entry(t.name, t.netEnergyJ, t.asked))
        const ci = buildRunReport(run, settings('none'), [])
        const missing = ci.report.budgets?.missing ?? 0
        const said = renderTerminal(ci.report, plainScreen, { topMethods: 3, verbose: false })
        expect(said.includes('without a budget (vitest -u writes them)')).toBe(missing > 0)
        const listed = htmlData(ci.report, { budgetReview: ci.budgetReview! }).budgets
        const updated = buildRunReport(run, settings('all'), [])
        expect(updated.report.budgets?.added.length ?? 0).toBe(missing)
        expect(listed?.withoutBudget.map((i) => ci.report.tests[i]?.name).sort()).toEqual(
          updated.report.budgets?.added.map((r) => r.name).sort(),
        )
      }),
      { numRuns: 40 },
    )
  })
})
