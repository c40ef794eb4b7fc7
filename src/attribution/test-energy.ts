/**
 * Per-test energy: integrate the power source over the window, subtract the idle baseline, and put
 * the figures in battery context. Attribution never knows where the data came from: it takes a
 * `PowerSeries` or `RailSeries[]` already on the window's clock.
 */
import type { BatteryContext, EnergyWindow, RailEnergy } from '../model/energy.js'
import type { PowerSeries, RailSeries } from '../model/samples.js'
import { NS_PER_S } from '../model/units.js'
import {
  powerCurve,
  railCurve,
  railsCurve,
  sensorIntervalBounds,
  type EdgePolicy,
  type EnergyCurve,
  type Integration,
} from './curve.js'
import { AttributionErrors, attributionError } from './errors.js'

/**
 * The idle baseline subtracted from gross energy.
 * - `idle-window`: mean power over an idle window measured before the test (same clock, same source).
 * - `configured`: a fixed idle power in W (e.g. from a device profile).
 * - `none`: baseline 0 W (net = gross).
 */
export type Baseline =
  | { readonly kind: 'idle-window'; readonly startNs: number; readonly endNs: number }
  | { readonly kind: 'configured'; readonly powerW: number }
  | { readonly kind: 'none' }

export interface TestEnergyInput {
  /** The test's energy window on the power data's clock. */
  readonly window: EnergyWindow
  /** An instantaneous power series, or cumulative rail counters (summed into a total). */
  readonly power: PowerSeries | readonly RailSeries[]
  /** Integration for instantaneous series. @default 'trapezoid' */
  readonly integration?: Integration
  /** Outside the readings. @default 'error' */
  readonly edges?: EdgePolicy
  /** @default { kind: 'none' } */
  readonly baseline?: Baseline
  /** Battery capacity in J (from the device or its profile), for battery context. */
  readonly batteryCapacityJ?: number
  /**
   * The power as an energy curve the caller built (a fuel gauge's refreshes shaped by a power
   * model: `gaugeCurve`); `power` still names the source. @default built from `power`
   */
  readonly curve?: EnergyCurve
}

/** Per-test figures, before any per-method attribution. */
export interface TestEnergy {
  readonly window: EnergyWindow
  /** The curve the figures were integrated from (reuse it for per-method attribution). */
  readonly curve: EnergyCurve
  readonly durationS: number
  /** ∫P over the window, J. */
  readonly grossEnergyJ: number
  /** Idle power, W (0 without a baseline). */
  readonly baselinePowerW: number
  /** `baselinePowerW × durationS`, J. */
  readonly baselineEnergyJ: number
  /** `grossEnergyJ − baselineEnergyJ`, J. */
  readonly netEnergyJ: number
  /** `grossEnergyJ / durationS`, W. */
  readonly averagePowerW: number
  /** Readings (or counter readings) that fall inside the window. */
  readonly sampleCount: number
  /** Real sensor updates per second inside the window (value changes, not repeated readings), Hz. */
  readonly sensorRateHz: number
  /** Per rail, when the source is cumulative rails (they sum to `grossEnergyJ`). */
  readonly rails: readonly RailEnergy[]
  readonly battery?: BatteryContext
}

export function isRailInput(power: TestEnergyInput['power']): power is readonly RailSeries[] {
  return Array.isArray(power)
}

/** Builds the energy curve for a test input (shared by per-test and per-method attribution). */
export function curveFor(
  input: Pick<TestEnergyInput, 'power' | 'integration' | 'edges' | 'curve'>,
): EnergyCurve {
  if (input.curve !== undefined) return input.curve
  const power = input.power
  const edges = input.edges ?? 'error'
  if (isRailInput(power)) return railsCurve(power, { edges })
  return powerCurve(power as PowerSeries, {
    edges,
    ...(input.integration === undefined ? {} : { integration: input.integration }),
  })
}

export function checkWindow(window: EnergyWindow, what = 'energy window'): void {
  if (!Number.isFinite(window.startNs) || !Number.isFinite(window.endNs)) {
    throw attributionError(
      AttributionErrors.NOT_FINITE,
      `${what} has a non-finite bound (${window.startNs} → ${window.endNs} ns)`,
      'Check the clock mapping that produced the window bounds.',
    )
  }
  if (!(window.endNs > window.startNs)) {
    throw attributionError(
      AttributionErrors.EMPTY_WINDOW,
      `${what} is empty or reversed (${window.startNs} → ${window.endNs} ns)`,
      'Open the window before the test body and close it after; a window must last longer than 0 ns.',
      { startNs: window.startNs, endNs: window.endNs },
    )
  }
}

