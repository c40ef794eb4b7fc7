/**
 * What the fuzzer attacks: every parsing entry point of src/formats/, with the folders its seeds
 * come from and, where the format has a streaming decoder, the same input fed in chunks. A target
 * returns a JSON-safe digest of what it parsed; an `EnergyError` is an accepted outcome (a bad
 * input refused with a code), anything else thrown is a crash.
 */
import { readArtCallTrace, readArtCallTraceChunks } from '../src/formats/art-trace/calls.js'
import { ArtTraceDecoder } from '../src/formats/art-trace/decoder.js'
import { parseArtTrace } from '../src/formats/art-trace/parse.js'
import { summarizeArtTrace, summarizeArtTraceChunks } from '../src/formats/art-trace/summary.js'
import { splitLines as splitBatterystatsLines } from '../src/formats/batterystats/_lines.js'
import {
  assembleBatterystatsHistory,
  BatterystatsCheckinDecoder,
  BatterystatsHistoryDecoder,
  parseBatterystatsCheckin,
  parseBatterystatsHistory,
  sniffBatterystats,
} from '../src/formats/batterystats/index.js'
import {
  parseDumpsysBattery,
  parseDumpsysPowerstats,
  parseDumpsysPowerWakeLocks,
  parseOverlayDump,
  parseOverlayList,
  parseOverlayLookup,
} from '../src/formats/dumpsys/index.js'
import { parseMeterText } from '../src/formats/meter/index.js'
import { decodePowerTrace, PowerTraceDecoder } from '../src/formats/perfetto/trace.js'
import { parsePerfettoTextConfig, parseTextProto } from '../src/formats/perfetto/config.js'
import { parsePowerProfile } from '../src/formats/power-profile/index.js'
import { parseSimpleperf } from '../src/formats/simpleperf/sniff.js'
import { parseReportSampleProtobuf } from '../src/formats/simpleperf/report-sample-proto.js'
import { splitLines } from '../src/formats/simpleperf/_lines.js'
import {
  ReportSampleTextDecoder,
  parseReportSampleText,
  parseReportSampleTextRecords,
} from '../src/formats/simpleperf/report-sample-text.js'
import { parsePowerSupplyUevent, parseSysfsInt } from '../src/formats/sysfs/index.js'
import { apkXmlToText, decodeBinaryXml } from '../src/device/apk.js'

export interface FuzzTarget {
  readonly name: string
  /** Folders (relative to the repository; `../shared/...` for the shared corpus) and name filters. */
  readonly seeds: readonly { readonly dir: string; readonly match: RegExp }[]
  /** The whole input at once. */
  readonly oneShot: (input: Uint8Array) => unknown
  /**
   * The same input in the given chunks, when the format has a streaming decoder. Its result must
   * not depend on where the input is split, and — where it returns the same kind of digest as
   * `oneShot` — must equal the one-shot result whenever that succeeds.
   */
  readonly chunked?: (chunks: readonly Uint8Array[]) => unknown
  /** `chunked` digests the same thing as `oneShot` (so the two are compared). @default false */
  readonly agree?: boolean
}

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes)

/** Chunks of text decoded as a stream, so a multi-byte character split across chunks survives. */
function textChunks(chunks: readonly Uint8Array[]): string[] {
  const decoder = new TextDecoder()
  return [...chunks.map((c) => decoder.decode(c, { stream: true })), decoder.decode()]
}

/** Sizes and a few values: enough to tell two parses apart, small enough to compare fast. */
function digest(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'number' && !Number.isFinite(value) ? String(value) : value
  }
  if (depth > 3) return Array.isArray(value) ? `[${value.length}]` : '{…}'
  if (Array.isArray(value)) {
    return {
      length: value.length,
      first: digest(value[0], depth + 1),
      last: digest(value.at(-1), depth + 1),
    }
  }
  if (value instanceof Map) return { size: value.size }
  if (ArrayBuffer.isView(value)) return { bytes: value.byteLength }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = digest(v, depth + 1)
  return out
}

const SHARED = '../shared/corpus'

