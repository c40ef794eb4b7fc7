/**
 * What fuel gauges do, as named profiles: how often `current_now` changes, over what window it
 * averages, its quantum, unit and sign, a vendor cache on top, what `current_avg` holds, and how
 * `charge_counter` steps. Each profile follows a gauge family's driver code or datasheet; the
 * sources and what is assumed are in docs/virtual-device.md ("Fuel gauge"). `Battery`
 * (sensors.ts) runs the resolved model; this file only names, merges and checks options.
 */
import { EnergyError } from '../../model/index.js'
import { SimErrors } from './errors.js'

/** The named gauges (docs/virtual-device.md, "Fuel gauge"). */
export const GAUGE_PROFILES = [
  'typical',
  'pixel',
  'samsung',
  'oplus',
  'ti-bq27xxx',
  'mediatek-legacy',
] as const

export type GaugeProfile = (typeof GAUGE_PROFILES)[number]

/** The profile every phone gets when `sensors.profile` is not given. */
export const DEFAULT_GAUGE_PROFILE: GaugeProfile = 'typical'

/**
 * What a current register holds at each update:
 * - `period`: the mean current over the period that just ended (a burst or 1 s average);
 * - `instant`: the current at the update (a single conversion; aliases periodic loads);
 * - `boxcar`: the mean over the last `windowMs`;
 * - `iir`: an exponential moving average of the periods' means with time constant `tauMs`
 *   (Maxim's AvgCurrent), so a step in the load reaches 63% after `tauMs`.
 */
export type GaugeAveraging =
  | { readonly kind: 'period' }
  | { readonly kind: 'instant' }
  | { readonly kind: 'boxcar'; readonly windowMs: number }
  | { readonly kind: 'iir'; readonly tauMs: number }

/** A vendor driver that serves a cached reading and refreshes it on its own timer. */
export interface GaugeCache {
  /** How often the driver refreshes its copy, ms, on the phone's clock. */
  readonly periodMs: number
  /** Reads go to the gauge itself while a charger is online (OPlus forces a fresh read). @default false */
  readonly bypassWhileCharging?: boolean
}

/** How `charge_counter` (and `capacity`, computed with it) steps and refreshes. */
export interface ChargeCounterOptions {
  /** Quantum, µAh: a coulomb counter's LSB. Replaces a profile's `stepPercent`. */
  readonly stepUah?: number
  /**
   * Quantum as a share of the full capacity, %: a counter computed from an integer state of
   * charge (Qualcomm QG and MediaTek: 1; Samsung's 0.1 % SOC). Replaces a profile's `stepUah`.
   */
  readonly stepPercent?: number
  /** How often the value is refreshed, ms; 0: with every update of the current register. */
  readonly refreshMs?: number
  /** `uAh` (the ABI) or `percent`: the node holds the state of charge in % (legacy MediaTek). */
  readonly unit?: 'uAh' | 'percent'
}

