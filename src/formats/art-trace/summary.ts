/**
 * Per-method inclusive/exclusive times, computed the way `dmtracedump` computes its profile
 * (AOSP art/tools/dmtracedump/tracedump.cc parseDataKeys/addInclusiveTime,
 * GrapheneOS/platform_art@0a12631f), for both clocks at once:
 * - exclusive time: time between consecutive events of a thread goes to the method on top of its
 *   stack (or to the exiting method), recursive frames included;
 * - inclusive time: exit time − entry time, added only when no other frame of the same method is
 *   below it on the stack (recursion counts once);
 * - an exit with an empty stack (call open when tracing started) counts from time 0;
 * - calls still open at the end are closed at the thread's last event (and counted as calls);
 * - an exit that does not match the top of the stack aborts, as dmtracedump does.
 * Unlike dmtracedump, 32-bit µs wrap is unwrapped per thread (dmtracedump's totals go wrong).
 */
import { EnergyError } from '../../model/index.js'
import {
  ART_RECORD_BLOCK,
  ArtRecordLayout,
  ArtTraceDecoder,
  clockInOtherSlot,
  type ArtRecordLayout as Layout,
  type ArtRecordVisitor,
  type ArtRecordVisitorWithBlock,
} from './decoder.js'
import { ArtTraceErrors } from './errors.js'
import type { ArtClock, ArtMethod, ArtThread, ArtTrace, ArtTraceInfo } from './types.js'

// Local copies: imported bindings can cost a getter call per use under some loaders (tsx/CJS).
const ACTION_ENTER = 0
const ACTION_EXIT = 1
const ACTION_UNWIND = 2
const LAYOUT_V1_WALL: Layout = ArtRecordLayout.V1Wall
const LAYOUT_V1_CPU: Layout = ArtRecordLayout.V1Cpu
const LAYOUT_DUAL: Layout = ArtRecordLayout.Dual
const LAYOUT_SINGLE_CPU: Layout = ArtRecordLayout.SingleCpu
/** Method ids below this (ART: index << 2) use a direct lookup table instead of hashing. */
const DIRECT_IDS = 1 << 22

/** One method's line of the summary. Times are µs; a clock the file lacks is `null`. */
export interface ArtMethodSummary {
  /** Method id as hex, `0x62830738`. */
  readonly id: string
  /** As written in the file (`com/example/Foo`); `(unknown)` for ids missing from the table. */
  readonly className: string
  readonly name: string
  readonly signature: string
  /** Completed calls plus calls still open at the end (dmtracedump's calls+recursive). */
  readonly calls: number
  readonly inclusiveCpuUs: number | null
  readonly exclusiveCpuUs: number | null
  readonly inclusiveWallUs: number | null
  readonly exclusiveWallUs: number | null
}

/** `vitest-energy trace --format json` output. */
export interface ArtTraceSummary {
  readonly clock: ArtClock
  readonly version: 1 | 2 | 3
  readonly threads: readonly ArtThread[]
  /** Methods that occur in the (selected threads') records, by exclusive time, descending. */
  readonly methods: readonly ArtMethodSummary[]
}

export interface ArtSummaryOptions {
  /** Only this thread: its name as in the trace, or its numeric id. @default all threads */
  readonly thread?: string | number
}

const WRAP = 2 ** 32
const HALF_WRAP = 2 ** 31

/** Per-method accumulator layout (stride 5): calls, incl cpu, excl cpu, incl wall, excl wall. */
const ACC = 5

/** Per-thread call stack and clocks. */
class ThreadState {
  top = 0
  /** Per frame: method slot << 1 | 1 when a frame below holds the same method (recursive). */
  frames = new Int32Array(64)
  /** Per frame: entry cpu, entry wall (µs, unwrapped). */
  entry = new Float64Array(128)
  /** How many frames of each method slot are on this thread's stack. */
  onStack = new Uint32Array(256)
  /** [raw cpu, raw wall, cpu wrap offset, wall wrap offset, last cpu, last wall], µs. */
  readonly clk = new Float64Array(6)

  constructor(rawCpu: number, rawWall: number) {
    this.clk[0] = rawCpu
    this.clk[1] = rawWall
    this.clk[4] = rawCpu
    this.clk[5] = rawWall
  }

