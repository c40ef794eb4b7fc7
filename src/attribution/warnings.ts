/**
 * Warnings that reflect what went wrong in the papers: undersampling (EDATA), energy the app's own
 * samples cannot see (EDATA's wakelock case study), charging, debuggable builds and full method
 * tracing inflating energy (PETrA / Android docs), sensors too slow for the window.
 */
import type { EnergyWarning } from '../model/energy.js'

export const AttributionWarnings = {
  /** Too few stack samples in the window for per-method figures to mean much. */
  UNDERSAMPLED: 'W_UNDERSAMPLED',
  /** The samples' CPU time is far below the app's CPU time (samples were lost or the rate is too low). */
  CPU_UNDERSAMPLED: 'W_CPU_UNDERSAMPLED',
  /** Device energy far exceeds what was attributed to the app's methods (wakelock, radio, another app). */
  INVISIBLE_ENERGY: 'W_INVISIBLE_ENERGY',
  /** The device was charging during the window: the battery-side sensor does not see the load. */
  CHARGING: 'W_CHARGING',
  /** The app is a debuggable build: ART runs it slower and hotter than release. */
  DEBUGGABLE: 'W_DEBUGGABLE',
  /** Full method tracing (instrumentation) was on: tracing overhead inflates the energy. */
  FULL_TRACING: 'W_FULL_TRACING',
  /** The power sensor updated too few times in the window to resolve it. */
  SLOW_SENSOR: 'W_SLOW_SENSOR',
  /** The method trace buffer overflowed; the end of the window has no calls. */
  TRACE_OVERFLOW: 'W_TRACE_OVERFLOW',
  /** The profiler reported lost samples. */
  LOST_SAMPLES: 'W_LOST_SAMPLES',
  /** Net energy is negative: the baseline is higher than what the test drew. */
  NEGATIVE_NET: 'W_NEGATIVE_NET',
} as const satisfies Record<string, `W_${string}`>

/** What the warnings look at. Every field is optional: absent facts raise no warning. */
export interface WarningFacts {
  /** Window length, s. */
  readonly durationS: number
  /** Real sensor updates per second in the window, Hz (`TestEnergy.sensorRateHz`). */
  readonly sensorRateHz?: number
  /** Gross − baseline, J. */
  readonly netEnergyJ?: number
  /** Net energy charged to methods (local + async), J. */
  readonly attributedEnergyJ?: number
  /** Stack samples in the window. */
  readonly stackSamples?: number
  /** CPU time the stack samples stand for (Σ periods), s. */
  readonly sampledCpuTimeS?: number
  /** The app's CPU time in the window from an independent source (/proc/<pid>/stat), s. */
  readonly appCpuTimeS?: number
  readonly lostSamples?: number
  readonly traceMode?: 'sampling' | 'instrumentation'
  readonly traceOverflowed?: boolean
  readonly charging?: boolean
  readonly debuggable?: boolean
}

