/**
 * Perfetto binary trace decoder (power data and the scheduler's sched_switch events) and encoder
 * (what a phone's `android.power` and `linux.ftrace` data sources write).
 *
 * A trace file is a `Trace` message: `repeated TracePacket packet = 1`, i.e. a plain concatenation
 * of (tag 0x0a, varint length, packet bytes). We walk it with protobufjs' Reader so errors carry
 * byte offsets, and decode each packet with protobufjs from `_schema.ts`; packet types we do not
 * model (track events, process trees, ftrace events other than sched_switch, ...) are unknown
 * fields and skipped. Scheduler data is read by `sched.ts`.
 *
 * Semantics: rail descriptors may arrive in any power_rails packet; energy_data is cumulative µWs
 * stamped by `timestamp_ms` on CLOCK_BOOTTIME, which Perfetto's trace processor also uses as the
 * reading's time (src/trace_processor/importers/proto/android_probes_parser.cc ParsePowerRails
 * checks `ts / 1000000 == timestamp_ms`); a reading without it takes the packet timestamp when
 * that is on boottime. Battery counters take the packet timestamp, whose clock is
 * `timestamp_clock_id`, else the sequence default, else BOOTTIME.
 */
import { constants as zlibConstants, gunzipSync, inflateSync } from 'node:zlib'
import type { ClockName } from '../../model/clock.js'
import { CommonErrors, EnergyError } from '../../model/errors.js'
import type { RailReading, RailSeries } from '../../model/samples.js'
import { Reader, TraceConfigType, TracePacketType, TraceType } from './_schema.js'
import type { AndroidPowerConfig, PerfettoTraceConfig } from './config.js'
import { requestsSchedSwitch, traceConfigToProtoObject } from './config.js'
import { PerfettoErrors } from './errors.js'
import { FORMAT, arr, corrupt, int, isObj, type Obj } from './_fields.js'
import { SchedCollector, scheduleBundles, type PowerTraceSchedule } from './sched.js'
import type {
  BatteryCounterReading,
  BatteryCounterSeries,
  PerfettoClockReading,
  PerfettoPowerTrace,
  PerfettoRailDescriptor,
} from './types.js'
import { concatBytes } from '../_bytes.js'

/** Perfetto BuiltinClock ids → model clocks (coarse clocks share their base clock's timeline). */
const CLOCK_IDS: Readonly<Record<number, ClockName>> = {
  1: 'realtime',
  2: 'realtime',
  3: 'monotonic',
  4: 'monotonic',
  5: 'monotonic_raw',
  6: 'boottime',
}
const CLOCK_TO_ID: Readonly<Record<string, number>> = {
  realtime: 1,
  monotonic: 3,
  monotonic_raw: 5,
  boottime: 6,
}

function truncated(offset: number, message: string): EnergyError {
  return new EnergyError({
    code: PerfettoErrors.TRUNCATED,
    message,
    hint: 'The trace file was cut short (pulled before perfetto finished writing?); stop the session cleanly and pull it again.',
    details: { format: FORMAT, offset },
  })
}

function notATrace(message: string): EnergyError {
  return new EnergyError({
    code: PerfettoErrors.NOT_A_TRACE,
    message,
    hint: 'Pass the binary trace written by `perfetto -o <file>` (not the text config, a textproto, or a gzip/zip archive).',
    details: { format: FORMAT, offset: 0 },
  })
}

function startsWithAscii(bytes: Uint8Array, ascii: string): boolean {
  if (bytes.length < ascii.length) return false
  for (let i = 0; i < ascii.length; i++) if (bytes[i] !== ascii.charCodeAt(i)) return false
  return true
}

/** Reject well-known other formats by their first bytes, with a message naming them. */
function checkMagic(bytes: Uint8Array): void {
  if (bytes.length === 0) throw notATrace('input is empty')
  if (isGzip(bytes)) throw notATrace('input is gzip-compressed twice (a .gz of a .gz?)')
  if (startsWithAscii(bytes, 'PK\x03\x04'))
    throw notATrace('input is a zip archive (bugreport?), not a trace')
  if (startsWithAscii(bytes, 'PERFILE2'))
    throw notATrace('input is a simpleperf/perf perf.data recording')
  if (startsWithAscii(bytes, 'SIMPLEPERF'))
    throw notATrace('input is simpleperf report-sample protobuf')
  if (startsWithAscii(bytes, '*version') || startsWithAscii(bytes, 'SLOW')) {
    throw notATrace('input is an ART method trace')
  }
  if (bytes[0] !== 0x0a) {
    const head = new TextDecoder().decode(bytes.subarray(0, 32))
    if (/^\s*(?:packet|buffers|data_sources|duration_ms)\s*[:{]/.test(head)) {
      throw notATrace('input is protobuf text (a textproto or config), not a binary trace')
    }
    if (/^#\s*BattOr\b/.test(head)) {
      throw notATrace(
        'input is BattOr power-monitor text (a meter capture: parseMeterText reads it)',
      )
    }
    if (head.startsWith('# tracer:')) {
      throw notATrace('input is ftrace text (systrace, `# tracer:`), not a binary trace')
    }
    if (/^[\t\n\r\x20-\x7e]+$/.test(head)) {
      throw notATrace(`input is text (${JSON.stringify(head.slice(0, 24))}…), not a binary trace`)
    }
    throw notATrace(
      `first byte 0x${(bytes[0] ?? 0).toString(16).padStart(2, '0')} is not a TracePacket field tag (0x0a)`,
    )
  }
}

function isGzip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x1f && bytes[1] === 0x8b
}

