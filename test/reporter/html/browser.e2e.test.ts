// The HTML report of a real Vitest run (test/reporter/html/project) opened in Chromium, Firefox
// and WebKit from Debian's packages (_browsers.ts): every view draws without console errors, its
// figures are the JSON report's, a hostile test name is text, tabs and sortable headers work from
// the keyboard. The same checks run in each browser, one browser started per describe; a browser
// missing here is skipped with a notice naming its package, and in CI it must run. Each view's
// screenshot per browser is kept in test/.scratch/html-browser/<browser>/; UPDATE_SCREENSHOTS=1
// also refreshes Chromium's in docs/screenshots/.
import { existsSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { copyFile, mkdir, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { renderHtml } from '../../../reporter/html/index.js'
import {
  buildEnergyReport,
  type EnergyReport,
  type ReportedTest,
} from '../../../reporter/report.js'
import {
  formatJoules,
  formatSeconds,
  formatWatts,
  type MeasuredEnergyResult,
} from '../../../src/model/index.js'
import { primaryLimit } from '../../../reporter/limits.js'
import { ENGINES, type Browser, type Engine } from './_browsers.js'
import type { Page } from './_page.js'
import { runProject, testHash, type ProjectRun } from './_project.js'
import { HOSTILE } from './project/_energy.js'

const ci = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== '0'
for (const engine of ENGINES)
  if (engine.missing !== undefined && !ci)
    console.warn(`NOTICE: the HTML report's ${engine.name} tests are skipped: ${engine.missing}`)
const screenshots = process.env['UPDATE_SCREENSHOTS'] === '1'
const SHOTS = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url))
const OUTPUT = fileURLToPath(new URL('../../.scratch/html-browser/', import.meta.url))

const measured = (t: ReportedTest): MeasuredEnergyResult[] =>
  t.results.filter((r): r is MeasuredEnergyResult => r.status === 'measured')

// The two runs of the project, made once for every browser.
let runs: Promise<{ check: ProjectRun; update: ProjectRun }> | undefined
const projectRuns = (): Promise<{ check: ProjectRun; update: ProjectRun }> =>
  (runs ??= (async () => ({ check: await runProject(false), update: await runProject(true) }))())
afterAll(async () => {
  const done = await runs
  await done?.check.cleanup()
  await done?.update.cleanup()
})

for (const engine of ENGINES)
  describe.skipIf(engine.missing !== undefined && !ci)(`the HTML report in ${engine.name}`, () =>
    reportChecks(engine),
  )

