import { afterEach, describe, expect, expectTypeOf, test, vi } from 'vitest'
import {
  configureEnergyMatchers,
  energyMatchers,
  type BudgetOptions,
} from '../../matchers/index.js'
import { measuredResult, methodEnergy, type MeasuredEnergyResult } from '../../src/model/index.js'

expect.extend(energyMatchers)

const bind = methodEnergy({
  method: 'com.example.trails.FeedAdapter.bind',
  attribution: 'sampling',
  localEnergyJ: 0.3,
  nonLocalEnergyJ: 0.05,
  inclusiveIntervalJ: { low: 0.3, high: 0.42, level: 0.95 },
  color: 'red',
})
const load = methodEnergy({
  method: 'com.example.trails.Feed.load',
  attribution: 'sampling',
  localEnergyJ: 0.1,
  nonLocalEnergyJ: 0,
  color: 'green',
})

function run(overrides: Partial<Parameters<typeof measuredResult>[0]> = {}): MeasuredEnergyResult {
  return measuredResult({
    label: 'opening the feed',
    window: { clock: 'boottime', startNs: 0, endNs: 2_000_000_000 },
    grossEnergyJ: 2.6,
    baselinePowerW: 0.2,
    components: [{ component: 'cpu', energyJ: 1.4 }],
    rails: [{ rail: 'S4M_VDD_CPUCL0', subsystem: 'CPU(LITTLE)', energyJ: 0.9 }],
    methods: [bind, load],
    sources: { power: 'odpm', execution: 'simpleperf', sampleCount: 40, sensorRateHz: 20 },
    battery: { capacityJ: 60_000, percentOfCapacity: 0.0037, percentPerHour: 6.6 },
    ...overrides,
  })
}

