/**
 * Human units for the edges (matcher messages, reporter, CLI). Internally everything is SI; these
 * pick a readable prefix and a fixed number of significant digits.
 */
import type { MethodEnergySource } from './energy.js'

const SMALLEST: readonly [number, string] = [1e-9, 'n']
const PREFIXES: ReadonlyArray<readonly [number, string]> = [
  [1, ''],
  [1e-3, 'm'],
  [1e-6, 'µ'],
  SMALLEST,
]

function withPrefix(value: number, unit: string, digits: number): string {
  if (!Number.isFinite(value)) return `${value} ${unit}`
  if (value === 0) return `0 ${unit}`
  const magnitude = Math.abs(value)
  // Below a nano-unit the figure is rounding noise around zero (a net energy of an idle test).
  if (magnitude < SMALLEST[0]) return `≈ 0 ${unit}`
  const [scale, prefix] = PREFIXES.find(([s]) => magnitude >= s) ?? SMALLEST
  const scaled = value / scale
  const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(Math.abs(scaled))))
  return `${scaled.toFixed(decimals)} ${prefix}${unit}`
}

/** `2.50 J`, `312 mJ`, `45.2 µJ` (three significant digits by default). */
export function formatJoules(energyJ: number, digits = 3): string {
  return withPrefix(energyJ, 'J', digits)
}

/**
 * A figure with its 95% interval: `884 mJ ± 10.3 µJ` when the interval is symmetric (the
 * half-width in its own unit, so a tiny one stays readable), else `13.6 mJ (95% 13.2 mJ – 14.1 mJ)`.
 */
export function formatJoulesWithInterval(
  energyJ: number,
  interval: { readonly low: number; readonly high: number; readonly level: number } | undefined,
): string {
  const value = formatJoules(energyJ)
  if (interval === undefined) return value
  const half = (interval.high - interval.low) / 2
  const skew = Math.abs((interval.high + interval.low) / 2 - energyJ)
  const level = Math.round(interval.level * 100)
  if (skew <= 1e-6 * Math.max(Math.abs(energyJ), half, Number.MIN_VALUE)) {
    return `${value} ± ${formatJoules(half, 2)}${level === 95 ? '' : ` (${level}%)`}`
  }
  return `${value} (${level}% ${formatJoules(interval.low)} – ${formatJoules(interval.high)})`
}

/** `1.20 W`, `350 mW`. */
export function formatWatts(powerW: number, digits = 3): string {
  return withPrefix(powerW, 'W', digits)
}

/** `1.50 s`, `250 ms`, `2m 05s`. */
export function formatSeconds(durationS: number): string {
  if (!Number.isFinite(durationS)) return `${durationS} s`
  if (durationS >= 60) {
    const minutes = Math.floor(durationS / 60)
    const rest = Math.round(durationS - minutes * 60)
    return `${minutes}m ${String(rest).padStart(2, '0')}s`
  }
  return withPrefix(durationS, 's', 3)
}

/** `0.042%` style percentages with enough digits to be non-zero when the value is. */
export function formatPercent(percent: number): string {
  if (percent === 0 || !Number.isFinite(percent)) return `${percent}%`
  const decimals = Math.max(1, 1 - Math.floor(Math.log10(Math.abs(percent))))
  return `${percent.toFixed(Math.min(decimals, 6))}%`
}

/**
 * Where a window's per-method energy came from, in a few words: `SoC power rails`, or `CPU model
 * calibrated on the phone` (with busy loops, or over the run's windows) / `CPU model at the
 * profile's currents as shipped (not calibrated: ±30%)`, and the profile's origin. Each phone's
 * scales are in the reporter's summary (`summary.cpuModel`).
 */
export function describeMethodEnergy(source: MethodEnergySource): string {
  if (source.kind === 'rails') return 'SoC power rails'
  const how =
    source.calibration === 'active'
      ? 'calibrated on the phone'
      : source.calibration === 'passive'
        ? "calibrated over the run's windows"
        : "at the profile's currents as shipped (not calibrated: ±30%)"
  return `CPU model ${how}${source.profile === undefined ? '' : `; profile: ${source.profile}`}`
}
