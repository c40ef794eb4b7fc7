// A user's first project, the way a user builds it: the package packed with `npm pack`, installed
// with Vitest into a fresh project outside the repository, the README's quick-start config and
// tests written as they stand in README.md (so the README cannot drift from what works), run with
// Vitest's own defaults and with more workers than phones. Every child run gets a TMPDIR of its
// own, so "nothing left in /tmp" is checked, not assumed. Runs are in CI (CI=1) unless they test a
// developer's machine: there the first run writes the missing budgets (docs/budgets.md).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { connectAdb, shell } from '../../src/device/index.js'
import { startVirtualDevice } from '../../src/virtual-device/index.js'
import { captured } from './captured.js'
import { withoutCi } from './ci-env.js'
import { docExamples } from './doc-examples.js'
import { expectTypeChecks, packedProject } from './packed-project.js'
import { listTree } from './tree.js'

interface ReportedTest {
  readonly name: string
  readonly file: string
  readonly state: string
  readonly failure?: { readonly message: string }
  readonly noEnergyReason?: string
}

interface VitestRun {
  readonly code: number
  readonly output: string
  readonly tests: readonly ReportedTest[]
  /** What the run left in its TMPDIR, as relative paths (files and folders). */
  readonly leftInTmp: readonly string[]
}

let work: string
let project: string

async function vitest(
  args: readonly string[],
  name: string,
  where: 'ci' | 'developer' = 'ci',
): Promise<VitestRun> {
  const tmp = await mkdtemp(join(work, `tmp-${name}-`))
  const out = join(work, `${name}.json`)
  const { code, output } = await captured(
    'npx',
    ['vitest', 'run', '--reporter=energy', `--outputFile.energy=${out}`, ...args],
    {
      cwd: project,
      env: {
        ...(where === 'ci' ? { ...process.env, CI: '1' } : withoutCi(process.env)),
        TMPDIR: tmp,
        NO_COLOR: '1',
        VITEST_POOL_ID: '',
      },
      timeoutMs: 240_000,
    },
  )
  const report = JSON.parse(await readFile(out, 'utf8')) as { tests: ReportedTest[] }
  return { code, output, tests: report.tests, leftInTmp: await listTree(tmp) }
}

beforeAll(async () => {
  ;({ work, project } = await packedProject('vitest-energy-user-', 'vitest'))
  for (const example of await docExamples('quickstart')) {
    await writeFile(join(project, example.file), example.code)
  }
}, 360_000)

afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

describe("a new user's first runs of the README quick start, as for snapshots", () => {
  const budgetsPath = (): string => join(project, 'energy-budgets.json')
  afterAll(async () => rm(budgetsPath(), { force: true }))

  test('on a developer machine the first run passes and writes the budget of the test that asked for one; the second checks it', async () => {
    const first = await vitest([], 'first', 'developer')
    expect(first.code, first.output).toBe(0)
    expect(first.output).toContain(
      'Budgets   1 written (new) — review energy-budgets.json and commit it',
    )
    const text = await readFile(budgetsPath(), 'utf8')
    const budgets = JSON.parse(text) as {
      tests: Record<string, Record<string, Record<string, { energyJ: number }>>>
    }
    // Only feed.test.ts calls toStayWithinBudget(); the other tests never asked for a budget.
    expect(Object.keys(budgets.tests)).toEqual(['feed.test.ts'])
    expect(Object.keys(budgets.tests['feed.test.ts'] ?? {})).toEqual(['refreshing the feed'])
    expect(
      budgets.tests['feed.test.ts']?.['refreshing the feed']?.['Pixel 6 (virtual)']?.energyJ,
    ).toBeGreaterThan(0)

    const second = await vitest([], 'second', 'developer')
    expect(second.code, second.output).toBe(0)
    expect(second.output).toMatch(/Budgets {3}1 within/)
    expect(second.output).not.toContain('written (new)')
    expect(second.output).not.toContain('no energy reporter ran')
    expect(await readFile(budgetsPath(), 'utf8'), 'a budget that exists is left alone').toBe(text)
  }, 480_000)

  test('on a developer machine without the energy reporter (nothing would write the budget) the first run fails and says to add it', async () => {
    await rm(budgetsPath(), { force: true })
    const plain = await captured('npx', ['vitest', 'run'], {
      cwd: project,
      env: { ...withoutCi(process.env), NO_COLOR: '1', VITEST_POOL_ID: '' },
      timeoutMs: 240_000,
    })
    expect(plain.code).toBe(1)
    expect(plain.output).toContain('no budget for feed.test.ts › refreshing the feed')
    expect(plain.output).toContain('run with `--reporter=energy`')
    // The run's end says once that what was measured went unreported, and how to see it.
    expect(plain.output.match(/energy was measured but no energy reporter ran/g)).toHaveLength(1)
    await expect(readFile(budgetsPath(), 'utf8')).rejects.toThrow(/ENOENT/)
  }, 240_000)

  test('in CI the first run fails with "no budget" and writes nothing', async () => {
    await rm(budgetsPath(), { force: true })
    const ci = await vitest([], 'ci-first', 'ci')
    expect(ci.code).toBe(1)
    expect(ci.output).toContain(
      'no budget for feed.test.ts › refreshing the feed [Pixel 6 (virtual)]',
    )
    expect(ci.output).toContain('vitest -u')
    expect(ci.tests.find((t) => t.name === 'refreshing the feed')?.state).toBe('failed')
    await expect(readFile(budgetsPath(), 'utf8')).rejects.toThrow(/ENOENT/)
  }, 240_000)
})

