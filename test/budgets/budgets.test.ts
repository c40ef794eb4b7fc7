import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  addMissingBudgets,
  BudgetErrors,
  budgetFromMeasurement,
  budgetFileKey,
  budgetUpdateMode,
  ceilSignificant,
  checkTestBudget,
  emptyBudgetFile,
  lookupBudget,
  obsoleteBudgets,
  parseBudgetFile,
  readBudgetFile,
  resolveBudgetsFile,
  serializeBudgetFile,
  testBudgetFigure,
  updateBudgets,
  writesBudget,
  writeBudgetFile,
  type BudgetFile,
  type BudgetObservation,
} from '../../src/budgets/index.js'
import { measuredResult, type MeasuredEnergyResult } from '../../src/model/index.js'
import { energyErrorOf } from '../_energy-error.js'

const golden = fileURLToPath(new URL('../fixtures/budgets/energy-budgets.json', import.meta.url))

function window(label: string, netEnergyJ: number, extra: Partial<MeasuredEnergyResult> = {}) {
  const r = measuredResult({
    label,
    window: { clock: 'boottime', startNs: 0, endNs: 1_000_000_000 },
    grossEnergyJ: netEnergyJ + 0.5,
    baselinePowerW: 0.5,
    components: [],
    rails: [],
    methods: [],
    sources: { power: 'odpm', sampleCount: 100 },
    warnings: [],
  })
  return { ...r, ...extra }
}

describe('the budget file', () => {
  test('the golden file parses and serializes back byte for byte (sorted keys, final newline)', async () => {
    const text = await readFile(golden, 'utf8')
    const file = parseBudgetFile(text)
    expect(serializeBudgetFile(file)).toBe(text)
  })

  test('serialization sorts keys at every level, schemaVersion first, whatever the insertion order', () => {
    const file: BudgetFile = {
      tests: {
        'z.test.ts': { b: { '*': { measuredEnergyJ: 1, energyJ: 2 } }, a: { '*': { energyJ: 1 } } },
        'a.test.ts': {},
      },
      schemaVersion: 1,
    } as unknown as BudgetFile
    expect(serializeBudgetFile(file)).toBe(
      '{\n  "schemaVersion": 1,\n  "tests": {\n    "a.test.ts": {},\n    "z.test.ts": {\n      "a": {\n        "*": {\n          "energyJ": 1\n        }\n      },\n      "b": {\n        "*": {\n          "energyJ": 2,\n          "measuredEnergyJ": 1\n        }\n      }\n    }\n  }\n}\n',
    )
  })

  test('lookup prefers the device model, falls back to `*`, and misses unknown tests', async () => {
    const file = parseBudgetFile(await readFile(golden, 'utf8'))
    const key = { file: 'feed.test.ts', name: 'feed > opening the feed' }
    expect(lookupBudget(file, { ...key, device: 'Pixel 6' })?.entry.energyJ).toBe(1.9)
    expect(lookupBudget(file, { ...key, device: 'Pixel 8' })).toEqual({
      device: '*',
      entry: { energyJ: 2.8, measuredEnergyJ: 2.53 },
    })
    expect(lookupBudget(file, key)?.device).toBe('*')
    expect(lookupBudget(file, { file: 'feed.test.ts', name: 'nope' })).toBeUndefined()
  })

  // Where each problem is (line:column, JSON path): test/budgets/file-errors.test.ts.
  test.each([
    ['{ "schemaVersion": 1, ', 'not valid JSON (at 1:23): expected a property name'],
    ['[]', 'the top level (at 1:1) must be an object like'],
    ['{ "schemaVersion": 2, "tests": {} }', 'schemaVersion (at 1:20) must be 1'],
    ['{ "schemaVersion": 1 }', 'tests (at 1:1) must be an object keyed by test file (got nothing)'],
    [
      '{ "schemaVersion": 1, "tests": { "a.test.ts": [] } }',
      'tests["a.test.ts"] (at 1:47) must be an object keyed by full test name (got an array)',
    ],
    [
      '{ "schemaVersion": 1, "tests": { "a": { "t": 3 } } }',
      'tests.a.t (at 1:46) must be an object keyed by device model (got 3)',
    ],
    [
      '{ "schemaVersion": 1, "tests": { "a": { "t": { "*": 3 } } } }',
      'tests.a.t["*"] (at 1:53) must be an object like',
    ],
    [
      '{ "schemaVersion": 1, "tests": { "a": { "t": { "*": { "energyJ": -1 } } } } }',
      'energyJ (at 1:66) must be a finite number ≥ 0 (got -1)',
    ],
    [
      '{ "schemaVersion": 1, "tests": { "a": { "t": { "*": { "energyJ": "2" } } } } }',
      'energyJ (at 1:66) must be a finite number ≥ 0 (got "2")',
    ],
    [
      '{ "schemaVersion": 1, "tests": { "a": { "t": { "*": { "energyJ": 1, "measuredEnergyJ": null } } } } }',
      'measuredEnergyJ (at 1:88) must be a finite number (got null)',
    ],
  ])('rejects %s with E_BUDGET_FILE_INVALID', (text, message) => {
    const e = energyErrorOf(() => parseBudgetFile(text, 'budgets.json'))
    expect(e.code).toBe(BudgetErrors.FILE_INVALID)
    expect(e.message).toContain(message)
    expect(e.message).toContain('budgets.json')
    expect(e.message).toContain('vitest -u')
  })
})

