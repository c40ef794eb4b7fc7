/** Tell simpleperf outputs apart by their first bytes, and parse whichever report-sample form it is. */
import { EnergyError } from '../../model/errors.js'
import { SimpleperfErrors } from './errors.js'
import { isReportSampleProtobuf, parseReportSampleProtobuf } from './report-sample-proto.js'
import { describeOtherText, isPerfScriptLine } from './_guess.js'
import { parseReportSampleText, perfScriptError } from './report-sample-text.js'
import type { SimpleperfReport } from './types.js'

/** What a byte string looks like, simpleperf-wise. */
export type SimpleperfSniff = 'report-sample-protobuf' | 'report-sample-text' | 'perf.data' | null

const PERF_MAGIC = 'PERFILE2'

function startsWith(bytes: Uint8Array, ascii: string): boolean {
  if (bytes.length < ascii.length) return false
  for (let i = 0; i < ascii.length; i++) if (bytes[i] !== ascii.charCodeAt(i)) return false
  return true
}

/** A first block header, with any of the line ends the text parser accepts. */
const TEXT_START = /^(?:sample|meta_info|lost_situation|context_switch):(?:\r*\n|\r)/

/** Sniff without a file name. `null`: none of simpleperf's formats. */
export function sniffSimpleperf(bytes: Uint8Array): SimpleperfSniff {
  if (isReportSampleProtobuf(bytes)) return 'report-sample-protobuf'
  if (startsWith(bytes, PERF_MAGIC)) return 'perf.data'
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 64))
  return TEXT_START.test(head) ? 'report-sample-text' : null
}

/** The first non-blank line among the first 4 KiB (enough to name what the input is). */
function firstLine(bytes: Uint8Array): string {
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 4096))
  return head.split(/\r*\n|\r/).find((line) => line.trim() !== '') ?? ''
}

/**
 * Parse report-sample output of either form. A raw `perf.data` is rejected with a hint to convert
 * it on the device; anything else unrecognised is rejected as not report-sample output.
 */
export function parseSimpleperf(bytes: Uint8Array): SimpleperfReport {
  const kind = sniffSimpleperf(bytes)
  switch (kind) {
    case 'report-sample-protobuf':
      return parseReportSampleProtobuf(bytes)
    case 'report-sample-text':
      return parseReportSampleText(new TextDecoder('utf-8').decode(bytes))
    case 'perf.data':
      throw new EnergyError({
        code: SimpleperfErrors.PERF_DATA,
        message:
          'input is a raw simpleperf/perf recording (perf.data, magic PERFILE2), not report-sample output',
        hint: 'Convert it on the device first: `simpleperf report-sample --show-callchain -i perf.data` (text) or `--protobuf -o samples.pb`, then pass that output.',
        details: { format: 'simpleperf', offset: 0 },
      })
    case null: {
      const allZero = bytes.length > 0 && bytes.every((b) => b === 0)
      const first = firstLine(bytes)
      if (isPerfScriptLine(first)) throw perfScriptError({ format: 'simpleperf', offset: 0 })
      const looks = describeOtherText(first)
      throw new EnergyError({
        code: SimpleperfErrors.NOT_REPORT_SAMPLE,
        message: allZero
          ? `input is ${bytes.length} zero bytes, not simpleperf output`
          : bytes.length === 0
            ? 'input is empty'
            : `input is neither report-sample text (starts with \`sample:\`/\`meta_info:\`) nor report-sample protobuf (magic SIMPLEPERF)${looks === undefined ? '' : `; it looks like ${looks}`}`,
        hint: 'Run `simpleperf report-sample --show-callchain -i perf.data` (or `--protobuf -o <file>`) on the device and pass its output.',
        details: { format: 'simpleperf', offset: 0 },
      })
    }
  }
}
