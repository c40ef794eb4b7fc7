/**
 * Per-thread call intervals (the model's `CallTrace`) from an ART trace, from a parsed trace or
 * straight from chunks (memory grows with calls, not with records).
 *
 * Pairing follows dmtracedump's stack discipline (AOSP art/tools/dmtracedump/tracedump.cc,
 * parseDataKeys): enter pushes, exit/unwind pops; an exit with an empty stack is a call that was
 * already open when tracing started (it starts at time 0 of its clock, `clippedStart`); calls
 * still open at the end close at the thread's last event (`clippedEnd`). Where dmtracedump aborts
 * (an exit that does not match the top of the stack) this reader recovers and says so: it closes
 * the frames above the matching one (`clippedEnd`) or ignores an exit of a method not on the
 * stack, with a warning either way.
 */
import type { CallInterval, CallTrace, ClockName } from '../../model/index.js'
import { ArtTraceDecoder, clockInOtherSlot, type ArtRecordVisitor } from './decoder.js'
import { selectThreads } from './summary.js'
import type { ArtClock, ArtMethod, ArtTrace, ArtTraceInfo } from './types.js'

export interface ArtCallTraceOptions {
  /** Only this thread (name or id). @default all threads */
  readonly thread?: string | number
  /** How the trace was recorded (`am profile start --sampling` → 'sampling'). @default 'instrumentation' */
  readonly mode?: CallTrace['mode']
}

/** A `CallTrace` plus what the reader had to assume or repair. */
export interface ArtCallTrace extends CallTrace {
  readonly warnings: readonly string[]
}

const WRAP = 2 ** 32
const HALF_WRAP = 2 ** 31
const ENTER = 0
const UNWIND = 2

/** Unwraps one 32-bit µs counter, keeping it monotonic. */
class Unwrapper {
  private raw = -1
  private offset = 0
  private last = 0
  backwards = 0
  next(raw: number): number {
    if (this.raw >= 0 && raw < this.raw && this.raw - raw > HALF_WRAP) this.offset += WRAP
    this.raw = raw
    let t = raw + this.offset
    if (t < this.last) {
      t = this.last
      this.backwards++
    }
    this.last = t
    return t
  }
}

interface Frame {
  readonly methodId: number
  /** Unwrapped µs of the first / second time slot (thread-cpu / wall). */
  readonly cpuUs: number
  readonly wallUs: number
  readonly depth: number
}

/** A closed call, times still in µs per slot, names unresolved. */
interface RawCall {
  readonly threadId: number
  readonly methodId: number
  readonly startCpuUs: number
  readonly endCpuUs: number
  readonly startWallUs: number
  readonly endWallUs: number
  depth: number
  readonly clippedStart: boolean
  readonly clippedEnd: boolean
  readonly unwound: boolean
}

interface ThreadBuild {
  readonly stack: Frame[]
  /**
   * How many frames of each method are on `stack`, so that an exit of a method not on the stack
   * is known in O(1) and corrupt traces full of unmatched exits stay linear. Built at a thread's
   * first mismatched exit and kept from then on: valid traces never pay for it.
   */
  onStack: Map<number, number> | undefined
  readonly calls: RawCall[]
  readonly wall: Unwrapper
  readonly cpu: Unwrapper
  base: number
  lastWallUs: number
  lastCpuUs: number
}

/** Fully qualified `com.example.Foo.bar` from a method table entry. */
export function qualifiedMethodName(method: ArtMethod | undefined, methodId: number): string {
  if (method === undefined) return `unknown.0x${methodId.toString(16)}`
  const cls = method.className.replaceAll('/', '.')
  return method.name === '' ? cls : `${cls}.${method.name}`
}

/**
 * Pairs records into calls as they arrive (`visitor`), then resolves names, clock and thread
 * filter in `finish`, when the method table and clock are known (streaming files name them late).
 */
export class ArtCallTraceBuilder {
  private readonly threads = new Map<number, ThreadBuild>()
  private repaired = 0
  private ignored = 0
  readonly visitor: ArtRecordVisitor = (tid, methodId, action, cpu, wall) => {
    this.event(tid, methodId, action, cpu < 0 ? 0 : cpu, wall < 0 ? 0 : wall)
  }

