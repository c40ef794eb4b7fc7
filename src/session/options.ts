/**
 * The options (the Vitest plugin's), validated once in the main process with errors that name the
 * field, then handed to workers as plain JSON.
 */
import { inspect } from 'node:util'
import type { LeaseStoreChoice } from '../lab/index.js'
import { closestName, CommonErrors, EnergyError } from '../model/index.js'

export interface EnergyOptions {
  /** Package name of the app under test, e.g. `com.example.trails`. */
  readonly app: string
  /**
   * Which device: `auto` (the only attached phone, else the virtual device), `virtual` (always the
   * virtual device), or a serial. @default 'auto'
   */
  readonly device?: 'auto' | 'virtual' | (string & {})
  /**
   * The adb server(s) to use for real phones: one, or a list for phones on several lab hosts
   * (docs/scale.md); a run measures on every ready phone of every server.
   * @default { host: '127.0.0.1', port: 5037 }
   */
  readonly adb?: AdbServerOption | readonly AdbServerOption[]
  /**
   * Where phone leases live. `'files'`: lock files on this machine (one machine's workers and
   * runs). A Redis URL (`'redis://lab-redis:6379'`): a store every runner of a lab shares, so that
   * runners on several machines (shards of one suite) draw phones from one pool without two
   * windows ever overlapping on a phone. `ttlMs`: how long a lease outlives its holder's last
   * renewal. VITEST_ENERGY_LEASES sets it when the option is absent. @default 'files'
   */
  readonly leases?: 'files' | (string & {}) | { readonly store: string; readonly ttlMs?: number }
  /**
   * Power source. `auto` picks the best the device has: ODPM rails (perfetto, else two `dumpsys`
   * meter readings per window), then the fuel gauge. `batterystats` models power from the battery
   * history and `powerProfile` (PETrA); `external-meter` reads `externalMeter`. @default 'auto'
   */
  readonly power?: 'auto' | 'odpm' | 'fuel-gauge' | 'batterystats' | 'external-meter'
  /**
   * The phone's power_profile.xml (path, relative to the working directory). `power: 'batterystats'`
   * prices component states with it; on ODPM rails its per-core currents per frequency
   * (`cpu.core_speeds`/`cpu.core_power.clusterN`) and each cluster's own current
   * (`cpu.cluster_power.clusterN`) weigh each cluster rail's running time for per-method energy,
   * when its clusters are the phone's.
   * @default read from the device (most devices keep it inside framework-res.apk: then required
   * for batterystats, and ODPM uses the (f / 1 GHz)² proxy)
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
  /**
   * simpleperf's sampling rate: samples per second of on-CPU time per thread (`simpleperf record
   * -f`), 1–100 000. More samples narrow per-method intervals at the cost of the app's speed.
   * @default 1000
   */
  readonly samplingHz?: number
  /** Repetitions for `energy.repeat()` when not given. @default 1 */
  readonly repeats?: number
  /**
   * Idle baseline subtracted from each window: `measure` (an idle window once per phone per run,
   * before the first test on it), a power in watts, or `none`. @default 'measure'
   */
  readonly baseline?: 'measure' | 'none' | number
  /**
   * Length of the measured idle window, ms. @default 1000 on ODPM rails (ten of Perfetto's 100 ms
   * polls), 3000 on other power sources (a fuel gauge refreshes every 0.2–10 s: three of a 1 s gauge's refreshes)
   */
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
  /**
   * Where a test waits for its automatic window's end: `background` ends the window when
   * the test ends — the method recorder stops, the phone is free — and reads the power source
   * past the end, stops it and attributes the window while the next tests run; the test's energy
   * reaches the report when its file ends, and a window that cannot be read fails the file,
   * naming the test. `test` waits in the test's teardown, as `energy.measure()` always does. A
   * test that must know its verdict waits whatever this says (`checkBudgets`). The same in Jest
   * (the file's end is Jest's `run_finish`). @default 'background'
   */
  readonly windowEnd?: 'test' | 'background'
  /**
   * On a phone without power rails, per-method energy comes from a CPU power model priced with
   * the phone's power profile; real silicon departs from the profile by 10–30% per cluster, so
   * the model is calibrated against the fuel gauge with busy loops pinned to each cluster (≈ 8
   * gauge updates per phase, 4–60 s each: 30 s to a few minutes per phone). `run`: once per phone
   * per run; `keep`: also kept in `.vitest-energy/calibration/` and reused by later runs on the
   * same phone model and build (delete the file to measure again); `none`: the profile's currents
   * as shipped. Not used on phones with rails. @default 'run'
   */
  readonly calibration?: 'run' | 'keep' | 'none'
  /**
   * Battery capacity for `% of battery` figures, mAh. @default the `battery.capacity` of the
   * phone's power profile (the `powerProfile` option's, else the one its framework reads)
   */
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
   * The energy reporter's HTML report: `false` for none, or where to write it (relative to the
   * project root). The reporter's own `html` option and `--outputFile.energy-html` win over it.
   * @default { outputFile: '.vitest-energy/report/index.html' }
   */
  readonly html?: boolean | { readonly outputFile?: string }
  /**
   * The Appium server the `driver` fixture talks to, started on a free loopback port by the global
   * setup; `false` to start none (tests that use `driver` then fail with a clear error).
   * `automationName` defaults to `UiAutomator2` on real and virtual phones (Appium's UiAutomator2
   * driver ships with vitest-energy; one the user installed in their APPIUM_HOME takes precedence).
   */
  readonly appium?:
    | false
    | {
        readonly automationName?: string
        /** Activity the session launches. @default the app's launcher activity (resolved on the phone) */
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
    /**
     * `false`: phones without power rails (a fuel gauge only, on battery), as most phones are: their
     * methods' energy comes from the calibrated CPU model. @default true (a Pixel 6-like phone)
     */
    readonly rails?: boolean
  }
}

