/**
 * One energy window, end to end: start the collectors, run the body, stop them, put every series on
 * the device's boottime clock, and attribute. Whatever fails, the collectors are stopped (or
 * aborted) and the failure becomes an `EnergyError` naming what broke; the caller releases the lease.
 */
import { randomBytes } from 'node:crypto'
import {
  attributeTest,
  CallTreeBuilder,
  reportDetail,
  netEnergyIntervalJ,
  netNoiseHalfWidthJ,
  type IdleNoise,
  cpuMethodPower,
  lowestRailPowerW,
  componentsFromRails,
  gaugeCurve,
  modelledClusterRail,
  MODELLED_ACTIVE_RAIL,
  modelledCpuRails,
  railCurve,
  modelledMethodPower,
  railsCurve,
  withModelFrequencies,
  PROFILE_RELATIVE_SD,
  ASYNC_COMPONENTS,
  type EnergyCurve,
  findInitiators,
  type Baseline,
  type CoreCurrents,
  type ExecutionInput,
  type MethodPower,
  type IntervalAttribution,
  type TailInvocation,
} from '../attribution/index.js'
import type {
  CollectorContext,
  ExecutionCollector,
  ExecutionData,
  PowerCollector,
  PowerData,
} from '../collectors/index.js'
import { hostNowNs, type AdbDevice, type DeviceClockMapping } from '../device/index.js'
import {
  EnergyError,
  formatJoules,
  formatSeconds,
  isEnergyError,
  shiftCallTrace,
  units,
  type CarriedInEnergy,
  type EnergyWarning,
  type FailedEnergyResult,
  type MeasuredEnergyResult,
  type ComponentEnergy,
  type CpuModelObservation,
  type CpuSchedule,
  type Interval,
  type RailEnergy,
  type RailSeries,
  type StackSample,
} from '../model/index.js'
import type { Progress } from '../model/progress.js'
import { MODEL_VOLTAGE_V, NOT_CALIBRATED_ON_PURPOSE, type CpuCalibration } from './calibration.js'
import type { PhoneCpuModel } from './core-currents.js'

/** The idle window's level of one rail, for a measured baseline kept per rail. */
export interface RailBaseline {
  readonly rail: string
  readonly powerW: number
  /** A radio, GPS or Bluetooth rail: off when idle, and its tails outlast the code that ran. */
  readonly radio: boolean
}

/**
 * What a window subtracts as idle power: an attribution `Baseline`, or the worker's measured idle
 * level — per rail when the source has rails, so a radio tail that the idle window caught can be
 * left out once the phone shows the radio lower (`radioAwareBaselineW`).
 */
export type WindowBaseline =
  | Baseline
  | {
      readonly kind: 'measured'
      readonly powerW: number
      readonly rails?: readonly RailBaseline[]
      /** How much the idle phone fluctuated: the noise every window's net energy carries. */
      readonly noise?: IdleNoise
    }

export interface WindowPlan {
  readonly device: AdbDevice
  readonly deviceModel: string
  /** The adb server the phone is attached to, `host:port`. */
  readonly adbServer?: string
  readonly app: string
  readonly power: PowerCollector
  readonly execution?: ExecutionCollector
  /** Host → device boottime (the clock of power data and of the window's edges). */
  readonly boottime: DeviceClockMapping
  /**
   * Device monotonic → boottime offset (ns), for ART traces whose wall clock is CLOCK_MONOTONIC,
   * when the window's own power data does not say (a Perfetto clock snapshot does). Absent too:
   * assumed 0 (no suspend since boot), with a warning.
   */
  readonly monotonicToBoottimeNs?: number
  readonly baseline: WindowBaseline
  readonly batteryCapacityJ?: number
  readonly charging?: boolean
  readonly debuggable?: boolean
  /** @default '/data/local/tmp/vitest-energy' */
  readonly deviceDir?: string
  /** The test's progress: the collectors' slow steps, and attributing. */
  readonly progress?: Progress
  /** Raw data the collectors pulled, per window label (kept as test artifacts). */
  readonly onArtifact?: (window: string, name: string, data: Uint8Array | string) => void
  /**
   * Asynchronous energy still running when earlier windows on this phone closed (a GPS left on),
   * by component, with the method and window that started it: charged to that method if it is
   * still drawing power in this window.
   */
  readonly carriedOver?: ReadonlyMap<string, AsyncOrigin>
  /**
   * The test this window belongs to (`file › name`): energy a component another test left on
   * draws here is judged apart from this test's (`carriedOverJ`).
   */
  readonly test?: string
  /** Told, after each window, which asynchronous components are still on and who started them. */
  readonly onAsyncState?: (
    stillOn: ReadonlyMap<string, AsyncOrigin>,
    ended: readonly string[],
    lowestW: ReadonlyMap<string, number>,
  ) => void
  /** Idle level of each asynchronous rail learned from earlier windows on this phone, W. */
  readonly railFloorsW?: ReadonlyMap<string, number>
  /**
   * `carriedOver` and `railFloorsW` as they are just before this window is attributed: an earlier
   * window whose end was read in the background (`OpenWindow.end()`) may not have told them when
   * this one opened; and `appPid`, asked while the recorders started.
   */
  readonly latestAsyncState?: () => Promise<
    Pick<WindowPlan, 'carriedOver' | 'railFloorsW' | 'appPid'>
  >
  /** The CPUs of each cluster (little first), to match a CPU schedule to the cluster rails. */
  readonly cpuClusters?: ReadonlyArray<readonly number[]>
  /**
   * Per cluster (same order), the per-core current at each frequency and the cluster's own
   * current from the phone's power_profile.xml (the `powerProfile` option, else the phone's
   * plain-text file: `profileCurrents`): weighs running time on cluster rails instead of the
   * (f / 1 GHz)² proxy.
   */
  readonly cpuCoreCurrents?: readonly CoreCurrents[]
  /**
   * On a phone without rails, the CPU power model its methods' energy comes from (the schedule
   * the fuel-gauge collector records, priced with the phone's power profile) and its calibration.
   */
  readonly cpuModel?: Pick<PhoneCpuModel, 'model' | 'profile'> & {
    readonly calibration: CpuCalibration
  }
  /** The app's process id when the window opened (`pidof`), if it was running. */
  readonly appPid?: string
  /**
   * Checks of the phone's state at the window's end (held wake locks), run once the power source
   * has read past the end, alongside the recorders' stops rather than after them; their warnings
   * come first in the result. A check that fails adds nothing.
   */
  readonly atEnd?: () => Promise<readonly EnergyWarning[]>
}

