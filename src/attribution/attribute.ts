/**
 * One test window end to end: per-test energy, tails, per-method energy (interval or sampling),
 * warnings, and the `MeasuredEnergyResult` built with the model's builder, which keeps
 * attributed + unattributed + baseline = gross.
 */
import type {
  AttributionMethod,
  ComponentEnergy,
  EnergyWarning,
  EnergyWindow,
  MeasuredEnergyResult,
  MethodEnergy,
} from '../model/energy.js'
import { measuredResult, methodEnergy } from '../model/build.js'
import type {
  CallTrace,
  CpuSchedule,
  RailSeries,
  StackSample,
  StackSampleSet,
} from '../model/samples.js'
import { componentsFromRails } from './components.js'
import type { EnergyCurve } from './curve.js'
import {
  attributeIntervals,
  type IntervalAttribution,
  type IntervalSplit,
  type ThreadShare,
} from './interval.js'
import type { PowerPart } from './_parts.js'
import { attributeSamples, type SamplingAttribution, type SamplingPower } from './sampling.js'
import {
  attributeSamplesByRegression,
  type SamplingRegressionAttribution,
} from './sampling-regression.js'
import { scheduleThreadMatcher } from './_parts.js'
import { chargeTails, type TailCharge, type TailInvocation, type TailPolicy } from './tails.js'
import {
  checkWindow,
  curveFor,
  isRailInput,
  testEnergy,
  type TestEnergy,
  type TestEnergyInput,
} from './test-energy.js'
import {
  attributionWarnings,
  REPETITION_LABEL,
  type WarningFacts,
  type WarningThresholds,
} from './warnings.js'
import {
  chargeableEnergy,
  displayPowerW,
  edgeShare,
  recordLongestIntervalS,
  recordRateHz,
  netNoiseJ,
  otherThreadsEnergy,
} from './_warning-facts.js'

/**
 * The option that sets simpleperf's rate, named when a window is undersampled: the plugin's
 * `samplingHz` (passed to `simpleperf record -f`). Advice stops at 10 kHz: DWARF call graphs copy
 * the thread's stack at every sample, so faster sampling slows the app it measures.
 */
const SIMPLEPERF_SAMPLING_OPTION = { name: 'samplingHz', maxHz: 10_000 } as const

/** Execution data for per-method attribution. */
export type ExecutionInput =
  | {
      readonly kind: 'trace'
      readonly trace: CallTrace
      /** @default 'auto' */
      readonly threadShare?: ThreadShare
      /** @default 'auto' (see `IntervalSplit`) */
      readonly split?: IntervalSplit
    }
  | {
      readonly kind: 'samples'
      readonly samples: StackSampleSet
      /** CPU time per sample when samples carry no period, ns. */
      readonly samplePeriodNs?: number
      /** @default 0.95 */
      readonly level?: number
      /** @default 'equal' (see `SamplingOptions.threadShare`) */
      readonly threadShare?: 'equal' | 'device'
      /**
       * How a method's power is estimated.
       * - `split` (default): each group of sensor intervals' net energy divided among its samples
       *   (`SamplingPower`); conserves energy and does not charge idle time to busy methods.
       * - `reading` (EDATA Eq. 3.7): mean power in effect at its samples.
       * - `regression`: fitted over sensor intervals (`attributeSamplesByRegression`); for
       *   counters and averaging sensors, resolves methods that switch faster than the sensor.
       */
      readonly power?: SamplingPower | 'regression'
      /** With `power: 'split'`. @default 10 */
      readonly minSamplesPerGroup?: number
      /** Own regression columns with `power: 'regression'`. @default 20 */
      readonly maxMethods?: number
      /** Fit a background power with `power: 'regression'`. @default false */
      readonly background?: boolean
      /** Told each sample's energy (not with `power: 'regression'`), e.g. to build a call tree. */
      readonly onSampleEnergy?: (sample: StackSample, energyJ: number) => void
    }

/**
 * Tail energy that lands after the window closes.
 * - `extend` (default): the test is charged with it; the accounting window is extended to the end
 *   of the last charged tail, so gross, baseline and net cover it too (conservation holds).
 * - `clip`: only the part inside the window is charged.
 */
