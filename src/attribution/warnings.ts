/**
 * Warnings that reflect what went wrong in the papers: undersampling (EDATA), energy the app's own
 * samples cannot see (EDATA's wakelock case study), charging, debuggable builds and full method
 * tracing inflating energy (PETrA / Android docs), sensors too slow for the window. A warning fires
 * only where it applies and says what would help there: none for a window in which the app ran no
 * code, none for a repetition of `energy.repeat` on what its mean already settles, and no advice to
 * switch to the power source already in use.
 */
import type { EnergyWarning, Interval } from '../model/energy.js'
import { formatJoules, formatWatts } from '../model/format.js'

export const AttributionWarnings = {
  /** Too few stack samples in the window for per-method figures to mean much. */
  UNDERSAMPLED: 'W_UNDERSAMPLED',
  /** The samples' CPU time is far below the app's CPU time (samples were lost or the rate is too low). */
  CPU_UNDERSAMPLED: 'W_CPU_UNDERSAMPLED',
  /** Energy methods could be charged with went to none (wakelock, radio, another app). */
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
  /** Net energy is negative beyond its noise: the baseline is higher than what the test drew. */
  NEGATIVE_NET: 'W_NEGATIVE_NET',
} as const satisfies Record<string, `W_${string}`>

/** Energy drawn above idle that no method was charged with, on one rail or group of rails. */
export interface UnchargedEnergy {
  /** `Modem`, `CPU rails`, … */
  readonly name: string
  readonly energyJ: number
}

/** What the warnings look at. Every field is optional: absent facts raise no warning. */
export interface WarningFacts {
  /** Window length, s. */
  readonly durationS: number
  /** Real sensor updates per second in the window, Hz (`TestEnergy.sensorRateHz`). */
  readonly sensorRateHz?: number
  /**
   * How the power source reports: `instant` power readings, or `cumulative` counters (ODPM rails)
   * whose energy between two readings is exact, so only the window's edges are interpolated.
   */
  readonly powerKind?: 'instant' | 'cumulative'
  /**
   * Share of the window inside the two sensor intervals its edges cut (0–1), whose energy is
   * interpolated; with `powerKind: 'cumulative'` it replaces the update count of `W_SLOW_SENSOR`.
   */
  readonly edgeShare?: number
  /**
   * Real sensor updates per second over the whole record, Hz: the rate `W_SLOW_SENSOR` names and
   * plans a longer window with when `edgeShare` decides (a short window alone tells it badly).
   */
  readonly recordRateHz?: number
  /**
   * The longest stretch between two readings over the whole record, s: what one edge can cut at
   * most, so the window length that keeps the edges under the threshold whatever its phase.
   */
  readonly recordLongestIntervalS?: number
  /** The power source's name (`odpm`, `fuel-gauge`, `external-meter`, …), for advice. */
  readonly powerSource?: string
  /**
   * The window is one repetition of `energy.repeat` (labelled `x #n`): the repetitions are judged
   * on their mean, whose interval already carries the sensor's and the sampler's imprecision.
   */
  readonly repetition?: boolean
  /** Gross − baseline, J. */
  readonly netEnergyJ?: number
  /** The idle baseline's power, W (for `W_NEGATIVE_NET`'s message). */
  readonly baselinePowerW?: number
  /**
   * The net energy's 95% interval from the idle phone's own noise, when the caller knows it:
   * `W_NEGATIVE_NET` fires only when all of it is below 0.
   */
  readonly netIntervalJ?: Interval
  /**
   * Without `netIntervalJ`: how far the net could be from 0 by chance (the window's own power
   * fluctuation and the figures' rounding), J. `W_NEGATIVE_NET` fires only below −netNoiseJ.
   */
  readonly netNoiseJ?: number
  /** The display rails' average power in the window, W, when the data has them. */
  readonly displayPowerW?: number
  /** Net energy charged to methods (local + async), J. */
  readonly attributedEnergyJ?: number
  /**
   * The energy methods can be charged with, J: with per-rail data, what the CPU rails drew above
   * their idle floor plus what radios, GPS and Bluetooth drew above theirs — the screen and other
   * rails no code is charged with are left out. @default netEnergyJ
   */
  readonly chargeableEnergyJ?: number
  /**
   * `chargeableEnergyJ` is the CPU power model's energy of the method data's threads (a phone
   * without rails), not what rails drew: what the methods did not get ran on threads the method
   * data saw but did not place.
   */
  readonly chargeableIsModelled?: boolean
  /** Where the chargeable energy no method got went, largest first (for the message). */
  readonly unchargedEnergy?: readonly UnchargedEnergy[]
  /**
   * What threads outside the method data drew of the CPU and SoC rails, per thread name, largest
   * first, from the CPU schedule (sched_switch): other processes, or app threads the method data
   * never saw. It is already left out of `chargeableEnergyJ`; the message names it.
   */
  readonly otherThreadsEnergy?: readonly UnchargedEnergy[]
  /** Stack samples in the window. */
  readonly stackSamples?: number
  /** CPU time the stack samples stand for (Σ periods), s. */
  readonly sampledCpuTimeS?: number
  /**
   * The option that sets the sampler's rate, named in `W_UNDERSAMPLED`'s advice (the plugin's
   * `samplingHz` for simpleperf).
   */
  readonly samplingOption?: { readonly name: string; readonly maxHz: number }
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
  /** Attributed below this share of chargeable energy → `W_INVISIBLE_ENERGY`. @default 0.5 */
  readonly minAttributedShare?: number
  /** Chargeable (or net) energy below this is too small to judge visibility, J. @default 0.01 */
  readonly minNetForVisibilityJ?: number
  /**
   * Fewer real sensor updates than this in the window → `W_SLOW_SENSOR`; for cumulative counters,
   * more than 1/this of the window interpolated at its edges. @default 5
   */
  readonly minSensorUpdates?: number
}

