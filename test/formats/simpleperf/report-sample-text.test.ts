import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { expectLinear } from '../_linear.js'
import {
  ReportSampleTextDecoder,
  SimpleperfErrors,
  parseReportSampleText,
  parseReportSampleTextRecords,
  parseSimpleperf,
  sniffSimpleperf,
  type SimpleperfTextRecord,
} from '../../../src/formats/simpleperf/index.js'
import { MAX_REPORT_SAMPLE_LINE } from '../../../src/formats/simpleperf/report-sample-text.js'
import { EnergyError } from '../../../src/model/errors.js'
import { expectEnergyError, fixture, fixtureText } from './_helpers.js'

const CURRENT = fixtureText('simpleperf/report_sample_show_callchain.txt')
const OLD = fixtureText('simpleperf/report_sample_old_ip_dso.txt')
const FORMATS_MD = fixtureText('simpleperf/report_sample_formats_md_leaf_repeated.txt')

describe('report-sample text, current builds', () => {
  const report = parseReportSampleText(CURRENT)

  test('meta_info, lost_situation and context_switch blocks', () => {
    expect(report.format).toBe('text')
    expect(report.keyStyle).toBe('vaddr_in_file')
    expect(report.meta).toEqual({
      eventTypes: ['task-clock'],
      appPackageName: 'com.example.energy',
      androidSdkVersion: '34',
      androidBuildType: 'user',
      traceOffcpu: false,
      extra: [],
    })
    expect(report.lost).toEqual({ sampleCount: 3, lostCount: 2 })
    expect(report.contextSwitches).toEqual([
      { switchOn: false, timeNs: 4398127700000, threadId: 12345 },
    ])
  })

  test('samples keep every raw field, frames leaf first', () => {
    expect(report.samples).toHaveLength(3)
    const [first, second, third] = report.samples
    expect(first).toEqual({
      eventType: 'task-clock',
      timeNs: 4398127365234,
      eventCount: 250000,
      threadId: 12377,
      threadName: 'RenderThread',
      frames: [
        {
          vaddrInFile: '9b4c',
          file: '/system/lib64/libhwui.so',
          symbol: 'android::uirenderer::renderthread::RenderThread::threadLoop()',
        },
        {
          vaddrInFile: '1f2a0',
          file: '/apex/com.android.runtime/lib64/bionic/libc.so',
          symbol: '__start_thread',
        },
      ],
    })
    expect(second?.frames.map((f) => f.symbol)).toEqual([
      'com.example.energy.Feed.render',
      'com.example.energy.Feed$Adapter.onBind [DEDUPED]',
      'art_quick_invoke_stub',
      'android.app.ActivityThread.main',
      '__libc_init',
    ])
    expect(third?.frames).toEqual([
      { vaddrInFile: 'ffffffc0100a2b3c', file: '[kernel.kallsyms]', symbol: 'do_page_fault.cfi' },
    ])
  })

  test('the generator yields blocks in order, one at a time', () => {
    const kinds: string[] = []
    const lines = CURRENT.split('\n')
    let pulled = 0
    const counting = (function* () {
      for (const line of lines) {
        pulled++
        yield line
      }
    })()
    const iterator = parseReportSampleTextRecords(counting)
    const first = iterator.next()
    expect(first.value?.kind).toBe('meta_info')
    // Only the meta block and the next header were read, not the whole input.
    expect(pulled).toBeLessThan(10)
    kinds.push('meta_info')
    for (const record of iterator) kinds.push(record.kind)
    expect(kinds).toEqual([
      'meta_info',
      'sample',
      'sample',
      'context_switch',
      'sample',
      'lost_situation',
    ])
  })

  test('CRLF line endings and a missing final newline parse the same', () => {
    expect(parseReportSampleText(CURRENT.replaceAll('\n', '\r\n'))).toEqual(report)
    expect(parseReportSampleText(CURRENT.trimEnd())).toEqual(report)
  })

  test('an iterable of lines equals the string form', () => {
    expect(parseReportSampleText(CURRENT.split('\n'))).toEqual(report)
  })
})

