/**
 * A window's power timeline for reports: the sensor's readings thinned to at most
 * `TIMELINE_MAX_BUCKETS` buckets whose average power is the bucket's integrated energy over its
 * length (so the area under each rail is the energy it measured, never a picked reading), and the
 * app's method activity on the same buckets.
 */
import type { EnergyWindow, MeasuredEnergyResult } from '../model/energy.js'
import { appMethodsFirst } from '../model/methods.js'
import type {
  CallTrace,
  PowerSeries,
  RailSeries,
  StackSample,
  StackSampleSet,
} from '../model/samples.js'
import {
  TIMELINE_MAX_BUCKETS,
  TIMELINE_MAX_LANES,
  type ActivityLane,
  type CarriedInEnergy,
  type PowerTimeline,
  type TimelineSeries,
} from '../model/timeline.js'
import { NS_PER_S } from '../model/units.js'
import type { CallTreeBuilder } from './call-tree.js'
import {
  lastAtOrBefore,
  powerCurve,
  railCurve,
  type EnergyCurve,
  type Integration,
} from './curve.js'

export interface ThinOptions {
  /** @default TIMELINE_MAX_BUCKETS (200) */
  readonly maxBuckets?: number
  /** Context kept either side of the window, as a share of its length, where the sensor read. @default 0.1 */
  readonly contextShare?: number
  /** How a power series (not rails) is integrated: as the window's energy was. @default 'trapezoid' */
  readonly integration?: Integration
  /**
   * The curve the window's energy came from, for a power series whose readings are not the power
   * at their own times: a fuel gauge's refresh is its period's average, drawn over that period
   * (`gaugeCurve`), not held after it (which showed a test's work a period late).
   */
  readonly curve?: EnergyCurve
}

/** The thinned power and its bucket edges on the window's clock (for `activityLanes`). */
export interface ThinnedPower {
  readonly edgesNs: Float64Array
  readonly timeline: Pick<PowerTimeline, 'edgesS' | 'series'>
}

export interface ReportDetailInput {
  /** The attributed window (its methods pick the lanes; its net energy scales the tree's trim). */
  readonly result: MeasuredEnergyResult
  /** The power data the window was measured from. */
  readonly power: readonly RailSeries[] | PowerSeries
  readonly integration?: Integration
  /** The curve the window's energy came from, for a power series (`ThinOptions.curve`). */
  readonly curve?: EnergyCurve
  /** The stack samples or method trace the methods came from. */
  readonly activity?: StackSampleSet | CallTrace
  /** Filled with the samples' or calls' energies during attribution. */
  readonly tree: CallTreeBuilder
  readonly carriedIn?: readonly CarriedInEnergy[]
}

/**
 * What reports draw of a window (docs/reporter.md): the sensor's power thinned, the activity of
 * its top methods by self energy (app code first) on the same buckets, asynchronous energy
 * carried in from earlier windows, and the call tree with the methods' asynchronous energy.
 */
export function reportDetail(
  input: ReportDetailInput,
): Pick<MeasuredEnergyResult, 'timeline' | 'callTree'> {
  const { result, activity, carriedIn = [] } = input
  const thinned = thinPower(input.power, result.window, {
    ...(input.integration === undefined ? {} : { integration: input.integration }),
    ...(input.curve === undefined ? {} : { curve: input.curve }),
  })
  const bySelf = result.methods
    .filter((m) => m.localEnergyJ > 0)
    .sort((a, b) => b.localEnergyJ - a.localEnergyJ)
  const top = appMethodsFirst(bySelf, TIMELINE_MAX_LANES).map((m) => m.method)
  const lanes =
    activity === undefined ? [] : activityLanes(activity, top, thinned.edgesNs, result.window)
  const callTree = input.tree.build({
    asyncJ: new Map(
      result.methods.filter((m) => m.asyncEnergyJ !== 0).map((m) => [m.method, m.asyncEnergyJ]),
    ),
    referenceJ: result.netEnergyJ,
  })
  return {
    timeline: {
      ...thinned.timeline,
      ...(lanes.length === 0 ? {} : { lanes }),
      ...(carriedIn.length === 0 ? {} : { carriedIn }),
    },
    ...(callTree === undefined ? {} : { callTree }),
  }
}