/** The label `energy.repeat` gives its windows: `scroll #1`, `scroll #2`, … */
export const REPETITION_LABEL = / #\d+$/

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`
const seconds = (s: number): string => `${s < 10 ? s.toFixed(2) : s.toFixed(1)} s`
const hz = (x: number): string => `${x < 10 ? x.toFixed(1) : x.toFixed(0)} Hz`
/** Power sources that are the fastest a test can have: switching source would not help. */
const FASTEST_SOURCES = new Set(['external-meter'])

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
        "Full method tracing was on: every call is instrumented, which inflates both time and energy. Use `execution: 'simpleperf'` or `'art-sampling'` for energy figures.",
    })
  }
  if (facts.traceOverflowed === true) {
    out.push({
      code: AttributionWarnings.TRACE_OVERFLOW,
      severity: 'warning',
      message:
        "The method trace buffer overflowed, so calls near the end of the window are missing and their energy is unattributed. Shorten the window, or sample with `execution: 'simpleperf'`.",
    })
  }
  const slow = slowSensor(facts, minSensorUpdates)
  if (slow !== undefined) out.push(slow)
  const under = undersampled(facts, minStackSamples)
  if (under !== undefined) out.push(under)
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
  const negative = negativeNet(facts)
  if (negative !== undefined) out.push(negative)
  const chargeable = facts.chargeableEnergyJ ?? facts.netEnergyJ
  if (
    chargeable !== undefined &&
    facts.attributedEnergyJ !== undefined &&
    chargeable > minNetForVisibilityJ &&
    facts.attributedEnergyJ < minAttributedShare * chargeable
  ) {
    const share = pct(Math.max(0, facts.attributedEnergyJ) / chargeable)
    const others = facts.otherThreadsEnergy
    const othersJ = (others ?? []).reduce((a, o) => a + o.energyJ, 0)
    const named = (others ?? [])
      .slice(0, 3)
      .map((o) => `${o.name} ${formatJoules(o.energyJ)}`)
      .join(', ')
    const notCounted =
      others === undefined
        ? 'the screen not counted'
        : `the screen and ${formatJoules(othersJ)} other threads drew on the CPUs${named === '' ? '' : ` (${named})`} not counted, from sched_switch`
    const what =
      facts.chargeableEnergyJ === undefined
        ? `the net energy (${formatJoules(chargeable)})`
        : facts.chargeableIsModelled === true
          ? `the ${formatJoules(chargeable)} of CPU energy the CPU model gave the app's threads (${othersJ > 0 ? `${formatJoules(othersJ)} of other threads not counted` : 'other threads not counted'})`
          : `the ${formatJoules(chargeable)} that the CPU, radios and GPS drew above idle (${notCounted})`
    const where = (facts.unchargedEnergy ?? [])
      .filter((u) => u.energyJ >= 0.01 * chargeable)
      .slice(0, 2)
      .map((u) => `${u.name} ${formatJoules(u.energyJ)}`)
    // With the schedule, another process's CPU time is already set apart: it is not the cause.
    const causes =
      facts.chargeableIsModelled === true
        ? "on the app's threads while the method recorder saw none of its code there (samples lost, or a rate too low for short bursts)"
        : others === undefined
          ? 'while no app code ran: a held wakelock, a radio or GPS left on, another process'
          : 'while neither app code nor another thread ran on the CPUs: a held wakelock keeping the SoC awake, a radio or GPS left on'
    out.push({
      code: AttributionWarnings.INVISIBLE_ENERGY,
      severity: 'warning',
      message: `Only ${share} of ${what} was charged to the app's methods; the rest${where.length > 0 ? ` (${where.join(', ')})` : ''} was drawn ${causes}. ${facts.chargeableIsModelled === true ? 'Raise samplingHz, or check the recorder’s lost samples.' : "Check wakelocks (`adb shell dumpsys power`) and the app's background work."}`,
    })
  }
  return out
}

