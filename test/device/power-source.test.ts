/** `autoPowerSource`: the choice power: 'auto' makes, on hand-made probe results. */
import { describe, expect, test } from 'vitest'
import { autoPowerSource, type Capabilities } from '../../src/device/index.js'

const none = { available: false, evidence: [] }
function caps(over: {
  rails?: number
  via?: 'dumpsys-powerstats' | 'perfetto'
  perfetto?: boolean
  gauge?: Partial<Capabilities['fuelGauge']>
}): Capabilities {
  const rails = Array.from({ length: over.rails ?? 0 }, (_, id) => ({
    id,
    name: `RAIL_${id}`,
    subsystem: 'X',
  }))
  return {
    serial: 's',
    model: 'm',
    manufacturer: 'g',
    build: 'b',
    sdk: 33,
    odpm: {
      available: rails.length > 0,
      ...(rails.length > 0 ? { via: over.via ?? 'dumpsys-powerstats' } : {}),
      rails,
      evidence: [],
    },
    fuelGauge: { ...none, ...over.gauge },
    charging: { ac: false, usb: false, wireless: false, dock: false, powered: false, evidence: [] },
    perfetto: { available: over.perfetto ?? true, evidence: [] },
    simpleperf: none,
    cpuClusters: [],
    cpuFrequenciesKhz: [],
    evidence: [],
  }
}

const usableGauge = {
  available: true,
  node: '/sys/class/power_supply/battery',
  currentUnit: 'uA' as const,
  currentSign: 'negative-discharge' as const,
  dischargeAmperesPerUnit: -1e-6,
}

describe('autoPowerSource', () => {
  test('rails and perfetto: odpm, whatever the gauge', () => {
    expect(autoPowerSource(caps({ rails: 9, gauge: usableGauge }))).toMatchObject({
      source: 'odpm',
      usable: true,
    })
    expect(autoPowerSource(caps({ rails: 2, via: 'perfetto' })).reasons[0]).toBe(
      '2 ODPM rails (seen in a perfetto android.power session), read by perfetto every 100 ms',
    )
  })

  test('rails without perfetto: powerstats', () => {
    expect(autoPowerSource(caps({ rails: 9, perfetto: false }))).toMatchObject({
      source: 'powerstats',
      usable: true,
    })
  })

  test('no rails: the fuel gauge, usable only with a known unit and sign', () => {
    expect(autoPowerSource(caps({ gauge: usableGauge }))).toMatchObject({
      source: 'fuel-gauge',
      usable: true,
    })
    const charging = autoPowerSource(
      caps({
        gauge: { ...usableGauge, currentSign: 'unknown', dischargeAmperesPerUnit: undefined },
      }),
    )
    expect(charging).toMatchObject({ source: 'fuel-gauge', usable: false })
    expect(charging.reasons.at(-1)).toContain('read while charging')
    const zero = autoPowerSource(
      caps({
        gauge: { ...usableGauge, currentUnit: 'unknown', dischargeAmperesPerUnit: undefined },
      }),
    )
    expect(zero.reasons.at(-1)).toBe('the fuel gauge read 0, so its unit is unknown')
  })

  test('neither: none', () => {
    expect(autoPowerSource(caps({}))).toMatchObject({ source: 'none', usable: false })
  })
})