/** Options of {@link decodePowerTrace} and {@link PowerTraceDecoder}. */
export interface DecodePowerTraceOptions {
  /**
   * Most bytes that inflating may produce over the whole trace (a gzip file, every
   * `compressed_packets`), counted together. Default: the larger of 256 MiB and 64× the bytes read
   * up to the end of what is inflated (the gzip input's size; where a compressed packet ends), far
   * above what Perfetto's deflate produces (about 5–10×) and far below what a
   * zip bomb asks for (deflate reaches about 1000×).
   */
  readonly maxInflatedBytes?: number
}

const DEFAULT_MIN_INFLATE_LIMIT = 256 * 1024 * 1024
const DEFAULT_INFLATE_RATIO = 64

/**
 * What inflating may still produce in this decode; each inflation takes its share. The limit is
 * `maxInflatedBytes` when given, else the larger of 256 MiB and 64× the bytes read up to the end
 * of what is inflated: a point in the input, so the same whether the trace came whole or in
 * chunks.
 */
class InflateBudget {
  private used = 0
  constructor(private readonly explicitLimit: number | undefined) {}

  inflate(
    data: Uint8Array,
    kind: 'gzip' | 'compressed_packets',
    offset: number,
    readBytes: number,
  ): Uint8Array {
    const limit =
      this.explicitLimit ?? Math.max(DEFAULT_MIN_INFLATE_LIMIT, DEFAULT_INFLATE_RATIO * readBytes)
    const remaining = limit - this.used
    let out: Uint8Array
    try {
      if (remaining < 1)
        throw Object.assign(new RangeError('limit'), { code: 'ERR_BUFFER_TOO_LARGE' })
      // zlib stops as soon as the output passes the cap, before allocating the rest
      const options = { maxOutputLength: remaining }
      out = kind === 'gzip' ? gunzipSync(data, options) : inflateSync(data, options)
    } catch (cause) {
      if ((cause as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new EnergyError({
          code: PerfettoErrors.INFLATE_LIMIT,
          message: `inflating ${kind === 'gzip' ? 'the gzip input' : `compressed_packets of ${data.length} bytes`} would pass the limit of ${limit} inflated bytes (${this.used} used before)`,
          hint: 'A real trace inflates about 5–10×; this looks like a zip bomb or a damaged file. If the trace is genuine, pass a larger maxInflatedBytes.',
          details: { format: FORMAT, offset, limit },
          cause,
        })
      }
      throw kind === 'gzip'
        ? notATrace(`input starts like gzip but does not gunzip (${errorText(cause)})`)
        : corrupt(offset, 'compressed_packets do not inflate (zlib)', cause)
    }
    this.used += out.length
    return out
  }
}

function errorText(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause)
}

/**
 * Cheap sniff without a file name: `true` when the bytes start like a binary Perfetto trace (a
 * `packet` field whose length fits the input), or like a gzip-compressed one (its first 256
 * bytes gunzip to a `packet` tag and length). It does not decode the packets.
 */
export function isPerfettoTrace(bytes: Uint8Array): boolean {
  if (isGzip(bytes)) {
    let head: Uint8Array
    try {
      // a cut-short stream inflates as far as it goes with a sync flush; 256 bytes → ≤ 256 KiB
      head = gunzipSync(bytes.subarray(0, 256), { finishFlush: zlibConstants.Z_SYNC_FLUSH })
    } catch {
      return false
    }
    return startsWithPacket(head, false)
  }
  return startsWithPacket(bytes, true)
}

function startsWithPacket(bytes: Uint8Array, whole: boolean): boolean {
  if (bytes[0] !== 0x0a) return false
  try {
    const reader = Reader.create(bytes)
    reader.uint32()
    const length = reader.uint32()
    return !whole || reader.pos + length <= bytes.length
  } catch {
    return false
  }
}

interface RawPacket {
  readonly offset: number
  readonly packet: Obj
}

/**
 * Walk `Trace.packet` entries, expanding `compressed_packets` (zlib deflate) in place. Perfetto
 * compresses once (`compressed_packets` hold plain packets); one nested inside another is corrupt.
 * Offsets are `base` + the position; inside an inflated run every offset is the compressed
 * packet's, and a packet cut short there is corrupt data, not a truncated file.
 */
