/**
 * The one state machine behind every ART trace reader: push bytes in chunks of any size, get
 * records out through a visitor, constant memory (the method/thread tables plus at most one
 * partial line, record or packet).
 *
 * References (behaviour, not code): AOSP art/tools/dmtracedump/tracedump.cc (parseDataHeader,
 * readDataRecord; GrapheneOS/platform_art@0a12631f), art/runtime/trace.cc (TraceWriter header,
 * streaming opcodes 1 new method, 2 new thread, 3 summary), Perfetto's art_method_tokenizer.cc
 * (google/perfetto@0e7ca5e2: `MaybeRead` = need more bytes, kept apart from corrupt input).
 */
import { EnergyError } from '../../model/index.js'
import { ByteReader } from '../_bytes.js'
import { ArtTraceErrors } from './errors.js'
import { KeySectionParser, parseMethodLine } from './keys.js'
import type { ArtClock, ArtMethod, ArtThread, ArtTraceInfo, ArtTraceLayout } from './types.js'

const FORMAT = 'ART trace'
/** 'SLOW' read as a little-endian u32. */
export const ART_TRACE_MAGIC = 0x574f4c53
export const ART_TRACE_HEADER_BYTES = 32
export const STREAMING_VERSION_MASK = 0xf0
/** Longest key-section line accepted (without its `\n`), whole or in chunks. */
export const MAX_KEY_LINE_BYTES = 1 << 20
const MAX_LINE_BYTES = MAX_KEY_LINE_BYTES
/** Largest streaming summary packet accepted (real ones are a few KB: keys and threads). */
const MAX_SUMMARY_BYTES = 64 << 20
/** Line-end bytes tolerated after the streaming summary (`\n` or `\r\n`). */
const MAX_TRAILING_LINE_END = 2
const OP_NEW_METHOD = 1
const OP_NEW_THREAD = 2
const OP_SUMMARY = 3

/**
 * Receives every record, in file order. Times are the raw 32-bit µs values of the file; a clock
 * the file does not carry is passed as `-1`. `action`: 0 enter, 1 exit, 2 unwind.
 */
export type ArtRecordVisitor = (
  threadId: number,
  methodId: number,
  action: number,
  threadCpuUs: number,
  wallUs: number,
) => void

/** How records are laid out in the data section (see `decodeRecords`). */
export const ArtRecordLayout = {
  /** Version 1: 1-byte thread id, one clock (wall). */
  V1Wall: 0,
  /** Version 1: 1-byte thread id, one clock (thread-cpu). */
  V1Cpu: 1,
  /** 2-byte thread id, thread-cpu then wall. */
  Dual: 2,
  /** 2-byte thread id, one clock (thread-cpu). */
  SingleCpu: 3,
  /** 2-byte thread id, one clock (wall). */
  SingleWall: 4,
} as const
export type ArtRecordLayout = (typeof ArtRecordLayout)[keyof typeof ArtRecordLayout]

/**
 * A visitor that can also take whole runs of records straight from the bytes (the summary's fast
 * path: no call per record). It must consume records from `start` in order, exactly as the
 * per-record visitor would, and return the position of the first record it did not consume: the
 * first one not complete before `end`, one with action bits 3 (the decoder then reports it), or,
 * when `stopAtThreadZero`, the first tid-0 control packet.
 */
export type ArtRecordBlockVisitor = (
  bytes: Uint8Array,
  start: number,
  end: number,
  recordSize: number,
  layout: ArtRecordLayout,
  stopAtThreadZero: boolean,
) => number

/** Key of the optional `ArtRecordBlockVisitor` attached to an `ArtRecordVisitor` function. */
export const ART_RECORD_BLOCK: unique symbol = Symbol('ArtRecordBlockVisitor')

/** An `ArtRecordVisitor` that may carry a block visitor (the decoder uses it when present). */
export type ArtRecordVisitorWithBlock = ArtRecordVisitor & {
  [ART_RECORD_BLOCK]?: ArtRecordBlockVisitor
}

export interface ArtTraceDecoderOptions {
  /** Called once per record. @default no-op (header only) */
  readonly onRecord?: ArtRecordVisitor | ArtRecordVisitorWithBlock
  /**
   * Single-clock streaming files say which clock they use only in the summary at the very end;
   * records before it are decoded with this clock. `parseArtTrace` and the summary fix it up once
   * the summary arrives. @default 'wall'
   */
  readonly streamingClock?: 'wall' | 'thread-cpu'
}