/** Who started a component that is still on. */
export interface AsyncOrigin {
  readonly method: string
  /** Label of the window in which it started. */
  readonly label: string
  /** The test whose window it started in (`file › name`), when known. */
  readonly test?: string
  /**
   * The app process that started it. Android releases a process's location listeners, wake locks
   * and sockets when it dies, so an origin from another process is stale.
   */
  readonly pid?: string
  /**
   * What it drew above the rail's idle level when that window ended, W: a later window that sees
   * far more on the rail from its start knows the rest is new (findInitiators' `knownLevelsW`).
   */
  readonly levelW?: number
}

export interface WindowOutcome<T> {
  readonly result: MeasuredEnergyResult
  readonly value: T
  /** The power data the result was computed from (on the window's clock). */
  readonly power: PowerData
}

/** An open energy window: collectors are recording. */
export interface OpenWindow {
  /** Stops the collectors and attributes the window. */
  close(): Promise<MeasuredEnergyResult>
  /**
   * Ends the window now and frees the phone for the next one: the method recorder stops and the
   * end-of-window checks run; the power source's reading past the end, its stop and the
   * attribution follow in `result`, while the caller goes on (`windowEnd: 'background'`). A
   * power source that reads only when asked (no `awaitEndReading`) is stopped here: `result` is
   * then the whole close. Throws what `close()` would throw before the power data arrives.
   */
  end(): Promise<{ readonly result: Promise<MeasuredEnergyResult> }>
  /** Stops the collectors without attributing (the window is abandoned). */
  abort(): Promise<void>
}

/** A window's result and the power data it was computed from. */
interface ClosedWindow {
  readonly result: MeasuredEnergyResult
  readonly power: PowerData
}

/** An open window that can also hand back its power data when it closes. */
interface RecordingWindow extends OpenWindow {
  closeWithData(): Promise<ClosedWindow>
  /** `OpenWindow.end()`, with the power data. */
  endWithData(): Promise<{ readonly data: Promise<ClosedWindow> }>
}

/** Starts the collectors; the window's start is the moment they are all recording. */
export async function openWindow(plan: WindowPlan, label: string): Promise<RecordingWindow> {
  const context: CollectorContext = {
    device: plan.device,
    app: plan.app,
    deviceDir: plan.deviceDir ?? '/data/local/tmp/vitest-energy',
    windowId: `w${Date.now().toString(36)}${randomBytes(3).toString('hex')}`,
    ...(plan.progress === undefined ? {} : { progress: plan.progress }),
    ...(plan.onArtifact === undefined
      ? {}
      : {
          keepArtifact: (name: string, data: Uint8Array | string) =>
            plan.onArtifact?.(label, name, data),
        }),
  }
  // Both recorders start together; the window starts once both are recording.
  const collectors = plan.execution === undefined ? [plan.power] : [plan.power, plan.execution]
  const starts = await Promise.allSettled(collectors.map(async (c) => c.start(context)))
  const started = collectors.filter((_, i) => starts[i]?.status === 'fulfilled')
  const failed = starts.find((r) => r.status === 'rejected')
  if (failed !== undefined) {
    await abortAll(started, context)
    throw failed.reason
  }
  // A slow source's period boundary (a fuel gauge's refresh): the window opens right after it.
  if (plan.power.awaitStartReading !== undefined) {
    await plan.power.awaitStartReading(context).catch(async (error: unknown) => {
      await abortAll(started, context)
      throw error
    })
  }
  const startHostNs = hostNowNs()
  let done = false
  const checksAtEnd = (): Promise<readonly EnergyWarning[]> =>
    (async () => (await plan.atEnd?.()) ?? [])().catch(() => [])
  /** The method recorder's data, or the warning that says why there is none. */
  const executionOutcome = (
    stop: PromiseSettledResult<ExecutionData | undefined>,
  ): { readonly execution: ExecutionData | undefined; readonly degraded: EnergyWarning[] } => {
    if (stop.status === 'fulfilled') return { execution: stop.value, degraded: [] }
    const error: unknown = stop.reason
    if (!isEnergyError(error) || error.code === 'E_DEVICE_DISCONNECTED') throw error
    // The power data is still good: keep the window, say why it has no per-method figures.
    return {
      execution: undefined,
      degraded: [
        {
          code: 'W_EXECUTION_FAILED',
          severity: 'warning',
          message: `no per-method energy for this window: ${executionFailure(error.message)}`,
        },
      ],
    }
  }
  const attributed = async (
    endHostNs: number,
    power: PowerData,
    execution: ExecutionData | undefined,
    extra: readonly EnergyWarning[],
    progress: Progress | undefined,
  ): Promise<ClosedWindow> => {
    progress?.step('attributing')
    // Earlier windows' ends read in the background have told the phone's state by now.
    const latest = await plan.latestAsyncState?.()
    const result = attributeWindow(
      latest === undefined ? plan : { ...plan, ...latest },
      label,
      startHostNs,
      endHostNs,
      power,
      execution,
    )
    return {
      result: extra.length === 0 ? result : { ...result, warnings: [...extra, ...result.warnings] },
      power,
    }
  }
  const window: RecordingWindow = {
    async abort() {
      if (done) return
      done = true
      await abortAll(started, context)
    },
    async close() {
      return (await window.closeWithData()).result
    },
    async end() {
      const { data } = await window.endWithData()
      return { result: data.then((closed) => closed.result) }
    },
    async closeWithData() {
      if (done) throw closedTwice(label)
      done = true
      const endHostNs = hostNowNs()
      // The phone stays as the test left it until the power source has read past the window's
      // end (a failure here is not fatal: `stop()` then waits by itself); then both recorders
      // stop together, whatever either does.
      await Promise.resolve()
        .then(() => plan.power.awaitEndReading?.(context))
        .catch(() => undefined)
      const checks = checksAtEnd()
      const [executionStop, powerStop] = await Promise.allSettled([
        (async () => plan.execution?.stop(context))(),
        (async () => plan.power.stop(context))(),
      ])
      const atEnd = await checks
      const { execution, degraded } = executionOutcome(executionStop)
      if (powerStop.status === 'rejected') throw powerStop.reason
      return attributed(
        endHostNs,
        powerStop.value,
        execution,
        [...atEnd, ...degraded],
        plan.progress,
      )
    },
    async endWithData() {
      if (plan.power.awaitEndReading === undefined) {
        // Its reading is taken when it stops: that must be now.
        const closed = window.closeWithData()
        await closed
        return { data: closed }
      }
      if (done) throw closedTwice(label)
      done = true
      const endHostNs = hostNowNs()
      const checks = checksAtEnd()
      const [executionStop] = await Promise.allSettled([
        (async () => plan.execution?.stop(context))(),
      ])
      const atEnd = await checks
      let ended: ReturnType<typeof executionOutcome>
      try {
        ended = executionOutcome(executionStop)
      } catch (error) {
        await plan.power.abort(context).catch(() => undefined)
        throw error
      }
      // The test has moved on: its progress line is gone, the power source's slow steps are
      // nobody's to show.
      const { progress: _, ...behind } = context
      const data = (async () => {
        await Promise.resolve()
          .then(() => plan.power.awaitEndReading?.(behind, endHostNs))
          .catch(() => undefined)
        const power = await plan.power.stop(behind)
        return attributed(
          endHostNs,
          power,
          ended.execution,
          [...atEnd, ...ended.degraded],
          undefined,
        )
      })()
      // Whoever reads `data` handles its failure; it must never be an unhandled rejection.
      data.catch(() => undefined)
      return { data }
    },
  }
  return window
}

