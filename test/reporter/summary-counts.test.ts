/**
 * The run's summary never says more than it shows: its warning count is what the Warnings lines
 * list (notes counted apart).
 */
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { renderMarkdown } from '../../reporter/markdown.js'
import { buildEnergyReport, type ReportEntry } from '../../reporter/report.js'
import { plainScreen } from '../../reporter/screen.js'
import { renderTerminal } from '../../reporter/terminal.js'
import { measuredResult, type EnergyWarning, type LimitCheck } from '../../src/model/index.js'

const CODES = [
  { code: 'W_SLOW_SENSOR', severity: 'warning' },
  { code: 'W_WAKELOCK_HELD', severity: 'warning' },
  { code: 'W_UNDERSAMPLED', severity: 'info' },
  { code: 'W_NEGATIVE_NET', severity: 'info' },
] as const

/** A test's windows with these warnings; `judged`: it asked for a budget (a verdict on it). */
function entry(name: string, warnings: readonly EnergyWarning[][], judged = true): ReportEntry {
  return {
    file: 'a.test.ts',
    name,
    state: 'passed',
    ...(judged ? { budgetRequested: true } : {}),
    errors: [],
    results: warnings.map((w, i) =>
      measuredResult({
        label: `${name} #${i + 1}`,
        window: { clock: 'boottime', startNs: 0, endNs: 1e9 },
        grossEnergyJ: 1.5,
        baselinePowerW: 0.5,
        components: [],
        rails: [],
        methods: [],
        sources: { power: 'odpm', sampleCount: 10 },
        warnings: w,
      }),
    ),
  }
}

/** `· N warnings` of the Energy line, and the ×N of each listed code. */
function counts(out: string): { said: number; listed: number; notes: number } {
  const said = /· (\d+) warnings?/.exec(out)
  const notes = /· (\d+) notes?/.exec(out)
  const listed = [...out.matchAll(/⚠ W_[A-Z_]+ ×(\d+)/g)].reduce((a, m) => a + Number(m[1]), 0)
  return { said: Number(said?.[1] ?? 0), listed, notes: Number(notes?.[1] ?? 0) }
}

test('two notes and no warning: no warning count, "2 notes"', () => {
  const note = { code: 'W_NEGATIVE_NET', severity: 'info', message: 'Below idle.' } as const
  const out = renderTerminal(buildEnergyReport([entry('t', [[note], [note]], false)]), plainScreen)
  expect(out).not.toMatch(/· \d+ warning/)
  expect(out).toContain('· 2 notes')
  expect(out).not.toContain(' Warnings ')
})

test('the note count says where the notes are listed', () => {
  const note = { code: 'W_NEGATIVE_NET', severity: 'info', message: 'Below idle.' } as const
  const report = buildEnergyReport([entry('t', [[note]], false)])
  expect(renderTerminal(report, plainScreen)).toContain(
    "· 1 note (facts, in the HTML report's Warnings)",
  )
  expect(renderTerminal(report, plainScreen, { htmlReport: false })).toContain(
    '· 1 note (facts; `verbose: true` lists them)',
  )
  const verbose = renderTerminal(report, plainScreen, { verbose: true, htmlReport: false })
  expect(verbose).toContain('· 1 note (facts, in each window above)')
  // Listed as a note (ℹ), not a warning (⚠).
  expect(verbose).toContain('ℹ W_NEGATIVE_NET Below idle.')
  expect(verbose).not.toContain('⚠ W_NEGATIVE_NET')
})

