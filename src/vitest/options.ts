/**
 * The plugin's options, validated once in the main process with errors that name the field, then
 * handed to workers through Vitest's provide/inject as plain JSON.
 */
import { EnergyError } from '../model/index.js'

export interface EnergyOptions {
  /** Package name of the app under test, e.g. `com.example.trails`. */
  readonly app: string
  /**
   * Which device: `auto` (the only attached phone, else the virtual device), `virtual` (always the
   * virtual device), or a serial. @default 'auto'
   */
  readonly device?: 'auto' | 'virtual' | (string & {})
  /** The adb server to use for real phones. @default { host: '127.0.0.1', port: 5037 } */
  readonly adb?: { readonly host?: string; readonly port?: number }
  /**
   * Power source. `auto` picks the best the device has: ODPM rails (perfetto, else two `dumpsys`
   * meter readings per window), then the fuel gauge. `batterystats` models power from the battery
   * history and `powerProfile` (PETrA); `external-meter` reads `externalMeter`. @default 'auto'
   */
  readonly power?: 'auto' | 'odpm' | 'fuel-gauge' | 'batterystats' | 'external-meter'
  /**
   * power_profile.xml for `power: 'batterystats'` (path, relative to the working directory).
   * @default read from the device (most devices keep it inside framework-res.apk: then required)
   */
  readonly powerProfile?: string
  /** The meter for `power: 'external-meter'`: a file it writes or a command printing its samples. */
  readonly externalMeter?: {
    /** Meter file (BattOr text, Monsoon-style CSV, Battery Historian), read at each window's end. */
    readonly file?: string
    /** Host command (argv) that prints meter text on stdout until SIGTERM. */
    readonly command?: readonly string[]
    /** Supply voltage, V, for files without a voltage column. */
    readonly nominalVoltageV?: number
  }
  /**
   * How methods are attributed. `simpleperf` (EDATA: release builds, task-clock sampling),
   * `art-sampling` (`am profile --sampling`), `art-instrumentation` (every call; inflates energy),
   * `none`. @default 'simpleperf'
   */
  readonly execution?: 'simpleperf' | 'art-sampling' | 'art-instrumentation' | 'none'
  /** Repetitions for `energy.repeat()` when not given. @default 1 */
  readonly repeats?: number
  /**
   * Idle baseline subtracted from each window: `measure` (an idle window per worker before its
   * first test), a power in watts, or `none`. @default 'measure'
   */
  readonly baseline?: 'measure' | 'none' | number
  /** Length of the measured idle window, ms. @default 3000 */
  readonly baselineMs?: number
  /** Open a window around every test that uses the `energy` fixture. @default true */
  readonly autoWindow?: boolean
  /**
   * With ODPM rails (Perfetto polls them every 100 ms): `wait` for the first reading after each
   * window's end — the time to the next poll (≈ 50 ms on average) plus 10 ms of slack and the
   * clock mapping's uncertainty, ≈ 60 ms in all (a full 100 ms for tests whose length is a whole
   * number of polls) — or `extrapolate` the last stretch from the interval before it, with no
   * wait (less accurate when a test ends while the app is busy; figures in docs/accuracy.md).
   * @default 'wait'
   */
  readonly endReading?: 'wait' | 'extrapolate'
  /** Battery capacity when the device does not tell, mAh. */
  readonly batteryCapacityMah?: number
  /** When a budget lies inside a figure's 95% interval: fail (default) or decide and warn. */
  readonly inconclusive?: 'fail' | 'warn'
  // --- budgets and classification (docs/budgets.md, docs/reporter.md) ---
  /** Budget file, relative to the project root. @default 'energy-budgets.json' */
  readonly budgets?: string
  /** Check every test against its budget after it runs (fails it when over). @default false */
  readonly checkBudgets?: boolean
  /** Headroom added to measurements when `vitest -u` writes budgets, percent. @default 10 */
  readonly budgetHeadroomPct?: number
  /** Run the red/yellow/green classifier over the run's tests in the reporter. @default false */
  readonly classify?: boolean | { readonly preset?: 'couto2014' | 'greendroid-code' }
  /**
   * Keep the raw data of a test's windows (Perfetto trace, simpleperf samples, ART trace, gauge
   * readings) on the host: for failed tests only (default), always, or never.
   * @default 'on-failure'
   */
  readonly artifacts?: 'on-failure' | 'always' | 'never'
  /** Where raw data is kept, relative to the project root. @default '.vitest-energy/artifacts' */
  readonly artifactsDir?: string
  /**
   * The Appium server the `driver` fixture talks to, started on a free loopback port by the global
   * setup; `false` to start none (tests that use `driver` then fail with a clear error).
   * `automationName` defaults to `VirtualDevice` on the virtual device and `UiAutomator2` on a real
   * phone (install it once with `appium driver install uiautomator2`).
   */
  readonly appium?:
    | false
    | {
        readonly automationName?: string
        /** Activity the session launches. @default '.MainActivity' */
        readonly appActivity?: string
        /** Further capabilities, e.g. `{ 'appium:newCommandTimeout': 120 }`. */
        readonly capabilities?: Readonly<Record<string, string | number | boolean>>
      }
  /** The virtual device, when it is used. */
  readonly virtualDevice?: {
    /** App model (JSON file path). @default the bundled Trails demo app */
    readonly appModel?: string
    /** Simulated phones on the virtual adb server. @default 1 */
    readonly devices?: number
    /** Seed for noise and scheduling. @default 1 */
    readonly seed?: number
  }
}

