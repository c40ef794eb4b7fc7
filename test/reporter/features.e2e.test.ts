// The reporter's budgets, baseline comparison, classifier and JSON schema, in real Vitest runs of
// test/fixtures/reporter-project (opening the feed: 2.0 J net, sync: 3.5 J, export: 5.5 J).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv } from 'ajv'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startVitest } from 'vitest/node'
import EnergyReporter, { type EnergyReporterOptions } from '../../reporter/index.js'
import type { EnergyReport } from '../../reporter/report.js'
import { plainScreen } from '../../reporter/screen.js'
import { parseBudgetFile, serializeBudgetFile } from '../../src/budgets/index.js'

const root = fileURLToPath(new URL('../fixtures/reporter-project/', import.meta.url))
const schemaPath = fileURLToPath(
  new URL('../../reporter/energy-report.schema.json', import.meta.url),
)

async function run(
  options: EnergyReporterOptions,
): Promise<{ out: string; reporter: EnergyReporter; rerun: () => Promise<string> }> {
  let out = ''
  const reporter = new EnergyReporter({
    screen: plainScreen,
    write: (text) => void (out += text),
    html: false, // nothing of a run is left in the fixture
    ...options,
  })
  const vitest = await startVitest('test', [], { root, watch: false, reporters: [reporter] })
  const first = out
  const modules = vitest.state.getTestModules()
  const rerun = async (): Promise<string> => {
    out = ''
    await reporter.onTestRunEnd(modules)
    return out
  }
  // An update run changes the budget file, so only a checking run must print the same twice.
  if (options.updateBudgets !== true)
    expect(await rerun(), 'the reporter keeps no state between runs (watch mode)').toBe(first)
  await vitest.close()
  return { out: first, reporter, rerun }
}

