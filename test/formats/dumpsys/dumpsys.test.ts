import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'

import {
  BATTERY_STATUS,
  batteryTemperatureC,
  batteryVoltageV,
  DumpsysErrors,
  formatDumpsysBattery,
  formatDumpsysPowerstats,
  formatPowerStatsMeter,
  isPowered,
  meterReadingEnergyJ,
  meterReadingFromUws,
  parseDumpsysBattery,
  parseDumpsysPowerstats,
  parseDumpsysPowerWakeLocks,
  type DumpsysBatteryState,
} from '../../../src/formats/dumpsys/index.js'
import { EnergyError } from '../../../src/model/errors.js'
import { expectLinear } from '../_linear.js'
import { sharedCorpus } from '../_shared-corpus.js'

const dir = join(import.meta.dirname, '../../fixtures/dumpsys')
const read = (f: string): string => readFileSync(join(dir, f), 'utf8')

function expectCode(fn: () => unknown, code: string): EnergyError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(EnergyError)
    const err = e as EnergyError
    expect(err.code).toBe(code)
    expect(err.hint).not.toBe('')
    return err
  }
  throw new Error(`expected ${code}`)
}

describe('dumpsys battery', () => {
  test('Android 14 layout, frozen by `dumpsys battery unplug`', () => {
    const text = read('battery_android14_unplugged.txt')
    const b = parseDumpsysBattery(text)
    expect(b).toEqual({
      updatesStopped: true,
      acPowered: false,
      usbPowered: false,
      wirelessPowered: false,
      dockPowered: false,
      maxChargingCurrentUa: 0,
      maxChargingVoltageUv: 0,
      chargeCounterUah: 3_921_000,
      status: 3,
      health: 2,
      present: true,
      level: 84,
      scale: 100,
      voltageMv: 4182,
      temperatureDeciC: 296,
      technology: 'Li-ion',
      chargingState: 1,
      chargingPolicy: 1,
    })
    expect(BATTERY_STATUS[3]).toBe('discharging')
    expect(batteryVoltageV(b)).toBeCloseTo(4.182, 12)
    expect(batteryTemperatureC(b)).toBeCloseTo(29.6, 12)
    expect(isPowered(b)).toBe(false)
    expect(formatDumpsysBattery(b)).toBe(text)
  })
  test('Android 10 layout with CRLF; USB powered', () => {
    const text = read('battery_android10_usb_crlf.txt')
    const b = parseDumpsysBattery(text)
    expect(b.updatesStopped).toBe(false)
    expect(b.dockPowered).toBeUndefined()
    expect(b.chargingState).toBeUndefined()
    expect(isPowered(b)).toBe(true)
    expect(b.technology).toBe('Li-poly')
    expect(formatDumpsysBattery(b)).toBe(text.replace(/\r\n/g, '\n'))
  })
  test('OEM extra lines are kept in order and written back', () => {
    const text = read('battery_oem_extra_lines.txt')
    const b = parseDumpsysBattery(text)
    expect(b.extra).toEqual([
      { key: 'mSecPlugTypeSummary', value: '1' },
      { key: 'LED Charging', value: 'true' },
    ])
    expect(formatDumpsysBattery(b)).toBe(text)
  })
  test('round trip (property)', () => {
    const state = fc.record(
      {
        updatesStopped: fc.boolean(),
        acPowered: fc.boolean(),
        usbPowered: fc.boolean(),
        level: fc.integer({ min: 0, max: 100 }),
        voltageMv: fc.integer({ min: 2500, max: 4500 }),
        temperatureDeciC: fc.integer({ min: -200, max: 700 }),
        chargeCounterUah: fc.integer({ min: 0, max: 6_000_000 }),
        technology: fc.constantFrom('Li-ion', 'Li-poly', 'Unknown'),
      },
      { requiredKeys: ['updatesStopped'] },
    )
    fc.assert(
      fc.property(state, (s) => {
        expect(parseDumpsysBattery(formatDumpsysBattery(s as DumpsysBatteryState))).toEqual(s)
      }),
    )
  })
  test('negative: not dumpsys battery', () => {
    expectCode(
      () => parseDumpsysBattery('Battery History (0% used):\n'),
      DumpsysErrors.BATTERY_NOT_FOUND,
    )
    expectCode(() => parseDumpsysBattery(''), DumpsysErrors.BATTERY_NOT_FOUND)
  })
  test('negative: service missing', () => {
    const e = expectCode(
      () => parseDumpsysBattery("Can't find service: battery\n"),
      DumpsysErrors.SERVICE_MISSING,
    )
    expect(e.message).toContain("Can't find service: battery")
  })
  test('negative: corrupted value names key and line', () => {
    const text = read('battery_android14_unplugged.txt').replace('level: 84', 'level: 8x4')
    const e = expectCode(() => parseDumpsysBattery(text), DumpsysErrors.BATTERY_BAD_VALUE)
    expect(e.details).toMatchObject({ line: 13, key: 'level' })
    const b = read('battery_android14_unplugged.txt').replace('present: true', 'present: yes')
    expect(
      expectCode(() => parseDumpsysBattery(b), DumpsysErrors.BATTERY_BAD_VALUE).details.key,
    ).toBe('present')
  })
  test('truncated output keeps what was printed', () => {
    const text = read('battery_android14_unplugged.txt')
    const b = parseDumpsysBattery(text.slice(0, text.indexOf('  level')))
    expect(b.level).toBeUndefined()
    expect(b.health).toBe(2)
  })
})

