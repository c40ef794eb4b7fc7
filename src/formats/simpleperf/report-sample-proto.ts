/**
 * `simpleperf report-sample --protobuf` reader and writer.
 *
 * Layout (AOSP simpleperf/cmd_report_sample.cpp, Run / DumpProtobufReport, mirrored at
 * github.com/Miku-UI/platform_system_extras@b03ef35587a5696450f4a6b16da913ae4acc7ce3):
 * `"SIMPLEPERF"` (10 bytes), LE16 version = 1, then repeated (LE32 size, `Record` bytes), ended by
 * LE32 0. The tool writes MetaInfo first, then samples (and context switches) in time order, then
 * LostSituation, the File table (ids 0,1,2… in order) and the Thread table. Samples refer to files
 * and symbols by id, so ids are resolved after the whole stream is read.
 * Records are decoded with protobufjs from the definitions in `_schema.ts`.
 */
import { EnergyError } from '../../model/errors.js'
import { RecordType } from './_schema.js'
import { SimpleperfErrors } from './errors.js'
import type {
  SimpleperfContextSwitch,
  SimpleperfExecutionType,
  SimpleperfFrame,
  SimpleperfLostSituation,
  SimpleperfMetaInfo,
  SimpleperfReport,
  SimpleperfSample,
  SimpleperfThread,
} from './types.js'
import { concatBytes } from '../_bytes.js'

const FORMAT = 'simpleperf report-sample protobuf'
const MAGIC = 'SIMPLEPERF'
const VERSION = 1

type Obj = Record<string, unknown>

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** protobufjs decodes 64-bit fields as long.js `Long` objects; this is their shape. */
interface LongLike {
  readonly low: number
  readonly high: number
  readonly unsigned: boolean
}

function isLong(value: unknown): value is LongLike {
  return isObj(value) && typeof value.low === 'number' && typeof value.high === 'number'
}

/** A 64-bit value as a JS number; precision loss beyond 2^53 is caught by the safe-integer check. */
function longToNumber(value: LongLike): number {
  const high = value.unsigned ? value.high >>> 0 : value.high
  return high * 4294967296 + (value.low >>> 0)
}

/** A 64-bit value as exact lowercase hex (addresses may exceed 2^53). */
function hex64(value: unknown): string {
  if (isLong(value)) {
    return ((BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0)).toString(16)
  }
  return typeof value === 'number' ? value.toString(16) : '0'
}

/** A field only when it was on the wire (decoded messages inherit defaults from the prototype). */
function own(message: Obj, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(message, key) ? message[key] : undefined
}

function num(value: unknown, field: string, offset: number, fallback = 0): number {
  if (value === undefined || value === null) return fallback
  const n = isLong(value) ? longToNumber(value) : typeof value === 'string' ? Number(value) : value
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    throw corrupt(offset, `field \`${field}\` is not a number`)
  }
  if (!Number.isSafeInteger(n)) {
    throw new EnergyError({
      code: SimpleperfErrors.UNSAFE_INTEGER,
      message: `field \`${field}\` = ${String(value)} exceeds 2^53 and cannot be represented exactly`,
      hint: 'This value is outside what the tool supports; report it with the file attached.',
      details: { format: FORMAT, offset },
    })
  }
  return n
}

function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback
}

function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

function corrupt(offset: number, message: string, cause?: unknown): EnergyError {
  return new EnergyError({
    code: SimpleperfErrors.PROTO_CORRUPT,
    message,
    hint: 'The file is damaged or not produced by `simpleperf report-sample --protobuf`; pull it again.',
    details: { format: FORMAT, offset },
    ...(cause === undefined ? {} : { cause }),
  })
}

function truncated(offset: number, needed: number, total: number): EnergyError {
  return new EnergyError({
    code: SimpleperfErrors.TRUNCATED,
    message: `stream ends after ${total} bytes, ${needed} more needed (no LE32 0 terminator reached)`,
    hint: 'The file was cut short (pulled while simpleperf was still writing, or disk full); regenerate and pull it again.',
    details: { format: FORMAT, offset },
  })
}

/** `true` when the bytes start with the report-sample protobuf magic. */
export function isReportSampleProtobuf(bytes: Uint8Array): boolean {
  if (bytes.length < MAGIC.length) return false
  for (let i = 0; i < MAGIC.length; i++) if (bytes[i] !== MAGIC.charCodeAt(i)) return false
  return true
}

