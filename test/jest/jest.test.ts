// The energy matchers pass a Jest 30 suite: Jest runs test/fixtures/jest-project against the
// compiled package (dist/, built by `npm run build`, which `npm test` runs first) with native ESM.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Ajv } from 'ajv'
import { expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'

const project = fileURLToPath(new URL('../fixtures/jest-project/', import.meta.url))
const jestBin = fileURLToPath(new URL('../../node_modules/jest/bin/jest.js', import.meta.url))
const built = fileURLToPath(new URL('../../dist/src/public/matchers.js', import.meta.url))
const hasBuild = existsSync(built) && existsSync(jestBin)
if (!hasBuild)
  console.warn('test/jest: skipped — run `npm run build` first (dist/src/public/matchers.js)')

test.skipIf(!hasBuild)('the matcher object passes the Jest 30 suite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-jest-'))
  try {
    const out = join(dir, 'jest.json')
    await promisify(execFile)(
      process.execPath,
      [
        '--experimental-vm-modules',
        jestBin,
        '--config',
        join(project, 'jest.config.mjs'),
        '--rootDir',
        project,
        '--json',
        `--outputFile=${out}`,
      ],
      { cwd: project, env: { ...process.env, NO_COLOR: '1' } },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`jest failed:\n${error.stderr ?? ''}\n${error.stdout ?? ''}`)
    })
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
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--experimental-vm-modules', jestBin, '--config', join(dir, 'jest.config.mjs')],
        { cwd: dir, env: { ...process.env, NO_COLOR: '1' } },
      ).catch((error: { stdout: string; code: number }) => {
        // One test fails on purpose (3 J against 2.5 J), so Jest exits with 1.
        expect(error.code).toBe(1)
        return { stdout: error.stdout }
      })
      expect(stdout).toContain(' ENERGY  power: odpm')
      expect(stdout).toMatch(/✗ feed scrolls too much\s+·\s+3\.00 J net/)
      expect(stdout).toContain('Energy  7.50 J net, 9.10 J gross over 4 windows in 3 tests')
      const report = JSON.parse(await readFile(join(out, 'energy.json'), 'utf8')) as EnergyReport
      const schema = JSON.parse(
        await readFile(
          new URL('../../reporter/energy-report.schema.json', import.meta.url),
          'utf8',
        ),
      ) as object
      expect(new Ajv({ strict: true }).validate(schema, report)).toBe(true)
      const byName = new Map(report.tests.map((t) => [t.name, t]))
      expect([...byName.keys()].sort()).toEqual([
        'feed opens',
        'feed scrolls too much',
        'sync twice',
      ])
      expect(byName.get('sync twice')?.results.map((r) => r.label)).toEqual(['first', 'second'])
      expect(byName.get('feed scrolls too much')?.state).toBe('failed')
      expect(byName.get('feed opens')?.file).toBe('feed.test.mjs')
      expect(await readFile(join(out, 'summary.md'), 'utf8')).toContain(
        '| ❌ | feed.test.mjs › feed scrolls too much | 3.00 J |',
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
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--experimental-vm-modules', jestBin, '--config', join(dir, 'jest.config.mjs')],
        { cwd: dir, env: { ...process.env, NO_COLOR: '1', VITEST_ENERGY_UPDATE: '1' } },
      ).catch((error: { stdout: string }) => ({ stdout: error.stdout }))
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