describe('new budgets from measurements', () => {
  test.each([
    [2.531, 2.6],
    [2.6, 2.6],
    [0.01234, 0.013],
    [1234, 1300],
    [0.1 + 0.2, 0.3], // floating-point noise (…0004) does not bump the budget
    [9.91, 10],
    [1.234e300, 1.3e300],
    [1.234e-300, 1.3e-300],
    [0, 0],
  ])('ceilSignificant(%s) = %s', (value, expected) => {
    expect(ceilSignificant(value, 2)).toBe(expected)
  })

  test('budget = measurement × (1 + headroom), rounded up to 2 significant digits', () => {
    expect(budgetFromMeasurement(2.3, 10), '2.53 → 2.6').toBe(2.6)
    expect(budgetFromMeasurement(2.3, 0), '2.3').toBe(2.3)
    expect(budgetFromMeasurement(0.0415, 25), '0.051875 → 0.052').toBe(0.052)
  })

  test('property: the budget keeps at least the headroom and adds at most one unit in the 2nd digit', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
        fc.integer({ min: 0, max: 100 }),
        (measured, headroom) => {
          const wanted = measured * (1 + headroom / 100)
          const budget = budgetFromMeasurement(measured, headroom)
          const unit = 10 ** (Math.floor(Math.log10(wanted)) - 1)
          expect(budget).toBeGreaterThanOrEqual(wanted * (1 - 1e-12))
          expect(budget - wanted).toBeLessThanOrEqual(unit * (1 + 1e-9))
          expect(Number(budget.toPrecision(2))).toBe(budget)
        },
      ),
    )
  })

  test('update writes measured tests that asked (by device), keeps others, removes obsolete entries of files that ran', async () => {
    const before = parseBudgetFile(await readFile(golden, 'utf8'))
    const result = updateBudgets(
      before,
      [
        {
          file: 'feed.test.ts',
          name: 'feed > opening the feed',
          valueJ: 2.0,
          device: 'Pixel 6',
          requested: true,
        },
        { file: 'feed.test.ts', name: 'feed > scrolling', valueJ: 0.5, requested: true },
        { file: 'feed.test.ts', name: 'feed > never asked', valueJ: 0.7 },
        { file: 'feed.test.ts', name: 'feed > not measured', requested: true },
      ],
      10,
    )
    expect(result.added).toEqual([{ file: 'feed.test.ts', name: 'feed > scrolling', device: '*' }])
    expect(result.changed).toEqual([
      { file: 'feed.test.ts', name: 'feed > opening the feed', device: 'Pixel 6' },
    ])
    expect(result.removed, 'sync.test.ts did not run: not judged').toEqual([])
    expect(result.file.tests['feed.test.ts']?.['feed > opening the feed']).toEqual({
      '*': { energyJ: 2.8, measuredEnergyJ: 2.53 },
      'Pixel 6': { energyJ: 2.2, measuredEnergyJ: 2 },
    })
    expect(result.file.tests['sync.test.ts']).toEqual(before.tests['sync.test.ts'])

    const renamed = updateBudgets(
      before,
      [{ file: 'sync.test.ts', name: 'sync v2', valueJ: 1, requested: true }],
      10,
    )
    expect(renamed.removed).toEqual([{ file: 'sync.test.ts', name: 'syncing', device: '*' }])
    expect(Object.keys(renamed.file.tests['sync.test.ts'] ?? {})).toEqual(['sync v2'])
    expect(before.tests['sync.test.ts']?.['syncing'], 'input not mutated').toBeDefined()
  })

  test('no budget for a test at or below idle (its interval reaches 0); one it has is kept', () => {
    const result = updateBudgets(
      { schemaVersion: 1, tests: { 'idle.test.ts': { 'kept idle': { '*': { energyJ: 0.1 } } } } },
      [
        {
          file: 'idle.test.ts',
          name: 'below idle',
          valueJ: -3.28,
          lowJ: -3.28001,
          requested: true,
        },
        { file: 'idle.test.ts', name: 'within noise', valueJ: 4e-7, lowJ: -1e-5, requested: true },
        { file: 'idle.test.ts', name: 'kept idle', valueJ: 2e-7, lowJ: -1e-5, requested: true },
        { file: 'idle.test.ts', name: 'above noise', valueJ: 0.3, lowJ: 0.29999, requested: true },
      ],
      10,
    )
    expect(result.added).toEqual([{ file: 'idle.test.ts', name: 'above noise', device: '*' }])
    expect(result.removed).toEqual([])
    expect(Object.keys(result.file.tests['idle.test.ts'] ?? {}).sort()).toEqual([
      'above noise',
      'kept idle',
    ])
  })

  test('mode new adds the missing budgets of tests that asked for one and keeps every other entry as it was', async () => {
    const text = await readFile(golden, 'utf8')
    const before = parseBudgetFile(text)
    const asked = { requested: true }
    const result = addMissingBudgets(
      before,
      [
        // Has a budget for its device: kept as it is, though the measurement moved.
        {
          file: 'feed.test.ts',
          name: 'feed > opening the feed',
          valueJ: 2.0,
          device: 'Pixel 6',
          ...asked,
        },
        // Another phone: the `*` budget applies, so it is not missing.
        {
          file: 'feed.test.ts',
          name: 'feed > opening the feed',
          valueJ: 9.0,
          device: 'Pixel 8',
          ...asked,
        },
        { file: 'feed.test.ts', name: 'feed > scrolling', valueJ: 0.5, ...asked },
        { file: 'feed.test.ts', name: 'feed > search', valueJ: 1.23, device: 'Pixel 6', ...asked },
        // Never asked for a budget (no toStayWithinBudget(), no checkBudgets): none.
        { file: 'feed.test.ts', name: 'feed > not asked', valueJ: 1 },
        // Within its own noise: no budget, as with -u.
        { file: 'feed.test.ts', name: 'feed > idle', valueJ: 4e-7, lowJ: -1e-5, ...asked },
        { file: 'feed.test.ts', name: 'feed > not measured', ...asked },
        // sync.test.ts ran without `syncing`: obsolete, but only -u removes it.
        { file: 'sync.test.ts', name: 'sync v2', valueJ: 1, ...asked },
      ],
      10,
    )
    expect(result.added).toEqual([
      { file: 'feed.test.ts', name: 'feed > scrolling', device: '*' },
      { file: 'feed.test.ts', name: 'feed > search', device: 'Pixel 6' },
      { file: 'sync.test.ts', name: 'sync v2', device: '*' },
    ])
    expect(result.changed).toEqual([])
    expect(result.removed).toEqual([])
    expect(result.file.tests['feed.test.ts']).toEqual({
      ...before.tests['feed.test.ts'],
      'feed > scrolling': { '*': { energyJ: 0.55, measuredEnergyJ: 0.5 } },
      'feed > search': { 'Pixel 6': { energyJ: 1.4, measuredEnergyJ: 1.23 } },
    })
    expect(result.file.tests['sync.test.ts']).toEqual({
      syncing: { '*': { energyJ: 4.5 } },
      'sync v2': { '*': { energyJ: 1.1, measuredEnergyJ: 1 } },
    })
    expect(serializeBudgetFile(before), 'input not mutated').toBe(text)
  })

  test('mode new writes a test that ran twice under one name once', () => {
    const twice: BudgetObservation = { file: 'a.test.ts', name: 'same', valueJ: 1, requested: true }
    const result = addMissingBudgets(emptyBudgetFile(), [twice, { ...twice, valueJ: 2 }], 10)
    expect(result.added).toEqual([{ file: 'a.test.ts', name: 'same', device: '*' }])
    expect(result.file.tests['a.test.ts']?.['same']?.['*']?.measuredEnergyJ).toBe(1)
  })

  test("results recorded by hand (requested: 'unknown'): -u writes their budget, mode new does not", () => {
    const byHand: BudgetObservation = {
      file: 'a.test.ts',
      name: 'by hand',
      valueJ: 1,
      requested: 'unknown',
    }
    expect(writesBudget(byHand)).toBe(true)
    expect(updateBudgets(emptyBudgetFile(), [byHand], 10).added).toEqual([
      { file: 'a.test.ts', name: 'by hand', device: '*' },
    ])
    expect(addMissingBudgets(emptyBudgetFile(), [byHand], 10).added).toEqual([])
  })

  test('property: mode new never changes or drops an entry, and adds exactly what -u would write for the tests that asked and had none', () => {
    const names = fc.constantFrom('a', 'b', 'c', 'd')
    const devices = fc.constantFrom('*', 'Pixel 6', 'Pixel 8')
    const entry = fc.record({ energyJ: fc.double({ min: 0, max: 10, noNaN: true }) })
    const fileArb = fc
      .array(fc.tuple(names, devices, entry), { maxLength: 6 })
      .map((rows): BudgetFile => {
        const tests: Record<string, Record<string, Record<string, { energyJ: number }>>> = {}
        for (const [name, device, e] of rows) ((tests['t.ts'] ??= {})[name] ??= {})[device] = e
        return { schemaVersion: 1, tests }
      })
    const observation = fc.record({
      file: fc.constant('t.ts'),
      name: names,
      valueJ: fc.option(fc.double({ min: -1, max: 10, noNaN: true }), { nil: undefined }),
      device: fc.option(fc.constantFrom('Pixel 6', 'Pixel 8'), { nil: undefined }),
      requested: fc.boolean(),
    })
    fc.assert(
      fc.property(
        fileArb,
        fc.uniqueArray(observation, { selector: (o) => o.name }),
        (file, obs) => {
          const result = addMissingBudgets(file, obs, 10)
          for (const [name, byDevice] of Object.entries(file.tests['t.ts'] ?? {}))
            expect(result.file.tests['t.ts']?.[name]).toMatchObject(byDevice)
          const expected = obs.filter((o) => {
            const key = {
              file: o.file,
              name: o.name,
              ...(o.device === undefined ? {} : { device: o.device }),
            }
            return o.requested && lookupBudget(file, key) === undefined && (o.valueJ ?? 0) > 0
          })
          expect(result.added.map((r) => r.name)).toEqual(expected.map((o) => o.name))
          // Each added entry is the one -u writes from the same measurement.
          const all = updateBudgets(file, expected, 10)
          for (const r of result.added)
            expect(result.file.tests[r.file]?.[r.name]?.[r.device]).toEqual(
              all.file.tests[r.file]?.[r.name]?.[r.device],
            )
        },
      ),
    )
  })

  test('-u as for snapshots: a budget the measurement still fits stays byte for byte; one it is over or inconclusive against is rewritten', async () => {
    const text = await readFile(golden, 'utf8')
    const before = parseBudgetFile(text)
    const opening = { file: 'feed.test.ts', name: 'feed > opening the feed', requested: true }
    // Pixel 6's budget is 1.9 J: 1.8 J ± 0.05 fits it, as the check decides.
    const fits = updateBudgets(
      before,
      [{ ...opening, valueJ: 1.8, lowJ: 1.75, highJ: 1.85, device: 'Pixel 6' }],
      10,
    )
    expect([fits.added, fits.changed, fits.removed]).toEqual([[], [], []])
    expect(serializeBudgetFile(fits.file)).toBe(text)
    // A Pixel 8 has no budget of its own: the `*` one (2.8 J) applies, fits, and no entry is added.
    const anyDevice = updateBudgets(before, [{ ...opening, valueJ: 2.6, device: 'Pixel 8' }], 10)
    expect([anyDevice.added, anyDevice.changed]).toEqual([[], []])
    expect(serializeBudgetFile(anyDevice.file)).toBe(text)

    const rewrites: [
      string,
      Partial<BudgetObservation>,
      boolean,
      BudgetFile['tests'][string][string][string],
    ][] = [
      ['over 1.9 J', { valueJ: 2.0 }, false, { energyJ: 2.2, measuredEnergyJ: 2 }],
      // Its interval reaching past 1.9 J: inconclusive, which fails the check; rewritten to a
      // budget the interval clears (1.85 + 2 × 0.15 = 2.15 → 2.2 J).
      [
        'inconclusive',
        { valueJ: 1.85, lowJ: 1.7, highJ: 2.0 },
        false,
        { energyJ: 2.2, measuredEnergyJ: 1.85 },
      ],
      // VITEST_ENERGY_UPDATE=rewrite: every budget from this run, to tighten them.
      [
        'rewrite',
        { valueJ: 1.2, lowJ: 1.15, highJ: 1.25 },
        true,
        { energyJ: 1.4, measuredEnergyJ: 1.2 },
      ],
    ]
    for (const [why, measured, rewrite, written] of rewrites) {
      const result = updateBudgets(before, [{ ...opening, ...measured, device: 'Pixel 6' }], 10, {
        rewrite,
      })
      expect(result.changed, why).toEqual([
        { file: 'feed.test.ts', name: 'feed > opening the feed', device: 'Pixel 6' },
      ])
      expect(
        result.file.tests['feed.test.ts']?.['feed > opening the feed']?.['Pixel 6'],
        why,
      ).toEqual(written)
    }
  })

  test('property: a budget -u writes is within by the check on the same measurement, and a second -u changes nothing', () => {
    const observation = fc
      .record({
        valueJ: fc.double({ min: 1e-3, max: 100, noNaN: true }),
        halfWidthPct: fc.option(fc.double({ min: 0, max: 99, noNaN: true }), { nil: undefined }),
        device: fc.option(fc.constantFrom('Pixel 6', 'Pixel 8'), { nil: undefined }),
      })
      .map(({ valueJ, halfWidthPct, device }): BudgetObservation => {
        const h = halfWidthPct === undefined ? undefined : (valueJ * halfWidthPct) / 100
        return {
          file: 't.ts',
          name: 'a test',
          valueJ,
          requested: true,
          ...(h === undefined ? {} : { lowJ: valueJ - h, highJ: valueJ + h }),
          ...(device === undefined ? {} : { device }),
        }
      })
    fc.assert(
      fc.property(observation, fc.integer({ min: 0, max: 50 }), (o, headroom) => {
        const first = updateBudgets(emptyBudgetFile(), [o], headroom)
        expect(first.added).toHaveLength(1)
        const budget = first.file.tests['t.ts']?.['a test']?.[o.device ?? '*']?.energyJ ?? NaN
        // Within 1e-12 relative: ceilSignificant does not round floating-point noise up.
        expect(budget).toBeGreaterThanOrEqual((o.highJ ?? o.valueJ ?? Infinity) * (1 - 1e-12))
        const second = updateBudgets(first.file, [o], headroom)
        expect([second.added, second.changed, second.removed]).toEqual([[], [], []])
        expect(serializeBudgetFile(second.file)).toBe(serializeBudgetFile(first.file))
      }),
    )
  })

  test('a noisy measurement gets a budget its interval clears, with room for the next run', () => {
    expect(budgetFromMeasurement(1, 10, 1.02), 'narrow: the headroom').toBe(1.1)
    expect(budgetFromMeasurement(1, 10, 1.2), '1 + 2 × 0.2').toBe(1.4)
    expect(budgetFromMeasurement(1, 10, 0.9), 'a high bound below the value is ignored').toBe(1.1)
  })

  test("the update mode: updateBudgets option, then VITEST_ENERGY_UPDATE, then the runner's snapshot mode", () => {
    expect(budgetUpdateMode({}, 'new')).toBe('new')
    expect(budgetUpdateMode({}, 'none')).toBe('none')
    expect(budgetUpdateMode({}, 'all')).toBe('all')
    expect(budgetUpdateMode({}, undefined), 'unknown: check only').toBe('none')
    expect(budgetUpdateMode({ VITEST_ENERGY_UPDATE: '1' }, 'none')).toBe('all')
    expect(budgetUpdateMode({ VITEST_ENERGY_UPDATE: 'true' }, 'new')).toBe('all')
    expect(budgetUpdateMode({ VITEST_ENERGY_UPDATE: '1' }, 'new', false)).toBe('none')
    expect(budgetUpdateMode({}, 'new', true)).toBe('all')
    expect(budgetUpdateMode({ VITEST_ENERGY_UPDATE: 'rewrite' }, 'none')).toBe('rewrite')
    expect(budgetUpdateMode({ VITEST_ENERGY_UPDATE: 'rewrite' }, 'new', false)).toBe('none')
  })

  test('obsolete: only tests missing from files that ran', async () => {
    const file = parseBudgetFile(await readFile(golden, 'utf8'))
    expect(obsoleteBudgets(file, [{ file: 'feed.test.ts', name: 'other' }])).toEqual([
      { file: 'feed.test.ts', name: 'feed > opening the feed', device: '*' },
      { file: 'feed.test.ts', name: 'feed > opening the feed', device: 'Pixel 6' },
    ])
    expect(obsoleteBudgets(file, [{ file: 'other.test.ts', name: 'x' }])).toEqual([])
  })
})

