/**
 * `dumpsys battery`: the framework's view of the battery (BatteryService).
 *
 * Reference: AOSP frameworks/base services/core/java/com/android/server/BatteryService.java,
 * dumpInternal (android-14.0.0_r1). Layout: `Current Battery Service state:`, then an optional
 * `  (UPDATES STOPPED -- use 'reset' to restart)` line (after `dumpsys battery unplug` / `set …`),
 * then two-space-indented `key: value` lines in a fixed order. Older releases print a subset
 * (no `Dock powered`, `Max charging voltage`, `Charge counter`, `Charging state/policy`); OEMs add
 * lines, which are kept in `extra` and written back after the known ones.
 */
import { EnergyError } from '../../model/errors.js'
import { DumpsysErrors } from './errors.js'

const FORMAT = 'dumpsys battery'
const HEADER = 'Current Battery Service state:'
const UPDATES_STOPPED = "  (UPDATES STOPPED -- use 'reset' to restart)"

/** BatteryManager.BATTERY_STATUS_* */
export const BATTERY_STATUS = {
  1: 'unknown',
  2: 'charging',
  3: 'discharging',
  4: 'not-charging',
  5: 'full',
} as const satisfies Record<number, string>

/** BatteryManager.BATTERY_HEALTH_* */
export const BATTERY_HEALTH = {
  1: 'unknown',
  2: 'good',
  3: 'overheat',
  4: 'dead',
  5: 'over-voltage',
  6: 'unspecified-failure',
  7: 'cold',
} as const satisfies Record<number, string>

/**
 * The parsed state. Every field is optional because releases differ; units are the device's
 * (in the field names). Use `batteryVoltageV` / `batteryTemperatureC` for SI.
 */
export interface DumpsysBatteryState {
  /** The `(UPDATES STOPPED …)` line was present: values are frozen by `dumpsys battery unplug/set`. */
  readonly updatesStopped: boolean
  readonly acPowered?: boolean
  readonly usbPowered?: boolean
  readonly wirelessPowered?: boolean
  /** Android 14+. */
  readonly dockPowered?: boolean
  /** µA. */
  readonly maxChargingCurrentUa?: number
  /** µV. */
  readonly maxChargingVoltageUv?: number
  /** Remaining charge, µAh. */
  readonly chargeCounterUah?: number
  /** BATTERY_STATUS_* code (2 charging, 3 discharging, 4 not charging, 5 full). */
  readonly status?: number
  /** BATTERY_HEALTH_* code (2 good). */
  readonly health?: number
  readonly present?: boolean
  /** Battery level on `scale` (normally %). */
  readonly level?: number
  /** Always 100 on AOSP. */
  readonly scale?: number
  /** mV. */
  readonly voltageMv?: number
  /** 0.1 °C. */
  readonly temperatureDeciC?: number
  readonly technology?: string
  /** Android 14+ charging state code. */
  readonly chargingState?: number
  /** Android 14+ charging policy code. */
  readonly chargingPolicy?: number
  /** Lines of no known key, in order, verbatim (`key` without indentation). */
  readonly extra?: ReadonlyArray<{ readonly key: string; readonly value: string }>
}

type Kind = 'bool' | 'int' | 'string'
type KnownKey = Exclude<keyof DumpsysBatteryState, 'updatesStopped' | 'extra'>

/** Printed label, state key and value type, in AOSP's print order. */
const FIELDS: ReadonlyArray<readonly [string, KnownKey, Kind]> = [
  ['AC powered', 'acPowered', 'bool'],
  ['USB powered', 'usbPowered', 'bool'],
  ['Wireless powered', 'wirelessPowered', 'bool'],
  ['Dock powered', 'dockPowered', 'bool'],
  ['Max charging current', 'maxChargingCurrentUa', 'int'],
  ['Max charging voltage', 'maxChargingVoltageUv', 'int'],
  ['Charge counter', 'chargeCounterUah', 'int'],
  ['status', 'status', 'int'],
  ['health', 'health', 'int'],
  ['present', 'present', 'bool'],
  ['level', 'level', 'int'],
  ['scale', 'scale', 'int'],
  ['voltage', 'voltageMv', 'int'],
  ['temperature', 'temperatureDeciC', 'int'],
  ['technology', 'technology', 'string'],
  ['Charging state', 'chargingState', 'int'],
  ['Charging policy', 'chargingPolicy', 'int'],
]
const BY_LABEL = new Map(FIELDS.map((f) => [f[0], f] as const))