  countSlots(n: number): void {
    if (n <= this.onStack.length) return
    const next = new Uint32Array(Math.max(n, this.onStack.length * 2))
    next.set(this.onStack)
    this.onStack = next
  }

  grow(): void {
    const frames = new Int32Array(this.frames.length * 2)
    frames.set(this.frames)
    this.frames = frames
    const entry = new Float64Array(this.entry.length * 2)
    entry.set(this.entry)
    this.entry = entry
  }
}

/**
 * Accumulates the summary from records pushed through `visitor`; memory grows with methods,
 * threads and stack depth, never with the number of records. An `ArtTraceDecoder` given
 * `visitor` feeds it whole runs of records straight from its bytes (`records`), with the same
 * results as record by record.
 */
export class ArtTraceSummarizer {
  private keys = new Uint32Array(1024)
  private slots = new Int32Array(1024).fill(-1)
  private ids: number[] = []
  /** Slot + 1 by `id >>> 2` for small ids; 0 = not seen. */
  private direct = new Int32Array(0)
  private hashed = 0
  private acc = new Float64Array(256 * ACC)
  private readonly threads: Array<ThreadState | undefined> = []
  private readonly only: ReadonlySet<number> | undefined
  /** Times a clock went backwards (clamped) rather than wrapping. */
  backwardSteps = 0
  readonly visitor: ArtRecordVisitor

  /** @param threadIds only records of these threads count. @default all */
  constructor(threadIds?: ReadonlySet<number>) {
    this.only = threadIds
    const visitor: ArtRecordVisitorWithBlock =
      threadIds === undefined
        ? (tid, methodId, action, cpu, wall) =>
            this.event(tid, methodId, action, cpu < 0 ? 0 : cpu, wall < 0 ? 0 : wall)
        : (tid, methodId, action, cpu, wall) => {
            if (threadIds.has(tid)) {
              this.event(tid, methodId, action, cpu < 0 ? 0 : cpu, wall < 0 ? 0 : wall)
            }
          }
    visitor[ART_RECORD_BLOCK] = (bytes, start, end, size, layout, stopAtThreadZero) =>
      this.records(bytes, start, end, size, layout, stopAtThreadZero)
    this.visitor = visitor
  }

  private slotOf(id: number): number {
    if (id < DIRECT_IDS) {
      const i = id >>> 2
      const known = i < this.direct.length ? (this.direct[i] ?? 0) : 0
      if (known > 0) return known - 1
      const slot = this.newSlot(id)
      if (i >= this.direct.length) {
        const next = new Int32Array(Math.min(DIRECT_IDS >>> 2, Math.max(1024, (i + 1) * 2)))
        next.set(this.direct)
        this.direct = next
      }
      this.direct[i] = slot + 1
      return slot
    }
    return this.hashedSlot(id)
  }

  private newSlot(id: number): number {
    const slot = this.ids.length
    this.ids.push(id)
    if ((slot + 1) * ACC > this.acc.length) {
      const next = new Float64Array(this.acc.length * 2)
      next.set(this.acc)
      this.acc = next
    }
    return slot
  }

  private hashedSlot(id: number): number {
    const mask = this.keys.length - 1
    let h = (Math.imul(id >>> 2, 0x9e3779b1) >>> 0) & mask
    for (;;) {
      const slot = this.slots[h] ?? -1
      if (slot < 0) break
      if (this.keys[h] === id) return slot
      h = (h + 1) & mask
    }
    const slot = this.newSlot(id)
    this.keys[h] = id
    this.slots[h] = slot
    this.hashed++
    if (this.hashed * 2 > this.keys.length) this.rehash()
    return slot
  }

  private rehash(): void {
    const n = this.keys.length * 2
    this.keys = new Uint32Array(n)
    this.slots = new Int32Array(n).fill(-1)
    const mask = n - 1
    this.ids.forEach((id, slot) => {
      if (id < DIRECT_IDS) return
      let h = (Math.imul(id >>> 2, 0x9e3779b1) >>> 0) & mask
      while ((this.slots[h] ?? -1) >= 0) h = (h + 1) & mask
      this.keys[h] = id
      this.slots[h] = slot
    })
  }

