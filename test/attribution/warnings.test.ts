import { describe, expect, test } from 'vitest'
import { AttributionWarnings, attributionWarnings } from '../../src/attribution/warnings.js'

const codes = (facts: Parameters<typeof attributionWarnings>[0]) =>
  attributionWarnings(facts).map((w) => w.code)

describe('attribution warnings', () => {
  test('a clean window raises none', () => {
    expect(
      attributionWarnings({
        durationS: 10,
        sensorRateHz: 5,
        netEnergyJ: 5,
        attributedEnergyJ: 4,
        stackSamples: 5000,
        sampledCpuTimeS: 5,
        appCpuTimeS: 5.5,
        lostSamples: 0,
        traceMode: 'sampling',
        traceOverflowed: false,
        charging: false,
        debuggable: false,
      }),
    ).toEqual([])
  })

  test.each([
    [{ durationS: 1, stackSamples: 50 }, AttributionWarnings.UNDERSAMPLED],
    [{ durationS: 1, sampledCpuTimeS: 0.1, appCpuTimeS: 1 }, AttributionWarnings.CPU_UNDERSAMPLED],
    [{ durationS: 1, netEnergyJ: 10, attributedEnergyJ: 1 }, AttributionWarnings.INVISIBLE_ENERGY],
    [{ durationS: 1, charging: true }, AttributionWarnings.CHARGING],
    [{ durationS: 1, debuggable: true }, AttributionWarnings.DEBUGGABLE],
    [{ durationS: 1, traceMode: 'instrumentation' as const }, AttributionWarnings.FULL_TRACING],
    [{ durationS: 2, sensorRateHz: 1 }, AttributionWarnings.SLOW_SENSOR],
    [{ durationS: 1, traceOverflowed: true }, AttributionWarnings.TRACE_OVERFLOW],
    [{ durationS: 1, lostSamples: 3 }, AttributionWarnings.LOST_SAMPLES],
    [{ durationS: 1, netEnergyJ: -0.5 }, AttributionWarnings.NEGATIVE_NET],
  ])('%o → %s', (facts, code) => {
    const out = attributionWarnings(facts)
    expect(out.map((w) => w.code)).toEqual([code])
    expect(out[0]?.message.length).toBeGreaterThan(20)
  })

  test('thresholds are configurable and tiny net energy is not judged', () => {
    expect(codes({ durationS: 1, stackSamples: 50 })).toContain(AttributionWarnings.UNDERSAMPLED)
    expect(
      attributionWarnings({ durationS: 1, stackSamples: 50 }, { minStackSamples: 10 }),
    ).toEqual([])
    expect(codes({ durationS: 1, netEnergyJ: 0.001, attributedEnergyJ: 0 })).toEqual([])
    expect(codes({ durationS: 10, sensorRateHz: 1 }), '10 updates are enough').toEqual([])
  })
})

