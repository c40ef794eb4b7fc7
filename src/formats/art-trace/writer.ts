/**
 * Writes real ART method trace files (what the virtual device's simulated app produces), in the
 * layout ART's TraceWriter uses (AOSP art/runtime/trace.cc: text key section + 32-byte `SLOW`
 * header + records, or `--streaming`: header, tid-0 packets, records, summary packet), readable by
 * `dmtracedump`, Android Studio and Perfetto.
 *
 * `ArtTraceEncoder` emits chunks as it goes, so traces of any size are generated in constant
 * memory; `writeArtTrace` is the convenience wrapper that returns one `Uint8Array`.
 */
import { EnergyError } from '../../model/index.js'
import { ART_TRACE_HEADER_BYTES, ART_TRACE_MAGIC, STREAMING_VERSION_MASK } from './decoder.js'
import { ArtTraceErrors } from './errors.js'
import type { ArtAction, ArtClock, ArtThread, ArtTraceRecord } from './types.js'
import { ACTION_ENTER, ACTION_EXIT, ACTION_UNWIND } from './types.js'
import { concatBytes } from '../_bytes.js'

/** A method to declare in the trace. */
export interface ArtMethodInput {
  /** Method id, low two bits clear (ART uses index << 2). */
  readonly id: number
  /** `com/example/Foo` or `com.example.Foo`, written as given. */
  readonly className: string
  readonly name: string
  /** JVM signature, e.g. `()V`. */
  readonly signature: string
  /** Source file; omitted → no file column. */
  readonly file?: string
  /** Line number; given → the 6-column Dalvik line layout. */
  readonly line?: number
}

/** Everything except the records. */
export interface ArtTraceWriteHeader {
  /** Data version. @default 3 for `dual`, 2 for single-clock (what ART writes) */
  readonly version?: 1 | 2 | 3
  /** @default 'dual' */
  readonly clock?: ArtClock
  /** Write the `--streaming` layout. @default false */
  readonly streaming?: boolean
  /** Write `data-file-overflow=true`. @default false */
  readonly overflow?: boolean
  readonly threads: readonly ArtThread[]
  readonly methods: readonly ArtMethodInput[]
  readonly pid?: number
  /** Header start time, µs (CLOCK_MONOTONIC on a real device). */
  readonly startTimeUs: number
  /** `elapsed-time-usec`. */
  readonly elapsedTimeUs: number
  /** @default 'art' */
  readonly vm?: string
  /** `clock-call-overhead-nsec`. @default 0 */
  readonly clockCallOverheadNs?: number
}

export interface ArtTraceWriteInput extends ArtTraceWriteHeader {
  /** Times are µs and are written modulo 2^32, as ART does. */
  readonly records: Iterable<ArtTraceRecord>
}

export interface ArtTraceEncoderOptions extends ArtTraceWriteHeader {
  /** Receives each finished chunk; the encoder never touches a chunk again. */
  readonly onChunk: (chunk: Uint8Array) => void
  /** Number of records that will follow; required for the non-streaming layout (it is in the header). */
  readonly numRecords?: number
  /** Chunk size in bytes. @default 1 MiB */
  readonly chunkBytes?: number
}

const encoder = new TextEncoder()
const ACTION_CODES: Readonly<Record<ArtAction, number>> = {
  enter: ACTION_ENTER,
  exit: ACTION_EXIT,
  unwind: ACTION_UNWIND,
}

export class ArtTraceEncoder {
  private readonly onChunk: (chunk: Uint8Array) => void
  private readonly chunkBytes: number
  private buf: Uint8Array
  private dv: DataView
  private pos = 0
  private count = 0
  private finished = false
  readonly version: 1 | 2 | 3
  readonly clock: ArtClock
  readonly recordSizeBytes: number
  private readonly streaming: boolean
  private readonly maxThreadId: number
  private readonly header: ArtTraceWriteHeader
  private readonly numRecords: number | undefined

