/**
 * Interval attribution (PETrA Eqs. 1–3, vLens Fig. 4): a call's energy is the net energy of the
 * time it was its thread's innermost call. How a sensor interval's energy is spread in time is
 * `split`: by the traced threads' activity in it (counters' default), or ∫P with the curve's
 * interpolation (PETrA, instantaneous readings' default). Concurrent threads share by own
 * thread-CPU rate (dual clock) or 1/N (vLens Fig. 4); with a CPU schedule, each rail's energy goes
 * to what ran on its CPUs. Exclusive (local) energy is what a call gets while it is innermost;
 * inclusive adds its children on the same thread. Recursive methods count once per stack.
 */
import type { EnergyWindow, MethodEnergy } from '../model/energy.js'
import { methodEnergy } from '../model/build.js'
import type { CallInterval, CallTrace, CpuSchedule } from '../model/samples.js'
import { NS_PER_S } from '../model/units.js'
import { AttributionErrors, attributionError } from './errors.js'
import {
  forEachInterval,
  netEnergyJ,
  partIntervals,
  partRunning,
  scheduleThreadMatcher,
  type PowerPart,
} from './_parts.js'
import { lastAtOrBefore, type EnergyCurve } from './curve.js'
import type { TailCharge } from './tails.js'

/**
 * How a segment's energy is shared among threads that all have a call open.
 * - `auto` (default): by thread-CPU rate when every open call has `cpuStartNs`/`cpuEndNs`
 *   (dual clock), else 1/N.
 * - `equal`: always 1/N (vLens Fig. 4).
 */
export type ThreadShare = 'auto' | 'equal'

/**
 * How the energy of one sensor interval (between two readings) is divided in time.
 * - `auto` (default): `activity` for cumulative counters (ODPM, energy counters: the energy between
 *   two readings is all they tell), `time` for instantaneous power readings (which say what the
 *   power was at their instant, and the curve interpolates between them).
 * - `activity`: in proportion to the traced threads' activity inside it — thread-CPU time
 *   with a dual clock, else the time each thread has a call open. The sensor cannot say when inside
 *   its interval the energy was spent, and the trace can: a 5 ms call in a 100 ms ODPM interval
 *   whose only activity it is gets the interval's whole net energy. Intervals without traced
 *   activity stay unattributed (`idleEnergyJ`).
 * - `time`: ∫P over each call with the curve's own interpolation (PETrA): a call shorter than the
 *   sensor's interval gets the interval's average power, idle time included.
 */
export type IntervalSplit = 'auto' | 'activity' | 'time'

export interface IntervalOptions {
  readonly window: EnergyWindow
  /** Subtracted from the power before sharing, W. @default 0 */
  readonly baselinePowerW?: number
  /** Modelled tail energy, removed from the power methods are charged with. @default [] */
  readonly tails?: readonly TailCharge[]
  /** @default 'auto' */
  readonly threadShare?: ThreadShare
  /** @default 'auto' (see `IntervalSplit`) */
  readonly split?: IntervalSplit
  /**
   * With `activity`: divide these instead of `curve` minus `baselinePowerW` and `tails` — e.g. each
   * SoC rail above its floor, cluster rails with their CPUs. Their sum should be that same power.
   */
  readonly parts?: readonly PowerPart[]
  /**
   * What ran on each CPU (sched_switch), on the trace's clock and thread ids. With `activity`, each
   * part's interval energy then goes to the threads that ran on its CPUs, by running time: a big
   * core's rail to the thread on the big core, a share to other processes (left unattributed).
   */
  readonly schedule?: CpuSchedule
}

/** Energy of one call (PETrA reports per call). */
export interface CallEnergy {
  readonly call: CallInterval
  /** Inside the window, ns. */
  readonly startNs: number
  readonly endNs: number
  readonly exclusiveEnergyJ: number
  readonly inclusiveEnergyJ: number
}

export interface IntervalAttribution {
  /** Per method, `attribution: 'interval'`, without async energy (see `mergeAsync`). */
  readonly methods: readonly MethodEnergy[]
  readonly calls: readonly CallEnergy[]
  /**
   * Net (minus baseline and tails) energy no traced call got, J: while none was open, or (with a
   * CPU schedule) other processes' and untraced threads' share.
   */
  readonly idleEnergyJ: number
  /** Σ local energy over methods, J. */
  readonly attributedEnergyJ: number
}

