/**
 * Interval attribution (PETrA Eqs. 1–3, vLens Fig. 4): the energy of a call is ∫P over its
 * interval. While several threads have a call open, each segment's energy is shared among them by
 * their thread-CPU rate when the trace has a dual clock, equally (1/N, vLens Fig. 4) otherwise.
 * Exclusive (local) energy is what a call gets while it is the innermost call on its thread;
 * inclusive adds its children on the same thread. Recursive methods count once per stack.
 */
import type { EnergyWindow, MethodEnergy } from '../model/energy.js'
import { methodEnergy } from '../model/build.js'
import type { CallInterval, CallTrace } from '../model/samples.js'
import { NS_PER_S } from '../model/units.js'
import type { EnergyCurve } from './curve.js'
import { AttributionErrors, attributionError } from './errors.js'
import { tailCumulativeJ, type TailCharge } from './tails.js'

/**
 * How a segment's energy is shared among threads that all have a call open.
 * - `auto` (default): by thread-CPU rate when every open call has `cpuStartNs`/`cpuEndNs`
 *   (dual clock), else 1/N.
 * - `equal`: always 1/N (vLens Fig. 4).
 */
export type ThreadShare = 'auto' | 'equal'

export interface IntervalOptions {
  readonly window: EnergyWindow
  /** Subtracted from the power before sharing, W. @default 0 */
  readonly baselinePowerW?: number
  /** Modelled tail energy, removed from the power methods are charged with. @default [] */
  readonly tails?: readonly TailCharge[]
  /** @default 'auto' */
  readonly threadShare?: ThreadShare
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
  /** Net (minus baseline and tails) energy while no traced call was open, J. */
  readonly idleEnergyJ: number
  /** Σ local energy over methods, J. */
  readonly attributedEnergyJ: number
}

interface Node {
  readonly call: CallInterval
  readonly startNs: number
  readonly endNs: number
  readonly parent: number
  /** Thread-CPU ns per wall ns over the call, or NaN when the trace has no CPU clock. */
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
  if (trace.clock !== curve.clock || trace.clock !== window.clock) {
    throw attributionError(
      AttributionErrors.CLOCK_MISMATCH,
      `method trace is on ${trace.clock}, power on ${curve.clock}, window on ${window.clock}`,
      'Map the trace and the power data onto the window clock before attribution.',
      { format: 'method trace' },
    )
  }
  const baselineW = options.baselinePowerW ?? 0
  const tails = options.tails ?? []
  const share = options.threadShare ?? 'auto'

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
    const cpu =
      c.call.cpuStartNs !== undefined && c.call.cpuEndNs !== undefined
        ? (c.call.cpuEndNs - c.call.cpuStartNs) / (c.call.endNs - c.call.startNs || 1)
        : Number.NaN
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
  const netJ = (a: number, b: number): number =>
    curve.energyJ(a, b) -
    (baselineW * (b - a)) / NS_PER_S -
    (tailCumulativeJ(tails, b) - tailCumulativeJ(tails, a))

  const innermost = new Map<number, number[]>() // thread → stack of node indices
  const active: number[] = [] // innermost node of each active thread (rebuilt per segment)
  let idleEnergyJ = 0
  let prevT = window.startNs
  let k = 0
  while (k <= events.length) {
    const tNs = k < events.length ? (events[k] as Event).tNs : window.endNs
    if (tNs > prevT) {
      const e = netJ(prevT, tNs)
      active.length = 0
      for (const s of innermost.values()) {
        const top = s[s.length - 1]
        if (top !== undefined) active.push(top)
      }
      if (active.length === 0) {
        idleEnergyJ += e
      } else {
        let useCpu = share === 'auto'
        let rateSum = 0
        for (const a of active) {
          const r = (nodes[a] as Node).cpuRate
          if (Number.isNaN(r)) useCpu = false
          else rateSum += r
        }
        if (!(rateSum > 0)) useCpu = false
        for (const a of active) {
          const node = nodes[a] as Node
          node.exclusiveJ += useCpu ? (e * node.cpuRate) / rateSum : e / active.length
        }
      }
      prevT = tNs
    }
    if (k === events.length) break
    // Apply every event at this instant.
    while (k < events.length && (events[k] as Event).tNs === tNs) {
      const ev = events[k] as Event
      const node = nodes[ev.node] as Node
      let s = innermost.get(node.call.threadId)
      if (s === undefined) {
        s = []
        innermost.set(node.call.threadId, s)
      }
      if (ev.open) s.push(ev.node)
      else {
        const at = s.lastIndexOf(ev.node)
        if (at >= 0) s.splice(at, 1)
      }
      k++
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
