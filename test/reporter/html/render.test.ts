// The HTML report as a string: hostile text stays data, the page loads nothing from anywhere, a
// 10,000-test run stays under 25 MB, and what it embeds is the report (6 significant digits).
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { htmlData, type HtmlData, type HtmlMeasuredWindow } from '../../../reporter/html/data.js'
import { LOCALE_GUARD, renderHtml } from '../../../reporter/html/index.js'
import { buildEnergyReport, type ReportEntry } from '../../../reporter/report.js'
import { buildRunReport } from '../../../reporter/run-report.js'
import type { BudgetFile } from '../../../src/budgets/index.js'
import { measuredResult, methodEnergy } from '../../../src/model/index.js'

const HOSTILE = '</script><script>window.__pwned = 1</script><!-- <img src=x onerror=alert(1)>'

function entry(i: number, name = `feature ${i % 100} > scenario ${i}`): ReportEntry {
  const gross = 1 + (i % 89) / 7
  return {
    file: `test/ui/suite${i % 40}.test.ts`,
    name,
    state: i % 25 === 0 ? 'failed' : 'passed',
    errors: i % 25 === 0 ? [`expected ${gross} to be less than 1`] : [],
    results: [
      measuredResult({
        label: name,
        window: { clock: 'boottime', startNs: 5e12 + i * 3e9, endNs: 5e12 + i * 3e9 + 2e9 },
        grossEnergyJ: gross,
        baselinePowerW: 0.3,
        netIntervalJ: { low: gross - 0.7, high: gross - 0.5, level: 0.95 },
        components: [{ component: 'cpu', energyJ: gross / 2 }],
        rails: ['CPUCL0', 'CPUCL1', 'DISPLAY', 'WLAN'].map((rail, k) => ({
          rail: `S${k}M_VDD_${rail}`,
          subsystem: rail,
          energyJ: (gross * (k + 1)) / 10,
        })),
        methods: Array.from({ length: 20 }, (_, m) =>
          methodEnergy({
            method: `com.example.app.pkg${m % 5}.Screen${m}.onEvent${m}`,
            attribution: 'sampling',
            localEnergyJ: gross / (m + 7),
            nonLocalEnergyJ: gross / (m + 30),
            color: (['red', 'yellow', 'green'] as const)[m % 3],
          }),
        ),
        sources: { power: 'odpm', execution: 'simpleperf', sampleCount: 200, sensorRateHz: 10 },
        warnings:
          i % 30 === 0
            ? [{ code: 'W_UNDERSAMPLED', severity: 'warning', message: 'only 20 samples' }]
            : [],
        device: { serial: 'emulator-5554', model: 'Pixel 6' },
      }),
    ],
  }
}

/** The data the page reads, parsed back out of the HTML. */
function embedded(html: string): HtmlData {
  const match = /<script type="application\/json" id="energy-data">([^<]*)<\/script>/.exec(html)
  expect(match, 'the data block').not.toBeNull()
  return JSON.parse(match?.[1] ?? 'null') as HtmlData
}