type State = 'detect' | 'text' | 'binaryHeader' | 'data' | 'streamData' | 'done'

const noop: ArtRecordVisitor = () => undefined
const textDecoder = new TextDecoder('utf-8')

export class ArtTraceDecoder {
  private state: State = 'detect'
  private readonly visit: ArtRecordVisitor
  /** The visitor's whole-run entry point, if it has one. */
  private readonly block: ArtRecordBlockVisitor | undefined
  private readonly streamingClock: 'wall' | 'thread-cpu'
  private readonly keySection = new KeySectionParser()
  /** Bytes not processed yet live in `buffer[0, pendingBytes)` (grown by doubling: linear). */
  private buffer = new Uint8Array(0)
  private pendingBytes = 0
  /** Bytes after the streaming summary (only line ends are tolerated, see `afterSummary`). */
  private trailingBytes = 0
  /** Bytes needed before processing can make progress again. */
  private needBytes = 1
  /** File offset of the first pending byte. */
  private baseOffset = 0
  private layout: ArtTraceLayout = 'legacy'
  private version: 1 | 2 | 3 = 3
  private recordSize = 0
  private startTimeUs = 0
  private clock: ArtClock | undefined
  private readonly streamThreads: ArtThread[] = []
  private readonly streamMethods: ArtMethod[] = []
  private summary: KeySectionParser | undefined
  private readonly warnings: string[] = []
  /** Records decoded so far. */
  recordCount = 0
  /** The clock records were mapped with (differs from the final clock only for single-clock streaming). */
  recordClock: ArtClock | undefined

  constructor(options: ArtTraceDecoderOptions = {}) {
    const onRecord: ArtRecordVisitorWithBlock | undefined = options.onRecord
    this.visit = onRecord ?? noop
    this.block = onRecord?.[ART_RECORD_BLOCK]
    this.streamingClock = options.streamingClock ?? 'wall'
  }

  /** Feed the next bytes of the file. The chunk may be reused by the caller afterwards. */
  push(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return
    if (this.state === 'done') {
      this.afterSummary(chunk)
      return
    }
    let rest = chunk
    // A record or packet split by the previous chunk's end: complete it with only the bytes it
    // needs, then decode the rest straight from the chunk (no copy of the whole chunk).
    while (this.pendingBytes > 0 && rest.byteLength > 0 && this.inData()) {
      const take = Math.min(rest.byteLength, Math.max(1, this.needBytes - this.pendingBytes))
      this.append(rest.subarray(0, take))
      rest = rest.subarray(take)
      if (this.pendingBytes >= this.needBytes) this.run(this.buffer.subarray(0, this.pendingBytes))
      if (this.isDone()) {
        if (rest.byteLength > 0) this.afterSummary(rest)
        return
      }
    }
    if (rest.byteLength === 0) return
    if (this.pendingBytes === 0 && rest.byteLength >= this.needBytes) {
      // Nothing pending: decode straight from the caller's chunk, keep a copy of the rest.
      this.run(rest)
      return
    }
    // Headers and key-section lines: the whole chunk goes behind the pending bytes.
    this.append(rest)
    if (this.pendingBytes >= this.needBytes) this.run(this.buffer.subarray(0, this.pendingBytes))
  }

  /** Copies `bytes` after the pending ones (amortised O(1) per byte, even for 1-byte chunks). */
  private append(bytes: Uint8Array): void {
    const total = this.pendingBytes + bytes.byteLength
    if (total > this.buffer.byteLength) {
      const next = new Uint8Array(Math.max(total, this.buffer.byteLength * 2, 4096))
      next.set(this.buffer.subarray(0, this.pendingBytes))
      this.buffer = next
    }
    this.buffer.set(bytes, this.pendingBytes)
    this.pendingBytes = total
  }

  /**
   * Processes `data` (the pending bytes, or a chunk when nothing is pending); keeps what could
   * not be used yet at the start of the buffer.
   */
  private run(data: Uint8Array): void {
    const pos = this.process(data)
    this.baseOffset += pos
    const rest = data.byteLength - pos
    if (this.isDone()) {
      this.pendingBytes = 0
      if (rest > 0) this.afterSummary(data.subarray(pos))
    } else if (data.buffer === this.buffer.buffer) {
      this.buffer.copyWithin(0, pos, data.byteLength)
      this.pendingBytes = rest
    } else {
      this.pendingBytes = 0
      this.append(data.subarray(pos))
    }
  }