function* packets(
  bytes: Uint8Array,
  base: number,
  budget: InflateBudget,
  inflated: boolean,
): Generator<RawPacket> {
  const reader = Reader.create(bytes)
  while (reader.pos < reader.len) {
    const pos = reader.pos
    const at = inflated ? base : base + pos
    const cut = (message: string): EnergyError =>
      inflated ? corrupt(at, `compressed_packets: ${message}`) : truncated(at, message)
    let tag: number
    let length: number
    try {
      tag = reader.uint32()
      if (tag >>> 3 !== 1 || (tag & 7) !== 2) {
        if (tag >>> 3 === 0) throw corrupt(at, `invalid field number 0 at top level`)
        reader.skipType(tag & 7)
        continue
      }
      length = reader.uint32()
    } catch (error) {
      if (error instanceof EnergyError) throw error
      // protobufjs' Reader throws RangeError('index out of range: …') at the end of the bytes;
      // anything else (a run of nested groups too deep to skip) is damage, not truncation
      if (!(error instanceof RangeError && error.message.startsWith('index out of range'))) {
        throw corrupt(at, `field at top level does not decode (${errorText(error)})`, error)
      }
      throw cut(`trace ends inside a packet header (${bytes.length - pos} bytes left)`)
    }
    const start = reader.pos
    if (start + length > bytes.length) {
      throw cut(
        `packet of ${length} bytes at offset ${base + start} runs past the end (${bytes.length - start} bytes left)`,
      )
    }
    let packet: Obj
    let compressed: Uint8Array | undefined
    try {
      const message = TracePacketType.decode(bytes.subarray(start, start + length))
      // kept as bytes: never a JavaScript array of numbers, one per compressed byte
      const raw = (message as { compressed_packets?: unknown }).compressed_packets
      compressed = raw instanceof Uint8Array && raw.length > 0 ? raw : undefined
      packet =
        compressed === undefined
          ? TracePacketType.toObject(message, {
              longs: String,
              enums: String,
              bytes: Array,
              defaults: false,
            })
          : {}
    } catch (cause) {
      throw corrupt(at, `packet of ${length} bytes does not decode as TracePacket`, cause)
    }
    reader.pos = start + length
    if (compressed !== undefined) {
      if (inflated) {
        throw corrupt(at, 'compressed_packets inside compressed_packets (Perfetto compresses once)')
      }
      const inner = budget.inflate(compressed, 'compressed_packets', at, base + start + length)
      yield* packets(inner, at, budget, true)
      continue
    }
    yield { offset: at, packet }
  }
}

/**
 * Decode a binary Perfetto trace and return its power data: ODPM rails as cumulative `RailSeries`
 * (J, boottime), battery counters (SI, with their clock), rail descriptors and clock snapshots;
 * and, when it has sched_switch data, what ran on each CPU (`schedule`).
 * Traces without power data decode fine and report `hasPowerData: false`. A gzip-compressed
 * trace (as trace processor and ui.perfetto.dev open them) is gunzipped first; byte offsets in
 * errors are then offsets into the gunzipped trace. All inflating together stays within
 * `options.maxInflatedBytes`, else `E_PERFETTO_INFLATE_LIMIT`. The same as
 * {@link PowerTraceDecoder} given the whole input at once.
 */
export function decodePowerTrace(
  input: Uint8Array,
  options: DecodePowerTraceOptions = {},
): PerfettoPowerTrace {
  const decoder = new PowerTraceDecoder(options)
  decoder.push(input)
  return decoder.end()
}

/** The longest a top-level field's header can be: a 10-byte tag varint and a 10-byte length. */
const MAX_HEADER_BYTES = 20
/** What the format sniff looks at before the first packet (`checkMagic`). */
const SNIFF_BYTES = 32

/**
 * A binary Perfetto trace decoded as its bytes arrive — a trace read while perfetto still writes
 * it, or piped from the phone — with {@link decodePowerTrace}'s result: `push` each chunk, then
 * `end`. The result and any error (its code, message and byte offset) do not depend on where the
 * input is split (property-tested, and fuzzed with random splits). Time is linear in the input;
 * besides what the result holds, memory is the packet being received. A gzip-compressed trace
 * (a file a user passes, never what perfetto writes) is kept whole and gunzipped at `end`. After
 * an error the decoder is spent.
 */
export class PowerTraceDecoder {
  private readonly budget: InflateBudget
  private readonly accumulator = traceAccumulator()
  /** Bytes received and not yet decoded: the start of the input, or a field still arriving. */
  private pending: Uint8Array[] = []
  private pendingBytes = 0
  /** Where `pending` starts in the input. */
  private offset = 0
  /**
   * `sniff` until the input's first bytes tell a gzip from a plain trace; `gzip` and `rest` (after
   * a field only a walk to its end can skip) keep what arrives for `end`.
   */
  private mode: 'sniff' | 'gzip' | 'plain' | 'rest' = 'sniff'
  /** Bytes `pending` must reach before the field at its start is complete (0: not yet known). */
  private needBytes = 0
  private ended = false

