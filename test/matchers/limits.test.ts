// What the energy matchers record for the reporter: each check (matcher, limit and unit, scope,
// statistic, measured value, verdict, outcome, what it applied to) goes to the TestEnergy of the
// test running the `expect`, found by the matcher state's testPath and currentTestName — and
// nowhere outside a measured test.
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { configureEnergyMatchers, energyMatchers } from '../../matchers/index.js'
import { recordLimitsFor } from '../../matchers/_record.js'
import {
  measuredResult,
  methodEnergy,
  parseTestEnergyMeta,
  type LimitCheck,
  type MeasuredEnergyResult,
} from '../../src/model/index.js'
import { EnergyRun, RepeatedEnergyRun } from '../../src/session/run.js'
import type { TestEnergy } from '../../src/session/test-energy.js'
import { measuredTest, measuredTestWith } from '../fixtures/limits/measured-test.js'

expect.extend(energyMatchers)

const BIND = 'com.example.trails.FeedAdapter.bind'

function window(label: string, netEnergyJ: number, bindJ = 0.1): MeasuredEnergyResult {
  return measuredResult({
    label,
    window: { clock: 'boottime', startNs: 0, endNs: 2_000_000_000 },
    grossEnergyJ: netEnergyJ + 0.5,
    baselinePowerW: 0.25,
    components: [],
    rails: [{ rail: 'S4M_VDD_CPUCL0', subsystem: 'CPU(LITTLE)', energyJ: 0.3 }],
    methods: [
      methodEnergy({
        method: BIND,
        attribution: 'sampling',
        localEnergyJ: bindJ,
        nonLocalEnergyJ: 0,
      }),
    ],
    sources: { power: 'odpm', sampleCount: 50 },
    warnings: [],
  })
}

/** Its checks as the reporter receives them (through the JSON meta). */
async function recorded(energy: TestEnergy): Promise<readonly LimitCheck[]> {
  await energy.abort()
  const meta = parseTestEnergyMeta(JSON.parse(JSON.stringify(energy.summary())))
  return meta.limits ?? []
}