describe("a test's budget figure", () => {
  test('sums windows, counts repetitions once as their mean, with a t interval', () => {
    const figure = testBudgetFigure([
      window('setup', 1),
      window('feed #1', 2),
      window('feed #2', 4),
      window('feed #3', 3),
      { schemaVersion: 1, status: 'skipped', label: 'x', reason: 'no device' },
    ])
    expect(figure?.valueJ).toBeCloseTo(1 + 3, 12)
    expect(figure?.n).toBe(3)
    expect(figure?.intervalJ, 'setup has no interval: no interval for the sum').toBeUndefined()
    const repeated = testBudgetFigure([
      window('feed #1', 2),
      window('feed #2', 4),
      window('feed #3', 3),
    ])
    // mean 3, sd 1, t(0.975, 2) = 4.302653 → half width 4.302653 / √3 = 2.484138
    expect(repeated?.intervalJ?.low).toBeCloseTo(3 - 2.484138, 5)
    expect(repeated?.intervalJ?.high).toBeCloseTo(3 + 2.484138, 5)
  })

  test('no measured window: no figure; device model from the windows', () => {
    expect(testBudgetFigure([])).toBeUndefined()
    expect(
      testBudgetFigure([window('a', 1, { device: { serial: 's', model: 'Pixel 6' } })])?.device,
    ).toBe('Pixel 6')
  })
})