/** Runs `body` inside an energy window and returns its measured result. */
export async function measureWindow<T>(
  plan: WindowPlan,
  label: string,
  body: () => Promise<T>,
): Promise<WindowOutcome<T>> {
  const window = await openWindow(plan, label)
  let value: T
  try {
    value = await body()
  } catch (error) {
    await window.abort()
    throw error
  }
  return { ...(await window.closeWithData()), value }
}

function attributeWindow(
  plan: WindowPlan,
  label: string,
  startHostNs: number,
  endHostNs: number,
  power: PowerData,
  execution: ExecutionData | undefined,
): MeasuredEnergyResult {
  return attributeWindowData(
    plan,
    label,
    {
      clock: 'boottime',
      startNs: startHostNs + plan.boottime.offsetNs,
      endNs: endHostNs + plan.boottime.offsetNs,
    },
    power,
    execution,
  )
}

/**
 * A window's result from what its collectors returned, its edges given on the phone's boottime
 * clock: what `close()` does once the edges are mapped from the host's clock (and what the
 * accuracy benchmark does with edges read on a fast-clock virtual phone).
 */
export function attributeWindowData(
  plan: WindowPlan,
  label: string,
  window: { readonly clock: 'boottime'; readonly startNs: number; readonly endNs: number },
  power: PowerData,
  execution: ExecutionData | undefined,
): MeasuredEnergyResult {
  const warnings: EnergyWarning[] = [...power.warnings, ...(execution?.warnings ?? [])]
  const executionInput =
    execution === undefined
      ? undefined
      : toExecutionInput(execution, plan, power.monotonicToBoottimeNs, warnings)
  const baseline: Baseline =
    plan.baseline.kind !== 'measured'
      ? plan.baseline
      : {
          kind: 'configured',
          powerW:
            plan.baseline.rails !== undefined && power.kind === 'rails'
              ? radioAwareBaselineW(plan.baseline.rails, power.rails, window, plan.railFloorsW)
              : plan.baseline.powerW,
        }
  // Radios and GPS reach the method that switched them on: measured rails, or on a phone without
  // rails the components modelled from its battery history.
  const asyncRails = power.kind === 'rails' ? power.rails : (power.components ?? [])
  const { tails, carriedIn } =
    asyncRails.length > 0
      ? asyncTails(plan, label, window, asyncRails, executionInput, warnings)
      : { tails: [], carriedIn: [] }
  const modelled =
    power.kind === 'series' && (executionInput !== undefined || plan.cpuModel !== undefined)
      ? modelledPower(plan, power, window, warnings)
      : undefined
  const gauge = power.kind === 'series' && plan.power.name === 'fuel-gauge'
  if (gauge) warnings.push(...staleGauge(plan, power, window))
  const curve = gauge ? fuelGaugeCurve(plan, power, modelled) : undefined
  const schedule = power.kind === 'rails' ? power.schedule : modelled?.schedule
  const methodPower =
    power.kind === 'rails'
      ? cpuMethodPower(
          power.rails,
          window,
          plan.railFloorsW,
          plan.cpuClusters,
          schedule,
          plan.cpuCoreCurrents,
        )
      : modelled?.methodPower
  if (
    schedule !== undefined &&
    methodPower !== undefined &&
    methodPower.parts.every((p) => p.cpus === undefined)
  ) {
    warnings.push({
      code: 'W_SCHEDULE_NO_CLUSTERS',
      severity: 'info',
      message: `the CPU schedule could not be matched to the CPU cluster rails (cpufreq clusters: ${JSON.stringify(plan.cpuClusters ?? [])}); each rail's energy was shared among whatever ran on any CPU`,
    })
  }
  // The net's own noise (docs/reporter.md, "net energy"): matchers judge a net inside it as
  // inconclusive instead of by its sign, and W_NEGATIVE_NET uses the same. ODPM counters count
  // whole µWs on each rail.
  const resolutionJ = power.kind === 'rails' ? power.rails.length * 1e-6 : 0
  const noise = plan.baseline.kind === 'measured' ? plan.baseline.noise : undefined
  const durationS = (window.endNs - window.startNs) / units.NS_PER_S
  const noiseJ = netNoiseHalfWidthJ(
    durationS,
    noise,
    resolutionJ,
    gauge ? gaugeReadingNoiseJ(plan, durationS) : 0,
  )
  // The call tree for reports: each stack sample's energy as attribution computes it.
  const tree = new CallTreeBuilder()
  // Without rails or a CPU model, the whole phone's net energy (screen, radios, other processes)
  // would land on whatever code was sampled: no per-method figures rather than wrong ones.
  const methodData =
    executionInput === undefined || (power.kind === 'series' && modelled === undefined)
      ? undefined
      : executionInput
  const methodInput =
    methodData?.kind === 'samples'
      ? {
          ...methodData,
          onSampleEnergy: (s: StackSample, j: number) => tree.addSample(s, j),
        }
      : methodData
  const attribution = attributeTest({
    label,
    window,
    power: power.kind === 'series' ? power.series : power.rails,
    ...(curve === undefined ? {} : { curve }),
    // A gauge's periods spread by the phone's models need fewer refreshes than a bare gauge: two
    // periods keep 3–8 s windows within 2% on a 1 s gauge (docs/accuracy.md).
    ...(curve !== undefined &&
    (modelled !== undefined || (power.kind === 'series' && power.components !== undefined))
      ? { thresholds: { minSensorUpdates: 2 } }
      : {}),
    ...(curve === undefined || power.kind !== 'series'
      ? {}
      : { components: modelledComponents(curve, modelled?.rails, power.components, window) }),
    ...(methodPower === undefined || methodData === undefined ? {} : { methodPower }),
    ...(schedule === undefined ? {} : { schedule }),
    tails,
    tailPolicy: 'charge-to-initiator',
    edges: 'hold',
    baseline,
    ...(plan.batteryCapacityJ === undefined ? {} : { batteryCapacityJ: plan.batteryCapacityJ }),
    ...(methodInput === undefined ? {} : { execution: methodInput }),
    afterWindow: 'clip',
    sourceNames: {
      power: plan.power.name,
      ...(plan.execution ? { execution: plan.execution.name } : {}),
    },
    facts: {
      // Charging only corrupts battery-side sensors; ODPM rails sit downstream of the battery.
      ...(plan.charging === undefined || plan.power.name === 'odpm'
        ? {}
        : { charging: plan.charging }),
      ...(plan.debuggable === undefined ? {} : { debuggable: plan.debuggable }),
      netNoiseJ: noiseJ,
    },
    device: {
      serial: plan.device.serial,
      model: plan.deviceModel,
      ...(plan.adbServer === undefined ? {} : { adbServer: plan.adbServer }),
    },
    warnings,
  })
  const attributed = withMethodSource(attribution.result, power, modelled, plan)
  const overshoot = gauge ? modelsOverMeasured(attributed, noiseJ) : []
  const result =
    overshoot.length === 0
      ? attributed
      : { ...attributed, warnings: [...attributed.warnings, ...overshoot] }
  const carriedOverJ = carriedIn
    .filter((c) => c.test !== undefined && plan.test !== undefined && c.test !== plan.test)
    .reduce((sum, c) => sum + c.energyJ, 0)
  return {
    ...result,
    netIntervalJ: netEnergyIntervalJ(result.netEnergyJ, noiseJ),
    ...(carriedOverJ > 0 ? { carriedOverJ } : {}),
    ...windowDetail(result, power, methodInput, tree, attribution.interval, carriedIn, curve),
  }
}