  /** One record (the per-record path; `records` is the same for runs of raw bytes). */
  private event(
    tid: number,
    methodId: number,
    action: number,
    rawCpu: number,
    rawWall: number,
  ): void {
    let st = this.threads[tid]
    if (st === undefined) {
      st = new ThreadState(rawCpu, rawWall)
      this.threads[tid] = st
    }
    const clk = st.clk
    // Monotonic unwrapping of the 32-bit µs counters, per thread.
    const prevRawCpu = clk[0] ?? 0
    const prevRawWall = clk[1] ?? 0
    if (rawCpu < prevRawCpu && prevRawCpu - rawCpu > HALF_WRAP) clk[2] = (clk[2] ?? 0) + WRAP
    if (rawWall < prevRawWall && prevRawWall - rawWall > HALF_WRAP) clk[3] = (clk[3] ?? 0) + WRAP
    clk[0] = rawCpu
    clk[1] = rawWall
    const lastCpu = clk[4] ?? 0
    const lastWall = clk[5] ?? 0
    let cpu = rawCpu + (clk[2] ?? 0)
    let wall = rawWall + (clk[3] ?? 0)
    if (cpu < lastCpu) {
      cpu = lastCpu
      this.backwardSteps++
    }
    if (wall < lastWall) {
      wall = lastWall
      this.backwardSteps++
    }
    clk[4] = cpu
    clk[5] = wall
    const m = this.slotOf(methodId)
    const acc = this.acc
    if (action === ACTION_ENTER) {
      const top = st.top
      if (top > 0) {
        const c = ((st.frames[top - 1] ?? 0) >> 1) * ACC
        acc[c + 2] = (acc[c + 2] ?? 0) + (cpu - lastCpu)
        acc[c + 4] = (acc[c + 4] ?? 0) + (wall - lastWall)
      }
      if (m >= st.onStack.length) st.countSlots(this.ids.length)
      const seen = st.onStack[m] ?? 0
      st.onStack[m] = seen + 1
      if (top >= st.frames.length) st.grow()
      st.frames[top] = (m << 1) | (seen > 0 ? 1 : 0)
      st.entry[2 * top] = cpu
      st.entry[2 * top + 1] = wall
      st.top = top + 1
      return
    }
    if (action !== ACTION_EXIT && action !== ACTION_UNWIND) return
    let entryCpu = 0
    let entryWall = 0
    let rec = 0
    if (st.top > 0) {
      const top = st.top - 1
      const frame = st.frames[top] ?? 0
      if (frame >> 1 !== m) throw this.mismatch(tid, methodId, frame >> 1)
      entryCpu = st.entry[2 * top] ?? 0
      entryWall = st.entry[2 * top + 1] ?? 0
      rec = frame & 1
      st.onStack[m] = (st.onStack[m] ?? 1) - 1
      st.top = top
    }
    const a = m * ACC
    if (rec === 0) {
      acc[a + 1] = (acc[a + 1] ?? 0) + (cpu - entryCpu)
      acc[a + 3] = (acc[a + 3] ?? 0) + (wall - entryWall)
    }
    acc[a] = (acc[a] ?? 0) + 1
    acc[a + 2] = (acc[a + 2] ?? 0) + (cpu - lastCpu)
    acc[a + 4] = (acc[a + 4] ?? 0) + (wall - lastWall)
  }