describe('on disk and the automatic check', () => {
  let dir = ''
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vitest-energy-budgets-'))
    await writeFile(join(dir, 'package.json'), '{}')
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  test('the budget file is found in the project root; keys are relative to it', () => {
    const testPath = join(dir, 'test', 'ui', 'feed.test.ts')
    expect(resolveBudgetsFile(testPath)).toBe(join(dir, 'energy-budgets.json'))
    expect(resolveBudgetsFile(testPath, 'budgets/b.json')).toBe(join(dir, 'budgets/b.json'))
    expect(resolveBudgetsFile(testPath, '/abs/b.json')).toBe('/abs/b.json')
    expect(budgetFileKey(join(dir, 'energy-budgets.json'), testPath)).toBe('test/ui/feed.test.ts')
  })

  test('missing file reads as empty; write then read round-trips; a broken file is an error', async () => {
    const path = join(dir, 'energy-budgets.json')
    expect(readBudgetFile(path)).toEqual(emptyBudgetFile())
    const file = parseBudgetFile(await readFile(golden, 'utf8'))
    writeBudgetFile(path, file)
    expect(await readFile(path, 'utf8')).toBe(await readFile(golden, 'utf8'))
    expect(readBudgetFile(path)).toEqual(file)
    await writeFile(path, '{ nope')
    expect(energyErrorOf(() => readBudgetFile(path)).code).toBe(BudgetErrors.FILE_INVALID)
    expect(energyErrorOf(() => readBudgetFile(dir)).code).toBe(BudgetErrors.FILE_IO)
    await rm(path)
  })

  test('checkTestBudget: within passes, over throws E_BUDGET_EXCEEDED, straddling throws E_BUDGET_INCONCLUSIVE', async () => {
    const path = join(dir, 'energy-budgets.json')
    writeBudgetFile(path, {
      schemaVersion: 1,
      tests: { 'feed.test.ts': { 'opening the feed': { '*': { energyJ: 2.5 } } } },
    })
    const check = { testPath: join(dir, 'feed.test.ts'), name: 'opening the feed' }
    expect(checkTestBudget([window('a', 2)], check)).toBe('within')
    expect(checkTestBudget([window('a', 2)], { ...check, name: 'other' })).toBe('none')
    expect(checkTestBudget([], check)).toBe('none')
    const over = energyErrorOf(() => checkTestBudget([window('a', 3)], check))
    expect(over.code).toBe(BudgetErrors.EXCEEDED)
    expect(over.message).toContain('used 3.00 J, over its budget of 2.50 J')
    const wide = window('a', 2.4, { netIntervalJ: { low: 2.2, high: 2.6, level: 0.95 } })
    const unsure = energyErrorOf(() => checkTestBudget([wide], check))
    expect(unsure.code).toBe(BudgetErrors.INCONCLUSIVE)
    expect(unsure.message).toMatch(/inconclusive: \d+ more repetitions would decide/)
    expect(checkTestBudget([wide], { ...check, inconclusive: 'warn' })).toBe('inconclusive')
  })
})
