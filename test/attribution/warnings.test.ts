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