function reportChecks(engine: Engine): void {
  let browser: Browser
  let check: ProjectRun
  let update: ProjectRun
  const output = `${OUTPUT}${engine.name.toLowerCase()}/`

  beforeAll(async () => {
    if (engine.missing !== undefined)
      throw new Error(`CI needs ${engine.name} for the HTML report tests: ${engine.missing}`)
    ;({ check, update } = await projectRuns())
    browser = await engine.launch()
    await mkdir(output, { recursive: true })
    if (screenshots) await mkdir(SHOTS, { recursive: true })
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
  })

  /** Opens a view; every console error or warning and page error fails the test at `done()`. */
  async function open(
    run: ProjectRun,
    hash: string,
  ): Promise<{ page: Page; done: () => Promise<void> }> {
    const page = await browser.newPage()
    await page.goto(`${pathToFileURL(run.html).href}${hash}`)
    await page.waitForSelector('html[data-ready=true]')
    return {
      page,
      done: async () => {
        expect(await page.evaluate(() => '__pwned' in window)).toBe(false)
        expect(await page.locator('img').count(), 'no element came from data').toBe(0)
        const problems = await page.problems()
        await page.close()
        expect(problems).toEqual([])
      },
    }
  }

  /** Keeps the view's screenshot in the test's output (and Chromium's in the docs, if asked). */
  async function shoot(page: Page, name: string): Promise<void> {
    const file = `${output}${name}.png`
    await page.screenshot(file)
    if (screenshots && engine.name === 'Chromium') await copyFile(file, `${SHOTS}${name}.png`)
  }

  const indexOf = (report: EnergyReport, name: string): number =>
    report.tests.findIndex((t) => t.name === name)
  /** The page of the report's test at `index`: addressed by its file and name. */
  const testAt = (report: EnergyReport, index: number): string => {
    const t = report.tests[index]
    return t === undefined ? '#tests' : testHash(t)
  }

  test('the run printed where the report is', () => {
    expect(check.out).toContain(` HTML      ${check.html}`)
  })

  test('overview: totals, budgets, baseline, hungriest tests and warnings by code', async () => {
    const { page, done } = await open(check, '#overview')
    const r = check.report
    const totals = await page.locator('#totals').innerText()
    expect(totals).toContain(formatJoules(r.summary.totalNetEnergyJ))
    expect(totals).toContain(formatJoules(r.summary.totalGrossEnergyJ))
    expect(totals).toContain(
      `${r.summary.measuredWindows} measured · ${r.summary.failedWindows} failed`,
    )
    expect(totals).toContain('Pixel 6 (emulator-5554)')
    const b = r.budgets
    const counts = await page.locator('#budget-counts').innerText()
    for (const part of [
      `${b?.within} within`,
      `${b?.over} over`,
      `${b?.inconclusive} inconclusive`,
      `${b?.missing} missing`,
      `${b?.obsolete.length} obsolete`,
    ])
      expect(counts).toContain(part)
    const regressions = await page.locator('#regressions tbody tr').allInnerTexts()
    expect(regressions).toHaveLength(r.baseline?.regressions.length ?? -1)
    expect(regressions[0]).toContain(r.baseline?.regressions[0]?.name)
    expect(await page.locator('#improvements tbody tr').count()).toBe(
      r.baseline?.improvements.length,
    )
    const hungriest = await page.locator('#hungriest .name').allInnerTexts()
    expect(hungriest.slice(0, 5)).toEqual(r.summary.worst.map((w) => w.name))
    // Ranked by what a test is judged by: 600 mJ of the quiet test's 2.50 J net is the cellular
    // tail the sync left on, so it ranks below 'opening the feed' (2.00 J), and shows its own.
    const rank = (name: string): number => r.summary.worst.findIndex((w) => w.name === name)
    const QUIET = 'sync > the radio is quiet after a sync (fails: polling)'
    const quiet = r.summary.worst[rank(QUIET)]
    const opening = r.summary.worst[rank('feed > opening the feed')]
    expect(quiet?.netEnergyJ).toBeGreaterThan(opening?.netEnergyJ ?? Infinity)
    expect(quiet?.ownEnergyJ).toBeLessThan(opening?.ownEnergyJ ?? -Infinity)
    expect(rank(QUIET)).toBeGreaterThan(rank('feed > opening the feed'))
    const figures = await page.locator('#hungriest .num').allInnerTexts()
    expect(figures.slice(0, 5)).toEqual(r.summary.worst.map((w) => formatJoules(w.ownEnergyJ)))
    expect(await page.locator('#hungriest-note').innerText()).toContain('another test left on')
    const warnings = await page.locator('#warnings tbody tr').allInnerTexts()
    expect(warnings.map((row) => row.split('\t')[0]).sort()).toEqual([
      'W_HOSTILE',
      'W_UNDERSAMPLED',
    ])
    await shoot(page, 'html-overview')
    await done()
  })

  test("overview: the failed tests first, each with its reason; every count is the JSON report's", async () => {
    const { page, done } = await open(check, '#overview')
    const r = check.report
    const failed = r.tests.filter((t) => t.state === 'failed')
    expect(failed.length).toBeGreaterThan(1)
    expect(await page.locator('#failed-heading').innerText()).toBe(
      `Failed tests (${failed.length})`,
    )
    const rows = await page.locator('#failed li').allInnerTexts()
    expect(rows).toHaveLength(failed.length)
    failed.forEach((t, i) => {
      expect(rows[i]).toContain(t.name)
      expect(rows[i]).toContain(t.failure?.message.split('\n')[0] ?? t.noEnergyReason)
      // A matcher's failure: its `expect(…)` header and the line that says why.
      const lines = t.failure?.message.split('\n').filter((line) => line.trim() !== '') ?? []
      if (lines[0]?.startsWith('expect(')) expect(rows[i]).toContain(lines[1]?.trim())
    })
    // Its links go to the test by file and name: the same page after tests are added.
    const href = await page.locator('#failed li a').first().getAttribute('href')
    expect(href).toBe(testHash(failed[0]!))

    const totals = await page.locator('#totals').innerText()
    const s = r.summary
    const skipped = r.tests.flatMap((t) => t.results.filter((w) => w.status === 'skipped'))
    const abandoned = skipped.filter((w) => w.status === 'skipped' && /abandoned/.test(w.reason))
    expect(abandoned.length).toBeGreaterThan(0)
    expect(totals).toContain(
      `${s.measuredWindows} measured · ${s.failedWindows} failed · ${abandoned.length} abandoned · ${skipped.length - abandoned.length} skipped`,
    )
    expect(totals).toContain(`${s.states.passed} passed · ${s.states.failed} failed`)
    // Warnings: each code once per window, notes apart — the card, the table and the terminal.
    const perWindow = r.tests.flatMap((t) =>
      t.results.flatMap((w) =>
        w.status === 'skipped'
          ? []
          : [...new Map(w.warnings.map((x) => [x.code, x.severity])).entries()],
      ),
    )
    const warnings = perWindow.filter(([, severity]) => severity !== 'info').length
    const notes = perWindow.length - warnings
    expect(notes).toBeGreaterThan(0)
    const card = await page.locator('#totals .card', { hasText: 'Warnings' }).innerText()
    expect(card).toMatch(new RegExp(`Warnings\\s+${warnings}\\b`, 'i'))
    expect(card).toContain(`and ${notes} note${notes === 1 ? '' : 's'}`)
    expect(check.out).toMatch(new RegExp(`· ${warnings} warnings? · ${notes} notes? `))
    const table = await page.locator('#warnings tbody tr').allInnerTexts()
    const inTable = table
      .map((row) => row.split('\t'))
      .filter(([, severity]) => severity !== 'info')
      .reduce((sum, cells) => sum + Number(cells[2]), 0)
    expect(inTable).toBe(warnings)
    const windowsByCode = new Map<string, number>()
    for (const [code, severity] of perWindow)
      if (severity !== 'info') windowsByCode.set(code, (windowsByCode.get(code) ?? 0) + 1)
    for (const [code, n] of windowsByCode) expect(check.out).toContain(`${code} ×${n} `)
    // The budgets the JSON counts, without a budget included.
    const counts = await page.locator('#budget-counts').innerText()
    expect(counts).toContain(`${r.budgets?.missing} missing`)
    expect(r.budgets?.missing).toBeGreaterThan(0)
    await done()
  })

  test('tests: every test with its figures, reasons, budget use and Δ; sorting and filters', async () => {
    const { page, done } = await open(check, '#tests')
    const rows = await page.locator('#tests-table tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        name: tr.querySelector('.test-name')?.textContent ?? '',
        cells: Array.from((tr as HTMLTableRowElement).cells).map((c) => c.textContent ?? ''),
      })),
    )
    const r = check.report
    expect(rows.map((row) => row.name)).toEqual(r.tests.map((t) => t.name))
    // Every column in view at 1280 px (a laptop): secondary lines wrap, long warning codes break at
    // their underscores.
    expect(
      await page.evaluate(() => {
        const grid = document.querySelector('#tests-table')
        return grid === null ? -1 : grid.scrollWidth - (grid.parentElement?.clientWidth ?? 0)
      }),
      'the table is wider than the page by (px)',
    ).toBeLessThanOrEqual(0)
    expect(r.tests.some((t) => t.expectedToFail === true)).toBe(true)
    let idleRows = 0
    r.tests.forEach((t, i) => {
      const cells = rows[i]?.cells ?? []
      // A test.fails test that failed as it should is ⚑, as in the terminal, not 'passed'.
      if (t.expectedToFail === true) expect(cells[0]).toBe('⚑ failed as expected')
      else expect(cells[0], t.name).toContain(t.state)
      if (t.noEnergyReason !== undefined) {
        expect(cells[1]).toContain(`no energy measured: ${t.noEnergyReason}`)
        expect(cells[2]).toBe('—')
        return
      }
      const windows = measured(t)
      if (windows.every((w) => w.idleBaseline === true)) {
        // Only energy.baseline(): no energy of its own; the row shows the idle phone's figures.
        const grossJ = windows.reduce((sum, w) => sum + w.grossEnergyJ, 0)
        const durationS = windows.reduce((sum, w) => sum + w.durationS, 0)
        expect(cells[2]).toBe('idle reference')
        expect(cells[3]).toBe(formatJoules(grossJ))
        expect(cells[4]).toBe(formatWatts(grossJ / durationS))
        expect(cells[5]).toBe(formatSeconds(durationS))
        idleRows++
      } else {
        expect(cells[2]?.startsWith(formatJoules(t.netEnergyJ)), `${t.name}: ${cells[2]}`).toBe(
          true,
        )
        // The part another test left on, and the test's own energy, which it is judged by.
        if (t.ownEnergyJ !== t.netEnergyJ)
          expect(cells[2]).toContain(
            `incl. ${formatJoules(t.netEnergyJ - t.ownEnergyJ)} another test left on; ${formatJoules(t.ownEnergyJ)} own`,
          )
        if ((t.budgetFigure?.n ?? 1) >= 2)
          expect(cells[2]).toContain(`(mean of ${t.budgetFigure?.n})`)
        expect(cells[3]).toBe(formatJoules(t.grossEnergyJ))
        expect(cells[4]).toBe(formatWatts(t.grossEnergyJ / t.durationS))
        expect(cells[5]).toBe(formatSeconds(t.durationS))
      }
      if (t.budget !== undefined) {
        const use = (100 * t.budget.valueJ) / t.budget.energyJ
        expect(cells[6]).toContain(`${use.toFixed(use >= 100 ? 0 : 1)}%`)
        expect(cells[6]).toContain(t.budget.verdict)
        expect(cells[6]).toContain(`of ${formatJoules(t.budget.energyJ)}`)
      } else if (t.limits !== undefined) {
        // Without a budget, the matcher limit the terminal shows too: its use, verdict and limit.
        const l = primaryLimit(t.limits)
        const unit = l?.unit === 'W' ? formatWatts : formatJoules
        if (l?.verdict === 'unjudgeable') {
          // No figure (a method that never ran): no share of the limit, and says so in words.
          expect(cells[6], t.name).toContain('no figure')
          expect(cells[6], t.name).not.toContain('%')
        } else {
          const use = (100 * (l?.value ?? NaN)) / (l?.limit ?? NaN)
          expect(cells[6], t.name).toContain(`${use.toFixed(use >= 100 ? 0 : 1)}%`)
          expect(cells[6], t.name).toContain(l?.passed === true ? 'passed' : l?.verdict)
        }
        expect(cells[6], t.name).toContain(`limit < ${unit(l?.limit ?? NaN)}`)
        if (t.limits.length > 1) expect(cells[6]).toContain(`+${t.limits.length - 1} limit`)
      }
      if (t.baseline !== undefined) {
        const d = t.baseline.deltaJ
        expect(cells[7]).toContain(`${d >= 0 ? '+' : '−'}${formatJoules(Math.abs(d))}`)
        expect(cells[7]).toContain(t.baseline.verdict)
      }
      expect(cells[1]).toContain(
        ` · ${measured(t)[0]?.sources.power} · ${measured(t)[0]?.sources.execution}`,
      )
      const codes = t.results.flatMap((w) =>
        w.status === 'skipped' ? [] : w.warnings.map((x) => x.code),
      )
      expect(cells[8]).toBe([...new Set(codes)].map((code) => `${code} `).join(''))
    })
    expect(idleRows, 'the project has a test that only measured the idle phone').toBe(1)
    // A note (severity info: W_HOSTILE) is drawn apart from the warnings (W_UNDERSAMPLED).
    expect(await page.locator('#tests-table code.note').allInnerTexts()).toEqual(['W_HOSTILE'])
    expect(
      await page.locator('#tests-table code:not(.note)', { hasText: 'W_UNDERSAMPLED' }).count(),
    ).toBeGreaterThan(0)
    await shoot(page, 'html-tests')

    // Sort by net energy from the keyboard: the header is a button.
    const net = page.locator('#tests-table th button', { hasText: 'Net' })
    await net.focus()
    await page.keyboard.press('Enter')
    await expect
      .poll(() => page.locator('#tests-table th[aria-sort=descending]').innerText())
      .toBe('Net')
    const byNet = [...r.tests]
      .filter((t) => t.noEnergyReason === undefined)
      .sort((a, b) => b.netEnergyJ - a.netEnergyJ)
    expect(await page.locator('#tests-table .test-name').first().innerText()).toBe(byNet[0]?.name)
    await page.keyboard.press('Enter')
    await expect
      .poll(() => page.locator('#tests-table th[aria-sort=ascending]').innerText())
      .toBe('Net')
    expect(await page.locator('#tests-table .test-name').first().innerText()).toBe(
      byNet.at(-1)?.name,
    )

    await page.locator('#filter').fill('sync')
    await expect
      .poll(() => page.locator('#count').innerText())
      .toBe(
        `${r.tests.filter((t) => /sync/i.test(t.name) || /sync/i.test(t.file)).length} of ${r.tests.length} tests`,
      )
    await page.locator('#filter').fill('')
    await page.locator('#show-filter').selectOption('over')
    await expect
      .poll(async () => (await page.locator('#tests-table .test-name').allInnerTexts()).sort())
      .toEqual(
        r.tests
          .filter((t) => t.budget?.verdict === 'over')
          .map((t) => t.name)
          .sort(),
      )
    await done()
  })

  test('matcher limits: every test without a budget that checked one shows it, in the terminal too', async () => {
    const r = check.report
    const limited = r.tests.filter((t) => t.limits !== undefined)
    expect(limited.map((t) => [t.name, t.limits?.map((l) => [l.matcher, l.passed])])).toEqual([
      [
        'trails > loading the trails within its limits',
        [
          ['toConsumeLessThan', true],
          ['toDrawLessThan', true],
        ],
      ],
      [
        'trails > rendering a trail: a method over its limit',
        [
          ['toConsumeLessThan', true],
          ['toConsumeLessThan', false],
        ],
      ],
      [
        'trails > opening a trail: a limit on a method that never ran',
        [['toConsumeLessThan', false]],
      ],
      ['trails > filtering the trails, judged by the mean of 5', [['toConsumeLessThan', true]]],
    ])
    expect(limited[2]?.limits?.[0]).toMatchObject({
      verdict: 'unjudgeable',
      target: { kind: 'method', label: 'TrailList.opne' },
    })
    expect(check.out).toMatch(
      /✗ trails > opening a trail: a limit on a method that never ran +· .*TrailList\.opne: limit < 200 mJ ✗ no figure/,
    )
    const filtering = limited[3]?.limits?.[0]
    expect(filtering).toMatchObject({ stat: 'mean', n: 5, unit: 'J', limit: 0.1 })
    expect(check.out).toMatch(
      /✓ trails > loading the trails within its limits +· .*power, gross: [\d.]+ W, 70% of limit < 1\.50 W ✓ \+1 limit/,
    )
    expect(check.out).toMatch(
      /✗ trails > rendering a trail: a method over its limit +· .*TrailList\.render: 300 mJ, 150% of limit < 200 mJ ✗ over \+1 limit/,
    )
    expect(check.out).toMatch(
      /limit {3}toConsumeLessThan on 'rendering a trail': 41% of limit < 2\.00 J ✓/,
    )
    expect(check.out).toMatch(
      /filtering the trails, judged by the mean of 5 .*mean of 5: [\d.]+ mJ, 80% of limit < 100 mJ ✓/,
    )

    // One test: every limit it checked, with the figure it applied to.
    const index = r.tests.findIndex((t) => t.name === limited[1]?.name)
    const { page, done } = await open(check, testAt(check.report, index))
    const lines = await page.locator('#test-limits .limit').allInnerTexts()
    expect(lines).toHaveLength(2)
    expect(lines[0]).toContain('toConsumeLessThan on rendering a trail: 41% of limit < 2.00 J')
    expect(lines[1]).toContain(
      'on com.example.trails.TrailList.render in rendering a trail: TrailList.render: 300 mJ, 150% of limit < 200 mJ',
    )
    expect(lines[1]).toContain('over')
    // A limit without a figure says so, and why, in the test's own view.
    await page.goto(
      `${pathToFileURL(check.html).href}${testAt(r, indexOf(r, limited[2]?.name ?? ''))}`,
    )
    const missing = await page.locator('#test-limits .limit').allInnerTexts()
    expect(missing).toHaveLength(1)
    expect(missing[0]).toContain('no figure')
    expect(missing[0]).toContain("method 'TrailList.opne' did not run")
    // The filter of tests that failed a matcher's limit.
    await page.goto(`${pathToFileURL(check.html).href}#tests`)
    await page.locator('#show-filter').selectOption('limit')
    expect(await page.locator('#tests-table .test-name').allInnerTexts()).toEqual([
      'trails > rendering a trail: a method over its limit',
      'trails > opening a trail: a limit on a method that never ran',
    ])
    await done()
  })

  test('tabs are buttons: arrow keys move between them and switch the view', async () => {
    const { page, done } = await open(check, '#overview')
    await page.locator('#tab-overview').focus()
    await page.keyboard.press('ArrowRight')
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#tests')
    await expect.poll(() => page.locator('#tab-tests').getAttribute('aria-selected')).toBe('true')
    expect(await page.locator('#tab-overview').getAttribute('aria-selected')).toBe('false')
    expect(await page.locator('#tests-table').count()).toBe(1)
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-tests')
    await page.keyboard.press('End')
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#budgets')
    await done()
  })

  test('one test: energy another test left on is apart from the own energy the test is judged by', async () => {
    const r = check.report
    const index = indexOf(r, 'sync > the radio is quiet after a sync (fails: polling)')
    const t = r.tests[index] as ReportedTest
    expect(t.ownEnergyJ).toBeLessThan(t.netEnergyJ)
    const { page, done } = await open(check, testAt(r, index))
    const facts = (await page
      .locator('#test-facts')
      .evaluate((dl) =>
        Object.fromEntries(
          Array.from(dl.querySelectorAll('dt')).map((dt) => [
            dt.textContent ?? '',
            dt.nextElementSibling?.textContent ?? '',
          ]),
        ),
      )) as Record<string, string>
    expect(facts['Own energy']).toBe(formatJoules(t.ownEnergyJ))
    expect(facts['Net energy']).toBe(
      `${formatJoules(t.netEnergyJ)} incl. ${formatJoules(t.netEnergyJ - t.ownEnergyJ)} another test left on`,
    )
    await done()
  })

  test('one test: power timeline, lanes, rails, call-tree icicle and methods of its window', async () => {
    const r = check.report
    const index = indexOf(r, 'feed > opening the feed')
    const t = r.tests[index] as ReportedTest
    const w = measured(t)[0] as MeasuredEnergyResult
    const timeline = w.timeline
    const tree = w.callTree
    if (timeline === undefined || tree === undefined) throw new Error('no timeline or call tree')
    const { page, done } = await open(check, testAt(check.report, index))
    expect(await page.locator('#test-name').innerText()).toBe(t.name)
    // One window: its own timeline, no average-per-window chart.
    expect(await page.locator('#timeline').count()).toBe(0)
    await page.waitForSelector('#power-timeline canvas')
    const legend = await page.locator('#power-timeline .u-legend').innerText()
    for (const rail of w.rails) expect(legend).toContain(`${rail.subsystem} (${rail.rail})`)
    expect(legend).toContain('idle level')
    // The chart draws the summary's samples: as many buckets per rail, and the area under the
    // stacked rails inside the window (from uPlot's own data) is the rails' energy in the JSON.
    const chart = await page
      .locator('#power-timeline')
      .evaluate((el) => ({ ...(el as HTMLElement).dataset }))
    expect(Number(chart['buckets'])).toBe(timeline.series[0]?.powerW.length)
    expect(Number(chart['buckets'])).toBe(timeline.edgesS.length - 1)
    expect(Number(chart['series'])).toBe(timeline.series.length)
    const railsJ = w.rails.reduce((sum, rail) => sum + rail.energyJ, 0)
    expect(Math.abs(Number(chart['areaJ']) - railsJ) / railsJ).toBeLessThan(1e-3)
    // A lane per top method and per carried-in component, named by the data.
    const lanes = await page
      .locator('#lanes .lane')
      .evaluateAll((rows) => rows.map((x) => x.getAttribute('title') ?? ''))
    expect(lanes).toHaveLength((timeline.lanes?.length ?? 0) + (timeline.carriedIn?.length ?? 0))
    timeline.lanes?.forEach((l, i) => expect(lanes[i]).toContain(l.method))
    const carried = timeline.carriedIn?.[0]
    expect(lanes.at(-1)).toContain(`left on by ${carried?.method} in “${carried?.window}”`)
    const rails = await page.locator('#rails').innerText()
    for (const rail of w.rails) expect(rails).toContain(formatJoules(rail.energyJ))
    // The icicle is the call tree under the window's net energy: its root is the net energy, and
    // every method of the window and its callers have a box.
    await page.waitForSelector('#flame .node')
    const rootJ = await page
      .locator('#flame')
      .evaluate((el) => (el as HTMLElement).dataset['rootJ'])
    expect(Math.abs(Number(rootJ) - w.netEnergyJ) / w.netEnergyJ).toBeLessThan(1e-5)
    expect(await page.locator('#flame .node[data-name="net energy"]').getAttribute('title')).toBe(
      `net energy: ${formatJoules(w.netEnergyJ)} · 100% of the net energy`,
    )
    const boxes = await page
      .locator('#flame .node')
      .evaluateAll((nodes) => nodes.map((n) => (n as HTMLElement).dataset['name']))
    for (const m of w.methods) expect(boxes).toContain(m.method)
    expect(boxes).toContain('android.os.Looper.loop')
    const bind = await page
      .locator('#flame .node[data-name="com.example.trails.FeedAdapter.bind"]')
      .getAttribute('title')
    const bindJ = w.methods.find((m) => m.method === 'com.example.trails.FeedAdapter.bind')
    expect(bind).toContain(`self ${formatJoules(bindJ?.localEnergyJ ?? NaN)}`)
    const methodRows = await page
      .locator('#methods-table tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) =>
          Array.from((tr as HTMLTableRowElement).cells).map((c) => c.textContent ?? ''),
        ),
      )
    expect(methodRows.map((cells) => cells[0])).toEqual(w.methods.map((m) => m.method))
    w.methods.forEach((m, i) => {
      expect(methodRows[i]?.[2]).toBe(formatJoules(m.localEnergyJ))
      expect(methodRows[i]?.[3]).toBe(formatJoules(m.inclusiveEnergyJ))
      expect(methodRows[i]?.[1]).toBe(m.color ?? '—')
    })
    await shoot(page, 'html-test')
    await done()

    const repeated = indexOf(r, 'feed > scrolling the feed')
    const again = await open(check, testAt(r, repeated))
    const windows = await again.page.locator('.windows button').allInnerTexts()
    expect(windows).toEqual(
      measured(r.tests[repeated] as ReportedTest).map(
        (x) => `${x.label} · ${formatJoules(x.netEnergyJ)}`,
      ),
    )
    // Several windows: the average-per-window chart, and the chosen window's own timeline.
    expect(await again.page.locator('#timeline canvas').count()).toBeGreaterThan(0)
    await again.page.locator('.windows button').nth(2).click()
    expect(await again.page.locator('#window h3').first().innerText()).toBe(
      'Window “scrolling the feed #3”',
    )
    const third = measured(r.tests[repeated] as ReportedTest)[2]
    await again.page.waitForSelector('#power-timeline canvas')
    expect(
      Number(
        await again.page
          .locator('#power-timeline')
          .evaluate((el) => (el as HTMLElement).dataset['buckets']),
      ),
    ).toBe(third?.timeline?.series[0]?.powerW.length)
    await shoot(again.page, 'html-test-repeated')
    await again.done()
  })

  test('a hostile test name is text in every place it shows', async () => {
    const index = indexOf(check.report, HOSTILE)
    const { page, done } = await open(check, testAt(check.report, index))
    expect(await page.locator('#test-name').textContent()).toBe(HOSTILE)
    expect(await page.locator('#window h3').first().textContent()).toBe(`Window “${HOSTILE}”`)
    expect(await page.locator('.warnings').innerText()).toContain(HOSTILE)
    for (const view of ['#overview', '#tests', '#budgets']) {
      await page.evaluate((hash) => void (location.hash = hash), view)
      await expect.poll(() => page.locator('main').innerText()).toContain(HOSTILE)
    }
    await done()
  })

  test('raw data kept for a test is linked, relative to the report', async () => {
    const index = indexOf(check.report, 'sync > export loses the phone')
    const { page, done } = await open(check, testAt(check.report, index))
    const links = await page
      .locator('#artifacts a')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''))
    expect(links).toHaveLength(2)
    for (const href of links)
      expect(existsSync(resolve(dirname(check.html), decodeURIComponent(href))), href).toBe(true)
    await done()
  })

  test('methods: treemap and the table by method, class and package', async () => {
    const { page, done } = await open(check, '#methods')
    await page.waitForSelector('#treemap .node')
    const self = new Map<string, number>()
    for (const t of check.report.tests)
      for (const w of measured(t))
        for (const m of w.methods) self.set(m.method, (self.get(m.method) ?? 0) + m.localEnergyJ)
    const rows = await page
      .locator('#methods-aggregate tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) =>
          Array.from((tr as HTMLTableRowElement).cells).map((c) => c.textContent ?? ''),
        ),
      )
    expect(rows).toHaveLength(self.size)
    const top = [...self].sort((a, b) => b[1] - a[1])[0]
    expect(rows[0]?.[0]).toBe(top?.[0])
    expect(rows[0]?.[2]).toBe(formatJoules(top?.[1] ?? 0))
    await shoot(page, 'html-methods')
    await page.locator('.toggle button', { hasText: 'Classes' }).click()
    const classes = new Set(
      [...self.keys()]
        .filter((m) => !m.startsWith('art_'))
        .map((m) => m.slice(0, m.lastIndexOf('.'))),
    )
    expect(await page.locator('#methods-aggregate tbody tr').count()).toBe(classes.size)
    await done()
  })

  test('budgets when checking: the tests without one are those -u would write, not those that never asked', async () => {
    const r = check.report
    const { page, done } = await open(check, '#budgets')
    const listed = await page
      .locator('#budget-missing li')
      .evaluateAll((items) => items.map((li) => li.textContent ?? ''))
    expect(listed).toHaveLength(r.budgets?.missing ?? -1)
    expect(listed).toContain(HOSTILE)
    // limits.spec.ts checks matcher limits and never asks for a budget: measured, none, unlisted.
    const trails = r.tests.filter((t) => t.file === 'limits.spec.ts')
    expect(trails.length).toBeGreaterThan(0)
    for (const t of trails) {
      expect(measured(t).length, t.name).toBeGreaterThan(0)
      expect(t.budget, t.name).toBeUndefined()
      expect(listed).not.toContain(t.name)
    }
    await done()
  })

  test('budgets after `vitest -u`: what was added, changed (old → new) and removed; what still fits is kept', async () => {
    const r = update.report
    expect(r.budgets?.updated).toBe(true)
    const { page, done } = await open(update, '#budgets')
    const rows = await page
      .locator('#budget-changes tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) =>
          Array.from((tr as HTMLTableRowElement).cells).map((c) => c.textContent ?? ''),
        ),
      )
    const row = (name: string): string[] => rows.find((cells) => cells[1]?.startsWith(name)) ?? []
    for (const ref of r.budgets?.added ?? []) {
      const t = r.tests[indexOf(r, ref.name)]
      expect(row(ref.name)[0]).toBe('added')
      expect(row(ref.name)[4]).toContain(formatJoules(t?.budget?.energyJ ?? NaN))
    }
    const opening = row('feed > opening the feed')
    expect(opening[0]).toBe('changed')
    // It was over its budget in the check run: -u rewrote it.
    expect(
      check.report.tests[indexOf(check.report, 'feed > opening the feed')]?.budget?.verdict,
    ).toBe('over')
    expect(opening[3]).toBe('1.50 J (measured 1.35 J)')
    expect(opening[4]).toContain(
      formatJoules(r.tests[indexOf(r, 'feed > opening the feed')]?.budget?.energyJ ?? NaN),
    )
    expect(row('feed > a test that was removed').slice(0, 5)).toEqual([
      'removed',
      'feed > a test that was removedfeed.spec.ts',
      'any',
      '1.00 J (measured 900 mJ)',
      '—',
    ])
    // Within its budget in both runs: -u keeps it as it was, as a snapshot that still matches.
    const scrolling = r.tests[indexOf(r, 'feed > scrolling the feed')]
    expect(scrolling?.budget?.verdict).toBe('within')
    expect(scrolling?.budget?.energyJ).toBe(0.08)
    expect(row('feed > scrolling the feed')).toEqual([])
    expect(rows).toHaveLength(
      (r.budgets?.added.length ?? 0) +
        (r.budgets?.changed.length ?? 0) +
        (r.budgets?.obsolete.length ?? 0),
    )
    await shoot(page, 'html-budgets')
    await done()
  })

  test('a run in which no test ran says so, and that a setup error is in the terminal', async () => {
    // Vitest reports an error in the run's setup (an app that is not installed) to the terminal
    // only: the report of such a run has no test, and must not read as an empty success.
    const file = `${output}empty.html`
    await writeFile(file, renderHtml(buildEnergyReport([])))
    const page = await browser.newPage()
    await page.goto(pathToFileURL(file).href)
    await page.waitForSelector('html[data-ready=true]')
    const banner = await page.locator('.banner').first().innerText()
    const problems = await page.problems()
    await page.close()
    expect(banner).toMatch(/^No test ran\. .*the error is in the terminal output/)
    expect(problems).toEqual([])
  })

  test('the checks see what a page reports: console errors and warnings, uncaught errors, CSP', async () => {
    const script = `console.error('an error'); console.warn('a warning'); setTimeout(() => { throw new Error('uncaught') })`
    const hash = createHash('sha256').update(script, 'utf8').digest('base64')
    const file = `${output}problems.html`
    await writeFile(
      file,
      `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-${hash}'"></head>` +
        `<body><script>${script}</script><script>window.blocked = false</script></body></html>`,
    )
    const page = await browser.newPage()
    await page.goto(pathToFileURL(file).href)
    await expect.poll(async () => (await page.problems()).length).toBeGreaterThanOrEqual(4)
    const problems = await page.problems()
    await page.close()
    expect(
      problems.find((p) => /^error: .*an error/.test(p)),
      problems.join('\n'),
    ).toBeDefined()
    expect(problems.find((p) => /^warn(ing)?: .*a warning/.test(p))).toBeDefined()
    // WebKit's file: pages hide an uncaught error's message ("Script error."), not the error.
    expect(problems.find((p) => p.startsWith('page error: '))).toBeDefined()
    expect(problems.find((p) => /Content[- ]Security[- ]Policy|^CSP: /.test(p))).toBeDefined()
  })
}