/** `CallChainEntry.ExecutionType` by enum number, and back. */
const EXECUTION_TYPES: readonly SimpleperfExecutionType[] = [
  'native_method',
  'interpreted_jvm_method',
  'jit_jvm_method',
  'art_method',
]

/** `UnwindingResult.ErrorCode` names by enum number. */
const UNWIND_ERRORS: readonly string[] = [
  'ERROR_NONE',
  'ERROR_UNKNOWN',
  'ERROR_NOT_ENOUGH_STACK',
  'ERROR_MEMORY_INVALID',
  'ERROR_UNWIND_INFO',
  'ERROR_INVALID_MAP',
  'ERROR_MAX_FRAME_EXCEEDED',
  'ERROR_REPEATED_FRAME',
  'ERROR_INVALID_ELF',
]

interface PendingFrame {
  readonly vaddr: string
  readonly fileId: number
  readonly symbolId: number
  readonly executionType?: SimpleperfExecutionType
}

interface PendingSample {
  readonly offset: number
  readonly timeNs: number
  readonly threadId: number
  readonly eventCount?: number
  readonly eventTypeId: number
  readonly frames: readonly PendingFrame[]
  readonly unwindingError?: string
}

/**
 * Decode a whole `report-sample --protobuf` file. File and symbol ids are resolved to paths and
 * names; a sample's thread name comes from the Thread table.
 */
