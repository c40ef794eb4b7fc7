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
import { SUMMARY_KERNEL_WASM_BASE64 } from './_summary-kernel-wasm.js'
import type { ArtClock, ArtMethod, ArtThread, ArtTrace, ArtTraceInfo } from './types.js'

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

// Local copy: imported bindings can cost a getter call per use under some loaders (tsx/CJS).
const LAYOUT_DUAL: Layout = ArtRecordLayout.Dual
/** Method ids below this (ART: index << 2) are in the kernel's direct table, the rest hashed. */
const DIRECT_IDS = 1 << 22

// The kernel's memory (_summary-kernel.wat says what each part holds). Control block, as
// Int32Array indices (`CTRL_*`) and a BigInt64Array index (`CTRL_BACKWARD_I64`):
const CTRL_STATUS = 0
const CTRL_STOP_AT_ZERO = 1
const CTRL_KEYS = 2
const CTRL_SLOTS = 3
const CTRL_MASK = 4
const CTRL_ACC = 5
const CTRL_BACKWARD_I64 = 4
/** Byte addresses of the fixed parts. */
const THREAD_TABLE = 1024
const DIRECT = THREAD_TABLE + 4 * 65536
const RAW = DIRECT + DIRECT_IDS
const RAW_CAPACITY_BYTES = 1 << 20
const INPUT = RAW + RAW_CAPACITY_BYTES
/** `readBuffer`: where a caller may read the file's next chunk. */
const READ = INPUT + 2 * RAW_CAPACITY_BYTES
const READ_BYTES = 1 << 20
const HEAP = READ + READ_BYTES
const WASM_PAGE_BYTES = 65536
const FILTERED_OUT = -1
/** The kernel's record: u16 tid, u32 method id | action, u32 thread-cpu µs, u32 wall µs. */
const RECORD_BYTES = 14
/** Records copied per slice: 1 MiB of input, so that the copy stays in the cache for the kernel. */
const SLICE_BYTES = RAW_CAPACITY_BYTES
/** Thread descriptor: field byte offsets and size. */
const DESC_SP = 0
const DESC_BASE = 4
const DESC_LIMIT = 8
const DESC_ON_STACK = 12
const DESC_RAW_CPU = 16
const DESC_RAW_WALL = 20
const DESC_LAST_CPU = 48
const DESC_LAST_WALL = 56
const DESC_BYTES = 64
/** A stack frame: i32 slot << 1 | recursive, i64 entry cpu at 16, i64 entry wall at 24. */
const FRAME_BYTES = 32
/** The frame below a thread's first: slot -1, whose sums (before the first slot's) are unused. */
const SENTINEL_FRAME = -2
/** Per-method accumulators (i64, µs): calls, unused, incl cpu, incl wall, excl cpu, excl wall. */
const ACC = 6
const ACC_BYTES = ACC * 8
const ACC_CALLS = 0
const ACC_INCL_CPU = 2
const ACC_INCL_WALL = 3
const ACC_EXCL_CPU = 4
const ACC_EXCL_WALL = 5
/** Why the kernel's `run` returned (see the .wat). */
const STOP_END = 0
const STOP_BAD_ACTION = 2
const STOP_NEW_THREAD = 3
const STOP_NEW_METHOD = 4
const STOP_NEED_ROOM = 5
const STOP_MISMATCH = 6

/** The part of the WebAssembly API used here (the project's TypeScript libs do not declare it). */
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object
  readonly Instance: new (module: object, imports: object) => { readonly exports: object }
}

/** The kernel's exports (_summary-kernel.wat). */
interface SummaryKernel {
  /** Shared, so that growing it does not detach views of it (`readBuffer`, a decoder's chunk). */
  readonly memory: { readonly buffer: SharedArrayBuffer; grow(pages: number): number }
  run(start: number, end: number): number
  canonicalize(from: number, to: number, count: number, size: number, layout: Layout): void
}

let kernelModule: object | undefined

/** A fresh instance (its own memory) of the kernel, compiled once per process, synchronously. */
function newKernel(): SummaryKernel {
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly
  kernelModule ??= new wasm.Module(Buffer.from(SUMMARY_KERNEL_WASM_BASE64, 'base64'))
  return new wasm.Instance(kernelModule, {}).exports as SummaryKernel
}