  private event(tid: number, methodId: number, action: number, rawCpu: number, rawWall: number) {
    let t = this.threads.get(tid)
    if (t === undefined) {
      t = {
        stack: [],
        onStack: undefined,
        calls: [],
        wall: new Unwrapper(),
        cpu: new Unwrapper(),
        base: 0,
        lastWallUs: 0,
        lastCpuUs: 0,
      }
      this.threads.set(tid, t)
    }
    const cpuUs = t.cpu.next(rawCpu)
    const wallUs = t.wall.next(rawWall)
    t.lastCpuUs = cpuUs
    t.lastWallUs = wallUs
    if (action === ENTER) {
      t.stack.push({ methodId, cpuUs, wallUs, depth: t.base + t.stack.length })
      if (t.onStack !== undefined) t.onStack.set(methodId, (t.onStack.get(methodId) ?? 0) + 1)
      return
    }
    const unwound = action === UNWIND
    const top = t.stack[t.stack.length - 1]
    if (top === undefined) {
      // Open when tracing started: it sits one level below everything seen so far.
      t.base -= 1
      const frame = { methodId, cpuUs: 0, wallUs: 0, depth: t.base }
      close(t, tid, frame, cpuUs, wallUs, false, unwound, true)
      return
    }
    if (top.methodId === methodId) {
      pop(t)
      close(t, tid, top, cpuUs, wallUs, false, unwound, false)
      return
    }
    t.onStack ??= countFrames(t.stack)
    if ((t.onStack.get(methodId) ?? 0) === 0) {
      this.ignored++
      return
    }
    // The method is on the stack: close the frames above it (each frame is popped once, so the
    // walk is paid for by the enters that pushed them).
    for (;;) {
      const frame = pop(t)
      if (frame === undefined) break
      if (frame.methodId === methodId) {
        close(t, tid, frame, cpuUs, wallUs, false, unwound, false)
        break
      }
      this.repaired++
      close(t, tid, frame, cpuUs, wallUs, true, false, false)
    }
  }

  /**
   * Closes calls still open and builds the `CallTrace`.
   * @param recordClock the clock the decoder mapped records with, if it differs from `info.clock`
   */
  finish(
    info: ArtTraceInfo,
    options: ArtCallTraceOptions = {},
    recordClock: ArtClock = info.clock,
  ): ArtCallTrace {
    const only =
      options.thread === undefined ? undefined : selectThreads(info.threads, options.thread)
    // Single-clock streaming: the decoder put the one time field in the slot it assumed; the
    // slots are swapped back below where needed, so its note about that no longer applies.
    const swap = clockInOtherSlot(recordClock, info.clock)
    const warnings = info.warnings.filter(
      (w) => !(recordClock !== info.clock && w.startsWith('records were decoded as clock')),
    )
    const methods = new Map(info.methods.map((m) => [m.id, m]))
    const names = new Map<number, string>()
    const unknownIds = new Set<number>()
    const nameOf = (id: number): string => {
      let name = names.get(id)
      if (name === undefined) {
        const method = methods.get(id)
        if (method === undefined) unknownIds.add(id)
        name = qualifiedMethodName(method, id)
        names.set(id, name)
      }
      return name
    }
    const hasWall = info.clock !== 'thread-cpu'
    const hasCpu = info.clock !== 'wall'
    const clock: ClockName = !hasWall
      ? 'thread-cpu'
      : info.vm === 'dalvik'
        ? 'realtime'
        : 'monotonic'
    const originUs = hasWall ? info.startTimeUs : 0
    // Only the slots the final clock reads count their clamps (a 14-byte record's second field
    // under a single clock is ignored, backwards or not).
    const cpuSlotRead = info.clock === 'dual' || (info.clock === 'thread-cpu') !== swap
    const wallSlotRead = info.clock === 'dual' || (info.clock === 'wall') !== swap
    const calls: CallInterval[] = []
    let backwards = 0
    for (const [threadId, t] of this.threads) {
      for (let frame = pop(t); frame !== undefined; frame = pop(t)) {
        close(t, threadId, frame, t.lastCpuUs, t.lastWallUs, true, false, false)
      }
      backwards += (wallSlotRead ? t.wall.backwards : 0) + (cpuSlotRead ? t.cpu.backwards : 0)
      if (only !== undefined && !only.has(threadId)) continue
      for (const c of t.calls) {
        const cpu0 = swap ? c.startWallUs : c.startCpuUs
        const cpu1 = swap ? c.endWallUs : c.endCpuUs
        const wall0 = swap ? c.startCpuUs : c.startWallUs
        const wall1 = swap ? c.endCpuUs : c.endWallUs
        calls.push({
          threadId,
          method: nameOf(c.methodId),
          startNs: (originUs + (hasWall ? wall0 : cpu0)) * 1000,
          endNs: (originUs + (hasWall ? wall1 : cpu1)) * 1000,
          ...(hasCpu ? { cpuStartNs: cpu0 * 1000, cpuEndNs: cpu1 * 1000 } : {}),
          depth: c.depth - t.base,
          clippedStart: c.clippedStart,
          clippedEnd: c.clippedEnd,
          unwound: c.unwound,
        })
      }
    }
    this.threads.clear()
    calls.sort((a, b) => a.threadId - b.threadId || a.startNs - b.startNs || a.depth - b.depth)
    if (this.repaired > 0) {
      warnings.push(
        `${this.repaired} calls closed early: an exit skipped over them (lost records?)`,
      )
    }
    if (this.ignored > 0) {
      warnings.push(`${this.ignored} exits of methods not on their thread's stack ignored`)
    }
    if (unknownIds.size > 0) {
      warnings.push(`${unknownIds.size} method ids in records are missing from the method table`)
    }
    if (backwards > 0) warnings.push(`${backwards} times a clock went backwards; clamped`)
    const threadList =
      only === undefined ? info.threads : info.threads.filter((x) => only.has(x.id))
    return {
      clock,
      threads: threadList.map((x) => ({ id: x.id, name: x.name })),
      calls,
      overflowed: info.overflow,
      mode: options.mode ?? 'instrumentation',
      warnings,
    }
  }
}

