/**
 * Reporter benchmark (issue 6): 10,000 tests with energy meta (one 2 s window each, 20 methods,
 * 4 rails, a budget for every test; each window's timeline — ODPM read every 100 ms, thinned, 8
 * activity lanes — and call tree built by the fixture's own code from synthetic readings and 1 kHz
 * stack samples) → build the report, render terminal + JSON + markdown.
 * Target: ≤ 1 s. Run: npx tsx bench/reporter.ts
 *
 * HTML report (issue 14): the same report rendered to HTML (target ≤ 1 s, file ≤ 25 MB), then,
 * when Chromium is installed (CHROMIUM or /usr/bin/chromium), time to interactive in headless
 * Chromium: from navigation to the first view drawn, and to the tests table drawn.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { DETAIL_BUDGET_BYTES, htmlData } from '../reporter/html/data.js'
import { renderHtml } from '../reporter/html/index.js'
import { renderJson } from '../reporter/index.js'
import { renderMarkdown } from '../reporter/markdown.js'
import { buildEnergyReport, type ReportEntry } from '../reporter/report.js'
import { plainScreen } from '../reporter/screen.js'
import { renderTerminal } from '../reporter/terminal.js'
import {
  measuredResult,
  methodEnergy,
  parseTestEnergyMeta,
  summarize,
  type CallTreeNode,
  type MeasuredEnergyResult,
} from '../src/model/index.js'
import type { BudgetFile } from '../src/budgets/index.js'
import { windowDetail } from '../test/reporter/html/project/_energy.js'

const TESTS = 10_000
const TARGET_S = 1
/** Distinct timelines and call trees (built once each), scaled to each test's energy. */
const SHAPES = 50

/** Callers of method m: the looper, then one of four screens and, for some, a helper between. */
function callers(m: number): string[] {
  const screen = `com.example.trails.ui.Screen${m % 4}.onFrame`
  return m % 3 === 0
    ? ['android.app.ActivityThread.main', 'android.os.Looper.loop', screen]
    : [
        'android.app.ActivityThread.main',
        'android.os.Looper.loop',
        screen,
        `com.example.trails.ui.Helper${m % 5}.run`,
      ]
}

const scaleTree = (n: CallTreeNode, k: number): CallTreeNode => ({
  ...n,
  selfEnergyJ: n.selfEnergyJ * k,
  inclusiveEnergyJ: n.inclusiveEnergyJ * k,
  ...(n.children === undefined ? {} : { children: n.children.map((c) => scaleTree(c, k)) }),
})

const shapes = new Map<
  number,
  { readonly grossJ: number; readonly detail: Pick<MeasuredEnergyResult, 'timeline' | 'callTree'> }
>()

/**
 * The window's timeline and call tree: its shape's (built from the first window of that shape),
 * scaled to its own energy — every figure of a shape's windows is proportional to its gross.
 */
function detail(w: MeasuredEnergyResult, shape: number) {
  let built = shapes.get(shape)
  if (built === undefined) {
    const names = w.methods.map((m) => m.method)
    built = {
      grossJ: w.grossEnergyJ,
      detail: windowDetail(w, {
        callers: Object.fromEntries(names.map((name, m) => [name, callers(m + shape)])),
      }),
    }
    shapes.set(shape, built)
  }
  const k = w.grossEnergyJ / built.grossJ
  const { timeline: t, callTree } = built.detail
  return {
    ...(t === undefined
      ? {}
      : {
          timeline: {
            ...t,
            series: t.series.map((s) => ({ ...s, powerW: s.powerW.map((p) => p * k) })),
          },
        }),
    ...(callTree === undefined ? {} : { callTree: scaleTree(callTree, k) }),
  }
}