export const TARGETS: readonly FuzzTarget[] = [
  {
    name: 'art-trace',
    seeds: [
      { dir: 'test/fixtures/art-trace', match: /\.trace$/ },
      { dir: `${SHARED}/3_method_traces`, match: /\.trace$/ },
    ],
    oneShot: (b) => digest(summarizeArtTrace(parseArtTrace(b))),
    chunked: (chunks) => digest(summarizeArtTraceChunks(chunks)),
    agree: true,
  },
  {
    name: 'art-calls',
    seeds: [
      { dir: 'test/fixtures/art-trace', match: /\.trace$/ },
      { dir: `${SHARED}/3_method_traces`, match: /\.trace$/ },
    ],
    oneShot: (b) => digest(readArtCallTrace(parseArtTrace(b))),
    chunked: (chunks) => digest(readArtCallTraceChunks(chunks)),
    agree: true,
  },
  {
    name: 'art-decoder',
    seeds: [{ dir: 'test/fixtures/art-trace', match: /\.trace$/ }],
    oneShot: (b) => {
      const d = new ArtTraceDecoder()
      d.push(b)
      return digest(d.end())
    },
    chunked: (chunks) => {
      const d = new ArtTraceDecoder()
      for (const c of chunks) d.push(c)
      return digest(d.end())
    },
  },
  {
    name: 'batterystats-history',
    seeds: [
      { dir: 'test/fixtures/batterystats', match: /history|\.txt$/ },
      { dir: `${SHARED}/2_batterystats`, match: /\.(txt|log)$/ },
    ],
    oneShot: (b) => digest(parseBatterystatsHistory(text(b))),
    chunked: (chunks) => {
      const d = new BatterystatsHistoryDecoder()
      const items = [...textChunks(chunks).flatMap((c) => d.push(c)), ...d.end()]
      return digest(assembleBatterystatsHistory(items))
    },
    agree: true,
  },
  {
    name: 'batterystats-checkin',
    seeds: [
      { dir: 'test/fixtures/batterystats', match: /checkin|\.csv$/ },
      { dir: `${SHARED}/2_batterystats`, match: /\.csv$/ },
    ],
    oneShot: (b) => digest([...parseBatterystatsCheckin(splitBatterystatsLines(text(b)))]),
    chunked: (chunks) => {
      const d = new BatterystatsCheckinDecoder()
      const rows = textChunks(chunks).flatMap((c) => d.push(c))
      return digest([...rows, ...d.end()])
    },
    agree: true,
  },
  {
    name: 'batterystats-sniff',
    seeds: [{ dir: `${SHARED}/2_batterystats`, match: /./ }],
    oneShot: (b) => sniffBatterystats(text(b)),
  },
  {
    name: 'simpleperf',
    seeds: [
      { dir: 'test/fixtures/simpleperf', match: /./ },
      { dir: `${SHARED}/4_simpleperf`, match: /\.(proto_data|trace|txt)$/ },
    ],
    oneShot: (b) => digest(parseSimpleperf(b)),
  },
  {
    name: 'simpleperf-proto',
    seeds: [{ dir: `${SHARED}/4_simpleperf`, match: /\.(proto_data|trace)$/ }],
    oneShot: (b) => digest(parseReportSampleProtobuf(b)),
  },
  {
    name: 'simpleperf-text',
    seeds: [{ dir: 'test/fixtures/simpleperf', match: /\.txt$/ }],
    oneShot: (b) => digest([...parseReportSampleTextRecords(splitLines(text(b)))]),
    chunked: (chunks) => {
      const d = new ReportSampleTextDecoder()
      return digest([...textChunks(chunks).flatMap((c) => d.push(c)), ...d.finish()])
    },
    agree: true,
  },
  {
    name: 'simpleperf-report',
    seeds: [{ dir: 'test/fixtures/simpleperf', match: /\.txt$/ }],
    oneShot: (b) => digest(parseReportSampleText(text(b))),
  },
  {
    name: 'perfetto-trace',
    seeds: [
      { dir: 'test/fixtures/perfetto', match: /trace$/ },
      { dir: `${SHARED}/5_power_monitor`, match: /trace$/ },
    ],
    oneShot: (b) => digest(decodePowerTrace(b)),
    chunked: (chunks) => {
      const d = new PowerTraceDecoder()
      for (const c of chunks) d.push(c)
      return digest(d.end())
    },
    agree: true,
  },
  {
    name: 'perfetto-config',
    seeds: [{ dir: 'test/fixtures/perfetto', match: /\.(pbtxt|txt|cfg)$/ }],
    oneShot: (b) => digest(parsePerfettoTextConfig(text(b))),
  },
  {
    name: 'text-proto',
    seeds: [{ dir: 'test/fixtures/perfetto', match: /\.(pbtxt|txt|cfg)$/ }],
    oneShot: (b) => digest(parseTextProto(text(b))),
  },
  {
    name: 'power-profile',
    seeds: [
      { dir: 'test/fixtures/power-profile', match: /\.xml$/ },
      { dir: `${SHARED}/1_power_profile`, match: /\.xml$/ },
    ],
    oneShot: (b) => digest(parsePowerProfile(text(b))),
  },
  {
    // A power profile compiled into an APK: Android's binary XML, decoded as the device layer does.
    name: 'binary-xml',
    seeds: [{ dir: 'test/fixtures/power-profile/binary', match: /\.axml$/ }],
    oneShot: (b) => {
      const root = decodeBinaryXml(Buffer.from(b), 'fuzz')
      return digest([root, parsePowerProfile(apkXmlToText(root))])
    },
  },
  {
    name: 'dumpsys-battery',
    seeds: [{ dir: 'test/fixtures/dumpsys', match: /battery/ }],
    oneShot: (b) => digest(parseDumpsysBattery(text(b))),
  },
  {
    name: 'dumpsys-powerstats',
    seeds: [{ dir: 'test/fixtures/dumpsys', match: /powerstats/ }],
    oneShot: (b) => digest(parseDumpsysPowerstats(text(b))),
  },
  {
    name: 'dumpsys-power',
    seeds: [{ dir: 'test/fixtures/dumpsys', match: /power(?!stats)/ }],
    oneShot: (b) => digest(parseDumpsysPowerWakeLocks(text(b))),
  },
  {
    name: 'dumpsys-overlay',
    seeds: [{ dir: 'test/fixtures/dumpsys', match: /overlay/ }],
    oneShot: (b) => {
      const t = text(b)
      return digest([parseOverlayDump(t), parseOverlayList(t, 'android'), parseOverlayLookup(t)])
    },
  },
  {
    name: 'meter',
    seeds: [
      { dir: 'test/fixtures/meter', match: /./ },
      { dir: `${SHARED}/5_power_monitor`, match: /\.(csv|txt)$/ },
    ],
    oneShot: (b) => digest(parseMeterText(text(b))),
  },
  {
    name: 'sysfs-uevent',
    seeds: [{ dir: 'test/fixtures/dumpsys', match: /uevent/ }],
    oneShot: (b) => digest(parsePowerSupplyUevent(text(b))),
  },
  {
    name: 'sysfs-int',
    seeds: [],
    oneShot: (b) => parseSysfsInt(text(b)),
  },
]

export function targetNamed(name: string): FuzzTarget | undefined {
  return TARGETS.find((t) => t.name === name)
}