interface Node {
  readonly call: CallInterval
  readonly startNs: number
  readonly endNs: number
  readonly parent: number
  /**
   * Thread-CPU ns per wall ns while the call is innermost (its children's times removed), or NaN
   * when the trace has no CPU clock.
   */
  readonly cpuRate: number
  exclusiveJ: number
  inclusiveJ: number
  /** An ancestor on the same thread is the same method (recursion: count inclusive once). */
  readonly recursive: boolean
}

export function attributeIntervals(
  trace: CallTrace,
  curve: EnergyCurve,
  options: IntervalOptions,
): IntervalAttribution {
  const { window } = options
  if (
    trace.clock !== curve.clock ||
    trace.clock !== window.clock ||
    (options.schedule !== undefined && options.schedule.clock !== trace.clock)
  ) {
    throw attributionError(
      AttributionErrors.CLOCK_MISMATCH,
      `method trace is on ${trace.clock}, power on ${curve.clock}, window on ${window.clock}${options.schedule === undefined ? '' : `, CPU schedule on ${options.schedule.clock}`}`,
      'Map the trace and the power data onto the window clock before attribution.',
      { format: 'method trace' },
    )
  }
  const baselineW = options.baselinePowerW ?? 0
  const tails = options.tails ?? []
  const share = options.threadShare ?? 'auto'
  const split =
    (options.split ?? 'auto') === 'auto'
      ? curve.kind === 'cumulative'
        ? 'activity'
        : 'time'
      : options.split

  // 1. Clip to the window, sort per thread, rebuild the nesting from time containment.
  const clipped: Array<{ call: CallInterval; startNs: number; endNs: number; index: number }> = []
  trace.calls.forEach((call, index) => {
    if (
      !Number.isFinite(call.startNs) ||
      !Number.isFinite(call.endNs) ||
      call.endNs < call.startNs
    ) {
      throw attributionError(
        AttributionErrors.BAD_TRACE,
        `call ${index} (${call.method}) ends before it starts (${call.startNs} → ${call.endNs} ns)`,
        'The trace is corrupt or was mapped with the wrong clock; re-record it.',
        { format: 'method trace', index },
      )
    }
    const startNs = Math.max(call.startNs, window.startNs)
    const endNs = Math.min(call.endNs, window.endNs)
    if (endNs > startNs) clipped.push({ call, startNs, endNs, index })
  })
  clipped.sort(
    (a, b) =>
      a.call.threadId - b.call.threadId ||
      a.startNs - b.startNs ||
      b.endNs - a.endNs ||
      a.call.depth - b.call.depth,
  )
  const ownRate = ownCpuRates(trace.calls)
  const nodes: Node[] = []
  const stack: number[] = []
  let thread = Number.NaN
  for (const c of clipped) {
    if (c.call.threadId !== thread) {
      stack.length = 0
      thread = c.call.threadId
    }
    while (
      stack.length > 0 &&
      (nodes[stack[stack.length - 1] as number] as Node).endNs <= c.startNs
    ) {
      stack.pop()
    }
    const parent = stack.length > 0 ? (stack[stack.length - 1] as number) : -1
    const parentNode = nodes[parent]
    if (parentNode !== undefined && c.endNs > parentNode.endNs) {
      throw attributionError(
        AttributionErrors.BAD_TRACE,
        `call ${c.index} (${c.call.method}) on thread ${c.call.threadId} overlaps its caller ${parentNode.call.method} without nesting in it`,
        'Calls on one thread must nest; the trace is corrupt or two threads share an id.',
        { format: 'method trace', index: c.index },
      )
    }
    let recursive = false
    for (const s of stack) if ((nodes[s] as Node).call.method === c.call.method) recursive = true
    const cpu = ownRate[c.index] as number
    nodes.push({
      call: c.call,
      startNs: c.startNs,
      endNs: c.endNs,
      parent,
      cpuRate: Number.isFinite(cpu) && cpu >= 0 ? cpu : Number.NaN,
      exclusiveJ: 0,
      inclusiveJ: 0,
      recursive,
    })
    stack.push(nodes.length - 1)
  }

  // 2. Sweep: between consecutive event times the innermost open call of each thread is fixed.
  interface Event {
    readonly tNs: number
    readonly node: number
    readonly open: boolean
  }
  const events: Event[] = []
  nodes.forEach((n, i) => {
    events.push({ tNs: n.startNs, node: i, open: true }, { tNs: n.endNs, node: i, open: false })
  })
  // Closes before opens at the same instant; children close before parents, parents open first.
  events.sort(
    (a, b) =>
      a.tNs - b.tNs ||
      Number(a.open) - Number(b.open) ||
      (a.open ? a.node - b.node : b.node - a.node),
  )
  const whole: PowerPart = { curve, baselinePowerW: baselineW, tails }

  // Segments between event times, each with the innermost open call of every active thread
  // (flat lists: segment i's calls are segNodes[segFrom[i] .. segFrom[i + 1])).
  const segT0: number[] = []
  const segT1: number[] = []
  const segFrom: number[] = [0]
  const segNodes: number[] = []
  /** Activity of each call in the segment: its own CPU rate with a dual clock, else 1. */
  const segRate: number[] = []
  {
    const innermost = new Map<number, number[]>() // thread → stack of node indices
    let prevT = window.startNs
    let k = 0
    while (k <= events.length) {
      const tNs = k < events.length ? (events[k] as Event).tNs : window.endNs
      if (tNs > prevT) {
        const from = segNodes.length
        let dual = true
        for (const st of innermost.values()) {
          const top = st[st.length - 1]
          if (top === undefined) continue
          segNodes.push(top)
          if (Number.isNaN((nodes[top] as Node).cpuRate)) dual = false
        }
        let rateSum = 0
        for (let i = from; i < segNodes.length; i++) {
          rateSum += (nodes[segNodes[i] as number] as Node).cpuRate
        }
        // 1/N when the rates are unknown, or all zero (in `time`, which gives every segment energy).
        const useCpu = share === 'auto' && dual && (split === 'activity' || rateSum > 0)
        for (let i = from; i < segNodes.length; i++) {
          segRate.push(useCpu ? (nodes[segNodes[i] as number] as Node).cpuRate : 1)
        }
        segT0.push(prevT)
        segT1.push(tNs)
        segFrom.push(segNodes.length)
        prevT = tNs
      }
      if (k === events.length) break
      // Apply every event at this instant.
      while (k < events.length && (events[k] as Event).tNs === tNs) {
        const ev = events[k] as Event
        const node = nodes[ev.node] as Node
        let st = innermost.get(node.call.threadId)
        if (st === undefined) {
          st = []
          innermost.set(node.call.threadId, st)
        }
        if (ev.open) st.push(ev.node)
        else {
          const at = st.lastIndexOf(ev.node)
          if (at >= 0) st.splice(at, 1)
        }
        k++
      }
    }
  }
  const segments = segT0.length

  let idleEnergyJ = 0
  if (split === 'time') {
    for (let g = 0; g < segments; g++) {
      const e = netEnergyJ(whole, segT0[g] as number, segT1[g] as number)
      const from = segFrom[g] as number
      const to = segFrom[g + 1] as number
      if (to === from) {
        idleEnergyJ += e
        continue
      }
      let rateSum = 0
      for (let i = from; i < to; i++) rateSum += segRate[i] as number
      for (let i = from; i < to; i++) {
        ;(nodes[segNodes[i] as number] as Node).exclusiveJ += (e * (segRate[i] as number)) / rateSum
      }
    }
  } else {
    const seg = { t0: segT0, t1: segT1, from: segFrom, nodes: segNodes, rate: segRate }
    const parts = options.parts ?? [whole]
    const schedule = options.schedule
    const threadNames = new Map<number, string | undefined>(
      trace.threads.map((t) => [t.id, t.name]),
    )
    for (const n of nodes)
      if (!threadNames.has(n.call.threadId)) threadNames.set(n.call.threadId, undefined)
    // The traced threads' timelines are the same for every part: built once.
    const lines = schedule === undefined ? undefined : threadTimelines(nodes, seg)
    for (const part of parts) {
      idleEnergyJ +=
        schedule === undefined || lines === undefined
          ? splitByActivity(part, window, nodes, seg)
          : splitBySchedule(part, window, nodes, lines, schedule, threadNames, parts)
    }
  }

  // 3. Inclusive = exclusive + children (children come after parents in the sorted order).
  for (const n of nodes) n.inclusiveJ = n.exclusiveJ
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i] as Node
    const p = nodes[n.parent]
    if (p !== undefined) p.inclusiveJ += n.inclusiveJ
  }

  // 4. Per method.
  interface Acc {
    localJ: number
    inclusiveJ: number
    calls: number
    localNs: number
    inclusiveNs: number
  }
  const byMethod = new Map<string, Acc>()
  const childNs = new Float64Array(nodes.length)
  nodes.forEach((n) => {
    const p = n.parent
    if (p >= 0) childNs[p] = (childNs[p] as number) + (n.endNs - n.startNs)
  })
  nodes.forEach((n, i) => {
    let acc = byMethod.get(n.call.method)
    if (acc === undefined) {
      acc = { localJ: 0, inclusiveJ: 0, calls: 0, localNs: 0, inclusiveNs: 0 }
      byMethod.set(n.call.method, acc)
    }
    acc.calls++
    acc.localJ += n.exclusiveJ
    acc.localNs += n.endNs - n.startNs - (childNs[i] as number)
    if (!n.recursive) {
      acc.inclusiveJ += n.inclusiveJ
      acc.inclusiveNs += n.endNs - n.startNs
    }
  })
  const methods: MethodEnergy[] = []
  let attributedEnergyJ = 0
  for (const [method, acc] of byMethod) {
    attributedEnergyJ += acc.localJ
    methods.push(
      methodEnergy({
        method,
        attribution: 'interval',
        localEnergyJ: acc.localJ,
        nonLocalEnergyJ: acc.inclusiveJ - acc.localJ,
        calls: acc.calls,
        localTimeS: acc.localNs / NS_PER_S,
        inclusiveTimeS: acc.inclusiveNs / NS_PER_S,
      }),
    )
  }
  return {
    methods,
    calls: nodes.map((n) => ({
      call: n.call,
      startNs: n.startNs,
      endNs: n.endNs,
      exclusiveEnergyJ: n.exclusiveJ,
      inclusiveEnergyJ: n.inclusiveJ,
    })),
    idleEnergyJ,
    attributedEnergyJ,
  }
}