/**
 * Accumulates the summary from records pushed through `visitor`; memory grows with methods,
 * threads and stack depth, never with the number of records. An `ArtTraceDecoder` given
 * `visitor` feeds it whole runs of records straight from its bytes (`records`), with the same
 * results as record by record.
 *
 * The work per record is done by a small WebAssembly kernel (_summary-kernel.wat) over records
 * copied into its memory, 1 MiB at a time; this class owns that memory's layout, adds what the
 * kernel stops for (a new thread, a new method slot, a deeper stack) and builds the result.
 */
export class ArtTraceSummarizer {
  private readonly kernel: SummaryKernel
  /** Views of the kernel's memory, renewed whenever it grows. */
  private u8!: Uint8Array
  private i32!: Int32Array
  private i64!: BigInt64Array
  private dv!: DataView
  /** Next free byte of the kernel's memory: tables move up when they grow (doubling: linear). */
  private heapEnd = HEAP
  /** Method id by slot. */
  private readonly ids: number[] = []
  private hashCapacity = 1024
  private hashed = 0
  private accSlots = 256
  /** On-stack counters per thread, the same for all: at least one per slot. */
  private onStackSlots = 256
  /** Thread descriptor address by tid. */
  private readonly threads: Array<number | undefined> = []
  private readonly only: ReadonlySet<number> | undefined
  readonly visitor: ArtRecordVisitor
  /**
   * 1 MiB of the summarizer's own memory to read the file's next chunk into: pushed (or a
   * subarray of it) to the decoder that feeds this summarizer, its records are summarized where
   * they are, without a copy (what `vitest-energy trace` does). Valid as long as the summarizer;
   * whatever the decoder keeps of it (a split record) it copies, so it can be refilled after each
   * `push`.
   */
  readonly readBuffer: Uint8Array

