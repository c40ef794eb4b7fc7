// The Jest reporter in-process, fed side records as the test environment writes them: the last
// attempt of a retried test, a test the environment measured nothing for, the options it takes
// from the environment's testEnvironmentOptions, and Jest's update command in its advice.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import JestEnergyReporter from '../../reporter/jest.js'
import {
  appendSideRecord,
  JEST_SIDE_DIR_ENV,
  JEST_WRITES_BUDGETS_ENV,
  jestBudgetWriter,
} from '../../reporter/jest-side-files.js'
import type { EnergyReport } from '../../reporter/report.js'
import { plainScreen } from '../../reporter/screen.js'
import { measuredResult, summarize, type MeasuredEnergyResult } from '../../src/model/index.js'

function result(label: string, netEnergyJ: number): MeasuredEnergyResult {
  return measuredResult({
    label,
    window: { clock: 'boottime', startNs: 0, endNs: 1e9 },
    grossEnergyJ: netEnergyJ + 0.1,
    baselinePowerW: 0.1,
    components: [],
    rails: [],
    methods: [
      {
        method: 'com.example.Feed.bind',
        attribution: 'sampling',
        localEnergyJ: netEnergyJ / 2,
        nonLocalEnergyJ: 0,
        inclusiveEnergyJ: netEnergyJ / 2,
        asyncEnergyJ: 0,
      },
    ],
    sources: { power: 'odpm', sampleCount: 10 },
    warnings: [],
  })
}

let root = ''
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'vitest-energy-jest-reporter-'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
  Reflect.deleteProperty(process.env, JEST_SIDE_DIR_ENV)
  Reflect.deleteProperty(process.env, JEST_WRITES_BUDGETS_ENV)
})

// The workers' toStayWithinBudget() passes a missing budget in Jest's `new` mode only when this
// reporter will write it: with `updateBudgets: false` ("only check them", as in CI) it will not,
// so the test fails as in CI rather than pass on a promise nobody keeps (the Vitest reporter tells
// its workers the same through `provide`).
test('the workers are told whether this reporter writes the budgets they ask for', () => {
  expect(jestBudgetWriter(process.env), 'no Jest energy reporter').toBe('absent')
  const config = { rootDir: root }
  new JestEnergyReporter(config, { write: () => undefined })
  expect(jestBudgetWriter(process.env), 'default').toBe('writes')
  new JestEnergyReporter(config, { write: () => undefined, updateBudgets: true })
  expect(jestBudgetWriter(process.env), 'updateBudgets: true').toBe('writes')
  new JestEnergyReporter(config, { write: () => undefined, updateBudgets: false })
  expect(jestBudgetWriter(process.env), 'updateBudgets: false').toBe('off')
})

test('retries report their last attempt; an empty record is a test that opened no window', async () => {
  let printed = ''
  const reporter = new JestEnergyReporter(
    { rootDir: root },
    { outputFile: 'energy.json', html: false, screen: plainScreen, write: (t) => (printed += t) },
  )
  const dir = process.env[JEST_SIDE_DIR_ENV]!
  const testPath = join(root, 'feed.test.js')
  const record = (name: string, results: MeasuredEnergyResult[], attempt: number) =>
    appendSideRecord(dir, { testPath, name, meta: summarize(results), attempt })
  record('feed opens', [result('feed opens', 3)], 1)
  record('feed opens', [result('feed opens', 2)], 2)
  record('idle', [], 1)
  await reporter.onRunComplete(
    new Set([
      {
        config: {
          rootDir: root,
          testEnvironmentOptions: { app: 'com.example.trails', classify: true },
        },
      },
    ]),
    {
      testResults: [
        {
          testFilePath: testPath,
          testResults: [
            { fullName: 'feed opens', status: 'passed', failureMessages: [] },
            { fullName: 'idle', status: 'passed', failureMessages: [] },
          ],
        },
      ],
    },
  )
  const report = JSON.parse(await readFile(join(root, 'energy.json'), 'utf8')) as EnergyReport & {
    classification?: unknown
  }
  const byName = new Map(report.tests.map((t) => [t.name, t]))
  expect(byName.get('feed opens')?.netEnergyJ).toBeCloseTo(2)
  expect(byName.get('idle')?.noEnergyReason).toBe('no energy window was opened')
  // classify: true came from the environment's options: the methods have colours.
  expect(printed).toContain('Classes')
  // The side files are gone with the run.
  expect(process.env[JEST_SIDE_DIR_ENV]).toBe(dir)
  await expect(readFile(join(dir, `${process.pid}.jsonl`))).rejects.toThrow()
})

test('a run without energy: a summary in Jest terms, none when the files failed to run', async () => {
  const run = async (
    testResults: Parameters<JestEnergyReporter['onRunComplete']>[1]['testResults'],
  ): Promise<string> => {
    let printed = ''
    const reporter = new JestEnergyReporter(
      { rootDir: root },
      { html: false, screen: plainScreen, write: (t) => (printed += t) },
    )
    await reporter.onRunComplete(new Set(), { testResults })
    return printed
  }
  const testFilePath = join(root, 'feed.test.js')
  // Tests that ran outside the environment, without recordEnergy().
  const plain = await run([
    {
      testFilePath,
      testResults: [{ fullName: 'feed opens', status: 'passed', failureMessages: [] }],
    },
  ])
  expect(plain).not.toContain('`energy` fixture')
  expect(plain).toContain(
    " No test measured energy. In Jest a test measures in the vitest-energy test environment (testEnvironment: 'vitest-energy/jest-environment', with its globalSetup)",
  )
  expect(plain).toContain('or it sends its energy with `recordEnergy()` (see docs/jest.md).\n')
  // No globalSetup: every file failed to run; the error says what to fix, and nothing after it
  // points elsewhere.
  const message =
    "[E_JEST_SETUP_MISSING] the vitest-energy test environment ran without its global setup (no phones were started for this run)\n  → Add globalSetup: 'vitest-energy/jest-global-setup' and globalTeardown: 'vitest-energy/jest-global-teardown' to the Jest config."
  const failed = await run([
    {
      testFilePath,
      testExecError: { message, stack: `vitest-energy: ${message.split('\n')[0]}` },
      testResults: [],
    },
  ])
  expect(failed.split('→ Add globalSetup:').length - 1).toBe(1)
  expect(failed).toContain('1 error outside tests')
  expect(failed).not.toContain('No test measured energy')
})