  constructor(options: DecodePowerTraceOptions = {}) {
    const limit = options.maxInflatedBytes
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0)) {
      throw new EnergyError({
        code: CommonErrors.INVALID_OPTION,
        message: `maxInflatedBytes must be a non-negative whole number of bytes, got ${limit}`,
        hint: 'Pass a byte count such as 1024 * 1024 * 1024, or leave it out for the default.',
        details: { format: FORMAT },
      })
    }
    this.budget = new InflateBudget(limit)
  }

  /**
   * The next bytes of the trace. The decoder keeps `chunk` (not a copy) until its packets are
   * decoded: do not overwrite it meanwhile.
   */
  push(chunk: Uint8Array): void {
    if (this.ended) throw new Error('PowerTraceDecoder: push() after end()')
    if (chunk.length === 0) return
    this.pending.push(chunk)
    this.pendingBytes += chunk.length
    if (this.mode === 'sniff') {
      if (this.pendingBytes < SNIFF_BYTES) return
      this.sniff()
    }
    if (this.mode === 'plain') this.decodeComplete()
  }

  /** The whole trace's power data; throws when the input ended inside a packet. */
  end(): PerfettoPowerTrace {
    if (this.ended) throw new Error('PowerTraceDecoder: end() called twice')
    this.ended = true
    if (this.mode === 'sniff') {
      if (this.pendingBytes === 0) throw notATrace('input is empty')
      this.sniff()
    }
    if (this.mode === 'gzip') {
      const input = this.take()
      const bytes = this.budget.inflate(input, 'gzip', 0, input.length)
      checkMagic(bytes)
      this.decode(bytes, 0)
    } else if (this.pendingBytes > 0) {
      // What is left is cut short (or a field this reader leaves to the end): the whole-buffer
      // walk says where, as it would have on the whole input.
      this.decode(this.take(), this.offset)
    }
    return this.accumulator.finish()
  }

  private sniff(): void {
    const head = this.peek(SNIFF_BYTES)
    if (isGzip(head)) {
      this.mode = 'gzip'
      return
    }
    checkMagic(head)
    this.mode = 'plain'
  }

  /** Decodes every complete top-level field in `pending`, keeping the one still arriving. */
  private decodeComplete(): void {
    for (;;) {
      if (this.needBytes === 0) {
        const need = fieldBytes(this.peek(MAX_HEADER_BYTES), this.pendingBytes)
        if (need === 'later') return
        if (need === 'rest') {
          // A group at the top level: the whole-buffer walk skips it at the end.
          this.mode = 'rest'
          return
        }
        // 'now': a header that cannot decode; the walk reports it as it would on the whole input.
        this.needBytes = need === 'now' ? this.pendingBytes : need
      }
      if (this.pendingBytes < this.needBytes) return
      // One copy of what has arrived, then every complete field in it at once.
      const bytes = this.take()
      let end = this.needBytes
      for (;;) {
        const need = fieldBytes(bytes.subarray(end, end + MAX_HEADER_BYTES), bytes.length - end)
        if (typeof need !== 'number' || end + need > bytes.length) break
        end += need
      }
      this.decode(bytes.subarray(0, end), this.offset)
      this.offset += end
      this.needBytes = 0
      if (end < bytes.length) {
        this.pending = [bytes.subarray(end)]
        this.pendingBytes = bytes.length - end
      }
    }
  }

  private decode(bytes: Uint8Array, base: number): void {
    for (const { offset, packet } of packets(bytes, base, this.budget, false))
      this.accumulator.packet(offset, packet)
  }

  /** The first `n` pending bytes (fewer when fewer arrived), without consuming them. */
  private peek(n: number): Uint8Array {
    const first = this.pending[0]
    if (first !== undefined && first.length >= Math.min(n, this.pendingBytes))
      return first.subarray(0, n)
    const out = new Uint8Array(Math.min(n, this.pendingBytes))
    let at = 0
    for (const c of this.pending) {
      if (at >= out.length) break
      const part = c.subarray(0, out.length - at)
      out.set(part, at)
      at += part.length
    }
    return out
  }

  /** Every pending byte as one array; `pending` is then empty. */
  private take(): Uint8Array {
    const parts = this.pending
    this.pending = []
    this.pendingBytes = 0
    return concatBytes(parts)
  }
}

/**
 * How many bytes the top-level field starting at `head` (its first ≤ 20 bytes; `available` arrived
 * in all) takes, header included, read as the walk reads it (protobufjs' Reader): `later` when its
 * header has not all arrived; `now` when the header cannot decode (field 0, wire types 4, 6 and 7:
 * the walk reports it); `rest` when only a walk through the field finds its end (a group, a varint
 * longer than the header window): such input is decoded whole at the end.
 */
function fieldBytes(head: Uint8Array, available: number): number | 'later' | 'now' | 'rest' {
  const reader = Reader.create(head)
  try {
    const tag = reader.uint32()
    const wireType = tag & 7
    if (tag >>> 3 === 0 || wireType === 4 || wireType > 5) return 'now'
    if (wireType === 3) return 'rest'
    if (wireType === 2) {
      const length = reader.uint32()
      return reader.pos + length
    }
    if (wireType === 1) return reader.pos + 8
    if (wireType === 5) return reader.pos + 4
    reader.skip()
    return reader.pos
  } catch (error) {
    if (!(error instanceof RangeError && error.message.startsWith('index out of range')))
      return 'now'
    return head.length === available && available < MAX_HEADER_BYTES ? 'later' : 'rest'
  }
}

