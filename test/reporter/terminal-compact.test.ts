// The terminal report says what matters (issue 14, part 2), on hand-built reports: one line per
// test, the detail only of tests that failed, went over budget or regressed (`verbose` details
// all), warnings once per run by code, and method lists that show the app's own methods.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test, vi } from 'vitest'
import EnergyReporter from '../../reporter/index.js'
import { renderJson } from '../../reporter/json.js'
import { renderMarkdown } from '../../reporter/markdown.js'
import { buildEnergyReport, type ReportEntry } from '../../reporter/report.js'
import { plainScreen } from '../../reporter/screen.js'
import { foldMethods, renderTerminal, WARNING_ADVICE } from '../../reporter/terminal.js'
import {
  measuredResult,
  methodEnergy,
  type EnergyWarning,
  type MeasuredEnergyResult,
} from '../../src/model/index.js'
import { parseBudgetFile } from '../../src/budgets/index.js'

const undersampled: EnergyWarning = {
  code: 'W_UNDERSAMPLED',
  severity: 'warning',
  message: 'Only 82 stack samples in the window, fewer than 200, so per-method figures are wide.',
}
const odd: EnergyWarning = {
  code: 'W_SOMETHING_NEW',
  severity: 'warning',
  message: 'a collector noticed something; here is the long tail of its story',
}

/** A window of 1 s: gross J, baseline 0.5 W, the usual stack of native and platform frames. */
function window(label: string, grossEnergyJ: number, warnings: EnergyWarning[] = []) {
  const m = (method: string, localEnergyJ: number, nonLocalEnergyJ: number, asyncEnergyJ = 0) =>
    methodEnergy({ method, attribution: 'sampling', localEnergyJ, nonLocalEnergyJ, asyncEnergyJ })
  return measuredResult({
    label,
    window: { clock: 'boottime', startNs: 0, endNs: 1e9 },
    grossEnergyJ,
    baselinePowerW: 0.5,
    components: [],
    rails: [
      { rail: 'VSYS_PWR_DISPLAY', subsystem: 'Display', energyJ: grossEnergyJ * 0.8 },
      { rail: 'S4M_VDD_CPUCL0', subsystem: 'CPU(LITTLE)', energyJ: grossEnergyJ * 0.2 },
    ],
    methods: [
      m('__start_thread', 0, 0.02),
      m('art_quick_invoke_stub', 0, 0.02),
      m('android.app.ActivityThread.main', 0, 0.02),
      m('android.os.Looper.loop', 0, 0.02),
      m('com.example.trails.FeedAdapter.bind', 0.01, 0.005),
      m('com.example.trails.ElevationProfile.smooth', 0.005, 0),
      m('com.example.trails.SyncManager.poll', 0, 0, 0.3),
      m('com.example.trails.Idle.nothing', 0, 0),
    ],
    sources: { power: 'odpm', execution: 'simpleperf', sampleCount: 10 },
    battery: { capacityJ: 55_000, percentOfCapacity: 0.002, percentPerHour: 6 },
    warnings,
  })
}

const entry = (
  name: string,
  results: MeasuredEnergyResult[],
  extra: Partial<ReportEntry> = {},
): ReportEntry => ({ file: 'feed.test.ts', name, state: 'passed', results, errors: [], ...extra })