/**
 * Each call's own thread-CPU rate: its CPU time minus its children's over its wall time minus
 * theirs (the rate while it is innermost); NaN without a CPU clock. Nesting is taken from the
 * whole trace, so the rate of a call does not depend on the window that clips it.
 */
function ownCpuRates(calls: readonly CallInterval[]): Float64Array {
  const rate = new Float64Array(calls.length).fill(Number.NaN)
  const order = calls
    .map((_, i) => i)
    .sort((i, j) => {
      const a = calls[i] as CallInterval
      const b = calls[j] as CallInterval
      return (
        a.threadId - b.threadId || a.startNs - b.startNs || b.endNs - a.endNs || a.depth - b.depth
      )
    })
  const childCpuNs = new Float64Array(calls.length)
  const childWallNs = new Float64Array(calls.length)
  const stack: number[] = []
  let thread = Number.NaN
  for (const i of order) {
    const c = calls[i] as CallInterval
    if (c.threadId !== thread) {
      stack.length = 0
      thread = c.threadId
    }
    while (
      stack.length > 0 &&
      (calls[stack[stack.length - 1] as number] as CallInterval).endNs <= c.startNs
    ) {
      stack.pop()
    }
    const parent = stack[stack.length - 1]
    if (parent !== undefined && c.cpuStartNs !== undefined && c.cpuEndNs !== undefined) {
      childCpuNs[parent] = (childCpuNs[parent] as number) + (c.cpuEndNs - c.cpuStartNs)
      childWallNs[parent] = (childWallNs[parent] as number) + (c.endNs - c.startNs)
    }
    stack.push(i)
  }
  calls.forEach((c, i) => {
    if (c.cpuStartNs === undefined || c.cpuEndNs === undefined) return
    const wallNs = c.endNs - c.startNs
    const ownWallNs = wallNs - (childWallNs[i] as number)
    const ownCpuNs = c.cpuEndNs - c.cpuStartNs - (childCpuNs[i] as number)
    const r = ownWallNs > 0 ? ownCpuNs / ownWallNs : (c.cpuEndNs - c.cpuStartNs) / (wallNs || 1)
    rate[i] = Number.isFinite(r) ? Math.max(0, r) : Number.NaN
  })
  return rate
}