test('the warning count is the sum of the listed codes, in the terminal and in markdown', () => {
  const warning = fc.constantFrom(...CODES).map((c) => ({ ...c, message: `${c.code}.` }))
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          windows: fc.array(fc.array(warning, { maxLength: 4 }), { minLength: 1, maxLength: 3 }),
          judged: fc.boolean(),
        }),
        { minLength: 1, maxLength: 4 },
      ),
      (tests) => {
        const report = buildEnergyReport(
          tests.map((t, i) => entry(`test ${i}`, t.windows, t.judged)),
        )
        const { said, listed, notes } = counts(renderTerminal(report, plainScreen))
        expect(said).toBe(listed)
        // W_SLOW_SENSOR is a note in a test that nothing judges; W_NEGATIVE_NET a warning in one
        // whose budget judges its net.
        const isWarning = (x: EnergyWarning, judged: boolean): boolean =>
          judged
            ? x.severity !== 'info' || x.code === 'W_NEGATIVE_NET'
            : x.severity !== 'info' && x.code !== 'W_SLOW_SENSOR'
        const perWindow = (severe: boolean) =>
          tests
            .flatMap((t) =>
              t.windows.map(
                (w) =>
                  new Set(w.filter((x) => isWarning(x, t.judged) === severe).map((x) => x.code))
                    .size,
              ),
            )
            .reduce((a, b) => a + b, 0)
        expect(listed).toBe(perWindow(true))
        expect(notes).toBe(perWindow(false))
        const md = renderMarkdown(report)
        expect(Number(/, (\d+) warning\(s\)/.exec(md)?.[1] ?? 0)).toBe(listed)
        expect(Number(/, (\d+) note\(s\)/.exec(md)?.[1] ?? 0)).toBe(notes)
      },
    ),
  )
})

/** A passed `toConsumeLessThan` limit on a window's `scope`. */
const limit = (scope: string): LimitCheck => ({
  matcher: 'toConsumeLessThan',
  negated: false,
  comparison: '<',
  limit: 0.5,
  unit: 'J',
  scope,
  value: -0.424,
  n: 1,
  verdict: 'within',
  passed: true,
})

describe('W_SLOW_SENSOR asks for action only where a verdict depends on the window', () => {
  const slow = {
    code: 'W_SLOW_SENSOR',
    severity: 'warning',
    message: '30% of this 400 ms window lies in the sensor intervals its edges cut.',
  } as const

  test('in a test nothing judges: a note, listed in the JSON and HTML, not among the warnings', () => {
    const report = buildEnergyReport([entry('a click', [[slow], [slow]], false)])
    const out = renderTerminal(report, plainScreen)
    expect(out).not.toMatch(/· \d+ warning/)
    expect(out).not.toContain('⚠ W_SLOW_SENSOR')
    expect(out).toContain('· 2 notes')
    const [first] = report.tests[0]?.results ?? []
    expect(first?.status === 'measured' && first.warnings).toEqual([
      {
        code: 'W_SLOW_SENSOR',
        severity: 'info',
        message: `${slow.message} (A note: no matcher or budget judges this test's energy.)`,
      },
    ])
  })

  test('with a matcher or a budget on the test: a warning, as raised', () => {
    const limited = { ...entry('judged by a matcher', [[slow]], false), limits: [limit('net')] }
    const budgeted = entry('asks for its budget', [[slow]], true)
    const report = buildEnergyReport([limited, budgeted])
    const out = renderTerminal(report, plainScreen)
    expect(out).toMatch(/⚠ W_SLOW_SENSOR ×2/)
    for (const t of report.tests)
      expect(t.results[0]?.status === 'measured' && t.results[0].warnings).toEqual([slow])
  })
})

describe('W_NEGATIVE_NET is a warning where a verdict is on the net', () => {
  const below = {
    code: 'W_NEGATIVE_NET',
    severity: 'info',
    message: 'Below idle: net energy is negative (-424 mJ).',
  } as const

  test('a limit on the net or a budget: a warning the summary lists', () => {
    const onNet = { ...entry('judged on its net', [[below]], false), limits: [limit('net')] }
    const budgeted = entry('asks for its budget', [[below]], true)
    const report = buildEnergyReport([onNet, budgeted])
    expect(renderTerminal(report, plainScreen)).toMatch(/⚠ W_NEGATIVE_NET ×2/)
    const first = report.tests[0]?.results[0]
    const [w] = first?.status === 'measured' ? first.warnings : []
    expect(w).toEqual({
      code: 'W_NEGATIVE_NET',
      severity: 'warning',
      message: `${below.message} (A warning here: this test's verdict is on its net energy.)`,
    })
  })

  test('judged on the gross or not at all: a note, as raised', () => {
    const onGross = { ...entry('judged on its gross', [[below]], false), limits: [limit('gross')] }
    const free = entry('not judged', [[below]], false)
    const report = buildEnergyReport([onGross, free])
    const out = renderTerminal(report, plainScreen)
    expect(out).not.toContain('⚠ W_NEGATIVE_NET')
    expect(out).toContain('· 2 notes')
    for (const t of report.tests) {
      const r = t.results[0]
      expect(r?.status === 'measured' && r.warnings).toEqual([below])
    }
  })
})