/** Fuel gauge options: a profile, and any of its parameters overridden. */
export interface FuelGaugeOptions {
  /** The gauge to model; every other option overrides one of its parameters. @default 'typical' */
  readonly profile?: GaugeProfile
  /** Current register update rate, Hz (1000 / `periodMs`); not with `periodMs`. @default the profile's */
  readonly updateHz?: number
  /** Current register update period, ms; not with `updateHz`. @default the profile's (typical: 1000) */
  readonly periodMs?: number
  /** What `current_now` holds at each update. @default the profile's (typical: `{ kind: 'period' }`) */
  readonly averaging?: GaugeAveraging
  /** Current quantum, µA, before the unit conversion; 0: whole µA. @default the profile's (typical: 150) */
  readonly currentStepUa?: number
  /**
   * Standard deviation of the seeded Gaussian noise of one conversion, µA (an average over several
   * periods has proportionally less). Assumption. @default 2000
   */
  readonly noiseUa?: number
  /** `kernel`: positive = charging (the ABI); `flipped`: positive = discharging. @default the profile's */
  readonly currentSign?: 'kernel' | 'flipped'
  /** `uA` (the ABI) or `mA` (a vendor quirk: value ÷ 1000, truncated). @default the profile's */
  readonly currentUnit?: 'uA' | 'mA'
  /** What `current_avg` holds; `'none'`: the node does not exist. @default the profile's */
  readonly currentAvg?: GaugeAveraging | 'none'
  /** A vendor cache in front of the gauge; `'none'`: reads reach the register. @default the profile's */
  readonly cache?: GaugeCache | 'none'
  /** `charge_counter`'s quantum and refresh, merged field by field into the profile's. */
  readonly chargeCounter?: ChargeCounterOptions
  /** Charge current while powered, µA. @default 450000 */
  readonly chargeCurrentUa?: number
  /** State of charge at start, 0–1. @default 0.87 */
  readonly initialSoc?: number
  /**
   * A real phone keeps charging in hardware after `dumpsys battery unplug` (only the framework's
   * view changes). Set true to reproduce that; by default unplug stops the simulated charging.
   * @default false
   */
  readonly chargesWhenUnplugged?: boolean
  /** Directory name under /sys/class/power_supply (vendors differ: `max170xx_battery`, …). @default 'battery' */
  readonly node?: string
  /**
   * With `physics: 'phone'`: how far the gauge's own timebase runs off the phone's clock, relative
   * (its update period is `periodMs × (1 + drift)`, the first update at a seeded phase), so its
   * updates drift against any poll on the phone's clock. Assumption. @default seeded, within ±0.5%
   */
  readonly clockDrift?: number
}

/** A gauge with every parameter set: a profile merged with the options. */
export interface GaugeModel {
  readonly profile: GaugeProfile
  readonly periodMs: number
  readonly averaging: GaugeAveraging
  readonly currentStepUa: number
  readonly noiseUa: number
  readonly currentSign: 'kernel' | 'flipped'
  readonly currentUnit: 'uA' | 'mA'
  readonly currentAvg: GaugeAveraging | 'none'
  readonly cache: GaugeCache | 'none'
  readonly chargeCounter: {
    /** Quantum, µAh, or undefined when given as `stepPercent`. */
    readonly stepUah: number | undefined
    readonly stepPercent: number | undefined
    readonly refreshMs: number
    readonly unit: 'uAh' | 'percent'
  }
}

const PERIOD: GaugeAveraging = { kind: 'period' }
/** Maxim ModelGauge's AvgCurrent at the chip's default FilterCfg: 175.8 ms × 2^(2+4). */
const MAXIM_AVG_CURRENT: GaugeAveraging = { kind: 'iir', tauMs: 11_250 }
/** Maxim's task period: a conversion stored every 175.8 ms. */
const MAXIM_PERIOD_MS = 175.8
const NOISE_UA = 2000

