// toStayWithinBudget(): the current test's budget, looked up by expect.getState()'s testPath and
// currentTestName in a real budget file; what it does without one in each of the runner's snapshot
// update modes (set here on Vitest's own snapshot state, where the matcher reads it).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, test } from 'vitest'
import {
  configureEnergyMatchers,
  energyMatchers,
  type BudgetOptions,
} from '../../matchers/index.js'
import { recordLimitsFor } from '../../matchers/_record.js'
import { budgetFileKey, writeBudgetFile, type BudgetWriter } from '../../src/budgets/index.js'
import { measuredResult, type MeasuredEnergyResult } from '../../src/model/index.js'

expect.extend(energyMatchers)

const thisFile = fileURLToPath(import.meta.url)

function run(netEnergyJ: number, extra: Partial<MeasuredEnergyResult> = {}): MeasuredEnergyResult {
  return {
    ...measuredResult({
      label: 'w',
      window: { clock: 'boottime', startNs: 0, endNs: 1_000_000_000 },
      grossEnergyJ: netEnergyJ + 0.2,
      baselinePowerW: 0.2,
      components: [],
      rails: [],
      methods: [],
      sources: { power: 'odpm', sampleCount: 50 },
      warnings: [],
    }),
    ...extra,
  }
}

/** Runs `fn` with the runner's snapshot update mode set to `mode`, as `-u`, a run outside CI or CI do. */
function inSnapshotMode<T>(mode: 'all' | 'new' | 'none', fn: () => T): T {
  const state = expect.getState() as unknown as { snapshotState: { _updateSnapshot: string } }
  const before = state.snapshotState._updateSnapshot
  state.snapshotState._updateSnapshot = mode
  try {
    return fn()
  } finally {
    state.snapshotState._updateSnapshot = before
  }
}

/**
 * Whether `fn`'s matchers said the current test asks for a budget (the registry TestEnergy fills),
 * in a run whose energy reporter does `writer` with budgets.
 */
function asksForBudget(fn: () => void, writer: BudgetWriter = 'writes'): boolean {
  const { testPath, currentTestName } = expect.getState()
  let asked = false
  const stop = recordLimitsFor(
    { testPath: testPath ?? '', testName: currentTestName ?? '' },
    () => undefined,
    () => {
      asked = true
      return writer
    },
  )
  try {
    fn()
  } finally {
    stop()
  }
  return asked
}