/** Options after defaults, as workers receive them. */
export interface ResolvedEnergyOptions {
  readonly app: string
  readonly device: string
  readonly adb: { readonly host: string; readonly port: number }
  readonly power: 'auto' | 'odpm' | 'fuel-gauge' | 'batterystats' | 'external-meter'
  readonly powerProfile: string | null
  readonly externalMeter: {
    readonly file: string | null
    readonly command: readonly string[] | null
    readonly nominalVoltageV: number | null
  } | null
  readonly execution: 'simpleperf' | 'art-sampling' | 'art-instrumentation' | 'none'
  readonly repeats: number
  readonly baseline: 'measure' | 'none' | number
  readonly baselineMs: number
  readonly autoWindow: boolean
  readonly endReading: 'wait' | 'extrapolate'
  readonly batteryCapacityMah: number | null
  readonly inconclusive: 'fail' | 'warn'
  readonly budgets: string
  readonly checkBudgets: boolean
  readonly budgetHeadroomPct: number
  readonly classify: boolean | { readonly preset?: 'couto2014' | 'greendroid-code' }
  readonly artifacts: 'on-failure' | 'always' | 'never'
  readonly artifactsDir: string
  readonly appium:
    | false
    | {
        readonly automationName: string | null
        readonly appActivity: string
        readonly capabilities: Readonly<Record<string, string | number | boolean>>
      }
  readonly virtualDevice: {
    readonly appModel: string | null
    readonly devices: number
    readonly seed: number
  }
}

const POWER = ['auto', 'odpm', 'fuel-gauge', 'batterystats', 'external-meter'] as const
const EXECUTION = ['simpleperf', 'art-sampling', 'art-instrumentation', 'none'] as const