  /**
   * Bytes after the streaming summary packet (the end-of-trace marker). A trace that went through
   * a text tool may have gained a final line end: up to two `\r`/`\n` bytes are ignored with a
   * warning; anything else is an error at the end of the summary, however the input is chunked.
   */
  private afterSummary(bytes: Uint8Array): void {
    for (const b of bytes) {
      if ((b !== 0x0a && b !== 0x0d) || this.trailingBytes >= MAX_TRAILING_LINE_END) {
        throw afterEnd(this.baseOffset)
      }
      this.trailingBytes++
    }
  }

  /** Signal end of input; throws if the trace is incomplete. Returns the header information. */
  end(): ArtTraceInfo {
    // Whatever is pending may be enough after all (the wait thresholds can be generous).
    if (this.pendingBytes > 0 && this.state !== 'done') {
      this.run(this.buffer.subarray(0, this.pendingBytes))
    }
    const at = this.baseOffset
    switch (this.state) {
      case 'detect':
        if (this.pendingBytes === 0) {
          throw new EnergyError({
            code: ArtTraceErrors.NOT_ART_TRACE,
            message: 'the input is empty',
            hint: 'Pull the trace again; `am profile stop` writes the file only when tracing stops.',
            details: { format: FORMAT, offset: 0 },
          })
        }
        throw truncated(at, this.pendingBytes, 'before the start of the trace could be recognised')
      case 'text':
        throw truncated(at, this.pendingBytes, 'inside the text key section (no *end line)')
      case 'binaryHeader':
        throw truncated(at, this.pendingBytes, 'inside the binary data header')
      case 'data':
        if (this.pendingBytes > 0) {
          // dmtracedump warns "hit EOF mid-record" and profiles what it read. A final partial
          // record after all `num-method-calls` records is a stray byte (a text tool added a
          // line end), not a lost record: keep the trace and say so.
          const expected = numberKey(this.keySection.keys, 'num-method-calls')
          if (expected === undefined || expected !== this.recordCount) {
            throw truncated(at, this.pendingBytes, `inside a ${this.recordSize}-byte record`)
          }
          this.warnings.push(
            `${this.pendingBytes} stray byte${this.pendingBytes === 1 ? '' : 's'} after the last of the num-method-calls=${expected} records ignored (offset ${at}; did a text tool add a line end?)`,
          )
          this.pendingBytes = 0
        }
        break
      case 'streamData':
        throw truncated(
          at,
          this.pendingBytes,
          'before the streaming summary packet (was tracing stopped with `am profile stop`?)',
        )
      case 'done':
        if (this.trailingBytes > 0) {
          this.warnings.push(
            `${this.trailingBytes} line-end byte${this.trailingBytes === 1 ? '' : 's'} after the streaming summary packet ignored (did a text tool add a line end?)`,
          )
          this.trailingBytes = 0
        }
        break
    }
    return this.info()
  }

  private info(): ArtTraceInfo {
    const parsed = this.summary ?? this.keySection
    const keys = parsed.keys
    const threads = mergeById(this.streamThreads, parsed.threads)
    const methods = mergeById(this.streamMethods, parsed.methods)
    const clock = this.clock ?? 'wall'
    const numMethodCalls = numberKey(keys, 'num-method-calls')
    const warnings = [...this.warnings]
    if (
      this.layout === 'legacy' &&
      numMethodCalls !== undefined &&
      numMethodCalls !== this.recordCount
    ) {
      warnings.push(
        `num-method-calls=${numMethodCalls} but the data section holds ${this.recordCount} records`,
      )
    }
    const elapsedTimeUs = numberKey(keys, 'elapsed-time-usec')
    const clockCallOverheadNs = numberKey(keys, 'clock-call-overhead-nsec')
    const pid = numberKey(keys, 'pid')
    return {
      layout: this.layout,
      version: this.version,
      textVersion: parsed.textVersion,
      clock,
      recordSizeBytes: this.recordSize,
      startTimeUs: this.startTimeUs,
      overflow: keys['data-file-overflow'] === 'true',
      ...(elapsedTimeUs !== undefined ? { elapsedTimeUs } : {}),
      ...(numMethodCalls !== undefined ? { numMethodCalls } : {}),
      ...(clockCallOverheadNs !== undefined ? { clockCallOverheadNs } : {}),
      ...(keys.vm !== undefined ? { vm: keys.vm } : {}),
      ...(pid !== undefined ? { pid } : {}),
      keys: { ...keys },
      threads,
      methods,
      warnings,
    }
  }