// Each rule fires where it applies and stays quiet where it does not (issue 14, part 2).
describe('warnings that apply', () => {
  test('W_SLOW_SENSOR on counters: a share of the window interpolated at its edges, no advice to switch source', () => {
    const [w] = attributionWarnings({
      durationS: 0.42,
      sensorRateHz: 9.5,
      powerKind: 'cumulative',
      edgeShare: 0.24,
      powerSource: 'odpm',
    })
    expect(w?.code).toBe(AttributionWarnings.SLOW_SENSOR)
    expect(w?.message).toContain('24% of this 0.42 s window')
    expect(w?.message).toContain('lengthen it to ≥ 1.05 s or repeat it (`energy.repeat`)')
    const slipped = attributionWarnings({
      durationS: 0.42,
      sensorRateHz: 9.5,
      powerKind: 'cumulative',
      edgeShare: 0.24,
      recordRateHz: 9.5,
      recordLongestIntervalS: 0.14,
    })[0]?.message
    // Each edge can cut the longest interval: 10 of them, not 10 mean ones.
    expect(slipped).toContain('lengthen it to ≥ 1.40 s')
    expect(slipped).toContain('update at 9.5 Hz')
    expect(w?.message).not.toMatch(/odpm|ODPM|faster source/)
    const quiet = { durationS: 0.42, sensorRateHz: 2, powerKind: 'cumulative' as const }
    expect(codes({ ...quiet, edgeShare: 0.02 }), 'readings at the edges (powerstats)').toEqual([])
    expect(codes({ ...quiet, edgeShare: 0.5, repetition: true }), 'judged on the mean').toEqual([])
  })

  test('W_SLOW_SENSOR on readings: a faster source is suggested only when there is one', () => {
    const slow = { durationS: 2, sensorRateHz: 1 }
    const gauge = attributionWarnings({ ...slow, powerSource: 'fuel-gauge' })[0]?.message
    expect(gauge).toContain("use a faster source (`power: 'odpm'`")
    expect(gauge).toContain('Lengthen it to ≥ 5.00 s or repeat it')
    const meter = attributionWarnings({ ...slow, powerSource: 'external-meter' })[0]?.message
    expect(meter).not.toContain('faster source')
  })

  test('W_UNDERSAMPLED names `samplingHz` with the rate that would do, and not when no code ran', () => {
    const facts = { durationS: 1, stackSamples: 82, sampledCpuTimeS: 0.082 }
    const option = { name: 'samplingHz', maxHz: 10_000 }
    const [w] = attributionWarnings({ ...facts, samplingOption: option })
    expect(w?.severity, 'a note: judged figures carry their own interval').toBe('info')
    expect(w?.message).toContain('the app ran ≈ 82 ms of code, sampled at 1000 Hz')
    expect(w?.message).toContain('Raise `samplingHz` to ≈ 2500 Hz for 200 samples here')
    const little = attributionWarnings({
      durationS: 1,
      stackSamples: 5,
      sampledCpuTimeS: 0.005,
      samplingOption: option,
    })[0]?.message
    expect(little, 'no absurd rate').toContain('≈ 40 times')
    expect(little).not.toMatch(/≈ \d+ Hz/)
    expect(codes({ durationS: 1, stackSamples: 0, sampledCpuTimeS: 0 }), 'no code').toEqual([])
    expect(codes({ ...facts, repetition: true }), 'judged on the mean').toEqual([])
  })

  test('W_NEGATIVE_NET only beyond the noise, with a readable figure', () => {
    expect(codes({ durationS: 2, netEnergyJ: -26.1e-9, netNoiseJ: 1e-6 })).toEqual([])
    expect(codes({ durationS: 2, netEnergyJ: -0.01, netNoiseJ: 0.05 }), 'within noise').toEqual([])
    const interval = { low: -0.02, high: 0.01, level: 0.95 }
    expect(codes({ durationS: 2, netEnergyJ: -0.005, netIntervalJ: interval })).toEqual([])
    const [w] = attributionWarnings({
      durationS: 1.5,
      netEnergyJ: -0.6605,
      netNoiseJ: 1e-6,
      baselinePowerW: 1.25,
      displayPowerW: 0.661,
    })
    expect(w?.code).toBe(AttributionWarnings.NEGATIVE_NET)
    expect(w?.message).toContain(
      'Below idle: net energy is negative (-661 mJ, beyond its noise of ± 1.00 µJ)',
    )
    expect(w?.message).toContain('idle baseline of 1.25 W; the display drew 661 mW on average')
    expect(w?.message).not.toContain('0.0000')
  })

  test('W_INVISIBLE_ENERGY judges the chargeable energy, and names where the rest went', () => {
    const screenOnly = { durationS: 1.5, netEnergyJ: 1.64, attributedEnergyJ: 0 }
    expect(codes({ ...screenOnly, chargeableEnergyJ: 0.008 }), 'a bright screen').toEqual([])
    const [w] = attributionWarnings({
      durationS: 2,
      netEnergyJ: 2.5,
      attributedEnergyJ: 0.6,
      chargeableEnergyJ: 2.5,
      unchargedEnergy: [
        { name: 'Modem', energyJ: 1.9 },
        { name: 'CPU and SoC rails', energyJ: 1e-9 },
      ],
    })
    expect(w?.message).toContain('Only 24% of the 2.50 J that the CPU, radios and GPS drew above')
    expect(w?.message).toContain('the rest (Modem 1.90 J) was drawn while no app code ran')
  })
})