export interface AdbServerOption {
  readonly host?: string
  readonly port?: number
}

/** Options after defaults, as workers receive them. */
export interface ResolvedEnergyOptions {
  readonly app: string
  readonly device: string
  /** At least one. */
  readonly adb: readonly { readonly host: string; readonly port: number }[]
  readonly leases: LeaseStoreChoice
  readonly power: 'auto' | 'odpm' | 'fuel-gauge' | 'batterystats' | 'external-meter'
  readonly powerProfile: string | null
  readonly externalMeter: {
    readonly file: string | null
    readonly command: readonly string[] | null
    readonly nominalVoltageV: number | null
  } | null
  readonly execution: 'simpleperf' | 'art-sampling' | 'art-instrumentation' | 'none'
  readonly samplingHz: number
  readonly repeats: number
  readonly baseline: 'measure' | 'none' | number
  /** null: chosen by the power source (see `baselineMs` above). */
  readonly baselineMs: number | null
  readonly autoWindow: boolean
  readonly endReading: 'wait' | 'extrapolate'
  readonly windowEnd: 'test' | 'background'
  readonly calibration: 'run' | 'keep' | 'none'
  readonly batteryCapacityMah: number | null
  readonly inconclusive: 'fail' | 'warn'
  readonly budgets: string
  readonly checkBudgets: boolean
  readonly budgetHeadroomPct: number
  readonly classify: boolean | { readonly preset?: 'couto2014' | 'greendroid-code' }
  readonly artifacts: 'on-failure' | 'always' | 'never'
  readonly artifactsDir: string
  /** `false`: no HTML report; a path: where; null: the reporter's default. */
  readonly html: false | { readonly outputFile: string | null }
  readonly appium:
    | false
    | {
        readonly automationName: string | null
        readonly appActivity: string | null
        readonly capabilities: Readonly<Record<string, string | number | boolean>>
      }
  readonly virtualDevice: {
    readonly appModel: string | null
    readonly devices: number
    readonly seed: number
    readonly rails: boolean
  }
}

/**
 * `testTimeout` and `hookTimeout` when the user sets none: an Appium step takes seconds, and a
 * window adds the idle baseline (once per phone) and the profilers' start and stop.
 */
export const UI_TEST_TIMEOUT_MS = 60_000

const POWER = ['auto', 'odpm', 'fuel-gauge', 'batterystats', 'external-meter'] as const
const EXECUTION = ['simpleperf', 'art-sampling', 'art-instrumentation', 'none'] as const
const PACKAGE_NAME = /^[A-Za-z]\w*(\.[A-Za-z]\w*)+$/

/** Every option's name; a name outside these is reported with the closest one. */
const OPTION_NAMES = [
  'app',
  'device',
  'adb',
  'leases',
  'power',
  'powerProfile',
  'externalMeter',
  'execution',
  'samplingHz',
  'repeats',
  'baseline',
  'baselineMs',
  'autoWindow',
  'endReading',
  'windowEnd',
  'calibration',
  'batteryCapacityMah',
  'inconclusive',
  'budgets',
  'checkBudgets',
  'budgetHeadroomPct',
  'classify',
  'artifacts',
  'artifactsDir',
  'html',
  'appium',
  'virtualDevice',
] as const satisfies readonly (keyof EnergyOptions)[]