describe('a check is recorded for the test running the matcher', () => {
  let energy: TestEnergy
  afterEach(() => energy.abort())

  test('a pass: the limit, its unit, the value compared and the window', async () => {
    const w = window('opening the feed', 1.55)
    energy = measuredTest(w)
    expect(new EnergyRun(w)).toConsumeLessThan(2.5)
    expect(await recorded(energy)).toEqual([
      {
        matcher: 'toConsumeLessThan',
        negated: false,
        comparison: '<',
        limit: 2.5,
        unit: 'J',
        scope: 'net',
        value: w.netEnergyJ,
        n: 1,
        verdict: 'within',
        passed: true,
        target: { kind: 'window', label: 'opening the feed' },
      },
    ])
  })

  test('a method’s check records the async energy its figure left out, and none with inclusive+async', async () => {
    const w = measuredResult({
      ...window('syncing', 1),
      methods: [
        methodEnergy({
          method: BIND,
          attribution: 'sampling',
          localEnergyJ: 0.01,
          nonLocalEnergyJ: 0,
          asyncEnergyJ: 2.1,
        }),
      ],
    })
    energy = measuredTest(w)
    const run = new EnergyRun(w)
    expect(run.method(BIND)).toConsumeLessThan(0.5)
    expect(() =>
      expect(run.method(BIND)).toConsumeLessThan(0.5, { scope: 'inclusive+async' }),
    ).toThrow(/inclusive and async/)
    const [inclusive, withAsync] = await recorded(energy)
    expect(inclusive).toMatchObject({ scope: 'inclusive', value: 0.01, uncountedAsyncJ: 2.1 })
    expect(withAsync).toMatchObject({ scope: 'inclusive+async', value: 2.11, verdict: 'over' })
    expect(withAsync).not.toHaveProperty('uncountedAsyncJ')
  })

  test('a failure: recorded as over and not passed, and the assertion still throws', async () => {
    const w = window('export', 3)
    energy = measuredTest(w)
    expect(() => expect(w).toConsumeAtMost(2, { scope: 'gross' })).toThrow(/≤ 2.00 J/)
    const [check] = await recorded(energy)
    expect(check).toMatchObject({
      matcher: 'toConsumeAtMost',
      comparison: '<=',
      limit: 2,
      scope: 'gross',
      value: 3.5,
      verdict: 'over',
      passed: false,
    })
  })

  test('.not: the verdict is the figure against the limit, the outcome the negated assertion', async () => {
    const w = window('w', 1)
    energy = measuredTest(w)
    expect(w).not.toConsumeLessThan(0.5) // 1 J is not below 0.5 J: passes
    expect(() => expect(w).not.toConsumeLessThan(2)).toThrow()
    const checks = await recorded(energy)
    expect(checks.map((c) => [c.negated, c.verdict, c.passed])).toEqual([
      [true, 'over', true],
      [true, 'within', false],
    ])
  })

  test('several matchers in one test, in call order: energy, power, a method', async () => {
    const w = window('scrolling', 2, 0.4)
    energy = measuredTest(w)
    const run = new EnergyRun(w)
    expect(run).toConsumeLessThan(2.5)
    expect(run).toDrawLessThan(1.5, { scope: 'gross' })
    expect(() => expect(run.method('FeedAdapter.bind')).toConsumeLessThan(0.3)).toThrow()
    const checks = await recorded(energy)
    expect(checks.map((c) => [c.matcher, c.unit, c.scope, c.value, c.passed])).toEqual([
      ['toConsumeLessThan', 'J', 'net', 2, true],
      ['toDrawLessThan', 'W', 'gross', 1.25, true],
      ['toConsumeLessThan', 'J', 'inclusive', 0.4, false],
    ])
  })

  test('a method: scope inclusive, the method and the window it was measured in', async () => {
    const first = window('first', 1, 0.2)
    const second = window('second', 1, 0.05)
    energy = measuredTest(first, second)
    expect(new EnergyRun(second).method('FeedAdapter.bind')).toConsumeLessThan(0.1)
    expect(() => expect(new EnergyRun(first).method(BIND)).toConsumeLessThan(0.1)).toThrow()
    const checks = await recorded(energy)
    expect(checks.map((c) => [c.scope, c.value, c.passed, c.target])).toEqual([
      ['inclusive', 0.05, true, { kind: 'method', label: BIND, window: 'second' }],
      ['inclusive', 0.2, false, { kind: 'method', label: BIND, window: 'first' }],
    ])
  })

  test("a repeat's mean: the statistic, n, the interval and the repetitions' label", async () => {
    const windows = [1.0, 1.1, 0.9, 1.0, 1.0].map((net, i) => window(`scroll #${i + 1}`, net))
    energy = measuredTest(...windows)
    const runs = new RepeatedEnergyRun(windows)
    expect(runs).toConsumeLessThan(2)
    expect(runs).toConsumeLessThan(2, { stat: 'upper95' })
    const [mean, upper] = await recorded(energy)
    expect(mean).toMatchObject({
      stat: 'mean',
      n: 5,
      verdict: 'within',
      target: { kind: 'repetitions', label: 'scroll' },
    })
    expect(mean?.value).toBeCloseTo(1.0, 10)
    expect(mean?.interval?.low).toBeLessThan(1)
    expect(mean?.interval?.high).toBeGreaterThan(1)
    expect(upper).toMatchObject({ stat: 'upper95', n: 5, passed: true })
    expect(upper?.value).toBeCloseTo(mean?.interval?.high ?? Number.NaN, 10)
  })

  test('a method that did not run: unjudgeable, and the check still names the method', async () => {
    const w = window('feed', 1)
    energy = measuredTest(w)
    const run = new EnergyRun(w)
    expect(() => expect(run.method('FeedAdaptor.bind')).toConsumeLessThan(0.4)).toThrow(
      /did you mean 'com.example.trails.FeedAdapter.bind'/,
    )
    const runs = new RepeatedEnergyRun([w, w])
    expect(() => expect(runs.method('Nope.run')).toConsumeLessThan(0.4)).toThrow(/did not run/)
    const [once, repeated] = await recorded(energy)
    for (const [check, name, kind] of [
      [once, 'FeedAdaptor.bind', 'method'],
      [repeated, 'Nope.run', 'method-repetitions'],
    ] as const) {
      expect(check).toMatchObject({
        verdict: 'unjudgeable',
        passed: false,
        scope: 'inclusive',
        target: { kind, label: name },
        reason: expect.stringContaining(`method '${name}' did not run`),
      })
      expect(check).not.toHaveProperty('value')
    }
    // Over repetitions, as a method that was found would be: the statistic and how many runs.
    expect(once).toMatchObject({ n: 1 })
    expect(once).not.toHaveProperty('stat')
    expect(repeated).toMatchObject({ n: 2, stat: 'mean' })
  })

  test('power in watts; the battery in percent', async () => {
    const w = window('w', 2) // 2 s: 1 W net
    energy = measuredTest(w)
    expect(w).toDrawLessThan(1.5)
    expect(() => expect(w).toUseLessThanPercentOfBattery(1)).toThrow(/battery context/)
    const [power, battery] = await recorded(energy)
    expect(power).toMatchObject({ unit: 'W', limit: 1.5, value: 1, scope: 'net', passed: true })
    expect(battery).toMatchObject({
      matcher: 'toUseLessThanPercentOfBattery',
      unit: '%',
      verdict: 'unjudgeable',
      passed: false,
      reason: expect.stringContaining('no battery context'),
    })
    expect(battery).not.toHaveProperty('value')
  })

  test('inconclusive: fails by default, decided by the estimate with inconclusive: warn', async () => {
    const windows = [0.9, 1.3, 0.7, 1.2].map((net, i) => window(`x #${i + 1}`, net))
    energy = measuredTest(...windows)
    const runs = new RepeatedEnergyRun(windows)
    expect(() => expect(runs).toConsumeLessThan(1.1)).toThrow(/inconclusive/)
    const warn = console.warn
    console.warn = () => undefined
    try {
      expect(runs).toConsumeLessThan(1.1, { inconclusive: 'warn' })
    } finally {
      console.warn = warn
    }
    const checks = await recorded(energy)
    expect(checks.map((c) => [c.verdict, c.passed])).toEqual([
      ['inconclusive', false],
      ['inconclusive', true],
    ])
  })

  test('toNotRegressFrom: the increase over the baseline in percent against maxPct', async () => {
    const current = [1.0, 1.01, 0.99, 1.0, 1.0].map((net, i) => window(`sync #${i + 1}`, net))
    energy = measuredTest(...current)
    expect(new RepeatedEnergyRun(current)).toNotRegressFrom([1, 1.01, 0.99, 1, 1], { maxPct: 10 })
    const [check] = await recorded(energy)
    expect(check).toMatchObject({
      matcher: 'toNotRegressFrom',
      limit: 10,
      unit: '%',
      scope: 'net',
      n: 5,
      passed: true,
      target: { kind: 'repetitions', label: 'sync' },
    })
    expect(check?.value).toBeCloseTo(0, 6)
  })
})