/** What a trace's packets add up to, packet by packet (the decoders' shared state). */
function traceAccumulator(): {
  packet(offset: number, packet: Obj): void
  finish(): PerfettoPowerTrace
} {
  const kinds: Record<string, number> = {}
  const count = (kind: string): void => {
    kinds[kind] = (kinds[kind] ?? 0) + 1
  }
  const descriptors = new Map<number, PerfettoRailDescriptor>()
  const energy: Array<{ index: number; tNs: number; energyJ: number; offset: number }> = []
  const battery = new Map<
    string,
    { name?: string; clock: ClockName; readings: BatteryCounterReading[] }
  >()
  const snapshots: PerfettoClockReading[][] = []
  const sequenceClock = new Map<number, number>()
  const warnings: string[] = []
  const dataSources: string[] = []
  let powerConfig: AndroidPowerConfig | undefined
  const seenSequences = new Set<number>()
  const droppedOn = new Set<number>()
  const powerSequences = new Set<number>()
  const sched = new SchedCollector()
  let schedRequested = false
  let packetCount = 0
  return {
    packet(offset, packet) {
      packetCount++
      const sequence =
        int(packet.trusted_packet_sequence_id, 'trusted_packet_sequence_id', offset) ?? 0
      if (isObj(packet.trace_packet_defaults)) {
        const id = int(
          packet.trace_packet_defaults.timestamp_clock_id,
          'timestamp_clock_id',
          offset,
        )
        if (id !== undefined) sequenceClock.set(sequence, id)
      }
      // The service flags the first packet of every sequence as "previous dropped"; a later flag
      // means packets of that producer were lost (ring buffer overwritten, shared memory full).
      const dropped = packet.previous_packet_dropped
      if (seenSequences.has(sequence) && typeof dropped === 'number' && dropped !== 0) {
        droppedOn.add(sequence)
      }
      seenSequences.add(sequence)
      const timestampNs = int(packet.timestamp, 'timestamp', offset)
      const clockId =
        int(packet.timestamp_clock_id, 'timestamp_clock_id', offset) ??
        sequenceClock.get(sequence) ??
        6
      if (timestampNs !== undefined && CLOCK_IDS[clockId] === 'boottime')
        sched.noteTime(timestampNs)
      let kind = 'other'
      if (isObj(packet.ftrace_events)) {
        kind = 'ftrace_events'
        sched.bundle(packet.ftrace_events, offset, sequence)
      } else if (isObj(packet.power_rails)) {
        kind = 'power_rails'
        for (const d of arr(packet.power_rails.rail_descriptor)) {
          if (!isObj(d)) continue
          const index = int(d.index, 'rail_descriptor.index', offset) ?? 0
          const rate = int(d.sampling_rate, 'sampling_rate', offset)
          descriptors.set(index, {
            index,
            railName: typeof d.rail_name === 'string' ? d.rail_name : '',
            subsystem: typeof d.subsys_name === 'string' ? d.subsys_name : '',
            ...(rate === undefined ? {} : { samplingRateHz: rate }),
          })
        }
        for (const e of arr(packet.power_rails.energy_data)) {
          if (!isObj(e)) continue
          const index = int(e.index, 'energy_data.index', offset) ?? 0
          const ms = int(e.timestamp_ms, 'timestamp_ms', offset)
          const uws = int(e.energy, 'energy', offset) ?? 0
          let tNs: number
          if (ms !== undefined) {
            tNs = ms * 1e6
          } else if (timestampNs !== undefined && CLOCK_IDS[clockId] === 'boottime') {
            tNs = timestampNs
          } else {
            warnings.push(
              `energy_data for rail index ${index} at byte ${offset} has no timestamp_ms and no boottime packet timestamp; reading dropped`,
            )
            continue
          }
          energy.push({ index, tNs, energyJ: uws / 1e6, offset })
          sched.noteTime(tNs)
        }
      } else if (isObj(packet.battery)) {
        kind = 'battery'
        const clock = CLOCK_IDS[clockId]
        if (clock === undefined) {
          throw new EnergyError({
            code: PerfettoErrors.UNSUPPORTED_CLOCK,
            message: `battery packet uses clock id ${clockId}, which is not a builtin clock`,
            hint: 'Record battery counters with the default (BOOTTIME) packet clock.',
            details: { format: FORMAT, offset },
          })
        }
        if (timestampNs === undefined) {
          warnings.push(`battery packet at byte ${offset} has no timestamp; reading dropped`)
        } else {
          const b = packet.battery
          const name = typeof b.name === 'string' ? b.name : undefined
          const key = `${name ?? ''}\u0000${clock}`
          let series = battery.get(key)
          if (series === undefined) {
            series = { ...(name === undefined ? {} : { name }), clock, readings: [] }
            battery.set(key, series)
          }
          const charge = int(b.charge_counter_uah, 'charge_counter_uah', offset)
          const current = int(b.current_ua, 'current_ua', offset)
          const currentAvg = int(b.current_avg_ua, 'current_avg_ua', offset)
          const energyUwh = int(b.energy_counter_uwh, 'energy_counter_uwh', offset)
          const voltage = int(b.voltage_uv, 'voltage_uv', offset)
          const capacity = typeof b.capacity_percent === 'number' ? b.capacity_percent : undefined
          series.readings.push({
            tNs: timestampNs,
            ...(charge === undefined ? {} : { chargeC: (charge * 3600) / 1e6 }),
            ...(capacity === undefined ? {} : { capacityPercent: capacity }),
            ...(current === undefined ? {} : { currentA: current / 1e6 }),
            ...(currentAvg === undefined ? {} : { currentAvgA: currentAvg / 1e6 }),
            ...(energyUwh === undefined ? {} : { energyJ: (energyUwh * 3600) / 1e6 }),
            ...(voltage === undefined ? {} : { voltageV: voltage / 1e6 }),
          })
        }
      } else if (isObj(packet.clock_snapshot)) {
        kind = 'clock_snapshot'
        snapshots.push(
          arr(packet.clock_snapshot.clocks)
            .filter(isObj)
            .map((c): PerfettoClockReading => {
              const id = typeof c.clock_id === 'number' ? c.clock_id : 0
              const timestamp = typeof c.timestamp === 'string' ? c.timestamp : '0'
              const asNumber = Number(timestamp)
              const clock = CLOCK_IDS[id]
              if (clock === 'boottime' && Number.isSafeInteger(asNumber)) sched.noteTime(asNumber)
              return {
                clockId: id,
                ...(clock === undefined ? {} : { clock }),
                timestamp,
                ...(Number.isSafeInteger(asNumber) ? { timestampNs: asNumber } : {}),
              }
            }),
        )
      } else if (isObj(packet.trace_config)) {
        kind = 'trace_config'
        for (const ds of arr(packet.trace_config.data_sources)) {
          if (isObj(ds) && isObj(ds.config) && typeof ds.config.name === 'string') {
            dataSources.push(ds.config.name)
            const ftrace = ds.config.ftrace_config
            if (ds.config.name === 'linux.ftrace' && isObj(ftrace)) {
              const asked = requestsSchedSwitch({
                ftraceEvents: arr(ftrace.ftrace_events).map(String),
                atraceCategories: arr(ftrace.atrace_categories).map(String),
                unknownFields: [],
              })
              schedRequested ||= asked
            }
            // Old services echo every config sub-message, also for other data sources: only the
            // android.power source's config means anything.
            if (ds.config.name === 'android.power' && isObj(ds.config.android_power_config)) {
              const p = ds.config.android_power_config
              powerConfig = {
                ...(typeof p.battery_poll_ms === 'number'
                  ? { batteryPollMs: p.battery_poll_ms }
                  : {}),
                batteryCounters: arr(p.battery_counters).map((c) => String(c)),
                ...(typeof p.collect_power_rails === 'boolean'
                  ? { collectPowerRails: p.collect_power_rails }
                  : {}),
                unknownFields: [],
              }
            }
          }
        }
      }
      if (kind === 'power_rails' || kind === 'battery') powerSequences.add(sequence)
      count(kind)
    },
    finish() {
      for (const sequence of droppedOn) {
        if (powerSequences.has(sequence)) {
          warnings.push(
            `packets were lost on the power data sequence ${sequence} (previous_packet_dropped): readings may be missing`,
          )
        }
      }
      const { schedule, warnings: schedWarnings } = sched.finish(schedRequested, droppedOn)
      warnings.push(...schedWarnings)
      const byRail = new Map<number, RailReading[]>()
      const lastEnergy = new Map<number, number>()
      for (const e of energy) {
        if (!descriptors.has(e.index) && !byRail.has(e.index)) {
          warnings.push(
            `energy_data refers to rail index ${e.index}, which no rail_descriptor describes`,
          )
        }
        const previous = lastEnergy.get(e.index)
        if (previous !== undefined && e.energyJ < previous) {
          warnings.push(
            `rail index ${e.index}: cumulative energy went backwards (${previous} J → ${e.energyJ} J) at byte ${e.offset}`,
          )
        }
        lastEnergy.set(e.index, e.energyJ)
        let list = byRail.get(e.index)
        if (list === undefined) {
          list = []
          byRail.set(e.index, list)
        }
        list.push({ tNs: e.tNs, energyJ: e.energyJ })
      }
      const rails: RailSeries[] = [...byRail.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([index, readings]) => {
          const d = descriptors.get(index)
          return {
            kind: 'cumulative',
            rail: d?.railName ?? `rail#${index}`,
            ...(d === undefined || d.subsystem === '' ? {} : { subsystem: d.subsystem }),
            source: 'perfetto.power_rails',
            clock: 'boottime',
            // Stable sort: readings at equal times keep trace order.
            readings: [...readings].sort((a, b) => a.tNs - b.tNs),
          }
        })
      const batterySeries: BatteryCounterSeries[] = [...battery.values()]
      return {
        packetCount,
        packetKinds: kinds,
        rails,
        railDescriptors: [...descriptors.values()].sort((a, b) => a.index - b.index),
        battery: batterySeries,
        clockSnapshots: snapshots,
        hasPowerData: rails.length > 0 || batterySeries.some((s) => s.readings.length > 0),
        configuredDataSources: dataSources,
        ...(powerConfig === undefined ? {} : { androidPowerConfig: powerConfig }),
        ...(schedule === undefined ? {} : { schedule }),
        warnings,
      }
    },
  }
}

