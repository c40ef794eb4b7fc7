import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import type { FuelGaugeCapability } from '../../src/device/index.js'
import {
  FuelGaugeLineParser,
  pollScript,
  toSamples,
  type FuelGaugeReading,
} from '../../src/collectors/power/fuel-gauge.js'

const kernelGauge: FuelGaugeCapability = {
  available: true,
  node: 'battery',
  currentUnit: 'uA',
  currentSign: 'negative-discharge',
  voltageUnit: 'uV',
  dischargeAmperesPerUnit: -1e-6,
  evidence: [],
}

const output = [
  '100.00 180.00',
  '-250000',
  '4000000',
  '100.20 180.30',
  '-500000',
  '4000000',
  '',
].join('\n')

function parse(chunks: string[]): { readings: FuelGaugeReading[]; malformed: number } {
  const readings: FuelGaugeReading[] = []
  const parser = new FuelGaugeLineParser((r) => readings.push(r))
  for (const c of chunks) parser.push(c)
  parser.end()
  return { readings, malformed: parser.malformed }
}

describe('fuel-gauge loop output', () => {
  test('reads (uptime, current, voltage) triples on the boottime clock', () => {
    expect(parse([output]).readings).toEqual([
      { tNs: 100_000_000_000, currentRaw: -250000, voltageRaw: 4000000 },
      { tNs: 100_200_000_000, currentRaw: -500000, voltageRaw: 4000000 },
    ])
  })

  test('gives the same readings however the stream is chunked (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: output.length }), { maxLength: 20 }),
        (cuts) => {
          const points = [...new Set(cuts)].sort((a, b) => a - b)
          const chunks: string[] = []
          let from = 0
          for (const p of points) {
            chunks.push(output.slice(from, p))
            from = p
          }
          chunks.push(output.slice(from))
          expect(parse(chunks).readings).toEqual(parse([output]).readings)
        },
      ),
    )
  })

  test('skips garbled readings, counts them, and resynchronises on the next uptime line', () => {
    const { readings, malformed } = parse([
      'cat: /sys/class/power_supply/battery/current_now: Permission denied\n',
      '100.00 180.00\n-250000\n', // torn: the next uptime arrives before the voltage
      '100.10 180.10\nnot-a-number\n4000000\n',
      '100.20 180.30\n-500000\n4000000\n',
    ])
    expect(malformed).toBe(3)
    expect(readings).toEqual([{ tNs: 100_200_000_000, currentRaw: -500000, voltageRaw: 4000000 }])
  })

  test('drops a reading cut off by the stop', () => {
    expect(parse(['100.00 180.00\n-250000\n']).readings).toEqual([])
  })
})

describe('conversion to power', () => {
  test('applies the probed unit and sign: discharge is positive power', () => {
    const samples = toSamples(parse([output]).readings, kernelGauge)
    expect(samples.map((s) => s.powerW)).toEqual([1, 2]) // 0.25 A × 4 V, 0.5 A × 4 V
  })

  test('handles a vendor gauge in mA with positive discharge and mV', () => {
    const vendor: FuelGaugeCapability = {
      ...kernelGauge,
      currentUnit: 'mA',
      currentSign: 'positive-discharge',
      voltageUnit: 'mV',
      dischargeAmperesPerUnit: 1e-3,
    }
    expect(
      toSamples([{ tNs: 1, currentRaw: 300, voltageRaw: 3800 }], vendor)[0]!.powerW,
    ).toBeCloseTo(1.14, 12)
  })

  test('keeps timestamps strictly increasing when /proc/uptime has not ticked', () => {
    const samples = toSamples(
      [
        { tNs: 10, currentRaw: -1_000_000, voltageRaw: 4_000_000 },
        { tNs: 10, currentRaw: -2_000_000, voltageRaw: 4_000_000 },
        { tNs: 20, currentRaw: -1_000_000, voltageRaw: 4_000_000 },
      ],
      kernelGauge,
    )
    expect(samples).toEqual([
      { tNs: 10, powerW: 8 },
      { tNs: 20, powerW: 4 },
    ])
  })
})

test('the device loop polls the probed node and stops when a read fails', () => {
  expect(pollScript('battery', 50)).toBe(
    'while cat /proc/uptime /sys/class/power_supply/battery/current_now /sys/class/power_supply/battery/voltage_now; do sleep 0.020; done',
  )
})
