import fc from 'fast-check'
import { describe, expect, test } from 'vitest'

import {
  dischargePowerW,
  formatPowerSupplyUevent,
  formatSysfsValue,
  normalizeCurrent,
  parsePowerSupplyStatus,
  parsePowerSupplyUevent,
  parseSysfsInt,
  parseSysfsString,
  SysfsErrors,
} from '../../../src/formats/sysfs/index.js'
import { EnergyError } from '../../../src/model/errors.js'

// Constructed in the layout of power_supply_sysfs.c (no licensed real capture exists; see corpus "Gaps").
const UEVENT = [
  'POWER_SUPPLY_NAME=battery',
  'POWER_SUPPLY_TYPE=Battery',
  'POWER_SUPPLY_STATUS=Discharging',
  'POWER_SUPPLY_HEALTH=Good',
  'POWER_SUPPLY_PRESENT=1',
  'POWER_SUPPLY_TECHNOLOGY=Li-ion',
  'POWER_SUPPLY_CAPACITY=84',
  'POWER_SUPPLY_VOLTAGE_NOW=4182000',
  'POWER_SUPPLY_CURRENT_NOW=-412000',
  'POWER_SUPPLY_CHARGE_COUNTER=3921000',
  'POWER_SUPPLY_TEMP=296',
  '',
].join('\n')

function code(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(EnergyError)
    expect((e as EnergyError).hint).not.toBe('')
    return (e as EnergyError).code
  }
  throw new Error('no error')
}

describe('sysfs single-value nodes', () => {
  test('raw values, trailing newline, sign kept', () => {
    expect(parseSysfsInt('-412000\n', 'current_now')).toBe(-412000)
    expect(parseSysfsInt('4182000\n', 'voltage_now')).toBe(4182000)
    expect(parseSysfsInt('84', 'capacity')).toBe(84)
    expect(parseSysfsString('Not charging\n', 'status')).toBe('Not charging')
  })
  test('writer/parser round trip (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (v) => {
        expect(parseSysfsInt(formatSysfsValue(v))).toBe(v)
      }),
    )
  })
  test('negative: empty, garbage, shell error captured instead of the value', () => {
    expect(code(() => parseSysfsInt('\n', 'current_now'))).toBe(SysfsErrors.EMPTY)
    expect(code(() => parseSysfsInt('12.5\n', 'current_now'))).toBe(SysfsErrors.BAD_VALUE)
    expect(
      code(() =>
        parseSysfsInt(
          'cat: /sys/class/power_supply/battery/current_now: Permission denied\n',
          'current_now',
        ),
      ),
    ).toBe(SysfsErrors.BAD_VALUE)
    expect(code(() => parseSysfsInt('99999999999999999999\n'))).toBe(SysfsErrors.BAD_VALUE)
    expect(code(() => parseSysfsString(''))).toBe(SysfsErrors.EMPTY)
  })
})

describe('sysfs status node', () => {
  test.each(['Unknown', 'Charging', 'Discharging', 'Not charging', 'Full'])('%s', (s) => {
    expect(parsePowerSupplyStatus(formatSysfsValue(s))).toBe(s)
  })
  test('negative: other text', () => {
    expect(code(() => parsePowerSupplyStatus('charging\n'))).toBe(SysfsErrors.BAD_VALUE)
    expect(code(() => parsePowerSupplyStatus('\n'))).toBe(SysfsErrors.EMPTY)
  })
})

describe('sysfs uevent', () => {
  test('typed raw fields and all properties', () => {
    const u = parsePowerSupplyUevent(UEVENT)
    expect(u).toMatchObject({
      name: 'battery',
      status: 'Discharging',
      capacityPercent: 84,
      voltageNowRaw: 4182000,
      currentNowRaw: -412000,
      chargeCounterRaw: 3921000,
    })
    expect(u.energyNowRaw).toBeUndefined()
    expect(u.properties.TEMP).toBe('296')
    expect(Object.keys(u.properties)).toHaveLength(11)
    expect(formatPowerSupplyUevent(u.properties)).toBe(UEVENT)
  })
  test('CRLF accepted', () => {
    expect(parsePowerSupplyUevent(UEVENT.replace(/\n/g, '\r\n')).currentNowRaw).toBe(-412000)
  })
  test('negative: bad line number, bad number, empty', () => {
    const bad = UEVENT.replace('POWER_SUPPLY_PRESENT=1', 'POWER_SUPPLY_PRESENT 1')
    try {
      parsePowerSupplyUevent(bad)
      throw new Error('no error')
    } catch (e) {
      expect((e as EnergyError).code).toBe(SysfsErrors.BAD_UEVENT_LINE)
      expect((e as EnergyError).details.line).toBe(5)
    }
    expect(
      code(() => parsePowerSupplyUevent(UEVENT.replace('CURRENT_NOW=-412000', 'CURRENT_NOW=n/a'))),
    ).toBe(SysfsErrors.BAD_VALUE)
    expect(code(() => parsePowerSupplyUevent('\n'))).toBe(SysfsErrors.EMPTY)
  })
})

describe('normalizeCurrent', () => {
  test('ABI µA, positive = charging', () => {
    expect(normalizeCurrent(-412000, { unit: 'uA', sign: 1 })).toBeCloseTo(-0.412, 12)
  })
  test('vendor mA with inverted sign', () => {
    expect(normalizeCurrent(412, { unit: 'mA', sign: -1 })).toBeCloseTo(-0.412, 12)
  })
  test('discharge power: 0.412 A out at 4.182 V = 1.722984 W', () => {
    expect(dischargePowerW(normalizeCurrent(-412000, { unit: 'uA', sign: 1 }), 4.182)).toBeCloseTo(
      1.722984,
      9,
    )
  })
  test('µA and mA conventions agree for the same physical current (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -5000, max: 5000 }),
        fc.constantFrom(1 as const, -1 as const),
        (mA, sign) => {
          expect(normalizeCurrent(mA * 1000 * sign, { unit: 'uA', sign })).toBeCloseTo(
            normalizeCurrent(mA * sign, { unit: 'mA', sign }),
            12,
          )
        },
      ),
    )
  })
  test('negative: unknown unit', () => {
    expect(code(() => normalizeCurrent(1, { unit: 'A' as 'uA', sign: 1 }))).toBe(
      SysfsErrors.BAD_NORMALIZATION,
    )
  })
})
