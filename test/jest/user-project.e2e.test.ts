// A Jest user's first project, the way a user builds it: the package packed with `npm pack`,
// installed with Jest 30 into a fresh ES-module project outside the repository, the quick start of
// docs/jest.md written as it stands there (its config sets only testEnvironment,
// testEnvironmentOptions, globalSetup/globalTeardown and the reporter), run as the page says
// (`NODE_OPTIONS=--experimental-vm-modules npx jest`) with two workers on the virtual device's
// one phone. Every run gets a TMPDIR of its own, so "nothing left behind" is checked, not assumed;
// Jest exits on its own (no --forceExit), so nothing is left running either. Runs are in CI (CI=1)
// unless they test a developer's machine: there the first run writes the missing budgets. The
// typings are checked as the user's TypeScript sees them in that install.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'
import { captured } from '../e2e/captured.js'
import { withoutCi } from '../e2e/ci-env.js'
import { jestDocExamples } from '../e2e/doc-examples.js'
import { expectTypeChecks, packedProject } from '../e2e/packed-project.js'
import { listTree } from '../e2e/tree.js'
import { repo } from './_jest.js'

let work: string
let project: string

interface JestRun {
  readonly code: number
  readonly output: string
  readonly report: EnergyReport
  /** What the run left in its TMPDIR. */
  readonly leftInTmp: readonly string[]
}

async function jest(
  args: readonly string[],
  name: string,
  where: 'ci' | 'developer' = 'ci',
): Promise<JestRun> {
  const tmp = await mkdtemp(join(work, `tmp-${name}-`))
  const { code, output } = await captured(
    'npx',
    ['jest', '--maxWorkers=2', `--cacheDirectory=${join(work, 'jest-cache')}`, ...args],
    {
      cwd: project,
      env: {
        ...(where === 'ci' ? { ...process.env, CI: '1' } : withoutCi(process.env)),
        NODE_OPTIONS: '--experimental-vm-modules',
        TMPDIR: tmp,
        NO_COLOR: '1',
        JEST_WORKER_ID: '',
        VITEST_POOL_ID: '',
      },
      timeoutMs: 240_000,
    },
  )
  const report = JSON.parse(await readFile(join(project, 'energy.json'), 'utf8')) as EnergyReport
  return { code, output, report, leftInTmp: await listTree(tmp) }
}

beforeAll(async () => {
  ;({ work, project } = await packedProject('vitest-energy-jest-user-', 'jest'))
  const examples = await jestDocExamples()
  expect(examples.map((e) => e.file).sort()).toEqual([
    'feed.test.js',
    'jest.config.js',
    'map.test.js',
    'scroll.test.js',
  ])
  for (const example of examples) await writeFile(join(project, example.file), example.code)
  // The README's Jest config is this one, word for word.
  const config = examples.find((e) => e.file === 'jest.config.js')!.code
  expect(await readFile(join(repo, 'README.md'), 'utf8')).toContain(config)
}, 360_000)

afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

/** The shared lease folder (used by every run on the host) is all a run may leave in TMPDIR. */
const LEFT_IN_TMP = ['vitest-energy/', 'vitest-energy/leases/']

describe("a new Jest user's first runs, as for snapshots", () => {
  const budgetsPath = (): string => join(project, 'energy-budgets.json')
  afterAll(async () => rm(budgetsPath(), { force: true }))

  test('on a developer machine the first run passes and writes the budget of the test that asked for one; the second checks it', async () => {
    const first = await jest([], 'first', 'developer')
    expect(first.code, first.output).toBe(0)
    expect(first.output).toContain(
      'Budgets   1 written (new) — review energy-budgets.json and commit it',
    )
    const text = await readFile(budgetsPath(), 'utf8')
    const budgets = JSON.parse(text) as { tests: Record<string, Record<string, unknown>> }
    // Only feed.test.js calls toStayWithinBudget(); the other tests never asked for a budget.
    expect(Object.keys(budgets.tests)).toEqual(['feed.test.js'])
    expect(Object.keys(budgets.tests['feed.test.js'] ?? {})).toEqual(['refreshing the feed'])

    const second = await jest([], 'second', 'developer')
    expect(second.code, second.output).toBe(0)
    expect(second.report.budgets).toMatchObject({ within: 1, added: [] })
    expect(await readFile(budgetsPath(), 'utf8'), 'a budget that exists is left alone').toBe(text)
  }, 480_000)

  test('in CI the first run fails with "no budget" and writes nothing', async () => {
    await rm(budgetsPath(), { force: true })
    const ci = await jest([], 'ci-first', 'ci')
    expect(ci.code).toBe(1)
    expect(ci.output).toContain(
      'no budget for feed.test.js › refreshing the feed [Pixel 6 (virtual)]',
    )
    expect(ci.output).toContain('jest -u')
    await expect(readFile(budgetsPath(), 'utf8')).rejects.toThrow(/ENOENT/)
  }, 240_000)
})

