import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  EnergyError,
  invariantViolations,
  measuredResult,
  methodEnergy,
  parseTestEnergyMeta,
  summarize,
  type MeasuredEnergyResult,
} from '../../src/model/index.js'

function sample(
  overrides: Partial<Parameters<typeof measuredResult>[0]> = {},
): MeasuredEnergyResult {
  return measuredResult({
    label: 'opening the feed',
    window: { clock: 'boottime', startNs: 1_000_000_000, endNs: 3_000_000_000 },
    grossEnergyJ: 2.4,
    baselinePowerW: 0.3,
    components: [
      { component: 'cpu', energyJ: 1.5 },
      { component: 'screen', energyJ: 0.9 },
    ],
    rails: [],
    methods: [
      methodEnergy({
        method: 'com.example.trails.FeedAdapter.bind',
        attribution: 'sampling',
        localEnergyJ: 0.2,
        nonLocalEnergyJ: 0.1,
        inclusiveIntervalJ: { low: 0.25, high: 0.35, level: 0.95 },
      }),
      methodEnergy({
        method: 'com.example.trails.Feed.load',
        attribution: 'sampling',
        localEnergyJ: 0.5,
        nonLocalEnergyJ: 0.3,
        asyncEnergyJ: 0.1,
      }),
    ],
    sources: { power: 'odpm', execution: 'simpleperf', sampleCount: 20, sensorRateHz: 10 },
    ...overrides,
  })
}

describe('measuredResult', () => {
  test('derives duration, baseline, net and average power from the window', () => {
    const r = sample()
    expect(r.durationS, 'durationS').toBe(2)
    expect(r.baselineEnergyJ, 'baselineEnergyJ').toBeCloseTo(0.6, 12)
    expect(r.netEnergyJ, 'netEnergyJ').toBeCloseTo(1.8, 12)
    expect(r.averagePowerW, 'averagePowerW').toBeCloseTo(1.2, 12)
  })

  test('sorts methods by inclusive energy, highest first', () => {
    expect(sample().methods.map((m) => m.method)).toEqual([
      'com.example.trails.Feed.load',
      'com.example.trails.FeedAdapter.bind',
    ])
  })

  test('attributes local + async energy by default, and conserves energy', () => {
    const r = sample()
    expect(r.attributedEnergyJ).toBeCloseTo(0.2 + 0.5 + 0.1, 12)
    expect(r.attributedEnergyJ + r.unattributedEnergyJ + r.baselineEnergyJ).toBeCloseTo(
      r.grossEnergyJ,
      12,
    )
    expect(invariantViolations(r)).toEqual([])
  })

  test('rejects a window that ends before it starts', () => {
    expect(() => sample({ window: { clock: 'boottime', startNs: 5, endNs: 4 } })).toThrowError(
      EnergyError,
    )
  })
})

describe('methodEnergy', () => {
  test('inclusive = local + non-local for any figures', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e3, noNaN: true }),
        fc.double({ min: 0, max: 1e3, noNaN: true }),
        (local, nonLocal) => {
          const m = methodEnergy({
            method: 'a.B.c',
            attribution: 'interval',
            localEnergyJ: local,
            nonLocalEnergyJ: nonLocal,
          })
          return m.inclusiveEnergyJ === local + nonLocal && m.asyncEnergyJ === 0
        },
      ),
    )
  })
})

describe('invariantViolations', () => {
  test('reports a tampered inclusive figure, a broken conservation and a reversed interval', () => {
    const r = sample()
    const first = r.methods[0]!
    const broken: MeasuredEnergyResult = {
      ...r,
      unattributedEnergyJ: r.unattributedEnergyJ + 1,
      methods: [
        { ...first, inclusiveEnergyJ: first.inclusiveEnergyJ + 0.5 },
        { ...r.methods[1]!, localIntervalJ: { low: 2, high: 1, level: 0.95 } },
      ],
    }
    const problems = invariantViolations(broken)
    expect(problems).toContain('attributed + unattributed + baseline ≠ gross')
    expect(problems).toContain('com.example.trails.Feed.load: inclusiveEnergyJ ≠ local + non-local')
    expect(problems).toContain('com.example.trails.FeedAdapter.bind: localIntervalJ low > high')
  })

  test('flags non-finite figures', () => {
    expect(invariantViolations({ ...sample(), grossEnergyJ: Number.NaN })).toContain(
      'grossEnergyJ is not finite (NaN)',
    )
  })
})

describe('summary', () => {
  test('round-trips through JSON unchanged', () => {
    const meta = summarize([
      sample(),
      { schemaVersion: 1, status: 'skipped', label: 'no device', reason: 'no phone attached' },
    ])
    const back = parseTestEnergyMeta(JSON.parse(JSON.stringify(meta)))
    expect(back).toEqual(meta)
    const measured = back.results[0]
    expect(measured?.status === 'measured' && invariantViolations(measured)).toEqual([])
  })

  test('round-trips arbitrary measured results through JSON (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 5, noNaN: true }),
        fc.integer({ min: 1, max: 10_000_000_000 }),
        (gross, baseline, durationNs) => {
          const r = sample({
            grossEnergyJ: gross,
            baselinePowerW: baseline,
            window: { clock: 'boottime', startNs: 0, endNs: durationNs },
          })
          const back = parseTestEnergyMeta(JSON.parse(JSON.stringify(summarize([r]))))
          expect(back.results[0]).toEqual(r)
        },
      ),
    )
  })

  test('trims method lists to the top N', () => {
    const meta = summarize([sample()], { topMethods: 1 })
    const r = meta.results[0]
    expect(r?.status === 'measured' && r.methods.map((m) => m.method)).toEqual([
      'com.example.trails.Feed.load',
    ])
  })

  test('rejects meta from another schema version or of the wrong shape', () => {
    expect(() => parseTestEnergyMeta({ schemaVersion: 2, results: [] })).toThrowError(
      /schemaVersion 2 is not supported/,
    )
    expect(() => parseTestEnergyMeta(null)).toThrowError(/expected an object, got null/)
    expect(() =>
      parseTestEnergyMeta({ schemaVersion: 1, results: [{ status: 'ok' }] }),
    ).toThrowError(/results\[0\]\.status/)
  })
})

describe('EnergyError', () => {
  test('carries code, what happened, what to do and where', () => {
    const e = new EnergyError({
      code: 'E_NOT_PROFILEABLE',
      message: 'com.example.trails is neither debuggable nor profileable',
      hint: 'add <profileable android:shell="true"/> to the manifest or use a debuggable build',
      details: { serial: 'emulator-5554' },
    })
    expect(e.code).toBe('E_NOT_PROFILEABLE')
    expect(e.message).toContain('device emulator-5554')
    expect(e.message).toContain('profileable android:shell')
    expect(JSON.parse(JSON.stringify(e))).toEqual({
      code: 'E_NOT_PROFILEABLE',
      message: e.message,
      hint: e.hint,
      details: { serial: 'emulator-5554' },
    })
  })

  test('names line and byte offset for parsers', () => {
    const e = new EnergyError({
      code: 'E_FORMAT',
      message: 'truncated record',
      hint: 'pull the file again',
      details: { format: 'ART trace', offset: 1234 },
    })
    expect(e.message).toMatch(/^\[E_FORMAT\] ART trace, byte 1234: truncated record/)
  })
})
