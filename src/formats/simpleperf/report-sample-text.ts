/**
 * Parser for `simpleperf report-sample [--show-callchain]` text output.
 *
 * Reference: AOSP platform/system/extras simpleperf/cmd_report_sample.cpp (PrintMetaInfo,
 * PrintSample, PrintLostSituation, ProcessSwitchRecord) as mirrored in
 * github.com/Miku-UI/platform_system_extras@b03ef35587a5696450f4a6b16da913ae4acc7ce3; the 2016
 * form (`ip:`/`dso:`, no event_type/event_count/thread_name) from
 * github.com/GrapheneOS/platform_system_extras@1481e33192ba67160b913c057ecc7d4cf8319f21.
 * Indentation is `FprintIndented`: two spaces per level.
 *
 * Quirk kept on purpose: the real tool prints the sampled frame at indent 1 and the *callers* under
 * `callchain:` (entries[1..]); docs/FORMATS.md shows the leaf repeated as the first callchain
 * entry. Both are accepted: a first callchain frame identical to the top frame is dropped.
 */
import { EnergyError, type EnergyErrorDetails } from '../../model/errors.js'
import { SimpleperfErrors } from './errors.js'
import { describeOtherText, isPerfScriptLine } from './_guess.js'
import { LineSplitter, splitLines, stripCrs } from './_lines.js'
import type {
  SimpleperfContextSwitch,
  SimpleperfExecutionType,
  SimpleperfFrame,
  SimpleperfLostSituation,
  SimpleperfMetaInfo,
  SimpleperfReport,
  SimpleperfSample,
} from './types.js'

const FORMAT = 'simpleperf report-sample text'

/**
 * Longest line accepted, in UTF-16 code units without the line end. The longest real lines are
 * C++ symbols (a few KB); a longer line is refused, so memory stays bounded whatever arrives.
 */
export const MAX_REPORT_SAMPLE_LINE = 1 << 20

/** One top-level block of report-sample text, yielded as soon as it is complete. */
export type SimpleperfTextRecord =
  | { readonly kind: 'meta_info'; readonly line: number; readonly meta: SimpleperfMetaInfo }
  | {
      readonly kind: 'sample'
      readonly line: number
      readonly sample: SimpleperfSample
      readonly keyStyle: 'vaddr_in_file' | 'ip'
    }
  | {
      readonly kind: 'lost_situation'
      readonly line: number
      readonly lost: SimpleperfLostSituation
    }
  | {
      readonly kind: 'context_switch'
      readonly line: number
      readonly contextSwitch: SimpleperfContextSwitch
    }
  /** A top-level block this parser does not know; its `key: value` lines, verbatim. */
  | {
      readonly kind: 'unknown'
      readonly line: number
      readonly name: string
      readonly fields: ReadonlyArray<readonly [string, string]>
    }

const EXECUTION_TYPES: ReadonlySet<string> = new Set([
  'native_method',
  'interpreted_jvm_method',
  'jit_jvm_method',
  'art_method',
])

interface FrameDraft {
  vaddrInFile?: string
  file?: string
  symbol?: string
  executionType?: SimpleperfExecutionType
  line: number
}

interface BlockDraft {
  name: string
  line: number
  fields: Array<[string, string, number]>
  top: FrameDraft
  chain: FrameDraft[]
  inCallchain: boolean
  keyStyle?: 'vaddr_in_file' | 'ip'
}

function syntaxError(line: number, message: string): EnergyError {
  return new EnergyError({
    code: SimpleperfErrors.TEXT_SYNTAX,
    message,
    hint: 'Pass the unmodified stdout of `simpleperf report-sample [--show-callchain]`; indentation is two spaces per level.',
    details: { format: FORMAT, line },
  })
}

function valueError(line: number, key: string, value: string, expected: string): EnergyError {
  return new EnergyError({
    code: SimpleperfErrors.TEXT_VALUE,
    message: `field \`${key}\` is ${JSON.stringify(value)}, expected ${expected}`,
    hint: 'The report-sample text looks corrupted or edited; regenerate it on the device.',
    details: { format: FORMAT, line },
  })
}

function parseUnsigned(line: number, key: string, value: string): number {
  if (!/^\d+$/.test(value)) throw valueError(line, key, value, 'a decimal integer')
  const n = Number(value)
  if (!Number.isSafeInteger(n)) {
    throw new EnergyError({
      code: SimpleperfErrors.UNSAFE_INTEGER,
      message: `field \`${key}\` = ${value} exceeds 2^53 and cannot be represented exactly`,
      hint: 'This value is outside what the tool supports; report it with the file attached.',
      details: { format: FORMAT, line },
    })
  }
  return n
}