describe('the docs/jest.md quick start in a fresh project', () => {
  const quickstartTests = ['opening the map', 'refreshing the feed', 'scrolling the feed']

  // As for snapshots: -u writes budgets for the tests that ask (feed.test.js's toStayWithinBudget()).
  test('jest -u: every test measured, a budget written for the test that asks for one', async () => {
    const first = await jest(['-u'], 'update')
    expect(first.output).not.toMatch(/Exceeded timeout|did not exit/)
    expect(first.code, first.output).toBe(0)
    expect(first.report.tests.map((t) => [t.name, t.state]).sort()).toEqual(
      quickstartTests.map((n) => [n, 'passed']),
    )
    // Every test has its energy in the reporter's JSON, with nobody calling recordEnergy().
    for (const t of first.report.tests) expect(t.netEnergyJ, t.name).toBeGreaterThan(0)
    const budgets = JSON.parse(await readFile(join(project, 'energy-budgets.json'), 'utf8')) as {
      tests: Record<string, Record<string, Record<string, unknown>>>
    }
    expect(Object.keys(budgets.tests).sort()).toEqual(['feed.test.js'])
    const models = Object.values(budgets.tests).flatMap((byName) =>
      Object.values(byName).flatMap((byModel) => Object.keys(byModel)),
    )
    expect(new Set(models)).toEqual(new Set(['Pixel 6 (virtual)']))
    expect(first.leftInTmp).toEqual(LEFT_IN_TMP)

    // Nothing changed: the budget still fits, and a second -u leaves the file byte for byte.
    const text = await readFile(join(project, 'energy-budgets.json'), 'utf8')
    const again = await jest(['-u'], 'update-again')
    expect(again.code, again.output).toBe(0)
    expect(again.report.budgets).toMatchObject({ updated: true, added: [], changed: [] })
    expect(again.output).toContain('energy-budgets.json unchanged')
    expect(await readFile(join(project, 'energy-budgets.json'), 'utf8')).toBe(text)
  }, 480_000)

  test('the next run checks the budget; two workers share one phone', async () => {
    const next = await jest(['--ci'], 'check')
    expect(next.output).not.toMatch(/Exceeded timeout|did not exit/)
    expect(next.code, next.output).toBe(0)
    expect(next.report.tests.map((t) => [t.name, t.state]).sort()).toEqual(
      quickstartTests.map((n) => [n, 'passed']),
    )
    // feed.test.js checks it with toStayWithinBudget(); the other tests never asked for one.
    const verdicts = Object.fromEntries(next.report.tests.map((t) => [t.name, t.budget?.verdict]))
    expect(verdicts['refreshing the feed']).toBe('within')
    expect(Object.values(verdicts).filter((v) => v !== undefined)).toEqual(['within'])
    expect(next.output).toContain('vitest-energy: 2 Jest workers share 1 phone')
    expect(next.leftInTmp).toEqual(LEFT_IN_TMP)
  }, 240_000)

  test('energy.measure() without await fails only its test, with E_MEASURE_NOT_AWAITED, as in Vitest', async () => {
    await writeFile(
      join(project, 'forgot-await.test.js'),
      [
        "test('forgot await', async () => {",
        '  const run = energy.measure(() => driver.pause(300))',
        '  expect(run).toConsumeLessThan(20)',
        '})',
        "test('never awaited', async () => {",
        "  void energy.measure(() => driver.pause(200), { label: 'fire and forget' })",
        '  await new Promise((resolve) => setTimeout(resolve, 2000))',
        '})',
        "test('measured after it', async () => {",
        '  const run = await energy.measure(() => driver.pause(600))',
        '  expect(run).toConsumeLessThan(20)',
        '})',
        '',
      ].join('\n'),
    )
    try {
      const forgot = await jest(['forgot-await.test.js'], 'forgot-await')
      expect(forgot.code).toBe(1)
      const states = Object.fromEntries(forgot.report.tests.map((t) => [t.name, t.state]))
      expect(states).toEqual({
        'forgot await': 'failed',
        'never awaited': 'failed',
        'measured after it': 'passed',
      })
      const errors = (name: string) => forgot.report.tests.find((t) => t.name === name)?.errors
      // Once: the matcher's, not E_MEASURE_NOT_AWAITED as well.
      expect(errors('forgot await')).toEqual([
        expect.stringContaining('received a Promise — did you forget `await`'),
      ])
      expect(errors('never awaited')).toEqual([
        expect.stringMatching(/^\[E_MEASURE_NOT_AWAITED\] .*'fire and forget' was not awaited/),
      ])
      // At the user's line (the call), not at nothing.
      expect(forgot.output).toMatch(/forgot-await\.test\.js:6:\d+/)
      expect(forgot.output).not.toContain('E_WINDOW_ALREADY_OPEN')
      expect(forgot.leftInTmp).toEqual(LEFT_IN_TMP)
    } finally {
      await rm(join(project, 'forgot-await.test.js'))
    }
  }, 240_000)

  test('a failing energy assertion fails its test, with the matcher’s message, as in Vitest', async () => {
    await writeFile(
      join(project, 'missing-method.test.js'),
      [
        "test('a method that never runs', async () => {",
        '  const run = await energy.measure(() => driver.pause(300))',
        "  expect(run.method('com.example.trails.Nope.never')).toConsumeLessThan(1)",
        '})',
        '',
      ].join('\n'),
    )
    try {
      const failing = await jest([], 'failing')
      expect(failing.code).toBe(1)
      const failed = failing.report.tests.find((t) => t.name === 'a method that never runs')
      expect(failed?.state).toBe('failed')
      expect(failed?.results.map((r) => r.status)).toEqual(['measured'])
      expect(failed?.failure?.message).toMatch(
        /method 'com\.example\.trails\.Nope\.never' did not run .*methods seen:/s,
      )
      expect(failing.output).toContain("method 'com.example.trails.Nope.never' did not run")
      expect(failing.leftInTmp).toEqual(LEFT_IN_TMP)
    } finally {
      await rm(join(project, 'missing-method.test.js'))
    }
  }, 240_000)
})

