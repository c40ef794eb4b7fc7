// The energy matchers pass a Jest 30 suite: Jest runs test/fixtures/jest-project against the
// compiled package (dist/, built by `npm run build`, which `npm test` runs first) with native ESM.
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv } from 'ajv'
import { expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'
import { jestBin, runJest } from './_jest.js'

const project = fileURLToPath(new URL('../fixtures/jest-project/', import.meta.url))
const built = fileURLToPath(new URL('../../dist/src/public/matchers.js', import.meta.url))
const hasBuild = existsSync(built) && existsSync(jestBin)
if (!hasBuild)
  console.warn('test/jest: skipped — run `npm run build` first (dist/src/public/matchers.js)')

test.skipIf(!hasBuild)('the matcher object passes the Jest 30 suite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-jest-'))
  try {
    const out = join(dir, 'jest.json')
    const { code, stdout } = await runJest(
      [
        '--config',
        join(project, 'jest.config.mjs'),
        '--rootDir',
        project,
        '--json',
        `--outputFile=${out}`,
      ],
      // CI: a test checks that a missing budget fails (outside CI, Jest's `new` mode passes it).
      { cwd: project, env: { CI: '1' } },
    )
    expect(code, stdout).toBe(0)
    const result = JSON.parse(await readFile(out, 'utf8')) as {
      success: boolean
      numPassedTests: number
      numFailedTests: number
      testResults: { assertionResults: { title: string; status: string }[] }[]
    }
    expect(result.numFailedTests).toBe(0)
    expect(result.success).toBe(true)
    const titles = result.testResults.flatMap((r) => r.assertionResults.map((a) => a.title))
    expect(titles).toContain('repeated runs and toNotRegressFrom (Mann–Whitney)')
    expect(titles).toContain('toStayWithinBudget passes under the committed budget')
    expect(result.numPassedTests).toBe(9)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

test.skipIf(!hasBuild)(
  'the Jest reporter merges per-worker side files into the same report as the Vitest reporter',
  async () => {
    const dir = join(project, 'with-reporter')
    const out = join(dir, 'out')
    try {
      // --ci=false: Jest's `new` snapshot mode wherever this runs. These results come from
      // recordEnergy(), which cannot say whether a test asks for a budget: `new` writes none.
      const { stdout, code } = await runJest(
        ['--config', join(dir, 'jest.config.mjs'), '--ci=false'],
        { cwd: dir },
      )
      // Two tests fail on purpose (3 J against 2.5 J; an error before recording), so Jest exits 1.
      expect(code).toBe(1)
      expect(existsSync(join(dir, 'energy-budgets.json'))).toBe(false)
      expect(stdout).not.toContain('Budgets ')
      expect(stdout).toContain(' ENERGY  power: odpm')
      expect(stdout).toMatch(/✗ feed scrolls too much\s+·\s+3\.00 J net/)
      expect(stdout).toContain('Energy    7.50 J net, 9.10 J gross over 4 windows in 3 tests')
      const report = JSON.parse(await readFile(join(out, 'energy.json'), 'utf8')) as EnergyReport
      const schema = JSON.parse(
        await readFile(
          new URL('../../reporter/energy-report.schema.json', import.meta.url),
          'utf8',
        ),
      ) as object
      // The schema of the Vitest reporter's JSON (schemaVersion 4, every test with its state).
      const validate = new Ajv({ allErrors: true, strict: true }).compile(schema)
      expect(validate(report), JSON.stringify(validate.errors)).toBe(true)
      expect(report.schemaVersion).toBe(4)
      const byName = new Map(report.tests.map((t) => [t.name, t]))
      // Every test Jest reported, like the Vitest reporter: with its state and why it has no energy.
      expect([...byName.keys()].sort()).toEqual([
        'feed opens',
        'feed scrolls too much',
        'later',
        'no energy here',
        'someday',
        'sync twice',
        'throws before recording',
      ])
      expect(report.summary.states).toEqual({
        passed: 3,
        failed: 2,
        skipped: 1,
        todo: 1,
        pending: 0,
      })
      expect(report.summary.testsWithWindows).toBe(3)
      expect(byName.get('sync twice')?.results.map((r) => r.label)).toEqual(['first', 'second'])
      expect(byName.get('feed scrolls too much')?.state).toBe('failed')
      expect(byName.get('feed opens')?.file).toBe('feed.test.mjs')
      const reasons = Object.fromEntries(report.tests.map((t) => [t.name, t.noEnergyReason]))
      expect(reasons).toEqual({
        'feed opens': undefined,
        'feed scrolls too much': undefined,
        'sync twice': undefined,
        'no energy here': 'the test did not call recordEnergy()',
        later: 'skipped',
        someday: 'todo',
        'throws before recording': 'the test failed before it recorded energy',
      })
      // Whole messages (every line of the matcher's explanation), no stack frames.
      expect(byName.get('feed scrolls too much')?.failure?.message).toMatch(
        /^expect\(received\)\.toConsumeLessThan\(2\.50 J\)\n\nExpected: < 2\.50 J \(net\)\nReceived: 3\.00 J/,
      )
      expect(byName.get('throws before recording')?.failure).toEqual({
        message: 'could not log in\nthe server said: 503',
      })
      expect(byName.get('throws before recording')?.errors).toEqual([
        'could not log in\nthe server said: 503',
      ])
      expect(stdout).toMatch(
        /✓ no energy here +no energy measured: the test did not call recordEnergy\(\)/,
      )
      expect(stdout).toMatch(/↓ later +no energy measured: skipped/)
      expect(stdout).toMatch(/✎ someday +no energy measured: todo/)
      expect(stdout).toContain(
        [
          '   ✗ throws before recording  no energy measured: the test failed before it recorded energy',
          '       could not log in',
          '       the server said: 503',
        ].join('\n'),
      )
      expect(stdout).toContain('Tests     2 failed · 3 passed · 1 skipped · 1 todo')
      const summary = await readFile(join(out, 'summary.md'), 'utf8')
      expect(summary).toContain('| ❌ | feed.test.mjs › feed scrolls too much | 3.00 J |')
      expect(summary).toContain(
        '| ✅ | sync.test.mjs › no energy here | – | – | – | – | – | – | – | no energy measured: the test did not call recordEnergy() |',
      )
    } finally {
      await rm(out, { recursive: true, force: true })
    }
  },
)

test.skipIf(!hasBuild)(
  'VITEST_ENERGY_UPDATE=1 makes the Jest reporter write budgets under Jest’s test names',
  async () => {
    const dir = join(project, 'with-reporter')
    const budgets = join(dir, 'energy-budgets.json')
    try {
      const { stdout } = await runJest(['--config', join(dir, 'jest.config.mjs')], {
        cwd: dir,
        env: { VITEST_ENERGY_UPDATE: '1' },
      })
      expect(stdout).toContain('Budgets   wrote energy-budgets.json: 3 added')
      // net 2 J, 3 J and 1 + 1.5 J, with 10% headroom rounded up to 2 significant digits
      expect(JSON.parse(await readFile(budgets, 'utf8'))).toEqual({
        schemaVersion: 1,
        tests: {
          'feed.test.mjs': {
            'feed opens': { '*': { energyJ: 2.2, measuredEnergyJ: 2 } },
            'feed scrolls too much': { '*': { energyJ: 3.3, measuredEnergyJ: 3 } },
          },
          'sync.test.mjs': { 'sync twice': { '*': { energyJ: 2.8, measuredEnergyJ: 2.5 } } },
        },
      })
    } finally {
      await rm(budgets, { force: true })
      await rm(join(dir, 'out'), { recursive: true, force: true })
    }
  },
)

test.skipIf(!hasBuild)(
  'without globalSetup, or with a misspelt option, each file fails to run with its error once and no word on measuring',
  async () => {
    const dir = join(project, 'no-setup')
    const { code, stdout, stderr } = await runJest(
      ['--config', join(dir, 'jest.config.mjs'), '--rootDir', dir],
      { cwd: dir },
    )
    expect(code).toBe(1)
    // Jest's "Test suite failed to run" (stderr): each error's code and hint, once.
    expect(stderr.split('Test suite failed to run').length - 1).toBe(2)
    expect(stderr).toContain('[E_JEST_SETUP_MISSING]')
    expect(stderr.split("→ Add globalSetup: 'vitest-energy/jest-global-setup'").length - 1).toBe(1)
    expect(stderr).toContain('[E_INVALID_OPTION] vitest-energy option `powr`: not an option')
    expect(stderr.split('→ In the Jest config, fix `powr`').length - 1).toBe(1)
    // The energy report (stdout) lists both files' errors, and then says nothing of measuring.
    expect(stdout).toContain('Tests     2 errors outside tests')
    expect(stdout).not.toContain('No test measured energy')
    expect(stdout).not.toContain('`energy` fixture')
  },
)