const entries: ReportEntry[] = [
  entry('opening the feed', [window('opening the feed', 1, [undersampled])]),
  entry('binding rows', [window('binding rows', 2, [undersampled, odd])], {
    state: 'failed',
    errors: ['expect(method).toConsumeLessThan(1 mJ)'],
    failure: { message: 'expect(method).toConsumeLessThan(1 mJ)\n\nReceived: 15.0 mJ' },
  }),
  entry('the radio is quiet', [window('quiet', 1.5, [undersampled])], { expectedToFail: true }),
  entry(
    'scrolling',
    [1, 2, 3].map((i) => window(`scroll #${i}`, 0.6 + i / 100, [undersampled])),
  ),
  entry('over its budget', [window('over its budget', 3)]),
]
const budgets = parseBudgetFile(
  JSON.stringify({
    schemaVersion: 1,
    tests: {
      'feed.test.ts': {
        'opening the feed': { '*': { energyJ: 1, measuredEnergyJ: 0.5 } },
        'over its budget': { '*': { energyJ: 2, measuredEnergyJ: 2 } },
      },
    },
  }),
  'energy-budgets.json',
)
const report = buildEnergyReport(entries, {
  budgets: { file: budgets, path: 'energy-budgets.json' },
})
const compact = renderTerminal(report, plainScreen)
const lines = compact.split('\n')
const block = (name: string): string[] => {
  const at = lines.findIndex((l) => l.includes(` ${name} `))
  const next = lines.findIndex((l, i) => i > at && /^ {3}\S/.test(l))
  return lines.slice(at, next)
}

describe('compact by default', () => {
  test('a passing test within budget is one line: net (gross), budget use and verdict', () => {
    expect(block('opening the feed')).toEqual([
      '   ✓ opening the feed    ·    500 mJ net (1.00 J gross)  500 mJ  50% of budget 1.00 J ✓',
    ])
  })

  test('a test that only measured the idle phone (energy.baseline()) shows its power, not 0 J', () => {
    const idle = { ...window('idle baseline', 1.3), idleBaseline: true as const }
    const out = renderTerminal(buildEnergyReport([entry('an idle phone', [idle])]), plainScreen)
    expect(out).toContain('   ✓ an idle phone  · idle 1.30 W over 1.00 s (energy.baseline())\n')
    expect(out).not.toContain('0 J net (')
    expect(out, 'nothing to rank').not.toContain('Hungriest')
  })

  test('a failed test has its detail: methods, rails, warnings, the whole failure', () => {
    expect(block('binding rows')).toEqual([
      '   ✗ binding rows        ·    1.50 J net (2.00 J gross)',
      '       methods 0 J SyncManager.poll +300 mJ async · 15.0 mJ FeedAdapter.bind · 5.00 mJ ElevationProfile.smooth',
      '       rails   gross Display 1.60 J · CPU(LITTLE) 400 mJ',
      `       ⚠ W_UNDERSAMPLED ${undersampled.message}`,
      `       ⚠ W_SOMETHING_NEW ${odd.message}`,
      '       expect(method).toConsumeLessThan(1 mJ)',
      '       Received: 15.0 mJ',
    ])
  })

  test('a test that failed as `test.fails` expects, and one over budget, are detailed', () => {
    expect(block('the radio is quiet')[0]).toMatch(/^ {3}⚑ the radio is quiet/)
    expect(block('the radio is quiet')).toHaveLength(4)
    expect(block('over its budget')[0]).toMatch(/125% of budget 2\.00 J ✗ over$/)
    expect(block('over its budget')[1]).toMatch(/^ {7}methods /)
    expect(compact).toContain('Tests     1 failed · 3 passed · 1 failed as expected')
  })

  test('the repetitions of energy.repeat are one block; their warnings once, with a count', () => {
    // Not detailed by default (it passed); verbose shows each window.
    expect(block('scrolling')).toHaveLength(1)
    const failing = renderTerminal(
      buildEnergyReport([{ ...entries[3]!, state: 'failed', failure: { message: 'regressed' } }]),
      plainScreen,
    )
    expect(failing).toContain(
      [
        '       window scroll #1–#3: 120 mJ net on average (110 mJ – 130 mJ), 1.00 s each',
        '       methods 0 J SyncManager.poll +300 mJ async · 15.0 mJ FeedAdapter.bind · 5.00 mJ ElevationProfile.smooth',
        '       rails   gross Display 496 mJ · CPU(LITTLE) 124 mJ',
        `       ⚠ W_UNDERSAMPLED ${undersampled.message} (all 3 repetitions)`,
        '       regressed',
      ].join('\n'),
    )
  })

  test('battery and the lone 95% interval line are verbose-only', () => {
    expect(compact).not.toContain('battery')
  })
})