describe('the README quick start in a fresh project', () => {
  const quickstartTests = ['opening the map', 'refreshing the feed', 'scrolling the feed']

  // As for snapshots: -u writes budgets for the tests that ask for one (feed.test.ts's
  // toStayWithinBudget()); the map and scroll tests never asked and get none (docs/budgets.md).
  test('vitest -u writes the budget of every test that asks for one', async () => {
    const first = await vitest(['-u'], 'update')
    expect(first.output).not.toMatch(/Test timed out|close timed out/)
    expect(first.code, first.output).toBe(0)
    const budgets = JSON.parse(await readFile(join(project, 'energy-budgets.json'), 'utf8')) as {
      tests: Record<string, Record<string, Record<string, unknown>>>
    }
    const names = Object.values(budgets.tests).flatMap((byName) => Object.keys(byName))
    expect(names.sort()).toEqual(['refreshing the feed'])
    // Budgets measured on the simulation are never applied to a real phone, nor the reverse.
    const models = Object.values(budgets.tests).flatMap((byName) =>
      Object.values(byName).flatMap((byModel) => Object.keys(byModel)),
    )
    expect(new Set(models)).toEqual(new Set(['Pixel 6 (virtual)']))

    // Nothing changed: the budget still fits, and a second -u leaves the file byte for byte.
    const text = await readFile(join(project, 'energy-budgets.json'), 'utf8')
    const again = await vitest(['-u'], 'update-again')
    expect(again.code, again.output).toBe(0)
    expect(again.output).toContain(
      "Budgets   energy-budgets.json unchanged: this run's 1 budget still fits",
    )
    expect(await readFile(join(project, 'energy-budgets.json'), 'utf8')).toBe(text)
  }, 480_000)

  test("npx vitest-energy demo leaves the project's own runs as they were: results in ./vitest-energy-demo/, no test file", async () => {
    const tmp = await mkdtemp(join(work, 'tmp-demo-'))
    const { code, output } = await captured('npx', ['vitest-energy', 'demo'], {
      cwd: project,
      env: { ...process.env, CI: '1', TMPDIR: tmp, NO_COLOR: '1', VITEST_POOL_ID: '' },
      timeoutMs: 300_000,
    })
    try {
      expect(code, output).toBe(0)
      expect(output).toContain("The demo's results are in ./vitest-energy-demo/")
      // The fixed build's run is captured, but its progress shows: no silent wait.
      const fixedStep = output.slice(output.indexOf('1/2 '), output.indexOf('2/2 '))
      expect(fixedStep).toMatch(/ {2}⋯ scrolling the feed does not regress .*: repetition 5\/5/)
      expect(output).toMatch(/The tests +\.\/node_modules\/vitest-energy\/example-app-tests/)
      // Neither Vite's config-loader deprecation nor its CommonJS-config warning.
      expect(output).not.toMatch(/deprecated|loaded as CommonJS/)
      // What it kept: reports and raw data, no test file and no config a runner would pick up.
      const kept = await listTree(join(project, 'vitest-energy-demo'))
      expect(kept).toEqual(expect.arrayContaining(['demo-report.json', 'report.html']))
      const runnable = kept.filter(
        (f) =>
          !f.endsWith('/') &&
          (/\.(test|spec)\.[cm]?[jt]sx?$|(vitest|vite|jest)\.config\./.test(f) ||
            f.includes('__tests__/')),
      )
      expect(runnable).toEqual([])
      // The temporary copy of the tests is gone.
      expect(await listTree(tmp)).toEqual(expectedTmpLeftovers(await listTree(tmp)))

      const own = await vitest([], 'after-demo')
      expect(own.code, own.output).toBe(0)
      expect(own.tests.map((t) => [t.name, t.state]).sort()).toEqual(
        quickstartTests.map((n) => [n, 'passed']),
      )
    } finally {
      await rm(join(project, 'vitest-energy-demo'), { recursive: true, force: true })
    }
  }, 480_000)

  test('three workers on one phone: every test passes and checks its budget', async () => {
    const three = await vitest(['--maxWorkers=3'], 'three-workers')
    expect(three.output).not.toMatch(/Test timed out|close timed out/)
    expect(three.code, three.output).toBe(0)
    expect(three.tests.map((t) => [t.name, t.state]).sort()).toEqual(
      quickstartTests.map((n) => [n, 'passed']),
    )
    // feed.test.ts checks its budget with toStayWithinBudget(): its pass is the check.
    expect(three.leftInTmp).toEqual(expectedTmpLeftovers(three.leftInTmp))
  }, 240_000)

  test('Vitest defaults (one worker per phone), with a failing energy test listed with its reason', async () => {
    await writeFile(
      join(project, 'missing-method.test.ts'),
      [
        "import { test, expect } from 'vitest-energy'",
        "test('a method that never runs', async ({ driver, energy }) => {",
        '  const run = await energy.measure(() => driver.pause(300))',
        "  expect(run.method('com.example.trails.Nope.never')).toConsumeLessThan(1)",
        '})',
        '',
      ].join('\n'),
    )
    try {
      const one = await vitest([], 'defaults')
      expect(one.output).not.toMatch(/Test timed out|close timed out/)
      expect(one.code).toBe(1)
      expect(one.tests.map((t) => [t.name, t.state]).sort()).toEqual(
        [...quickstartTests.map((n) => [n, 'passed']), ['a method that never runs', 'failed']].sort(
          (a, b) => a[0]!.localeCompare(b[0]!),
        ),
      )
      const failed = one.tests.find((t) => t.state === 'failed')
      expect(failed?.failure?.message).toMatch(
        /method 'com\.example\.trails\.Nope\.never' did not run .*methods seen:/s,
      )
      expect(one.output).toContain("method 'com.example.trails.Nope.never' did not run")
      expect(one.leftInTmp).toEqual(expectedTmpLeftovers(one.leftInTmp))
    } finally {
      await rm(join(project, 'missing-method.test.ts'))
    }
  }, 240_000)

  test('nothing is left on a phone that outlives the run', async () => {
    // A phone of its own, so it can be looked at after the run has ended.
    const phone = await startVirtualDevice({ serialPrefix: 'vdev-user' })
    try {
      const serial = phone.serials[0]!
      await writeFile(
        join(project, 'vitest.phone.config.ts'),
        [
          "import { defineConfig } from 'vitest/config'",
          "import { energy } from 'vitest-energy/plugin'",
          'export default defineConfig({',
          // Reached like a real phone: Appium's UiAutomator2 driver, the launcher activity
          // resolved on the phone, as for a user's own app.
          `  plugins: [energy({ app: 'com.example.trails', device: '${serial}', adb: { port: ${phone.port} } })],`,
          '})',
          '',
        ].join('\n'),
      )
      const onPhone = await vitest(['--config', 'vitest.phone.config.ts'], 'phone')
      expect(onPhone.code, onPhone.output).toBe(0)
      expect(onPhone.tests.filter((t) => t.state === 'passed')).toHaveLength(3)
      const device = (await connectAdb({ port: phone.port })).device(serial)
      const left = await shell(device, ['ls', '-a', '/data/local/tmp'])
      const files = left.stdout.split(/\s+/).filter((f) => f !== '' && f !== '.' && f !== '..')
      // The folder the collectors work in may stay; nothing in it may. The UiAutomator2 driver
      // keeps its list of mock-location apps there on every phone it drives (its file, not ours).
      const ours = files.filter((f) => f !== 'vitest-energy' && f !== 'mock_apps.json')
      for (const entry of ours) expect.fail(`left ${entry}`)
      if (files.includes('vitest-energy')) {
        const inside = await shell(device, ['ls', '-a', '/data/local/tmp/vitest-energy'])
        expect(
          inside.stdout.split(/\s+/).filter((f) => f !== '' && f !== '.' && f !== '..'),
        ).toEqual([])
      }
    } finally {
      await phone.close()
    }
  }, 240_000)
})