type Nested<K extends keyof EnergyOptions> = keyof Exclude<NonNullable<EnergyOptions[K]>, boolean>
const ADB_NAMES = ['host', 'port'] as const satisfies readonly (keyof AdbServerOption)[]
const LEASES_NAMES = ['store', 'ttlMs'] as const
const METER_NAMES = [
  'file',
  'command',
  'nominalVoltageV',
] as const satisfies readonly Nested<'externalMeter'>[]
const CLASSIFY_NAMES = ['preset'] as const satisfies readonly Nested<'classify'>[]
const HTML_NAMES = ['outputFile'] as const satisfies readonly Nested<'html'>[]
const APPIUM_NAMES = [
  'automationName',
  'appActivity',
  'capabilities',
] as const satisfies readonly Nested<'appium'>[]
const VIRTUAL_NAMES = [
  'appModel',
  'devices',
  'seed',
  'rails',
] as const satisfies readonly Nested<'virtualDevice'>[]

/**
 * Where the user wrote the options: the Vitest plugin's `energy({...})` in vitest.config.ts, or
 * `testEnvironmentOptions` in the Jest config (the hint of an invalid option points there).
 */
export type OptionsPlace = 'vitest' | 'jest'

/**
 * Validates the options and fills in the defaults. Every invalid option is reported at once, in one
 * E_INVALID_OPTION error: a line per field with what was given and what is expected, and for a
 * name that is not an option (at any level) the closest known name.
 */
export function resolveOptions(
  input: unknown,
  where: OptionsPlace = 'vitest',
): ResolvedEnergyOptions {
  const problems = new Problems(where)
  if (!isObject(input)) {
    problems.invalid('options', input, "an object like { app: 'com.example.app' }")
    throw problems.error([])
  }
  const o = new Section(problems, input, '', OPTION_NAMES)
  const app = o.required('app', "an Android package name like 'com.example.trails'", isPackageName)
  const virtual = o.section('virtualDevice', VIRTUAL_NAMES, 'an object like { devices: 2 }')
  const resolved: Omit<ResolvedEnergyOptions, 'app'> = {
    device: deviceOption(o),
    adb: adbServersOf(o),
    leases: leasesOf(o),
    power: o.oneOf('power', POWER) ?? 'auto',
    powerProfile: o.string('powerProfile') ?? null,
    externalMeter: externalMeterOf(o),
    execution: o.oneOf('execution', EXECUTION) ?? 'simpleperf',
    samplingHz: o.integer('samplingHz', 1, 100_000) ?? 1000,
    repeats: o.integer('repeats', 1, 10_000) ?? 1,
    baseline:
      o.read('baseline', "'measure', 'none' or an idle power in watts (≥ 0)", isBaseline) ??
      'measure',
    baselineMs: o.integer('baselineMs', 100, 600_000) ?? null,
    autoWindow: o.boolean('autoWindow') ?? true,
    endReading: o.oneOf('endReading', ['wait', 'extrapolate'] as const) ?? 'wait',
    windowEnd: o.oneOf('windowEnd', ['test', 'background'] as const) ?? 'background',
    calibration: o.oneOf('calibration', ['run', 'keep', 'none'] as const) ?? 'run',
    batteryCapacityMah:
      o.number('batteryCapacityMah', 'a capacity in mAh (> 0)', (v) => v > 0) ?? null,
    inconclusive: o.oneOf('inconclusive', ['fail', 'warn'] as const) ?? 'fail',
    appium: appiumOf(o),
    budgets: o.string('budgets') ?? 'energy-budgets.json',
    checkBudgets: o.boolean('checkBudgets') ?? false,
    budgetHeadroomPct:
      o.number('budgetHeadroomPct', 'a percentage from 0 to 1000', (v) => v >= 0 && v <= 1000) ??
      10,
    classify: classifyOf(o),
    artifacts: o.oneOf('artifacts', ['on-failure', 'always', 'never'] as const) ?? 'on-failure',
    artifactsDir: o.string('artifactsDir') ?? '.vitest-energy/artifacts',
    html: htmlOf(o),
    virtualDevice: {
      appModel: virtual.string('appModel') ?? null,
      devices: virtual.integer('devices', 1, 16) ?? 1,
      seed: virtual.integer('seed', 0, 2 ** 31 - 1) ?? 1,
      rails: virtual.boolean('rails') ?? true,
    },
  }
  if (app === undefined || problems.count > 0) throw problems.error(Object.keys(input))
  return { app, ...resolved }
}