/** A rail to encode: the model's series plus optional descriptor facts. */
export interface PowerTraceRail {
  readonly series: RailSeries
  /** Hardware sampling rate written into the descriptor. */
  readonly samplingRateHz?: number
}

/** Input of {@link encodePowerTrace}. */
export interface PowerTraceInput {
  /**
   * ODPM rails. Readings are written with `timestamp_ms = round(tNs / 1e6)` and
   * `energy = round(energyJ × 1e6)` µWs; readings that share a time go into one packet.
   * Series must be on `boottime`.
   */
  readonly rails?: readonly (RailSeries | PowerTraceRail)[]
  /** Battery counters; each reading becomes one `battery` packet stamped `tNs` on the series clock. */
  readonly batteryCounters?: readonly BatteryCounterSeries[]
  /**
   * Clock readings taken at the same instant, written as the service's `clock_snapshot` packet.
   * @default `{ boottime: <earliest data time, whole ms> }`
   */
  readonly clockSnapshot?: Partial<
    Record<'boottime' | 'monotonic' | 'monotonic_raw' | 'realtime', number>
  >
  /** The session's config, echoed as a `trace_config` packet as the tracing service does. */
  readonly config?: PerfettoTraceConfig
  /** `trusted_packet_sequence_id` of the android.power producer. @default 2 */
  readonly sequenceId?: number
  /** `trusted_uid` of the producer (traced_probes). @default 9999 */
  readonly producerUid?: number
  /**
   * What ran on each CPU, written as the `linux.ftrace` data source writes `sched_switch` (one
   * `ftrace_events` bundle per CPU on sequence `sequenceId + 1`), followed by a closing clock
   * snapshot at the schedule's end. A decoded `CpuSchedule` can be passed as is.
   */
  readonly schedule?: PowerTraceSchedule
}