describe("the package's typings, as a user's TypeScript sees them", () => {
  test('the quick start type-checks; driver is WebdriverIO.Browser, not any; a suite hook has no energy', async () => {
    await expectTypeChecks(project, [
      "import { afterEach, beforeAll, beforeEach, describe, expect, it, test } from 'vitest-energy'",
      '',
      'beforeAll(async ({ driver, device }) => {',
      '  const browser: WebdriverIO.Browser = driver',
      '  void browser, device.serial',
      '})',
      '// @ts-expect-error a suite hook has no per-test fixture',
      'beforeAll(async ({ energy }) => void energy)',
      'beforeEach(async ({ driver, energy }) => void [driver, energy])',
      'afterEach(async ({ energy }) => void energy.results)',
      "describe('s', () => {",
      "  it('t', async ({ driver, energy }) => {",
      "    // @ts-expect-error driver is typed (it was any when webdriverio's namespace was missing)",
      '    const n: number = driver',
      "    const run = await energy.measure(() => driver.$('~refresh').click())",
      '    expect(run).toConsumeLessThan(1)',
      '    void [n, test]',
      '  })',
      '})',
    ])
  }, 120_000)
})

/** The empty lease folder (shared by every run on the host) is all a run may leave in TMPDIR. */
function expectedTmpLeftovers(actual: readonly string[]): string[] {
  const allowed = ['vitest-energy/', 'vitest-energy/leases/']
  return actual.filter((entry) => !allowed.includes(entry)).length === 0 ? [...actual] : allowed
}
