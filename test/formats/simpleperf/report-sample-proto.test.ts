import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  SimpleperfErrors,
  encodeReportSampleProtobuf,
  parseReportSampleProtobuf,
  parseSimpleperf,
  sniffSimpleperf,
} from '../../../src/formats/simpleperf/index.js'
import { expectEnergyError, fixture, fixtureText } from './_helpers.js'

const CAPTURE = new Uint8Array(
  fixture('corpus/4_simpleperf/aosp_simpleperf_display_bitmaps.proto_data'),
)

describe('real capture: aosp display_bitmaps (385 KB)', () => {
  const report = parseReportSampleProtobuf(CAPTURE)

  test('golden: meta, counts, threads', () => {
    expect(report.format).toBe('protobuf')
    expect(report.meta).toEqual({
      eventTypes: ['cpu-clock'],
      appPackageName: 'com.example.android.displayingbitmaps',
      traceOffcpu: false,
      extra: [],
    })
    expect(report.samples).toHaveLength(525)
    expect(report.lost).toEqual({ sampleCount: 525, lostCount: 0 })
    expect(report.contextSwitches).toEqual([])
    const threads = [...report.threads].sort((a, b) => a.threadId - b.threadId)
    expect(threads.map((t) => `${t.threadId}:${t.threadName}`)).toEqual([
      '31850:com.example.android.displayingbitmaps',
      '31856:Jit thread pool',
      '31864:ReferenceQueueD',
      '31865:FinalizerDaemon',
      '31869:Binder:31850_3',
      '31881:RenderThread',
      '31896:queued-work-loo',
      '31897:AsyncTask #3',
      '31898:AsyncTask #4',
    ])
    expect(new Set(threads.map((t) => t.processId))).toEqual(new Set([31850]))
  })

  test('golden: samples per thread and top-5 leaf symbols', () => {
    const perThread = new Map<string, number>()
    const leaf = new Map<string, number>()
    for (const s of report.samples) {
      perThread.set(s.threadName, (perThread.get(s.threadName) ?? 0) + 1)
      const symbol = s.frames[0]?.symbol ?? ''
      leaf.set(symbol, (leaf.get(symbol) ?? 0) + 1)
    }
    expect(perThread.get('com.example.android.displayingbitmaps')).toBe(164)
    expect(perThread.get('RenderThread')).toBeGreaterThan(0)
    const top = [...leaf].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 5)
    expect(top).toEqual([
      [
        'art::VMDebug_countInstancesOfClasses(_JNIEnv*, _jclass*, _jobjectArray*, unsigned char)',
        13,
      ],
      [
        'void art::mirror::Object::VisitReferences<true, (art::VerifyObjectFlags)0, (art::ReadBarrierOption)1, art::gc::collector::ConcurrentCopying::RefFieldsVisitor<false>, art::gc::collector::ConcurrentCopying::RefFieldsVisitor<false> >(art::gc::collector::ConcurrentCopying::RefFieldsVisitor<false> const&, art::gc::collector::ConcurrentCopying::RefFieldsVisitor<false> const&)',
        11,
      ],
      ['longest_match', 10],
      ['deflate_slow', 8],
      ['try_to_wake_up', 8],
    ])
  })

  test('unresolved frames (symbol_id -1) are named as report-sample text names them', () => {
    const first = report.samples[0]
    expect(first?.timeNs).toBe(684943449406175)
    expect(first?.threadName).toBe('RenderThread')
    expect(first?.frames[0]).toEqual({
      vaddrInFile: '29c3f0',
      file: '/vendor/lib64/egl/libGLESv2_adreno.so',
      symbol: '*libGLESv2_adreno.so[+29c3f0]',
    })
    const unresolved = report.samples.filter((s) => s.frames.some((f) => f.symbol.startsWith('*')))
    expect(unresolved).toHaveLength(216)
  })

  test('every sample: cpu-clock, 250 µs period, ≥ 1 frame, times non-decreasing per thread', () => {
    const last = new Map<number, number>()
    for (const s of report.samples) {
      expect(s.eventType).toBe('cpu-clock')
      expect(s.eventCount).toBe(250000)
      expect(s.frames.length).toBeGreaterThan(0)
      expect(s.timeNs).toBeGreaterThanOrEqual(last.get(s.threadId) ?? 0)
      last.set(s.threadId, s.timeNs)
    }
  })

  test('cross-check: UI thread samples equal the same recording rendered by perf-script', () => {
    const script = fixtureText(
      'corpus/4_simpleperf/aosp_simpleperf_perf_display_bitmaps.UiThread.perf-script',
    )
    const expected = parsePerfScript(script)
    const ui = report.samples.filter((s) => s.threadId === 31850)
    expect(ui).toHaveLength(expected.length)
    expect(expected).toHaveLength(164)
    for (const [i, s] of ui.entries()) {
      const e = expected[i]!
      expect(Math.floor(s.timeNs / 1000), `sample ${i} time (µs)`).toBe(e.timeUs)
      expect(s.eventCount).toBe(e.period)
      // The perf-script was rendered by a newer demangler that prints `>>` where the device's
      // printed `> >`; that is the only difference.
      const symbols = s.frames.map((f) => f.symbol.replace(/> (?=>)/g, '>'))
      expect(symbols, `sample ${i} symbols`).toEqual(
        e.symbols.map((x) => x.replace(/> (?=>)/g, '>')),
      )
      expect(
        s.frames.map((f) => f.file),
        `sample ${i} files`,
      ).toEqual(e.files)
    }
  })

  test('sniffing and the bytes entry point agree', () => {
    expect(sniffSimpleperf(CAPTURE)).toBe('report-sample-protobuf')
    expect(parseSimpleperf(CAPTURE)).toEqual(report)
  })

  test('re-encoding the capture and decoding again gives the same report', () => {
    const again = parseReportSampleProtobuf(encodeReportSampleProtobuf(report))
    expect(again.samples).toEqual(report.samples)
    expect(again.meta).toEqual(report.meta)
    expect(again.lost).toEqual(report.lost)
    expect(new Set(again.threads.map((t) => t.threadId))).toEqual(
      new Set(report.samples.map((s) => s.threadId)),
    )
  })
})