/**
 * The window's timeline and call tree for reports, from the data it was attributed with (a fuel
 * gauge's periods as attribution placed them, `curve`).
 */
function windowDetail(
  result: MeasuredEnergyResult,
  power: PowerData,
  execution: ExecutionInput | undefined,
  tree: CallTreeBuilder,
  interval: IntervalAttribution | undefined,
  carriedIn: readonly CarriedInEnergy[],
  curve: EnergyCurve | undefined,
): Pick<MeasuredEnergyResult, 'timeline' | 'callTree'> {
  if (execution?.kind === 'trace' && interval !== undefined)
    tree.addCalls(execution.trace, interval.calls)
  const activity = execution?.kind === 'trace' ? execution.trace : execution?.samples
  return reportDetail({
    result,
    power: power.kind === 'series' ? power.series : power.rails,
    tree,
    carriedIn,
    ...(curve === undefined ? {} : { curve }),
    ...(activity === undefined ? {} : { activity }),
  })
}

/**
 * Per-method power on a phone without rails: the window's CPU schedule priced by the phone's CPU
 * model (its power profile, scaled by the calibration) as modelled cluster rails. Undefined, with a
 * warning saying what is missing, when the model or the schedule is.
 */
function modelledPower(
  plan: WindowPlan,
  power: Extract<PowerData, { kind: 'series' }>,
  window: { readonly clock: 'boottime'; readonly startNs: number; readonly endNs: number },
  warnings: EnergyWarning[],
):
  | {
      readonly methodPower: MethodPower
      readonly schedule: CpuSchedule
      readonly rails: readonly RailSeries[]
    }
  | undefined {
  const cpu = plan.cpuModel
  const missing = (why: string): undefined => {
    if (!warnings.some((w) => w.code === 'W_NO_SCHEDULE' || w.code === 'W_NO_POWER_PROFILE')) {
      warnings.push({ code: 'W_NO_METHOD_ENERGY', severity: 'warning', message: why })
    }
    return undefined
  }
  if (cpu === undefined) {
    return missing(
      `no per-method energy: this phone measures only the whole phone (${plan.power.name}), and without its power profile the methods' CPU energy cannot be modelled; give the phone's power_profile.xml with the powerProfile option`,
    )
  }
  if (power.schedule === undefined) {
    return missing(
      'no per-method energy: the CPU schedule (perfetto sched_switch) was not recorded in this window',
    )
  }
  const model = cpu.model
  if ((power.schedule.frequencies ?? []).length === 0) {
    warnings.push({
      code: 'W_NO_CPU_FREQUENCY',
      severity: 'warning',
      message:
        "the CPU schedule has no cpu_frequency events and the phone did not show its CPUs' frequencies: every cluster was priced at the middle of its frequency table, so methods' CPU energy may be off by a factor of two or more; check that perfetto may record power/cpu_frequency on this build (`adb shell cat /sys/kernel/tracing/events/power/cpu_frequency/enable`)",
    })
  }
  const schedule = withModelFrequencies(model, power.schedule, window)
  // Over the whole recording, not just the window: the gauge's periods reach past its edges.
  const samples = power.series.samples
  const span = {
    startNs: Math.min(samples[0]?.tNs ?? window.startNs, firstEventNs(schedule)),
    endNs: Math.max(samples.at(-1)?.tNs ?? window.endNs, window.endNs),
  }
  const rails = modelledCpuRails(
    model,
    schedule,
    window,
    cpu.calibration.scales,
    MODEL_VOLTAGE_V,
    undefined,
    span,
  )
  return { methodPower: modelledMethodPower(rails, model), schedule, rails }
}