  /**
   * `event` for every record of `bytes[start, end)`, decoding straight from the bytes (an
   * `ArtRecordBlockVisitor`). Stops at the first incomplete record, at action bits 3 (left for the
   * decoder to report) and, when `stopAtThreadZero`, at a tid-0 control packet; returns that
   * position. The work is in `run`, one thread's consecutive records at a time; this loop only
   * picks the thread and prepares what `run` leaves to it (a new method, more stack).
   */
  private records(
    bytes: Uint8Array,
    start: number,
    end: number,
    size: number,
    layout: Layout,
    stopAtThreadZero: boolean,
  ): number {
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const v1 = layout === LAYOUT_V1_WALL || layout === LAYOUT_V1_CPU
    const idAt = v1 ? 1 : 2
    const tidMask = v1 ? 0xff : 0xffff
    const timeAt = idAt + 4
    const dual = layout === LAYOUT_DUAL
    const cpuOnly = layout === LAYOUT_V1_CPU || layout === LAYOUT_SINGLE_CPU
    const only = this.only
    let p = start
    while (p + size <= end) {
      const t = dv.getUint16(p, true) & tidMask
      if (t === 0 && stopAtThreadZero) break
      const v = dv.getInt32(p + idAt, true)
      const action = v & 3
      if (action === 3) break
      if (only !== undefined && !only.has(t)) {
        p += size
        continue
      }
      let st = this.threads[t]
      if (st === undefined) {
        const time = dv.getUint32(p + timeAt, true)
        const rawCpu = dual || cpuOnly ? time : 0
        const rawWall = dual ? dv.getUint32(p + 10, true) : cpuOnly ? 0 : time
        st = new ThreadState(rawCpu, rawWall)
        this.threads[t] = st
      }
      // Every slot known so far fits the thread's stack counters (new slots come from below).
      if (st.onStack.length < this.ids.length) st.countSlots(this.ids.length)
      const next = this.run(st, dv, p, end, size, layout)
      if (next === p) {
        // `run` stopped before this record of its thread: it needs a new method slot (then room
        // for it in the thread's stack counters) or a deeper stack.
        const id = (v - action) >>> 0
        this.slotOf(id)
        st.countSlots(this.ids.length)
        if (st.top >= st.frames.length) st.grow()
        if (this.run(st, dv, p, p + size, size, layout) === p) {
          throw new Error('ART trace summary: a record could not be processed') // unreachable
        }
        p += size
        continue
      }
      p = next
    }
    return p
  }

  /**
   * The hot loop: `event` for the consecutive records of thread `st` from `start`, with the
   * thread's clocks and stack top in locals and every array fixed for the whole loop (so that the
   * compiler keeps their bounds and addresses in registers). Returns at the first record it leaves
   * to `records`: another thread's, a control packet, action bits 3, the end, or one that needs a
   * new method slot or more room (then nothing of it has been applied).
   */
  private run(
    st: ThreadState,
    dv: DataView,
    start: number,
    end: number,
    size: number,
    layout: Layout,
  ): number {
    const v1 = layout === LAYOUT_V1_WALL || layout === LAYOUT_V1_CPU
    const idAt = v1 ? 1 : 2
    const tidMask = v1 ? 0xff : 0xffff
    const timeAt = idAt + 4
    const dual = layout === LAYOUT_DUAL
    const cpuOnly = layout === LAYOUT_V1_CPU || layout === LAYOUT_SINGLE_CPU
    const acc = this.acc
    const direct = this.direct
    const directLength = direct.length
    const frames = st.frames
    const entry = st.entry
    const onStack = st.onStack
    const clk = st.clk
    const tid = dv.getUint16(start, true) & tidMask
    let top = st.top
    let prevRawCpu = clk[0] ?? 0
    let prevRawWall = clk[1] ?? 0
    let cpuOffset = clk[2] ?? 0
    let wallOffset = clk[3] ?? 0
    let lastCpu = clk[4] ?? 0
    let lastWall = clk[5] ?? 0
    let backward = 0
    let p = start
    for (; p + size <= end; p += size) {
      // Version 1's thread id is one byte (the next is the method id's first, masked off).
      const t = dv.getUint16(p, true) & tidMask
      if (t !== tid) break
      // Signed: the id stays a small integer (no float) on the direct-table path.
      const v = dv.getInt32(p + idAt, true)
      const action = v & 3
      if (action === 3) break
      const di = v >> 2
      let m = v >= 0 && di < directLength ? (direct[di] ?? 0) - 1 : -1
      if (m < 0 && (v < 0 || v >= DIRECT_IDS)) m = this.knownHashedSlot((v - action) >>> 0)
      if (m < 0 || (action === ACTION_ENTER && top >= frames.length)) break
      let rawCpu = dv.getUint32(p + timeAt, true)
      let rawWall = 0
      if (dual) rawWall = dv.getUint32(p + 10, true)
      else if (!cpuOnly) {
        rawWall = rawCpu
        rawCpu = 0
      }
      // Monotonic unwrapping of the 32-bit µs counters, as in `event`.
      if (rawCpu < prevRawCpu && prevRawCpu - rawCpu > HALF_WRAP) cpuOffset += WRAP
      if (rawWall < prevRawWall && prevRawWall - rawWall > HALF_WRAP) wallOffset += WRAP
      prevRawCpu = rawCpu
      prevRawWall = rawWall
      let cpu = rawCpu + cpuOffset
      let wall = rawWall + wallOffset
      if (cpu < lastCpu) {
        cpu = lastCpu
        backward++
      }
      if (wall < lastWall) {
        wall = lastWall
        backward++
      }
      if (action === ACTION_ENTER) {
        if (top > 0) {
          const c = ((frames[top - 1] ?? 0) >> 1) * ACC
          acc[c + 2] = (acc[c + 2] ?? 0) + (cpu - lastCpu)
          acc[c + 4] = (acc[c + 4] ?? 0) + (wall - lastWall)
        }
        const seen = onStack[m] ?? 0
        onStack[m] = seen + 1
        frames[top] = (m << 1) | (seen > 0 ? 1 : 0)
        entry[2 * top] = cpu
        entry[2 * top + 1] = wall
        top++
      } else {
        let entryCpu = 0
        let entryWall = 0
        let rec = 0
        if (top > 0) {
          const frame = frames[top - 1] ?? 0
          if (frame >> 1 !== m) {
            st.top = top
            throw this.mismatch(tid, (v - action) >>> 0, frame >> 1)
          }
          top--
          entryCpu = entry[2 * top] ?? 0
          entryWall = entry[2 * top + 1] ?? 0
          rec = frame & 1
          onStack[m] = (onStack[m] ?? 1) - 1
        }
        const a = m * ACC
        if (rec === 0) {
          acc[a + 1] = (acc[a + 1] ?? 0) + (cpu - entryCpu)
          acc[a + 3] = (acc[a + 3] ?? 0) + (wall - entryWall)
        }
        acc[a] = (acc[a] ?? 0) + 1
        acc[a + 2] = (acc[a + 2] ?? 0) + (cpu - lastCpu)
        acc[a + 4] = (acc[a + 4] ?? 0) + (wall - lastWall)
      }
      lastCpu = cpu
      lastWall = wall
    }
    st.top = top
    clk[0] = prevRawCpu
    clk[1] = prevRawWall
    clk[2] = cpuOffset
    clk[3] = wallOffset
    clk[4] = lastCpu
    clk[5] = lastWall
    this.backwardSteps += backward
    return p
  }