function parseSigned(line: number, key: string, value: string): number {
  if (value.startsWith('-')) return -parseUnsigned(line, key, value.slice(1))
  return parseUnsigned(line, key, value)
}

function parseBool(line: number, key: string, value: string): boolean {
  if (value === 'true' || value === '1') return true
  if (value === 'false' || value === '0') return false
  throw valueError(line, key, value, '`true` or `false`')
}

function parseHex(line: number, key: string, value: string): string {
  const v = value.startsWith('0x') ? value.slice(2) : value
  if (!/^[0-9a-fA-F]+$/.test(v)) throw valueError(line, key, value, 'a hexadecimal address')
  return v.toLowerCase()
}

/** Split `key: value` (value may be empty and may itself contain `: `). */
function splitField(content: string): [string, string] | undefined {
  const colon = content.indexOf(':')
  if (colon <= 0) return undefined
  const key = content.slice(0, colon)
  if (!/^[a-z_][a-z0-9_]*$/.test(key)) return undefined
  const rest = content.slice(colon + 1)
  if (rest.length === 0) return [key, '']
  if (rest[0] !== ' ') return undefined
  return [key, rest.slice(1)]
}

function frameKey(
  draft: FrameDraft,
  key: string,
  value: string,
  line: number,
  block: BlockDraft,
): boolean {
  const property =
    key === 'ip'
      ? 'vaddrInFile'
      : key === 'dso'
        ? 'file'
        : key === 'vaddr_in_file'
          ? 'vaddrInFile'
          : key === 'execution_type'
            ? 'executionType'
            : key
  if (
    (property === 'vaddrInFile' ||
      property === 'file' ||
      property === 'symbol' ||
      property === 'executionType') &&
    draft[property] !== undefined
  ) {
    throw syntaxError(line, `duplicate \`${key}\` in one frame`)
  }
  switch (key) {
    case 'vaddr_in_file':
    case 'ip': {
      const style = key === 'ip' ? 'ip' : 'vaddr_in_file'
      block.keyStyle ??= style
      draft.vaddrInFile = parseHex(line, key, value)
      return true
    }
    case 'file':
    case 'dso':
      draft.file = value
      return true
    case 'symbol':
      draft.symbol = value
      return true
    case 'execution_type':
      if (!EXECUTION_TYPES.has(value)) {
        throw valueError(
          line,
          key,
          value,
          'native_method|interpreted_jvm_method|jit_jvm_method|art_method',
        )
      }
      draft.executionType = value as SimpleperfExecutionType
      return true
    default:
      return false
  }
}

function finishFrame(draft: FrameDraft, where: string): SimpleperfFrame {
  if (draft.vaddrInFile === undefined || draft.file === undefined || draft.symbol === undefined) {
    const missing = [
      draft.vaddrInFile === undefined ? 'vaddr_in_file/ip' : undefined,
      draft.file === undefined ? 'file/dso' : undefined,
      draft.symbol === undefined ? 'symbol' : undefined,
    ].filter((m) => m !== undefined)
    throw new EnergyError({
      code: SimpleperfErrors.INCOMPLETE_SAMPLE,
      message: `${where} frame lacks ${missing.join(', ')}`,
      hint: 'The text is cut off or edited; regenerate it with `simpleperf report-sample --show-callchain`.',
      details: { format: FORMAT, line: draft.line },
    })
  }
  return {
    vaddrInFile: draft.vaddrInFile,
    file: draft.file,
    symbol: draft.symbol,
    ...(draft.executionType === undefined ? {} : { executionType: draft.executionType }),
  }
}

function sameFrame(a: SimpleperfFrame, b: SimpleperfFrame): boolean {
  return a.vaddrInFile === b.vaddrInFile && a.file === b.file && a.symbol === b.symbol
}

