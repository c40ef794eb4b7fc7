// `vitest -u` and VITEST_ENERGY_UPDATE=1 in real child processes: the energy reporter (the one
// writer, in the main process) writes energy-budgets.json from the measurements with 10% headroom.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { parseBudgetFile, serializeBudgetFile } from '../../src/budgets/index.js'

const root = fileURLToPath(new URL('../fixtures/reporter-project/update/', import.meta.url))
const vitestBin = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))
const budgets = join(root, 'energy-budgets.json')

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vitest-energy-update-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

async function vitest(args: string[], env: Record<string, string> = {}): Promise<string> {
  // The HTML report goes to a folder of the test's own: nothing of a run is left in the fixture.
  const html = `--outputFile.energy-html=${join(dir, 'report.html')}`
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [vitestBin, 'run', ...args, html],
    {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1', ...env },
    },
  )
  return stdout
}

afterEach(async () => {
  await rm(budgets, { force: true })
})

// net = gross − 0.5 W × 1 s: 2.3 J, 0.8 J, 3.0 J → budgets 2.53 → 2.6, 3.3; 'feed > scrolling'
// never asks for one (no toStayWithinBudget(), no checkBudgets), so -u writes it none.
const expected = {
  schemaVersion: 1,
  tests: {
    'budget.test.ts': {
      'checked by the matcher': { 'Pixel 6': { energyJ: 3.3, measuredEnergyJ: 3 } },
    },
    'feed.test.ts': {
      'feed > opening the feed': { 'Pixel 6': { energyJ: 2.6, measuredEnergyJ: 2.3 } },
    },
  },
}

// CI=1 (see vitest() above): a missing budget fails in CI; outside CI it passes and is written.
test('without budgets, toStayWithinBudget() fails the run and says how to write them', async () => {
  const failed = await vitest(['--reporter=default']).then(
    () => '',
    (error: { stdout: string; stderr: string }) => error.stdout + error.stderr,
  )
  expect(failed).toContain('no budget for budget.test.ts › checked by the matcher [Pixel 6]')
})

test('vitest -u --reporter=energy writes the budgets of the tests that ask (the matcher passes meanwhile); a plain run then checks them', async () => {
  const stdout = await vitest(['-u', '--reporter=energy'])
  expect(stdout).toContain(
    'Budgets   wrote energy-budgets.json: 2 added, 0 changed, 0 obsolete removed',
  )
  const text = await readFile(budgets, 'utf8')
  expect(text).toBe(serializeBudgetFile(parseBudgetFile(text)))
  expect(JSON.parse(text)).toEqual(expected)

  const check = await vitest(['--reporter=energy'])
  expect(check).toMatch(/opening the feed .* budget 2\.60 J ✓/)
  expect(check).toContain('Budgets   2 within\n')
})

test('VITEST_ENERGY_UPDATE=1 writes the same budgets without -u', async () => {
  await vitest(['--reporter=energy'], { VITEST_ENERGY_UPDATE: '1' })
  expect(JSON.parse(await readFile(budgets, 'utf8'))).toEqual(expected)
})