export function parseReportSampleProtobuf(bytes: Uint8Array): SimpleperfReport {
  if (!isReportSampleProtobuf(bytes)) {
    throw new EnergyError({
      code: SimpleperfErrors.PROTO_HEADER,
      message: 'missing "SIMPLEPERF" magic at byte 0',
      hint: 'Pass the file written by `simpleperf report-sample --protobuf -o <file>`.',
      details: { format: FORMAT, offset: 0 },
    })
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (bytes.length < 12) throw truncated(10, 12 - bytes.length, bytes.length)
  const version = view.getUint16(10, true)
  if (version !== VERSION) {
    throw new EnergyError({
      code: SimpleperfErrors.PROTO_HEADER,
      message: `unsupported version ${version} (only version ${VERSION} exists)`,
      hint: 'Regenerate the file with a current simpleperf, or report the new version.',
      details: { format: FORMAT, offset: 10 },
    })
  }
  let meta: SimpleperfMetaInfo | undefined
  let lost: SimpleperfLostSituation | undefined
  const pending: PendingSample[] = []
  const contextSwitches: SimpleperfContextSwitch[] = []
  const files: Array<{ path: string; symbols: string[] }> = []
  const threads: SimpleperfThread[] = []
  let offset = 12
  for (;;) {
    if (offset + 4 > bytes.length) throw truncated(offset, offset + 4 - bytes.length, bytes.length)
    const size = view.getUint32(offset, true)
    const start = offset + 4
    if (size === 0) {
      offset = start
      break
    }
    if (start + size > bytes.length)
      throw truncated(start, start + size - bytes.length, bytes.length)
    let record: Obj
    try {
      // Read the decoded message directly: toObject() would triple the cost on big captures.
      record = RecordType.decode(bytes.subarray(start, start + size)) as unknown as Obj
    } catch (cause) {
      throw corrupt(offset, `record of ${size} bytes does not decode as Record`, cause)
    }
    const sample = own(record, 'sample')
    const metaInfo = own(record, 'meta_info')
    const lostRecord = own(record, 'lost')
    const file = own(record, 'file')
    const thread = own(record, 'thread')
    const contextSwitch = own(record, 'context_switch')
    if (isObj(sample)) {
      pending.push(readSample(sample, offset))
    } else if (isObj(metaInfo)) {
      const m = metaInfo
      const text = (key: string): string | undefined => {
        const v = own(m, key)
        return typeof v === 'string' ? v : undefined
      }
      const appPackageName = text('app_package_name')
      const appType = text('app_type')
      const androidSdkVersion = text('android_sdk_version')
      const androidBuildType = text('android_build_type')
      const traceOffcpu = own(m, 'trace_offcpu')
      meta = {
        eventTypes: arr(m.event_type).map((v) => str(v)),
        ...(appPackageName === undefined ? {} : { appPackageName }),
        ...(appType === undefined ? {} : { appType }),
        ...(androidSdkVersion === undefined ? {} : { androidSdkVersion }),
        ...(androidBuildType === undefined ? {} : { androidBuildType }),
        ...(typeof traceOffcpu === 'boolean' ? { traceOffcpu } : {}),
        extra: [],
      }
    } else if (isObj(lostRecord)) {
      lost = {
        sampleCount: num(own(lostRecord, 'sample_count'), 'sample_count', offset),
        lostCount: num(own(lostRecord, 'lost_count'), 'lost_count', offset),
      }
    } else if (isObj(file)) {
      const id = num(own(file, 'id'), 'file.id', offset)
      if (id !== files.length) {
        throw corrupt(offset, `file id ${id} out of order (expected ${files.length})`)
      }
      files.push({
        path: str(own(file, 'path')),
        symbols: arr(file.symbol).map((v) => str(v)),
      })
    } else if (isObj(thread)) {
      threads.push({
        threadId: num(own(thread, 'thread_id'), 'thread_id', offset),
        processId: num(own(thread, 'process_id'), 'process_id', offset),
        threadName: str(own(thread, 'thread_name')),
      })
    } else if (isObj(contextSwitch)) {
      const c = contextSwitch
      contextSwitches.push({
        switchOn: own(c, 'switch_on') === true,
        timeNs: num(own(c, 'time'), 'time', offset),
        threadId: num(own(c, 'thread_id'), 'thread_id', offset),
      })
    }
    // A record with an unknown oneof member (newer simpleperf) is skipped, as protobuf intends.
    offset = start + size
  }
  if (offset !== bytes.length) {
    throw corrupt(offset, `${bytes.length - offset} bytes after the LE32 0 terminator`)
  }
  const threadNames = new Map<number, string>()
  for (const t of threads) threadNames.set(t.threadId, t.threadName)
  const eventTypes = meta?.eventTypes ?? []
  const samples = pending.map((p): SimpleperfSample => {
    const eventType = eventTypes[p.eventTypeId]
    if (eventType === undefined && eventTypes.length > 0) {
      throw new EnergyError({
        code: SimpleperfErrors.BAD_REFERENCE,
        message: `sample refers to event_type_id ${p.eventTypeId}, but meta_info lists ${eventTypes.length} event types`,
        hint: 'The file is damaged; regenerate it with `simpleperf report-sample --protobuf`.',
        details: { format: FORMAT, offset: p.offset },
      })
    }
    return {
      eventType: eventType ?? '',
      timeNs: p.timeNs,
      ...(p.eventCount === undefined ? {} : { eventCount: p.eventCount }),
      threadId: p.threadId,
      threadName: threadNames.get(p.threadId) ?? '',
      frames: p.frames.map((f) => resolveFrame(f, files, p.offset)),
      ...(p.unwindingError === undefined ? {} : { unwindingError: p.unwindingError }),
    }
  })
  return {
    format: 'protobuf',
    ...(meta === undefined ? {} : { meta }),
    samples,
    ...(lost === undefined ? {} : { lost }),
    contextSwitches,
    threads,
  }
}

function readSample(s: Obj, offset: number): PendingSample {
  const frames = arr(s.callchain).map((entry): PendingFrame => {
    const e = isObj(entry) ? entry : {}
    const typeNumber = own(e, 'execution_type')
    const executionType = typeof typeNumber === 'number' ? EXECUTION_TYPES[typeNumber] : undefined
    if (typeof typeNumber === 'number' && executionType === undefined) {
      throw corrupt(offset, `unknown execution_type ${typeNumber}`)
    }
    return {
      vaddr: hex64(own(e, 'vaddr_in_file')),
      fileId: num(own(e, 'file_id'), 'file_id', offset),
      symbolId: num(own(e, 'symbol_id'), 'symbol_id', offset, -1),
      ...(executionType === undefined ? {} : { executionType }),
    }
  })
  if (frames.length === 0) throw corrupt(offset, 'sample has an empty callchain')
  const unwinding = own(s, 'unwinding_result')
  const eventCount = own(s, 'event_count')
  const errorCode = isObj(unwinding) ? own(unwinding, 'error_code') : undefined
  return {
    offset,
    timeNs: num(own(s, 'time'), 'time', offset),
    threadId: num(own(s, 'thread_id'), 'thread_id', offset),
    ...(eventCount === undefined ? {} : { eventCount: num(eventCount, 'event_count', offset) }),
    eventTypeId: num(own(s, 'event_type_id'), 'event_type_id', offset),
    frames,
    ...(isObj(unwinding)
      ? {
          unwindingError:
            typeof errorCode === 'number'
              ? (UNWIND_ERRORS[errorCode] ?? `ERROR_${errorCode}`)
              : 'ERROR_NONE',
        }
      : {}),
  }
}

function resolveFrame(
  f: PendingFrame,
  files: ReadonlyArray<{ path: string; symbols: string[] }>,
  offset: number,
): SimpleperfFrame {
  const file = files[f.fileId]
  if (file === undefined) {
    throw new EnergyError({
      code: SimpleperfErrors.BAD_REFERENCE,
      message: `frame refers to file_id ${f.fileId}, but only ${files.length} File records exist`,
      hint: 'The file is truncated before its File table or damaged; regenerate it.',
      details: { format: FORMAT, offset },
    })
  }
  let symbol: string
  if (f.symbolId === -1) {
    // What report-sample text prints for the same frame (ThreadTree with ShowMarkForUnknownSymbol
    // and ShowIpForUnknownSymbol): `*<file name>[+<vaddr>]`, so text and protobuf agree.
    symbol = unknownSymbolName(file.path, f.vaddr)
  } else {
    const name = file.symbols[f.symbolId]
    if (name === undefined) {
      throw new EnergyError({
        code: SimpleperfErrors.BAD_REFERENCE,
        message: `frame refers to symbol_id ${f.symbolId} of file ${f.fileId} (${file.path}), which has ${file.symbols.length} symbols`,
        hint: 'The file is damaged; regenerate it.',
        details: { format: FORMAT, offset },
      })
    }
    symbol = name
  }
  return {
    vaddrInFile: f.vaddr,
    file: file.path,
    symbol,
    ...(f.executionType === undefined ? {} : { executionType: f.executionType }),
  }
}

/** `*<file name>[+<vaddr hex>]`: simpleperf's text name for an address with no symbol. */
export function unknownSymbolName(path: string, vaddrHex: string): string {
  return `*${baseName(path)}[+${vaddrHex}]`
}

function baseName(path: string): string {
  const slash = path.lastIndexOf('/')
  return slash === -1 ? path : path.slice(slash + 1)
}

/** Options of {@link encodeReportSampleProtobuf}. */
export interface EncodeReportSampleProtobufOptions {
  /**
   * Process id written into Thread records for threads the report does not list.
   * @default the thread id (as if each thread were its own process)
   */
  readonly processId?: number
}

/**
 * Serialize a report the way `simpleperf report-sample --protobuf` does: MetaInfo, samples and
 * context switches (merged by time), LostSituation, File table, Thread table, LE32 0. Files and
 * symbols get ids in order of first use; a symbol of the form `*<file name>[+<vaddr>]` (or without
 * the `*`) is written as symbol_id -1 (unresolved), mirroring the reader.
 */
export function encodeReportSampleProtobuf(
  report: Pick<SimpleperfReport, 'samples'> & Partial<SimpleperfReport>,
  options: EncodeReportSampleProtobufOptions = {},
): Uint8Array {
  const chunks: Uint8Array[] = []
  const header = new Uint8Array(12)
  for (let i = 0; i < MAGIC.length; i++) header[i] = MAGIC.charCodeAt(i)
  new DataView(header.buffer).setUint16(10, VERSION, true)
  chunks.push(header)
  const push = (record: Obj): void => {
    const body = RecordType.encode(RecordType.fromObject(record)).finish()
    const size = new Uint8Array(4)
    new DataView(size.buffer).setUint32(0, body.length, true)
    chunks.push(size, body)
  }
  const eventTypes = [...(report.meta?.eventTypes ?? [])]
  for (const s of report.samples)
    if (!eventTypes.includes(s.eventType)) eventTypes.push(s.eventType)
  const meta = report.meta
  push({
    meta_info: {
      event_type: eventTypes,
      ...(meta?.appPackageName === undefined ? {} : { app_package_name: meta.appPackageName }),
      ...(meta?.appType === undefined ? {} : { app_type: meta.appType }),
      ...(meta?.androidSdkVersion === undefined
        ? {}
        : { android_sdk_version: meta.androidSdkVersion }),
      ...(meta?.androidBuildType === undefined
        ? {}
        : { android_build_type: meta.androidBuildType }),
      trace_offcpu: meta?.traceOffcpu ?? false,
    },
  })
  const files: Array<{ path: string; symbols: string[]; index: Map<string, number> }> = []
  const fileIds = new Map<string, number>()
  const threadNames = new Map<number, string>()
  const events = mergeByTime(report.samples, report.contextSwitches ?? [])
  for (const event of events) {
    if (event.kind === 'switch') {
      const c = event.value
      push({ context_switch: { switch_on: c.switchOn, time: c.timeNs, thread_id: c.threadId } })
      continue
    }
    const s = event.value
    if (s.frames.length === 0) {
      throw new EnergyError({
        code: SimpleperfErrors.WRITER_INPUT,
        message: `sample at ${s.timeNs} ns on thread ${s.threadId} has no frames`,
        hint: 'Every simpleperf sample has at least the sampled instruction; give each sample one frame or more.',
        details: { format: FORMAT },
      })
    }
    if (!threadNames.has(s.threadId)) threadNames.set(s.threadId, s.threadName)
    const callchain = s.frames.map((f) => {
      let fileId = fileIds.get(f.file)
      if (fileId === undefined) {
        fileId = files.length
        fileIds.set(f.file, fileId)
        files.push({ path: f.file, symbols: [], index: new Map() })
      }
      const file = files[fileId]
      let symbolId = -1
      const unknown = unknownSymbolName(f.file, f.vaddrInFile)
      if (file !== undefined && f.symbol !== unknown && f.symbol !== unknown.slice(1)) {
        const known = file.index.get(f.symbol)
        if (known === undefined) {
          symbolId = file.symbols.length
          file.index.set(f.symbol, symbolId)
          file.symbols.push(f.symbol)
        } else {
          symbolId = known
        }
      }
      return {
        vaddr_in_file: BigInt(`0x${f.vaddrInFile}`).toString(),
        file_id: fileId,
        symbol_id: symbolId,
        ...(f.executionType === undefined ? {} : { execution_type: f.executionType.toUpperCase() }),
      }
    })
    push({
      sample: {
        time: s.timeNs,
        thread_id: s.threadId,
        callchain,
        ...(s.eventCount === undefined ? {} : { event_count: s.eventCount }),
        event_type_id: eventTypes.indexOf(s.eventType),
        ...(s.unwindingError === undefined
          ? {}
          : {
              unwinding_result: {
                error_code: Math.max(0, UNWIND_ERRORS.indexOf(s.unwindingError)),
              },
            }),
      },
    })
  }
  push({
    lost: { sample_count: report.samples.length, lost_count: report.lost?.lostCount ?? 0 },
  })
  for (const [id, f] of files.entries()) push({ file: { id, path: f.path, symbol: f.symbols } })
  const listed = new Map<number, SimpleperfThread>()
  for (const t of report.threads ?? []) listed.set(t.threadId, t)
  for (const [tid, name] of threadNames) {
    const t = listed.get(tid)
    push({
      thread: {
        thread_id: tid,
        process_id: t?.processId ?? options.processId ?? tid,
        thread_name: t?.threadName ?? name,
      },
    })
  }
  chunks.push(new Uint8Array(4))
  return concatBytes(chunks)
}

type TimedEvent =
  | { readonly kind: 'sample'; readonly value: SimpleperfSample }
  | { readonly kind: 'switch'; readonly value: SimpleperfContextSwitch }

/** Samples and context switches in one time-ordered stream (stable: samples first on ties). */
export function mergeByTime(
  samples: readonly SimpleperfSample[],
  switches: readonly SimpleperfContextSwitch[],
): TimedEvent[] {
  const out: TimedEvent[] = []
  let j = 0
  for (const s of samples) {
    while (j < switches.length) {
      const c = switches[j]
      if (c === undefined || c.timeNs >= s.timeNs) break
      out.push({ kind: 'switch', value: c })
      j++
    }
    out.push({ kind: 'sample', value: s })
  }
  for (; j < switches.length; j++) {
    const c = switches[j]
    if (c !== undefined) out.push({ kind: 'switch', value: c })
  }
  return out
}