function buildRecord(
  block: BlockDraft,
  meta: SimpleperfMetaInfo | undefined,
): SimpleperfTextRecord {
  const get = (key: string): [string, number] | undefined => {
    for (const [k, v, line] of block.fields) if (k === key) return [v, line]
    return undefined
  }
  const required = (key: string): [string, number] => {
    const found = get(key)
    if (found === undefined) {
      throw new EnergyError({
        code: SimpleperfErrors.INCOMPLETE_SAMPLE,
        message: `\`${block.name}:\` block lacks \`${key}:\``,
        hint: 'The text is cut off or edited; regenerate it with `simpleperf report-sample --show-callchain`.',
        details: { format: FORMAT, line: block.line },
      })
    }
    return found
  }
  switch (block.name) {
    case 'sample': {
      const [time, timeLine] = required('time')
      const [tid, tidLine] = required('thread_id')
      const top = finishFrame({ ...block.top, line: block.top.line || block.line }, 'sampled')
      const chain = block.chain.map((f) => finishFrame(f, 'callchain'))
      const first = chain[0]
      if (first !== undefined && sameFrame(first, top)) chain.shift()
      const eventType = get('event_type')
      const eventCount = get('event_count')
      const threadName = get('thread_name')
      const onlyEvent = meta?.eventTypes.length === 1 ? meta.eventTypes[0] : undefined
      const sample: SimpleperfSample = {
        eventType: eventType?.[0] ?? onlyEvent ?? '',
        timeNs: parseUnsigned(timeLine, 'time', time),
        ...(eventCount === undefined
          ? {}
          : { eventCount: parseUnsigned(eventCount[1], 'event_count', eventCount[0]) }),
        threadId: parseSigned(tidLine, 'thread_id', tid),
        threadName: threadName?.[0] ?? '',
        frames: [top, ...chain],
      }
      return {
        kind: 'sample',
        line: block.line,
        sample,
        keyStyle: block.keyStyle ?? 'vaddr_in_file',
      }
    }
    case 'meta_info': {
      const eventTypes: string[] = []
      const extra: Array<readonly [string, string]> = []
      let appPackageName: string | undefined
      let appType: string | undefined
      let androidSdkVersion: string | undefined
      let androidBuildType: string | undefined
      let traceOffcpu: boolean | undefined
      for (const [key, value, line] of block.fields) {
        if (key === 'event_type') eventTypes.push(value)
        else if (key === 'app_package_name') appPackageName = value
        else if (key === 'app_type') appType = value
        else if (key === 'android_sdk_version') androidSdkVersion = value
        else if (key === 'android_build_type') androidBuildType = value
        else if (key === 'trace_offcpu') traceOffcpu = parseBool(line, key, value)
        else extra.push([key, value])
      }
      return {
        kind: 'meta_info',
        line: block.line,
        meta: {
          eventTypes,
          ...(appPackageName === undefined ? {} : { appPackageName }),
          ...(appType === undefined ? {} : { appType }),
          ...(androidSdkVersion === undefined ? {} : { androidSdkVersion }),
          ...(androidBuildType === undefined ? {} : { androidBuildType }),
          ...(traceOffcpu === undefined ? {} : { traceOffcpu }),
          extra,
        },
      }
    }
    case 'lost_situation': {
      const [samples, sLine] = required('sample_count')
      const [lost, lLine] = required('lost_count')
      return {
        kind: 'lost_situation',
        line: block.line,
        lost: {
          sampleCount: parseUnsigned(sLine, 'sample_count', samples),
          lostCount: parseUnsigned(lLine, 'lost_count', lost),
        },
      }
    }
    case 'context_switch': {
      const [on, onLine] = required('switch_on')
      const [time, timeLine] = required('time')
      const [tid, tidLine] = required('thread_id')
      return {
        kind: 'context_switch',
        line: block.line,
        contextSwitch: {
          switchOn: parseBool(onLine, 'switch_on', on),
          timeNs: parseUnsigned(timeLine, 'time', time),
          threadId: parseSigned(tidLine, 'thread_id', tid),
        },
      }
    }
    default:
      return {
        kind: 'unknown',
        line: block.line,
        name: block.name,
        fields: block.fields.map(([k, v]) => [k, v] as const),
      }
  }
}

/**
 * Push-style report-sample text decoder: feed lines (`line`) or arbitrary chunks (`push`), get
 * each block as soon as the next block header (or the end) completes it. Memory stays flat: only
 * the current block and, for `push`, the unfinished last line are held. Chunks are split into
 * lines by the same splitter as the one-shot parser (any mix of `\n`, `\r\n`, `\r\r\n`, `\r`),
 * so every chunking gives the one-shot result. Throws `EnergyError` (with the 1-based line) on
 * malformed input.
 */