function entries(): ReportEntry[] {
  const out: ReportEntry[] = []
  for (let i = 0; i < TESTS; i++) {
    const gross = 1 + (i % 97) / 10
    const shape = i % SHAPES
    const window = (g: number): MeasuredEnergyResult =>
      measuredResult({
        label: `test ${i}`,
        window: { clock: 'boottime', startNs: 0, endNs: 2_000_000_000 },
        grossEnergyJ: g,
        baselinePowerW: 0.25,
        netIntervalJ: { low: g - 0.6, high: g - 0.4, level: 0.95 },
        components: [{ component: 'cpu', energyJ: g * 0.6 }],
        rails: ['CPUCL0', 'CPUCL1', 'DISPLAY', 'WLANBT'].map((rail, k) => ({
          rail: `S${k}M_VDD_${rail}`,
          subsystem: rail,
          energyJ: g * 0.1 * (k + 1),
        })),
        methods: Array.from({ length: 20 }, (_, m) =>
          methodEnergy({
            method: `com.example.trails.pkg${m % 4}.Class${m}.method${m}`,
            attribution: 'sampling',
            localEnergyJ: g / (m + 10 + ((m * shape) % 7)),
            nonLocalEnergyJ: 0,
            color: m % 3 === 0 ? 'red' : m % 3 === 1 ? 'yellow' : 'green',
          }),
        ),
        sources: { power: 'odpm', execution: 'simpleperf', sampleCount: 20, sensorRateHz: 10 },
        warnings:
          i % 50 === 0
            ? [{ code: 'W_UNDERSAMPLED', severity: 'warning', message: 'few samples' }]
            : [],
      })
    const w = window(gross)
    const meta = summarize([{ ...w, ...detail(w, shape) }])
    // The reporter receives meta as JSON (blob round trip / RPC): include the parse.
    const results = parseTestEnergyMeta(JSON.parse(JSON.stringify(meta))).results
    out.push({
      file: `test/ui/suite${i % 50}.test.ts`,
      name: `feature ${i % 200} > scenario ${i}`,
      state: i % 40 === 0 ? 'failed' : 'passed',
      results,
      errors: i % 40 === 0 ? ['expected 6 to be less than 5'] : [],
    })
  }
  return out
}

function budgets(list: readonly ReportEntry[]): BudgetFile {
  const tests: Record<string, Record<string, Record<string, { energyJ: number }>>> = {}
  for (const e of list) (tests[e.file] ??= {})[e.name] = { '*': { energyJ: 6 } }
  return { schemaVersion: 1, tests }
}

const list = entries()
const file = budgets(list)
const times: number[] = []
const phases = {
  build: [] as number[],
  terminal: [] as number[],
  json: [] as number[],
  markdown: [] as number[],
}
let sizes = { terminal: 0, json: 0, markdown: 0 }
for (let round = 0; round < 7; round++) {
  const t0 = performance.now()
  const report = buildEnergyReport(list, { budgets: { file, path: 'energy-budgets.json' } })
  const t1 = performance.now()
  const terminal = renderTerminal(report, plainScreen, { topMethods: 3 })
  const t2 = performance.now()
  const json = renderJson(report)
  const t3 = performance.now()
  const markdown = renderMarkdown(report)
  const t4 = performance.now()
  times.push((t4 - t0) / 1000)
  phases.build.push(t1 - t0)
  phases.terminal.push(t2 - t1)
  phases.json.push(t3 - t2)
  phases.markdown.push(t4 - t3)
  sizes = { terminal: terminal.length, json: json.length, markdown: markdown.length }
}
times.sort((a, b) => a - b)
const median = times[Math.floor(times.length / 2)] ?? Number.NaN
console.log(
  `reporter: ${TESTS} tests (20 methods, 4 rails, a budget each; timelines and call trees of ${SHAPES} shapes)`,
)
console.log(
  `  build + terminal + JSON + markdown: median ${median.toFixed(3)} s (min ${times[0]?.toFixed(3)} s, max ${times.at(-1)?.toFixed(3)} s, 7 rounds)`,
)
const med = (xs: number[]): string =>
  `${([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0).toFixed(0)} ms`