  /** Runs the state machine over `data` (whose byte 0 is at `baseOffset`); returns bytes consumed. */
  private process(data: Uint8Array): number {
    let pos = 0
    for (;;) {
      switch (this.state) {
        case 'detect': {
          const next = this.detect(data)
          if (next < 0) return 0
          pos = next
          break
        }
        case 'text': {
          const next = this.text(data, pos)
          if (next < 0) return -next - 1
          pos = next
          break
        }
        case 'binaryHeader': {
          const next = this.binaryHeader(data, pos)
          if (next < 0) return pos
          pos = next
          break
        }
        case 'data':
          return this.legacyRecords(data, pos)
        case 'streamData':
          pos = this.streamRecords(data, pos)
          if (!this.isDone()) return pos
          break
        case 'done':
          return pos
      }
    }
  }

  private detect(data: Uint8Array): number {
    const first = data.byteLength > 0 ? data[0] : undefined
    if (first === 0x2a /* '*' */) {
      if (data.byteLength < 8) return this.wait(8)
      if (textDecoder.decode(data.subarray(0, 8)) !== '*version') throw notATrace(data)
      this.state = 'text'
      this.layout = 'legacy'
      return 0
    }
    if (first === 0x53 /* 'S' */) {
      if (data.byteLength < 4) return this.wait(4)
      const reader = new ByteReader(data, FORMAT)
      if (reader.u32le() !== ART_TRACE_MAGIC) throw notATrace(data)
      this.layout = 'streaming'
      this.state = 'binaryHeader'
      return 0
    }
    throw notATrace(data)
  }

  /** Returns the next position, or `-(pos + 1)` when it needs more bytes. */
  private text(data: Uint8Array, start: number): number {
    let pos = start
    while (this.state === 'text') {
      const nl = data.indexOf(0x0a, pos)
      if (nl < 0) {
        if (data.byteLength - pos > MAX_LINE_BYTES) throw lineTooLong(this.baseOffset + pos)
        // Wait for the partial line to double before scanning again: linear, even for 1-byte chunks.
        this.needBytes = (data.byteLength - pos) * 2 + 1
        return -(pos + 1)
      }
      // The same limit whether the line arrived whole or in pieces (see the branch above).
      if (nl - pos > MAX_LINE_BYTES) throw lineTooLong(this.baseOffset + pos)
      const line = textDecoder.decode(data.subarray(pos, nl))
      const ended = this.keySection.line(line, this.baseOffset + pos)
      if (this.keySection.section === 'keys' && isV2Version(this.keySection.textVersion)) {
        throw v2Format(this.baseOffset + pos)
      }
      pos = nl + 1
      if (ended) {
        this.clock = clockFromKeys(this.keySection.keys, this.baseOffset + pos)
        this.state = 'binaryHeader'
      }
    }
    return pos
  }