export function resolveOptions(input: unknown): ResolvedEnergyOptions {
  if (typeof input !== 'object' || input === null)
    throw invalid('options', 'must be an object like { app: "com.example.app" }')
  const o = input as Record<string, unknown>
  const known = new Set([
    'app',
    'device',
    'adb',
    'power',
    'powerProfile',
    'externalMeter',
    'execution',
    'repeats',
    'baseline',
    'baselineMs',
    'autoWindow',
    'endReading',
    'batteryCapacityMah',
    'inconclusive',
    'budgets',
    'checkBudgets',
    'budgetHeadroomPct',
    'classify',
    'artifacts',
    'artifactsDir',
    'appium',
    'virtualDevice',
  ])
  for (const key of Object.keys(o)) {
    if (!known.has(key))
      throw invalid(key, `is not an option; known options: ${[...known].join(', ')}`)
  }
  if (typeof o['app'] !== 'string' || !/^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/.test(o['app'])) {
    throw invalid(
      'app',
      `must be an Android package name like "com.example.trails" (got ${JSON.stringify(o['app'])})`,
    )
  }
  const adb = (o['adb'] ?? {}) as Record<string, unknown>
  const virtual = (o['virtualDevice'] ?? {}) as Record<string, unknown>
  return {
    app: o['app'],
    device: optionalString(o, 'device') ?? 'auto',
    adb: {
      host: optionalString(adb, 'host', 'adb.host') ?? '127.0.0.1',
      port: optionalInteger(adb, 'port', 1, 65535, 'adb.port') ?? 5037,
    },
    power: oneOf(o, 'power', POWER) ?? 'auto',
    powerProfile: optionalString(o, 'powerProfile') ?? null,
    externalMeter: externalMeterOf(o['externalMeter'], o['power']),
    execution: oneOf(o, 'execution', EXECUTION) ?? 'simpleperf',
    repeats: optionalInteger(o, 'repeats', 1, 10_000) ?? 1,
    baseline: baselineOf(o['baseline']),
    baselineMs: optionalInteger(o, 'baselineMs', 100, 600_000) ?? 3000,
    autoWindow: optionalBoolean(o, 'autoWindow') ?? true,
    endReading: oneOf(o, 'endReading', ['wait', 'extrapolate'] as const) ?? 'wait',
    batteryCapacityMah: optionalNumber(o, 'batteryCapacityMah') ?? null,
    inconclusive: oneOf(o, 'inconclusive', ['fail', 'warn'] as const) ?? 'fail',
    appium: appiumOf(o['appium']),
    budgets: optionalString(o, 'budgets') ?? 'energy-budgets.json',
    checkBudgets: optionalBoolean(o, 'checkBudgets') ?? false,
    budgetHeadroomPct: headroomOf(o['budgetHeadroomPct']),
    classify: classifyOf(o['classify']),
    artifacts: oneOf(o, 'artifacts', ['on-failure', 'always', 'never'] as const) ?? 'on-failure',
    artifactsDir: optionalString(o, 'artifactsDir') ?? '.vitest-energy/artifacts',
    virtualDevice: {
      appModel: optionalString(virtual, 'appModel', 'virtualDevice.appModel') ?? null,
      devices: optionalInteger(virtual, 'devices', 1, 16, 'virtualDevice.devices') ?? 1,
      seed: optionalInteger(virtual, 'seed', 0, 2 ** 31 - 1, 'virtualDevice.seed') ?? 1,
    },
  }
}

function invalid(field: string, why: string): EnergyError {
  return new EnergyError({
    code: 'E_INVALID_OPTION',
    message: `vitest-energy option \`${field}\` ${why}`,
    hint: 'Fix the options passed to energy({...}) in vitest.config.ts (see docs/configuration.md).',
    details: { field },
  })
}

function optionalString(o: Record<string, unknown>, key: string, name = key): string | undefined {
  const v = o[key]
  if (v === undefined) return undefined
  if (typeof v !== 'string' || v === '')
    throw invalid(name, `must be a non-empty string (got ${JSON.stringify(v)})`)
  return v
}

function optionalBoolean(o: Record<string, unknown>, key: string): boolean | undefined {
  const v = o[key]
  if (v === undefined) return undefined
  if (typeof v !== 'boolean') throw invalid(key, `must be true or false (got ${JSON.stringify(v)})`)
  return v
}

function optionalNumber(o: Record<string, unknown>, key: string): number | undefined {
  const v = o[key]
  if (v === undefined) return undefined
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
    throw invalid(key, `must be a positive number (got ${JSON.stringify(v)})`)
  return v
}

function optionalInteger(
  o: Record<string, unknown>,
  key: string,
  min: number,
  max: number,
  name = key,
): number | undefined {
  const v = o[key]
  if (v === undefined) return undefined
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw invalid(name, `must be an integer from ${min} to ${max} (got ${JSON.stringify(v)})`)
  }
  return v
}