/**
 * `W_SLOW_SENSOR`: for cumulative counters, too much of the window in the sensor intervals its
 * edges cut (the energy between readings is exact, only those parts are interpolated); for
 * instant readings, too few updates. Not for a repetition: the mean over repetitions averages the
 * edges out, and its interval shows how well.
 */
function slowSensor(facts: WarningFacts, minUpdates: number): EnergyWarning | undefined {
  const rate = facts.sensorRateHz
  if (facts.repetition === true || rate === undefined || !(facts.durationS > 0)) return undefined
  const window = seconds(facts.durationS)
  const repeat = 'or repeat it (`energy.repeat`) and judge the mean'
  if (facts.powerKind === 'cumulative' && facts.edgeShare !== undefined) {
    if (facts.edgeShare <= 1 / minUpdates) return undefined
    const railRateHz = facts.recordRateHz ?? rate
    // Each edge cuts at most the longest sensor interval, so a window of 2·min of them keeps the
    // edges under 1/min of it whatever its phase (the mean interval would not: polls slip).
    const longestS = facts.recordLongestIntervalS ?? (railRateHz > 0 ? 1 / railRateHz : undefined)
    const longer =
      longestS !== undefined
        ? `lengthen it to ≥ ${seconds(2 * minUpdates * longestS)} `
        : 'lengthen it '
    return {
      code: AttributionWarnings.SLOW_SENSOR,
      severity: 'warning',
      message: `${pct(facts.edgeShare)} of this ${window} window lies in the sensor intervals its edges cut (the power rails update at ${hz(railRateHz)}), whose energy is interpolated; ${longer}${repeat}.`,
    }
  }
  const updates = rate * facts.durationS
  if (updates >= minUpdates) return undefined
  const longer = rate > 0 ? `Lengthen it to ≥ ${seconds(minUpdates / rate)} ` : 'Lengthen it '
  const faster =
    facts.powerSource !== undefined && FASTEST_SOURCES.has(facts.powerSource)
      ? ''
      : ", or use a faster source (`power: 'odpm'` on a phone with power rails, or `'external-meter'`)"
  return {
    code: AttributionWarnings.SLOW_SENSOR,
    severity: 'warning',
    message: `The power sensor updated ${Math.round(updates) === 1 ? 'once' : `${Math.round(updates)} times`} in this ${window} window (${hz(rate)}); at least ${minUpdates} are needed to resolve it. ${longer}${repeat}${faster}.`,
  }
}