  /** Parses the 32-byte (or shorter, per its offset field) binary header; -1 = need more. */
  private binaryHeader(data: Uint8Array, pos: number): number {
    if (data.byteLength - pos < 18) return this.wait(18)
    const at = this.baseOffset + pos
    const reader = new ByteReader(data.subarray(pos), FORMAT, at)
    const magic = reader.u32le()
    if (magic !== ART_TRACE_MAGIC) {
      throw new EnergyError({
        code: ArtTraceErrors.BAD_MAGIC,
        message: `binary section starts with 0x${magic.toString(16).padStart(8, '0')}, not 'SLOW'`,
        hint: 'The data after *end is not an ART trace data section; the file is corrupt.',
        details: { format: FORMAT, offset: at },
      })
    }
    const rawVersion = reader.u16le()
    const streaming = this.layout === 'streaming'
    if (streaming && (rawVersion & STREAMING_VERSION_MASK) !== STREAMING_VERSION_MASK) {
      if (isV2Version(rawVersion)) throw v2Format(at + 4)
      throw new EnergyError({
        code: ArtTraceErrors.NOT_ART_TRACE,
        message: `a bare data section (version ${rawVersion}) without its text key section`,
        hint: 'Old split traces come as a .key and a .data file; concatenate key then data.',
        details: { format: FORMAT, offset: at + 4 },
      })
    }
    const version = streaming ? rawVersion ^ STREAMING_VERSION_MASK : rawVersion
    if (isV2Version(version)) throw v2Format(at + 4)
    if (version !== 1 && version !== 2 && version !== 3) {
      throw new EnergyError({
        code: ArtTraceErrors.UNSUPPORTED_VERSION,
        message: `binary data version ${version} is not 1, 2 or 3 (dmtracedump: "Unsupported trace file version: ${version}")`,
        hint: 'The data section is missing or corrupt (a header-only file?); record the trace again.',
        details: { format: FORMAT, offset: at + 4, version },
      })
    }
    if (streaming && version === 1) {
      throw new EnergyError({
        code: ArtTraceErrors.UNSUPPORTED_VERSION,
        message: 'streaming trace with version-1 (8-bit thread id) records',
        hint: 'ART never writes this; the file is corrupt.',
        details: { format: FORMAT, offset: at + 4 },
      })
    }
    const offsetToData = reader.u16le()
    if (data.byteLength - pos < offsetToData) return this.wait(offsetToData)
    this.startTimeUs = reader.u64le()
    let recordSize = version === 1 ? 9 : 10
    if (version === 3) recordSize = reader.u16le()
    const minOffset = version === 3 ? 18 : 16
    if (offsetToData < minOffset) {
      throw new EnergyError({
        code: ArtTraceErrors.BAD_HEADER,
        message: `binary header says data starts at byte ${offsetToData}, inside the ${minOffset}-byte header`,
        hint: 'The binary header is corrupt; record the trace again.',
        details: { format: FORMAT, offset: at + 6 },
      })
    }
    const timeFields = version === 1 ? recordSize - 5 : recordSize - 6
    if (recordSize < (version === 1 ? 9 : 10)) {
      throw new EnergyError({
        code: ArtTraceErrors.BAD_RECORD_SIZE,
        message: `record size ${recordSize} is smaller than the 10 bytes of a v3 record`,
        hint: 'The binary header is corrupt; record the trace again.',
        details: { format: FORMAT, offset: at + 16 },
      })
    }
    if (this.clock === 'dual' && timeFields < 8) {
      throw new EnergyError({
        code: ArtTraceErrors.BAD_RECORD_SIZE,
        message: `clock=dual needs 14-byte version-3 records, but records are ${recordSize} bytes (version ${version})`,
        hint: 'The key section and the data section disagree; the file is corrupt.',
        details: { format: FORMAT, offset: at + 4 },
      })
    }
    if (this.clock === undefined && !streaming) {
      this.clock = version === 3 && recordSize >= 14 ? 'dual' : 'thread-cpu'
      this.warnings.push(
        `no clock= line; assumed '${this.clock}' from ${recordSize}-byte version-${version} records`,
      )
    }
    if (streaming) {
      this.clock = recordSize >= 14 ? 'dual' : this.streamingClock
    }
    this.recordClock = this.clock
    this.version = version
    this.recordSize = recordSize
    if (!streaming && this.keySection.textVersion !== version) {
      this.warnings.push(
        `*version says ${this.keySection.textVersion} but the data section is version ${version}`,
      )
    }
    if (!streaming && this.keySection.keys['data-file-overflow'] === 'true') {
      this.warnings.push(OVERFLOW_WARNING)
    }
    this.state = streaming ? 'streamData' : 'data'
    this.needBytes = 1
    return pos + offsetToData
  }

  /** A method, not a field read, so TypeScript does not narrow `state` across calls. */
  private isDone(): boolean {
    return this.state === 'done'
  }

  /** In the records (and, streaming, control packets) after the headers. */
  private inData(): boolean {
    return this.state === 'data' || this.state === 'streamData'
  }

  private wait(totalBytes: number): number {
    this.needBytes = totalBytes
    return -1
  }

  /** Non-streaming data: whole records from `start`; returns the first incomplete one. */
  private legacyRecords(b: Uint8Array, start: number): number {
    const size = this.recordSize
    const cpu = this.clock === 'thread-cpu'
    const layout =
      this.version === 1
        ? cpu
          ? ArtRecordLayout.V1Cpu
          : ArtRecordLayout.V1Wall
        : this.clock === 'dual'
          ? ArtRecordLayout.Dual
          : cpu
            ? ArtRecordLayout.SingleCpu
            : ArtRecordLayout.SingleWall
    // The block visitor stops only at the end or at a bad record, which decodeRecords reports.
    const from =
      this.block === undefined ? start : this.block(b, start, b.byteLength, size, layout, false)
    const p = decodeRecords(b, from, size, layout, this.visit, this.baseOffset)
    this.recordCount += (p - start) / size
    this.needBytes = size
    return p
  }