describe('energy another test left on', () => {
  // A sync's cellular tail drew 1.58 J in the next test's window: its own energy is 40 mJ, which
  // matchers and budgets judge (test/matchers/matchers.test.ts), so the report ranks and heads its
  // row with that, and says what the net energy includes.
  const afterSync = entry('after the sync', [
    { ...window('after the sync', 2.12), carriedOverJ: 1.58 },
  ])
  const busy = entry('a busy test', [window('a busy test', 1)])
  const carried = buildEnergyReport([afterSync, busy])
  const out = renderTerminal(carried, plainScreen)

  test('the hungriest tests are ranked by their own energy, not by what another test left on', () => {
    expect(carried.summary.worst.map((w) => w.name)).toEqual(['a busy test', 'after the sync'])
    expect(carried.summary.worst[1]?.netEnergyJ).toBeCloseTo(1.62, 12)
    expect(carried.summary.worst[1]?.ownEnergyJ).toBeCloseTo(0.04, 12)
    expect(carried.tests[0]?.ownEnergyJ).toBeCloseTo(0.04, 12)
    expect(carried.tests[1]?.ownEnergyJ, 'nothing carried over: own is net').toBe(0.5)
    expect(out).toContain(' Hungriest a busy test (500 mJ) · after the sync (40.0 mJ)\n')
  })

  test('the row heads with the own energy; the net energy says what it includes', () => {
    expect(out).toContain(
      '   ✓ after the sync  ·   40.0 mJ own (1.62 J net incl. 1.58 J another test left on; 2.12 J gross)\n',
    )
    expect(out, 'nothing carried over: as before').toContain(
      '   ✓ a busy test     ·    500 mJ net (1.00 J gross)\n',
    )
    const verbose = renderTerminal(carried, plainScreen, { verbose: true })
    expect(verbose).toMatch(
      / after the sync +· +40\.0 mJ own +1\.62 J net incl\. 1\.58 J another test left on +2\.12 J gross +2\.12 W +1\.00 s/,
    )
  })

  test("a test's windows and repetitions in detail: each one's own energy first", () => {
    const windows = buildEnergyReport([
      entry(
        'map after the sync',
        [{ ...window('opening the map', 2.12), carriedOverJ: 1.58 }, window('panning', 0.7)],
        { state: 'failed', failure: { message: 'over' } },
      ),
      entry(
        'scrolling after the sync',
        [1, 2, 3].map((i) => ({ ...window(`scroll #${i}`, 0.6 + i / 100), carriedOverJ: 0.05 })),
        { state: 'failed', failure: { message: 'over' } },
      ),
    ])
    const detail = renderTerminal(windows, plainScreen)
    expect(detail).toContain(
      '       window opening the map: 40.0 mJ own (1.62 J net incl. 1.58 J another test left on), 1.00 s\n',
    )
    expect(detail).toContain('       window panning: 200 mJ net, 1.00 s\n')
    expect(detail).toContain(
      '       window scroll #1–#3: 70.0 mJ own on average (60.0 mJ – 80.0 mJ; 120 mJ net incl. 50.0 mJ another test left on), 1.00 s each\n',
    )
  })

  test('the baseline comparison compares own energies: a radio left on is no regression', () => {
    // The baseline run had the same test without the sync before it: 40 mJ net, all its own.
    const base = buildEnergyReport([entry('after the sync', [window('after the sync', 0.54)])])
    const compared = buildEnergyReport([afterSync], {
      baseline: { report: base, path: 'main.json' },
    })
    const delta = compared.tests[0]?.baseline
    expect(delta?.baselineNetEnergyJ).toBeCloseTo(0.04, 12)
    expect(delta?.deltaJ).toBeCloseTo(0, 12)
    expect(delta?.verdict).toBe('same')
    // And the other way round: the baseline's carried-over energy is not an improvement now.
    const back = buildEnergyReport([entry('after the sync', [window('after the sync', 0.54)])], {
      baseline: { report: carried, path: 'main.json' },
    })
    expect(back.tests[0]?.baseline?.verdict).toBe('same')
  })

  test('the markdown says what the net energy includes, and the own energy', () => {
    expect(renderMarkdown(carried)).toContain(
      '| ✅ | feed.test.ts › after the sync | 1.62 J incl. 1.58 J another test left on (40.0 mJ own) | 2.12 J |',
    )
    expect(renderMarkdown(carried)).toContain(
      '| ✅ | feed.test.ts › a busy test | 500 mJ | 1.00 J |',
    )
  })
})