  /** The slot of a method id above the direct table's range, or -1 if it has none yet. */
  private knownHashedSlot(id: number): number {
    const keys = this.keys
    const slots = this.slots
    const mask = keys.length - 1
    let h = (Math.imul(id >>> 2, 0x9e3779b1) >>> 0) & mask
    for (;;) {
      const slot = slots[h] ?? -1
      if (slot < 0 || keys[h] === id) return slot
      h = (h + 1) & mask
    }
  }

  private mismatch(tid: number, methodId: number, onStackSlot: number): EnergyError {
    const onStack = this.ids[onStackSlot] ?? 0
    return new EnergyError({
      code: ArtTraceErrors.MISMATCHED_EXIT,
      message: `thread ${tid}: exit from method 0x${methodId.toString(16)} while 0x${onStack.toString(16)} is on top of the stack (dmtracedump aborts here too)`,
      hint: 'The trace lost records (buffer overflow?) or is corrupt; per-call intervals (readArtCallTrace) still recover, a dmtracedump-style profile cannot.',
      details: { format: 'ART trace', threadId: tid },
    })
  }

  /**
   * Closes calls still open (at each thread's last event) and builds the summary.
   * @param recordClock the clock the decoder mapped records with, if it differs from `info.clock`
   */
  finish(info: ArtTraceInfo, recordClock: ArtClock = info.clock): ArtTraceSummary {
    const acc = this.acc
    for (const st of this.threads) {
      if (st === undefined) continue
      for (let i = 0; i < st.top; i++) {
        const frame = st.frames[i] ?? 0
        const a = (frame >> 1) * ACC
        if ((frame & 1) === 0) {
          acc[a + 1] = (acc[a + 1] ?? 0) + ((st.clk[4] ?? 0) - (st.entry[2 * i] ?? 0))
          acc[a + 3] = (acc[a + 3] ?? 0) + ((st.clk[5] ?? 0) - (st.entry[2 * i + 1] ?? 0))
        }
        acc[a] = (acc[a] ?? 0) + 1
        st.onStack[frame >> 1] = 0
      }
      st.top = 0
    }
    const swap = clockInOtherSlot(recordClock, info.clock)
    const hasCpu = info.clock !== 'wall'
    const hasWall = info.clock !== 'thread-cpu'
    const byId = new Map<number, ArtMethod>(info.methods.map((m) => [m.id, m]))
    const methods = this.ids.map((id, slot): ArtMethodSummary => {
      const known = byId.get(id)
      const a = slot * ACC
      const cpuIncl = acc[a + (swap ? 3 : 1)] ?? 0
      const cpuExcl = acc[a + (swap ? 4 : 2)] ?? 0
      const wallIncl = acc[a + (swap ? 1 : 3)] ?? 0
      const wallExcl = acc[a + (swap ? 2 : 4)] ?? 0
      return {
        id: `0x${id.toString(16)}`,
        className: known?.className ?? '(unknown)',
        name: known?.name ?? '',
        signature: known?.signature ?? '',
        calls: acc[a] ?? 0,
        inclusiveCpuUs: hasCpu ? cpuIncl : null,
        exclusiveCpuUs: hasCpu ? cpuExcl : null,
        inclusiveWallUs: hasWall ? wallIncl : null,
        exclusiveWallUs: hasWall ? wallExcl : null,
      }
    })
    const key = (m: ArtMethodSummary): number => m.exclusiveCpuUs ?? m.exclusiveWallUs ?? 0
    const incl = (m: ArtMethodSummary): number => m.inclusiveCpuUs ?? m.inclusiveWallUs ?? 0
    methods.sort((a, b) => key(b) - key(a) || incl(b) - incl(a) || a.id.localeCompare(b.id))
    const threads =
      this.only === undefined ? info.threads : info.threads.filter((t) => this.only?.has(t.id))
    return {
      clock: info.clock,
      version: info.version,
      threads: [...threads].sort((a, b) => a.id - b.id),
      methods,
    }
  }
}