  constructor(options: ArtTraceEncoderOptions) {
    const clock = options.clock ?? 'dual'
    const version = options.version ?? (clock === 'dual' ? 3 : 2)
    if (clock === 'dual' && version !== 3) {
      throw invalid(`clock 'dual' needs version 3 (two time fields); version ${version} has one`)
    }
    const streaming = options.streaming ?? false
    if (streaming && version === 1) {
      throw invalid('the streaming layout needs version 2 or 3 (16-bit thread ids)')
    }
    if (!streaming && options.numRecords === undefined) {
      throw invalid('numRecords is required for the non-streaming layout (it is in the header)')
    }
    for (const method of options.methods) {
      if (!Number.isInteger(method.id) || method.id < 0 || method.id > 0xffffffff) {
        throw invalid(`method id ${method.id} is not a 32-bit unsigned integer`)
      }
      if ((method.id & 3) !== 0) {
        throw invalid(`method id 0x${method.id.toString(16)} has its low two bits set`)
      }
    }
    this.maxThreadId = version === 1 ? 0xff : 0xffff
    this.version = version
    this.clock = clock
    this.streaming = streaming
    for (const thread of options.threads) this.checkThread(thread.id)
    this.header = options
    this.numRecords = options.numRecords
    this.onChunk = options.onChunk
    this.chunkBytes = Math.max(options.chunkBytes ?? 1 << 20, 64)
    this.recordSizeBytes = version === 1 ? 9 : version === 2 ? 10 : clock === 'dual' ? 14 : 10
    this.buf = new Uint8Array(this.chunkBytes)
    this.dv = new DataView(this.buf.buffer)
    if (!streaming) this.bytes(encoder.encode(this.keySection(options.numRecords ?? 0, true)))
    this.binaryHeader(options.startTimeUs)
    if (streaming) {
      for (const thread of options.threads) this.threadPacket(thread)
      for (const method of options.methods) this.methodPacket(method)
    }
  }

  /** Number of records written so far. */
  get recordCount(): number {
    return this.count
  }

  /**
   * The fast path: one record, no allocation and no validation (use `add` for that): the thread
   * id must fit the version (8 bits in v1, 16 bits otherwise, not 0 when streaming) and the
   * method id must be a declared one. `action`: 0 enter, 1 exit, 2 unwind. Pass the times the
   * clock needs (the other is ignored); they are written modulo 2^32, as ART does.
   */
  record(
    threadId: number,
    methodId: number,
    action: number,
    threadCpuUs: number,
    wallUs: number,
  ): void {
    const size = this.recordSizeBytes
    if (this.pos + size > this.buf.byteLength) this.flush()
    const dv = this.dv
    const p = this.pos
    const value = ((methodId & ~3) | (action & 3)) >>> 0
    if (this.version === 1) {
      dv.setUint8(p, threadId)
      dv.setUint32(p + 1, value, true)
      dv.setUint32(p + 5, (this.clock === 'thread-cpu' ? threadCpuUs : wallUs) >>> 0, true)
    } else {
      dv.setUint16(p, threadId, true)
      dv.setUint32(p + 2, value, true)
      if (this.clock === 'dual') {
        dv.setUint32(p + 6, threadCpuUs >>> 0, true)
        dv.setUint32(p + 10, wallUs >>> 0, true)
      } else {
        dv.setUint32(p + 6, (this.clock === 'thread-cpu' ? threadCpuUs : wallUs) >>> 0, true)
      }
    }
    this.pos = p + size
    this.count++
  }

  /** One record object, validated (thread id range, method id, times present for the clock). */
  add(record: ArtTraceRecord): void {
    this.checkThread(record.threadId)
    if (!Number.isInteger(record.methodId) || (record.methodId & 3) !== 0) {
      throw invalid(`record method id ${record.methodId} is not a method id (low two bits set?)`)
    }
    const action = ACTION_CODES[record.action]
    if (action === undefined) throw invalid(`unknown action '${String(record.action)}'`)
    const needCpu = this.clock !== 'wall'
    const needWall = this.clock !== 'thread-cpu'
    const cpu = record.threadCpuUs
    const wall = record.wallUs
    if (needCpu && !isTime(cpu)) {
      throw invalid(`clock '${this.clock}' needs threadCpuUs (a non-negative integer), got ${cpu}`)
    }
    if (needWall && !isTime(wall)) {
      throw invalid(`clock '${this.clock}' needs wallUs (a non-negative integer), got ${wall}`)
    }
    this.record(record.threadId, record.methodId, action, cpu ?? 0, wall ?? 0)
  }

  /** Writes what remains (the summary packet when streaming) and hands over the last chunk. */
  finish(): void {
    if (this.finished) return
    if (this.numRecords !== undefined && !this.streaming && this.numRecords !== this.count) {
      throw invalid(
        `the header announced ${this.numRecords} records (num-method-calls) but ${this.count} were written`,
      )
    }
    this.finished = true
    if (this.streaming) {
      const summary = encoder.encode(this.keySection(this.count, false))
      const head = new Uint8Array(7)
      const view = new DataView(head.buffer)
      view.setUint16(0, 0, true)
      view.setUint8(2, 3)
      view.setUint32(3, summary.byteLength, true)
      this.bytes(head)
      this.bytes(summary)
    }
    this.flush()
  }

  private checkThread(id: number): void {
    const min = this.streaming ? 1 : 0
    if (!Number.isInteger(id) || id < min || id > this.maxThreadId) {
      throw invalid(
        `thread id ${id} does not fit version ${this.version}${this.streaming ? ' streaming' : ''} (${min}..${this.maxThreadId})`,
      )
    }
  }