describe('dumpsys powerstats (framework)', () => {
  test('entities, channels, consumers', () => {
    const text = read('powerstats_framework_pixel6.txt')
    const p = parseDumpsysPowerstats(text)
    expect(p.meter).toBeUndefined()
    expect(p.channels).toHaveLength(12)
    expect(p.channels[0]).toEqual({ id: 0, name: 'S10M_VDD_TPU', subsystem: 'TPU' })
    expect(p.channels[3]).toEqual({ id: 3, name: 'S2M_VDD_CPUCL2', subsystem: 'CPU(BIG)' })
    expect(p.entities).toEqual([
      {
        id: 0,
        name: 'AOC',
        states: [
          { id: 0, name: 'AWAKE' },
          { id: 1, name: 'DOZE' },
        ],
      },
      {
        id: 1,
        name: 'GPU',
        states: [
          { id: 0, name: 'Off' },
          { id: 1, name: 'On' },
        ],
      },
    ])
    expect(p.consumers[3]).toEqual({ id: 3, ordinal: 0, type: 3, name: 'DISPLAY' })
    const written = formatDumpsysPowerstats(p)
    expect(text.startsWith(written)).toBe(true)
    expect(parseDumpsysPowerstats(written)).toEqual(p)
  })
  test('Android 12/13 layout (unindented items) gives the same result and round-trips', () => {
    const text12 = read('powerstats_framework_android12.txt')
    const p12 = parseDumpsysPowerstats(text12)
    expect(p12).toEqual(parseDumpsysPowerstats(read('powerstats_framework_pixel6.txt')))
    expect(formatDumpsysPowerstats(p12, { layout: 'android12' })).toBe(text12)
  })
  test('negative: corrupted channel line names the line', () => {
    const text = read('powerstats_framework_pixel6.txt').replace(
      'ChannelId: 4,',
      'ChannelId: four,',
    )
    expect(
      expectCode(() => parseDumpsysPowerstats(text), DumpsysErrors.POWERSTATS_BAD_LINE).details
        .line,
    ).toBe(13)
  })
  test('negative: not powerstats', () => {
    expectCode(
      () => parseDumpsysPowerstats(read('battery_oem_extra_lines.txt')),
      DumpsysErrors.POWERSTATS_NOT_FOUND,
    )
    expectCode(
      () => parseDumpsysPowerstats("Can't find service: powerstats\n"),
      DumpsysErrors.SERVICE_MISSING,
    )
  })
})

describe('PowerStats HAL energy meter', () => {
  const source = JSON.parse(read('powerstats_hal_meter_source.json')) as {
    rails: Array<{ rail: string; subsystem: string; energyUws: number; previousUws: number }>
  }
  test('plain table: readings, float32 precision loss, byte-faithful writer', () => {
    const text = read('powerstats_hal_meter.txt')
    const p = parseDumpsysPowerstats(text)
    expect(p.channels).toEqual([])
    expect(p.meter?.elapsedMs).toBeUndefined()
    expect(p.meter?.readings).toHaveLength(6)
    expect(p.meter?.readings[0]).toEqual({
      channel: '[S10M_VDD_TPU]:TPU',
      rail: 'S10M_VDD_TPU',
      subsystem: 'TPU',
      energyMws: 1234.57,
    })
    // 123456789012 µWs printed through a float32: 123456790.53 mWs, not 123456789.01
    expect(p.meter?.readings[5]?.energyMws).toBe(123456790.53)
    expect(
      meterReadingEnergyJ(
        p.meter?.readings[0] ?? { channel: '', rail: '', subsystem: '', energyMws: NaN },
      ),
    ).toBeCloseTo(1.23457, 10)
    expect(formatPowerStatsMeter(p.meter ?? { readings: [] })).toBe(text)
  })
  test('meterReadingFromUws matches the HAL printf (cross-checked with Python)', () => {
    const readings = source.rails.map((r) => meterReadingFromUws(r.rail, r.subsystem, r.energyUws))
    expect(formatPowerStatsMeter({ readings })).toBe(read('powerstats_hal_meter.txt'))
    const deltas = source.rails.map((r) =>
      meterReadingFromUws(r.rail, r.subsystem, r.energyUws, r.previousUws),
    )
    expect(formatPowerStatsMeter({ elapsedMs: 5003, readings: deltas })).toBe(
      read('powerstats_hal_meter_delta.txt'),
    )
  })
  test('delta table', () => {
    const p = parseDumpsysPowerstats(read('powerstats_hal_meter_delta.txt'))
    expect(p.meter?.elapsedMs).toBe(5003)
    expect(p.meter?.readings[1]).toMatchObject({ rail: 'VSYS_PWR_MODEM', deltaMws: 1012.35 })
  })
  test('framework dump and HAL dump concatenated', () => {
    const p = parseDumpsysPowerstats(
      read('powerstats_framework_pixel6.txt') + read('powerstats_hal_meter.txt'),
    )
    expect(p.channels).toHaveLength(12)
    expect(p.meter?.readings).toHaveLength(6)
  })
  test('negative: truncated table', () => {
    const text = read('powerstats_hal_meter.txt')
    expectCode(
      () => parseDumpsysPowerstats(text.slice(0, text.indexOf('[VSYS_PWR_DISPLAY]'))),
      DumpsysErrors.POWERSTATS_TRUNCATED,
    )
  })
  test('negative: corrupted reading', () => {
    const text = read('powerstats_hal_meter.txt').replace('1234.57 mWs', '12x4.57 mWs')
    expect(
      expectCode(() => parseDumpsysPowerstats(text), DumpsysErrors.POWERSTATS_BAD_LINE).details
        .line,
    ).toBe(4)
  })
})

