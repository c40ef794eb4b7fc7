/**
 * Fuel-gauge nodes under `/sys/class/power_supply/<supply>/` (supply name varies: `battery`,
 * `bms`, `max170xx_battery`, …).
 *
 * Reference: Linux Documentation/ABI/testing/sysfs-class-power and
 * include/linux/power_supply.h; drivers/power/supply/power_supply_sysfs.c (v6.6) prints one value
 * per node followed by `\n`, and `uevent` as `POWER_SUPPLY_<PROP>=<value>` lines (plus
 * `POWER_SUPPLY_NAME=`). ABI units: `current_now` µA, `voltage_now` µV, `charge_counter` µAh,
 * `energy_now` µWh, `capacity` %, `status` one of Unknown/Charging/Discharging/Not charging/Full.
 * ABI sign: `current_now` is positive when the battery charges, negative when it discharges.
 * Vendors break both (mA instead of µA, discharge reported positive): this module returns raw
 * values; `normalizeCurrent` applies the unit and sign the device layer has detected.
 */
import { EnergyError } from '../../model/errors.js'
import { SysfsErrors } from './errors.js'

export { SysfsErrors } from './errors.js'

const FORMAT = 'sysfs power_supply'

/** Numeric nodes and the unit the kernel ABI specifies for them. */
export const POWER_SUPPLY_NODE_UNITS = {
  current_now: 'uA',
  current_avg: 'uA',
  voltage_now: 'uV',
  voltage_avg: 'uV',
  charge_counter: 'uAh',
  charge_full: 'uAh',
  charge_full_design: 'uAh',
  energy_now: 'uWh',
  energy_full: 'uWh',
  power_now: 'uW',
  capacity: '%',
  temp: '0.1C',
} as const satisfies Record<string, string>

export type PowerSupplyNumericNode = keyof typeof POWER_SUPPLY_NODE_UNITS

/** Values of the supply's `status` node / `POWER_SUPPLY_STATUS`. */
export type PowerSupplyStatus = 'Unknown' | 'Charging' | 'Discharging' | 'Not charging' | 'Full'

/**
 * Parses a single-value numeric node (`cat /sys/class/power_supply/battery/current_now`). Returns
 * the raw integer in the driver's unit and sign. `node` names the file in errors.
 */
export function parseSysfsInt(text: string, node = 'node'): number {
  const value = text.replace(/\r?\n$/, '')
  if (value.trim() === '') {
    throw new EnergyError({
      code: SysfsErrors.EMPTY,
      message: `${node} is empty`,
      hint: `The driver does not implement ${node}; probe another power_supply node or another power source.`,
      details: { format: FORMAT, node },
    })
  }
  if (!/^\s*-?\d+\s*$/.test(value)) {
    throw new EnergyError({
      code: SysfsErrors.BAD_VALUE,
      message: `${node} holds ${JSON.stringify(value.slice(0, 40))}, expected an integer`,
      hint: `Read ${node} again; a permission error or a shell message may have been captured instead of the value.`,
      details: { format: FORMAT, node },
    })
  }
  const n = Number(value.trim())
  if (!Number.isSafeInteger(n)) {
    throw new EnergyError({
      code: SysfsErrors.BAD_VALUE,
      message: `${node} value ${value.trim()} is outside the exactly representable range`,
      hint: 'This is not a plausible power_supply reading; check the node path.',
      details: { format: FORMAT, node },
    })
  }
  return n
}

/** Parses a single-value text node (`status`, `technology`, `type`): the value without the trailing newline. */
export function parseSysfsString(text: string, node = 'node'): string {
  const value = text.replace(/\r?\n$/, '')
  if (value === '') {
    throw new EnergyError({
      code: SysfsErrors.EMPTY,
      message: `${node} is empty`,
      hint: `The driver does not implement ${node}.`,
      details: { format: FORMAT, node },
    })
  }
  return value
}

const STATUSES: readonly PowerSupplyStatus[] = [
  'Unknown',
  'Charging',
  'Discharging',
  'Not charging',
  'Full',
]

/** Parses the `status` node (or `POWER_SUPPLY_STATUS`); throws `E_SYSFS_BAD_VALUE` for other text. */
export function parsePowerSupplyStatus(text: string, node = 'status'): PowerSupplyStatus {
  const value = parseSysfsString(text, node)
  const status = STATUSES.find((s) => s === value)
  if (status === undefined) {
    throw new EnergyError({
      code: SysfsErrors.BAD_VALUE,
      message: `${node} is ${JSON.stringify(value.slice(0, 40))}, expected one of ${STATUSES.join(', ')}`,
      hint: 'Read the power_supply status node of the battery (not of a charger or USB supply).',
      details: { format: FORMAT, node },
    })
  }
  return status
}

