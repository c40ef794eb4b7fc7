// The Jest flavour of the demo's UI tests (example-app-tests/jest/) on the virtual device, run by
// real Jest 30 (native ESM) with two workers against the compiled package (dist/), whose entries
// its config names as a user's would (`vitest-energy/jest-environment`, …: the package refers to
// itself from inside the repository). The project is copied to a scratch folder so that its
// outputs stay out of the tree; the run gets a TMPDIR of its own, so "nothing left behind" is
// checked, not assumed.
import { existsSync } from 'node:fs'
import { cp, mkdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Ajv } from 'ajv'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'
import { jestBin, listTree, repo, runJest } from './_jest.js'

const hasBuild =
  existsSync(join(repo, 'dist/src/public/jest-environment.js')) && existsSync(jestBin)
if (!hasBuild)
  console.warn(
    'test/jest: skipped — run `npm run build` first (dist/src/public/jest-environment.js)',
  )

const scratch = join(repo, 'test/.scratch/jest-example')
const project = join(scratch, 'project')
const tmp = join(scratch, 'tmp')

beforeAll(async () => {
  await rm(scratch, { recursive: true, force: true })
  await mkdir(tmp, { recursive: true })
  await cp(join(repo, 'example-app-tests/jest'), project, { recursive: true })
})

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true })
})

test.skipIf(!hasBuild)(
  'every test is measured without recordEnergy(), the GPS bug is caught, the committed budget holds',
  async () => {
    const { code, stdout, stderr } = await runJest([], {
      cwd: project,
      env: { TMPDIR: tmp, CI: '1' },
      timeoutMs: 240_000,
    })
    const output = stdout + stderr
    expect(output).not.toMatch(/Exceeded timeout|thrown: /)
    expect(code, output).toBe(0)
    const report = JSON.parse(
      await readFile(join(project, '.vitest-energy/report/energy.json'), 'utf8'),
    ) as EnergyReport
    const schema = JSON.parse(
      await readFile(join(repo, 'reporter/energy-report.schema.json'), 'utf8'),
    ) as object
    const validate = new Ajv({ allErrors: true, strict: true }).compile(schema)
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true)
    const byName = new Map(report.tests.map((t) => [t.name, t]))
    expect([...byName.keys()].sort()).toEqual([
      'a dim screen draws less than a bright one',
      'an idle phone draws less than 2 W',
      'opening the feed stays within its budget',
      'opening the map',
      'refreshing the feed draws less than 3 W on average',
      'the GPS is off after leaving the map (fails: leaking GPS listener)',
    ])
    // Every test has its windows, all measured: the environment sent them to the reporter.
    for (const t of report.tests) {
      expect(t.results.length, t.name).toBeGreaterThan(0)
      expect(
        t.results.every((r) => r.status === 'measured'),
        t.name,
      ).toBe(true)
    }
    // The automatic window, labelled with the test's name, when a test measures nothing itself.
    expect(byName.get('opening the map')?.results.map((r) => r.label)).toEqual(['opening the map'])
    expect(
      byName
        .get('the GPS is off after leaving the map (fails: leaking GPS listener)')
        ?.results.map((r) => r.label),
    ).toEqual(['on the map', 'after leaving the map'])
    const bug = byName.get('the GPS is off after leaving the map (fails: leaking GPS listener)')
    expect(bug?.expectedToFail).toBe(true)
    expect(report.summary.states).toMatchObject({ passed: 6, failed: 0 })
    // toStayWithinBudget() read example-app-tests/jest/energy-budgets.json under Jest's names.
    expect(byName.get('opening the feed stays within its budget')?.budget?.verdict).toBe('within')
    // The run's folder, the phone locks, Appium's home and the reporter's side files are gone.
    expect(await listTree(tmp)).toEqual(['vitest-energy/', 'vitest-energy/leases/'])
  },
  300_000,
)