/** Test-only reader of `perf script` style output (report_sample.py): header line + frame lines. */
function parsePerfScript(text: string): Array<{
  timeUs: number
  period: number
  symbols: string[]
  files: string[]
}> {
  const out: Array<{ timeUs: number; period: number; symbols: string[]; files: string[] }> = []
  for (const block of text.split(/\n\n+/)) {
    const lines = block.split('\n').filter((l) => l.length > 0)
    const header = lines[0]
    if (header === undefined) continue
    const m = /\s(\d+)\.(\d{6}): (\d+) /.exec(header)
    if (m === null) throw new Error(`bad header ${header}`)
    const frames = lines.slice(1).map((l) => {
      const f = /^\s+[0-9a-f]+ (.*) \(([^()]*)\)$/.exec(l)
      if (f === null) throw new Error(`bad frame ${l}`)
      return { symbol: f[1]!, file: f[2]! }
    })
    out.push({
      timeUs: Number(m[1]) * 1e6 + Number(m[2]),
      period: Number(m[3]),
      symbols: frames.map((f) => f.symbol),
      files: frames.map((f) => f.file),
    })
  }
  return out
}

describe('negative inputs', () => {
  test('raw perf.data is recognised and refused with the conversion command', () => {
    const bytes = new Uint8Array(fixture('corpus/4_simpleperf/aosp_simpleperf_perf.data'))
    expect(sniffSimpleperf(bytes)).toBe('perf.data')
    const error = expectEnergyError(() => parseSimpleperf(bytes), SimpleperfErrors.PERF_DATA)
    expect(error.message).toContain('perf.data')
    expect(error.hint).toContain('simpleperf report-sample')
    expectEnergyError(() => parseReportSampleProtobuf(bytes), SimpleperfErrors.PROTO_HEADER)
  })

  test('invalid_perf.data (1 KiB of zeros)', () => {
    const bytes = new Uint8Array(fixture('corpus/4_simpleperf/aosp_simpleperf_invalid_perf.data'))
    expect(sniffSimpleperf(bytes)).toBeNull()
    const error = expectEnergyError(
      () => parseSimpleperf(bytes),
      SimpleperfErrors.NOT_REPORT_SAMPLE,
    )
    expect(error.message).toContain('1024 zero bytes')
  })

  test('an ART method trace is not simpleperf output', () => {
    const bytes = new TextEncoder().encode('*version\n3\ndata-file-overflow=false\nclock=dual\n')
    expectEnergyError(() => parseSimpleperf(bytes), SimpleperfErrors.NOT_REPORT_SAMPLE)
  })

  test('empty input', () => {
    expectEnergyError(() => parseSimpleperf(new Uint8Array()), SimpleperfErrors.NOT_REPORT_SAMPLE)
  })

  test('wrong version', () => {
    const bytes = CAPTURE.slice()
    bytes[10] = 2
    const error = expectEnergyError(
      () => parseReportSampleProtobuf(bytes),
      SimpleperfErrors.PROTO_HEADER,
    )
    expect(error.details.offset).toBe(10)
  })

  test('truncated: header only, mid size, mid record, missing terminator', () => {
    for (const cut of [11, 12, 14, 40, CAPTURE.length - 4, CAPTURE.length - 1]) {
      const error = expectEnergyError(
        () => parseReportSampleProtobuf(CAPTURE.subarray(0, cut)),
        SimpleperfErrors.TRUNCATED,
      )
      expect(error.details.offset).toBeTypeOf('number')
    }
  })

  test('trailing bytes after the terminator', () => {
    const bytes = new Uint8Array(CAPTURE.length + 3)
    bytes.set(CAPTURE)
    expectEnergyError(() => parseReportSampleProtobuf(bytes), SimpleperfErrors.PROTO_CORRUPT)
  })

  test('a record that is not protobuf', () => {
    const bytes = CAPTURE.slice()
    // First record (MetaInfo, 0x36 bytes at offset 16): make its first tag an invalid wire type.
    bytes[16] = 0x0f
    const error = expectEnergyError(
      () => parseReportSampleProtobuf(bytes),
      SimpleperfErrors.PROTO_CORRUPT,
    )
    expect(error.details.offset).toBe(12)
  })

  test('dangling file and symbol ids', () => {
    const report = parseReportSampleProtobuf(CAPTURE)
    const encoded = encodeReportSampleProtobuf({ samples: report.samples.slice(0, 1) })
    // Cut the File and Thread tables off (keep meta, sample, lost), then terminate.
    const parts = splitRecords(encoded)
    const kept = parts.slice(0, 3)
    const bytes = joinRecords(encoded.subarray(0, 12), kept)
    expectEnergyError(() => parseReportSampleProtobuf(bytes), SimpleperfErrors.BAD_REFERENCE)
  })

  test('property: random corruption parses or throws an EnergyError, never anything else', () => {
    const small = encodeReportSampleProtobuf({
      samples: parseReportSampleProtobuf(CAPTURE).samples.slice(0, 20),
    })
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(small.length - 1), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 8,
        }),
        (flips) => {
          const bytes = small.slice()
          for (const [at, value] of flips) bytes[at] = value
          try {
            parseReportSampleProtobuf(bytes)
          } catch (error) {
            expect((error as { name?: string }).name).toBe('EnergyError')
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})

function splitRecords(bytes: Uint8Array): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out: Uint8Array[] = []
  let at = 12
  for (;;) {
    const size = view.getUint32(at, true)
    if (size === 0) break
    out.push(bytes.subarray(at, at + 4 + size))
    at += 4 + size
  }
  return out
}

function joinRecords(header: Uint8Array, records: Uint8Array[]): Uint8Array {
  const total = header.length + records.reduce((n, r) => n + r.length, 0) + 4
  const out = new Uint8Array(total)
  out.set(header)
  let at = header.length
  for (const r of records) {
    out.set(r, at)
    at += r.length
  }
  return out
}

describe('references and big numbers in hand-built streams', () => {
  const sample = {
    eventType: 'cpu-clock',
    timeNs: 1,
    eventCount: 2,
    threadId: 3,
    threadName: 't',
    frames: [{ vaddrInFile: '10', file: '/a.so', symbol: 'f' }],
  }

  test('a symbol id beyond the file table', async () => {
    const { RecordType } = await import('../../../src/formats/simpleperf/_schema.js')
    const bytes = stream(RecordType, [
      { meta_info: { event_type: ['cpu-clock'] } },
      {
        sample: {
          time: 1,
          thread_id: 3,
          callchain: [{ vaddr_in_file: 16, file_id: 0, symbol_id: 5 }],
        },
      },
      { file: { id: 0, path: '/a.so', symbol: ['f'] } },
    ])
    const error = expectEnergyError(
      () => parseReportSampleProtobuf(bytes),
      SimpleperfErrors.BAD_REFERENCE,
    )
    expect(error.message).toContain('symbol_id 5')
  })

  test('an event type id beyond meta_info', async () => {
    const { RecordType } = await import('../../../src/formats/simpleperf/_schema.js')
    const bytes = stream(RecordType, [
      { meta_info: { event_type: ['cpu-clock'] } },
      {
        sample: {
          time: 1,
          thread_id: 3,
          event_type_id: 4,
          callchain: [{ vaddr_in_file: 16, file_id: 0, symbol_id: 0 }],
        },
      },
      { file: { id: 0, path: '/a.so', symbol: ['f'] } },
    ])
    expectEnergyError(() => parseReportSampleProtobuf(bytes), SimpleperfErrors.BAD_REFERENCE)
  })

  test('file ids out of order', async () => {
    const { RecordType } = await import('../../../src/formats/simpleperf/_schema.js')
    const bytes = stream(RecordType, [{ file: { id: 1, path: '/a.so' } }])
    expectEnergyError(() => parseReportSampleProtobuf(bytes), SimpleperfErrors.PROTO_CORRUPT)
  })

  test('a sample time above 2^53 is refused, not rounded', async () => {
    const { RecordType } = await import('../../../src/formats/simpleperf/_schema.js')
    const bytes = stream(RecordType, [
      {
        sample: {
          time: '18446744073709551615',
          thread_id: 3,
          callchain: [{ vaddr_in_file: 16, file_id: 0, symbol_id: 0 }],
        },
      },
    ])
    expectEnergyError(() => parseReportSampleProtobuf(bytes), SimpleperfErrors.UNSAFE_INTEGER)
  })

  test('64-bit addresses survive exactly', () => {
    const kernel = {
      ...sample,
      frames: [{ vaddrInFile: 'ffffffc0100a2b3c', file: '[kernel.kallsyms]', symbol: 'x' }],
    }
    const decoded = parseReportSampleProtobuf(encodeReportSampleProtobuf({ samples: [kernel] }))
    expect(decoded.samples[0]?.frames[0]?.vaddrInFile).toBe('ffffffc0100a2b3c')
  })
})

function stream(
  type: {
    encode(m: unknown): { finish(): Uint8Array }
    fromObject(o: Record<string, unknown>): unknown
  },
  records: Array<Record<string, unknown>>,
): Uint8Array {
  const parts: Uint8Array[] = [
    Uint8Array.from([...'SIMPLEPERF'].map((c) => c.charCodeAt(0)).concat([1, 0])),
  ]
  for (const r of records) {
    const body = type.encode(type.fromObject(r)).finish()
    const size = new Uint8Array(4)
    new DataView(size.buffer).setUint32(0, body.length, true)
    parts.push(size, body)
  }
  parts.push(new Uint8Array(4))
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