  /** @param threadIds only records of these threads count. @default all */
  constructor(threadIds?: ReadonlySet<number>) {
    this.only = threadIds
    this.kernel = newKernel()
    this.views()
    this.readBuffer = new Uint8Array(this.kernel.memory.buffer, READ, READ_BYTES)
    const keys = this.alloc(this.hashCapacity * 4)
    const slots = this.alloc(this.hashCapacity * 4)
    this.i32.fill(-1, slots >> 2, (slots >> 2) + this.hashCapacity)
    this.i32[CTRL_KEYS] = keys
    this.i32[CTRL_SLOTS] = slots
    this.i32[CTRL_MASK] = this.hashCapacity - 1
    // Slot -1 (the sentinel frame's) comes first.
    const acc = this.alloc((this.accSlots + 1) * ACC_BYTES) + ACC_BYTES
    this.i32[CTRL_ACC] = acc
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

  /** Times a clock went backwards (clamped) rather than wrapping. */
  get backwardSteps(): number {
    return Number(this.i64[CTRL_BACKWARD_I64] ?? 0n)
  }

  private views(): void {
    const buffer = this.kernel.memory.buffer
    this.u8 = new Uint8Array(buffer)
    this.i32 = new Int32Array(buffer)
    this.i64 = new BigInt64Array(buffer)
    this.dv = new DataView(buffer)
  }

  /**
   * `bytes` of zeroed kernel memory, 16-aligned (for the kernel's v128 loads); its address. Never `this.i32[…] = this.alloc(…)`:
   * the view on the left is read first, and growing the memory detaches it.
   */
  private alloc(bytes: number): number {
    const at = this.heapEnd
    this.heapEnd = at + Math.ceil(bytes / 16) * 16
    const have = this.kernel.memory.buffer.byteLength
    if (this.heapEnd > have) {
      // At least 1 MiB more each time, so that many small tables do not grow it page by page.
      const need = Math.max(this.heapEnd - have, RAW_CAPACITY_BYTES)
      this.kernel.memory.grow(Math.ceil(need / WASM_PAGE_BYTES))
      this.views()
    }
    return at
  }

  /** A copy of `bytes` bytes at `from` in a new, larger block (the old one is left unused). */
  private moved(from: number, bytes: number, newBytes: number): number {
    const to = this.alloc(newBytes)
    this.u8.copyWithin(to, from, from + bytes)
    return to
  }

  /** One record (the per-record path): through the kernel like a run of one. */
  private event(
    tid: number,
    methodId: number,
    action: number,
    rawCpu: number,
    rawWall: number,
  ): void {
    const dv = this.dv
    dv.setUint16(INPUT, tid, true)
    dv.setUint32(INPUT + 2, (methodId | action) >>> 0, true)
    dv.setUint32(INPUT + 6, rawCpu, true)
    dv.setUint32(INPUT + 10, rawWall, true)
    this.drive(INPUT, INPUT + RECORD_BYTES, false)
  }

  /**
   * Every record of `bytes[start, end)` (an `ArtRecordBlockVisitor`). Records in `readBuffer` are
   * summarized where they are; others are copied into the kernel's memory 1 MiB at a time (layouts
   * other than 14-byte dual are rewritten into it on the way). Stops at the first incomplete record,
   * at action bits 3 (left for the decoder to report) and, when `stopAtThreadZero`, at a tid-0
   * control packet; returns that position.
   */
  private records(
    bytes: Uint8Array,
    start: number,
    end: number,
    size: number,
    layout: Layout,
    stopAtThreadZero: boolean,
  ): number {
    const canonical = layout === LAYOUT_DUAL && size === RECORD_BYTES
    // The kernel's address of bytes[0], if they are in its memory (`readBuffer`).
    const at = bytes.buffer === this.readBuffer.buffer ? bytes.byteOffset : -1
    if (at >= 0 && canonical) {
      const n = Math.floor((end - start) / size)
      return this.drive(at + start, at + start + n * size, stopAtThreadZero) - at
    }
    const perSlice = Math.floor(SLICE_BYTES / size)
    let p = start
    while (p + size <= end) {
      const n = Math.min(Math.floor((end - p) / size), perSlice)
      if (canonical) {
        this.u8.set(bytes.subarray(p, p + n * size), INPUT)
      } else if (at >= 0) {
        this.kernel.canonicalize(at + p, INPUT, n, size, layout)
      } else {
        this.u8.set(bytes.subarray(p, p + n * size), RAW)
        this.kernel.canonicalize(RAW, INPUT, n, size, layout)
      }
      const stoppedAt = this.drive(INPUT, INPUT + n * RECORD_BYTES, stopAtThreadZero)
      p += ((stoppedAt - INPUT) / RECORD_BYTES) * size
      if (this.i32[CTRL_STATUS] !== STOP_END) break
    }
    return p
  }

  /**
   * Runs the kernel over the records at kernel addresses [start, end), adding what it stops for,
   * until it stops at the end, a control packet or a bad record; returns that address.
   */
  private drive(start: number, end: number, stopAtThreadZero: boolean): number {
    this.i32[CTRL_STOP_AT_ZERO] = stopAtThreadZero ? 1 : 0
    let p = start
    let lastStop = -1
    let lastAt = -1
    for (;;) {
      p = this.kernel.run(p, end)
      const stop = this.i32[CTRL_STATUS] ?? STOP_END
      if (stop <= STOP_BAD_ACTION) return p
      if (stop === STOP_MISMATCH) throw this.mismatch(p)
      // Each fix lets the kernel past this stop; the same stop twice at one record is a bug.
      if (stop === lastStop && p === lastAt) {
        throw new Error(`ART trace summary: stop ${stop} not resolved`) // unreachable
      }
      lastStop = stop
      lastAt = p
      const tid = this.dv.getUint16(p, true)
      if (stop === STOP_NEW_THREAD) this.newThread(tid, p)
      else if (stop === STOP_NEW_METHOD) this.slotOf((this.dv.getUint32(p + 2, true) & ~3) >>> 0)
      else if (stop === STOP_NEED_ROOM) this.deeper(this.threads[tid] ?? 0)
    }
  }

  /** A descriptor for `tid`, its clocks starting at the record at `p` (or marks it filtered out). */
  private newThread(tid: number, p: number): void {
    if (this.only !== undefined && !this.only.has(tid)) {
      this.i32[(THREAD_TABLE >> 2) + tid] = FILTERED_OUT
      return
    }
    const rawCpu = this.dv.getUint32(p + 6, true)
    const rawWall = this.dv.getUint32(p + 10, true)
    const frames = 64
    const d = this.alloc(DESC_BYTES)
    const base = this.alloc(frames * FRAME_BYTES)
    const onStack = this.alloc(this.onStackSlots * 4)
    const dv = this.dv
    dv.setInt32(base, SENTINEL_FRAME, true)
    dv.setInt32(d + DESC_SP, base, true)
    dv.setInt32(d + DESC_BASE, base, true)
    dv.setInt32(d + DESC_LIMIT, base + (frames - 1) * FRAME_BYTES, true)
    dv.setInt32(d + DESC_ON_STACK, onStack, true)
    dv.setUint32(d + DESC_RAW_CPU, rawCpu, true)
    dv.setUint32(d + DESC_RAW_WALL, rawWall, true)
    dv.setBigInt64(d + DESC_LAST_CPU, BigInt(rawCpu), true)
    dv.setBigInt64(d + DESC_LAST_WALL, BigInt(rawWall), true)
    this.threads[tid] = d
    this.i32[(THREAD_TABLE >> 2) + tid] = d
  }

  /** Twice the stack for the thread whose descriptor is at `d`. */
  private deeper(d: number): void {
    const base = this.dv.getInt32(d + DESC_BASE, true)
    const used = this.dv.getInt32(d + DESC_SP, true) - base
    const bytes = this.dv.getInt32(d + DESC_LIMIT, true) - base + FRAME_BYTES
    const to = this.moved(base, bytes, bytes * 2)
    this.dv.setInt32(d + DESC_BASE, to, true)
    this.dv.setInt32(d + DESC_SP, to + used, true)
    this.dv.setInt32(d + DESC_LIMIT, to + bytes * 2 - FRAME_BYTES, true)
  }

  private slotOf(id: number): number {
    if (id < DIRECT_IDS) {
      const known = this.i32[(DIRECT >> 2) + (id >>> 2)] ?? 0
      if (known > 0) return known - 1
      const slot = this.newSlot(id)
      this.i32[(DIRECT >> 2) + (id >>> 2)] = slot + 1
      return slot
    }
    return this.hashedSlot(id)
  }

  private newSlot(id: number): number {
    const slot = this.ids.length
    this.ids.push(id)
    if (slot + 1 > this.accSlots) {
      const bytes = (this.accSlots + 1) * ACC_BYTES
      const at = this.moved((this.i32[CTRL_ACC] ?? 0) - ACC_BYTES, bytes, bytes * 2) + ACC_BYTES
      this.i32[CTRL_ACC] = at
      this.accSlots = this.accSlots * 2 + 1
    }
    if (slot + 1 > this.onStackSlots) {
      // Every thread's counters grow at once, so the kernel never checks their length.
      const n = Math.max(slot + 1, this.onStackSlots * 2)
      for (const d of this.threads) {
        if (d === undefined) continue
        const at = this.moved(
          this.dv.getInt32(d + DESC_ON_STACK, true),
          this.onStackSlots * 4,
          n * 4,
        )
        this.dv.setInt32(d + DESC_ON_STACK, at, true)
      }
      this.onStackSlots = n
    }
    return slot
  }

  private hashedSlot(id: number): number {
    const keys = (this.i32[CTRL_KEYS] ?? 0) >> 2
    const slots = (this.i32[CTRL_SLOTS] ?? 0) >> 2
    const mask = this.hashCapacity - 1
    let h = (Math.imul(id >>> 2, 0x9e3779b1) >>> 0) & mask
    for (;;) {
      const slot = this.i32[slots + h] ?? -1
      if (slot < 0) break
      if (this.i32[keys + h] === (id | 0)) return slot
      h = (h + 1) & mask
    }
    const slot = this.newSlot(id)
    this.i32[((this.i32[CTRL_KEYS] ?? 0) >> 2) + h] = id
    this.i32[((this.i32[CTRL_SLOTS] ?? 0) >> 2) + h] = slot
    this.hashed++
    if (this.hashed * 2 > this.hashCapacity) this.rehash()
    return slot
  }

  private rehash(): void {
    const n = this.hashCapacity * 2
    const keysAt = this.alloc(n * 4)
    const slotsAt = this.alloc(n * 4)
    const keys = keysAt >> 2
    const slots = slotsAt >> 2
    this.i32.fill(-1, slots, slots + n)
    const mask = n - 1
    this.ids.forEach((id, slot) => {
      if (id < DIRECT_IDS) return
      let h = (Math.imul(id >>> 2, 0x9e3779b1) >>> 0) & mask
      while ((this.i32[slots + h] ?? -1) >= 0) h = (h + 1) & mask
      this.i32[keys + h] = id
      this.i32[slots + h] = slot
    })
    this.i32[CTRL_KEYS] = keysAt
    this.i32[CTRL_SLOTS] = slotsAt
    this.i32[CTRL_MASK] = mask
    this.hashCapacity = n
  }

  /** The error for the exit at `p` that does not match the top of its thread's stack. */
  private mismatch(p: number): EnergyError {
    const dv = this.dv
    const tid = dv.getUint16(p, true)
    const methodId = (dv.getUint32(p + 2, true) & ~3) >>> 0
    const frame = dv.getInt32(dv.getInt32((this.threads[tid] ?? 0) + DESC_SP, true), true)
    const onStack = this.ids[frame >> 1] ?? 0
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
    const i32 = this.i32
    const i64 = this.i64
    const acc = (i32[CTRL_ACC] ?? 0) >> 3
    // In tid order, bottom frame first (the order of the sums is part of the result).
    for (const d of this.threads) {
      if (d === undefined) continue
      const base = i32[(d + DESC_BASE) >> 2] ?? 0
      const sp = i32[(d + DESC_SP) >> 2] ?? 0
      const onStack = (i32[(d + DESC_ON_STACK) >> 2] ?? 0) >> 2
      const lastCpu = i64[(d + DESC_LAST_CPU) >> 3] ?? 0n
      const lastWall = i64[(d + DESC_LAST_WALL) >> 3] ?? 0n
      for (let at = base + FRAME_BYTES; at <= sp; at += FRAME_BYTES) {
        const frame = i32[at >> 2] ?? 0
        const a = acc + (frame >> 1) * ACC
        if ((frame & 1) === 0) {
          const cpu = a + ACC_INCL_CPU
          const wall = a + ACC_INCL_WALL
          i64[cpu] = (i64[cpu] ?? 0n) + (lastCpu - (i64[(at + 16) >> 3] ?? 0n))
          i64[wall] = (i64[wall] ?? 0n) + (lastWall - (i64[(at + 24) >> 3] ?? 0n))
        }
        i64[a + ACC_CALLS] = (i64[a + ACC_CALLS] ?? 0n) + 1n
        i32[onStack + (frame >> 1)] = 0
      }
      i32[(d + DESC_SP) >> 2] = base
    }
    const swap = clockInOtherSlot(recordClock, info.clock)
    const hasCpu = info.clock !== 'wall'
    const hasWall = info.clock !== 'thread-cpu'
    const byId = new Map<number, ArtMethod>(info.methods.map((m) => [m.id, m]))
    const methods = this.ids.map((id, slot): ArtMethodSummary => {
      const known = byId.get(id)
      const a = acc + slot * ACC
      const sum = (at: number): number => Number(i64[a + at] ?? 0n)
      const cpuIncl = sum(swap ? ACC_INCL_WALL : ACC_INCL_CPU)
      const cpuExcl = sum(swap ? ACC_EXCL_WALL : ACC_EXCL_CPU)
      const wallIncl = sum(swap ? ACC_INCL_CPU : ACC_INCL_WALL)
      const wallExcl = sum(swap ? ACC_EXCL_CPU : ACC_EXCL_WALL)
      return {
        id: `0x${id.toString(16)}`,
        className: known?.className ?? '(unknown)',
        name: known?.name ?? '',
        signature: known?.signature ?? '',
        calls: sum(ACC_CALLS),
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

const ACTION_CODE = { enter: 0, exit: 1, unwind: 2 } as const

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