  private keySection(numRecords: number, withMethods: boolean): string {
    const h = this.header
    const lines = [
      '*version',
      String(this.version),
      `data-file-overflow=${h.overflow === true ? 'true' : 'false'}`,
      `clock=${this.clock}`,
      `elapsed-time-usec=${h.elapsedTimeUs}`,
    ]
    if (!this.streaming) lines.push(`num-method-calls=${numRecords}`)
    lines.push(`clock-call-overhead-nsec=${h.clockCallOverheadNs ?? 0}`, `vm=${h.vm ?? 'art'}`)
    if (h.pid !== undefined) lines.push(`pid=${h.pid}`)
    lines.push('*threads')
    for (const thread of h.threads) lines.push(`${thread.id}\t${thread.name}`)
    lines.push('*methods')
    if (withMethods) for (const method of h.methods) lines.push(methodLine(method))
    lines.push('*end', '')
    return lines.join('\n')
  }

  private binaryHeader(startTimeUs: number): void {
    if (!Number.isSafeInteger(startTimeUs) || startTimeUs < 0) {
      throw invalid(`startTimeUs ${startTimeUs} is not a non-negative integer`)
    }
    const head = new Uint8Array(ART_TRACE_HEADER_BYTES)
    const view = new DataView(head.buffer)
    view.setUint32(0, ART_TRACE_MAGIC, true)
    view.setUint16(4, this.streaming ? this.version | STREAMING_VERSION_MASK : this.version, true)
    view.setUint16(6, ART_TRACE_HEADER_BYTES, true)
    view.setBigUint64(8, BigInt(startTimeUs), true)
    if (this.version === 3) view.setUint16(16, this.recordSizeBytes, true)
    this.bytes(head)
  }

  private threadPacket(thread: ArtThread): void {
    const name = encoder.encode(thread.name)
    const head = new Uint8Array(7)
    const view = new DataView(head.buffer)
    view.setUint16(0, 0, true)
    view.setUint8(2, 2)
    view.setUint16(3, thread.id, true)
    view.setUint16(5, Math.min(name.byteLength, 0xffff), true)
    this.bytes(head)
    this.bytes(name.subarray(0, 0xffff))
  }

  private methodPacket(method: ArtMethodInput): void {
    const line = encoder.encode(`${methodLine(method)}\n`)
    if (line.byteLength > 0xffff)
      throw invalid(`method line for ${method.name} exceeds 65535 bytes`)
    const head = new Uint8Array(5)
    const view = new DataView(head.buffer)
    view.setUint16(0, 0, true)
    view.setUint8(2, 1)
    view.setUint16(3, line.byteLength, true)
    this.bytes(head)
    this.bytes(line)
  }

  private bytes(data: Uint8Array): void {
    let at = 0
    while (at < data.byteLength) {
      if (this.pos === this.buf.byteLength) this.flush()
      const n = Math.min(data.byteLength - at, this.buf.byteLength - this.pos)
      this.buf.set(data.subarray(at, at + n), this.pos)
      this.pos += n
      at += n
    }
  }

  private flush(): void {
    if (this.pos === 0) return
    this.onChunk(this.pos === this.buf.byteLength ? this.buf : this.buf.slice(0, this.pos))
    this.buf = new Uint8Array(this.chunkBytes)
    this.dv = new DataView(this.buf.buffer)
    this.pos = 0
  }
}

/** Encodes a whole trace into one buffer. */
export function writeArtTrace(input: ArtTraceWriteInput): Uint8Array {
  const records = Array.isArray(input.records)
    ? (input.records as readonly ArtTraceRecord[])
    : [...input.records]
  const chunks: Uint8Array[] = []
  const enc = new ArtTraceEncoder({
    ...input,
    numRecords: records.length,
    onChunk: (chunk) => chunks.push(chunk),
  })
  for (const record of records) enc.add(record)
  enc.finish()
  return concatBytes(chunks)
}

function methodLine(m: ArtMethodInput): string {
  const id = `0x${m.id.toString(16)}`
  if (m.line !== undefined) {
    return [id, m.className, m.name, m.signature, m.file ?? '', String(m.line)].join('\t')
  }
  if (m.file !== undefined) return [id, m.className, m.name, m.signature, m.file].join('\t')
  return [id, m.className, m.name, m.signature].join('\t')
}

function isTime(value: number | undefined): value is number {
  return value !== undefined && Number.isInteger(value) && value >= 0
}

function invalid(message: string): EnergyError {
  return new EnergyError({
    code: ArtTraceErrors.INVALID_WRITE,
    message,
    hint: 'Fix the trace description passed to the ART trace writer.',
    details: { format: 'ART trace' },
  })
}