function failureOf(assertion: () => void): string {
  try {
    assertion()
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('expected the assertion to fail, but it passed')
}

/** The message `toConsumeLessThan` gives when it passes (what `.not` prints when it fails). */
function passMessageOf(received: unknown, limit: number): string {
  const result = energyMatchers.toConsumeLessThan.call({ isNot: false }, received, limit)
  expect(result.pass).toBe(true)
  return result.message()
}

/** A method that switched a radio on: a little CPU work of its own, a tail after it. */
function radioMethod(
  method: string,
  localEnergyJ: number,
  asyncEnergyJ: number,
  extra: Partial<Parameters<typeof methodEnergy>[0]> = {},
) {
  return methodEnergy({
    method,
    attribution: 'sampling',
    localEnergyJ,
    nonLocalEnergyJ: 0,
    asyncEnergyJ,
    ...extra,
  })
}

describe('a failure leads with what cost the most', () => {
  test('components and what an earlier window left on come before methods; a radio a method switched on ranks it', () => {
    const sync = radioMethod('com.example.trails.SyncManager.upload', 0.004, 0.799)
    const r = run({
      grossEnergyJ: 4.4, // net 4.0 J
      components: [
        { component: 'cpu', energyJ: 0.4 },
        { component: 'screen', energyJ: 1.5 },
        { component: 'wifi', energyJ: 0.8 },
        { component: 'cellular', energyJ: 1.2 },
        { component: 'gps', energyJ: 0 },
      ],
      methods: [bind, load, sync],
      warnings: [
        {
          code: 'W_ASYNC_CARRIED_OVER',
          severity: 'warning',
          message:
            "cellular left on by com.example.trails.SyncManager.syncAll (started in 'syncing') drew 1.20 J above idle in this window and is still on",
        },
      ],
    })
    const message = failureOf(() => expect(r).toConsumeLessThan(2))
    const where = message.indexOf(
      'Where it went (gross, by component): screen 1.50 J · cellular 1.20 J · wifi 800 mJ · cpu 400 mJ',
    )
    const carried = message.indexOf(
      "⚠ carried over from an earlier window: cellular left on by com.example.trails.SyncManager.syncAll (started in 'syncing')",
    )
    const methods = message.indexOf('Top app methods')
    expect(where).toBeGreaterThan(0)
    expect(carried).toBeGreaterThan(where)
    expect(methods).toBeGreaterThan(carried)
    // 4 mJ of CPU work and 799 mJ of Wi-Fi it switched on: first, with its asynchronous energy.
    expect(message.slice(methods).split('\n')[1]).toMatch(
      /4\.00 mJ {2}com\.example\.trails\.SyncManager\.upload {2}\+799 mJ asynchronous \(radio, GPS\)$/,
    )
  })
})

describe('energy another test left on is judged apart', () => {
  test('net and gross leave out carriedOverJ, and say so; components keep it', () => {
    // net = 2.6 − 0.4 = 2.2 J, of which 0.5 J a radio another test switched on drew here.
    const r: MeasuredEnergyResult = {
      ...run({
        components: [
          { component: 'cpu', energyJ: 1.4 },
          { component: 'cellular', energyJ: 0.6 },
        ],
      }),
      carriedOverJ: 0.5,
    }
    expect(r).toConsumeLessThan(1.8) // 1.7 J of its own
    expect(r).not.toConsumeLessThan(1.6)
    expect(failureOf(() => expect(r).toConsumeLessThan(1.6))).toContain(
      'Expected: < 1.60 J (net, without 500 mJ another test left on)',
    )
    expect(r).toConsumeLessThan(2.2, { scope: 'gross' }) // 2.1 J
    expect(failureOf(() => expect(r).toDrawLessThan(1, { scope: 'gross' }))).toContain(
      '(average gross power, without 500 mJ another test left on)',
    )
    expect(r).not.toConsumeLessThan(0.6, { scope: 'component:cellular' })
  })
})

describe('toConsumeLessThan', () => {
  test('passes below the limit and fails above it, on net energy by default', () => {
    const r = run() // net = 2.6 − 0.2 × 2 = 2.2 J
    expect(r).toConsumeLessThan(2.5)
    expect(r).not.toConsumeLessThan(2.0)
    const message = failureOf(() => expect(r).toConsumeLessThan(2.0))
    expect(message).toContain('Expected: < 2.00 J (net)')
    expect(message).toContain("Received: 2.20 J for 'opening the feed'")
    expect(message).toContain('power: odpm, 20.0 Hz, 40 samples, execution: simpleperf')
    expect(message).toContain('com.example.trails.FeedAdapter.bind  [red]')
  })

  test('is strict at the limit where toConsumeAtMost is not', () => {
    const r = run({ grossEnergyJ: 2.4 }) // net = 2.0 J exactly
    expect(r).not.toConsumeLessThan(2.0)
    expect(r).toConsumeAtMost(2.0)
  })

  test('reads gross, rail and component scopes, and names what is missing', () => {
    const r = run()
    expect(r).toConsumeLessThan(2.7, { scope: 'gross' })
    expect(r).not.toConsumeLessThan(2.5, { scope: 'gross' })
    expect(r).toConsumeLessThan(1, { scope: 'rail:S4M_VDD_CPUCL0' })
    expect(r).not.toConsumeLessThan(1, { scope: 'component:cpu' })
    expect(failureOf(() => expect(r).toConsumeLessThan(1, { scope: 'rail:GPU' }))).toContain(
      "no rail named 'GPU' in this window; rails: S4M_VDD_CPUCL0",
    )
  })

  test("a scope that is not a window's fails as E_INVALID_OPTION with the scopes and the closest one", () => {
    const r = run({
      components: [
        { component: 'cpu', energyJ: 1.4 },
        { component: 'other', energyJ: 0.2 },
      ],
    })
    const gros = failureOf(() => expect(r).toConsumeLessThan(100, { scope: 'gros' as 'gross' }))
    expect(gros).toContain(
      "[E_INVALID_OPTION] scope 'gros' is not a scope of a window's energy (net, gross, rail:<name>, component:<name>); did you mean 'gross'?",
    )
    expect(gros).toContain(
      "→ Use 'net' (the default: above the idle baseline), 'gross' (the whole phone), 'rail:<name>' (this window's: S4M_VDD_CPUCL0) or 'component:<name>' (this window's: cpu, other).",
    )
    expect(gros).not.toContain("no component ''")
    // Negated, it fails too: a mistake in the test, not a verdict.
    expect(
      failureOf(() => expect(r).not.toConsumeLessThan(0, { scope: 'gros' as 'gross' })),
    ).toContain('E_INVALID_OPTION')
    // A component's or rail's bare name, a malformed prefix, a method's scope, not a string.
    const cases: [unknown, string][] = [
      ['cpu', "did you mean 'component:cpu'?"],
      ['S4M_VDD_CPUCL0', "did you mean 'rail:S4M_VDD_CPUCL0'?"],
      ['component:', "scope 'component:' is not a scope of a window's energy"],
      ['Net', "did you mean 'net'?"],
      ['inclusive', "'inclusive' is a method's"],
      [42, 'scope number 42 is not a scope'],
    ]
    for (const [scope, said] of cases) {
      const message = failureOf(() => expect(r).toDrawLessThan(100, { scope: scope as 'net' }))
      expect(message, String(scope)).toContain('[E_INVALID_OPTION]')
      expect(message, String(scope)).toContain(said)
    }
    // A well-formed scope the window lacks names the window's and the closest.
    expect(failureOf(() => expect(r).toConsumeLessThan(1, { scope: 'component:cpuu' }))).toContain(
      "no component 'cpuu' in this window (did you mean 'cpu'?); components: cpu, other",
    )
  })

  test("a method's scopes are inclusive and inclusive+async: any other fails instead of being ignored", () => {
    expect(bind).toConsumeLessThan(0.45, { scope: 'inclusive' })
    const total = failureOf(() => expect(bind).toConsumeLessThan(100, { scope: 'total' as 'net' }))
    expect(total).toContain(
      "[E_INVALID_OPTION] scope 'total' does not apply to a method's energy: its scopes are 'inclusive' (the method and what it calls, the default) and 'inclusive+async'",
    )
    expect(total).toContain("→ Leave `scope` out for a method, or give 'inclusive+async'.")
    expect(
      failureOf(() => expect(bind).toConsumeLessThan(100, { scope: 'inclusive+asnyc' as 'net' })),
    ).toContain("did you mean 'inclusive+async'?")
    expect(
      failureOf(() => expect(run()).toConsumeLessThan(100, { scope: 'inclusive+async' })),
    ).toContain("'inclusive+async' is a method's")
    expect(
      failureOf(() => expect(bind).toConsumeAtMost(100, { scope: 'inclusve' as 'inclusive' })),
    ).toContain("did you mean 'inclusive'?")
    expect(failureOf(() => expect(bind).toConsumeLessThan(100, { scope: 'gross' }))).toContain(
      "scope 'gross' does not apply to a method's energy",
    )
  })

  test('a misspelt option, a word an option does not take, or an option the matcher lacks fails instead of being ignored', () => {
    const r = run()
    const cases: [() => unknown, string][] = [
      [
        () => expect(r).toConsumeLessThan(100, { stat: 'meen' } as never),
        `toConsumeLessThan's option stat is "meen", not one of 'mean', 'median', 'upper95' (did you mean 'mean'?)`,
      ],
      [
        () => expect(r).toConsumeAtMost(100, { stats: 'median' } as never),
        "toConsumeAtMost has no option 'stats' (did you mean 'stat'?); its options: scope, stat, inconclusive",
      ],
      [
        () => expect(r).toDrawLessThan(100, { inconclusive: 'pass' } as never),
        `toDrawLessThan's option inconclusive is "pass", not one of 'fail', 'warn'`,
      ],
      [
        () => expect(r).toUseLessThanPercentOfBattery(100, { scope: 'gross' } as never),
        "toUseLessThanPercentOfBattery has no option 'scope'; its options: stat, inconclusive",
      ],
      [
        () => expect(r).toStayWithinBudget({ stat: 'upper-95' } as never),
        `toStayWithinBudget's option stat is "upper-95", not one of 'mean', 'median', 'upper95' (did you mean 'upper95'?)`,
      ],
      [
        () => expect(r).toNotRegressFrom(r, { maxPc: 5 } as never),
        "toNotRegressFrom has no option 'maxPc' (did you mean 'maxPct'?)",
      ],
      [
        () => expect(r).toNotRegressFrom(r, { test: 'welsh' } as never),
        `toNotRegressFrom's option test is "welsh", not one of 'mann-whitney', 'welch' (did you mean 'welch'?)`,
      ],
      [
        () => expect(r).toConsumeLessThan(100, 'mean' as never),
        `toConsumeLessThan's options must be an object ({ scope, stat, inconclusive }); got "mean"`,
      ],
    ]
    for (const [check, said] of cases) {
      const message = failureOf(check)
      expect(message, said).toContain('[E_INVALID_OPTION]')
      expect(message, said).toContain(said)
    }
    // Negated, it fails too: a mistake in the test, not a verdict.
    expect(failureOf(() => expect(r).not.toConsumeLessThan(0, { stat: 'avg' } as never))).toContain(
      'E_INVALID_OPTION',
    )
    // Every documented value passes the check.
    for (const stat of ['mean', 'median'] as const)
      expect(r).toConsumeLessThan(100, { stat, inconclusive: 'warn', scope: 'gross' })
  })

  test('a method’s radio tail counts with inclusive+async, and the default figure says it left it out', () => {
    const sync = radioMethod('com.example.trails.SyncManager.syncAll', 0.003, 2.1, {
      inclusiveIntervalJ: { low: 0.002, high: 0.004, level: 0.95 },
    })
    // The default judges the CPU work only, and says what it did not count.
    const passed = passMessageOf(sync, 0.5)
    expect(passed).toContain(
      "Async:    2.10 J more after it ran (a radio tail, the GPS it left on), not counted; { scope: 'inclusive+async' } counts it",
    )
    const over = failureOf(() => expect(sync).toConsumeLessThan(0.5, { scope: 'inclusive+async' }))
    expect(over).toContain('(inclusive and async, sampling)')
    expect(over).toContain(
      'Received: 2.10 J (95% 2.10 J – 2.10 J) for com.example.trails.SyncManager.syncAll',
    )
    expect(over).not.toContain('Async:')
    // Without async energy nothing is added, and the scope changes nothing.
    expect(passMessageOf(bind, 0.45)).not.toContain('Async:')
    expect(bind).toConsumeLessThan(0.45, { scope: 'inclusive+async' })
  })

  test('a net figure below idle beyond its noise is not judged: any limit would pass it', () => {
    // The screen dimmer than when the baseline was measured: 2 s at 0.2 W of baseline, 0.1 J gross.
    const dim = run({
      grossEnergyJ: 0.1,
      netIntervalJ: { low: -0.33, high: -0.27, level: 0.95 },
    })
    const message = failureOf(() => expect(dim).toConsumeLessThan(1))
    expect(message).toContain(
      'below idle: the figure is -300 mJ (95% -330 mJ – -270 mJ) (net): this test drew less than the idle phone',
    )
    expect(message).toContain("`await energy.baseline()` first), or judge `scope: 'gross'`")
    expect(failureOf(() => expect(dim).not.toConsumeLessThan(1))).toContain('below idle')
    expect(failureOf(() => expect(dim).toDrawLessThan(1))).toContain('below idle')
    // The gross figure and a rail are judged as usual.
    expect(dim).toConsumeLessThan(1, { scope: 'gross' })
    expect(dim).toConsumeLessThan(1, { scope: 'rail:S4M_VDD_CPUCL0' })
    // Below 0 within its noise (an idle test): judged.
    expect(
      run({ grossEnergyJ: 0.39, netIntervalJ: { low: -0.04, high: 0.02, level: 0.95 } }),
    ).toConsumeLessThan(1)
    // Below 0 beyond its noise but by under 5% of the gross (a pause a few mJ under its
    // baseline): ≈ 0, judged.
    expect(
      run({ grossEnergyJ: 0.385, netIntervalJ: { low: -0.018, high: -0.012, level: 0.95 } }),
    ).toConsumeLessThan(1)
    // The test's own figure below idle, its net above: what another test left on was counted out.
    const carried = run({
      grossEnergyJ: 0.9, // net 0.5 J
      netIntervalJ: { low: 0.47, high: 0.53, level: 0.95 },
      carriedOverJ: 1.08,
    })
    expect(failureOf(() => expect(carried).toConsumeLessThan(1.5))).toContain(
      'below idle: the figure is -580 mJ',
    )
  })

  test("the energy fixture: the one window closed by then (README's Matchers), else what to pass", () => {
    const fixture = (...results: unknown[]) => ({
      results,
      measure: () => undefined,
      repeat: () => undefined,
    })
    // After one energy.measure(): its window; an energy.baseline() window does not count.
    expect(fixture(run())).toConsumeLessThan(2.5)
    expect(fixture({ ...run(), idleBaseline: true }, run())).not.toConsumeLessThan(1)
    // Only the automatic window, still open: nothing closed to judge.
    expect(failureOf(() => expect(fixture()).toConsumeLessThan(100))).toContain(
      'received the `energy` fixture before any window closed (its automatic window closes when the test ends, where `checkBudgets: true` checks it)',
    )
    // energy.repeat()'s windows: several.
    expect(failureOf(() => expect(fixture(run(), run(), run())).toConsumeLessThan(100))).toContain(
      'received the `energy` fixture, which holds 3 windows of this test',
    )
  })

  test('judges a method by its inclusive energy', () => {
    expect(bind).toConsumeLessThan(0.45)
    expect(load).not.toConsumeLessThan(0.05)
    expect({ energyResult: bind }).toConsumeLessThan(0.45)
  })
})

describe('inconclusive figures', () => {
  afterEach(() => configureEnergyMatchers({ inconclusive: 'fail' }))

  test('fail both ways with the number of repetitions that would decide', () => {
    // bind: 0.35 J, 95% 0.30–0.42; a limit of 0.40 lies inside the interval
    const message = failureOf(() => expect(bind).toConsumeLessThan(0.4))
    // half-width 0.07, distance 0.05 → n' = ceil(1 × (0.07/0.05)²) = 2 → 1 more
    expect(message).toContain(
      'inconclusive: the limit lies inside the 95% interval; 1 more repetition would decide',
    )
    expect(message).toContain('(95% 300 mJ – 420 mJ)')
    expect(failureOf(() => expect(bind).not.toConsumeLessThan(0.4))).toContain('inconclusive')
  })

  test('decide by the point estimate and warn when configured to', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    expect(bind).toConsumeLessThan(0.4, { inconclusive: 'warn' })
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('decided by the point estimate'))
    configureEnergyMatchers({ inconclusive: 'warn' })
    expect(bind).not.toConsumeLessThan(0.34)
    warn.mockRestore()
  })
})