interface Segments {
  readonly t0: readonly number[]
  readonly t1: readonly number[]
  readonly from: readonly number[]
  readonly nodes: readonly number[]
  readonly rate: readonly number[]
}

/** A traced thread's timeline: segments [t0, t1) with its innermost open call, and their starts. */
interface ThreadTimeline {
  readonly t0: number[]
  readonly t1: number[]
  readonly node: number[]
  readonly starts: Float64Array
}

/** Each traced thread's timeline, by thread id. */
function threadTimelines(nodes: readonly Node[], seg: Segments): Map<number, ThreadTimeline> {
  const timeline = new Map<number, { t0: number[]; t1: number[]; node: number[] }>()
  for (let g = 0; g < seg.t0.length; g++) {
    for (let i = seg.from[g] as number; i < (seg.from[g + 1] as number); i++) {
      const node = seg.nodes[i] as number
      const tid = (nodes[node] as Node).call.threadId
      let line = timeline.get(tid)
      if (line === undefined) {
        line = { t0: [], t1: [], node: [] }
        timeline.set(tid, line)
      }
      line.t0.push(seg.t0[g] as number)
      line.t1.push(seg.t1[g] as number)
      line.node.push(node)
    }
  }
  return new Map(
    [...timeline].map(([tid, line]) => [tid, { ...line, starts: Float64Array.from(line.t0) }]),
  )
}