describe('warnings once per run, by code', () => {
  test('each code with the windows that raised it and one actionable sentence', () => {
    const at = lines.findIndex((l) => l.startsWith(' Warnings'))
    expect(lines.slice(at + 1, at + 3)).toEqual([
      `   ⚠ W_UNDERSAMPLED ×6  ${WARNING_ADVICE['W_UNDERSAMPLED']}`,
      // A code without advice: its first message's first sentence.
      '   ⚠ W_SOMETHING_NEW ×1  a collector noticed something.',
    ])
    expect(WARNING_ADVICE['W_UNDERSAMPLED']).toContain('`samplingHz`')
  })

  test('per-window warnings only under detailed tests; verbose prints them all', () => {
    // binding rows, the radio (expected to fail), and the summary line.
    expect(compact.match(/⚠ W_UNDERSAMPLED/g)).toHaveLength(3)
    const verbose = renderTerminal(report, plainScreen, { verbose: true })
    // Every window's (1 + 1 + 1 + 3) and the summary line.
    expect(verbose.match(/⚠ W_UNDERSAMPLED/g)).toHaveLength(7)
    expect(verbose).toContain('battery 0.0020% of capacity')
    expect(verbose).toContain('       window scroll #2: 120 mJ net, 1.00 s')
    expect(verbose).toMatch(/✓ opening the feed +· +500 mJ net +1\.00 J gross +1\.00 W +1\.00 s/)
  })

  test('a run without warnings has no Warnings section', () => {
    const quiet = renderTerminal(buildEnergyReport([entries[4]!]), plainScreen)
    expect(quiet).not.toContain('Warnings')
  })
})

describe('notes under a failed test', () => {
  // A note on per-method precision (what the attribution gives, severity info) explains a failed
  // check on a method, not one on a radio or the net; a note of another kind always shows.
  const fewSamples: EnergyWarning = {
    code: 'W_UNDERSAMPLED',
    severity: 'info',
    message: 'Only 141 stack samples in the window, fewer than 200.',
  }
  const belowIdle: EnergyWarning = {
    code: 'W_NEGATIVE_NET',
    severity: 'info',
    message: 'Below idle: net energy is negative.',
  }
  const limit = (target: { kind: 'method' | 'method-repetitions' | 'window'; label: string }) =>
    ({
      matcher: 'toConsumeLessThan',
      negated: false,
      comparison: '<',
      limit: 0.05,
      unit: 'J',
      scope: target.kind === 'window' ? 'component:gps' : 'inclusive',
      value: 0.19,
      n: 1,
      verdict: 'over',
      passed: false,
      target,
    }) as const
  const failedOn = (target: {
    kind: 'method' | 'method-repetitions' | 'window'
    label: string
  }): string =>
    renderTerminal(
      buildEnergyReport([
        entry('leaving the map', [window('leaving the map', 2, [fewSamples, belowIdle])], {
          state: 'failed',
          expectedToFail: true,
          limits: [limit(target)],
        }),
      ]),
      plainScreen,
    )

  test('a failed limit on a radio: the note on method precision is left to the HTML and JSON', () => {
    const out = failedOn({ kind: 'window', label: 'leaving the map' })
    expect(out).toContain(`       ℹ W_NEGATIVE_NET ${belowIdle.message}`)
    expect(out).not.toContain('W_UNDERSAMPLED')
    expect(out).toContain('2 notes')
  })

  test('a failed limit on a method: the note on its precision is in the detail', () => {
    const out = failedOn({ kind: 'method', label: 'MapActivity.onResume' })
    expect(out).toContain(`       ℹ W_UNDERSAMPLED ${fewSamples.message}`)
    expect(out).toContain(`       ℹ W_NEGATIVE_NET ${belowIdle.message}`)
    // runs.method(…) over repetitions judges a method too.
    expect(failedOn({ kind: 'method-repetitions', label: 'MapActivity.onResume' })).toContain(
      `       ℹ W_UNDERSAMPLED ${fewSamples.message}`,
    )
  })

  test('verbose prints every note', () => {
    const report = buildEnergyReport([
      entry('leaving the map', [window('leaving the map', 2, [fewSamples])], {
        state: 'failed',
        limits: [limit({ kind: 'window', label: 'leaving the map' })],
      }),
    ])
    expect(renderTerminal(report, plainScreen, { verbose: true })).toContain(
      `       ℹ W_UNDERSAMPLED ${fewSamples.message}`,
    )
  })
})