export type AfterWindowPolicy = 'extend' | 'clip'

export interface AttributeTestInput extends TestEnergyInput {
  /** Test name (or the name given to `energy.measure`). */
  readonly label: string
  readonly execution?: ExecutionInput
  /** Invocations that leave a component up (radio, GPS), with their tail model. @default [] */
  readonly tails?: readonly TailInvocation[]
  /** @default 'split-among-overlapping' */
  readonly tailPolicy?: TailPolicy
  /** @default 'extend' */
  readonly afterWindow?: AfterWindowPolicy
  /** Names for `SourceInfo` (attribution does not know where data came from; the caller does). */
  readonly sourceNames?: { readonly power?: string; readonly execution?: string }
  /**
   * Device facts for warnings (charging, debuggable, app CPU time), and the net energy's noise
   * (± J, from the idle phone: `netNoiseHalfWidthJ`) when the caller knows it — `W_NEGATIVE_NET`
   * then judges with the same noise the matchers do; else the window's own fluctuation.
   */
  readonly facts?: Pick<
    WarningFacts,
    'charging' | 'debuggable' | 'appCpuTimeS' | 'netIntervalJ' | 'netNoiseJ'
  >
  readonly thresholds?: WarningThresholds
  /** Breakdown per component. @default derived from the rails (`componentsFromRails`), else none */
  readonly components?: readonly ComponentEnergy[]
  readonly device?: { readonly serial: string; readonly model: string }
  /** Extra warnings from earlier stages (collectors), kept in front. */
  readonly warnings?: readonly EnergyWarning[]
  /**
   * The power per-method attribution divides, when it should not be the whole device's: with
   * per-rail data, the CPU rails above their idle level (so screen and radios, which no sample
   * causes, are not spread over whatever code happened to run). Tails are then charged only
   * through `tails`, never subtracted from this curve. @default the window's own curve and baseline
   */
  readonly methodPower?: {
    readonly curve: EnergyCurve
    readonly baselinePowerW: number
    /** The same power per rail (`cpuMethodPower`); the interval method divides them one by one. */
    readonly parts?: readonly PowerPart[]
  }
  /**
   * What ran on each CPU (Perfetto sched_switch), on the window's clock. With rail `parts` that
   * name their CPUs, the interval method and sampling's `split` give each cluster rail's energy to
   * the threads that ran on it.
   */
  readonly schedule?: CpuSchedule
}

export interface TestAttribution {
  readonly result: MeasuredEnergyResult
  readonly test: TestEnergy
  readonly tails: readonly TailCharge[]
  readonly interval?: IntervalAttribution
  readonly sampling?: SamplingAttribution
  readonly samplingRegression?: SamplingRegressionAttribution
}

