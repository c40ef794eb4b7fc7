import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  BudgetErrors,
  budgetFromMeasurement,
  budgetFileKey,
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
  writeBudgetFile,
  type BudgetFile,
} from '../../src/budgets/index.js'
import { isEnergyError, measuredResult, type MeasuredEnergyResult } from '../../src/model/index.js'

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

function errorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn()
  } catch (error) {
    if (isEnergyError(error)) return { code: error.code, message: error.message }
    throw error
  }
  throw new Error('expected an EnergyError')
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
    const e = errorOf(() => parseBudgetFile(text, 'budgets.json'))
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

  test('update writes measured tests (by device), keeps others, removes obsolete entries of files that ran', async () => {
    const before = parseBudgetFile(await readFile(golden, 'utf8'))
    const result = updateBudgets(
      before,
      [
        { file: 'feed.test.ts', name: 'feed > opening the feed', valueJ: 2.0, device: 'Pixel 6' },
        { file: 'feed.test.ts', name: 'feed > scrolling', valueJ: 0.5 },
        { file: 'feed.test.ts', name: 'feed > not measured' },
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
      [{ file: 'sync.test.ts', name: 'sync v2', valueJ: 1 }],
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
        { file: 'idle.test.ts', name: 'below idle', valueJ: -3.28, lowJ: -3.28001 },
        { file: 'idle.test.ts', name: 'within noise', valueJ: 4e-7, lowJ: -1e-5 },
        { file: 'idle.test.ts', name: 'kept idle', valueJ: 2e-7, lowJ: -1e-5 },
        { file: 'idle.test.ts', name: 'above noise', valueJ: 0.3, lowJ: 0.29999 },
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
    expect(errorOf(() => readBudgetFile(path)).code).toBe(BudgetErrors.FILE_INVALID)
    expect(errorOf(() => readBudgetFile(dir)).code).toBe(BudgetErrors.FILE_IO)
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
    const over = errorOf(() => checkTestBudget([window('a', 3)], check))
    expect(over.code).toBe(BudgetErrors.EXCEEDED)
    expect(over.message).toContain('used 3.00 J, over its budget of 2.50 J')
    const wide = window('a', 2.4, { netIntervalJ: { low: 2.2, high: 2.6, level: 0.95 } })
    const unsure = errorOf(() => checkTestBudget([wide], check))
    expect(unsure.code).toBe(BudgetErrors.INCONCLUSIVE)
    expect(unsure.message).toMatch(/inconclusive: \d+ more repetitions would decide/)
    expect(checkTestBudget([wide], { ...check, inconclusive: 'warn' })).toBe('inconclusive')
  })
})