  /** Streaming data: records interleaved with tid-0 control packets; stops after the summary. */
  private streamRecords(b: Uint8Array, start: number): number {
    const visit = this.visit
    const size = this.recordSize
    const len = b.byteLength
    const dual = this.clock === 'dual'
    const cpu = this.clock === 'thread-cpu'
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength)
    const block = this.block
    const layout = dual
      ? ArtRecordLayout.Dual
      : cpu
        ? ArtRecordLayout.SingleCpu
        : ArtRecordLayout.SingleWall
    let p = start
    let n = 0
    try {
      while (p + 2 <= len) {
        if (block !== undefined) {
          // A run of records up to the next control packet, bad record or incomplete record;
          // whatever stopped it is handled below as without a block visitor.
          const next = block(b, p, len, size, layout, true)
          n += (next - p) / size
          p = next
          if (p + 2 > len) break
        }
        const tid = dv.getUint16(p, true)
        if (tid !== 0) {
          if (p + size > len) {
            this.needBytes = size
            return p
          }
          const v = dv.getUint32(p + 2, true)
          const t = dv.getUint32(p + 6, true)
          const a = v & 3
          if (a === 3) throw badAction(this.baseOffset + p)
          if (dual) visit(tid, v - a, a, t, dv.getUint32(p + 10, true))
          else if (cpu) visit(tid, v - a, a, t, -1)
          else visit(tid, v - a, a, -1, t)
          n++
          p += size
          continue
        }
        const next = this.packet(b, dv, p)
        if (next < 0) return p
        p = next
        if (this.isDone()) return p
      }
      this.needBytes = 2
      return p
    } finally {
      this.recordCount += n
    }
  }

  /** One control packet at `p` (tid 0 already seen); returns the next position or -1. */
  private packet(b: Uint8Array, dv: DataView, p: number): number {
    const len = b.byteLength
    const at = this.baseOffset + p
    if (p + 3 > len) return this.wait(3)
    const op = dv.getUint8(p + 2)
    if (op === OP_NEW_METHOD) {
      if (p + 5 > len) return this.wait(5)
      const n = dv.getUint16(p + 3, true)
      if (p + 5 + n > len) return this.wait(5 + n)
      const line = textDecoder.decode(b.subarray(p + 5, p + 5 + n))
      this.streamMethods.push(parseMethodLine(line, at + 5))
      return p + 5 + n
    }
    if (op === OP_NEW_THREAD) {
      if (p + 7 > len) return this.wait(7)
      const tid = dv.getUint16(p + 3, true)
      const n = dv.getUint16(p + 5, true)
      if (p + 7 + n > len) return this.wait(7 + n)
      this.streamThreads.push({ id: tid, name: textDecoder.decode(b.subarray(p + 7, p + 7 + n)) })
      return p + 7 + n
    }
    if (op === OP_SUMMARY) {
      if (p + 7 > len) return this.wait(7)
      const n = dv.getUint32(p + 3, true)
      if (n > MAX_SUMMARY_BYTES) {
        // Checked before waiting for it, so a corrupt length cannot make us hold the whole file.
        throw new EnergyError({
          code: ArtTraceErrors.BAD_PACKET,
          message: `summary packet of ${n} bytes (a key section and thread list; at most ${MAX_SUMMARY_BYTES} accepted)`,
          hint: 'The streaming trace is corrupt; record it again.',
          details: { format: FORMAT, offset: at + 3 },
        })
      }
      if (p + 7 + n > len) return this.wait(7 + n)
      this.readSummary(textDecoder.decode(b.subarray(p + 7, p + 7 + n)), at + 7)
      this.state = 'done'
      return p + 7 + n
    }
    throw new EnergyError({
      code: ArtTraceErrors.BAD_PACKET,
      message: `unknown streaming control opcode ${op} (known: 1 method, 2 thread, 3 summary)`,
      hint: 'The streaming trace is corrupt or from an unsupported ART version.',
      details: { format: FORMAT, offset: at + 2 },
    })
  }

  private readSummary(text: string, offset: number): void {
    const parser = new KeySectionParser()
    let pos = 0
    for (const line of text.split('\n')) {
      if (parser.section === 'end') break
      if (line === '' && pos >= text.length - 1) break
      parser.line(line, offset + pos)
      pos += line.length + 1
    }
    if (parser.section !== 'end' && parser.section !== 'methods' && parser.section !== 'threads') {
      throw new EnergyError({
        code: ArtTraceErrors.BAD_HEADER,
        message: 'the streaming summary packet has no *threads section',
        hint: 'The summary is truncated or corrupt; record the trace again.',
        details: { format: FORMAT, offset },
      })
    }
    if (isV2Version(parser.textVersion)) throw v2Format(offset)
    this.summary = parser
    const clock = clockFromKeys(parser.keys, offset)
    const final = clock ?? this.clock ?? 'wall'
    if (final === 'dual' && this.recordSize < 14) {
      throw new EnergyError({
        code: ArtTraceErrors.BAD_RECORD_SIZE,
        message: `summary says clock=dual but records are ${this.recordSize} bytes`,
        hint: 'The summary and the data disagree; the file is corrupt.',
        details: { format: FORMAT, offset },
      })
    }
    if (final !== this.clock) {
      this.warnings.push(
        `records were decoded as clock '${this.clock ?? 'wall'}' before the summary said '${final}'`,
      )
      if (this.clock === 'dual') {
        this.warnings.push(
          `${this.recordSize}-byte records (room for two clocks) but the summary says clock=${final}: its time is read from each record's first time field, the second is ignored`,
        )
      }
    }
    if (clock === undefined) this.warnings.push(`no clock= line in the summary; assumed '${final}'`)
    this.clock = final
    if (parser.keys['data-file-overflow'] === 'true') this.warnings.push(OVERFLOW_WARNING)
  }
}