/**
 * `activity` with a CPU schedule: each sensor interval's energy of the part goes to whatever ran on
 * the part's CPUs in it, by running time. A traced thread's running time goes to its innermost
 * open call; other processes' and untraced time stay unattributed. Returns the unattributed J.
 */
function splitBySchedule(
  part: PowerPart,
  window: EnergyWindow,
  nodes: Node[],
  timeline: ReadonlyMap<number, ThreadTimeline>,
  schedule: CpuSchedule,
  threadNames: ReadonlyMap<number, string | undefined>,
  clusterParts: readonly PowerPart[],
): number {
  const threadOf = scheduleThreadMatcher(threadNames)
  const { bounds, energyJ, insideJ, slices, shareOf, intervalCursor } = partRunning(
    part,
    schedule,
    window,
    clusterParts,
  )
  // Each traced piece of a slice (its thread's innermost call over a stretch), charged in turn.
  let attributedJ = 0
  const intervals = bounds.length - 1
  for (const slice of slices) {
    const a = Math.max(slice.startNs, window.startNs)
    const b = Math.min(slice.endNs, window.endNs)
    if (!(b > a)) continue
    const tid = threadOf(slice)
    const line = tid === undefined ? undefined : timeline.get(tid)
    if (line === undefined) continue
    const lineStarts = line.starts
    const cursor = intervalCursor(slice.cpu)
    let k = Math.max(0, lastAtOrBefore(lineStarts, a))
    for (; k < line.t0.length && (line.t0[k] as number) < b; k++) {
      const t0 = Math.max(a, line.t0[k] as number)
      const t1 = Math.min(b, line.t1[k] as number)
      if (!(t1 > t0)) continue
      const node = nodes[line.node[k] as number] as Node
      // forEachInterval's loop, inlined.
      for (let j = Math.max(0, cursor.index(t0)); j < intervals; j++) {
        if ((bounds[j] as number) >= t1) break
        const overlap = Math.min(t1, bounds[j + 1] as number) - Math.max(t0, bounds[j] as number)
        if (!(overlap > 0)) continue
        const from = Math.max(t0, bounds[j] as number)
        const share = (energyJ[j] as number) * shareOf(slice.cpu, from, from + overlap, j)
        node.exclusiveJ += share
        attributedJ += share
      }
    }
  }
  return insideJ - attributedJ
}

/**
 * `activity` without a schedule: each sensor interval's net energy goes to the calls active in it,
 * in proportion to their activity (own thread-CPU time, or open time without a CPU clock).
 * Returns the energy of intervals without traced activity, J.
 */
function splitByActivity(
  part: PowerPart,
  window: EnergyWindow,
  nodes: Node[],
  seg: Segments,
): number {
  const { bounds, energyJ } = partIntervals(part, window)
  const segments = seg.t0.length
  const activity = new Float64Array(energyJ.length)
  for (let g = 0; g < segments; g++) {
    let rate = 0
    for (let i = seg.from[g] as number; i < (seg.from[g + 1] as number); i++) {
      rate += seg.rate[i] as number
    }
    if (!(rate > 0)) continue
    forEachInterval(bounds, seg.t0[g] as number, seg.t1[g] as number, (j, overlap) => {
      activity[j] = (activity[j] as number) + rate * overlap
    })
  }
  let idleJ = 0
  for (let j = 0; j < energyJ.length; j++) {
    if (!((activity[j] as number) > 0)) idleJ += energyJ[j] as number
  }
  for (let g = 0; g < segments; g++) {
    for (let i = seg.from[g] as number; i < (seg.from[g + 1] as number); i++) {
      const rate = seg.rate[i] as number
      if (!(rate > 0)) continue
      const node = nodes[seg.nodes[i] as number] as Node
      forEachInterval(bounds, seg.t0[g] as number, seg.t1[g] as number, (j, overlap) => {
        node.exclusiveJ += ((energyJ[j] as number) * rate * overlap) / (activity[j] as number)
      })
    }
  }
  return idleJ
}