/** Per-test energy: gross, baseline, net, average power, sample count, sensor rate, battery context. */
export function testEnergy(input: TestEnergyInput, curve = curveFor(input)): TestEnergy {
  const { window } = input
  checkWindow(window)
  if (curve.clock !== window.clock) {
    throw attributionError(
      AttributionErrors.CLOCK_MISMATCH,
      `the window is on clock ${window.clock} but ${curve.source} is on ${curve.clock}`,
      'Map the power data onto the window clock (src/device clock mapping) before attribution.',
      { format: curve.source },
    )
  }
  const durationNs = window.endNs - window.startNs
  const durationS = durationNs / NS_PER_S
  const grossEnergyJ = curve.energyJ(window.startNs, window.endNs)
  const baselinePowerW = baselinePower(input.baseline ?? { kind: 'none' }, curve)
  const baselineEnergyJ = baselinePowerW * durationS
  const rails: RailEnergy[] = []
  const power = input.power
  if (isRailInput(power)) {
    for (const r of power) {
      const c = railCurve(r, { edges: input.edges ?? 'error' })
      rails.push({
        rail: r.rail,
        ...(r.subsystem === undefined ? {} : { subsystem: r.subsystem }),
        energyJ: c.energyJ(window.startNs, window.endNs),
      })
    }
  }
  const averagePowerW = grossEnergyJ / durationS
  const capacityJ = input.batteryCapacityJ
  let battery: BatteryContext | undefined
  if (capacityJ !== undefined) {
    if (!(capacityJ > 0) || !Number.isFinite(capacityJ)) {
      throw attributionError(
        AttributionErrors.INVALID_OPTION,
        `battery capacity must be a positive number of joules, got ${capacityJ}`,
        'Pass the capacity in J (mAh × 3.6 × nominal volts; see units.mAhToJ).',
      )
    }
    battery = {
      capacityJ,
      percentOfCapacity: (grossEnergyJ / capacityJ) * 100,
      percentPerHour: ((averagePowerW * 3600) / capacityJ) * 100,
    }
  }
  return {
    window,
    curve,
    durationS,
    grossEnergyJ,
    baselinePowerW,
    baselineEnergyJ,
    netEnergyJ: grossEnergyJ - baselineEnergyJ,
    averagePowerW,
    sampleCount: curve.countReadings(window.startNs, window.endNs),
    sensorRateHz: curve.countUpdates(window.startNs, window.endNs) / durationS,
    rails,
    ...(battery === undefined ? {} : { battery }),
  }
}

function baselinePower(baseline: Baseline, curve: EnergyCurve): number {
  switch (baseline.kind) {
    case 'none':
      return 0
    case 'configured':
      if (!Number.isFinite(baseline.powerW) || baseline.powerW < 0) {
        throw attributionError(
          AttributionErrors.INVALID_OPTION,
          `configured baseline power must be a finite number ≥ 0 W, got ${baseline.powerW}`,
          'Configure the idle power in watts (e.g. 0.35), or measure an idle window instead.',
        )
      }
      return baseline.powerW
    case 'idle-window': {
      checkWindow({ clock: curve.clock, ...baseline }, 'idle window')
      const e = curve.energyJ(baseline.startNs, baseline.endNs)
      return (e * NS_PER_S) / (baseline.endNs - baseline.startNs)
    }
  }
}

/**
 * The idle level of a window, W: the time-weighted median of the average power over its sensor
 * intervals (between consecutive readings, clipped to the window). Unlike the mean, a burst of
 * work inside an otherwise idle window — the app still finishing its start-up, a periodic job —
 * does not raise it, so a measured idle baseline is what the phone draws when nothing happens.
 */
export function idlePowerW(
  input: Pick<TestEnergyInput, 'power' | 'integration' | 'window'>,
): number {
  checkWindow(input.window, 'idle window')
  return medianIntervalPowerW(curveFor({ ...input, edges: 'hold' }), input.window)
}

/** `idlePowerW` rail by rail (rail name → W), for a baseline kept per rail. */
export function idleRailPowersW(
  rails: readonly RailSeries[],
  window: EnergyWindow,
): Map<string, number> {
  checkWindow(window, 'idle window')
  return new Map(
    rails.map((r) => [r.rail, medianIntervalPowerW(railCurve(r, { edges: 'hold' }), window)]),
  )
}

/** Time-weighted median of the average power over the window's sensor intervals, W. */
function medianIntervalPowerW(curve: EnergyCurve, window: EnergyWindow): number {
  const bounds = sensorIntervalBounds(curve, window)
  const intervals: Array<{ powerW: number; ns: number }> = []
  for (let j = 0; j + 1 < bounds.length; j++) {
    const a = bounds[j] as number
    const b = bounds[j + 1] as number
    intervals.push({ powerW: (curve.energyJ(a, b) * NS_PER_S) / (b - a), ns: b - a })
  }
  intervals.sort((x, y) => x.powerW - y.powerW)
  const half = (window.endNs - window.startNs) / 2
  let seen = 0
  for (const i of intervals) {
    seen += i.ns
    if (seen >= half) return i.powerW
  }
  return intervals[intervals.length - 1]?.powerW ?? 0
}