/** The profiles' parameters; docs/virtual-device.md ("Fuel gauge") cites each one. */
export const GAUGE_PROFILE_MODELS: Readonly<Record<GaugeProfile, GaugeModel>> = {
  typical: {
    profile: 'typical',
    periodMs: 1000,
    averaging: PERIOD,
    currentStepUa: 150,
    noiseUa: NOISE_UA,
    currentSign: 'kernel',
    currentUnit: 'uA',
    currentAvg: { kind: 'boxcar', windowMs: 12_800 },
    cache: 'none',
    chargeCounter: { stepUah: undefined, stepPercent: 1, refreshMs: 60_000, unit: 'uAh' },
  },
  pixel: {
    profile: 'pixel',
    periodMs: MAXIM_PERIOD_MS,
    averaging: PERIOD,
    currentStepUa: 312.5,
    noiseUa: NOISE_UA,
    currentSign: 'kernel',
    currentUnit: 'uA',
    currentAvg: MAXIM_AVG_CURRENT,
    cache: 'none',
    chargeCounter: { stepUah: 1000, stepPercent: undefined, refreshMs: 0, unit: 'uAh' },
  },
  samsung: {
    profile: 'samsung',
    periodMs: MAXIM_PERIOD_MS,
    averaging: PERIOD,
    currentStepUa: 156.25,
    noiseUa: NOISE_UA,
    currentSign: 'kernel',
    currentUnit: 'mA',
    currentAvg: MAXIM_AVG_CURRENT,
    cache: 'none',
    chargeCounter: { stepUah: undefined, stepPercent: 0.1, refreshMs: 30_000, unit: 'uAh' },
  },
  oplus: {
    profile: 'oplus',
    periodMs: 1000,
    averaging: PERIOD,
    currentStepUa: 1000,
    noiseUa: NOISE_UA,
    currentSign: 'kernel',
    currentUnit: 'mA',
    currentAvg: 'none',
    cache: { periodMs: 10_000, bypassWhileCharging: true },
    chargeCounter: { stepUah: 1000, stepPercent: undefined, refreshMs: 10_000, unit: 'uAh' },
  },
  'ti-bq27xxx': {
    profile: 'ti-bq27xxx',
    periodMs: 1000,
    averaging: PERIOD,
    currentStepUa: 1000,
    noiseUa: NOISE_UA,
    currentSign: 'kernel',
    currentUnit: 'uA',
    currentAvg: PERIOD,
    cache: 'none',
    chargeCounter: { stepUah: 1000, stepPercent: undefined, refreshMs: 0, unit: 'uAh' },
  },
  'mediatek-legacy': {
    profile: 'mediatek-legacy',
    periodMs: 1000,
    averaging: { kind: 'instant' },
    currentStepUa: 100,
    noiseUa: NOISE_UA,
    currentSign: 'kernel',
    currentUnit: 'mA',
    currentAvg: 'none',
    cache: 'none',
    chargeCounter: { stepUah: undefined, stepPercent: 1, refreshMs: 0, unit: 'percent' },
  },
}

/**
 * The longest IIR time constant, in current register periods: the filter sums about 14 τ of
 * periods (to 1e-6 of its weight) at each update, so this bounds its cost and memory.
 */
export const MAX_IIR_TAU_PERIODS = 2000

const OPTION_KEYS: ReadonlySet<string> = new Set([
  'profile',
  'updateHz',
  'periodMs',
  'averaging',
  'currentStepUa',
  'noiseUa',
  'currentSign',
  'currentUnit',
  'currentAvg',
  'cache',
  'chargeCounter',
  'chargeCurrentUa',
  'initialSoc',
  'chargesWhenUnplugged',
  'node',
  'clockDrift',
] satisfies (keyof FuelGaugeOptions)[])

