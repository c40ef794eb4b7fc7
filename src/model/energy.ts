/**
 * The one result model. `EnergyResult` is plain, readonly, versioned JSON: it travels from the
 * Vitest worker to the reporter through `task.meta`, so it holds no classes, Maps or bigints.
 */
import type { ClockName } from './clock.js'
import type { CallTreeNode, PowerTimeline } from './timeline.js'

export const SCHEMA_VERSION = 1 as const

/** A two-sided interval, 95% unless `level` says otherwise. */
export interface Interval {
  readonly low: number
  readonly high: number
  /** Confidence level, e.g. 0.95. */
  readonly level: number
}

/** How a per-method figure was obtained. */
export type AttributionMethod = 'interval' | 'sampling' | 'regression'

export interface MethodEnergy {
  /** Fully qualified `com.example.trails.FeedAdapter.bind`. */
  readonly method: string
  readonly attribution: AttributionMethod
  /** Energy spent while this method was the running (leaf / exclusive) frame. */
  readonly localEnergyJ: number
  /** Energy spent in its callees while it was on the stack. */
  readonly nonLocalEnergyJ: number
  /** Always `localEnergyJ + nonLocalEnergyJ`; build with `methodEnergy()` to keep it so. */
  readonly inclusiveEnergyJ: number
  /** 95% interval of the inclusive energy, when the method gives one. */
  readonly inclusiveIntervalJ?: Interval
  /** 95% interval of the local energy, when the method gives one. */
  readonly localIntervalJ?: Interval
  /** Device energy this method caused after it ran (radio tail, GPS left on), eprof-style. */
  readonly asyncEnergyJ: number
  /** Calls seen (interval method), or samples with the method on the stack (sampling). */
  readonly calls?: number
  readonly localSamples?: number
  readonly nonLocalSamples?: number
  /** Exclusive / inclusive time on CPU or on the wall clock, when known. */
  readonly localTimeS?: number
  readonly inclusiveTimeS?: number
  /** Red/yellow/green class from the spectrum classifier, when it ran. */
  readonly color?: MethodColor
}

export type MethodColor = 'red' | 'yellow' | 'green' | 'uncolored'

/** Hardware component names used in breakdowns. */
export type Component =
  | 'cpu'
  | 'screen'
  | 'wifi'
  | 'cellular'
  | 'gps'
  | 'bluetooth'
  | 'gpu'
  | 'memory'
  | 'camera'
  | 'audio'
  | 'idle'
  | 'other'

export interface ComponentEnergy {
  readonly component: Component
  readonly energyJ: number
}

export interface RailEnergy {
  readonly rail: string
  readonly subsystem?: string
  readonly energyJ: number
}

export type WarningSeverity = 'info' | 'warning' | 'error'

export interface EnergyWarning {
  /** Stable code, e.g. `W_UNDERSAMPLED`, `W_CHARGING`, `W_DEBUGGABLE`. */
  readonly code: `W_${string}`
  readonly severity: WarningSeverity
  readonly message: string
}

/** Which collectors produced a result. */
/** Where the methods' energy came from (per-method figures mean a method's own CPU work). */
export interface MethodEnergySource {
  /**
   * `rails`: the SoC's measured power rails (ODPM), divided by what ran on each CPU;
   * `cpu-model`: no rails: the CPU's power modelled from what ran on each CPU at which frequency,
   * priced with the phone's power profile.
   */
  readonly kind: 'rails' | 'cpu-model'
  /** `cpu-model`: where the power profile came from. */
  readonly profile?: string
  /**
   * `cpu-model`: `active` — scaled per cluster by a calibration against this phone's fuel gauge;
   * `nominal` — the profile's currents as shipped (real silicon departs from them by 10–30%).
   */
  readonly calibration?: 'active' | 'passive' | 'nominal'
  /** `cpu-model`: each cluster's scale on the profile's currents (1 = as shipped), little first. */
  readonly clusterScales?: readonly number[]
  /**
   * `cpu-model`: the calibrated scale on `cpu.active` (drawn once while any CPU runs); absent when
   * the profile's current was kept.
   */
  readonly activeScale?: number
  /** What the calibration could not tell, or why the profile was used as shipped. */
  readonly note?: string
  /**
   * `cpu-model`: what this window adds to the run's fit of the model against the fuel gauge: the
   * gauge's energy less the modelled screen, radios and GPS (`measuredJ`) and its noise, and the
   * model's energy per cluster and for `cpu.active` at the profile's currents, J.
   */
  readonly observation?: CpuModelObservation
  /**
   * `cpu-model`: the model fitted to the fuel gauge over this phone's windows of the run so far,
   * this one included (a passive calibration: what the test windows alone can tell).
   */
  readonly runFit?: CpuModelRunFit
}

/** One window's share of a passive calibration (`MethodEnergySource.observation`). */
export interface CpuModelObservation {
  readonly durationS: number
  readonly measuredJ: number
  readonly noiseJ: number
  readonly clusterJ: readonly number[]
  readonly activeJ: number
}

/** The CPU model fitted over a run's windows on one phone (`MethodEnergySource.runFit`). */
export interface CpuModelRunFit {
  readonly windows: number
  /** Per cluster, the fitted scale on the profile's currents, null where the windows cannot tell. */
  readonly clusterScales: readonly (number | null)[]
  readonly clusterSe: readonly (number | null)[]
  /** The CPU model's share of the windows' measured energy (small: the screen dominates). */
  readonly cpuShare: number
  /** Whether the told scales agree with the phone's active calibration (within 2 standard errors). */
  readonly agreesWithCalibration?: boolean
}

