/**
 * Per-thread call intervals (the model's `CallTrace`) from a parsed ART trace.
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
import { selectThreads } from './summary.js'
import type { ArtMethod, ArtTrace } from './types.js'

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

interface Frame {
  readonly methodId: number
  readonly wallUs: number
  readonly cpuUs: number
  readonly depth: number
}

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

interface ThreadBuild {
  readonly stack: Frame[]
  readonly calls: Array<Omit<CallInterval, 'depth'> & { depth: number }>
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

/** Builds per-thread call intervals; times become ns on the trace's clock. */
export function readArtCallTrace(trace: ArtTrace, options: ArtCallTraceOptions = {}): ArtCallTrace {
  const only =
    options.thread === undefined ? undefined : selectThreads(trace.threads, options.thread)
  const warnings = [...trace.warnings]
  const methods = new Map(trace.methods.map((m) => [m.id, m]))
  const names = new Map<number, string>()
  const nameOf = (id: number): string => {
    let name = names.get(id)
    if (name === undefined) {
      name = qualifiedMethodName(methods.get(id), id)
      names.set(id, name)
    }
    return name
  }
  const hasWall = trace.clock !== 'thread-cpu'
  const hasCpu = trace.clock !== 'wall'
  const clock: ClockName = !hasWall
    ? 'thread-cpu'
    : trace.vm === 'dalvik'
      ? 'realtime'
      : 'monotonic'
  const originUs = hasWall ? trace.startTimeUs : 0
  const threads = new Map<number, ThreadBuild>()
  const unknownIds = new Set<number>()
  let repaired = 0
  let ignored = 0

  const close = (
    t: ThreadBuild,
    threadId: number,
    frame: Frame,
    endWallUs: number,
    endCpuUs: number,
    flags: { clippedStart: boolean; clippedEnd: boolean; unwound: boolean },
  ): void => {
    const startUs = hasWall ? frame.wallUs : frame.cpuUs
    const endUs = hasWall ? endWallUs : endCpuUs
    t.calls.push({
      threadId,
      method: nameOf(frame.methodId),
      startNs: (originUs + startUs) * 1000,
      endNs: (originUs + endUs) * 1000,
      ...(hasCpu ? { cpuStartNs: frame.cpuUs * 1000, cpuEndNs: endCpuUs * 1000 } : {}),
      depth: frame.depth,
      ...flags,
    })
  }

  for (const r of trace.records) {
    if (only !== undefined && !only.has(r.threadId)) continue
    let t = threads.get(r.threadId)
    if (t === undefined) {
      t = {
        stack: [],
        calls: [],
        wall: new Unwrapper(),
        cpu: new Unwrapper(),
        base: 0,
        lastWallUs: 0,
        lastCpuUs: 0,
      }
      threads.set(r.threadId, t)
    }
    const wallUs = hasWall ? t.wall.next(r.wallUs ?? 0) : 0
    const cpuUs = hasCpu ? t.cpu.next(r.threadCpuUs ?? 0) : 0
    t.lastWallUs = wallUs
    t.lastCpuUs = cpuUs
    if (!methods.has(r.methodId)) unknownIds.add(r.methodId)
    if (r.action === 'enter') {
      t.stack.push({ methodId: r.methodId, wallUs, cpuUs, depth: t.base + t.stack.length })
      continue
    }
    const unwound = r.action === 'unwind'
    const top = t.stack[t.stack.length - 1]
    if (top === undefined) {
      // Open when tracing started: it sits one level below everything seen so far.
      t.base -= 1
      const frame = { methodId: r.methodId, wallUs: 0, cpuUs: 0, depth: t.base }
      close(t, r.threadId, frame, wallUs, cpuUs, { clippedStart: true, clippedEnd: false, unwound })
      continue
    }
    if (top.methodId === r.methodId) {
      t.stack.pop()
      close(t, r.threadId, top, wallUs, cpuUs, { clippedStart: false, clippedEnd: false, unwound })
      continue
    }
    const at = t.stack.map((f) => f.methodId).lastIndexOf(r.methodId)
    if (at < 0) {
      ignored++
      continue
    }
    while (t.stack.length > at + 1) {
      const frame = t.stack.pop()
      if (frame === undefined) break
      repaired++
      close(t, r.threadId, frame, wallUs, cpuUs, {
        clippedStart: false,
        clippedEnd: true,
        unwound: false,
      })
    }
    const frame = t.stack.pop()
    if (frame !== undefined) {
      close(t, r.threadId, frame, wallUs, cpuUs, {
        clippedStart: false,
        clippedEnd: false,
        unwound,
      })
    }
  }

  const calls: CallInterval[] = []
  let backwards = 0
  for (const [threadId, t] of threads) {
    while (t.stack.length > 0) {
      const frame = t.stack.pop()
      if (frame === undefined) break
      close(t, threadId, frame, t.lastWallUs, t.lastCpuUs, {
        clippedStart: false,
        clippedEnd: true,
        unwound: false,
      })
    }
    backwards += t.wall.backwards + t.cpu.backwards
    for (const call of t.calls) calls.push({ ...call, depth: call.depth - t.base })
  }
  calls.sort((a, b) => a.threadId - b.threadId || a.startNs - b.startNs || a.depth - b.depth)
  if (repaired > 0) {
    warnings.push(`${repaired} calls closed early: an exit skipped over them (lost records?)`)
  }
  if (ignored > 0) warnings.push(`${ignored} exits of methods not on their thread's stack ignored`)
  if (unknownIds.size > 0) {
    warnings.push(`${unknownIds.size} method ids in records are missing from the method table`)
  }
  if (backwards > 0) warnings.push(`${backwards} times a clock went backwards; clamped`)
  const threadList =
    only === undefined ? trace.threads : trace.threads.filter((x) => only.has(x.id))
  return {
    clock,
    threads: threadList.map((x) => ({ id: x.id, name: x.name })),
    calls,
    overflowed: trace.overflow,
    mode: options.mode ?? 'instrumentation',
    warnings,
  }
}