describe('renderHtml', () => {
  test('a hostile test name, file, method, warning and failure stay inside the JSON as data', () => {
    const hostile: ReportEntry = {
      ...entry(1, HOSTILE),
      file: `${HOSTILE}.test.ts`,
      state: 'failed',
      errors: [HOSTILE],
      failure: { message: HOSTILE },
    }
    const html = renderHtml(buildEnergyReport([entry(0), hostile]))
    // The page's four script elements and nothing else: no tag of the data opens or closes one.
    expect(html.match(/<script/gi)).toHaveLength(4)
    expect(html.match(/<\/script/gi)).toHaveLength(4)
    expect(html).not.toContain('<!--')
    expect(html).not.toContain('<img')
    const data = embedded(html)
    expect(data.tests[1]?.name).toBe(HOSTILE)
    expect(data.strings[data.tests[1]?.file ?? -1]).toBe(`${HOSTILE}.test.ts`)
    expect(data.tests[1]?.failure?.message).toBe(HOSTILE)
  })

  test('self-contained: inlined code, no external reference, and only the inlined scripts may run', () => {
    const html = renderHtml(buildEnergyReport([entry(0)]))
    const markup = html.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, '')
    expect(markup).not.toMatch(/<link|\ssrc=|\shref=|https?:/i)
    expect(html).toContain('var uPlot=') // uPlot's IIFE build
    expect(html).toContain('d3-hierarchy') // its UMD build's banner
    const bodies = [...html.matchAll(/<script(?: type="module")?>([\s\S]*?)<\/script>/g)].map(
      (m) => m[1] ?? '',
    )
    expect(bodies).toHaveLength(3)
    const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1] ?? ''
    expect(csp).toContain("default-src 'none'")
    for (const body of bodies) {
      const hash = createHash('sha256').update(body, 'utf8').digest('base64')
      expect(csp, 'each script is allowed by its hash').toContain(`'sha256-${hash}'`)
    }
    expect(csp).not.toContain("script-src 'unsafe-inline'")
  })

  test('uPlot gets a language Intl accepts where WebKitGTK reports the POSIX locale as "C"', () => {
    const html = renderHtml(buildEnergyReport([entry(0)]))
    expect(html).toContain(`<script>${LOCALE_GUARD}`) // before uPlot, in its script element
    expect(() => new Intl.NumberFormat('C')).toThrow(RangeError)
    for (const [language, after] of [
      ['C', new Intl.NumberFormat().resolvedOptions().locale],
      ['de-CH', 'de-CH'],
    ]) {
      const navigator = { language }
      new Function('navigator', LOCALE_GUARD)(navigator)
      expect(navigator.language).toBe(after)
      expect(() => new Intl.NumberFormat(navigator.language)).not.toThrow()
    }
  })

  test('10,000 tests (20 methods, 4 rails each) fit in 25 MB', () => {
    const report = buildEnergyReport(Array.from({ length: 10_000 }, (_, i) => entry(i)))
    const html = renderHtml(report)
    const bytes = Buffer.byteLength(html)
    expect(bytes, `${(bytes / 1e6).toFixed(1)} MB`).toBeLessThanOrEqual(25e6)
    const data = embedded(html)
    expect(data.tests).toHaveLength(10_000)
    const last = data.tests[9_999]?.windows[0] as HtmlMeasuredWindow
    expect(last.methods).toHaveLength(20)
    expect(last.rails).toHaveLength(4)
  })

  test('figures keep 6 significant digits; windows start from the test’s first window', () => {
    const report = buildEnergyReport([entry(3)])
    const data = htmlData(report)
    const test0 = data.tests[0]
    const window = test0?.windows[0] as HtmlMeasuredWindow
    const source = report.tests[0]?.results[0]
    if (source?.status !== 'measured') throw new Error('expected a measured window')
    expect(window.startS).toBe(0)
    expect(window.grossEnergyJ).toBe(Number(source.grossEnergyJ.toPrecision(6)))
    const [name, selfJ, calleesJ] = window.methods[0] ?? []
    expect(data.strings[name ?? -1]).toBe(source.methods[0]?.method)
    expect(selfJ).toBe(Number(source.methods[0]?.localEnergyJ.toPrecision(6)))
    expect(calleesJ).toBe(Number(source.methods[0]?.nonLocalEnergyJ.toPrecision(6)))
    expect(test0?.netEnergyJ).toBeCloseTo(report.tests[0]?.netEnergyJ ?? 0, 5)
  })

  test('budget review: old → new values for added, changed and removed entries, linked to tests', () => {
    const entries = [entry(0, 'kept'), entry(1, 'new')]
    const before: BudgetFile = {
      schemaVersion: 1,
      tests: {
        'suite0.test.ts': {
          kept: { 'Pixel 6': { energyJ: 0.5, measuredEnergyJ: 0.45 } },
          gone: { '*': { energyJ: 2 } },
        },
      },
    }
    const after: BudgetFile = {
      schemaVersion: 1,
      tests: {
        'suite0.test.ts': { kept: { 'Pixel 6': { energyJ: 0.8, measuredEnergyJ: 0.7 } } },
        'suite1.test.ts': { new: { 'Pixel 6': { energyJ: 1.4, measuredEnergyJ: 1.29 } } },
      },
    }
    const fileKey = (file: string): string => file.replace('test/ui/', '')
    const report = buildEnergyReport(entries, {
      budgets: {
        file: after,
        path: 'energy-budgets.json',
        fileKey,
        update: {
          added: [{ file: 'suite1.test.ts', name: 'new', device: 'Pixel 6' }],
          changed: [{ file: 'suite0.test.ts', name: 'kept', device: 'Pixel 6' }],
          removed: [{ file: 'suite0.test.ts', name: 'gone', device: '*' }],
        },
      },
    })
    const budgets = htmlData(report, { budgetReview: { before, after, fileKey } }).budgets
    expect(budgets?.updated).toBe(true)
    expect(budgets?.entries).toEqual([
      {
        kind: 'added',
        file: 'suite1.test.ts',
        name: 'new',
        device: 'Pixel 6',
        after: { energyJ: 1.4, measuredEnergyJ: 1.29 },
        test: 1,
      },
      {
        kind: 'changed',
        file: 'suite0.test.ts',
        name: 'kept',
        device: 'Pixel 6',
        before: { energyJ: 0.5, measuredEnergyJ: 0.45 },
        after: { energyJ: 0.8, measuredEnergyJ: 0.7 },
        test: 0,
      },
      {
        kind: 'obsolete',
        file: 'suite0.test.ts',
        name: 'gone',
        device: '*',
        before: { energyJ: 2 },
      },
    ])
  })

  // The Budgets view lists the tests the summary counts without a budget: those `-u` would write
  // (95d06a4), never a measured test that did not ask for one.
  test('tests without a budget: exactly those -u would write, the summary’s count', () => {
    const root = mkdtempSync(join(tmpdir(), 'vitest-energy-html-missing-'))
    try {
      const budgetsPath = join(root, 'energy-budgets.json')
      const has = entry(0, 'has a budget')
      writeFileSync(
        budgetsPath,
        JSON.stringify({
          schemaVersion: 1,
          tests: { [has.file]: { [has.name]: { '*': { energyJ: 100 } } } },
        }),
      )
      const idle = entry(4, 'idle')
      const window = idle.results[0]
      if (window?.status !== 'measured') throw new Error('expected a measured window')
      const repeated = entry(5, 'asked, repeated, none')
      const entries: ReportEntry[] = [
        { ...has, budgetRequested: true },
        { ...entry(1, 'asked, none'), budgetRequested: true },
        entry(2, 'measured, never asked'),
        { ...entry(3, 'recordEnergy(), none'), budgetRequested: 'unknown' },
        {
          ...idle,
          budgetRequested: true,
          results: [
            { ...window, netEnergyJ: 0.01, netIntervalJ: { low: -0.1, high: 0.12, level: 0.95 } },
          ],
        },
        {
          ...repeated,
          budgetRequested: true,
          results: [1, 2, 3].map((k) => ({
            ...repeated.results[0]!,
            label: `${repeated.name} #${k}`,
          })),
        },
      ]
      const problems: string[] = []
      const built = buildRunReport(
        entries,
        { root, budgetsPath, headroomPct: 10, update: 'none', classify: false },
        problems,
      )
      expect(problems).toEqual([])
      const budgets = htmlData(built.report, { budgetReview: built.budgetReview! }).budgets
      const names = budgets?.withoutBudget.map((i) => built.report.tests[i]?.name)
      expect(names).toEqual(['asked, none', 'recordEnergy(), none', 'asked, repeated, none'])
      expect(names).toHaveLength(built.report.budgets?.missing ?? -1)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