describe('report-sample text, old builds (ip/dso)', () => {
  test('parses ip/dso keys and fills missing fields honestly', () => {
    const report = parseReportSampleText(OLD)
    expect(report.keyStyle).toBe('ip')
    expect(report.meta).toBeUndefined()
    expect(report.lost).toBeUndefined()
    expect(report.samples).toHaveLength(2)
    const [first, second] = report.samples
    expect(first?.eventType).toBe('')
    expect(first?.eventCount).toBeUndefined()
    expect(first?.threadName).toBe('')
    expect(first?.frames.map((f) => f.vaddrInFile)).toEqual(['7f9b4c', '7f1f2a0'])
    expect(first?.frames[1]?.file).toBe('/system/lib64/libc.so')
    expect(second?.frames).toHaveLength(1)
    expect(second?.frames[0]?.symbol).toBe('void android.view.Choreographer.doFrame(long, int)')
  })
})

test('the FORMATS.md example (leaf repeated in callchain) is de-duplicated', () => {
  const report = parseReportSampleText(FORMATS_MD)
  expect(report.samples[0]?.frames.map((f) => f.symbol)).toEqual([
    'android::uirenderer::renderthread::RenderThread::threadLoop()',
    '__start_thread',
  ])
})

test('symbols containing ": " and empty symbols survive', () => {
  const text = [
    'sample:',
    '  time: 1',
    '  thread_id: 2',
    '  vaddr_in_file: 10',
    '  file: /a.so',
    '  symbol: operator<(a: b)',
    '  callchain:',
    '    vaddr_in_file: 20',
    '    file: /b.so',
    '    symbol:',
  ].join('\n')
  const frames = parseReportSampleText(text).samples[0]?.frames
  expect(frames?.map((f) => f.symbol)).toEqual(['operator<(a: b)', ''])
})

test('unknown top-level blocks and unknown meta keys are kept, not fatal', () => {
  const text = 'meta_info:\n  trace_offcpu: true\n  clockid: monotonic_raw\nfuture_block:\n  x: 1\n'
  const records = [...parseReportSampleTextRecords(text.split('\n'))]
  expect(records.map((r) => r.kind)).toEqual(['meta_info', 'unknown'])
  const report = parseReportSampleText(text)
  expect(report.meta?.extra).toEqual([['clockid', 'monotonic_raw']])
  expect(report.meta?.traceOffcpu).toBe(true)
})