function externalMeterOf(o: Section): ResolvedEnergyOptions['externalMeter'] {
  const given = o.raw('externalMeter')
  const allowed = "an object like { file: 'meter.csv' } or { command: ['meter', '--csv'] }"
  if (given === undefined) {
    if (o.raw('power') === 'external-meter')
      o.problems.missing('externalMeter', `${allowed} (required with power: 'external-meter')`)
    return null
  }
  const m = o.section('externalMeter', METER_NAMES, allowed)
  if (!isObject(given)) return null
  const file = m.string('file') ?? null
  const command = m.read('command', 'a non-empty array of strings (argv)', isArgv) ?? null
  if ((m.raw('file') === undefined) === (m.raw('command') === undefined))
    o.problems.invalid('externalMeter', given, 'exactly one of `file` and `command`')
  return {
    file,
    command,
    nominalVoltageV:
      m.number('nominalVoltageV', 'a positive number of volts', (v) => v > 0) ?? null,
  }
}

const ADB_EXPECTED = "an object like { host: '127.0.0.1', port: 5037 }, or a non-empty list of them"

function adbServersOf(o: Section): ResolvedEnergyOptions['adb'] {
  const given = o.raw('adb')
  const one = (s: Section): { host: string; port: number } => ({
    host: s.string('host') ?? '127.0.0.1',
    port: s.integer('port', 1, 65535) ?? 5037,
  })
  if (!Array.isArray(given)) return [one(o.section('adb', ADB_NAMES, ADB_EXPECTED))]
  if (given.length === 0) {
    o.invalid('adb', given, ADB_EXPECTED)
    return [{ host: '127.0.0.1', port: 5037 }]
  }
  const servers = given.map((_, i) => one(o.section(`adb[${i}]`, ADB_NAMES, ADB_EXPECTED, given)))
  const seen = new Set<string>()
  for (const [i, s] of servers.entries()) {
    const element = given[i] as unknown
    // An element with its own problem (not an object, a misspelt name) is reported once, as such.
    if (!isObject(element) || Object.keys(element).some((k) => !ADB_NAMES.includes(k as 'host')))
      continue
    const name = `${s.host}:${s.port}`
    if (seen.has(name)) o.invalid(`adb[${i}]`, given[i], `a server not listed before (${name} is)`)
    seen.add(name)
  }
  return servers
}

/** `leases`, else VITEST_ENERGY_LEASES (CI sets the lab's store for every runner), else files. */
function leasesOf(o: Section): LeaseStoreChoice {
  const expected =
    "'files', a Redis URL like 'redis://lab-redis:6379', or { store: 'redis://…', ttlMs: 15000 }"
  const fromEnv = process.env['VITEST_ENERGY_LEASES']
  const given = o.raw('leases') ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv)
  if (given === undefined || given === 'files') return { store: 'files', dir: null }
  let store: unknown = given
  let ttlMs = 15_000
  if (isObject(given)) {
    const l = o.section('leases', LEASES_NAMES, expected)
    store = l.raw('store')
    ttlMs = l.integer('ttlMs', 1_000, 3_600_000) ?? ttlMs
  }
  if (store === 'files') return { store: 'files', dir: null }
  if (typeof store === 'string' && /^rediss?:\/\/[^/]/.test(store)) {
    try {
      new URL(store)
      return { store: 'redis', url: store, ttlMs }
    } catch {
      // reported below
    }
  }
  o.invalid(isObject(given) ? 'leases.store' : 'leases', store, expected)
  return { store: 'files', dir: null }
}

function classifyOf(o: Section): ResolvedEnergyOptions['classify'] {
  const given = o.raw('classify')
  if (given === undefined) return false
  if (typeof given === 'boolean') return given
  const c = o.section(
    'classify',
    CLASSIFY_NAMES,
    "true, false or { preset: 'couto2014' | 'greendroid-code' }",
  )
  const preset = c.oneOf('preset', ['couto2014', 'greendroid-code'] as const)
  return preset === undefined ? {} : { preset }
}

function htmlOf(o: Section): ResolvedEnergyOptions['html'] {
  const given = o.raw('html')
  if (given === undefined || given === true) return { outputFile: null }
  if (given === false) return false
  const h = o.section('html', HTML_NAMES, "false, true or { outputFile: 'energy-report.html' }")
  return { outputFile: h.string('outputFile') ?? null }
}