export interface WarningThresholds {
  /** Fewer stack samples than this per window → `W_UNDERSAMPLED`. @default 200 */
  readonly minStackSamples?: number
  /** Sampled CPU time below this share of the app's CPU time → `W_CPU_UNDERSAMPLED`. @default 0.5 */
  readonly minCpuCoverage?: number
  /** Attributed below this share of net energy → `W_INVISIBLE_ENERGY`. @default 0.5 */
  readonly minAttributedShare?: number
  /** Net energy below this is too small to judge visibility, J. @default 0.01 */
  readonly minNetForVisibilityJ?: number
  /** Fewer real sensor updates than this in the window → `W_SLOW_SENSOR`. @default 5 */
  readonly minSensorUpdates?: number
}

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`

/** The warnings a window's facts call for, in a stable order. */
export function attributionWarnings(
  facts: WarningFacts,
  thresholds: WarningThresholds = {},
): EnergyWarning[] {
  const minStackSamples = thresholds.minStackSamples ?? 200
  const minCpuCoverage = thresholds.minCpuCoverage ?? 0.5
  const minAttributedShare = thresholds.minAttributedShare ?? 0.5
  const minNetForVisibilityJ = thresholds.minNetForVisibilityJ ?? 0.01
  const minSensorUpdates = thresholds.minSensorUpdates ?? 5
  const out: EnergyWarning[] = []
  if (facts.charging === true) {
    out.push({
      code: AttributionWarnings.CHARGING,
      severity: 'error',
      message:
        'The device was charging during the window, so battery-side power readings do not show the load. Unplug USB power (or `dumpsys battery unplug`) and measure again.',
    })
  }
  if (facts.debuggable === true) {
    out.push({
      code: AttributionWarnings.DEBUGGABLE,
      severity: 'warning',
      message:
        'The app under test is a debuggable build; ART disables optimisations for it, so energy is higher than in release. Test a release or profileable build.',
    })
  }
  if (facts.traceMode === 'instrumentation') {
    out.push({
      code: AttributionWarnings.FULL_TRACING,
      severity: 'warning',
      message:
        'Full method tracing was on: every call is instrumented, which inflates both time and energy. Use sampling (`am profile start --sampling`) or simpleperf for energy figures.',
    })
  }
  if (facts.traceOverflowed === true) {
    out.push({
      code: AttributionWarnings.TRACE_OVERFLOW,
      severity: 'warning',
      message:
        'The method trace buffer overflowed, so calls near the end of the window are missing and their energy is unattributed. Raise the buffer size or shorten the window.',
    })
  }
  if (facts.sensorRateHz !== undefined && facts.durationS > 0) {
    const updates = facts.sensorRateHz * facts.durationS
    if (updates < minSensorUpdates) {
      out.push({
        code: AttributionWarnings.SLOW_SENSOR,
        severity: 'warning',
        message: `The power sensor updated ${Math.round(updates)} times in this ${facts.durationS.toFixed(2)} s window (${facts.sensorRateHz.toFixed(2)} Hz); at least ${minSensorUpdates} are needed to resolve it. Lengthen the window, repeat the test, or use a faster source (ODPM rails, external meter).`,
      })
    }
  }
  if (facts.stackSamples !== undefined && facts.stackSamples < minStackSamples) {
    out.push({
      code: AttributionWarnings.UNDERSAMPLED,
      severity: 'warning',
      message: `Only ${facts.stackSamples} stack samples in the window (< ${minStackSamples}); per-method figures have wide intervals. Raise the sampling rate or repeat the test.`,
    })
  }
  if (
    facts.sampledCpuTimeS !== undefined &&
    facts.appCpuTimeS !== undefined &&
    facts.appCpuTimeS > 0 &&
    facts.sampledCpuTimeS < minCpuCoverage * facts.appCpuTimeS
  ) {
    out.push({
      code: AttributionWarnings.CPU_UNDERSAMPLED,
      severity: 'warning',
      message: `The stack samples account for ${facts.sampledCpuTimeS.toFixed(3)} s of CPU but the app used ${facts.appCpuTimeS.toFixed(3)} s (${pct(facts.sampledCpuTimeS / facts.appCpuTimeS)}); threads were missed or samples lost. Sample all threads and check for lost samples.`,
    })
  }
  if (facts.lostSamples !== undefined && facts.lostSamples > 0) {
    out.push({
      code: AttributionWarnings.LOST_SAMPLES,
      severity: 'info',
      message: `The profiler lost ${facts.lostSamples} samples; per-method times are underestimated.`,
    })
  }
  if (facts.netEnergyJ !== undefined && facts.netEnergyJ < 0) {
    out.push({
      code: AttributionWarnings.NEGATIVE_NET,
      severity: 'warning',
      message: `Net energy is negative (${facts.netEnergyJ.toFixed(4)} J): the idle baseline is higher than what the test drew. Re-measure the idle window right before the test.`,
    })
  }
  if (
    facts.netEnergyJ !== undefined &&
    facts.attributedEnergyJ !== undefined &&
    facts.netEnergyJ > minNetForVisibilityJ &&
    facts.attributedEnergyJ < minAttributedShare * facts.netEnergyJ
  ) {
    out.push({
      code: AttributionWarnings.INVISIBLE_ENERGY,
      severity: 'warning',
      message: `Only ${pct(Math.max(0, facts.attributedEnergyJ) / facts.netEnergyJ)} of the net energy (${facts.netEnergyJ.toFixed(3)} J) was attributed to the app's methods; the rest happened while no app code ran (a held wakelock, radio or GPS left on, another process). Check wakelocks (dumpsys power) and background work.`,
    })
  }
  return out
}