describe('budgets, baseline, classification and schema', () => {
  let dir = ''
  let validate: (data: unknown) => boolean
  let schemaErrors: () => unknown

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vitest-energy-features-'))
    const ajv = new Ajv({ allErrors: true, strict: true })
    const v = ajv.compile(JSON.parse(await readFile(schemaPath, 'utf8')) as object)
    validate = (data) => v(data)
    schemaErrors = () => v.errors
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  const budgets = join(root, '.features-e2e.energy-budgets.json')
  afterAll(async () => {
    await rm(budgets, { force: true })
  })

  test('update mode writes budgets with headroom, removes obsolete entries and keeps other files', async () => {
    await writeFile(
      budgets,
      serializeBudgetFile({
        schemaVersion: 1,
        tests: {
          'energy.test.ts': { 'a renamed test': { '*': { energyJ: 1 } } },
          'other.test.ts': { kept: { '*': { energyJ: 9 } } },
        },
      }),
    )
    const { out } = await run({
      budgets: '.features-e2e.energy-budgets.json',
      updateBudgets: true,
      budgetHeadroomPct: 10,
      outputFile: join(dir, 'update.json'),
    })
    const written = await readFile(budgets, 'utf8')
    // budget = measured × 1.1 rounded up to 2 significant digits: 2.2, 3.85 → 3.9, 6.05 → 6.1
    expect(parseBudgetFile(written).tests).toEqual({
      'energy.test.ts': {
        'opening the feed': { '*': { energyJ: 2.2, measuredEnergyJ: 2 } },
        'syncing <b>|pipes|</b> & "quotes"': { '*': { energyJ: 3.9, measuredEnergyJ: 3.5 } },
        'export fails its budget': { '*': { energyJ: 6.1, measuredEnergyJ: 5.5 } },
      },
      'other.test.ts': { kept: { '*': { energyJ: 9 } } },
    })
    expect(written, 'stable key order').toBe(serializeBudgetFile(parseBudgetFile(written)))
    expect(out).toContain(
      'Budgets   wrote .features-e2e.energy-budgets.json: 3 added, 0 changed, 1 obsolete removed',
    )
    const report = JSON.parse(await readFile(join(dir, 'update.json'), 'utf8')) as EnergyReport
    expect(report.budgets).toMatchObject({ updated: true, missing: 0 })
    expect(report.budgets?.obsolete).toEqual([
      { file: 'energy.test.ts', name: 'a renamed test', device: '*' },
    ])
    expect(validate(report), JSON.stringify(schemaErrors())).toBe(true)
  })

  test('a later run shows each budget and verdict, obsolete entries, baseline regressions and colours', async () => {
    const file = parseBudgetFile(await readFile(budgets, 'utf8'))
    await writeFile(
      budgets,
      serializeBudgetFile({
        schemaVersion: 1,
        tests: {
          ...file.tests,
          'energy.test.ts': {
            ...file.tests['energy.test.ts'],
            'export fails its budget': { '*': { energyJ: 5 } },
            'gone test': { '*': { energyJ: 1 } },
          },
        },
      }),
    )
    // Baseline: the previous report with "opening the feed" at 1.5 J and sync at 4.0 J.
    const previous = JSON.parse(await readFile(join(dir, 'update.json'), 'utf8')) as EnergyReport
    const baseline = {
      ...previous,
      tests: previous.tests.map((t) =>
        t.name === 'opening the feed'
          ? { ...t, netEnergyJ: 1.5 }
          : t.name.startsWith('syncing')
            ? { ...t, netEnergyJ: 4 }
            : t,
      ),
    }
    await writeFile(join(dir, 'baseline.json'), JSON.stringify(baseline))
    const { out } = await run({
      budgets: '.features-e2e.energy-budgets.json',
      updateBudgets: false,
      baseline: join(dir, 'baseline.json'),
      classify: true,
      outputFile: join(dir, 'energy.json'),
      markdown: join(dir, 'summary.md'),
    })
    // The figure the budget checked (net energy; repetitions as their mean), then the budget.
    expect(out).toMatch(
      /opening the feed .* 2\.00 J net \(2\.50 J gross\) {2}2\.00 J {2}91% of budget 2\.20 J ✓ {2}Δ \+500 mJ \+33\.3%/,
    )
    expect(out).toMatch(/export fails its budget .* 110% of budget 5\.00 J ✗ over/)
    // The regressed test and the one over budget are detailed; the others are one line each.
    expect(out).toMatch(/opening the feed .*\n {7}methods /)
    expect(out).toMatch(/export fails its budget .*\n {7}methods /)
    expect(out).toContain('Budgets   2 within · 1 over')
    expect(out).toContain('1 obsolete in .features-e2e.energy-budgets.json')
    expect(out).toContain('energy.test.ts › gone test')
    expect(out).toMatch(/Baseline {2}3 tests compared with .*baseline\.json: 1 regression/)
    expect(out).toMatch(/▲ opening the feed \(energy\.test\.ts\) \+500 mJ \+33\.3%/)
    expect(out).toMatch(/Methods {3}.*FeedAdapter\.bind ●/)
    expect(out).toMatch(/Classes {3}FeedAdapter /)
    expect(out).toMatch(/Packages {2}com\.example\.trails /)

    const report = JSON.parse(await readFile(join(dir, 'energy.json'), 'utf8')) as EnergyReport
    expect(validate(report), JSON.stringify(schemaErrors())).toBe(true)
    const byName = new Map(report.tests.map((t) => [t.name, t]))
    expect(byName.get('opening the feed')?.budget).toEqual({
      energyJ: 2.2,
      device: '*',
      valueJ: 2,
      verdict: 'within',
    })
    expect(byName.get('opening the feed')?.budgetFigure).toEqual({ valueJ: 2, n: 1 })
    expect(byName.get('export fails its budget')?.budget?.verdict).toBe('over')
    expect(byName.get('opening the feed')?.baseline).toMatchObject({
      baselineNetEnergyJ: 1.5,
      method: 'point',
      verdict: 'worse',
    })
    expect(byName.get('syncing <b>|pipes|</b> & "quotes"')?.baseline?.verdict).toBe('better')
    expect(report.baseline?.regressions.map((r) => r.name)).toEqual(['opening the feed'])
    expect(report.budgets).toMatchObject({ within: 2, over: 1, inconclusive: 0, missing: 0 })
    // One method executed by every test: the classifier colours it, the report uses its colour.
    const k = report.classification!
    expect(k.methods.map((m) => m.name)).toEqual(['com.example.trails.FeedAdapter.bind'])
    expect(k.classes).toEqual([
      expect.objectContaining({ name: 'com.example.trails.FeedAdapter', members: 1 }),
    ])
    const color = k.methods[0]!.color
    const firstWindow = byName.get('opening the feed')!.results[0]
    expect(firstWindow?.status === 'measured' && firstWindow.methods[0]?.color).toBe(color)

    const hierarchy = JSON.parse(await readFile(join(dir, 'energy.hierarchy.json'), 'utf8')) as {
      kind: string
      children: { kind: string; name: string; children: { name: string; children: unknown[] }[] }[]
    }
    expect(hierarchy.kind).toBe('project')
    expect(hierarchy.children[0]).toMatchObject({
      kind: 'package',
      name: 'com.example.trails',
      children: [{ name: 'FeedAdapter', children: [{ kind: 'method', name: 'bind', color }] }],
    })
    const markdown = await readFile(join(dir, 'summary.md'), 'utf8')
    expect(markdown).toContain('| 5.00 J ❌ over |')
    expect(markdown).toContain('**1 regression(s)**')
    expect(markdown).toContain('| com.example.trails.FeedAdapter.bind |')
    expect(markdown).toMatch(/\| package com\.example\.trails \| 3\.75 J \| /)
    expect(markdown).toMatch(/\| class com\.example\.trails\.FeedAdapter \| 3\.75 J \| /)
  })

  test('a baseline of schema version 1 (tests with energy only, first lines of errors) is still compared', async () => {
    const current = JSON.parse(await readFile(join(dir, 'energy.json'), 'utf8')) as EnergyReport
    const v1 = {
      schemaVersion: 1,
      tests: current.tests
        .filter((t) => t.results.length > 0)
        .map((t) => ({
          file: t.file,
          name: t.name,
          state: t.state,
          results: t.results,
          errors: t.errors.map((e) => e.split('\n')[0]),
          netEnergyJ: t.name === 'opening the feed' ? 1.5 : t.netEnergyJ,
          grossEnergyJ: t.grossEnergyJ,
          durationS: t.durationS,
        })),
    }
    await writeFile(join(dir, 'baseline-v1.json'), JSON.stringify(v1))
    const { out } = await run({
      budgets: '.features-e2e.energy-budgets.json',
      updateBudgets: false,
      baseline: join(dir, 'baseline-v1.json'),
    })
    expect(out).not.toContain('vitest-energy:')
    expect(out).toMatch(/Baseline {2}3 tests compared with .*baseline-v1\.json: 1 regression/)
  })

  test('a broken baseline or budget file is reported, and the other outputs are still written', async () => {
    await writeFile(join(dir, 'bad-baseline.json'), '{"schemaVersion": 7, "tests": []}')
    await writeFile(budgets, '{ not json')
    const { out } = await run({
      budgets: '.features-e2e.energy-budgets.json',
      updateBudgets: false,
      baseline: join(dir, 'bad-baseline.json'),
      outputFile: join(dir, 'after-errors.json'),
    })
    expect(out).toContain('[E_BUDGET_FILE_INVALID]')
    expect(out).toContain('[E_REPORT_BASELINE_INVALID]')
    expect(out).toContain('schemaVersion 7 is not supported')
    const report = JSON.parse(
      await readFile(join(dir, 'after-errors.json'), 'utf8'),
    ) as EnergyReport
    expect(report.summary.tests).toBe(5)
    expect(validate(report)).toBe(true)
  })

  test('the schema rejects reports that break it', async () => {
    const report = JSON.parse(await readFile(join(dir, 'energy.json'), 'utf8')) as EnergyReport
    expect(validate({ ...report, schemaVersion: 1 })).toBe(false)
    expect(validate({ ...report, tests: [{ ...report.tests[0], state: 'timed out' }] })).toBe(false)
    expect(validate({ ...report, extra: 1 })).toBe(false)
    expect(validate({ ...report, tests: [{ ...report.tests[0], netEnergyJ: '2 J' }] })).toBe(false)
    const { summary: _summary, ...withoutSummary } = report
    expect(validate(withoutSummary)).toBe(false)
  })
})