function appiumOf(o: Section): ResolvedEnergyOptions['appium'] {
  if (o.raw('appium') === false) return false
  const a = o.section(
    'appium',
    APPIUM_NAMES,
    "false or an object like { automationName: 'UiAutomator2' }",
  )
  const capabilities = a.raw('capabilities') ?? {}
  if (!isObject(capabilities)) {
    a.invalid(
      'capabilities',
      capabilities,
      "an object of capability names to values, like { 'appium:newCommandTimeout': 120 }",
    )
  } else {
    for (const [key, value] of Object.entries(capabilities)) {
      if (!['string', 'number', 'boolean'].includes(typeof value))
        a.invalid(`capabilities.${key}`, value, 'a string, number or boolean')
    }
  }
  return {
    automationName: a.string('automationName') ?? null,
    appActivity: a.string('appActivity') ?? null,
    capabilities: capabilities as Record<string, string | number | boolean>,
  }
}

/** The invalid options found so far; thrown together as one error. */
class Problems {
  constructor(private readonly where: OptionsPlace) {}

  private readonly found: {
    readonly field: string
    readonly line: string
    readonly unknown: boolean
  }[] = []

  get count(): number {
    return this.found.length
  }

  /** Records that `field` was given `given` instead of `expected`; `undefined` lets the default stand in. */
  invalid(field: string, given: unknown, expected: string): undefined {
    return this.add(field, `got ${showValue(given)}; expected ${expected}`, false)
  }

  /** Records that `field`, which is required, was not given. */
  missing(field: string, expected: string): undefined {
    return this.add(field, `missing; expected ${expected}`, false)
  }

  /** Records `field`, a name that is not among `known` (the names its object takes). */
  unknownName(field: string, known: readonly string[], prefix: string): void {
    const name = field.slice(prefix.length)
    const near = closestName(name, known)
    const where = prefix === '' ? 'the options are' : `\`${prefix.slice(0, -1)}\` takes`
    const advice =
      near === undefined ? `${where} ${known.join(', ')}` : `did you mean \`${prefix}${near}\`?`
    this.add(field, `not an option; ${advice}`, true)
  }

  private add(field: string, problem: string, unknown: boolean): undefined {
    this.found.push({ field, line: `\`${field}\`: ${problem}`, unknown })
    return undefined
  }

  /** The error listing every problem, in the order of `order` (the options as the user wrote them). */
  error(order: readonly string[]): EnergyError {
    const rank = (field: string): number => order.indexOf(field.split(/[.[]/)[0] ?? field)
    const found = [...this.found].sort((a, b) => rank(a.field) - rank(b.field))
    const [first] = found
    const lines = found.map((p) => p.line)
    const fields = found.map((p) => p.field)
    const message =
      lines.length === 1
        ? `vitest-energy option ${lines[0] ?? ''}`
        : [
            `${lines.length} vitest-energy options are invalid:`,
            ...lines.map((l) => `  - ${l}`),
          ].join('\n')
    const what = fields.length <= 3 ? listNames(fields) : `the ${fields.length} options above`
    const rename = found.some((p) => p.unknown)
      ? '; rename or remove the names that are not options'
      : ''
    return new EnergyError({
      code: CommonErrors.INVALID_OPTION,
      message,
      hint: `${this.where === 'jest' ? `In the Jest config, fix ${what} in testEnvironmentOptions` : `In the Vitest config, fix ${what} in energy({...})`}${rename}. Every option and its values: docs/configuration.md.`,
      details: {
        field: first?.field ?? 'options',
        fields: fields.join(', '),
        count: fields.length,
      },
    })
  }
}

/** One options object (the top level, `adb`, `virtualDevice`, …) read field by field. */
class Section {
  private readonly prefix: string

  constructor(
    readonly problems: Problems,
    private readonly values: Readonly<Record<string, unknown>>,
    /** Dotted name of the object, '' at the top level. */
    name: string,
    known: readonly string[],
  ) {
    this.prefix = name === '' ? '' : `${name}.`
    for (const key of Object.keys(values)) {
      if (!known.includes(key)) problems.unknownName(`${this.prefix}${key}`, known, this.prefix)
    }
  }

  raw(key: string): unknown {
    return this.values[key]
  }

  invalid(key: string, given: unknown, expected: string): undefined {
    return this.problems.invalid(`${this.prefix}${key}`, given, expected)
  }