export function attributeTest(input: AttributeTestInput): TestAttribution {
  checkWindow(input.window)
  const policy = input.tailPolicy ?? 'split-among-overlapping'
  let tails = chargeTails(input.tails ?? [], policy)
  let window: EnergyWindow = input.window
  if ((input.afterWindow ?? 'extend') === 'extend') {
    const lastCharged = Math.max(
      window.endNs,
      ...tails.filter((c) => c.method !== undefined && c.energyJ > 0).map((c) => c.endNs),
    )
    if (lastCharged > window.endNs) window = { ...window, endNs: lastCharged }
  } else {
    tails = clipCharges(tails, window)
  }
  const curve = curveFor(input)
  const test = testEnergy({ ...input, window }, curve)
  const methodCurve = input.methodPower?.curve ?? curve
  const methodBaselineW = input.methodPower?.baselinePowerW ?? test.baselinePowerW
  const methodTails = input.methodPower === undefined ? tails : []

  // A schedule whose threads are none of the traced/sampled ones would turn all method energy into
  // "other processes": say so and attribute without it.
  const scheduleWarnings: EnergyWarning[] = []
  let schedule = input.schedule
  // The method data's threads, once (1 M samples are a pass of their own).
  const threads =
    schedule === undefined || input.execution === undefined
      ? undefined
      : methodThreads(input.execution)
  if (schedule !== undefined && threads !== undefined) {
    const matches = scheduleThreadMatcher(threads)
    if (threads.size > 0 && !schedule.slices.some((x) => matches(x) !== undefined)) {
      scheduleWarnings.push({
        code: 'W_SCHEDULE_UNMATCHED',
        severity: 'warning',
        message: `none of the ${threads.size} thread(s) in the method data ran in the CPU schedule (${schedule.slices.length} slices); per-method energy was divided without it`,
      })
      schedule = undefined
    }
  }

  let methods: MethodEnergy[] = []
  let interval: IntervalAttribution | undefined
  let sampling: SamplingAttribution | undefined
  let samplingRegression: SamplingRegressionAttribution | undefined
  let kind: AttributionMethod = 'interval'
  const execution = input.execution
  if (execution?.kind === 'trace') {
    interval = attributeIntervals(execution.trace, methodCurve, {
      window,
      baselinePowerW: methodBaselineW,
      tails: methodTails,
      ...(execution.threadShare === undefined ? {} : { threadShare: execution.threadShare }),
      ...(execution.split === undefined ? {} : { split: execution.split }),
      ...(input.methodPower?.parts === undefined ? {} : { parts: input.methodPower.parts }),
      ...(schedule === undefined ? {} : { schedule }),
    })
    methods = [...interval.methods]
  } else if (execution?.kind === 'samples' && execution.power === 'regression') {
    kind = 'regression'
    const byRegression = attributeSamplesByRegression(execution.samples, methodCurve, {
      window,
      baselinePowerW: methodBaselineW,
      tails: methodTails,
      ...(execution.samplePeriodNs === undefined
        ? {}
        : { samplePeriodNs: execution.samplePeriodNs }),
      ...(execution.maxMethods === undefined ? {} : { maxMethods: execution.maxMethods }),
      ...(execution.background === undefined ? {} : { background: execution.background }),
    })
    methods = [...byRegression.methods]
    samplingRegression = byRegression
  } else if (execution?.kind === 'samples') {
    kind = 'sampling'
    sampling = attributeSamples(execution.samples, methodCurve, {
      window,
      baselinePowerW: methodBaselineW,
      tails: methodTails,
      ...(execution.samplePeriodNs === undefined
        ? {}
        : { samplePeriodNs: execution.samplePeriodNs }),
      ...(execution.level === undefined ? {} : { level: execution.level }),
      ...(execution.threadShare === undefined ? {} : { threadShare: execution.threadShare }),
      ...(execution.power === undefined || execution.power === 'regression'
        ? {}
        : { power: execution.power }),
      ...(execution.minSamplesPerGroup === undefined
        ? {}
        : { minSamplesPerGroup: execution.minSamplesPerGroup }),
      ...(input.methodPower?.parts === undefined ? {} : { parts: input.methodPower.parts }),
      ...(schedule === undefined ? {} : { schedule }),
      ...(execution.onSampleEnergy === undefined ? {} : { onSample: execution.onSampleEnergy }),
    })
    methods = [...sampling.methods]
  }
  methods = mergeAsync(methods, tails, kind)
  const attributedEnergyJ = methods.reduce((s, m) => s + m.localEnergyJ + m.asyncEnergyJ, 0)

  const facts: WarningFacts = {
    durationS: test.durationS,
    sensorRateHz: test.sensorRateHz,
    powerKind: curve.kind,
    ...(curve.kind === 'cumulative' ? cumulativeFacts(curve, window) : {}),
    powerSource: input.sourceNames?.power ?? curve.source,
    repetition: REPETITION_LABEL.test(input.label),
    netEnergyJ: test.netEnergyJ,
    baselinePowerW: test.baselinePowerW,
    netNoiseJ: input.facts?.netNoiseJ ?? netNoiseJ(curve, window, test.grossEnergyJ),
    ...railFacts(input, window, test, methods, tails, schedule, threads),
    // Without method data nothing could be attributed: that says nothing about where energy went.
    ...(execution === undefined ? {} : { attributedEnergyJ }),
    ...(input.sourceNames?.execution === 'simpleperf'
      ? { samplingOption: SIMPLEPERF_SAMPLING_OPTION }
      : {}),
    ...(input.facts ?? {}),
    ...(execution?.kind === 'trace'
      ? { traceMode: execution.trace.mode, traceOverflowed: execution.trace.overflowed }
      : {}),
    ...(sampling !== undefined && execution?.kind === 'samples'
      ? {
          stackSamples: sampling.sampleCount,
          sampledCpuTimeS: sampling.execTimeS,
          lostSamples: execution.samples.lostCount,
        }
      : {}),
    ...(samplingRegression !== undefined && execution?.kind === 'samples'
      ? {
          stackSamples: samplingRegression.methods.reduce((n, m) => n + (m.localSamples ?? 0), 0),
          sampledCpuTimeS: samplingRegression.methods.reduce((t, m) => t + (m.localTimeS ?? 0), 0),
          lostSamples: execution.samples.lostCount,
        }
      : {}),
  }
  const warnings = [
    ...(input.warnings ?? []),
    ...scheduleWarnings,
    ...attributionWarnings(facts, input.thresholds),
  ]
  const executionName =
    input.sourceNames?.execution ??
    (execution?.kind === 'trace'
      ? `art-${execution.trace.mode}`
      : execution?.kind === 'samples'
        ? 'stack-samples'
        : undefined)
  const result = measuredResult({
    label: input.label,
    window,
    grossEnergyJ: test.grossEnergyJ,
    baselinePowerW: test.baselinePowerW,
    attributedEnergyJ,
    components: input.components ?? componentsFromRails(test.rails),
    rails: test.rails,
    methods,
    sources: {
      power: input.sourceNames?.power ?? curve.source,
      ...(executionName === undefined ? {} : { execution: executionName }),
      sensorRateHz: test.sensorRateHz,
      sampleCount: test.sampleCount,
    },
    ...(test.battery === undefined ? {} : { battery: test.battery }),
    warnings,
    ...(input.device === undefined ? {} : { device: input.device }),
  })
  return {
    result,
    test,
    tails,
    ...(interval === undefined ? {} : { interval }),
    ...(sampling === undefined ? {} : { sampling }),
    ...(samplingRegression === undefined ? {} : { samplingRegression }),
  }
}