/** The schedule's first slice or frequency change, ns (Infinity when it has none). */
function firstEventNs(schedule: CpuSchedule): number {
  let first = Infinity
  for (const s of schedule.slices) first = Math.min(first, s.startNs)
  for (const c of schedule.frequencies ?? []) if (c.tNs > 0) first = Math.min(first, c.tNs)
  return first
}

/**
 * One standard deviation of a window's energy from the fuel gauge's own reading noise, J: each
 * refresh's reading is off by the noise the calibration measured around its fit (σ per refresh),
 * so a window of m refresh periods P is off by σ·P·√m = σ·T/√m; a window shorter than a period
 * rests on one reading (m = 1). 0 when the phone was not calibrated (the idle baseline's spread
 * stands in then).
 */
function gaugeReadingNoiseJ(plan: WindowPlan, durationS: number): number {
  const gauge = plan.cpuModel?.calibration.gauge
  if (gauge === undefined || !(gauge.periodS > 0)) return 0
  return readingNoiseJ(gauge.noiseW, durationS, durationS / gauge.periodS)
}

/** σ·T/√m: a gauge's reading noise σ (W) over a window of T seconds and m refreshes (m ≥ 1). */
function readingNoiseJ(noiseW: number, durationS: number, refreshes: number): number {
  return (noiseW * durationS) / Math.sqrt(Math.max(1, refreshes))
}

/**
 * What a phone without rails is made of in one window: the CPU (the model's energy of every
 * process), the screen, radios, GPS and Bluetooth (modelled from the battery history), and `other`
 * — what the gauge measured beyond them (the idle floor, GPU, memory, sensors, and the models'
 * error: negative when they overshoot).
 */
function modelledComponents(
  gauge: EnergyCurve,
  cpu: readonly RailSeries[] | undefined,
  components: readonly RailSeries[] | undefined,
  window: { readonly startNs: number; readonly endNs: number },
): ComponentEnergy[] {
  const energyOf = (r: RailSeries): RailEnergy => ({
    rail: r.rail,
    ...(r.subsystem === undefined ? {} : { subsystem: r.subsystem }),
    energyJ: railCurve(r, { edges: 'hold' }).energyJ(window.startNs, window.endNs),
  })
  const parts = componentsFromRails([...(cpu ?? []), ...(components ?? [])].map(energyOf))
  const modelledJ = parts.reduce((a, p) => a + p.energyJ, 0)
  const grossJ = gauge.energyJ(window.startNs, window.endNs)
  return [...parts, { component: 'other', energyJ: grossJ - modelledJ }]
}

/**
 * `W_MODELS_OVER_MEASURED` when a phone without rails charged its methods more than the fuel gauge
 * measured above idle, beyond the net's own noise: what a method drew asynchronously (a radio, the
 * GPS) is modelled from the battery history at the power profile's currents, and the history
 * cannot tell a radio's transfer from its tail, so the whole active period is priced at its
 * transmit current. The measured net stays right; those async figures are then upper bounds.
 */