console.log(
  `  phases (median): build ${med(phases.build)}, terminal ${med(phases.terminal)}, JSON ${med(phases.json)}, markdown ${med(phases.markdown)}`,
)
console.log(
  `  output: terminal ${(sizes.terminal / 1e6).toFixed(1)} MB, JSON ${(sizes.json / 1e6).toFixed(1)} MB, markdown ${(sizes.markdown / 1e6).toFixed(1)} MB`,
)
console.log(
  `  target ≤ ${TARGET_S} s: ratio ${(median / TARGET_S).toFixed(2)} ${median <= TARGET_S ? '(met)' : '(NOT met)'}`,
)

// ─── HTML ──────────────────────────────────────────────────────────────────────────────────────

const HTML_TARGET_S = 1
const HTML_MAX_BYTES = 25e6
const report = buildEnergyReport(list, { budgets: { file, path: 'energy-budgets.json' } })
const c0 = performance.now()
let html = renderHtml(report)
const cold = (performance.now() - c0) / 1000
const htmlTimes: number[] = []
for (let round = 0; round < 7; round++) {
  const t0 = performance.now()
  html = renderHtml(report)
  htmlTimes.push((performance.now() - t0) / 1000)
}
htmlTimes.sort((a, b) => a - b)
const htmlMedian = htmlTimes[Math.floor(htmlTimes.length / 2)] ?? Number.NaN
const htmlBytes = Buffer.byteLength(html)
const embedded = htmlData(report).tests.flatMap((t) => t.windows)
const detailed = embedded.filter((w) => w.status === 'measured' && w.timeline !== undefined).length
console.log(
  `  timelines and call trees embedded for ${detailed} of ${embedded.length} windows (the HTML's detail budget, ${DETAIL_BUDGET_BYTES / 1e6} MB); the JSON report has all`,
)
console.log(`HTML report: ${TESTS} tests`)
console.log(
  `  render: median ${htmlMedian.toFixed(3)} s (min ${htmlTimes[0]?.toFixed(3)} s, max ${htmlTimes.at(-1)?.toFixed(3)} s, 7 rounds; first call ${cold.toFixed(3)} s, reading the libraries and the page script)`,
)
console.log(
  `  size: ${(htmlBytes / 1e6).toFixed(1)} MB (${htmlBytes} bytes)  target ≤ ${HTML_MAX_BYTES / 1e6} MB ${htmlBytes <= HTML_MAX_BYTES ? '(met)' : '(NOT met)'}`,
)
console.log(
  `  target ≤ ${HTML_TARGET_S} s: ratio ${(htmlMedian / HTML_TARGET_S).toFixed(2)} ${htmlMedian <= HTML_TARGET_S ? '(met)' : '(NOT met)'}`,
)

const chromiumPath = process.env['CHROMIUM'] ?? '/usr/bin/chromium'
if (!existsSync(chromiumPath)) {
  console.log(`  time to interactive: skipped, no Chromium at ${chromiumPath} (set CHROMIUM)`)
} else {
  const { default: puppeteer } = await import('puppeteer-core')
  const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-bench-html-'))
  const path = join(dir, 'index.html')
  await writeFile(path, html)
  // The sandbox needs user namespaces that containers and root lack; the page is our own report.
  const browser = await puppeteer.launch({
    browser: 'chrome',
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox'],
    defaultViewport: { width: 1280, height: 900 },
  })
  try {
    const ready: number[] = []
    const table: number[] = []
    for (let round = 0; round < 5; round++) {
      const page = await browser.newPage()
      const t0 = performance.now()
      await page.goto(pathToFileURL(path).href)
      await page.waitForSelector('html[data-ready=true]', { timeout: 60_000 })
      const t1 = performance.now()
      await page.click('#tab-tests')
      await page.waitForSelector('#tests-table tbody tr')
      const t2 = performance.now()
      ready.push(t1 - t0)
      table.push(t2 - t1)
      await page.close()
    }
    const med = (xs: number[]): string =>
      `${([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0).toFixed(0)} ms`
    console.log(
      `  time to interactive, headless Chromium (${await browser.version()}), median of 5: overview drawn ${med(ready)} after navigation; tests table (first page of 100) ${med(table)} after the click`,
    )
  } finally {
    await browser.close()
    await rm(dir, { recursive: true, force: true })
  }
}