describe('negative inputs', () => {
  test('empty input', () => {
    expectEnergyError(() => parseReportSampleText(''), SimpleperfErrors.NOT_REPORT_SAMPLE)
  })

  test('perf script output is not report-sample text', () => {
    const text = fixtureText(
      'corpus/4_simpleperf/aosp_simpleperf_perf_display_bitmaps.UiThread.perf-script',
    )
    const error = expectEnergyError(() => parseReportSampleText(text), SimpleperfErrors.PERF_SCRIPT)
    expect(error.details.line).toBe(1)
    expect(error.hint).toContain('simpleperf report-sample')
  })

  test('perf.data or report-sample protobuf read as text say what they are', () => {
    const perf = fixture('corpus/4_simpleperf/aosp_simpleperf_perf.data').toString('latin1')
    expectEnergyError(() => parseReportSampleText(perf), SimpleperfErrors.PERF_DATA)
    const proto = fixture(
      'corpus/4_simpleperf/aosp_simpleperf_display_bitmaps.proto_data',
    ).toString('latin1')
    const error = expectEnergyError(
      () => parseReportSampleText(proto),
      SimpleperfErrors.NOT_REPORT_SAMPLE,
    )
    expect(error.message).toContain('protobuf')
  })

  test('an ART trace header is not report-sample text', () => {
    expectEnergyError(
      () => parseReportSampleText('*version\n3\nclock=dual\n'),
      SimpleperfErrors.NOT_REPORT_SAMPLE,
    )
  })

  test('debug-unwind report is rejected with its line', () => {
    const text = fixtureText('corpus/4_simpleperf/aosp_simpleperf_debug_unwind_report.txt')
    expectEnergyError(() => parseReportSampleText(text), SimpleperfErrors.NOT_REPORT_SAMPLE)
  })

  test('bad indentation names the line', () => {
    const text = CURRENT.replace('  thread_id: 12377', '   thread_id: 12377')
    const error = expectEnergyError(() => parseReportSampleText(text), SimpleperfErrors.TEXT_SYNTAX)
    expect(error.details.line).toBe(11)
    expect(error.message).toContain('line 11')
  })

  test('tab indentation', () => {
    const text = 'sample:\n\ttime: 1\n'
    expectEnergyError(() => parseReportSampleText(text), SimpleperfErrors.TEXT_SYNTAX)
  })

  test('a line that is not key: value', () => {
    const text = CURRENT.replace('  time: 4398127365234', '  time 4398127365234')
    expectEnergyError(() => parseReportSampleText(text), SimpleperfErrors.TEXT_SYNTAX)
  })

  test('duplicate fields in a sample, a frame or a block', () => {
    const twice = (needle: string): string => CURRENT.replace(needle, `${needle}${needle}`)
    expectEnergyError(
      () => parseReportSampleText(twice('  time: 4398127365234\n')),
      SimpleperfErrors.TEXT_SYNTAX,
    )
    expectEnergyError(
      () =>
        parseReportSampleText(
          twice('  symbol: android::uirenderer::renderthread::RenderThread::threadLoop()\n'),
        ),
      SimpleperfErrors.TEXT_SYNTAX,
    )
    expectEnergyError(
      () => parseReportSampleText(twice('    symbol: __start_thread\n')),
      SimpleperfErrors.TEXT_SYNTAX,
    )
    expectEnergyError(
      () => parseReportSampleText(twice('  lost_count: 2\n')),
      SimpleperfErrors.TEXT_SYNTAX,
    )
    // Repeated event types are the one legal repetition.
    const two = CURRENT.replace(
      '  event_type: task-clock\n  app',
      '  event_type: task-clock\n  event_type: cpu-cycles\n  app',
    )
    expect(parseReportSampleText(two).meta?.eventTypes).toEqual(['task-clock', 'cpu-cycles'])
  })

  test('non-numeric time', () => {
    const text = CURRENT.replace('time: 4398127365234', 'time: 43981x7365234')
    const error = expectEnergyError(() => parseReportSampleText(text), SimpleperfErrors.TEXT_VALUE)
    expect(error.details.line).toBe(9)
  })

  test('non-hex address', () => {
    const text = CURRENT.replace('vaddr_in_file: 9b4c', 'vaddr_in_file: 9z4c')
    expectEnergyError(() => parseReportSampleText(text), SimpleperfErrors.TEXT_VALUE)
  })

  test('bad boolean and bad execution type', () => {
    expectEnergyError(
      () => parseReportSampleText(CURRENT.replace('trace_offcpu: false', 'trace_offcpu: maybe')),
      SimpleperfErrors.TEXT_VALUE,
    )
    const text = CURRENT.replace(
      '  symbol: __start_thread\n',
      '  symbol: __start_thread\n    execution_type: quantum\n',
    )
    expectEnergyError(() => parseReportSampleText(text), SimpleperfErrors.TEXT_VALUE)
  })

  test('a time beyond 2^53 is refused, not rounded', () => {
    const text = CURRENT.replace('time: 4398127365234', 'time: 18446744073709551615')
    expectEnergyError(() => parseReportSampleText(text), SimpleperfErrors.UNSAFE_INTEGER)
  })

  test('truncated in the middle of a sample', () => {
    const cut = CURRENT.slice(0, CURRENT.indexOf('  file: /system/lib64/libhwui.so'))
    const error = expectEnergyError(
      () => parseReportSampleText(cut),
      SimpleperfErrors.INCOMPLETE_SAMPLE,
    )
    expect(error.message).toContain('file/dso')
  })

  test('a sample without time', () => {
    const text = CURRENT.replace('  time: 4398127365234\n', '')
    expectEnergyError(() => parseReportSampleText(text), SimpleperfErrors.INCOMPLETE_SAMPLE)
  })

  test('a sample field after callchain:', () => {
    const text = CURRENT.replace(
      '    symbol: __start_thread\n',
      '    symbol: __start_thread\n  thread_name: late\n',
    )
    expectEnergyError(() => parseReportSampleText(text), SimpleperfErrors.TEXT_SYNTAX)
  })

  test('lost_situation missing a count', () => {
    const text = CURRENT.replace('  lost_count: 2\n', '')
    expectEnergyError(() => parseReportSampleText(text), SimpleperfErrors.INCOMPLETE_SAMPLE)
  })

  test('property: any prefix of a valid text parses or fails with an EnergyError', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: CURRENT.length }), (cut) => {
        try {
          parseReportSampleText(CURRENT.slice(0, cut))
        } catch (error) {
          expect((error as { name?: string }).name).toBe('EnergyError')
        }
      }),
    )
  })

  test('property: arbitrary text never crashes the parser', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        try {
          parseReportSampleText(`sample:\n${text}`)
        } catch (error) {
          expect((error as { name?: string }).name).toBe('EnergyError')
        }
      }),
    )
  })
})