function modelsOverMeasured(result: MeasuredEnergyResult, noiseJ: number): EnergyWarning[] {
  const excessJ = result.attributedEnergyJ - result.netEnergyJ
  if (!(excessJ > noiseJ) || !(result.netEnergyJ > noiseJ)) return []
  const asyncJ = result.methods.reduce((a, m) => a + m.asyncEnergyJ, 0)
  if (!(asyncJ > 0)) return []
  const modelled = result.components
    .filter((c) => ASYNC_COMPONENTS.includes(c.component) && c.energyJ > 0)
    .map((c) => `${c.component} ${formatJoules(c.energyJ)}`)
  return [
    {
      code: 'W_MODELS_OVER_MEASURED',
      severity: 'warning',
      message: `methods were charged ${formatJoules(result.attributedEnergyJ)}, more than the ${formatJoules(result.netEnergyJ)}${noiseJ > 0 ? ` ± ${formatJoules(noiseJ)}` : ''} the fuel gauge measured above idle: ${formatJoules(asyncJ)} of it is what they left on${modelled.length === 0 ? '' : ` (${modelled.join(', ')})`}, modelled from the battery history at the power profile's currents, which prices a radio's whole active period, its tail too, at its transmit current. Read those async figures as upper bounds and judge this test by its net energy, which is measured; for radio energy you can trust per method, measure on a phone with power rails (ODPM, Pixel 6 and later)`,
    },
  ]
}

/**
 * `W_GAUGE_NO_REFRESH` when the fuel gauge never refreshed after the window opened: the window's
 * energy is then the reading it held from before the test, not a measurement of it.
 */
function staleGauge(
  plan: WindowPlan,
  power: Extract<PowerData, { kind: 'series' }>,
  window: { readonly startNs: number; readonly endNs: number },
): EnergyWarning[] {
  const samples = power.series.samples
  let lastChangeNs: number | undefined
  for (let i = 1; i < samples.length; i++) {
    const s = samples[i] as (typeof samples)[number]
    if (s.powerW === samples[i - 1]?.powerW) continue
    if (s.tNs > window.startNs) return []
    lastChangeNs = s.tNs
  }
  const periodS = plan.cpuModel?.calibration.gauge?.periodS
  const durationS = (window.endNs - window.startNs) / units.NS_PER_S
  const since =
    lastChangeNs === undefined
      ? ''
      : ` (it last changed ${((window.startNs - lastChangeNs) / units.NS_PER_S).toFixed(1)} s before the window opened)`
  return [
    {
      code: 'W_GAUGE_NO_REFRESH',
      severity: 'warning',
      message: `the fuel gauge did not refresh during this ${formatSeconds(durationS)} window${since}: its energy is the reading the gauge held from before the test, not a measurement of it; make the window longer than the gauge's refresh period${periodS === undefined ? '' : ` (${formatSeconds(periodS)} on this phone)`}, or check that the gauge moves at all (\`adb shell cat /sys/class/power_supply/*/current_now\` a few times)`,
    },
  ]
}

/**
 * A fuel gauge's energy curve: its refreshes as their periods' averages (undoing the moving
 * average the calibration found, if any), each period's energy spread inside it as the phone's
 * models say — the CPU model's, and the screen, radios and GPS modelled from the battery history —
 * above an even floor for what they do not see (`gaugeCurve`). The floor is the gauge's power the
 * models leave unexplained over the recording's whole periods.
 */
function fuelGaugeCurve(
  plan: WindowPlan,
  power: Extract<PowerData, { kind: 'series' }>,
  modelled: { readonly rails: readonly RailSeries[] } | undefined,
): EnergyCurve {
  const gauge = plan.cpuModel?.calibration.gauge
  const options = {
    edges: 'hold' as const,
    ...(gauge === undefined
      ? {}
      : {
          periodNs: gauge.periodS * units.NS_PER_S,
          averaging:
            gauge.tauS > 0
              ? { kind: 'iir' as const, tauS: gauge.tauS }
              : { kind: 'period' as const },
        }),
  }
  const plain = gaugeCurve(power.series, options)
  const shapeRails = [...(modelled?.rails ?? []), ...(power.components ?? [])]
  if (shapeRails.length === 0) return plain
  const shape = railsCurve(shapeRails, { edges: 'hold' })
  const times = plain.readingTimesIn(plain.firstNs, plain.lastNs)
  const from = Math.max(times[1] ?? plain.firstNs, shape.firstNs)
  const to = Math.min(times.at(-1) ?? plain.lastNs, shape.lastNs)
  if (!(to > from)) return plain
  const durationS = (to - from) / units.NS_PER_S
  const meanW = plain.energyJ(from, to) / durationS
  const unexplainedW = (plain.energyJ(from, to) - shape.energyJ(from, to)) / durationS
  return gaugeCurve(power.series, {
    ...options,
    shape,
    floorW: Math.max(0.05 * meanW, unexplainedW),
  })
}

/**
 * The result with where its methods' energy came from. A modelled figure's interval also carries
 * the calibration's uncertainty: the largest relative standard error of the calibrated clusters
 * and of `cpu.active` times its share of the window's CPU energy (× 1.96), or ±30% — how far real
 * silicon departs from its profile — when the profile's currents were used as shipped; combined in
 * quadrature with the interval attribution gave it.
 */
