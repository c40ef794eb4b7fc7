// Every test in the report, with its state and reason: a real Vitest run of
// test/fixtures/reporter-project/states (passed, failed with a matcher's message, timed out,
// skipped, todo, ctx.skip(note), test.fails; beforeAll/afterAll/beforeEach failures; a file that
// fails to load).
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv } from 'ajv'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { TestModule } from 'vitest/node'
import EnergyReporter from '../../reporter/index.js'
import type { EnergyReport, ReportedTest } from '../../reporter/report.js'
import { plainScreen } from '../../reporter/screen.js'
import { runReporter, type ReporterRun } from './_run.js'

const root = fileURLToPath(new URL('../fixtures/reporter-project/states/', import.meta.url))
const schemaPath = fileURLToPath(
  new URL('../../reporter/energy-report.schema.json', import.meta.url),
)

describe('every test of a run, with its state and reason', () => {
  let run: ReporterRun
  let dir = ''
  let out = ''
  let report: EnergyReport
  let modules: readonly TestModule[] = []
  const test_ = (name: string): ReportedTest | undefined =>
    report.tests.find((t) => t.name === name)

  beforeAll(async () => {
    run = await runReporter(root)
    ;({ dir, out, report, modules } = run)
  })
  afterAll(async () => {
    await run.cleanup()
  })

  test('the JSON report lists every test with its state, and validates against the schema', async () => {
    const ajv = new Ajv({ allErrors: true, strict: true })
    const validate = ajv.compile(JSON.parse(await readFile(schemaPath, 'utf8')) as object)
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true)
    expect(report.schemaVersion).toBe(4)
    expect(Object.fromEntries(report.tests.map((t) => [t.name, t.state]))).toEqual({
      'measured and passed': 'passed',
      'a method that did not run': 'failed',
      'times out': 'failed',
      'fails without energy': 'failed',
      'an EnergyError': 'failed',
      'passes without the energy fixture': 'passed',
      skipped: 'skipped',
      todo: 'todo',
      'skipped at run time': 'skipped',
      'expected to fail': 'passed',
      'login fails > sees the feed': 'skipped',
      'login fails > sees the map': 'skipped',
      'logout fails > measured before logout': 'passed',
      'setup per test fails > never started': 'failed',
      'top-level test': 'skipped',
      'nested > nested test': 'skipped',
    })
    expect(report.summary).toMatchObject({
      tests: 16,
      states: { passed: 4, failed: 5, skipped: 6, todo: 1, pending: 0 },
      testsWithWindows: 3,
    })
  })

  test("a failed matcher's whole message, a timeout's, an EnergyError's code", () => {
    expect(test_('a method that did not run')?.failure).toEqual({
      message:
        "expect(received).toConsumeLessThan(400 mJ)\n\nmethod 'com.example.trails.SyncService.run' did not run (or was never sampled) in 'a method that did not run'; methods seen: com.example.trails.FeedAdapter.bind",
    })
    expect(test_('times out')?.failure?.message).toMatch(/^Test timed out in 50ms\.\nIf this/)
    expect(test_('an EnergyError')?.failure).toEqual({
      message: '[E_NO_DEVICE] no phone\n  → Plug one in.',
      code: 'E_NO_DEVICE',
    })
    expect(test_('fails without energy')?.errors).toEqual([
      'TypeError: colourful failure\nsecond line',
    ])
  })

  test('a test without energy says why', () => {
    const reasons = Object.fromEntries(report.tests.map((t) => [t.name, t.noEnergyReason]))
    expect(reasons).toMatchObject({
      'times out': 'the test failed before an energy window opened',
      'passes without the energy fixture': 'the test does not use the energy fixture',
      skipped: 'skipped',
      todo: 'todo',
      'skipped at run time': 'skipped: no phone with ODPM rails',
      'login fails > sees the feed': "not run: 'login fails' failed",
      'setup per test fails > never started': 'the test failed before an energy window opened',
      'top-level test': 'not run: the file failed',
      'nested > nested test': 'not run: the file failed',
    })
    for (const name of ['measured and passed', 'a method that did not run'])
      expect(reasons[name], name).toBeUndefined()
  })

  test('failing hooks and a file that fails to load are failures outside tests', () => {
    const failures = report.suiteFailures.map((f) => [f.file, f.suite, f.message])
    expect(failures).toEqual(
      expect.arrayContaining([
        ['broken.test.ts', '', 'cannot import the page objects'],
        ['hooks.test.ts', 'login fails', 'could not log in'],
        ['hooks.test.ts', 'logout fails', 'could not log out'],
        ['setup.test.ts', '', 'the app is not installed'],
      ]),
    )
    expect(failures).toHaveLength(4)
    expect(test_('login fails > sees the map')?.failure).toEqual({
      message: 'could not log in',
      suite: 'login fails',
    })
    expect(test_('setup per test fails > never started')?.failure?.message).toBe(
      'app did not start',
    )
  })

  test('the terminal shows every test, the full messages, and no stack trace', () => {
    expect(out).toMatch(/✓ measured and passed +· +2\.00 J net/)
    expect(out).toMatch(/✗ times out +no energy measured: the test failed before an energy window/)
    expect(out).toContain('       Test timed out in 50ms.\n       If this is a long-running test')
    expect(out).toContain(
      "       expect(received).toConsumeLessThan(400 mJ)\n       method 'com.example.trails.SyncService.run' did not run",
    )
    expect(out).toMatch(/✎ todo +no energy measured: todo/)
    expect(out).toMatch(/↓ login fails > sees the feed +no energy measured: not run: 'login fails'/)
    expect(out).toContain('   ✗ logout fails  suite failed\n       could not log out')
    expect(out).toContain(
      ' broken.test.ts\n   ✗ the file failed\n       cannot import the page objects',
    )
    expect(out).not.toMatch(/^\s+at /m)
    expect(out).not.toContain('\u001b[')
    expect(out).toContain(
      'Tests     5 failed · 3 passed · 1 failed as expected · 6 skipped · 1 todo · 4 errors outside tests',
    )
  })

  test('on an interrupted run (watch mode cancel), the report says so and budgets are not written', async () => {
    let text = ''
    const budgets = join(dir, 'energy-budgets.json')
    const reporter = new EnergyReporter({
      screen: plainScreen,
      write: (t) => void (text += t),
      outputFile: join(dir, 'interrupted.json'),
      budgets,
      updateBudgets: true,
    })
    // What Vitest does when a run is cancelled (watch mode's Ctrl-C): onTestRunEnd, 'interrupted'.
    reporter.onTestRunEnd(modules, [], 'interrupted')
    const interrupted = JSON.parse(
      await readFile(join(dir, 'interrupted.json'), 'utf8'),
    ) as EnergyReport
    expect(interrupted.interrupted).toBe(true)
    expect(interrupted.summary.measuredWindows).toBe(3)
    expect(text).toContain('Interrupted the run was stopped before it ended')
    await expect(
      stat(budgets),
      'an interrupted run measured only part of the tests',
    ).rejects.toThrow(/ENOENT/)
    expect(interrupted.budgets?.updated).not.toBe(true)
    reporter.onTestRunEnd(modules, [], 'failed')
    const ended = JSON.parse(await readFile(join(dir, 'interrupted.json'), 'utf8')) as EnergyReport
    // None of these tests asks for a budget: -u has nothing to write, and says so.
    expect(ended.budgets?.updated, 'the same run, ended, updates them').toBe(true)
    expect(text).toContain('energy-budgets.json unchanged: no budget to write, change or remove')
    await expect(stat(budgets), 'an unchanged file is not written').rejects.toThrow(/ENOENT/)
  })
})
