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
    stdout = result.stdout
  } catch (error) {
    ;({ stdout, code } = error as { stdout: string; code: number })
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

test('energy.measure() without await: the matcher says to await it, and the test fails with E_MEASURE_NOT_AWAITED', () => {
  const t = reported('forgot await')
  // Distinct errors: Vitest 4.1 records an error thrown by a fixture's teardown twice (its
  // callFixtureCleanupFrom keeps the failed cleanup, which callFixtureCleanup then runs again).
  const errors = [...new Set(t.errors)]
  expect(errors).toHaveLength(2)
  expect(errors[0]).toContain(
    'received a Promise — did you forget `await` before energy.measure()/repeat()/baseline()?',
  )
  expect(errors[1]).toMatch(
    /^\[E_MEASURE_NOT_AWAITED\] energy\.measure\(\) 'forgot await' was not awaited: the test ended while it was still running, so its window was abandoned/,
  )
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
  // Never awaited but finished in time: its result unseen, still the same coded failure.
  expect([...new Set(reported('never awaited, finished before the end').errors)]).toEqual([
    expect.stringMatching(/^\[E_MEASURE_NOT_AWAITED\] .*'fire and forget' was not awaited/),
  ])
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
