/**
 * Turns the simulation's call records into the ART method trace `am profile stop` writes: full
 * tracing (every enter/exit of calls that ran entirely inside the window) or sampling (a sampler
 * that diffs each thread's stack every interval, so enters/exits land on sample times, as ART's
 * sampling profiler does). `intendedEvents` is the list the writer is given, for tests comparing it
 * with `dmtracedump -o`.
 */
import {
  writeArtTrace,
  type ArtMethodInput,
  type ArtThread,
  type ArtTraceRecord,
} from '../../formats/art-trace/index.js'
import { methodOrigin } from '../../model/index.js'
import type { CallRecord, Simulation } from './simulation.js'

export interface ArtProfileRequest {
  readonly pid: number
  /** Boottime window, ns. */
  readonly startNs: number
  readonly stopNs: number
  /** CLOCK_MONOTONIC − CLOCK_BOOTTIME, ns (≤ 0): the trace's wall clock is monotonic. */
  readonly monotonicOffsetNs: number
  readonly samplingUs?: number
  readonly streaming?: boolean
  readonly clock?: 'dual' | 'wall' | 'thread-cpu'
  /** Buffer size for non-streaming traces, bytes; records beyond it are dropped (overflow). */
  readonly bufferBytes: number
}

export interface ArtProfileResult {
  readonly bytes: Uint8Array
  readonly records: readonly ArtTraceRecord[]
  readonly methods: readonly ArtMethodInput[]
  readonly threads: readonly ArtThread[]
  readonly overflow: boolean
}

interface Event {
  readonly tNs: number
  readonly cpuNs: number
  readonly call: CallRecord
  readonly enter: boolean
}

/** Enter/exit events of one thread's calls in `[start, stop]`, properly nested, time-ordered. */
function threadEvents(calls: readonly CallRecord[], start: number, stop: number): Event[] {
  const events: Event[] = []
  const stack: CallRecord[] = []
  // Frames that are not the new call's parent have returned before it was entered.
  const popUntil = (parentId: number): void => {
    for (;;) {
      const top = stack[stack.length - 1]
      if (top === undefined || top.id === parentId) return
      stack.pop()
      events.push({ tNs: top.exitNs, cpuNs: top.exitThreadCpuNs, call: top, enter: false })
    }
  }
  for (const call of calls) {
    if (call.cancelled || call.enterNs < start || call.exitNs > stop) continue
    popUntil(call.parentId)
    stack.push(call)
    events.push({ tNs: call.enterNs, cpuNs: call.enterThreadCpuNs, call, enter: true })
  }
  popUntil(-2)
  return events
}

/** Stack samples every `intervalNs`: emits exits/enters where consecutive stacks differ. */
function sampledEvents(
  events: readonly Event[],
  start: number,
  stop: number,
  intervalNs: number,
): Event[] {
  const out: Event[] = []
  const live: CallRecord[] = []
  let emitted: CallRecord[] = []
  let i = 0
  let lastT = start
  let lastCpu = events[0]?.cpuNs ?? 0
  for (let t = start + intervalNs; t <= stop; t += intervalNs) {
    while (i < events.length && (events[i]?.tNs ?? Infinity) <= t) {
      const e = events[i++]
      if (e === undefined) break
      if (e.enter) live.push(e.call)
      else live.pop()
      lastT = e.tNs
      lastCpu = e.cpuNs
    }
    const cpu = lastCpu + (live.length > 0 ? t - lastT : 0)
    let common = 0
    while (common < emitted.length && common < live.length && emitted[common] === live[common]) {
      common++
    }
    for (let k = emitted.length - 1; k >= common; k--) {
      const call = emitted[k]
      if (call !== undefined) out.push({ tNs: t, cpuNs: cpu, call, enter: false })
    }
    for (let k = common; k < live.length; k++) {
      const call = live[k]
      if (call !== undefined) out.push({ tNs: t, cpuNs: cpu, call, enter: true })
    }
    emitted = [...live]
  }
  return out
}

function splitMethod(method: string): { className: string; name: string } {
  const dot = method.lastIndexOf('.')
  return { className: method.slice(0, dot), name: method.slice(dot + 1) }
}