function earliestTime(input: PowerTraceInput): number {
  let min = Infinity
  for (const r of input.rails ?? []) {
    const series = 'series' in r ? r.series : r
    for (const reading of series.readings) min = Math.min(min, reading.tNs)
  }
  for (const b of input.batteryCounters ?? []) {
    if (b.clock !== 'boottime') continue
    for (const reading of b.readings) min = Math.min(min, reading.tNs)
  }
  return Number.isFinite(min) ? Math.max(0, Math.floor(min / 1e6) * 1e6) : 0
}

function encodeError(message: string): EnergyError {
  return new EnergyError({
    code: PerfettoErrors.ENCODE_INPUT,
    message,
    hint: 'Give non-negative, finite values on the boottime clock (rails) or a builtin clock (battery).',
    details: { format: FORMAT },
  })
}

function nonNegativeInt(value: number, what: string): number {
  if (!Number.isFinite(value) || value < 0) throw encodeError(`${what} is ${value}`)
  const rounded = Math.round(value)
  if (!Number.isSafeInteger(rounded)) throw encodeError(`${what} = ${value} exceeds 2^53`)
  return rounded
}

/**
 * Encode power data as the binary Perfetto trace a phone writes for an `android.power` session:
 * [trace_config], clock_snapshot, one power_rails packet with all rail descriptors, then
 * energy_data and battery packets in time order; with a `schedule`, then one ftrace bundle per CPU
 * and a clock snapshot at the session end.
 */