/**
 * Whether records decoded with `recordClock` hold the time of the final `clock` in the other slot
 * (thread-cpu ↔ wall) and must be moved. A single clock's time is the record's first time field
 * (extra bytes of a longer record are ignored, as dmtracedump does); the decoder put that field in
 * the thread-cpu slot unless it assumed 'wall'.
 */
export function clockInOtherSlot(recordClock: ArtClock | undefined, clock: ArtClock): boolean {
  if (clock === 'dual' || recordClock === undefined) return false
  return (recordClock === 'wall') !== (clock === 'wall')
}

export const OVERFLOW_WARNING =
  'data-file-overflow=true: the trace buffer filled before tracing stopped; the end of the window is missing (increase the buffer with `am profile start --buffer-size`? or use --streaming)'

/** The hot loop, outside the class so V8 keeps one optimised copy across chunks. */
function decodeRecords(
  b: Uint8Array,
  start: number,
  size: number,
  layout: ArtRecordLayout,
  visit: ArtRecordVisitor,
  baseOffset: number,
): number {
  const len = b.byteLength
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength)
  let p = start
  if (layout === ArtRecordLayout.Dual) {
    for (; p + size <= len; p += size) {
      const v = dv.getUint32(p + 2, true)
      const a = v & 3
      if (a === 3) throw badAction(baseOffset + p)
      visit(dv.getUint16(p, true), v - a, a, dv.getUint32(p + 6, true), dv.getUint32(p + 10, true))
    }
    return p
  }
  const v1 = layout === ArtRecordLayout.V1Wall || layout === ArtRecordLayout.V1Cpu
  const tidBytes = v1 ? 1 : 2
  const cpu = layout === ArtRecordLayout.V1Cpu || layout === ArtRecordLayout.SingleCpu
  for (; p + size <= len; p += size) {
    const v = dv.getUint32(p + tidBytes, true)
    const t = dv.getUint32(p + tidBytes + 4, true)
    const a = v & 3
    if (a === 3) throw badAction(baseOffset + p)
    const tid = v1 ? dv.getUint8(p) : dv.getUint16(p, true)
    if (cpu) visit(tid, v - a, a, t, -1)
    else visit(tid, v - a, a, -1, t)
  }
  return p
}

/** Runs the decoder over a whole file or a sequence of chunks. */
export function forEachRecord(
  input: Uint8Array | Iterable<Uint8Array>,
  visitor: ArtRecordVisitor,
  options: Omit<ArtTraceDecoderOptions, 'onRecord'> = {},
): ArtTraceInfo {
  const decoder = new ArtTraceDecoder({ ...options, onRecord: visitor })
  if (input instanceof Uint8Array) decoder.push(input)
  else for (const chunk of input) decoder.push(chunk)
  return decoder.end()
}