describe('other limits', () => {
  test('toDrawLessThan uses average net power over the window', () => {
    const r = run() // 2.2 J over 2 s = 1.1 W net
    expect(r).toDrawLessThan(1.2)
    expect(r).not.toDrawLessThan(1.1)
    expect(r).not.toDrawLessThan(1.2, { scope: 'gross' }) // 1.3 W gross
  })

  test('toUseLessThanPercentOfBattery reads the battery context, and says when there is none', () => {
    expect(run()).toUseLessThanPercentOfBattery(0.01)
    expect(run()).not.toUseLessThanPercentOfBattery(0.001)
    const noBattery = { ...run() }
    delete (noBattery as { battery?: unknown }).battery
    expect(failureOf(() => expect(noBattery).toUseLessThanPercentOfBattery(1))).toContain(
      'no battery context',
    )
  })

  test('toUseLessThanPercentOfBattery over repetitions judges their mean, or the stat asked for', () => {
    const share = (percentOfCapacity: number) =>
      run({ battery: { capacityJ: 60_000, percentOfCapacity, percentPerHour: 1 } })
    const runs = { energyRuns: [share(0.002), share(0.003), share(0.004)] }
    expect(runs).toUseLessThanPercentOfBattery(0.01)
    const over = failureOf(() => expect(runs).toUseLessThanPercentOfBattery(0.001))
    expect(over).toContain('of battery capacity, mean of 3')
    expect(runs).toUseLessThanPercentOfBattery(0.01, { stat: 'median' })
    expect(failureOf(() => expect(bind).toUseLessThanPercentOfBattery(1))).toContain(
      "judges a window (`await energy.measure(…)`) or repetitions (`await energy.repeat(…)`), not a method's energy",
    )
  })

  test('colours', () => {
    expect(bind).toBeRed()
    expect(bind).not.toBeGreen()
    expect(load).toBeGreen()
    const uncoloured = { ...load }
    delete (uncoloured as { color?: unknown }).color
    // A running test's methods have none yet: the message says why, and what to use instead.
    const failure = failureOf(() => expect(uncoloured).not.toBeRed())
    expect(failure).toContain('has no colour: the classifier colours methods at the end of the run')
    expect(failure).toContain('toConsumeLessThan')
    const repeated = { methodRuns: [bind, bind] }
    expect(failureOf(() => expect(repeated).toBeRed())).toContain(
      'received a method over repetitions',
    )
  })
})