/**
 * Warning facts from per-rail data: the display's average power, and with a method pool (the
 * rails methods divide) the energy methods could be charged with, the screen left out.
 */
function railFacts(
  input: AttributeTestInput,
  window: EnergyWindow,
  test: TestEnergy,
  methods: readonly MethodEnergy[],
  tails: readonly TailCharge[],
  schedule: CpuSchedule | undefined,
  threads: ReadonlyMap<number, string | undefined> | undefined,
): Pick<
  WarningFacts,
  | 'displayPowerW'
  | 'chargeableEnergyJ'
  | 'chargeableIsModelled'
  | 'unchargedEnergy'
  | 'otherThreadsEnergy'
> {
  if (!isRailInput(input.power)) return modelledPoolFacts(input, window, test, schedule, threads)
  const byRail = new Map(test.rails.map((r) => [r.rail, r.energyJ]))
  const energyOf = (rail: RailSeries): number => byRail.get(rail.rail) ?? 0
  const display = displayPowerW(input.power, energyOf, test.durationS)
  const pool = input.methodPower
  if (pool === undefined) return display === undefined ? {} : { displayPowerW: display }
  // With sched_switch, what other threads drew of the pool is theirs: left out of what methods
  // could have been charged with, and named.
  const matches =
    schedule === undefined || threads === undefined || pool.parts === undefined
      ? undefined
      : scheduleThreadMatcher(threads)
  const others =
    matches === undefined || schedule === undefined || pool.parts === undefined
      ? undefined
      : otherThreadsEnergy(pool.parts, schedule, window, (x) => matches(x) !== undefined)
  const chargeable = chargeableEnergy({
    rails: input.power,
    energyOf,
    window,
    methodPoolJ:
      pool.curve.energyJ(window.startNs, window.endNs) - pool.baselinePowerW * test.durationS,
    methods,
    tails,
    ...(others === undefined ? {} : { otherThreadsJ: others.reduce((a, o) => a + o.energyJ, 0) }),
  })
  return {
    ...(display === undefined ? {} : { displayPowerW: display }),
    chargeableEnergyJ: chargeable.energyJ,
    unchargedEnergy: chargeable.uncharged,
    ...(others === undefined ? {} : { otherThreadsEnergy: others }),
  }
}

