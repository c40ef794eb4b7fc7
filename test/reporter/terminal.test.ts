// The terminal renderer on hand-built reports (the e2e tests cover it inside real Vitest runs).
import { expect, test } from 'vitest'
import type { ReportClassification } from '../../reporter/classification.js'
import { reportedFailure } from '../../reporter/failures.js'
import { buildEnergyReport, type EnergyReport, type ReportEntry } from '../../reporter/report.js'
import { plainScreen } from '../../reporter/screen.js'
import { renderTerminal } from '../../reporter/terminal.js'
import { failedResult } from '../../src/session/window.js'
import { EnergyError, measuredResult } from '../../src/model/index.js'

const unplugged = {
  file: 'a.test.ts',
  name: 'unplugged',
  state: 'failed',
  results: [
    failedResult(
      'unplugged',
      new EnergyError({
        code: 'E_NO_DEVICE',
        message: 'device vdev-0001: adb server on 127.0.0.1:5037 has no device vdev-0001',
        hint: 'Plug the phone in again.',
      }),
    ),
  ],
}

const summary: EnergyReport['summary'] = {
  tests: 1,
  states: { passed: 0, failed: 1, skipped: 0, todo: 0, pending: 0 },
  testsWithWindows: 1,
  windows: 1,
  measuredWindows: 0,
  failedWindows: 1,
  totalNetEnergyJ: 0,
  totalGrossEnergyJ: 0,
  worst: [],
  sources: ['odpm'],
  warnings: 0,
}