function countFrames(stack: readonly Frame[]): Map<number, number> {
  const counts = new Map<number, number>()
  for (const f of stack) counts.set(f.methodId, (counts.get(f.methodId) ?? 0) + 1)
  return counts
}

/** Pops the top frame and keeps `onStack` in step. */
function pop(t: ThreadBuild): Frame | undefined {
  const frame = t.stack.pop()
  if (frame !== undefined && t.onStack !== undefined) {
    const n = (t.onStack.get(frame.methodId) ?? 1) - 1
    if (n === 0) t.onStack.delete(frame.methodId)
    else t.onStack.set(frame.methodId, n)
  }
  return frame
}

function close(
  t: ThreadBuild,
  threadId: number,
  frame: Frame,
  endCpuUs: number,
  endWallUs: number,
  clippedEnd: boolean,
  unwound: boolean,
  clippedStart: boolean,
): void {
  t.calls.push({
    threadId,
    methodId: frame.methodId,
    startCpuUs: frame.cpuUs,
    endCpuUs,
    startWallUs: frame.wallUs,
    endWallUs,
    depth: frame.depth,
    clippedStart,
    clippedEnd,
    unwound,
  })
}

const ACTION_CODE = { enter: 0, exit: 1, unwind: 2 } as const

/** Builds per-thread call intervals of a parsed trace; times become ns on the trace's clock. */
export function readArtCallTrace(trace: ArtTrace, options: ArtCallTraceOptions = {}): ArtCallTrace {
  const builder = new ArtCallTraceBuilder()
  const visit = builder.visitor
  for (const r of trace.records) {
    visit(r.threadId, r.methodId, ACTION_CODE[r.action], r.threadCpuUs ?? -1, r.wallUs ?? -1)
  }
  return builder.finish(trace, options)
}

/** The same straight from the bytes of a file, in one pass (records are never held). */
export function readArtCallTraceChunks(
  chunks: Iterable<Uint8Array>,
  options: ArtCallTraceOptions = {},
): ArtCallTrace {
  const builder = new ArtCallTraceBuilder()
  const decoder = new ArtTraceDecoder({ onRecord: builder.visitor })
  for (const chunk of chunks) decoder.push(chunk)
  const info = decoder.end()
  return builder.finish(info, options, decoder.recordClock)
}