export interface SourceInfo {
  /** e.g. `odpm`, `fuel-gauge`, `batterystats-model`, `external-meter`. */
  readonly power: string
  /** e.g. `art-sampling`, `art-instrumentation`, `simpleperf`, or absent. */
  readonly execution?: string
  /** Where the methods' energy came from, when the window has per-method figures. */
  readonly methodEnergy?: MethodEnergySource
  /** Sensor update rate actually observed in the window. */
  readonly sensorRateHz?: number
  readonly sampleCount: number
}

export interface BatteryContext {
  readonly capacityJ: number
  /** Share of the battery's capacity this test used, in percent (0–100). */
  readonly percentOfCapacity: number
  /** Percent of the battery an hour at this average power would use. */
  readonly percentPerHour: number
}

export interface EnergyWindow {
  readonly clock: ClockName
  readonly startNs: number
  readonly endNs: number
}

/** Energy accounting that conserves: attributed + unattributed + baseline = gross. */
export interface EnergyAccounting {
  /** Everything the device drew in the window. */
  readonly grossEnergyJ: number
  /** Idle power measured before the test (or configured). */
  readonly baselinePowerW: number
  /** `baselinePowerW × duration`. */
  readonly baselineEnergyJ: number
  /** `grossEnergyJ − baselineEnergyJ`: what the test itself cost. */
  readonly netEnergyJ: number
  /** Net energy charged to methods (local energy summed, plus async). */
  readonly attributedEnergyJ: number
  /** `netEnergyJ − attributedEnergyJ`. */
  readonly unattributedEnergyJ: number
}

interface EnergyResultBase {
  readonly schemaVersion: typeof SCHEMA_VERSION
  /** Label of the window (test name, or the name given to `energy.measure`). */
  readonly label: string
}

export interface MeasuredEnergyResult extends EnergyResultBase, EnergyAccounting {
  readonly status: 'measured'
  readonly window: EnergyWindow
  readonly durationS: number
  readonly averagePowerW: number
  /** 95% interval of the net energy, when the source allows one. */
  readonly netIntervalJ?: Interval
  /**
   * Energy above idle drawn in this window by a radio or the GPS that another test switched on
   * (`timeline.carriedIn` says which, and the method charged): part of `netEnergyJ` and
   * `grossEnergyJ`, which are the phone's, but judged apart from this test's own energy — the net
   * and gross figures of matchers and budgets leave it out, so a verdict does not depend on which
   * test ran before on the phone. Absent when none. Added within schema version 1.
   */
  readonly carriedOverJ?: number
  readonly components: readonly ComponentEnergy[]
  readonly rails: readonly RailEnergy[]
  /** Sorted by inclusive energy, highest first. */
  readonly methods: readonly MethodEnergy[]
  readonly sources: SourceInfo
  readonly battery?: BatteryContext
  readonly warnings: readonly EnergyWarning[]
  /**
   * Device the window ran on; `adbServer` (`host:port`) names the adb server it is attached to
   * (phones on several lab hosts can share a serial). Added within schema version 1.
   */
  readonly device?: { readonly serial: string; readonly model: string; readonly adbServer?: string }
  /** The sensor's power over the window, thinned, and the app's method activity (for reports). */
  readonly timeline?: PowerTimeline
  /** Where the method energy went, by callers: root → thread → frames, trimmed. */
  readonly callTree?: CallTreeNode
  /**
   * Set on the window of `energy.baseline()`: the idle phone, measured as the reference for the
   * test's later windows. It is not the test's work, so the test's net energy and its budget figure
   * leave it out (`workWindows`). Added within schema version 1: older readers ignore it.
   */
  readonly idleBaseline?: true
}

export interface SkippedEnergyResult extends EnergyResultBase {
  readonly status: 'skipped'
  readonly reason: string
}

export interface FailedEnergyResult extends EnergyResultBase {
  readonly status: 'failed'
  readonly error: { readonly code: string; readonly message: string; readonly hint: string }
  readonly warnings: readonly EnergyWarning[]
}

export type EnergyResult = MeasuredEnergyResult | SkippedEnergyResult | FailedEnergyResult

/**
 * The windows a test's net energy and budget figure sum: its measured windows but the idle
 * reference `energy.baseline()` measured (`idleBaseline`), in order.
 */
export function workWindows(results: readonly EnergyResult[]): MeasuredEnergyResult[] {
  return results.filter(
    (r): r is MeasuredEnergyResult => r.status === 'measured' && r.idleBaseline !== true,
  )
}

/**
 * A window's net energy that is the test's own: without what a radio or the GPS another test left
 * on drew in it (`carriedOverJ`), which matchers and budgets judge apart. With its interval, when
 * the window has one.
 */
export function ownNetEnergy(r: MeasuredEnergyResult): {
  readonly valueJ: number
  readonly intervalJ?: NonNullable<MeasuredEnergyResult['netIntervalJ']>
} {
  const carriedJ = r.carriedOverJ ?? 0
  return {
    valueJ: r.netEnergyJ - carriedJ,
    ...(r.netIntervalJ === undefined
      ? {}
      : {
          intervalJ: {
            ...r.netIntervalJ,
            low: r.netIntervalJ.low - carriedJ,
            high: r.netIntervalJ.high - carriedJ,
          },
        }),
  }
}