test("the run's method, class and package lines show the app's own code, not the platform's", () => {
  const method = (name: string, energyJ: number) => ({
    name,
    class: name.slice(0, name.lastIndexOf('.')),
    color: 'yellow' as const,
    energyJ,
    n11: 1,
    n10: 0,
    n01: 0,
    n00: 0,
  })
  const group = (name: string, energyJ: number) => ({
    name,
    color: 'yellow' as const,
    members: 1,
    energyJ,
  })
  const classification = {
    preset: 'couto2014',
    errorVector: 'power',
    excessive: [],
    thresholdW: null,
    methods: [
      method('android.os.Looper.loop', 3),
      method('android.app.ActivityThread.main', 3),
      method('com.example.trails.FeedAdapter.bind', 1),
    ],
    classes: [group('android.os.Looper', 3), group('com.example.trails.FeedAdapter', 1)],
    packages: [group('android.os', 3), group('com.example.trails', 1)],
    project: 'yellow',
  } as unknown as ReportClassification
  const out = renderTerminal(
    {
      schemaVersion: 2,
      tests: [unplugged],
      suiteFailures: [],
      unhandledErrors: [],
      summary,
      classification,
    } as unknown as EnergyReport,
    plainScreen,
  )
  // The platform's frames are folded away (the JSON keeps them).
  expect(out).toMatch(/Methods {3}1\.00 J FeedAdapter\.bind ●yellow\n/)
  expect(out).toMatch(/Classes {3}FeedAdapter 1\.00 J ●yellow\n/)
  expect(out).toMatch(/Packages {2}com\.example\.trails 1\.00 J ●yellow {2}\(/)
  expect(out).not.toMatch(/Looper|android\.os/)
})

test('a failed window prints its code once, its message and its hint', () => {
  const out = renderTerminal(
    {
      schemaVersion: 2,
      tests: [unplugged],
      suiteFailures: [],
      unhandledErrors: [],
      summary,
    } as unknown as EnergyReport,
    plainScreen,
  )
  expect(out).toContain(
    "energy window 'unplugged' failed: E_NO_DEVICE device vdev-0001: adb server on 127.0.0.1:5037 has no device vdev-0001",
  )
  expect(out).not.toContain('[E_NO_DEVICE]')
  expect(out).toContain('Plug the phone in again.')
})

test('a window error that failed its test is printed once, on the window line', () => {
  // The fixture rethrows the window's error, so it is also the test's failure.
  const error = new EnergyError({
    code: 'E_ATTR_UNSORTED',
    message: 'perfetto.power_rails rail S4M_VDD_CPUCL0: reading 1 is not after reading 0',
    hint: 'Sort the readings by time and drop duplicates before attribution.',
  })
  const report = {
    schemaVersion: 2,
    tests: [
      {
        ...unplugged,
        name: 'map',
        results: [failedResult('map', error)],
        failure: reportedFailure(error),
      },
      // A different failure (a matcher's) is still printed under the failed window.
      { ...unplugged, failure: { message: 'expect(received).toConsumeLessThan(1 J)' } },
    ],
    suiteFailures: [],
    unhandledErrors: [],
    summary,
  } as unknown as EnergyReport
  const out = renderTerminal(report, plainScreen)
  expect(out.split('reading 1 is not after reading 0')).toHaveLength(2)
  expect(out.split('Sort the readings by time')).toHaveLength(2)
  expect(out).toContain("energy window 'map' failed: E_ATTR_UNSORTED perfetto.power_rails")
  expect(out).toContain('expect(received).toConsumeLessThan(1 J)')
})

// Every test has a row: one line when it has no energy, then the whole message of its failure.
const measured = measuredResult({
  label: 'feed',
  window: { clock: 'boottime', startNs: 0, endNs: 1e9 },
  grossEnergyJ: 1.5,
  baselinePowerW: 0.5,
  components: [],
  rails: [],
  methods: [],
  sources: { power: 'odpm', sampleCount: 10 },
  warnings: [],
})
const matcherMessage =
  "expect(received).toConsumeLessThan(400 mJ)\n\nmethod 'com.example.trails.FeedAdapter.bind' did not run (or was never sampled) in 'feed'; methods seen: none"
const entries: ReportEntry[] = [
  {
    file: 'a.test.ts',
    name: 'feed',
    state: 'failed',
    results: [measured],
    errors: [matcherMessage],
    failure: { message: matcherMessage },
  },
  {
    file: 'a.test.ts',
    name: 'times out',
    state: 'failed',
    results: [],
    errors: ['Test timed out in 5000ms.\nIf this is a long-running test, …'],
    failure: { message: 'Test timed out in 5000ms.\nIf this is a long-running test, …' },
  },
  { file: 'a.test.ts', name: 'later', state: 'todo', results: [], errors: [] },
  {
    file: 'a.test.ts',
    name: 'no rails',
    state: 'skipped',
    results: [],
    errors: [],
    noEnergyReason: 'skipped: no ODPM rails',
  },
  { file: 'a.test.ts', name: 'unit', state: 'passed', results: [], errors: [] },
  {
    file: 'b.test.ts',
    name: 'login > sees the feed',
    state: 'skipped',
    results: [],
    errors: [],
    failure: { message: 'could not log in', suite: 'login' },
  },
]
const report = buildEnergyReport(entries, {
  suiteFailures: [
    { file: 'b.test.ts', suite: 'login', message: 'could not log in' },
    { file: 'c.test.ts', suite: '', message: "Cannot find module './pages'" },
  ],
})

test('a test without energy is one row that says why; a failure follows with its whole message', () => {
  const lines = renderTerminal(report, plainScreen).split('\n')
  const row = (name: string): string => lines.find((l) => l.includes(` ${name} `)) ?? ''
  expect(row('times out')).toMatch(
    /^ {3}✗ times out +no energy measured: the test failed before an energy window opened$/,
  )
  expect(row('later')).toMatch(/^ {3}✎ later +no energy measured: todo$/)
  expect(row('no rails')).toMatch(/^ {3}↓ no rails +no energy measured: skipped: no ODPM rails$/)
  expect(row('unit')).toMatch(
    /^ {3}✓ unit +no energy measured: the test does not use the energy fixture$/,
  )
  const at = lines.indexOf(row('times out'))
  expect(lines.slice(at + 1, at + 3)).toEqual([
    '       Test timed out in 5000ms.',
    '       If this is a long-running test, …',
  ])
  // A test with energy keeps its figures row, and its failure's every line (blank lines dropped).
  const feed = lines.indexOf(row('feed'))
  expect(lines[feed]).toMatch(/✗ feed +· +1\.00 J net/)
  expect(lines.slice(feed + 1, feed + 3)).toEqual([
    '       expect(received).toConsumeLessThan(400 mJ)',
    "       method 'com.example.trails.FeedAdapter.bind' did not run (or was never sampled) in 'feed'; methods seen: none",
  ])
})

test('a failed suite is printed once, before its tests, which say they did not run; a file that failed to load is listed', () => {
  const out = renderTerminal(report, plainScreen)
  expect(out).toContain(
    [
      ' b.test.ts',
      '   ✗ login  suite failed',
      '       could not log in',
      "   ↓ login > sees the feed  no energy measured: not run: 'login' failed",
    ].join('\n'),
  )
  expect(out.match(/could not log in/g)).toHaveLength(1)
  expect(out).toContain(
    [' c.test.ts', '   ✗ the file failed', "       Cannot find module './pages'"].join('\n'),
  )
  expect(out).toContain(
    'Tests     2 failed · 1 passed · 2 skipped · 1 todo · 2 errors outside tests',
  )
  expect(out).toContain('Energy    1.00 J net, 1.50 J gross over 1 window in 1 test')
})

test('an interrupted run says so and marks the unfinished tests; unhandled errors are listed', () => {
  const out = renderTerminal(
    buildEnergyReport(
      [
        { file: 'a.test.ts', name: 'done', state: 'passed', results: [measured], errors: [] },
        { file: 'a.test.ts', name: 'running', state: 'pending', results: [], errors: [] },
      ],
      { interrupted: true, unhandledErrors: [{ message: 'Error: socket hang up' }] },
    ),
    plainScreen,
  )
  expect(out).toMatch(/… running +no energy measured: did not finish: the run was interrupted/)
  expect(out).toContain(' Unhandled errors\n       Error: socket hang up')
  expect(out).toContain(' Interrupted the run was stopped before it ended')
  expect(out).toContain('Tests     1 passed · 1 unfinished · 1 error outside tests')
})

test('a run without energy says how to measure it', () => {
  const out = renderTerminal(
    buildEnergyReport([
      { file: 'a.test.ts', name: 'unit', state: 'passed', results: [], errors: [] },
    ]),
    plainScreen,
  )
  expect(out).toContain('No test measured energy. Use the `energy` fixture')
  expect(renderTerminal(buildEnergyReport([]), plainScreen)).toContain('No tests ran.')
})

test('tests that failed with our own error before their window opened: not sent to the fixture they used', () => {
  const failure = {
    code: 'E_POWER_SOURCE_UNAVAILABLE',
    message:
      '[E_POWER_SOURCE_UNAVAILABLE] the fuel gauge is not readable while USB powers the phone',
  }
  const out = renderTerminal(
    buildEnergyReport([
      {
        file: 'a.test.ts',
        name: 'feed',
        state: 'failed',
        results: [],
        errors: [failure.message],
        failure,
      },
      {
        file: 'a.test.ts',
        name: 'map',
        state: 'failed',
        results: [],
        errors: [failure.message],
        failure,
      },
    ]),
    plainScreen,
  )
  expect(out).not.toContain('Use the `energy` fixture')
  expect(out).toContain(
    'Energy    none measured: 2 tests failed before their window opened (E_POWER_SOURCE_UNAVAILABLE: see each message above)',
  )
})

test("a window abandoned because the test's code failed inside it: the row says so, the test's error follows once", () => {
  const message =
    'Can\'t call click on element with selector "~refresh-button" because element wasn\'t found'
  const reason =
    'the test failed inside energy.measure() before its window closed; the window was abandoned'
  const abandoned = buildEnergyReport([
    {
      file: 'a.test.ts',
      name: 'wrong selector',
      state: 'failed',
      results: [{ schemaVersion: 1, status: 'skipped', label: 'wrong selector', reason }],
      errors: [message],
      failure: { message },
    },
    {
      file: 'a.test.ts',
      name: 'two windows, one abandoned',
      state: 'passed',
      results: [measured, { schemaVersion: 1, status: 'skipped', label: 'second', reason }],
      errors: [],
    },
  ])
  const out = renderTerminal(abandoned, plainScreen)
  expect(out).toContain(
    [
      `   ✗ wrong selector              no energy measured: ${reason}`,
      `       ${message}`,
      '   ✓ two windows, one abandoned',
    ].join('\n'),
  )
  expect(out.split(message)).toHaveLength(2)
  expect(out.split(reason)).toHaveLength(2)
  expect(out).not.toContain('E_WINDOW_FAILED')
  // Beside a measured window, the abandoned one has its own line (the row shows figures).
  expect(renderTerminal(abandoned, plainScreen, { verbose: true })).toContain(
    `       energy window 'second' skipped: ${reason}`,
  )
})

test('a run whose windows all failed or were abandoned says none completed, not that no test used the fixture', () => {
  const out = renderTerminal(
    buildEnergyReport([
      { ...(unplugged as unknown as ReportEntry), errors: [] },
      {
        file: 'a.test.ts',
        name: 'forgot await',
        state: 'failed',
        results: [
          {
            schemaVersion: 1,
            status: 'skipped',
            label: 'forgot await',
            reason: 'energy.measure() was not awaited',
          },
        ],
        errors: ['[E_MEASURE_NOT_AWAITED] …'],
        failure: { message: '[E_MEASURE_NOT_AWAITED] …' },
      },
    ]),
    plainScreen,
  )
  expect(out).not.toContain('No test measured energy')
  expect(out).toContain(
    'Energy    none measured: 2 energy windows opened in 2 tests, none completed · 1 failed',
  )
})