describe('dumpsys robustness (fuzz)', () => {
  const seeds = [
    read('battery_android14_unplugged.txt'),
    read('powerstats_framework_pixel6.txt'),
    read('powerstats_hal_meter_delta.txt'),
  ]
  const onlyEnergyErrors = (input: string): void => {
    for (const parse of [parseDumpsysBattery, parseDumpsysPowerstats]) {
      try {
        parse(input)
      } catch (e) {
        expect(e).toBeInstanceOf(EnergyError)
      }
    }
  }
  test('arbitrary text and corruptions of the fixtures', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), onlyEnergyErrors))
    fc.assert(
      fc.property(
        fc.constantFrom(...seeds),
        fc.nat(),
        fc.nat(),
        fc.constantFrom(':', ',', 'x', ' ', '\n'),
        (seed, cut, at, ch) => {
          onlyEnergyErrors(seed.slice(0, cut % (seed.length + 1)))
          const i = at % seed.length
          onlyEnergyErrors(seed.slice(0, i) + ch + seed.slice(i + 1))
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('dumpsys parsers are linear in their input (issue 16)', () => {
  const SECTION = 'PowerStatsService dumpsys: available '
  test('a channel line full of ", ChannelSubsystem: " with a late line separator', () => {
    expectLinear(
      (n) =>
        `${SECTION}Channels\nChannelId: 0, ChannelName: ${', ChannelSubsystem: '.repeat(n / 20)}\u2028x\n`,
      parseDumpsysPowerstats,
      8000,
    )
  })
  test('a HAL meter line of brackets and digits', () => {
    const table = (line: string): string =>
      `============= PowerStats HAL 2.0 energy meter ==============\n${line}\n========== End of PowerStats HAL 2.0 energy meter ==========\n`
    expectLinear(
      (n) => table(`  [${']'.repeat(n)}\u2028x   1.00 mWs`),
      parseDumpsysPowerstats,
      8000,
    )
    expectLinear((n) => table(`  a ${' 1'.repeat(n / 2)}`), parseDumpsysPowerstats, 8000)
  })
  test('a battery line of colons', () => {
    expectLinear(
      (n) => `Current Battery Service state:\n  ${':'.repeat(n)}\u2028x\n`,
      parseDumpsysBattery,
      8000,
    )
  })
})

describe('shared corpus 6_dumpsys_uiautomator (../shared/corpus): dumpsys gfxinfo', () => {
  const shared = sharedCorpus('6_dumpsys_uiautomator')
  test.skipIf(shared === undefined)(
    'dumpsys gfxinfo is none of battery, powerstats or power: each parser says what it looked for',
    () => {
      const text = readFileSync(join(shared?.dir ?? '', 'nuviotv_dumpsys_gfxinfo.txt'), 'utf8')
      expectCode(() => parseDumpsysBattery(text), DumpsysErrors.BATTERY_NOT_FOUND)
      expectCode(() => parseDumpsysPowerstats(text), DumpsysErrors.POWERSTATS_NOT_FOUND)
      expectCode(() => parseDumpsysPowerWakeLocks(text), DumpsysErrors.POWER_WAKE_LOCKS_NOT_FOUND)
    },
  )
})