function bad(option: string, why: string): never {
  throw new EnergyError({
    code: SimErrors.BAD_OPTION,
    message: `fuel gauge: option 'sensors.${option}' ${why}`,
    hint: 'See docs/virtual-device.md ("Fuel gauge") for the profiles, the options and their ranges.',
    details: { option: `sensors.${option}` },
  })
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

function positive(option: string, v: unknown): number {
  if (!isNumber(v) || v <= 0) bad(option, `must be a finite number > 0, got ${String(v)}`)
  return v
}

function nonNegative(option: string, v: unknown): number {
  if (!isNumber(v) || v < 0) bad(option, `must be a finite number ≥ 0, got ${String(v)}`)
  return v
}

function oneOf<T extends string>(option: string, v: unknown, allowed: readonly T[]): T {
  if (!(allowed as readonly unknown[]).includes(v)) {
    bad(option, `must be one of ${allowed.join(', ')}, got ${String(v)}`)
  }
  return v as T
}

function checkAveraging(option: string, v: unknown, periodMs: number): GaugeAveraging {
  if (typeof v !== 'object' || v === null) {
    bad(option, `must be { kind: 'period' | 'instant' | 'boxcar' | 'iir', … }, got ${String(v)}`)
  }
  const a = v as { kind?: unknown; windowMs?: unknown; tauMs?: unknown }
  const kind = oneOf(`${option}.kind`, a.kind, ['period', 'instant', 'boxcar', 'iir'] as const)
  if (kind === 'boxcar') return { kind, windowMs: positive(`${option}.windowMs`, a.windowMs) }
  if (kind === 'iir') {
    const tauMs = positive(`${option}.tauMs`, a.tauMs)
    if (tauMs > MAX_IIR_TAU_PERIODS * periodMs) {
      bad(
        `${option}.tauMs`,
        `must be at most ${MAX_IIR_TAU_PERIODS} update periods (${MAX_IIR_TAU_PERIODS * periodMs} ms), got ${tauMs}: use a boxcar window or a longer period`,
      )
    }
    return { kind, tauMs }
  }
  return { kind }
}

function checkCache(v: unknown): GaugeCache | 'none' {
  if (v === 'none') return v
  if (typeof v !== 'object' || v === null) {
    bad('cache', `must be 'none' or { periodMs, bypassWhileCharging? }, got ${String(v)}`)
  }
  const c = v as { periodMs?: unknown; bypassWhileCharging?: unknown }
  const periodMs = positive('cache.periodMs', c.periodMs)
  const bypass = c.bypassWhileCharging ?? false
  if (typeof bypass !== 'boolean') {
    bad('cache.bypassWhileCharging', `must be true or false, got ${String(bypass)}`)
  }
  return { periodMs, bypassWhileCharging: bypass }
}

function mergeChargeCounter(
  base: GaugeModel['chargeCounter'],
  v: unknown,
): GaugeModel['chargeCounter'] {
  if (v === undefined) return base
  if (typeof v !== 'object' || v === null) {
    bad('chargeCounter', `must be { stepUah?, stepPercent?, refreshMs?, unit? }, got ${String(v)}`)
  }
  const c = v as ChargeCounterOptions
  if (c.stepUah !== undefined && c.stepPercent !== undefined) {
    bad('chargeCounter', 'takes stepUah or stepPercent, not both')
  }
  const stepUah =
    c.stepUah === undefined ? undefined : nonNegative('chargeCounter.stepUah', c.stepUah)
  const stepPercent =
    c.stepPercent === undefined ? undefined : positive('chargeCounter.stepPercent', c.stepPercent)
  if (stepPercent !== undefined && stepPercent > 100) {
    bad('chargeCounter.stepPercent', `must be at most 100, got ${stepPercent}`)
  }
  const steps =
    stepUah !== undefined
      ? { stepUah, stepPercent: undefined }
      : stepPercent !== undefined
        ? { stepUah: undefined, stepPercent }
        : { stepUah: base.stepUah, stepPercent: base.stepPercent }
  return {
    ...steps,
    refreshMs:
      c.refreshMs === undefined
        ? base.refreshMs
        : nonNegative('chargeCounter.refreshMs', c.refreshMs),
    unit:
      c.unit === undefined ? base.unit : oneOf('chargeCounter.unit', c.unit, ['uAh', 'percent']),
  }
}

/**
 * The gauge `options` describe: their profile (`typical` by default) with each given parameter
 * replacing the profile's. Throws `E_VDEV_BAD_OPTION` naming the option for an unknown option, an
 * unknown profile, or a value out of range.
 */
export function resolveGauge(options: FuelGaugeOptions = {}): GaugeModel {
  if (typeof options !== 'object' || options === null) {
    throw new EnergyError({
      code: SimErrors.BAD_OPTION,
      message: `fuel gauge: option 'sensors' must be an object, got ${String(options)}`,
      hint: 'See docs/virtual-device.md ("Fuel gauge") for the profiles, the options and their ranges.',
      details: { option: 'sensors' },
    })
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) bad(key, `is not an option (${[...OPTION_KEYS].join(', ')})`)
  }
  const o = options
  const profile =
    o.profile === undefined ? DEFAULT_GAUGE_PROFILE : oneOf('profile', o.profile, GAUGE_PROFILES)
  const base = GAUGE_PROFILE_MODELS[profile]
  if (o.updateHz !== undefined && o.periodMs !== undefined) {
    bad('updateHz', 'and sensors.periodMs set the same thing: give one')
  }
  const periodMs =
    o.updateHz !== undefined
      ? 1000 / positive('updateHz', o.updateHz)
      : o.periodMs !== undefined
        ? positive('periodMs', o.periodMs)
        : base.periodMs
  if (periodMs < 1 || periodMs > 3_600_000) {
    bad(
      o.updateHz !== undefined ? 'updateHz' : 'periodMs',
      `gives an update period of ${periodMs} ms; it must be from 1 ms to 1 h`,
    )
  }
  if (
    o.initialSoc !== undefined &&
    (!isNumber(o.initialSoc) || o.initialSoc < 0 || o.initialSoc > 1)
  ) {
    bad('initialSoc', `must be from 0 to 1, got ${String(o.initialSoc)}`)
  }
  if (o.chargeCurrentUa !== undefined) nonNegative('chargeCurrentUa', o.chargeCurrentUa)
  if (o.chargesWhenUnplugged !== undefined && typeof o.chargesWhenUnplugged !== 'boolean') {
    bad('chargesWhenUnplugged', `must be true or false, got ${String(o.chargesWhenUnplugged)}`)
  }
  if (
    o.node !== undefined &&
    (typeof o.node !== 'string' || !/^[\w.-]+$/.test(o.node) || /^\.+$/.test(o.node))
  ) {
    bad('node', `must be a directory name (letters, digits, '_', '-', '.'), got ${String(o.node)}`)
  }
  if (o.clockDrift !== undefined && (!isNumber(o.clockDrift) || Math.abs(o.clockDrift) >= 0.5)) {
    bad('clockDrift', `must be a number in (−0.5, 0.5), got ${String(o.clockDrift)}`)
  }
  return {
    profile,
    periodMs,
    averaging:
      o.averaging === undefined
        ? base.averaging
        : checkAveraging('averaging', o.averaging, periodMs),
    currentStepUa:
      o.currentStepUa === undefined
        ? base.currentStepUa
        : nonNegative('currentStepUa', o.currentStepUa),
    noiseUa: o.noiseUa === undefined ? base.noiseUa : nonNegative('noiseUa', o.noiseUa),
    currentSign:
      o.currentSign === undefined
        ? base.currentSign
        : oneOf('currentSign', o.currentSign, ['kernel', 'flipped']),
    currentUnit:
      o.currentUnit === undefined
        ? base.currentUnit
        : oneOf('currentUnit', o.currentUnit, ['uA', 'mA']),
    currentAvg:
      o.currentAvg === undefined
        ? base.currentAvg
        : o.currentAvg === 'none'
          ? 'none'
          : checkAveraging('currentAvg', o.currentAvg, periodMs),
    cache: o.cache === undefined ? base.cache : checkCache(o.cache),
    chargeCounter: mergeChargeCounter(base.chargeCounter, o.chargeCounter),
  }
}

/**
 * `period`, `instant`, `iir:<tauMs>` or `boxcar:<windowMs>` (the CLI's `--gauge-averaging`) as a
 * {@link GaugeAveraging}; undefined when the text is none of these.
 */
export function parseGaugeAveraging(text: string): GaugeAveraging | undefined {
  if (text === 'period' || text === 'instant') return { kind: text }
  const m = /^(iir|boxcar):(\d+(?:\.\d+)?)$/.exec(text)
  if (m === null) return undefined
  const ms = Number(m[2])
  if (!(ms > 0)) return undefined
  return m[1] === 'iir' ? { kind: 'iir', tauMs: ms } : { kind: 'boxcar', windowMs: ms }
}