/**
 * Thins each rail (or the single power series) onto shared buckets. When the sensor's own reading
 * times, with the window's edges, make no more than `maxBuckets` buckets they are the buckets (the
 * readings exactly); otherwise the window and each context side are cut into equal buckets in
 * proportion to their lengths. Either way the window's start and end are bucket edges, so the
 * buckets inside the window hold exactly the energy each rail measured in it.
 */
export function thinPower(
  power: readonly RailSeries[] | PowerSeries,
  window: EnergyWindow,
  options: ThinOptions = {},
): ThinnedPower {
  const maxBuckets = Math.max(1, Math.floor(options.maxBuckets ?? TIMELINE_MAX_BUCKETS))
  const share = options.contextShare ?? 0.1
  const named: Array<{ name: string; subsystem?: string; curve: EnergyCurve }> = isRails(power)
    ? power.map((r) => ({
        name: r.rail,
        ...(r.subsystem === undefined ? {} : { subsystem: r.subsystem }),
        curve: railCurve(r, { edges: 'hold' }),
      }))
    : [
        {
          name: power.source,
          curve:
            options.curve ??
            powerCurve(power, {
              edges: 'hold',
              ...(options.integration === undefined ? {} : { integration: options.integration }),
            }),
        },
      ]
  const { startNs, endNs } = window
  const spanNs = endNs - startNs
  const first = Math.min(...named.map((n) => n.curve.firstNs))
  const last = Math.max(...named.map((n) => n.curve.lastNs))
  // Context only where the sensor read: held readings past its data would be invented.
  const fromNs = startNs - Math.max(0, Math.min(share * spanNs, startNs - first))
  const toNs = endNs + Math.max(0, Math.min(share * spanNs, last - endNs))
  const readings = new Set<number>([fromNs, startNs, endNs, toNs])
  for (const n of named) for (const t of n.curve.readingTimesIn(fromNs, toNs)) readings.add(t)
  let edges: Float64Array = Float64Array.from(readings).sort()
  // A given curve places energy inside the sensor's periods (a fuel gauge's, spread as the phone's
  // models say): its readings alone would make a few buckets as long as a period.
  if (edges.length - 1 > maxBuckets || options.curve !== undefined)
    edges = evenEdges(fromNs, startNs, endNs, toNs, maxBuckets)
  const series: TimelineSeries[] = named.map((n) => {
    const powerW: number[] = []
    let before = n.curve.cumulativeJ(edges[0] as number)
    for (let i = 1; i < edges.length; i++) {
      const at = n.curve.cumulativeJ(edges[i] as number)
      powerW.push(((at - before) * NS_PER_S) / ((edges[i] as number) - (edges[i - 1] as number)))
      before = at
    }
    return {
      name: n.name,
      ...(n.subsystem === undefined ? {} : { subsystem: n.subsystem }),
      powerW,
    }
  })
  return {
    edgesNs: edges,
    timeline: { edgesS: Array.from(edges, (t) => (t - startNs) / NS_PER_S), series },
  }
}

function isRails(power: readonly RailSeries[] | PowerSeries): power is readonly RailSeries[] {
  return Array.isArray(power)
}

/** Equal buckets in each part (before, window, after), their counts in proportion to the parts' lengths. */
function evenEdges(
  fromNs: number,
  startNs: number,
  endNs: number,
  toNs: number,
  maxBuckets: number,
): Float64Array {
  const total = toNs - fromNs
  const count = (lengthNs: number): number =>
    lengthNs > 0 ? Math.max(1, Math.floor((maxBuckets * lengthNs) / total)) : 0
  let before = count(startNs - fromNs)
  let after = count(toNs - endNs)
  // The window keeps at least half of the buckets; context gives way.
  while (before + after > maxBuckets / 2) {
    if (before >= after && before > 0) before--
    else after--
  }
  const inside = maxBuckets - before - after
  const out: number[] = []
  const part = (a: number, b: number, n: number): void => {
    for (let i = 0; i < n; i++) out.push(a + ((b - a) * i) / n)
  }
  part(fromNs, startNs, before)
  part(startNs, endNs, inside)
  part(endNs, toNs, after)
  out.push(toNs)
  return Float64Array.from(out)
}