function mergeById<T extends { readonly id: number }>(a: readonly T[], b: readonly T[]): T[] {
  if (a.length === 0) return [...b]
  const seen = new Set(a.map((x) => x.id))
  return [...a, ...b.filter((x) => !seen.has(x.id))]
}

function numberKey(keys: Readonly<Record<string, string>>, key: string): number | undefined {
  const value = keys[key]
  if (value === undefined || !/^-?\d+$/.test(value.trim())) return undefined
  return Number(value)
}

function clockFromKeys(
  keys: Readonly<Record<string, string>>,
  offset: number,
): ArtClock | undefined {
  const clock = keys.clock
  if (clock === undefined) return undefined
  if (clock === 'dual' || clock === 'wall' || clock === 'thread-cpu') return clock
  throw new EnergyError({
    code: ArtTraceErrors.BAD_HEADER,
    message: `unknown clock '${clock}' (expected dual, wall or thread-cpu)`,
    hint: 'The key section is corrupt or from an unknown runtime.',
    details: { format: FORMAT, offset },
  })
}

function isV2Version(version: number): boolean {
  return version === 4 || version === 5
}

function v2Format(offset: number): EnergyError {
  return new EnergyError({
    code: ArtTraceErrors.V2_FORMAT,
    message: 'this is the newer ART "V2" method trace format (version 4/5), not supported yet',
    hint: 'Record with the classic format (e.g. `am profile start` without the V2 trace flag), or open it in Perfetto.',
    details: { format: FORMAT, offset },
  })
}

function truncated(offset: number, have: number, where: string): EnergyError {
  return new EnergyError({
    code: ArtTraceErrors.TRUNCATED,
    message: `the input ends ${where} (${have} bytes left over)`,
    hint: 'The file is truncated (interrupted pull or copy?); pull it from the device again.',
    details: { format: FORMAT, offset },
  })
}

function lineTooLong(offset: number): EnergyError {
  return new EnergyError({
    code: ArtTraceErrors.BAD_HEADER,
    message: `a key-section line longer than ${MAX_LINE_BYTES} bytes`,
    hint: 'This is not a text key section; check the file is an ART method trace.',
    details: { format: FORMAT, offset },
  })
}

function afterEnd(offset: number): EnergyError {
  return new EnergyError({
    code: ArtTraceErrors.BAD_PACKET,
    message: 'data follows the streaming summary packet (the end-of-trace marker)',
    hint: 'Two traces were concatenated or the file is corrupt; split or re-record it.',
    details: { format: FORMAT, offset },
  })
}

function badAction(offset: number): EnergyError {
  return new EnergyError({
    code: ArtTraceErrors.BAD_RECORD,
    message: 'record with action bits 3 (only 0 enter, 1 exit, 2 unwind exist)',
    hint: 'The data section is corrupt or misaligned; record the trace again.',
    details: { format: FORMAT, offset },
  })
}

function notATrace(data: Uint8Array): EnergyError {
  const head = [...data.subarray(0, 8)].map((x) => x.toString(16).padStart(2, '0')).join(' ')
  const guess = guessFormat(data)
  return new EnergyError({
    code: ArtTraceErrors.NOT_ART_TRACE,
    message: `not an ART method trace: starts with bytes ${head}${guess ? ` (${guess})` : ''}, neither '*version' nor 'SLOW'`,
    hint: 'Pass the .trace file written by `am profile start` / Debug.startMethodTracing.',
    details: { format: FORMAT, offset: 0 },
  })
}

function guessFormat(data: Uint8Array): string | undefined {
  const ascii = textDecoder.decode(data.subarray(0, 16))
  if (data[0] === 0x89 && ascii.slice(1, 4) === 'PNG') return 'a PNG image'
  if (ascii.startsWith('PERFILE2')) return 'a simpleperf perf.data file'
  if (ascii.startsWith('SIMPLEPERF')) return 'a simpleperf report_sample protobuf'
  if (data[0] === 0x1f && data[1] === 0x8b) return 'gzip data'
  if (data[0] === 0x50 && data[1] === 0x4b) return 'a zip archive'
  if (ascii.startsWith('<?xml')) return 'an XML document'
  return undefined
}