/** How the kernel prints a node: the value and a newline. */
export function formatSysfsValue(value: number | string): string {
  return `${String(value)}\n`
}

/** The `uevent` file of a power supply. Numeric fields are raw (driver units and sign). */
export interface PowerSupplyUevent {
  /** Every `KEY=value` line, key without the `POWER_SUPPLY_` prefix, in file order. */
  readonly properties: Readonly<Record<string, string>>
  /** `POWER_SUPPLY_NAME`. */
  readonly name?: string
  readonly status?: string
  /** Raw `CURRENT_NOW` (ABI: µA, positive = charging). */
  readonly currentNowRaw?: number
  /** Raw `VOLTAGE_NOW` (ABI: µV). */
  readonly voltageNowRaw?: number
  /** Raw `CHARGE_COUNTER` (ABI: µAh). */
  readonly chargeCounterRaw?: number
  /** Raw `ENERGY_NOW` (ABI: µWh). */
  readonly energyNowRaw?: number
  /** `CAPACITY`, %. */
  readonly capacityPercent?: number
}

/** Parses a power_supply `uevent` file. Blank lines are ignored; other lines must be `KEY=value`. */
export function parsePowerSupplyUevent(text: string): PowerSupplyUevent {
  const properties: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '')
    if (line.trim() === '') continue
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line)
    if (m === null) {
      throw new EnergyError({
        code: SysfsErrors.BAD_UEVENT_LINE,
        message: `uevent line is not KEY=value: ${JSON.stringify(line.slice(0, 60))}`,
        hint: 'Pass the content of /sys/class/power_supply/<supply>/uevent unmodified.',
        details: { format: `${FORMAT} uevent`, line: i + 1 },
      })
    }
    const key = (m[1] ?? '').replace(/^POWER_SUPPLY_/, '')
    properties[key] = m[2] ?? ''
  }
  if (Object.keys(properties).length === 0) {
    throw new EnergyError({
      code: SysfsErrors.EMPTY,
      message: 'uevent is empty',
      hint: 'Check the supply path: /sys/class/power_supply/<supply>/uevent.',
      details: { format: `${FORMAT} uevent` },
    })
  }
  const int = (key: string): number | undefined => {
    const v = properties[key]
    return v === undefined ? undefined : parseSysfsInt(v, `POWER_SUPPLY_${key}`)
  }
  const fields: Record<string, string | number | undefined> = {
    name: properties.NAME,
    status: properties.STATUS,
    currentNowRaw: int('CURRENT_NOW'),
    voltageNowRaw: int('VOLTAGE_NOW'),
    chargeCounterRaw: int('CHARGE_COUNTER'),
    energyNowRaw: int('ENERGY_NOW'),
    capacityPercent: int('CAPACITY'),
  }
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
  return { properties, ...defined } as PowerSupplyUevent
}

/** Writes a `uevent` file from properties (keys with or without the `POWER_SUPPLY_` prefix). */
export function formatPowerSupplyUevent(
  properties: Readonly<Record<string, string | number>>,
): string {
  return Object.entries(properties)
    .map(([k, v]) => `${k.startsWith('POWER_SUPPLY_') ? k : `POWER_SUPPLY_${k}`}=${String(v)}\n`)
    .join('')
}

/** How a device reports `current_now`, as detected by the device layer. */
export interface CurrentConvention {
  /** Unit of the raw value: the ABI says µA; some vendors print mA. */
  readonly unit: 'uA' | 'mA'
  /**
   * Multiplier that brings the raw value to the kernel convention (positive = charging):
   * 1 for ABI-conformant drivers, -1 for drivers that report discharge as positive.
   */
  readonly sign: 1 | -1
}

/**
 * Converts a raw `current_now` to amperes in the kernel convention (positive = into the battery,
 * negative = discharging). Throws `E_SYSFS_BAD_NORMALIZATION` for an unknown unit or sign.
 */
export function normalizeCurrent(rawValue: number, convention: CurrentConvention): number {
  const factor = convention.unit === 'uA' ? 1e-6 : convention.unit === 'mA' ? 1e-3 : Number.NaN
  if (Number.isNaN(factor) || (convention.sign !== 1 && convention.sign !== -1)) {
    throw new EnergyError({
      code: SysfsErrors.BAD_NORMALIZATION,
      message: `unsupported current convention ${JSON.stringify(convention)}`,
      hint: "Use unit 'uA' or 'mA' and sign 1 or -1.",
      details: { format: FORMAT },
    })
  }
  return rawValue * factor * convention.sign
}

/** Power drawn from the battery, W (positive while discharging), from normalized current (A) and voltage (V). */
export function dischargePowerW(currentA: number, voltageV: number): number {
  return -currentA * voltageV
}