/**
 * For each of `methods`, how many of the app's threads had it on their stack over each bucket, on
 * average: stack samples count their CPU period (`periodNs`, else the window's length over its
 * samples) in the bucket of their time; a method trace counts the wall time each outermost call of
 * the method (recursion once) overlaps the bucket.
 */
export function activityLanes(
  execution: StackSampleSet | CallTrace,
  methods: readonly string[],
  edgesNs: Float64Array,
  window: EnergyWindow,
): ActivityLane[] {
  const buckets = edgesNs.length - 1
  if (methods.length === 0 || buckets < 1) return []
  const laneOf = new Map(methods.map((m, i) => [m, i]))
  const busyNs = methods.map(() => new Float64Array(buckets))
  if ('samples' in execution) addSamples(execution.samples, laneOf, busyNs, edgesNs, window)
  else addCalls(execution, laneOf, busyNs, edgesNs)
  return methods.map((method, i) => ({
    method,
    busy: Array.from(
      busyNs[i] as Float64Array,
      (ns, b) => ns / ((edgesNs[b + 1] as number) - (edgesNs[b] as number)),
    ),
  }))
}

function addSamples(
  samples: readonly StackSample[],
  laneOf: ReadonlyMap<string, number>,
  busyNs: readonly Float64Array[],
  edgesNs: Float64Array,
  window: EnergyWindow,
): void {
  const first = edgesNs[0] as number
  const last = edgesNs[edgesNs.length - 1] as number
  const inWindow = samples.filter((s) => s.tNs >= window.startNs && s.tNs <= window.endNs).length
  const defaultNs = inWindow > 0 ? (window.endNs - window.startNs) / inWindow : 0
  const seen = new Set<number>()
  for (const s of samples) {
    if (s.tNs < first || s.tNs > last) continue
    const b = Math.min(lastAtOrBefore(edgesNs, s.tNs), edgesNs.length - 2)
    seen.clear()
    for (const frame of s.frames) {
      const lane = laneOf.get(frame)
      if (lane === undefined || seen.has(lane)) continue
      seen.add(lane)
      const row = busyNs[lane] as Float64Array
      row[b] = (row[b] as number) + (s.periodNs ?? defaultNs)
    }
  }
}

function addCalls(
  trace: CallTrace,
  laneOf: ReadonlyMap<string, number>,
  busyNs: readonly Float64Array[],
  edgesNs: Float64Array,
): void {
  // Per thread, the open calls of each lane's method: only the outermost one counts.
  const calls = trace.calls
    .filter((c) => laneOf.has(c.method))
    .sort((a, b) => a.threadId - b.threadId || a.startNs - b.startNs || a.depth - b.depth)
  let thread = Number.NaN
  const openUntil = new Map<number, number>()
  for (const c of calls) {
    if (c.threadId !== thread) {
      thread = c.threadId
      openUntil.clear()
    }
    const lane = laneOf.get(c.method) as number
    if ((openUntil.get(lane) ?? -Infinity) > c.startNs) continue
    openUntil.set(lane, c.endNs)
    addSpan(busyNs[lane] as Float64Array, edgesNs, c.startNs, c.endNs)
  }
}

/** Adds the overlap of [fromNs, toNs) with each bucket. */
function addSpan(row: Float64Array, edgesNs: Float64Array, fromNs: number, toNs: number): void {
  const n = row.length
  let b = Math.max(0, lastAtOrBefore(edgesNs, fromNs))
  for (; b < n; b++) {
    const a = Math.max(fromNs, edgesNs[b] as number)
    const z = Math.min(toNs, edgesNs[b + 1] as number)
    if (a >= toNs) break
    if (z > a) row[b] = (row[b] as number) + (z - a)
  }
}