describe('bad input fails clearly, negated or not', () => {
  test.each([
    [null, 'received null'],
    [42, 'received number 42'],
    [
      {
        schemaVersion: 1,
        status: 'failed',
        label: 'x',
        error: { code: 'E_X', message: 'device gone', hint: '' },
        warnings: [],
      },
      'the energy window failed: device gone',
    ],
    [{ schemaVersion: 1, status: 'skipped', label: 'x', reason: 'no phone' }, 'skipped: no phone'],
  ])('%j', (received, reason) => {
    expect(failureOf(() => expect(received).toConsumeLessThan(1))).toContain(reason)
    expect(failureOf(() => expect(received).not.toConsumeLessThan(1))).toContain(reason)
  })

  test('a Promise (energy.measure() without await) says to await it, whatever the matcher', async () => {
    const pending = Promise.resolve(run())
    const thenable = { then: (resolve: (v: unknown) => void) => resolve(run()) }
    for (const received of [pending, thenable]) {
      for (const check of [
        () => expect(received).toConsumeLessThan(1),
        () => expect(received).not.toConsumeLessThan(1),
        () => expect(received).toDrawLessThan(1),
        () => expect(received).toBeGreen(),
      ]) {
        expect(failureOf(check)).toContain(
          'received a Promise — did you forget `await` before energy.measure()/repeat()/baseline()?',
        )
      }
    }
    // Awaited, the same run is judged.
    expect(await pending).toConsumeLessThan(3)
  })

  test('a plain number or a stray object: what to pass instead, and toBeLessThan for a number', () => {
    const net = run().netEnergyJ
    const number = failureOf(() => expect(net).toConsumeLessThan(2))
    expect(number).toContain(
      `expected an energy result, received number ${net}; pass what \`energy.measure()\`, \`energy.repeat()\` or \`run.method(name)\` returns: \`const run = await energy.measure(…)\`, then \`expect(run)…\`; to compare a plain number of joules, use \`toBeLessThan\`: \`expect(run.netEnergyJ).toBeLessThan(2)\``,
    )
    const stray = failureOf(() => expect({ joules: 1 }).toConsumeLessThan(2))
    expect(stray).toContain('received an object with keys joules; pass what `energy.measure()`')
    expect(stray).not.toContain('toBeLessThan')
    expect(failureOf(() => expect(undefined).toDrawLessThan(2))).toContain(
      'received undefined; pass what `energy.measure()`',
    )
  })

  test('a negative or NaN limit', () => {
    expect(failureOf(() => expect(run()).toConsumeLessThan(-1))).toContain('finite, non-negative')
    expect(failureOf(() => expect(run()).toConsumeLessThan(Number.NaN))).toContain(
      'finite, non-negative',
    )
  })
})

