import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  SimpleperfErrors,
  encodeReportSampleProtobuf,
  formatReportSampleText,
  parseReportSampleProtobuf,
  parseReportSampleText,
} from '../../../src/formats/simpleperf/index.js'
import type {
  SimpleperfExecutionType,
  SimpleperfFrame,
  SimpleperfReport,
  SimpleperfSample,
} from '../../../src/formats/simpleperf/index.js'
import { expectEnergyError, fixtureText } from './_helpers.js'

const CURRENT = fixtureText('simpleperf/report_sample_show_callchain.txt')
const OLD = fixtureText('simpleperf/report_sample_old_ip_dso.txt')

describe('formatReportSampleText', () => {
  test('byte-exact golden: current builds with --show-callchain', () => {
    expect(formatReportSampleText(parseReportSampleText(CURRENT))).toBe(CURRENT)
  })

  test('byte-exact golden: 2016 ip/dso form', () => {
    expect(formatReportSampleText(parseReportSampleText(OLD), { keyStyle: 'ip' })).toBe(OLD)
  })

  test('without --show-callchain every chain is cut to the sampled frame', () => {
    const text = formatReportSampleText(parseReportSampleText(CURRENT), { showCallchain: false })
    expect(text).not.toContain('callchain:')
    expect(text).not.toContain('__start_thread')
    const again = parseReportSampleText(text)
    expect(again.samples.map((s) => s.frames.length)).toEqual([1, 1, 1])
    expect(again.samples.map((s) => s.frames[0]?.symbol)).toEqual(
      parseReportSampleText(CURRENT).samples.map((s) => s.frames[0]?.symbol),
    )
  })

  test('two-space indentation exactly, no blank lines, trailing newline', () => {
    const text = formatReportSampleText(parseReportSampleText(CURRENT))
    for (const line of text.slice(0, -1).split('\n')) {
      expect(line).toMatch(/^(?:[a-z_]+:| {2}[a-z_]+: ?.*| {2}callchain:| {4}[a-z_]+: .*)$/)
    }
    expect(text.endsWith('\n')).toBe(true)
  })

  test('execution types are printed only on request', () => {
    const report: SimpleperfReport = {
      format: 'text',
      samples: [
        {
          eventType: 'cpu-clock',
          timeNs: 5,
          eventCount: 1,
          threadId: 1,
          threadName: 'main',
          frames: [
            { vaddrInFile: '1', file: '/a.odex', symbol: 'a.B.c', executionType: 'jit_jvm_method' },
          ],
        },
      ],
      contextSwitches: [],
      threads: [],
    }
    expect(formatReportSampleText(report)).not.toContain('execution_type')
    const text = formatReportSampleText(report, { showExecutionType: true })
    expect(text).toContain('  symbol: a.B.c\n  execution_type: jit_jvm_method\n')
    expect(parseReportSampleText(text).samples[0]?.frames[0]?.executionType).toBe('jit_jvm_method')
  })

  test('protobuf keeps unwinding results (text has no field for them)', () => {
    const sample = {
      eventType: 'cpu-clock',
      timeNs: 9,
      eventCount: 1,
      threadId: 3,
      threadName: 't',
      frames: [{ vaddrInFile: 'ff', file: '/x.so', symbol: 'f' }],
      unwindingError: 'ERROR_NOT_ENOUGH_STACK',
    }
    const decoded = parseReportSampleProtobuf(encodeReportSampleProtobuf({ samples: [sample] }))
    expect(decoded.samples).toEqual([sample])
  })

  test('a sample without event_count is refused in the current form, fine in the 2016 form', () => {
    const old = parseReportSampleText(OLD)
    expectEnergyError(() => formatReportSampleText(old), SimpleperfErrors.WRITER_INPUT)
    expect(formatReportSampleText(old, { keyStyle: 'ip' })).toBe(OLD)
  })

  test('a sample without frames is refused', () => {
    const report = {
      samples: [{ eventType: 'x', timeNs: 1, threadId: 1, threadName: '', frames: [] }],
    }
    expectEnergyError(() => formatReportSampleText(report), SimpleperfErrors.WRITER_INPUT)
    expectEnergyError(() => encodeReportSampleProtobuf(report), SimpleperfErrors.WRITER_INPUT)
  })
})