/**
 * On a phone without rails the methods divide the CPU model's energy (`methodPower` parts): what
 * they could have been charged with is the model's energy of the method data's own threads.
 */
function modelledPoolFacts(
  input: AttributeTestInput,
  window: EnergyWindow,
  test: TestEnergy,
  schedule: CpuSchedule | undefined,
  threads: ReadonlyMap<number, string | undefined> | undefined,
): Pick<WarningFacts, 'chargeableEnergyJ' | 'chargeableIsModelled' | 'otherThreadsEnergy'> {
  const pool = input.methodPower
  if (pool?.parts === undefined || schedule === undefined || threads === undefined) return {}
  const matches = scheduleThreadMatcher(threads)
  const others = otherThreadsEnergy(pool.parts, schedule, window, (x) => matches(x) !== undefined)
  const poolJ =
    pool.curve.energyJ(window.startNs, window.endNs) - pool.baselinePowerW * test.durationS
  return {
    chargeableEnergyJ: poolJ - others.reduce((a, o) => a + o.energyJ, 0),
    chargeableIsModelled: true,
    otherThreadsEnergy: others,
  }
}

/** The threads of the method data (a trace's threads and callers, or the samples'), by id. */
function methodThreads(execution: ExecutionInput): Map<number, string | undefined> {
  const threads = new Map<number, string | undefined>()
  if (execution.kind === 'trace') {
    for (const t of execution.trace.threads) threads.set(t.id, t.name)
    for (const c of execution.trace.calls) {
      if (!threads.has(c.threadId)) threads.set(c.threadId, undefined)
    }
  } else {
    const samples = execution.samples.samples
    for (let i = 0; i < samples.length; i++) {
      const x = samples[i] as StackSample
      threads.set(x.threadId, x.threadName)
    }
  }
  return threads
}

/** Keeps only the part of each tail charge inside the window (flat power, pro rata). */
export function clipCharges(charges: readonly TailCharge[], window: EnergyWindow): TailCharge[] {
  return charges.flatMap((c) => {
    const startNs = Math.max(c.startNs, window.startNs)
    const endNs = Math.min(c.endNs, window.endNs)
    if (!(endNs > startNs) || !(c.endNs > c.startNs)) return []
    return [
      { ...c, startNs, endNs, energyJ: (c.energyJ * (endNs - startNs)) / (c.endNs - c.startNs) },
    ]
  })
}

/** Adds charged tail energy to the methods' `asyncEnergyJ` (creating entries for methods not seen). */
export function mergeAsync(
  methods: readonly MethodEnergy[],
  charges: readonly TailCharge[],
  attribution: AttributionMethod,
): MethodEnergy[] {
  const asyncByMethod = new Map<string, number>()
  for (const c of charges) {
    if (c.method === undefined) continue
    asyncByMethod.set(c.method, (asyncByMethod.get(c.method) ?? 0) + c.energyJ)
  }
  const out = methods.map((m) => {
    const extra = asyncByMethod.get(m.method)
    if (extra === undefined) return m
    asyncByMethod.delete(m.method)
    const { inclusiveEnergyJ: _drop, ...rest } = m
    void _drop
    return methodEnergy({ ...rest, asyncEnergyJ: m.asyncEnergyJ + extra })
  })
  for (const [method, asyncEnergyJ] of asyncByMethod) {
    out.push(
      methodEnergy({ method, attribution, localEnergyJ: 0, nonLocalEnergyJ: 0, asyncEnergyJ }),
    )
  }
  return out
}

/** The edge facts of rail counters: how much of the window is interpolated, and the rails' rate. */
function cumulativeFacts(
  curve: EnergyCurve,
  window: EnergyWindow,
): Pick<WarningFacts, 'edgeShare' | 'recordRateHz' | 'recordLongestIntervalS'> {
  const rateHz = recordRateHz(curve, window)
  const longestS = recordLongestIntervalS(curve)
  return {
    edgeShare: edgeShare(curve, window),
    ...(rateHz === undefined ? {} : { recordRateHz: rateHz }),
    ...(longestS === undefined ? {} : { recordLongestIntervalS: longestS }),
  }
}