function oneOf<T extends string>(
  o: Record<string, unknown>,
  key: string,
  values: readonly T[],
): T | undefined {
  const v = o[key]
  if (v === undefined) return undefined
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    throw invalid(
      key,
      `must be one of ${values.map((x) => `"${x}"`).join(', ')} (got ${JSON.stringify(v)})`,
    )
  }
  return v as T
}

function externalMeterOf(v: unknown, power: unknown): ResolvedEnergyOptions['externalMeter'] {
  if (v === undefined) {
    if (power === 'external-meter')
      throw invalid('externalMeter', 'is required with power: "external-meter"')
    return null
  }
  if (typeof v !== 'object' || v === null)
    throw invalid('externalMeter', 'must be an object like { file: "meter.csv" }')
  const m = v as Record<string, unknown>
  const command = m['command']
  if (
    command !== undefined &&
    (!Array.isArray(command) ||
      command.length === 0 ||
      !command.every((a): a is string => typeof a === 'string'))
  )
    throw invalid('externalMeter.command', 'must be a non-empty array of strings (argv)')
  const file = optionalString(m, 'file', 'externalMeter.file') ?? null
  if ((file === null) === (command === undefined))
    throw invalid('externalMeter', 'needs exactly one of `file` and `command`')
  const volts = m['nominalVoltageV']
  if (volts !== undefined && (typeof volts !== 'number' || !(volts > 0)))
    throw invalid('externalMeter.nominalVoltageV', 'must be a positive number of volts')
  return {
    file,
    command: command === undefined ? null : (command as string[]),
    nominalVoltageV: typeof volts === 'number' ? volts : null,
  }
}

function baselineOf(v: unknown): 'measure' | 'none' | number {
  if (v === undefined) return 'measure'
  if (v === 'measure' || v === 'none') return v
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v
  throw invalid(
    'baseline',
    `must be "measure", "none" or an idle power in watts (got ${JSON.stringify(v)})`,
  )
}

function headroomOf(v: unknown): number {
  if (v === undefined) return 10
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1000) return v
  throw invalid(
    'budgetHeadroomPct',
    `must be a percentage from 0 to 1000 (got ${JSON.stringify(v)})`,
  )
}

function classifyOf(v: unknown): ResolvedEnergyOptions['classify'] {
  if (v === undefined) return false
  if (typeof v === 'boolean') return v
  if (typeof v === 'object' && v !== null) {
    const preset = (v as Record<string, unknown>)['preset']
    if (preset === undefined) return {}
    if (preset === 'couto2014' || preset === 'greendroid-code') return { preset }
  }
  throw invalid(
    'classify',
    `must be true, false or { preset: "couto2014" | "greendroid-code" } (got ${JSON.stringify(v)})`,
  )
}

function appiumOf(v: unknown): ResolvedEnergyOptions['appium'] {
  if (v === false) return false
  if (v !== undefined && (typeof v !== 'object' || v === null)) {
    throw invalid(
      'appium',
      `must be false or an object like { automationName: 'UiAutomator2' } (got ${JSON.stringify(v)})`,
    )
  }
  const o = (v ?? {}) as Record<string, unknown>
  const capabilities = o['capabilities'] ?? {}
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) {
    throw invalid('appium.capabilities', 'must be an object of capability names to values')
  }
  for (const [key, value] of Object.entries(capabilities)) {
    if (!['string', 'number', 'boolean'].includes(typeof value)) {
      throw invalid(
        `appium.capabilities.${key}`,
        `must be a string, number or boolean (got ${JSON.stringify(value)})`,
      )
    }
  }
  return {
    automationName: optionalString(o, 'automationName', 'appium.automationName') ?? null,
    appActivity: optionalString(o, 'appActivity', 'appium.appActivity') ?? '.MainActivity',
    capabilities: capabilities as Record<string, string | number | boolean>,
  }
}