export class ReportSampleTextDecoder {
  private block: BlockDraft | undefined
  private meta: SimpleperfMetaInfo | undefined
  private lineNo = 0
  private sawHeader = false
  private readonly splitter = new LineSplitter(MAX_REPORT_SAMPLE_LINE)

  /** Feed a chunk of text (any size, may split lines); returns the blocks it completed. */
  push(chunk: string): SimpleperfTextRecord[] {
    return this.lines(this.splitter.push(chunk))
  }

  /** End of input: returns the last block(s). */
  finish(): SimpleperfTextRecord[] {
    const out = this.lines(this.splitter.end())
    const last = this.end()
    if (last !== undefined) out.push(last)
    return out
  }

  private lines(lines: readonly string[]): SimpleperfTextRecord[] {
    const out: SimpleperfTextRecord[] = []
    for (const line of lines) {
      const record = this.line(line)
      if (record !== undefined) out.push(record)
    }
    return out
  }

  /** Feed one line (without its `\n`; trailing `\r`s are dropped); returns the block it completed. */
  line(rawLine: string): SimpleperfTextRecord | undefined {
    this.lineNo++
    const lineNo = this.lineNo
    const line = stripCrs(rawLine)
    if (line.length > MAX_REPORT_SAMPLE_LINE) {
      if (!this.sawHeader) throw notReportSample(lineNo, line.trimStart())
      throw syntaxError(lineNo, `a line longer than ${MAX_REPORT_SAMPLE_LINE} characters`)
    }
    if (line.trim().length === 0) return undefined
    let indent = 0
    while (line.charCodeAt(indent) === 32) indent++
    const content = line.slice(indent)
    if (indent === 0) {
      const header = /^([a-z_]+):$/.exec(content)
      if (header === null) {
        if (!this.sawHeader) throw notReportSample(lineNo, content)
        throw syntaxError(
          lineNo,
          `expected a block header such as \`sample:\`, got ${JSON.stringify(truncate(content))}`,
        )
      }
      const record = this.flush()
      this.sawHeader = true
      this.block = {
        name: header[1] ?? '',
        line: lineNo,
        fields: [],
        top: { line: 0 },
        chain: [],
        inCallchain: false,
      }
      return record
    }
    const block = this.block
    if (block === undefined) throw notReportSample(lineNo, content)
    if (content.startsWith('\t') || (indent !== 2 && indent !== 4)) {
      throw syntaxError(lineNo, `unexpected indentation of ${indent} spaces`)
    }
    const field = splitField(content)
    if (field === undefined) {
      throw syntaxError(lineNo, `expected \`key: value\`, got ${JSON.stringify(truncate(content))}`)
    }
    const [key, value] = field
    if (block.name !== 'sample') {
      if (indent !== 2) throw syntaxError(lineNo, `unexpected indentation of ${indent} spaces`)
      if (key !== 'event_type' && block.fields.some(([k]) => k === key)) {
        throw syntaxError(lineNo, `duplicate \`${key}\` in \`${block.name}:\``)
      }
      block.fields.push([key, value, lineNo])
      return undefined
    }
    if (indent === 2) {
      if (key === 'callchain' && value === '') {
        block.inCallchain = true
        return undefined
      }
      if (block.inCallchain) {
        throw syntaxError(lineNo, `sample field \`${key}\` after \`callchain:\``)
      }
      if (block.top.line === 0) block.top.line = lineNo
      if (!frameKey(block.top, key, value, lineNo, block)) {
        if (block.fields.some(([k]) => k === key)) {
          throw syntaxError(lineNo, `duplicate \`${key}\` in \`sample:\``)
        }
        block.fields.push([key, value, lineNo])
      }
      return undefined
    }
    // indent 4: a callchain frame; `vaddr_in_file`/`ip` opens a new one.
    if (!block.inCallchain) throw syntaxError(lineNo, 'frame field outside `callchain:`')
    const startsFrame = key === 'vaddr_in_file' || key === 'ip'
    let current = block.chain[block.chain.length - 1]
    if (startsFrame || current === undefined) {
      current = { line: lineNo }
      block.chain.push(current)
    }
    if (!frameKey(current, key, value, lineNo, block)) {
      throw syntaxError(lineNo, `unknown callchain field \`${key}\``)
    }
    return undefined
  }

  /** End of line input: returns the last block; throws if the input held no block at all. */
  end(): SimpleperfTextRecord | undefined {
    if (!this.sawHeader) {
      throw new EnergyError({
        code: SimpleperfErrors.NOT_REPORT_SAMPLE,
        message: 'input is empty: no report-sample block found',
        hint: 'Check that `simpleperf report-sample` ran and its stdout was captured (an empty perf.data yields no samples).',
        details: { format: FORMAT, line: this.lineNo },
      })
    }
    return this.flush()
  }