describe('nothing is recorded outside a measured test', () => {
  test('a matcher on a plain EnergyResult, in a test that measures nothing, works', () => {
    expect(window('w', 1)).toConsumeLessThan(2)
    expect(() => expect(window('w', 1)).toConsumeLessThan(0.5)).toThrow()
  })

  let seen: LimitCheck[] = []
  let stop: () => void = () => undefined
  beforeEach(() => {
    seen = []
    // Another test of this file is registered; its sink must receive nothing of this test's.
    stop = recordLimitsFor(
      { testPath: expect.getState().testPath ?? '', testName: 'some other test' },
      (check) => void seen.push(check),
    )
  })
  afterEach(() => stop())

  test("another test's registration receives nothing", () => {
    expect(window('w', 1)).toConsumeLessThan(2)
    expect(seen).toEqual([])
  })

  test('after the test ended (abort), its TestEnergy receives nothing', async () => {
    const energy = measuredTest(window('w', 1))
    await energy.abort()
    expect(window('w', 1)).toConsumeLessThan(2)
    expect(energy.limits).toEqual([])
    expect(energy.summary()).not.toHaveProperty('limits')
  })
})

describe("a test asks for a budget (the reporter writes it in the runner's `new` mode)", () => {
  const asked = async (energy: TestEnergy): Promise<boolean | undefined> => {
    await energy.abort()
    return parseTestEnergyMeta(JSON.parse(JSON.stringify(energy.summary()))).budgetRequested
  }
  afterEach(() => configureEnergyMatchers({ updateBudgets: undefined }))

  test('by calling toStayWithinBudget()', async () => {
    const energy = measuredTest(window('w', 1))
    // Update mode: passes without reading a budget file.
    configureEnergyMatchers({ updateBudgets: true })
    expect(window('w', 1)).toStayWithinBudget()
    expect(await asked(energy)).toBe(true)
  })

  test('not by the other matchers', async () => {
    const energy = measuredTest(window('w', 1))
    expect(window('w', 1)).toConsumeLessThan(2)
    expect(await asked(energy)).toBeUndefined()
  })

  test('by running with checkBudgets: true', async () => {
    expect(await asked(measuredTestWith({ checkBudgets: true }, window('w', 1)))).toBe(true)
  })
})
