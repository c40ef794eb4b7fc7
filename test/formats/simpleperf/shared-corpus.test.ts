/**
 * Every file of the shared corpus (../shared/corpus/4_simpleperf, PROVENANCE.md §7; the
 * firefoxprofiler_* files are MPL-2.0 and read in place) is read or refused with the code a user
 * would expect, pinned here; and report-sample text gives the same records, or the same error
 * and line, in one piece and in random chunks (issue 16).
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  ReportSampleTextDecoder,
  encodeReportSampleProtobuf,
  formatReportSampleText,
  parseReportSampleProtobuf,
  parseReportSampleText,
  parseSimpleperf,
  toStackSampleSet,
  type SimpleperfFrame,
} from '../../../src/formats/simpleperf/index.js'
import { EnergyError } from '../../../src/model/errors.js'
import { SHARED_CORPUS, cut, fixtureText, hasSharedCorpus, splits } from './_helpers.js'

if (!hasSharedCorpus) {
  console.warn(`NOTICE: ${SHARED_CORPUS} not found: shared-corpus simpleperf tests are SKIPPED`)
}

const files = hasSharedCorpus ? readdirSync(SHARED_CORPUS).sort() : []
const read = (file: string): Uint8Array => new Uint8Array(readFileSync(join(SHARED_CORPUS, file)))

const PERF_DATA = 'E_SIMPLEPERF_PERF_DATA'
const PERF_SCRIPT = 'E_SIMPLEPERF_PERF_SCRIPT'
const NOT_REPORT_SAMPLE = 'E_SIMPLEPERF_NOT_REPORT_SAMPLE'

/** `parseSimpleperf` on the bytes: what it read, or [code, what the message says it looks like]. */
const PINNED: Record<string, unknown> = {
  'aosp_simpleperf_debug_unwind_report.txt': [NOT_REPORT_SAMPLE, /simpleperf debug-unwind/],
  'aosp_simpleperf_display_bitmaps.proto_data': {
    ...{ format: 'protobuf', samples: 525, contextSwitches: 0, threads: 9 },
    ...{ eventTypes: ['cpu-clock'], lost: { sampleCount: 525, lostCount: 0 } },
  },
  'aosp_simpleperf_invalid_perf.data': [NOT_REPORT_SAMPLE, /1024 zero bytes/],
  'aosp_simpleperf_perf.data': [PERF_DATA, /PERFILE2/],
  'aosp_simpleperf_perf_display_bitmaps.RenderThread.perf-script': [PERF_SCRIPT, /perf-script/],
  'aosp_simpleperf_perf_display_bitmaps.UiThread.perf-script': [PERF_SCRIPT, /perf-script/],
  'aosp_simpleperf_perf_display_bitmaps.header.perf-script': [PERF_SCRIPT, /perf-script/],
  'aosp_simpleperf_perf_g_fp.data': [PERF_DATA, /PERFILE2/],
  'aosp_simpleperf_perf_with_callchain_record.data': [PERF_DATA, /PERFILE2/],
  'aosp_simpleperf_perf_with_jit_symbol.data': [PERF_DATA, /PERFILE2/],
  'aosp_simpleperf_perf_with_jit_symbol.foldedstack': [NOT_REPORT_SAMPLE, /folded stacks/],
  'aosp_simpleperf_perf_with_jit_symbol.gecko.json': [NOT_REPORT_SAMPLE, /JSON/],
  'aosp_simpleperf_perf_with_meta_info.data': [PERF_DATA, /PERFILE2/],
  'aosp_simpleperf_perf_with_multiple_pids_and_tids.data': [PERF_DATA, /PERFILE2/],
  'aosp_simpleperf_perf_with_symbols.data': [PERF_DATA, /PERFILE2/],
  'aosp_simpleperf_perf_with_trace_offcpu_v2.data': [PERF_DATA, /PERFILE2/],
  'aosp_simpleperf_perf_with_tracepoint_event.data': [PERF_DATA, /PERFILE2/],
  'aosp_simpleperf_perf_with_tracepoint_event.gecko.json': [NOT_REPORT_SAMPLE, /JSON/],
  'aosp_simpleperf_perf_with_two_event_types.data': [PERF_DATA, /PERFILE2/],
  'aosp_simpleperf_perf_with_two_event_types.foldedstack': [NOT_REPORT_SAMPLE, /folded stacks/],
  'aosp_simpleperf_runtest_two_functions_arm64_perf.data': [PERF_DATA, /PERFILE2/],
  'aosp_simpleperf_two_process_perf.data': [PERF_DATA, /PERFILE2/],
  // report_sample.py text (Gecko/Fennec), not `simpleperf report-sample` key: value text.
  'firefoxprofiler_simple-perf.txt': [PERF_SCRIPT, /perf-script/],
  'firefoxprofiler_simpleperf-cpu-clock.trace': {
    ...{ format: 'protobuf', samples: 1234, contextSwitches: 902, threads: 15 },
    ...{ eventTypes: ['cpu-clock', 'sched:sched_switch'] },
    lost: { sampleCount: 1234, lostCount: 0 },
  },
  'firefoxprofiler_simpleperf-task-clock.trace': {
    ...{ format: 'protobuf', samples: 2110, contextSwitches: 1286, threads: 11 },
    ...{ eventTypes: ['task-clock', 'sched:sched_switch'] },
    lost: { sampleCount: 2110, lostCount: 0 },
  },
}

