import { describe, expect, test } from 'vitest'
import { energyMatchers } from '../../matchers/index.js'
import { measuredResult, methodEnergy, type MeasuredEnergyResult } from '../../src/model/index.js'
import { EnergyRun, RepeatedEnergyRun } from '../../src/session/run.js'

expect.extend(energyMatchers)

function window(netEnergyJ: number, bindJ?: number): MeasuredEnergyResult {
  return measuredResult({
    label: 'sync',
    window: { clock: 'boottime', startNs: 0, endNs: 1_000_000_000 },
    grossEnergyJ: netEnergyJ + 0.1,
    baselinePowerW: 0.1,
    components: [],
    rails: [],
    methods:
      bindJ === undefined
        ? []
        : [
            methodEnergy({
              method: 'com.example.trails.FeedAdapter.bind',
              attribution: 'sampling',
              localEnergyJ: bindJ,
              nonLocalEnergyJ: 0,
            }),
          ],
    sources: { power: 'odpm', sampleCount: 10 },
  })
}

const repeated = (values: number[]): RepeatedEnergyRun =>
  new RepeatedEnergyRun(values.map((v) => window(v, v / 4)))

function failureOf(assertion: () => void): string {
  try {
    assertion()
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('expected the assertion to fail, but it passed')
}

describe('repeated windows', () => {
  // mean 2.0, sd = 0.1581, t(0.975, 4) = 2.776 → half-width 0.1963 → 1.804 – 2.196
  const runs = repeated([1.8, 1.9, 2.0, 2.1, 2.2])

  test('the mean with its t interval decides a budget outside the interval', () => {
    expect(runs).toConsumeLessThan(2.3)
    expect(runs).not.toConsumeLessThan(1.7)
  })

  test('a budget inside the interval is inconclusive, with repetitions that would decide', () => {
    // distance 0.1, half-width 0.1963, n = 5 → ceil(5 × 1.963²) = 20 → 15 more
    expect(failureOf(() => expect(runs).toConsumeLessThan(2.1))).toContain(
      '15 more repetitions would decide',
    )
  })

  test('upper95 and median statistics', () => {
    expect(runs).not.toConsumeLessThan(2.19, { stat: 'upper95' })
    expect(runs).toConsumeLessThan(2.2, { stat: 'upper95' })
    expect(failureOf(() => expect(runs).toConsumeLessThan(1.5, { stat: 'median' }))).toContain(
      'median of 5',
    )
  })

  test('a method across repetitions, and average power', () => {
    expect(runs.method('FeedAdapter.bind')).toConsumeLessThan(0.6) // mean 0.5
    expect(runs).toDrawLessThan(2.3) // 1 s windows: W = J
  })
})

describe('missing methods fail instead of passing at 0 J', () => {
  test('a typo names what was seen', () => {
    const run = new EnergyRun(window(2, 0.5))
    const message = failureOf(() => expect(run.method('FeedAdaptr.bind')).toConsumeLessThan(1))
    expect(message).toContain("method 'FeedAdaptr.bind' did not run")
    expect(message).toContain("did you mean 'com.example.trails.FeedAdapter.bind'?")
    expect(
      failureOf(() => expect(run.method('FeedAdaptr.bind')).not.toConsumeLessThan(1)),
    ).toContain('did not run')
  })

  test('a method that did not run (no name close to it) lists what ran, app methods before native frames', () => {
    const r = measuredResult({
      ...window(1),
      methods: [
        '__start_thread',
        'art_quick_invoke_stub',
        'com.example.trails.FeedAdapter.bind',
      ].map((method) =>
        methodEnergy({ method, attribution: 'sampling', localEnergyJ: 0.1, nonLocalEnergyJ: 0 }),
      ),
    })
    const message = failureOf(() =>
      expect(new EnergyRun(r).method('com.example.trails.SyncService.run')).toConsumeLessThan(1),
    )
    expect(message).not.toContain('did you mean')
    expect(message).toContain(
      'methods seen: com.example.trails.FeedAdapter.bind, __start_thread, art_quick_invoke_stub',
    )
  })

  test('a suffix that is ambiguous asks for the full name', () => {
    const r = measuredResult({
      ...window(1),
      methods: ['com.a.Adapter.bind', 'com.b.Adapter.bind'].map((method) =>
        methodEnergy({ method, attribution: 'sampling', localEnergyJ: 0.1, nonLocalEnergyJ: 0 }),
      ),
    })
    expect(
      failureOf(() => expect(new EnergyRun(r).method('Adapter.bind')).toConsumeLessThan(1)),
    ).toContain('matches several methods')
  })
})

describe('toNotRegressFrom', () => {
  const baseline = [2.0, 2.02, 1.98, 2.01, 1.99, 2.0, 2.03, 1.97]

  test('passes on the same energy and fails on a clear regression', () => {
    expect(repeated([2.0, 2.01, 1.99, 2.02, 1.98, 2.0, 2.02, 1.98])).toNotRegressFrom(baseline)
    const message = failureOf(() =>
      expect(repeated([2.3, 2.32, 2.28, 2.31, 2.29, 2.3, 2.33, 2.27])).toNotRegressFrom(baseline),
    )
    expect(message).toContain('Verdict:  worse')
    expect(message).toContain('(+15.0%)')
  })

  test('says how many more repetitions when it cannot tell', () => {
    const message = failureOf(() =>
      expect(repeated([2.0, 2.4, 1.7, 2.3])).toNotRegressFrom([1.9, 2.2, 1.8, 2.1]),
    )
    expect(message).toMatch(/inconclusive: \d+ more repetitions? per build would decide/)
  })

  test('a misspelt scope fails as E_INVALID_OPTION', () => {
    const runs = repeated([2.0, 2.01, 1.99, 2.02])
    const message = failureOf(() =>
      expect(runs).toNotRegressFrom(baseline, { scope: 'gros' as 'gross' }),
    )
    expect(message).toContain("[E_INVALID_OPTION] scope 'gros'")
    expect(message).toContain("did you mean 'gross'?")
    expect(
      failureOf(() => expect(runs).toConsumeLessThan(100, { scope: 'gros' as 'gross' })),
    ).toContain("did you mean 'gross'?")
  })

  test('refuses single windows', () => {
    expect(failureOf(() => expect(new EnergyRun(window(2))).toNotRegressFrom(baseline))).toContain(
      'needs repeated windows',
    )
  })
})