  private flush(): SimpleperfTextRecord | undefined {
    if (this.block === undefined) return undefined
    const record = buildRecord(this.block, this.meta)
    if (record.kind === 'meta_info') this.meta = record.meta
    this.block = undefined
    return record
  }
}

/**
 * Stream report-sample text block by block from an iterable of lines (a generator over lines:
 * constant memory). Same rules and errors as {@link ReportSampleTextDecoder}.
 */
export function* parseReportSampleTextRecords(
  lines: Iterable<string>,
): Generator<SimpleperfTextRecord, void, undefined> {
  const decoder = new ReportSampleTextDecoder()
  for (const line of lines) {
    const record = decoder.line(line)
    if (record !== undefined) yield record
  }
  const last = decoder.end()
  if (last !== undefined) yield last
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text
}

function notReportSample(line: number, content: string): EnergyError {
  if (line === 1 && content.startsWith('PERFILE2')) {
    return new EnergyError({
      code: SimpleperfErrors.PERF_DATA,
      message: 'input is a raw perf.data recording (magic PERFILE2), not report-sample output',
      hint: 'Convert it on the device first: `simpleperf report-sample --show-callchain -i perf.data`, then pass its stdout.',
      details: { format: FORMAT, line },
    })
  }
  if (line === 1 && content.startsWith('SIMPLEPERF')) {
    return new EnergyError({
      code: SimpleperfErrors.NOT_REPORT_SAMPLE,
      message: 'input is report-sample *protobuf* (magic SIMPLEPERF) read as text',
      hint: 'Pass the bytes to parseReportSampleProtobuf (or parseSimpleperf, which sniffs the form).',
      details: { format: FORMAT, line },
    })
  }
  if (isPerfScriptLine(content)) return perfScriptError({ format: FORMAT, line })
  const looks = describeOtherText(content)
  return new EnergyError({
    code: SimpleperfErrors.NOT_REPORT_SAMPLE,
    message: `input does not start with a report-sample block (got ${JSON.stringify(truncate(content))}${looks === undefined ? '' : `: this looks like ${looks}`})`,
    hint: 'Run `simpleperf report-sample --show-callchain -i perf.data` on the device and pass its stdout (or `--protobuf` output to parseReportSampleProtobuf).',
    details: { format: FORMAT, line },
  })
}

/** `report_sample.py` / `perf script` text: a different format, refused with its own code. */
export function perfScriptError(details: EnergyErrorDetails): EnergyError {
  return new EnergyError({
    code: SimpleperfErrors.PERF_SCRIPT,
    message:
      'input is perf-script text (`simpleperf report_sample.py` or `perf script`: one `comm tid [cpu] time: period event:` line per sample), not `simpleperf report-sample` output',
    hint: 'Convert the perf.data with `simpleperf report-sample --show-callchain -i perf.data` on the device (or `--protobuf -o samples.pb`) and pass that instead.',
    details,
  })
}

/** Parse a whole report-sample text (a string, or any iterable of lines) into a report. */
export function parseReportSampleText(input: string | Iterable<string>): SimpleperfReport {
  const lines = typeof input === 'string' ? splitLines(input, MAX_REPORT_SAMPLE_LINE) : input
  const samples: SimpleperfSample[] = []
  const contextSwitches: SimpleperfContextSwitch[] = []
  let meta: SimpleperfMetaInfo | undefined
  let lost: SimpleperfLostSituation | undefined
  let keyStyle: 'vaddr_in_file' | 'ip' | undefined
  for (const record of parseReportSampleTextRecords(lines)) {
    switch (record.kind) {
      case 'sample':
        samples.push(record.sample)
        keyStyle ??= record.keyStyle
        break
      case 'meta_info':
        meta = record.meta
        break
      case 'lost_situation':
        lost = record.lost
        break
      case 'context_switch':
        contextSwitches.push(record.contextSwitch)
        break
      case 'unknown':
        break
    }
  }
  return {
    format: 'text',
    ...(keyStyle === undefined ? {} : { keyStyle }),
    ...(meta === undefined ? {} : { meta }),
    samples,
    ...(lost === undefined ? {} : { lost }),
    contextSwitches,
    threads: [],
  }
}
