/**
 * Sampling with regression power (vLens §3.2.2 applied to sensor intervals): instead of EDATA's
 * "power in effect at the sample" (Eq. 3.7), each method's power is fitted by robust regression of
 * the energy of every sensor interval (between consecutive readings) on the CPU time the stack
 * samples give each method in that interval. A sample is then worth `power(leaf) × period`; local
 * energy sums a method's leaf samples, non-local the samples where it is below the leaf. This
 * resolves methods that switch faster than the sensor updates, provided the sensor's interval
 * energy is right: cumulative counters (ODPM) and averaging gauges, not instantaneous readings.
 */
import type { EnergyWindow, MethodEnergy } from '../model/energy.js'
import { methodEnergy } from '../model/build.js'
import type { StackSampleSet } from '../model/samples.js'
import { NS_PER_S } from '../model/units.js'
import { sensorIntervalBounds, type EnergyCurve } from './curve.js'
import { AttributionErrors, attributionError } from './errors.js'
import { attributeRegression, type RegressionAttribution } from './regression.js'
import { netEnergyJ } from './_parts.js'
import type { TailCharge } from './tails.js'

export interface SamplingRegressionOptions {
  readonly window: EnergyWindow
  /** @default 0 */
  readonly baselinePowerW?: number
  /** @default [] */
  readonly tails?: readonly TailCharge[]
  /** CPU time per sample when a sample has no `periodNs`, ns. @default window / samples */
  readonly samplePeriodNs?: number
  /**
   * Methods with the most local time get their own column; the rest share one `(other methods)`
   * column. Keep it well below the number of sensor intervals. @default 20
   */
  readonly maxMethods?: number
  /**
   * Fit a background power (W) drawn whether or not the app runs (other processes, a held
   * wakelock), as a column of interval durations; its energy stays unattributed. Needs intervals
   * where the app's CPU time varies, else the design is rank-deficient. @default false
   */
  readonly background?: boolean
}

export interface SamplingRegressionAttribution {
  /** `attribution: 'regression'`; methods in the shared column get that column's power. */
  readonly methods: readonly MethodEnergy[]
  /** The fit over sensor intervals (coefficients in W, outlier intervals). */
  readonly fit: RegressionAttribution
  /** Sensor intervals used as regression rows. */
  readonly intervals: number
  /** Σ local energy, J. */
  readonly attributedEnergyJ: number
  /** Fitted background power, W (0 without `background`). */
  readonly backgroundPowerW: number
}

const OTHER = '(other methods)'
const BACKGROUND = '(background)'

export function attributeSamplesByRegression(
  set: StackSampleSet,
  curve: EnergyCurve,
  options: SamplingRegressionOptions,
): SamplingRegressionAttribution {
  const { window } = options
  if (set.clock !== curve.clock || set.clock !== window.clock) {
    throw attributionError(
      AttributionErrors.CLOCK_MISMATCH,
      `stack samples are on ${set.clock}, power on ${curve.clock}, window on ${window.clock}`,
      'Map the samples and the power data onto the window clock before attribution.',
      { format: 'stack samples' },
    )
  }
  const baselineW = options.baselinePowerW ?? 0
  const tails = options.tails ?? []
  const maxMethods = options.maxMethods ?? 20
  const inWindow = set.samples
    .filter((s) => s.frames.length > 0 && s.tNs >= window.startNs && s.tNs < window.endNs)
    .sort((a, b) => a.tNs - b.tNs)
  const periodOf = (p: number | undefined): number =>
    p ?? options.samplePeriodNs ?? (window.endNs - window.startNs) / Math.max(1, inWindow.length)

  // Sensor intervals: window edges plus every reading inside.
  const bounds = sensorIntervalBounds(curve, window)
  // Local time per method overall, to pick the columns.
  const localNs = new Map<string, number>()
  for (const s of inWindow) {
    const leaf = s.frames[0] as string
    localNs.set(leaf, (localNs.get(leaf) ?? 0) + periodOf(s.periodNs))
  }
  const ranked = [...localNs].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  const own = new Set(ranked.slice(0, maxMethods).map(([m]) => m))
  const column = (m: string): string => (own.has(m) ? m : OTHER)

  const rows: Array<{ label: string; energyJ: number; cpuTimeS: Record<string, number> }> = []
  let k = 0
  for (let i = 0; i + 1 < bounds.length; i++) {
    const a = bounds[i] as number
    const b = bounds[i + 1] as number
    const cpuTimeS: Record<string, number> = {}
    while (k < inWindow.length && (inWindow[k]?.tNs ?? Infinity) < b) {
      const s = inWindow[k]
      k++
      if (s === undefined) continue
      const c = column(s.frames[0] as string)
      cpuTimeS[c] = (cpuTimeS[c] ?? 0) + periodOf(s.periodNs) / NS_PER_S
    }
    const energyJ = netEnergyJ({ curve, baselinePowerW: baselineW, tails }, a, b)
    if (options.background === true) cpuTimeS[BACKGROUND] = (b - a) / NS_PER_S
    rows.push({ label: `sensor interval ${i} (${a}–${b} ns)`, energyJ, cpuTimeS })
  }
  const fit = attributeRegression(rows)
  const powerOf = new Map(fit.coefficients.map((c) => [c.method, c.powerW]))

  const local = new Map<string, number>()
  const nonLocal = new Map<string, number>()
  const localSamples = new Map<string, number>()
  const nonLocalSamples = new Map<string, number>()
  const seen = new Set<string>()
  for (const s of inWindow) {
    const leaf = s.frames[0] as string
    const e = ((powerOf.get(column(leaf)) ?? 0) * periodOf(s.periodNs)) / NS_PER_S
    local.set(leaf, (local.get(leaf) ?? 0) + e)
    localSamples.set(leaf, (localSamples.get(leaf) ?? 0) + 1)
    seen.clear()
    seen.add(leaf)
    for (let f = 1; f < s.frames.length; f++) {
      const m = s.frames[f] as string
      if (seen.has(m)) continue
      seen.add(m)
      nonLocal.set(m, (nonLocal.get(m) ?? 0) + e)
      nonLocalSamples.set(m, (nonLocalSamples.get(m) ?? 0) + 1)
    }
  }
  const names = new Set([...local.keys(), ...nonLocal.keys()])
  const methods: MethodEnergy[] = []
  let attributedEnergyJ = 0
  for (const method of names) {
    const l = local.get(method) ?? 0
    attributedEnergyJ += l
    methods.push(
      methodEnergy({
        method,
        attribution: 'regression',
        localEnergyJ: l,
        nonLocalEnergyJ: nonLocal.get(method) ?? 0,
        localSamples: localSamples.get(method) ?? 0,
        nonLocalSamples: nonLocalSamples.get(method) ?? 0,
        localTimeS: (localNs.get(method) ?? 0) / NS_PER_S,
      }),
    )
  }
  return {
    methods,
    fit,
    intervals: rows.length,
    attributedEnergyJ,
    backgroundPowerW: powerOf.get(BACKGROUND) ?? 0,
  }
}