function withMethodSource(
  result: MeasuredEnergyResult,
  power: PowerData,
  modelled:
    { readonly methodPower: MethodPower; readonly rails: readonly RailSeries[] } | undefined,
  plan: WindowPlan,
): MeasuredEnergyResult {
  if (result.methods.length === 0) return result
  if (power.kind === 'rails') {
    return { ...result, sources: { ...result.sources, methodEnergy: { kind: 'rails' } } }
  }
  const cpu = plan.cpuModel
  if (modelled === undefined || cpu === undefined) return result
  const { calibration } = cpu
  const observation = observationOf(result, power, modelled.rails, cpu)
  // cpu.active's uncertainty counts for its share of the window's modelled CPU energy.
  const modelJ = observation.activeJ + observation.clusterJ.reduce((a, j) => a + j, 0)
  const activeShare = modelJ > 0 ? observation.activeJ / modelJ : 0
  const activeRelativeSe =
    calibration.activeSe === undefined
      ? PROFILE_RELATIVE_SD
      : calibration.activeSe / calibration.scales.active
  const relativeSe =
    calibration.kind === 'nominal'
      ? PROFILE_RELATIVE_SD
      : Math.max(
          activeShare * activeRelativeSe,
          ...calibration.clusterSe.map((se, k) =>
            se === null ? 0 : se / (calibration.scales.clusters[k] ?? 1),
          ),
        )
  const widen = (energyJ: number, interval: Interval | undefined): Interval => {
    const own = interval === undefined ? 0 : (interval.high - interval.low) / 2
    const half = Math.hypot(own, 1.96 * relativeSe * Math.abs(energyJ))
    const mid = interval === undefined ? energyJ : (interval.high + interval.low) / 2
    return { low: Math.max(0, mid - half), high: mid + half, level: interval?.level ?? 0.95 }
  }
  const nominal =
    calibration.kind === 'nominal' && calibration.why !== NOT_CALIBRATED_ON_PURPOSE
      ? [
          {
            code: 'W_CALIBRATION_NOMINAL' as const,
            severity: 'warning' as const,
            message: `methods' CPU energy is priced at the power profile's currents as shipped, which real silicon departs from by 10–30% per cluster (their intervals say ±30%): ${calibration.why ?? 'the phone was not calibrated'}`,
          },
        ]
      : []
  return {
    ...result,
    warnings: [...result.warnings, ...nominal],
    methods: result.methods.map((m) => ({
      ...m,
      inclusiveIntervalJ: widen(m.inclusiveEnergyJ, m.inclusiveIntervalJ),
      localIntervalJ: widen(m.localEnergyJ, m.localIntervalJ),
    })),
    sources: {
      ...result.sources,
      methodEnergy: {
        kind: 'cpu-model',
        profile: cpu.profile,
        calibration: calibration.kind,
        clusterScales: calibration.scales.clusters,
        ...(calibration.kind !== 'nominal' && calibration.activeSe !== undefined
          ? { activeScale: calibration.scales.active }
          : {}),
        ...(calibration.why === undefined ? {} : { note: calibration.why }),
        observation,
      },
    },
  }
}

/**
 * What the window adds to the run's fit of the CPU model against the gauge: the gauge's energy less
 * the modelled screen, radios and GPS, with its noise (the gauge's per-refresh noise over the
 * window's refreshes, at least 0.2% of it), and the model's energies at the profile's currents.
 */
function observationOf(
  result: MeasuredEnergyResult,
  power: PowerData,
  rails: readonly RailSeries[],
  cpu: NonNullable<WindowPlan['cpuModel']>,
): CpuModelObservation {
  const { startNs, endNs } = result.window
  const energyOf = (r: RailSeries | undefined): number =>
    r === undefined ? 0 : railCurve(r, { edges: 'hold' }).energyJ(startNs, endNs)
  const scales = cpu.calibration.scales
  const clusterJ = cpu.model.clusters.map(
    (_, k) =>
      energyOf(rails.find((r) => r.rail === modelledClusterRail(k))) / (scales.clusters[k] || 1),
  )
  const activeJ =
    energyOf(rails.find((r) => r.rail === MODELLED_ACTIVE_RAIL)) / (scales.active || 1)
  const componentsJ =
    power.kind === 'series' ? (power.components ?? []).reduce((a, r) => a + energyOf(r), 0) : 0
  const refreshes = Math.max(1, result.sources.sensorRateHz ?? 0) * result.durationS
  const noiseW = cpu.calibration.gauge?.noiseW ?? 0.01
  return {
    durationS: result.durationS,
    measuredJ: result.grossEnergyJ - componentsJ,
    noiseJ: Math.max(
      readingNoiseJ(noiseW, result.durationS, refreshes),
      0.002 * result.grossEnergyJ,
    ),
    clusterJ,
    activeJ,
  }
}

/**
 * A per-rail measured baseline for one window: radio, GPS and Bluetooth rails at the lowest level
 * this phone has shown — in earlier windows or in this one. The idle window may have caught a
 * radio's tail from an earlier test; once the radio is seen lower, counting the tail as idle would
 * make the net energy negative (and it does the moment a tail ends inside a window).
 */
export function radioAwareBaselineW(
  baseline: readonly RailBaseline[],
  rails: readonly RailSeries[],
  window: { readonly clock: 'boottime'; readonly startNs: number; readonly endNs: number },
  floorsW: ReadonlyMap<string, number> | undefined,
): number {
  let sumW = 0
  for (const r of baseline) {
    if (!r.radio) {
      sumW += r.powerW
      continue
    }
    const series = rails.find((x) => x.rail === r.rail)
    const here = series === undefined ? undefined : lowestRailPowerW(series, window)
    sumW += Math.min(r.powerW, floorsW?.get(r.rail) ?? r.powerW, here ?? r.powerW)
  }
  return sumW
}

/**
 * Radio, GPS and Bluetooth energy charged to the app method that started it (eprof): bursts that
 * start in this window go to the last app method before them; bursts already running go to the
 * method that started them in an earlier window, when this phone's session remembers one.
 */