function failure(fn: () => void): string {
  try {
    fn()
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('expected the assertion to fail')
}

describe('toStayWithinBudget', () => {
  let dir = ''
  let budgets = ''
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vitest-energy-matcher-budget-'))
    budgets = join(dir, 'energy-budgets.json')
    const file = budgetFileKey(budgets, thisFile)
    writeBudgetFile(budgets, {
      schemaVersion: 1,
      tests: {
        [file]: {
          'toStayWithinBudget > passes under its budget': { '*': { energyJ: 2.5 } },
          'toStayWithinBudget > fails over its budget, saying which budget and how to accept an intended increase':
            {
              '*': { energyJ: 2.5, measuredEnergyJ: 2.2 },
            },
          'toStayWithinBudget > uses the device model first': {
            '*': { energyJ: 10 },
            'Pixel 6': { energyJ: 1 },
          },
          'toStayWithinBudget > is inconclusive when the budget is inside the interval': {
            '*': { energyJ: 2.5 },
          },
          'toStayWithinBudget > in mode new an existing budget is still checked': {
            '*': { energyJ: 2.5 },
          },
        },
      },
    })
    configureEnergyMatchers({ budgetsFile: budgets })
  })
  afterEach(() => configureEnergyMatchers({ updateBudgets: undefined }))
  afterAll(async () => {
    configureEnergyMatchers({ budgetsFile: undefined })
    await rm(dir, { recursive: true, force: true })
  })

  test('passes under its budget', () => {
    expect(run(2.4)).toStayWithinBudget()
    expect(run(2.5), 'at the budget is within').toStayWithinBudget()
    expect(() => expect(run(2.4)).not.toStayWithinBudget()).toThrow()
  })

  test('fails over its budget, saying which budget and how to accept an intended increase', () => {
    const message = failure(() => expect(run(3)).toStayWithinBudget())
    expect(message).toContain(
      `If the increase is intended, run \`vitest -u --reporter=energy\` to update this budget, then review and commit ${basename(budgets)}.`,
    )
    // Within the budget, `.not` fails without that advice.
    expect(failure(() => expect(run(2)).not.toStayWithinBudget())).not.toContain(
      'If the increase is intended',
    )
    expect(message).toContain('Expected: ≤ 2.50 J (net)')
    expect(message).toContain('Received: 3.00 J')
    expect(message).toContain(
      `Budget:   2.50 J for ${budgetFileKey(budgets, thisFile)} › toStayWithinBudget > fails over its budget, saying which budget and how to accept an intended increase, written from 2.20 J`,
    )
  })

  test('uses the device model first', () => {
    const pixel = { device: { serial: 'x', model: 'Pixel 6' } }
    expect(failure(() => expect(run(2, pixel)).toStayWithinBudget())).toContain('[Pixel 6]')
    expect(run(2, { device: { serial: 'y', model: 'Pixel 8' } })).toStayWithinBudget()
  })

  test('is inconclusive when the budget is inside the interval', () => {
    const wide = run(2.4, { netIntervalJ: { low: 2.2, high: 2.6, level: 0.95 } })
    expect(failure(() => expect(wide).toStayWithinBudget())).toMatch(
      /inconclusive: .* \d+ more repetitions? would decide/,
    )
  })

  test('in CI (mode none) a test without a budget fails and says how to write one', () => {
    const message = inSnapshotMode('none', () => failure(() => expect(run(1)).toStayWithinBudget()))
    expect(message).toContain(
      `no budget for ${budgetFileKey(budgets, thisFile)} › toStayWithinBudget > in CI (mode none) a test without a budget`,
    )
    expect(message).toContain('vitest -u')
  })

  test('outside CI (mode new) a test without a budget passes and asks the reporter for one', () => {
    inSnapshotMode('new', () => {
      expect(asksForBudget(() => expect(run(1)).toStayWithinBudget())).toBe(true)
    })
  })

  test('in mode new without the energy reporter (nothing would write it) a missing budget fails and says how to add it', () => {
    inSnapshotMode('new', () => {
      let message = ''
      expect(
        asksForBudget(
          () => (message = failure(() => expect(run(1)).toStayWithinBudget())),
          'absent',
        ),
      ).toBe(true)
      expect(message).toContain('no budget for')
      expect(message).toContain('--reporter=energy')
      // Outside a measured test (no TestEnergy registered) nobody would write it either.
      expect(failure(() => expect(run(1)).toStayWithinBudget())).toContain('--reporter=energy')
    })
  })

  test('in mode new an existing budget is still checked', () => {
    inSnapshotMode('new', () => {
      expect(failure(() => expect(run(3)).toStayWithinBudget())).toContain('Expected: ≤ 2.50 J')
      expect(asksForBudget(() => expect(run(2)).toStayWithinBudget())).toBe(true)
    })
  })

  test('updateBudgets: false fails a missing budget whatever the runner says', () => {
    configureEnergyMatchers({ updateBudgets: false })
    inSnapshotMode('new', () => {
      expect(failure(() => expect(run(1)).toStayWithinBudget())).toContain('no budget for')
    })
  })

  test('with -u (mode all) it passes, even over a budget (the reporter rewrites it)', () => {
    inSnapshotMode('all', () => asksForBudget(() => expect(run(100)).toStayWithinBudget()))
    inSnapshotMode('none', () => {
      configureEnergyMatchers({ updateBudgets: true })
      expect(run(100)).toStayWithinBudget()
    })
  })

  test('with -u but no energy reporter to write budgets it fails and says how to add one', () => {
    inSnapshotMode('all', () => {
      const message = failure(() =>
        asksForBudget(() => expect(run(1)).toStayWithinBudget(), 'absent'),
      )
      expect(message).toContain('update mode, but this run has no energy reporter')
      expect(message).toContain('--reporter=energy')
    })
  })

  test('a run that cannot be judged asks for no budget', () => {
    const failed = {
      schemaVersion: 1,
      status: 'failed',
      label: 'x',
      error: { code: 'E_X', message: 'gone', hint: '' },
      warnings: [],
    }
    inSnapshotMode('new', () => {
      expect(asksForBudget(() => failure(() => expect(failed).toStayWithinBudget()))).toBe(false)
    })
  })

  test('a failed window cannot be judged', () => {
    const message = failure(() =>
      expect({
        schemaVersion: 1,
        status: 'failed',
        label: 'x',
        error: { code: 'E_X', message: 'gone', hint: '' },
        warnings: [],
      }).toStayWithinBudget(),
    )
    expect(message).toContain('the energy window failed: gone')
  })

  test('typings: takes only stat and inconclusive', () => {
    expectTypeOf(expect(run(1)).toStayWithinBudget).parameters.toEqualTypeOf<
      [options?: Pick<BudgetOptions, 'stat' | 'inconclusive'>]
    >()
    // @ts-expect-error a budget comes from the file, not an argument
    inSnapshotMode('none', () => expect(() => expect(run(1)).toStayWithinBudget(2.5)).toThrow())
  })
})