const hex = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((n) => n.toString(16))
const pathArb = fc.constantFrom(
  '/system/lib64/libhwui.so',
  '/apex/com.android.runtime/lib64/libart.so',
  '[kernel.kallsyms]',
  '[JIT app cache]',
  '/data/app/base.apk!/classes.dex',
)
const symbolArb = fc.oneof(
  fc.constantFrom(
    'art_quick_invoke_stub',
    'com.example.Foo.bar',
    'void a.B.c(int, long)',
    '__start_thread',
  ),
  fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !/[\r\n]/.test(s) && s.trim() === s),
)
const frameArb: fc.Arbitrary<SimpleperfFrame> = fc.record(
  {
    vaddrInFile: hex,
    file: pathArb,
    symbol: symbolArb,
    executionType: fc.constantFrom<SimpleperfExecutionType[]>(
      'native_method',
      'interpreted_jvm_method',
      'jit_jvm_method',
      'art_method',
    ),
  },
  { requiredKeys: ['vaddrInFile', 'file', 'symbol'] },
)
const sampleArb: fc.Arbitrary<SimpleperfSample> = fc.record({
  eventType: fc.constantFrom('task-clock', 'cpu-clock', 'cpu-cycles'),
  timeNs: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  eventCount: fc.nat({ max: 2 ** 40 }),
  threadId: fc.integer({ min: 1, max: 2 ** 22 }),
  threadName: fc.constantFrom('main', 'RenderThread', 'AsyncTask #1', 'Binder:1_2'),
  frames: fc.array(frameArb, { minLength: 1, maxLength: 6 }),
})
/** Samples sorted by time, one name per thread (both forms store thread names per thread). */
const reportArb = fc
  .record({
    samples: fc.array(sampleArb, { maxLength: 12 }),
    lostCount: fc.nat({ max: 1000 }),
    switches: fc.array(
      fc.record({
        switchOn: fc.boolean(),
        timeNs: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        threadId: fc.integer({ min: 1, max: 2 ** 22 }),
      }),
      { maxLength: 4 },
    ),
  })
  .map(({ samples, lostCount, switches }): SimpleperfReport => {
    const names = new Map<number, string>()
    const fixed = [...samples]
      .sort((a, b) => a.timeNs - b.timeNs)
      .map((s) => {
        if (!names.has(s.threadId)) names.set(s.threadId, s.threadName)
        return { ...s, threadName: names.get(s.threadId) ?? '' }
      })
      // The text parser drops a first caller identical to the sampled frame (FORMATS.md quirk).
      .filter(
        (s) =>
          !(s.frames.length > 1 && JSON.stringify(s.frames[0]) === JSON.stringify(s.frames[1])),
      )
    const eventTypes = [...new Set(fixed.map((s) => s.eventType))]
    return {
      format: 'text',
      meta: { eventTypes, traceOffcpu: false, extra: [] },
      samples: fixed,
      lost: { sampleCount: fixed.length, lostCount },
      contextSwitches: [...switches].sort((a, b) => a.timeNs - b.timeNs),
      threads: [],
    }
  })

describe('round trips (fast-check)', () => {
  test('text: format → parse is the identity on reports', () => {
    fc.assert(
      fc.property(reportArb, (report) => {
        const text = formatReportSampleText(report, { showExecutionType: true })
        const parsed = parseReportSampleText(text)
        expect(parsed.samples).toEqual(report.samples)
        expect(parsed.contextSwitches).toEqual(report.contextSwitches)
        expect(parsed.lost).toEqual(report.lost)
        expect(parsed.meta).toEqual(report.meta)
      }),
      { numRuns: 150 },
    )
  })

  test('text: format → parse → format is byte-stable', () => {
    fc.assert(
      fc.property(reportArb, (report) => {
        const text = formatReportSampleText(report, { showExecutionType: true })
        expect(
          formatReportSampleText(parseReportSampleText(text), { showExecutionType: true }),
        ).toBe(text)
      }),
      { numRuns: 100 },
    )
  })

  test('protobuf: encode → decode is the identity on samples, switches, lost, meta', () => {
    fc.assert(
      fc.property(reportArb, (report) => {
        const decoded = parseReportSampleProtobuf(encodeReportSampleProtobuf(report))
        expect(decoded.samples).toEqual(report.samples)
        expect(decoded.contextSwitches).toEqual(report.contextSwitches)
        expect(decoded.lost).toEqual(report.lost)
        expect(decoded.meta).toEqual(report.meta)
      }),
      { numRuns: 150 },
    )
  })

  test('protobuf and text agree on the same report', () => {
    fc.assert(
      fc.property(reportArb, (report) => {
        const viaProto = parseReportSampleProtobuf(encodeReportSampleProtobuf(report))
        const viaText = parseReportSampleText(
          formatReportSampleText(viaProto, { showExecutionType: true }),
        )
        expect(viaText.samples).toEqual(viaProto.samples)
      }),
      { numRuns: 80 },
    )
  })
})