test('typings', () => {
  expectTypeOf(expect(run()).toConsumeLessThan).parameters.toEqualTypeOf<
    [joules: number, options?: BudgetOptions]
  >()
  // @ts-expect-error the limit is a number of joules, not a string
  expect(() => expect(run()).toConsumeLessThan('2.5 J')).toThrow()
  // @ts-expect-error scopes are net, gross, rail:<name> or component:<name>
  expect(() => expect(run()).toConsumeLessThan(3, { scope: 'everything' })).toThrow()
})

describe('the failure message', () => {
  const frame = (method: string, energyJ: number) =>
    methodEnergy({ method, attribution: 'sampling', localEnergyJ: energyJ, nonLocalEnergyJ: 0 })
  const small = frame('com.example.trails.SyncManager.mergeTracks', 0.00225)
  const big = frame('com.example.trails.SyncManager.syncAll', 0.0334)
  const native = frame('__start_thread', 0.5)
  const platform = frame('android.os.Looper.loop', 0.4)

  test("lists the app's methods highest first, without the native and platform frames", () => {
    const r = run({ methods: [small, native, platform, big] })
    const message = failureOf(() => expect(r).toConsumeLessThan(0.1))
    const listed = message.slice(message.indexOf('Top app methods (inclusive):'))
    expect(listed.split('\n').slice(1)).toEqual([
      `  ${'33.4 mJ'.padStart(10)}  com.example.trails.SyncManager.syncAll`,
      `  ${'2.25 mJ'.padStart(10)}  com.example.trails.SyncManager.mergeTracks`,
    ])
  })

  test('falls back to the heaviest frames, said so, when no app method was sampled', () => {
    const r = run({ methods: [platform, native] })
    const message = failureOf(() => expect(r).toConsumeLessThan(0.1))
    const listed = message.slice(message.indexOf('Top frames (no app method was sampled)'))
    expect(
      listed
        .split('\n')
        .slice(1)
        .map((l) => l.trim()),
    ).toEqual(['500 mJ  __start_thread', '400 mJ  android.os.Looper.loop'])
  })

  test('gives no actual/expected: the runner would print a raw diff of joules under it', () => {
    const result = energyMatchers.toConsumeLessThan.call(
      { isNot: false } as never,
      run(),
      0.1,
    ) as unknown as Record<string, unknown>
    expect(result['pass']).toBe(false)
    expect(Object.keys(result).sort()).toEqual(['message', 'pass'])
  })
})