/** Parses `dumpsys battery` output. Throws `EnergyError` (codes in `DumpsysErrors`). */
export function parseDumpsysBattery(text: string): DumpsysBatteryState {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
  const missing = lines.find((l) => /^Can't find service: /.test(l))
  if (missing !== undefined) {
    throw new EnergyError({
      code: DumpsysErrors.SERVICE_MISSING,
      message: `the device has no battery service (${missing})`,
      hint: 'Check the device is an Android phone/tablet with a battery; emulators and some TV boxes lack it.',
      details: { format: FORMAT },
    })
  }
  const start = lines.indexOf(HEADER)
  if (start < 0) {
    throw new EnergyError({
      code: DumpsysErrors.BATTERY_NOT_FOUND,
      message: `no "${HEADER}" line`,
      hint: 'Pass the output of `adb shell dumpsys battery`.',
      details: { format: FORMAT },
    })
  }
  const state: Record<string, unknown> = { updatesStopped: false }
  const extra: Array<{ key: string; value: string }> = []
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i] ?? ''
    if (line === UPDATES_STOPPED) {
      state.updatesStopped = true
      continue
    }
    const m = /^ {2}([^:]+): ?(.*)$/s.exec(line)
    if (m === null) break
    const label = m[1] ?? ''
    const value = m[2] ?? ''
    const field = BY_LABEL.get(label)
    if (field === undefined) {
      extra.push({ key: label, value })
      continue
    }
    state[field[1]] = convert(value, field, i + 1)
  }
  if (extra.length > 0) state.extra = extra
  return state as unknown as DumpsysBatteryState
}

function convert(value: string, [label, , kind]: readonly [string, KnownKey, Kind], line: number) {
  if (kind === 'string') return value
  if (kind === 'bool') {
    if (value === 'true' || value === 'false') return value === 'true'
  } else if (/^-?\d+$/.test(value)) {
    return Number(value)
  }
  throw new EnergyError({
    code: DumpsysErrors.BATTERY_BAD_VALUE,
    message: `"${label}" is ${JSON.stringify(value)}, expected ${kind === 'bool' ? 'true or false' : 'an integer'}`,
    hint: 'Pass the unmodified output of `adb shell dumpsys battery`.',
    details: { format: FORMAT, line, key: label },
  })
}

/** Writes `dumpsys battery` text (LF line endings, trailing newline) for the fields present. */
export function formatDumpsysBattery(state: DumpsysBatteryState): string {
  const out = [HEADER]
  if (state.updatesStopped) out.push(UPDATES_STOPPED)
  for (const [label, key] of FIELDS) {
    const value = state[key]
    if (value !== undefined) out.push(`  ${label}: ${String(value)}`)
  }
  for (const { key, value } of state.extra ?? []) out.push(`  ${key}: ${value}`)
  return `${out.join('\n')}\n`
}

/** Battery voltage in V (`voltage` is printed in mV). */
export function batteryVoltageV(state: DumpsysBatteryState): number | undefined {
  return state.voltageMv === undefined ? undefined : state.voltageMv / 1000
}

/** Battery temperature in °C (`temperature` is printed in 0.1 °C). */
export function batteryTemperatureC(state: DumpsysBatteryState): number | undefined {
  return state.temperatureDeciC === undefined ? undefined : state.temperatureDeciC / 10
}

/** True when the framework thinks any charger is connected. */
export function isPowered(state: DumpsysBatteryState): boolean {
  return Boolean(
    state.acPowered === true ||
    state.usbPowered === true ||
    state.wirelessPowered === true ||
    state.dockPowered === true,
  )
}