describe("windowEnd: 'background' in Jest", () => {
  test('a window lost after its test ended fails the file, naming the test; the tests keep their results and the others their energy', async () => {
    await writeFile(
      join(project, 'cut-short.test.js'),
      [
        "test('measured after it ended', async () => {",
        '  await driver.pause(300)',
        '})',
        "test('kills the recorders', async () => {",
        "  await device.shell(['sh', '-c', 'kill -9 $(pidof perfetto)'])",
        '})',
        "test('measured after the kill', async () => {",
        '  await driver.pause(250)',
        '})',
        '',
      ].join('\n'),
    )
    try {
      const run = await jest(['cut-short.test.js'], 'cut-short')
      expect(run.code, run.output).toBe(1)
      const states = Object.fromEntries(run.report.tests.map((t) => [t.name, t.state]))
      expect(states).toEqual({
        'measured after it ended': 'passed',
        'kills the recorders': 'passed',
        'measured after the kill': 'passed',
      })
      const statuses = (name: string) =>
        run.report.tests.find((t) => t.name === name)?.results.map((r) => r.status)
      expect(statuses('measured after it ended')).toEqual(['failed'])
      expect(statuses('measured after the kill')).toEqual(['measured'])
      expect(run.output).toMatch(
        /\[E_COLLECTOR_RECORDER_FAILED\] the energy window of 'measured after it ended' could not be read after the test ended \(and 1 more test\(s\) of this file\): .*empty trace/,
      )
      expect(run.leftInTmp).toEqual(LEFT_IN_TMP)
    } finally {
      await rm(join(project, 'cut-short.test.js'))
    }
  }, 240_000)
})

describe("the package's Jest typings, as a user's TypeScript sees them", () => {
  test("import 'vitest-energy/jest' types the globals and the matchers; driver is a Browser, not any", async () => {
    // As docs/jest.md says: one import of the typings, then the globals and @jest/globals.
    await expectTypeChecks(project, [
      "import 'vitest-energy/jest'",
      "import { expect, test } from '@jest/globals'",
      '',
      "test('t', async () => {",
      '  const browser: WebdriverIO.Browser = driver',
      "  // @ts-expect-error driver is typed (any would take a number's place)",
      '  const n: number = driver',
      "  const run = await energy.measure(() => browser.$('~refresh').click())",
      '  expect(run).toConsumeLessThan(1, { scope: "gross" })',
      "  expect(run.method('FeedAdapter.bind')).not.toBeRed()",
      '  const runs = await energy.repeat(3, () => driver.pause(100))',
      "  expect(runs).toConsumeLessThan(1, { stat: 'mean' })",
      '  // @ts-expect-error not a matcher',
      '  expect(run).toConsumeMoreThan(1)',
      '  const serial: string = device.serial',
      '  void [n, serial, runs.netEnergiesJ]',
      '})',
    ])
  }, 120_000)
})