describe('ReportSampleTextDecoder (chunked input)', () => {
  const batch = [...parseReportSampleTextRecords(CURRENT.split('\n'))]

  test.each([1, 7, 4096])('chunks of %i characters give the batch result', (size) => {
    const decoder = new ReportSampleTextDecoder()
    const records = []
    for (let at = 0; at < CURRENT.length; at += size) {
      records.push(...decoder.push(CURRENT.slice(at, at + size)))
    }
    records.push(...decoder.finish())
    expect(records).toEqual(batch)
  })

  test('a block is emitted as soon as the next header arrives', () => {
    const decoder = new ReportSampleTextDecoder()
    expect(decoder.push('meta_info:\n  trace_offcpu: false\n  event_type: task-clock\n')).toEqual(
      [],
    )
    const done = decoder.push('sample:\n')
    expect(done.map((r) => r.kind)).toEqual(['meta_info'])
  })

  test('property: random chunking equals batch parsing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 40 }),
        (sizes) => {
          const decoder = new ReportSampleTextDecoder()
          const records = []
          let at = 0
          for (let i = 0; at < CURRENT.length; i++) {
            const size = sizes[i % sizes.length]!
            records.push(...decoder.push(CURRENT.slice(at, at + size)))
            at += size
          }
          records.push(...decoder.finish())
          expect(records).toEqual(batch)
        },
      ),
      { numRuns: 100 },
    )
  })
})

