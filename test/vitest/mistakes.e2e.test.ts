// A newcomer's mistakes inside tests, end to end: a real Vitest child process runs
// test/fixtures/mistakes-project (imports `vitest-energy` by name, resolved to dist/ built by
// `npm test`'s pretest) on the virtual device, through Appium. Each mistake fails its own test
// with one clear error; the test after it measures and passes on the same phone.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { beforeAll, expect, test } from 'vitest'
import type { EnergyReport, ReportedTest } from '../../reporter/report.js'
import { energyRunArgs, projectEnv } from './_project-env.js'

const root = fileURLToPath(new URL('../fixtures/mistakes-project/', import.meta.url))
const vitestBin = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))

/** stdout and stderr. */
let stdout = ''
let code = 0
let report: EnergyReport
/** The energy reporter's part of the output (Vitest's own failure listing follows it). */
let energyOut = ''

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-mistakes-'))
  const out = join(dir, 'energy.json')
  try {
    const result = await promisify(execFile)(
      process.execPath,
      [vitestBin, ...energyRunArgs(dir, 'default')],
      { cwd: root, env: projectEnv(dir), timeout: 240_000 },
    )
    stdout = result.stdout + result.stderr
  } catch (error) {
    // Vitest prints its failures, with their code frames, on stderr.
    const e = error as { stdout: string; stderr: string; code: number }
    stdout = e.stdout + e.stderr
    code = e.code
  }
  try {
    report = JSON.parse(await readFile(out, 'utf8')) as EnergyReport
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  energyOut = stdout.slice(stdout.indexOf(' ENERGY '), stdout.indexOf('Failed Tests'))
}, 300_000)

function reported(name: string): ReportedTest {
  const found = report.tests.find((t) => t.name === name)
  if (found === undefined) throw new Error(`no test '${name}' in the report`)
  return found
}

test("every mistake fails only its own test: the file's other tests measure and pass", () => {
  expect(code).toBe(1)
  expect(Object.fromEntries(report.tests.map((t) => [t.name, t.state]))).toEqual({
    'forgot await': 'failed',
    'measured after forgot await': 'passed',
    'wrong selector': 'failed',
    'measured after wrong selector': 'passed',
    'never awaited, finished before the end': 'failed',
    'measured last': 'passed',
    'the energy fixture given to a matcher means its one window': 'passed',
    'the energy fixture given to a matcher before any window closed': 'failed',
    'test imported from vitest': 'failed',
  })
  for (const name of [
    'measured after forgot await',
    'measured after wrong selector',
    'measured last',
  ])
    expect(reported(name).results.map((r) => r.status)).toEqual(['measured'])
  expect(stdout).not.toContain('E_WINDOW_ALREADY_OPEN')
  expect(stdout).not.toContain('Unhandled error')
  expect(report.unhandledErrors).toEqual([])
})

/** Vitest's code frame of a failure: the file and line it points at (`❯ file:line:column`). */
function framedAt(file: string, line: number): RegExp {
  return new RegExp(`❯ ${file.replace('.', '\\.')}:${line}:\\d+`)
}

test("energy.measure() without await: one failure, the matcher's, at the user's line", () => {
  const t = reported('forgot await')
  // Once: the end of the test does not add E_MEASURE_NOT_AWAITED for a promise a matcher was given.
  expect(t.errors).toEqual([
    expect.stringContaining(
      'received a Promise — did you forget `await` before energy.measure()/repeat()/baseline()?',
    ),
  ])
  expect(stdout).toMatch(framedAt('mistakes.test.ts', 10))
  expect(t.results).toEqual([
    {
      schemaVersion: 1,
      status: 'skipped',
      label: 'forgot await',
      reason:
        'energy.measure() was not awaited: the test ended while it was still running; its window was abandoned',
    },
  ])
  expect(energyOut).toMatch(
    /✗ forgot await +no energy measured: energy\.measure\(\) was not awaited/,
  )
  // Never awaited but finished in time: its result unseen, a coded failure, once, framed at the
  // call (a teardown that throws is reported twice by Vitest 4.1 under an aroundEach hook: the
  // fixture fails the test from onTestFinished instead).
  expect(reported('never awaited, finished before the end').errors).toEqual([
    expect.stringMatching(/^\[E_MEASURE_NOT_AWAITED\] .*'fire and forget' was not awaited/),
  ])
  expect(stdout).toMatch(framedAt('mistakes.test.ts', 37))
  expect(stdout).not.toContain('setup-file')
})

test('the energy fixture given to a matcher: its one window, or what to pass instead', () => {
  expect(
    reported('the energy fixture given to a matcher means its one window').results.map(
      (r) => r.status,
    ),
  ).toEqual(['measured'])
  expect(reported('the energy fixture given to a matcher before any window closed').errors).toEqual(
    [
      expect.stringContaining(
        'received the `energy` fixture before any window closed (its automatic window closes when the test ends, where `checkBudgets: true` checks it); keep what energy.measure() returns and pass that',
      ),
    ],
  )
})

test("`test` imported from 'vitest' fails with E_WRONG_TEST_IMPORT at the user's line", () => {
  expect(reported('test imported from vitest').errors).toEqual([
    expect.stringMatching(
      /^\[E_WRONG_TEST_IMPORT\] this test has no `energy` fixture: its `test` comes from 'vitest', not 'vitest-energy'\n {2}→ Import both from vitest-energy: `import \{ test, expect \} from 'vitest-energy'`/,
    ),
  ])
  expect(stdout).toMatch(framedAt('plain-vitest.test.ts', 7))
})

test("an error of the test's own code inside energy.measure() is the test's error, printed once; the window is abandoned quietly", () => {
  const t = reported('wrong selector')
  const own =
    'Can\'t call click on element with selector "~refresh-button" because element wasn\'t found'
  expect(t.errors).toEqual([expect.stringContaining(own)])
  expect(t.results).toMatchObject([
    {
      status: 'skipped',
      reason:
        'the test failed inside energy.measure() before its window closed; the window was abandoned',
    },
  ])
  expect(energyOut).toMatch(
    /✗ wrong selector +no energy measured: the test failed inside energy\.measure\(\) before its window closed/,
  )
  expect(energyOut.split(own)).toHaveLength(2)
  expect(stdout).not.toContain('E_WINDOW_FAILED')
  expect(stdout).not.toContain('See the error above')
})