/**
 * `W_UNDERSAMPLED`: per-method figures from fewer samples than `min`. Not when the app ran no code
 * (no samples: there is nothing to split), nor for a repetition (methods are judged on the mean).
 * A note, not a warning: where a method's figure is judged, its own 95% interval carries the
 * sampler's imprecision (a limit inside it makes the matcher inconclusive and say how many
 * repetitions would decide); a short window whose methods nobody judges asks for no action.
 */
function undersampled(facts: WarningFacts, min: number): EnergyWarning | undefined {
  const n = facts.stackSamples
  if (n === undefined || n === 0 || n >= min || facts.repetition === true) return undefined
  const cpuS = facts.sampledCpuTimeS ?? 0
  const rateHz = cpuS > 0 ? n / cpuS : undefined
  const ran =
    rateHz === undefined
      ? ''
      : `: the app ran ≈ ${Math.round(cpuS * 1000)} ms of code, sampled at ${hz(rateHz)}`
  let advice = 'Repeat the window (`energy.repeat`) and judge the mean'
  const option = facts.samplingOption
  if (option !== undefined && rateHz !== undefined) {
    const neededHz = Math.ceil((rateHz * min) / n / 100) * 100
    advice =
      neededHz <= option.maxHz
        ? `Raise \`${option.name}\` to ≈ ${neededHz} Hz for ${min} samples here, or repeat the window (\`energy.repeat\`) and judge the mean`
        : `That is too little code for per-method figures at a practical \`${option.name}\` (≤ ${option.maxHz} Hz); to study its methods, repeat the window (\`energy.repeat\`, ≈ ${Math.ceil(min / n)} times) and judge the mean, or measure a longer stretch of that work`
  } else if (option !== undefined) {
    advice = `Raise \`${option.name}\` or repeat the window (\`energy.repeat\`) and judge the mean`
  }
  return {
    code: AttributionWarnings.UNDERSAMPLED,
    severity: 'info',
    message: `Only ${n} stack samples in the window, fewer than ${min}${ran}, so per-method figures have wide intervals. ${advice}.`,
  }
}

/** `W_NEGATIVE_NET`: only when the net is below 0 by more than its own noise. */
function negativeNet(facts: WarningFacts): EnergyWarning | undefined {
  const net = facts.netEnergyJ
  if (net === undefined || !(net < 0)) return undefined
  let noise: string
  if (facts.netIntervalJ !== undefined) {
    if (!(facts.netIntervalJ.high < 0)) return undefined
    noise = `95% interval ${formatJoules(facts.netIntervalJ.low)} to ${formatJoules(facts.netIntervalJ.high)}`
  } else {
    const noiseJ = facts.netNoiseJ ?? 0
    if (!(net < -noiseJ)) return undefined
    noise = `beyond its noise of ± ${formatJoules(noiseJ)}`
  }
  const baseline =
    facts.baselinePowerW === undefined
      ? 'its idle baseline'
      : `its idle baseline of ${formatWatts(facts.baselinePowerW)}`
  const display =
    facts.displayPowerW === undefined
      ? ''
      : `; the display drew ${formatWatts(facts.displayPowerW)} on average here`
  return {
    code: AttributionWarnings.NEGATIVE_NET,
    // A fact about the window (it drew less than the idle phone), not a fault: the reporter says
    // "below idle" on the test's row.
    severity: 'info',
    message: `Below idle: net energy is negative (${formatJoules(net)}, ${noise}): the phone drew less than ${baseline}${display}. Something on while the baseline was measured (the screen or its brightness, a radio) was off or lower here; judge such a window on \`scope: 'gross'\` or a rail (\`'rail:<name>'\`), or measure the baseline in the same state.`,
  }
}