describe('line ends and long lines, one-shot and chunked alike (issue 16)', () => {
  /** Records, or the error code and line, never a throw. */
  const outcome = (run: () => unknown): unknown => {
    try {
      return run()
    } catch (error) {
      if (error instanceof EnergyError) return { code: error.code, line: error.details.line }
      throw error
    }
  }
  const chunked = (text: string, sizes: readonly number[]) =>
    outcome(() => {
      const decoder = new ReportSampleTextDecoder()
      const records = []
      let at = 0
      for (let i = 0; at < text.length; i++) {
        const size = sizes[i % sizes.length] ?? 1
        records.push(...decoder.push(text.slice(at, at + size)))
        at += size
      }
      records.push(...decoder.finish())
      return records
    })
  const oneShot = (text: string) => chunked(text, [text.length])
  const whole = (text: string) => outcome(() => parseReportSampleText(text))
  const batch = [...parseReportSampleTextRecords(CURRENT.split('\n'))]
  const ENDS = ['\n', '\r\n', '\r\r\n', '\r'] as const

  test('any mix of \\n, \\r\\n, \\r\\r\\n and \\r reads like \\n, in one piece and in chunks', () => {
    const lines = CURRENT.split('\n')
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...ENDS), { minLength: 1, maxLength: 50 }),
        fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 20 }),
        (ends, sizes) => {
          const text = lines.map((l, i) => l + (ends[i % ends.length] ?? '\n')).join('')
          expect(chunked(text, sizes)).toEqual(batch)
          expect(parseReportSampleText(text)).toEqual(parseReportSampleText(CURRENT))
        },
      ),
      { numRuns: 200 },
    )
  })

  test('CR CR LF (a Windows `adb shell … > file`) was read only by the one-shot parser before', () => {
    const text = CURRENT.replaceAll('\n', '\r\r\n')
    expect(chunked(text, [4096])).toEqual(batch)
    expect(chunked(text, [1])).toEqual(batch)
    expect(parseReportSampleText(text)).toEqual(parseReportSampleText(CURRENT))
  })

  test('sniffing accepts the same line ends', () => {
    for (const end of ENDS) {
      const bytes = new TextEncoder().encode(CURRENT.replaceAll('\n', end))
      expect(sniffSimpleperf(bytes), JSON.stringify(end)).toBe('report-sample-text')
      expect(parseSimpleperf(bytes)).toEqual(parseReportSampleText(CURRENT))
    }
  })

  test('property: damaged texts give the same result or the same error, however chunked', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.string({ unit: fc.constantFrom('\r', '\n', ' ', 'x', ':', 'sample:'), maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 10 }),
        (at, insert, sizes) => {
          const cut = at % (CURRENT.length + 1)
          const text = CURRENT.slice(0, cut) + insert + CURRENT.slice(cut)
          const expected = whole(text)
          const records = chunked(text, sizes)
          if (Array.isArray(records)) {
            const samples = records.filter((r) => r.kind === 'sample').map((r) => r.sample)
            expect((expected as { samples: unknown }).samples).toEqual(samples)
          } else expect(records).toEqual(expected)
        },
      ),
      { numRuns: 300 },
    )
  })

  test('one long line in small chunks is linear (the partial line was re-joined per chunk)', () => {
    const text = (n: number): string =>
      `sample:\n  time: 1\n  thread_id: 2\n  vaddr_in_file: 10\n  file: /a.so\n  symbol: ${'x'.repeat(n)}\n`
    const records = chunked(text(900_000), [100]) as SimpleperfTextRecord[]
    expect(records[0]?.kind === 'sample' && records[0].sample.frames[0]?.symbol).toBe(
      'x'.repeat(900_000),
    )
    // Re-joining the partial line on every 100-character chunk is quadratic in its length.
    expectLinear(text, (t) => chunked(t, [100]), 20_000)
  })

  test('a line over the limit is refused at its line number, one-shot and chunked', () => {
    // The first sample's `  symbol: …` line, with a symbol that makes it `length` characters.
    const start = CURRENT.indexOf('\n  symbol: ') + 1
    const end = CURRENT.indexOf('\n', start)
    const withLine = (length: number) =>
      CURRENT.slice(0, start) + '  symbol: ' + 'y'.repeat(length - 10) + CURRENT.slice(end)
    const line = CURRENT.slice(0, start).split('\n').length
    const want = { code: SimpleperfErrors.TEXT_SYNTAX, line }
    const over = withLine(MAX_REPORT_SAMPLE_LINE + 1)
    expect(whole(over)).toEqual(want)
    expect(oneShot(over)).toEqual(want)
    expect(chunked(over, [4096])).toEqual(want)
    expect(chunked(over, [1 << 20])).toEqual(want)
    // Exactly at the limit is fine.
    const fits = withLine(MAX_REPORT_SAMPLE_LINE)
    expect(chunked(fits, [65_536])).toEqual(oneShot(fits))
    expect(whole(fits)).toMatchObject({ format: 'text' })
    // Blank lines count too, and a first line over the limit is simply not report-sample text.
    expect(whole(' '.repeat(MAX_REPORT_SAMPLE_LINE + 1))).toEqual({
      code: SimpleperfErrors.NOT_REPORT_SAMPLE,
      line: 1,
    })
    expect(chunked(' '.repeat(MAX_REPORT_SAMPLE_LINE + 1), [999])).toEqual({
      code: SimpleperfErrors.NOT_REPORT_SAMPLE,
      line: 1,
    })
  })

  test('lines given one by one lose all their trailing CRs, like split text', () => {
    expect(parseReportSampleText(CURRENT.split('\n').map((l) => `${l}\r\r`))).toEqual(
      parseReportSampleText(CURRENT),
    )
  })
})