function asyncTails(
  plan: WindowPlan,
  label: string,
  window: { readonly clock: 'boottime'; readonly startNs: number; readonly endNs: number },
  rails: Parameters<typeof findInitiators>[0],
  execution: ExecutionInput | undefined,
  warnings: EnergyWarning[],
): { tails: TailInvocation[]; carriedIn: CarriedInEnergy[] } {
  const prefix = `${plan.app}.`
  const found = findInitiators(
    rails,
    execution === undefined
      ? undefined
      : execution.kind === 'trace'
        ? execution.trace
        : execution.samples,
    window,
    {
      isAppMethod: (m) => m.startsWith(prefix),
      knownOn: new Set(plan.carriedOver?.keys() ?? []),
      knownLevelsW: new Map(
        [...(plan.carriedOver ?? [])].flatMap(([component, origin]) =>
          origin.levelW === undefined ? [] : [[component, origin.levelW] as const],
        ),
      ),
      ...(plan.railFloorsW ? { floorsW: plan.railFloorsW } : {}),
    },
  )
  const tails: TailInvocation[] = [...found.invocations]
  const stillOn = new Map<string, AsyncOrigin>()
  const ended: string[] = []
  const carriedIn: CarriedInEnergy[] = []
  for (const burst of found.ongoing) {
    const origin = plan.carriedOver?.get(burst.component)
    carriedIn.push({
      component: burst.component,
      rail: burst.rail,
      energyJ: burst.energyJ,
      untilS: (burst.endNs - window.startNs) / units.NS_PER_S,
      ...(origin === undefined ? {} : { method: origin.method, window: origin.label }),
      ...(origin?.test === undefined ? {} : { test: origin.test }),
    })
    if (burst.stillActiveAtEnd && origin !== undefined)
      stillOn.set(burst.component, { ...origin, levelW: burst.endLevelW })
    if (!burst.stillActiveAtEnd) ended.push(burst.component)
    if (origin === undefined) {
      warnings.push({
        code: 'W_ASYNC_UNKNOWN_ORIGIN',
        severity: 'info',
        message: `${burst.component} was already active when the window opened (${burst.energyJ.toFixed(3)} J above idle here); whoever started it ran before this window (a hook such as \`beforeEach\`, code outside any window, or another app)`,
      })
      continue
    }
    tails.push({
      method: origin.method,
      component: burst.component,
      startNs: window.startNs,
      endNs: window.startNs,
      tailEnergyJ: burst.energyJ,
      tailDurationNs: Math.max(1, burst.endNs - window.startNs),
    })
    warnings.push({
      code: 'W_ASYNC_CARRIED_OVER',
      severity: 'warning',
      message: `${burst.component} left on by ${origin.method} (started in '${origin.label}') drew ${burst.energyJ.toFixed(3)} J above idle in this window${burst.stillActiveAtEnd ? ' and is still on' : ''}`,
    })
  }
  for (const burst of found.invocations) {
    if (burst.stillActiveAtEnd)
      stillOn.set(burst.component, {
        method: burst.method,
        label,
        ...(plan.test === undefined ? {} : { test: plan.test }),
        ...(plan.appPid === undefined ? {} : { pid: plan.appPid }),
        levelW: burst.endLevelW,
      })
    else if (!stillOn.has(burst.component)) ended.push(burst.component)
  }
  // Every rail's lowest level, so the session learns idle floors (CPU rails included: their floor
  // is what per-method attribution subtracts) from its quietest windows, the idle baseline first.
  const lowestW = new Map<string, number>()
  for (const rail of rails) {
    const lowest = lowestRailPowerW(rail, window)
    if (lowest !== undefined) lowestW.set(rail.rail, lowest)
  }
  plan.onAsyncState?.(stillOn, ended, lowestW)
  return { tails, carriedIn }
}

function closedTwice(label: string): EnergyError {
  return new EnergyError({
    code: 'E_WINDOW_CLOSED',
    message: `the energy window '${label}' was already closed`,
    hint: 'This is a bug in vitest-energy; please report it.',
  })
}

/** Puts execution data on the boottime clock. */
function toExecutionInput(
  data: ExecutionData,
  plan: WindowPlan,
  monotonicToBoottimeNs: number | undefined,
  warnings: EnergyWarning[],
): ExecutionInput {
  if (data.kind === 'stacks') {
    if (data.samples.clock !== 'boottime') {
      throw new EnergyError({
        code: 'E_CLOCK_MISMATCH',
        message: `stack samples are on the ${data.samples.clock} clock; power data is on boottime`,
        hint: "Record with simpleperf's default `--clockid boottime` (the simpleperf collector's default).",
      })
    }
    return { kind: 'samples', samples: data.samples }
  }
  const trace = data.trace
  if (trace.clock === 'boottime') return { kind: 'trace', trace }
  let offsetNs = monotonicToBoottimeNs ?? plan.monotonicToBoottimeNs
  if (offsetNs === undefined) {
    offsetNs = 0
    warnings.push({
      code: 'W_CLOCK_ASSUMED',
      severity: 'warning',
      message: `the method trace is on the ${trace.clock} clock and its offset to boottime could not be read (needs root for /proc/timer_list); assumed 0`,
    })
  }
  return { kind: 'trace', trace: shiftCallTrace(trace, offsetNs, 'boottime') }
}

async function abortAll(
  started: ReadonlyArray<PowerCollector | ExecutionCollector>,
  context: CollectorContext,
): Promise<void> {
  await Promise.all(started.map(async (c) => c.abort(context)).map((p) => p.catch(() => undefined)))
}

/** A failed window as a result, so the reporter can show it beside the others. */
export function failedResult(label: string, error: unknown): FailedEnergyResult {
  const e = isEnergyError(error)
    ? error
    : new EnergyError({
        code: 'E_WINDOW_FAILED',
        message: error instanceof Error ? error.message : String(error),
        hint: 'See the error above; the energy window was abandoned.',
        cause: error,
      })
  return {
    schemaVersion: 1,
    status: 'failed',
    label,
    error: { code: e.code, message: e.message, hint: e.hint },
    warnings: [],
  }
}

/**
 * Why the method recorder failed, in a sentence the user can act on: the commonest cause, an app
 * that was not running when the window opened (simpleperf's `Can't find process of app`), is
 * said as such; anything else as the recorder said it.
 */
export function executionFailure(message: string): string {
  const app = /Can't find process of app (\S+)/.exec(message)?.[1]
  if (app !== undefined)
    return `${app} was not running when the window opened (simpleperf: "Can't find process of app"); start it before measuring — the driver fixture launches it, as does \`adb shell am start\``
  return message.split('\n')[0] ?? ''
}