  /** The value when absent or of the expected kind; otherwise records the problem. */
  read<T>(key: string, expected: string, is: (v: unknown) => v is T): T | undefined {
    const v = this.values[key]
    if (v === undefined || is(v)) return v as T | undefined
    return this.invalid(key, v, expected)
  }

  /** Like `read`, but absence is a problem too. */
  required<T>(key: string, expected: string, is: (v: unknown) => v is T): T | undefined {
    if (this.values[key] === undefined)
      return this.problems.missing(`${this.prefix}${key}`, expected)
    return this.read(key, expected, is)
  }

  /**
   * A nested object; one that is absent or not an object (recorded) reads as empty. `list`: the
   * array `key` (like `adb[1]`) is an element of.
   */
  section(key: string, known: readonly string[], expected: string, list?: unknown[]): Section {
    if (list !== undefined) {
      const index = Number(/\[(\d+)\]$/.exec(key)?.[1])
      const v = list[index]
      if (!isObject(v)) this.invalid(key, v, expected)
      return new Section(this.problems, isObject(v) ? v : {}, `${this.prefix}${key}`, known)
    }
    const v = this.read(key, expected, isObject) ?? {}
    return new Section(this.problems, v, `${this.prefix}${key}`, known)
  }

  string(key: string): string | undefined {
    return this.read(
      key,
      'a non-empty string',
      (v): v is string => typeof v === 'string' && v !== '',
    )
  }

  boolean(key: string): boolean | undefined {
    return this.read(key, 'true or false', (v): v is boolean => typeof v === 'boolean')
  }

  /** A finite number that passes `ok`. */
  number(key: string, expected: string, ok: (v: number) => boolean): number | undefined {
    return this.read(key, expected, (v): v is number => isFiniteNumber(v) && ok(v))
  }

  integer(key: string, min: number, max: number): number | undefined {
    return this.number(
      key,
      `an integer from ${min} to ${max}`,
      (v) => Number.isInteger(v) && v >= min && v <= max,
    )
  }

  /** One of `values`; a string a typo away from one says which ('fuelgauge': 'fuel-gauge'?). */
  oneOf<T extends string>(key: string, values: readonly T[]): T | undefined {
    const given = this.values[key]
    const near = typeof given === 'string' ? closestName(given, values) : undefined
    return this.read(
      key,
      `one of ${values.map((x) => `'${x}'`).join(', ')}${near === undefined || near === given ? '' : ` — did you mean '${near}'?`}`,
      (v): v is T => typeof v === 'string' && (values as readonly string[]).includes(v),
    )
  }
}

/**
 * `device`: 'auto', 'virtual' or a phone's serial. A word of letters only within a typo of 'auto'
 * or 'virtual' ('virtaul') is that typo, not a serial (serials have digits), and is reported now
 * rather than as a phone that is not attached.
 */
function deviceOption(o: Section): string {
  const device = o.string('device')
  if (device === undefined) return 'auto'
  if (device === 'auto' || device === 'virtual' || !/^[a-z]+$/i.test(device)) return device
  const near = closestName(device, ['auto', 'virtual'])
  if (near === undefined) return device
  o.invalid('device', device, `'auto', 'virtual' or a phone's serial — did you mean '${near}'?`)
  return 'auto'
}

/** An object that is not an array (its prototype is not checked: a config may come from another realm). */
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v)
}

function isPackageName(v: unknown): v is string {
  return typeof v === 'string' && PACKAGE_NAME.test(v)
}

function isBaseline(v: unknown): v is 'measure' | 'none' | number {
  return v === 'measure' || v === 'none' || (isFiniteNumber(v) && v >= 0)
}

function isArgv(v: unknown): v is string[] {
  return Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string')
}

/**
 * A value as it would be written in the config: NaN, Infinity, -0, undefined and functions as
 * themselves (JSON.stringify turns the first three into null and drops functions), long strings
 * and deep objects shortened.
 */
function showValue(v: unknown): string {
  return inspect(v, {
    depth: 1,
    breakLength: Infinity,
    maxArrayLength: 5,
    maxStringLength: 60,
    colors: false,
  })
}

/** "`a`", "`a` and `b`", "`a`, `b` and `c`". */
function listNames(names: readonly string[]): string {
  const quoted = names.map((n) => `\`${n}\``)
  return quoted.length <= 1
    ? (quoted[0] ?? '')
    : `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1] ?? ''}`
}