export function encodePowerTrace(input: PowerTraceInput): Uint8Array {
  const sequence = input.sequenceId ?? 2
  const uid = input.producerUid ?? 9999
  const service = { trusted_uid: 0, trusted_packet_sequence_id: 1 }
  const producer = { trusted_uid: uid, trusted_packet_sequence_id: sequence }
  const out: Obj[] = []
  if (input.config !== undefined) {
    out.push({ ...service, trace_config: traceConfigToProtoObject(input.config) })
  }
  // The tracing service always starts a session with a clock snapshot; without one given, a
  // BOOTTIME-only snapshot at the earliest data time stands in (so even an empty session decodes).
  const snapshot = input.clockSnapshot ?? { boottime: earliestTime(input) }
  const clocks = Object.entries(snapshot).map(([name, t]) => ({
    clock_id: CLOCK_TO_ID[name],
    timestamp: nonNegativeInt(t ?? 0, `clock snapshot ${name}`),
  }))
  out.push({
    ...service,
    ...(snapshot.boottime === undefined
      ? {}
      : { timestamp: nonNegativeInt(snapshot.boottime, 'boottime') }),
    clock_snapshot: { clocks, primary_trace_clock: 6 },
  })
  const rails = (input.rails ?? []).map((r) => ('series' in r ? r : { series: r }))
  const timed: Array<{ tNs: number; order: number; packet: Obj }> = []
  if (rails.length > 0) {
    out.push({
      ...producer,
      power_rails: {
        rail_descriptor: rails.map((r, index) => ({
          index,
          rail_name: r.series.rail,
          subsys_name: r.series.subsystem ?? '',
          ...(r.samplingRateHz === undefined
            ? {}
            : { sampling_rate: nonNegativeInt(r.samplingRateHz, 'sampling rate') }),
        })),
      },
    })
    const byTime = new Map<number, Array<{ index: number; timestamp_ms: number; energy: number }>>()
    rails.forEach((r, index) => {
      if (r.series.clock !== 'boottime') {
        throw encodeError(
          `rail ${r.series.rail} is on clock ${r.series.clock}; ODPM rails are boottime`,
        )
      }
      for (const reading of r.series.readings) {
        const ms = nonNegativeInt(reading.tNs / 1e6, `rail ${r.series.rail} time (ms)`)
        const entry = {
          index,
          timestamp_ms: ms,
          energy: nonNegativeInt(reading.energyJ * 1e6, `rail ${r.series.rail} energy (µWs)`),
        }
        const list = byTime.get(ms)
        if (list === undefined) byTime.set(ms, [entry])
        else list.push(entry)
      }
    })
    for (const [ms, entries] of byTime) {
      timed.push({
        tNs: ms * 1e6,
        order: 0,
        packet: { ...producer, timestamp: ms * 1e6, power_rails: { energy_data: entries } },
      })
    }
  }
  for (const series of input.batteryCounters ?? []) {
    const clockId = CLOCK_TO_ID[series.clock]
    if (clockId === undefined) {
      throw encodeError(
        `battery series on clock ${series.clock}, which Perfetto has no builtin id for`,
      )
    }
    for (const r of series.readings) {
      const signed = (v: number, what: string): number => {
        if (!Number.isFinite(v)) throw encodeError(`${what} is ${v}`)
        return Math.round(v)
      }
      timed.push({
        tNs: r.tNs,
        order: 1,
        packet: {
          ...producer,
          timestamp: nonNegativeInt(r.tNs, 'battery time'),
          ...(clockId === 6 ? {} : { timestamp_clock_id: clockId }),
          battery: {
            ...(r.chargeC === undefined
              ? {}
              : { charge_counter_uah: signed((r.chargeC * 1e6) / 3600, 'charge') }),
            ...(r.capacityPercent === undefined ? {} : { capacity_percent: r.capacityPercent }),
            ...(r.currentA === undefined
              ? {}
              : { current_ua: signed(r.currentA * 1e6, 'current') }),
            ...(r.currentAvgA === undefined
              ? {}
              : { current_avg_ua: signed(r.currentAvgA * 1e6, 'average current') }),
            ...(series.name === undefined ? {} : { name: series.name }),
            ...(r.energyJ === undefined
              ? {}
              : { energy_counter_uwh: signed((r.energyJ * 1e6) / 3600, 'energy counter') }),
            ...(r.voltageV === undefined
              ? {}
              : { voltage_uv: signed(r.voltageV * 1e6, 'voltage') }),
          },
        },
      })
    }
  }
  timed.sort((a, b) => a.tNs - b.tNs || a.order - b.order)
  for (const t of timed) out.push(t.packet)
  if (input.schedule !== undefined) {
    const { bundles, endNs } = scheduleBundles(input.schedule, encodeError)
    const ftrace = { trusted_uid: uid, trusted_packet_sequence_id: sequence + 1 }
    for (const bundle of bundles) out.push({ ...ftrace, ftrace_events: bundle })
    // The service snapshots the clocks again when the session stops; this is also what tells a
    // reader when slices still running at the end stopped being observed.
    if (endNs !== undefined) {
      // Every clock moved on as far as boottime did (no clock of the model drifts).
      const shift = snapshot.boottime === undefined ? undefined : endNs - snapshot.boottime
      out.push({
        ...service,
        timestamp: endNs,
        clock_snapshot: {
          clocks:
            shift === undefined
              ? [{ clock_id: 6, timestamp: endNs }]
              : clocks.map((c) => ({ clock_id: c.clock_id, timestamp: c.timestamp + shift })),
          primary_trace_clock: 6,
        },
      })
    }
  }
  return TraceType.encode(TraceType.fromObject({ packet: out })).finish()
}

/** Encode a trace config as the binary `TraceConfig` message (what `perfetto -c` sends). */
export function encodeTraceConfig(config: PerfettoTraceConfig): Uint8Array {
  return TraceConfigType.encode(
    TraceConfigType.fromObject(traceConfigToProtoObject(config)),
  ).finish()
}