/** Resolves a thread name or id to the set of matching thread ids. */
export function selectThreads(
  threads: readonly ArtThread[],
  thread: string | number,
): ReadonlySet<number> {
  const ids = threads
    .filter((t) => t.name === String(thread) || String(t.id) === String(thread))
    .map((t) => t.id)
  if (ids.length === 0) {
    throw new EnergyError({
      code: ArtTraceErrors.UNKNOWN_THREAD,
      message: `no thread '${thread}' in the trace`,
      hint: `Use one of: ${threads.map((t) => `${t.id} (${t.name})`).join(', ') || '(no threads listed)'}.`,
      details: { format: 'ART trace', thread: String(thread) },
    })
  }
  return new Set(ids)
}

const ACTION_CODE = { enter: ACTION_ENTER, exit: ACTION_EXIT, unwind: ACTION_UNWIND } as const

/** dmtracedump-style per-method profile of a parsed trace. */
export function summarizeArtTrace(
  trace: ArtTrace,
  options: ArtSummaryOptions = {},
): ArtTraceSummary {
  const only =
    options.thread === undefined ? undefined : selectThreads(trace.threads, options.thread)
  const summarizer = new ArtTraceSummarizer(only)
  const visit = summarizer.visitor
  for (const r of trace.records) {
    visit(r.threadId, r.methodId, ACTION_CODE[r.action], r.threadCpuUs ?? -1, r.wallUs ?? -1)
  }
  return summarizer.finish(trace)
}

/**
 * The same profile straight from bytes, in one pass and constant memory (for files larger than
 * memory). A thread filter by name needs the thread table first: pass `threadIds` or use
 * `summarizeArtTrace`.
 */
export function summarizeArtTraceChunks(
  chunks: Iterable<Uint8Array>,
  threadIds?: ReadonlySet<number>,
): ArtTraceSummary {
  const summarizer = new ArtTraceSummarizer(threadIds)
  const decoder = new ArtTraceDecoder({ onRecord: summarizer.visitor })
  for (const chunk of chunks) decoder.push(chunk)
  const info = decoder.end()
  return summarizer.finish(info, decoder.recordClock)
}