function outcomeOf(bytes: Uint8Array): unknown {
  try {
    const r = parseSimpleperf(bytes)
    return {
      ...{ format: r.format, samples: r.samples.length, contextSwitches: r.contextSwitches.length },
      ...{ threads: r.threads.length, eventTypes: r.meta?.eventTypes, lost: r.lost },
    }
  } catch (error) {
    if (!(error instanceof EnergyError)) throw error
    return [error.code, error.message]
  }
}

describe.skipIf(!hasSharedCorpus)('shared corpus: every file has a pinned outcome', () => {
  test('no file is left unpinned', () => {
    expect(files).toEqual(Object.keys(PINNED).sort())
  })

  test.each(files)('%s', (file) => {
    const pinned = PINNED[file]
    const got = outcomeOf(read(file))
    if (Array.isArray(pinned)) {
      const [code, message] = pinned as [string, RegExp]
      expect(got).toEqual([code, expect.stringMatching(message)])
    } else expect(got).toEqual(pinned)
  })

  test.each(files.filter((f) => f.startsWith('firefoxprofiler_') && f.endsWith('.trace')))(
    '%s: becomes a StackSampleSet and survives a protobuf round trip',
    (file) => {
      const report = parseSimpleperf(read(file))
      const set = toStackSampleSet(report, { clock: 'monotonic' })
      expect(set.samples.length).toBeGreaterThan(0)
      expect(set.samples.every((s) => s.frames.length > 0)).toBe(true)
      expect(parseReportSampleProtobuf(encodeReportSampleProtobuf(report)).samples).toEqual(
        report.samples,
      )
    },
  )
})

/** Records (or the error's code and line) from the text in the given pieces. */
function decode(text: string, pieces: Iterable<string>): unknown {
  try {
    const decoder = new ReportSampleTextDecoder()
    const records = []
    for (const piece of pieces) records.push(...decoder.push(piece))
    records.push(...decoder.finish())
    return records
  } catch (error) {
    if (!(error instanceof EnergyError)) throw error
    return { code: error.code, line: error.details.line }
  }
}

function wholeOutcome(text: string): unknown {
  try {
    return parseReportSampleText(text).samples.length
  } catch (error) {
    if (!(error instanceof EnergyError)) throw error
    return { code: error.code, line: error.details.line }
  }
}

/**
 * Text inputs: the hand-written report-sample fixtures; report-sample text written from the real
 * Firefox protobuf captures (the only real report-sample content there is), with LF and with
 * LF, CRLF, CR CR LF and CR in turn; and every text file of the shared corpus (all refused, see above).
 */
const texts: Array<[string, string]> = [
  ...['report_sample_show_callchain', 'report_sample_old_ip_dso'].map((name): [string, string] => [
    name,
    fixtureText(`simpleperf/${name}.txt`),
  ]),
  ...files
    .filter((f) => f.startsWith('firefoxprofiler_simpleperf-'))
    .flatMap((f) => {
      const text = formatReportSampleText(parseSimpleperf(read(f)))
      const ends = ['\n', '\r\n', '\r\r\n', '\r']
      const mixed = text
        .split('\n')
        .map((line, n) => line + (ends[n % ends.length] ?? '\n'))
        .join('')
      return [
        [`${f} as text, LF`, text] as [string, string],
        [`${f} as text, mixed line ends`, mixed] as [string, string],
      ]
    }),
  ...files
    .filter((f) => /\.(txt|perf-script|foldedstack|json)$/.test(f))
    .map((f): [string, string] => [f, Buffer.from(read(f)).toString('utf8')]),
]

describe.each(texts)('%s: one piece and random chunks agree', (_name, text) => {
  const whole = decode(text, [text])

  test('the chunked decoder gives the one-piece records, or the same error and line', () => {
    fc.assert(
      fc.property(splits, (split) => {
        expect(decode(text, cut(text, split))).toEqual(whole)
      }),
      { numRuns: text.length > 100_000 ? 4 : 40 },
    )
  })

  test('the one-shot parser agrees with the decoder', () => {
    const samples = Array.isArray(whole) ? whole.filter((r) => r.kind === 'sample').length : whole
    expect(wholeOutcome(text)).toEqual(samples)
  })
})

test.skipIf(!hasSharedCorpus)(
  'text written from the real captures reads back as the capture',
  () => {
    const same = (a?: SimpleperfFrame, b?: SimpleperfFrame) =>
      a !== undefined &&
      a.vaddrInFile === b?.vaddrInFile &&
      a.file === b.file &&
      a.symbol === b.symbol
    const affected: number[] = []
    for (const file of files.filter((f) => f.startsWith('firefoxprofiler_simpleperf-'))) {
      const report = parseSimpleperf(read(file))
      const text = parseReportSampleText(formatReportSampleText(report).replaceAll('\n', '\r\r\n'))
      // Known quirk (docs/formats/simpleperf.md): the text parser drops a first caller identical to
      // the sampled frame (the FORMATS.md example repeats it); real captures do have such frames.
      const expected = report.samples.map((s) =>
        same(s.frames[0], s.frames[1]) ? { ...s, frames: [s.frames[0], ...s.frames.slice(2)] } : s,
      )
      affected.push(expected.filter((s, i) => s !== report.samples[i]).length)
      expect(text.samples).toEqual(expected)
      expect(text.contextSwitches).toEqual(report.contextSwitches)
    }
    expect(affected).toEqual([0, 6])
  },
)