/** Builds the trace of the app process `pid` for the window. */
export function buildArtProfile(sim: Simulation, request: ArtProfileRequest): ArtProfileResult {
  const { startNs, stopNs } = request
  // Periodic work that fell due before the stop is scheduled lazily: bring it in first.
  sim.materialize(stopNs)
  const clock = request.clock ?? 'dual'
  const threads = sim.threadList()
  const byThread = new Map<number, CallRecord[]>()
  for (const call of sim.calls) {
    if (call.enterNs < startNs || call.exitNs > stopNs || call.cancelled) continue
    // ART traces Java methods only: the RenderThread's native frames never appear.
    if (methodOrigin(call.method) === 'native') continue
    const list = byThread.get(call.tid)
    if (list === undefined) byThread.set(call.tid, [call])
    else list.push(call)
  }
  // Each thread's events are already in time order: a k-way merge (ties: lower tid first) keeps
  // every thread's own order, which a sort by time alone might not.
  const lists: { tid: number; events: Event[]; i: number }[] = []
  for (const thread of threads) {
    const calls = byThread.get(thread.tid) ?? []
    let events = threadEvents(calls, startNs, stopNs)
    if (request.samplingUs !== undefined) {
      events = sampledEvents(events, startNs, stopNs, request.samplingUs * 1000)
    }
    if (events.length > 0) lists.push({ tid: thread.tid, events, i: 0 })
  }
  lists.sort((a, b) => a.tid - b.tid)

  const methodIds = new Map<string, number>()
  const methods: ArtMethodInput[] = []
  const firstCpu = new Map<number, number>()
  const records: ArtTraceRecord[] = []
  const wantCpu = clock !== 'wall'
  const wantWall = clock !== 'thread-cpu'
  for (;;) {
    let pick: (typeof lists)[number] | undefined
    let pickT = Number.POSITIVE_INFINITY
    for (const list of lists) {
      const t = list.events[list.i]?.tNs
      if (t !== undefined && t < pickT) {
        pick = list
        pickT = t
      }
    }
    if (pick === undefined) break
    const e = pick.events[pick.i++]
    if (e === undefined) break
    const tid = pick.tid
    let id = methodIds.get(e.call.method)
    if (id === undefined) {
      id = 0x1000 + methods.length * 4
      methodIds.set(e.call.method, id)
      methods.push({
        id,
        ...splitMethod(e.call.method),
        signature: e.call.signature,
        file: e.call.file,
      })
    }
    let cpu0 = firstCpu.get(tid)
    if (cpu0 === undefined) {
      cpu0 = e.cpuNs
      firstCpu.set(tid, cpu0)
    }
    const action = e.enter ? 'enter' : 'exit'
    const threadCpuUs = Math.floor((e.cpuNs - cpu0) / 1000)
    const wallUs = Math.floor((e.tNs - startNs) / 1000)
    records.push(
      wantCpu && wantWall
        ? { threadId: tid, methodId: id, action, threadCpuUs, wallUs }
        : wantCpu
          ? { threadId: tid, methodId: id, action, threadCpuUs }
          : { threadId: tid, methodId: id, action, wallUs },
    )
  }
  const recordBytes = clock === 'dual' ? 14 : 10
  let overflow = false
  let kept = records
  if (request.streaming !== true) {
    const room = Math.floor(Math.max(0, request.bufferBytes - 32) / recordBytes)
    if (records.length > room) {
      overflow = true
      kept = records.slice(0, room)
    }
  }
  const traceThreads: ArtThread[] = threads.map((t) => ({ id: t.tid, name: t.name }))
  const bytes = writeArtTrace({
    clock,
    streaming: request.streaming ?? false,
    overflow,
    threads: traceThreads,
    methods,
    pid: request.pid,
    startTimeUs: Math.floor((startNs + request.monotonicOffsetNs) / 1000),
    elapsedTimeUs: Math.floor((stopNs - startNs) / 1000),
    clockCallOverheadNs: 1974,
    records: kept,
  })
  return { bytes, records: kept, methods, threads: traceThreads, overflow }
}