// Every branch of the matcher's answer against the run it is in: the energy reporter writing
// budgets, running with `updateBudgets: false`, absent, or unknown (results made outside the
// fixture), in each snapshot update mode, with and without the test's budget. Only a run without
// the reporter may be told it lacks one.
describe('toStayWithinBudget: what it says, as the run is', () => {
  type Writer = BudgetWriter | 'outside the fixture'
  type Row = readonly [
    writer: Writer,
    mode: 'all' | 'new' | 'none',
    budget: 'present' | 'missing',
    expected: 'passes' | readonly string[],
  ]
  const written = 'vitest -u --reporter=energy'
  const rows: readonly Row[] = [
    ['writes', 'all', 'missing', 'passes'],
    ['writes', 'all', 'present', 'passes'],
    ['outside the fixture', 'all', 'missing', 'passes'],
    [
      'absent',
      'all',
      'missing',
      ['update mode, but this run has no energy reporter', 'reporter=energy'],
    ],
    ['absent', 'all', 'present', ['update mode, but this run has no energy reporter']],
    [
      'off',
      'all',
      'missing',
      [
        'update mode, but the energy reporter runs with `updateBudgets: false`',
        'remove that option',
      ],
    ],
    ['off', 'all', 'present', ['`updateBudgets: false`']],
    ['writes', 'new', 'missing', 'passes'],
    [
      'absent',
      'new',
      'missing',
      ['no budget for', 'this run has no energy reporter', '--reporter=energy'],
    ],
    ['off', 'new', 'missing', ['no budget for', '`updateBudgets: false`', `Run \`${written}\``]],
    [
      'outside the fixture',
      'new',
      'missing',
      ['no budget for', 'Outside the energy fixture', `Run \`${written}\``],
    ],
    [
      'writes',
      'none',
      'missing',
      ['no budget for', `Run \`${written}\` (or VITEST_ENERGY_UPDATE=1) to write one`],
    ],
    ['off', 'none', 'missing', ['no budget for', '`updateBudgets: false`', `Run \`${written}\``]],
    [
      'absent',
      'none',
      'missing',
      ['no budget for', `Run \`${written}\``, 'this run has no energy reporter'],
    ],
    [
      'outside the fixture',
      'none',
      'missing',
      ['no budget for', `Run \`${written}\` (or VITEST_ENERGY_UPDATE=1) to write one`],
    ],
    ...(['writes', 'off', 'absent', 'outside the fixture'] as const).flatMap((w) =>
      (['new', 'none'] as const).map((m): Row => [w, m, 'present', 'passes']),
    ),
  ]
  let dir = ''
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vitest-energy-matcher-branches-'))
  })
  afterEach(() => configureEnergyMatchers({ budgetsFile: undefined }))
  afterAll(async () => rm(dir, { recursive: true, force: true }))

  /** The matcher's answer for `run(1)` in the current test, as `row`'s run; '' when it passes. */
  function answer([writer, mode, budget]: Row): string {
    const file = join(dir, `${budget}.json`)
    const name = expect.getState().currentTestName ?? ''
    writeBudgetFile(file, {
      schemaVersion: 1,
      tests:
        budget === 'present'
          ? { [budgetFileKey(file, thisFile)]: { [name]: { '*': { energyJ: 2.5 } } } }
          : {},
    })
    configureEnergyMatchers({ budgetsFile: file })
    const check = (): void => expect(run(1)).toStayWithinBudget()
    const said = (fn: () => void): string => {
      try {
        fn()
        return ''
      } catch (error) {
        return (error as Error).message
      }
    }
    return inSnapshotMode(mode, () =>
      writer === 'outside the fixture' ? said(check) : said(() => asksForBudget(check, writer)),
    )
  }

  test.each(rows)('%s reporter, mode %s, budget %s', (...row) => {
    const [writer, , , expected] = row
    const message = answer(row)
    if (expected === 'passes') {
      expect(message).toBe('')
      return
    }
    for (const part of expected) expect(message).toContain(part)
    if (writer === 'absent') expect(message).toContain('no energy reporter')
    else expect(message, 'the reporter is there (or unknown)').not.toContain('no energy reporter')
  })

  test('under Jest: `jest -u`, and its reporter by name', () => {
    const before = process.env['JEST_WORKER_ID']
    process.env['JEST_WORKER_ID'] = '1'
    try {
      const off = answer(['off', 'none', 'missing', []])
      expect(off).toContain('Run `jest -u` (or VITEST_ENERGY_UPDATE=1) without that option')
      expect(off).not.toContain('no energy reporter')
      const absent = answer(['absent', 'new', 'missing', []])
      expect(absent).toContain("list 'vitest-energy/jest-reporter' in Jest's `reporters`")
    } finally {
      if (before === undefined) Reflect.deleteProperty(process.env, 'JEST_WORKER_ID')
      else process.env['JEST_WORKER_ID'] = before
    }
  })
})