describe('methods: the app’s own', () => {
  test('native and framework frames and 0 J methods are folded away; async energy counts', () => {
    const methods = window('w', 1).methods
    // Most energy first, inclusive + asynchronous: SyncManager.poll's radio puts it first.
    expect(foldMethods(methods, 10).map((m) => m.method)).toEqual([
      'com.example.trails.SyncManager.poll',
      'com.example.trails.FeedAdapter.bind',
      'com.example.trails.ElevationProfile.smooth',
    ])
    expect(compact).not.toMatch(/__start_thread|art_quick_invoke_stub|Looper\.loop|Idle\.nothing/)
  })

  test("without app methods, the platform's Java methods that drew energy; never native frames", () => {
    const platformOnly = window('w', 1).methods.filter((m) => !m.method.startsWith('com.'))
    expect(foldMethods(platformOnly, 3).map((m) => m.method)).toEqual([
      'android.app.ActivityThread.main',
      'android.os.Looper.loop',
    ])
  })

  test('the JSON keeps every frame; the markdown names the app’s top method', () => {
    expect(renderJson(report)).toContain('__start_thread')
    expect(renderMarkdown(report)).toContain('| SyncManager.poll (0 J + 300 mJ async) |')
  })
})

describe('the GitHub job summary', () => {
  let dir = ''
  afterEach(async () => {
    vi.unstubAllEnvs()
    if (dir !== '') await rm(dir, { recursive: true, force: true })
  })

  const runWith = async (options: { markdown?: boolean | string }) => {
    const reporter = new EnergyReporter({ screen: plainScreen, write: () => undefined, ...options })
    reporter.onTestRunEnd([], [], 'passed')
  }

  test('is appended when $GITHUB_STEP_SUMMARY is set, unless `markdown: false`', async () => {
    dir = await mkdtemp(join(tmpdir(), 'vitest-energy-summary-'))
    const summary = join(dir, 'step-summary.md')
    await writeFile(summary, '## Earlier step\n')
    vi.stubEnv('GITHUB_STEP_SUMMARY', summary)
    await runWith({})
    const text = await readFile(summary, 'utf8')
    expect(text.startsWith('## Earlier step\n## Energy')).toBe(true)
    await runWith({ markdown: false })
    expect(await readFile(summary, 'utf8')).toBe(text)
  })

  test('outside GitHub Actions nothing is written without the option', async () => {
    vi.stubEnv('GITHUB_STEP_SUMMARY', undefined)
    await expect(runWith({})).resolves.toBeUndefined()
  })
})
