/** Bad input: every failure is an EnergyError with a stable code, an offset and a hint. */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  ArtTraceDecoder,
  ArtTraceEncoder,
  ArtTraceErrors,
  parseArtTrace,
  readArtCallTrace,
  sniffArtTrace,
  summarizeArtTrace,
  writeArtTrace,
  type ArtTraceInfo,
} from '../../../src/formats/art-trace/index.js'
import { MAX_KEY_LINE_BYTES } from '../../../src/formats/art-trace/decoder.js'
import { ByteErrors, ByteReader } from '../../../src/formats/_bytes.js'
import { EnergyError } from '../../../src/model/index.js'
import {
  DMTRACEDUMP,
  dmtracedump,
  hasDmtracedump,
  parseDmtraceListing,
  scenario,
} from './_helpers.js'

function errorOf(fn: () => unknown): EnergyError {
  try {
    fn()
  } catch (error) {
    if (error instanceof EnergyError) return error
    throw error
  }
  throw new Error('expected an EnergyError, nothing was thrown')
}

const enc = new TextEncoder()
const legacy = writeArtTrace(scenario('dual'))
const streaming = writeArtTrace(scenario('dual', { streaming: true }))
const dataStart = legacy.indexOf(0x53, legacy.indexOf(enc.encode('*end\n')[0] ?? 0, 0))
const slowAt = Buffer.from(legacy).indexOf('SLOW')

function patched(bytes: Uint8Array, at: number, values: number[]): Uint8Array {
  const copy = bytes.slice()
  copy.set(values, at)
  return copy
}

describe('ByteReader', () => {
  test('reads little-endian values and advances', () => {
    const r = new ByteReader(
      new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0, 0, 0, 0, 0]),
      'x',
    )
    expect(r.u8()).toBe(1)
    expect(r.u16le()).toBe(0x0302)
    expect(r.u32le()).toBe(0x07060504)
    expect(r.u64le()).toBe(0x0908)
    expect(r.remaining).toBe(2)
  })

  test('batch reads past the end throw E_FORMAT_TRUNCATED with offset and need', () => {
    const r = new ByteReader(new Uint8Array([1, 2, 3]), 'demo format', 100)
    r.u16le()
    const e = errorOf(() => r.u32le())
    expect(e.code).toBe(ByteErrors.TRUNCATED)
    expect(e.details).toMatchObject({ format: 'demo format', offset: 102, needed: 4 })
    expect(e.message).toContain('demo format, byte 102')
  })

  test('tryRead returns undefined and leaves the cursor alone when bytes are missing', () => {
    const r = new ByteReader(new Uint8Array([1, 2, 3]), 'x')
    expect(r.tryU32le()).toBeUndefined()
    expect(r.tryU64le()).toBeUndefined()
    expect(r.tryBytes(4)).toBeUndefined()
    expect(r.offset).toBe(0)
    expect(r.tryU16le()).toBe(0x0201)
    expect(r.tryU8()).toBe(3)
    expect(r.tryU8()).toBeUndefined()
  })

  test('u64 above 2^53 throws instead of losing precision', () => {
    const r = new ByteReader(new Uint8Array(8).fill(0xff), 'x')
    expect(errorOf(() => r.u64le()).code).toBe(ByteErrors.UNSAFE_INTEGER)
  })
})

describe('parse errors', () => {
  test('empty input', () => {
    expect(errorOf(() => parseArtTrace(new Uint8Array(0))).code).toBe(ArtTraceErrors.NOT_ART_TRACE)
  })

  test('truncated text header', () => {
    const cut = legacy.subarray(0, 60)
    const e = errorOf(() => parseArtTrace(cut))
    expect(e.code).toBe(ArtTraceErrors.TRUNCATED)
    expect(e.message).toMatch(/key section/)
    expect(e.hint).toMatch(/pull/)
  })

  test('truncated binary header', () => {
    const e = errorOf(() => parseArtTrace(legacy.subarray(0, slowAt + 10)))
    expect(e.code).toBe(ArtTraceErrors.TRUNCATED)
    expect(e.details.offset).toBe(slowAt)
  })

  test('truncated record: offset of the partial record', () => {
    const e = errorOf(() => parseArtTrace(legacy.subarray(0, legacy.byteLength - 3)))
    expect(e.code).toBe(ArtTraceErrors.TRUNCATED)
    expect(e.details.offset).toBe(legacy.byteLength - 14)
    expect(e.message).toMatch(/14-byte record/)
  })

  test('bad magic after *end', () => {
    const e = errorOf(() => parseArtTrace(patched(legacy, slowAt, [0x58, 0x58, 0x58, 0x58])))
    expect(e.code).toBe(ArtTraceErrors.BAD_MAGIC)
    expect(e.details.offset).toBe(slowAt)
    expect(dataStart).toBeGreaterThan(0)
  })

  test('unknown binary version', () => {
    const e = errorOf(() => parseArtTrace(patched(legacy, slowAt + 4, [7, 0])))
    expect(e.code).toBe(ArtTraceErrors.UNSUPPORTED_VERSION)
    expect(e.details.offset).toBe(slowAt + 4)
  })

  test('garbage text', () => {
    const e = errorOf(() => parseArtTrace(enc.encode('hello world, not a trace\n')))
    expect(e.code).toBe(ArtTraceErrors.NOT_ART_TRACE)
    expect(sniffArtTrace(enc.encode('hello world, not a trace\n'))).toBeNull()
  })

  test('wrong format: a PNG', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])
    const e = errorOf(() => parseArtTrace(png))
    expect(e.code).toBe(ArtTraceErrors.NOT_ART_TRACE)
    expect(e.message).toContain('PNG')
    expect(sniffArtTrace(png)).toBeNull()
  })

  test('V2 format (binary, version 0xF4/0xF5) is detected and rejected', () => {
    for (const version of [0xf4, 0xf5, 4, 5]) {
      const bytes = patched(streaming, 4, [version, 0])
      expect(sniffArtTrace(bytes)).toBe('v2')
      const e = errorOf(() => parseArtTrace(bytes))
      expect(e.code).toBe(ArtTraceErrors.V2_FORMAT)
      expect(e.hint).toMatch(/Perfetto/)
    }
  })

  test('V2 format with a text *version 5 is rejected too', () => {
    const bytes = enc.encode('*version\n5\nclock=dual\n*threads\n*methods\n*end\n')
    expect(sniffArtTrace(bytes)).toBe('v2')
    expect(errorOf(() => parseArtTrace(bytes)).code).toBe(ArtTraceErrors.V2_FORMAT)
  })

  test('action bits 3', () => {
    const at = legacy.byteLength - 14
    const bad = legacy.slice()
    bad[at + 2] = (bad[at + 2] ?? 0) | 3
    const e = errorOf(() => parseArtTrace(bad))
    expect(e.code).toBe(ArtTraceErrors.BAD_RECORD)
    expect(e.details.offset).toBe(at)
  })

  test('unknown clock, missing sections, bad method lines', () => {
    const cases: Array<[string, RegExp]> = [
      ['*version\n3\nclock=sundial\n*threads\n*methods\n*end\n', /unknown clock 'sundial'/],
      ['*version\n3\nclock=dual\n*methods\n*end\n', /expected '\*threads'/],
      ['*version\n3\n*threads\n*methods\nzzz\tFoo\tbar\t()V\n*end\n', /hex method id/],
      ['*version\n3\n*threads\n*methods\n0x10\n*end\n', /no class name/],
      ['*version\nthree\n', /not a number/],
      ['*version\n3\n*threads\nmain\n', /no numeric id/],
    ]
    for (const [text, message] of cases) {
      const e = errorOf(() => parseArtTrace(enc.encode(text)))
      expect(e.code, text).toBe(ArtTraceErrors.BAD_HEADER)
      expect(e.message).toMatch(message)
      expect(typeof e.details.offset).toBe('number')
    }
  })

  test('clock=dual with one-time-field records', () => {
    const v2 = writeArtTrace(scenario('wall', { version: 2 }))
    const text = Buffer.from(v2).toString('latin1').replace('clock=wall', 'clock=dual')
    const e = errorOf(() => parseArtTrace(Buffer.from(text, 'latin1')))
    expect(e.code).toBe(ArtTraceErrors.BAD_RECORD_SIZE)
  })

  test('v3 record size smaller than a record', () => {
    const e = errorOf(() => parseArtTrace(patched(legacy, slowAt + 16, [8, 0])))
    expect(e.code).toBe(ArtTraceErrors.BAD_RECORD_SIZE)
  })

  test('streaming without its summary (tracing not stopped)', () => {
    const e = errorOf(() => parseArtTrace(streaming.subarray(0, streaming.byteLength - 40)))
    expect(e.code).toBe(ArtTraceErrors.TRUNCATED)
    expect(e.message).toMatch(/summary/)
  })

  test('data after the streaming summary', () => {
    const e = errorOf(() => parseArtTrace(Buffer.concat([streaming, streaming.subarray(0, 4)])))
    expect(e.code).toBe(ArtTraceErrors.BAD_PACKET)
    expect(e.details.offset).toBe(streaming.byteLength)
  })

  test('a summary packet length beyond 64 MiB is refused before waiting for it', () => {
    const at = Buffer.from(streaming).lastIndexOf('*version') - 7
    expect([...streaming.subarray(at, at + 3)]).toEqual([0, 0, 3])
    const bytes = patched(streaming, at + 3, [0xff, 0xff, 0xff, 0xff])
    const e = errorOf(() => parseArtTrace(bytes))
    expect(e.code).toBe(ArtTraceErrors.BAD_PACKET)
    expect(e.details.offset).toBe(at + 3)
    expect(chunkedOutcome(bytes, 5)).toBe(`E_ART_TRACE_BAD_PACKET@${at + 3}`)
  })

  test('unknown streaming opcode', () => {
    // The first packet after the 32-byte header is a thread packet: 00 00 02.
    expect([...streaming.subarray(32, 35)]).toEqual([0, 0, 2])
    const e = errorOf(() => parseArtTrace(patched(streaming, 34, [9])))
    expect(e.code).toBe(ArtTraceErrors.BAD_PACKET)
    expect(e.details.offset).toBe(34)
  })
})

describe('clocks that wrap or step back', () => {
  test('thread-cpu clock with a 32-bit wrap: summary and intervals unwrap it', () => {
    const base = scenario('thread-cpu')
    const near = 2 ** 32 - 20
    const wrapped = {
      ...base,
      records: base.records.map((r) =>
        r.threadId === 1 ? { ...r, threadCpuUs: ((r.threadCpuUs ?? 0) + near) % 2 ** 32 } : r,
      ),
    }
    const trace = parseArtTrace(writeArtTrace(wrapped))
    const cpus = trace.records.filter((r) => r.threadId === 1).map((r) => r.threadCpuUs ?? 0)
    expect(cpus.some((t) => t < 100)).toBe(true) // it really wrapped in the file
    const plain = summarizeArtTrace(parseArtTrace(writeArtTrace(base)))
    const summary = summarizeArtTrace(trace)
    const strip = (s: typeof summary) => s.methods.filter((m) => m.id !== '0x1018')
    expect(strip(summary)).toEqual(strip(plain))
    const calls = readArtCallTrace(trace).calls.filter((c) => c.threadId === 1)
    for (const c of calls) {
      expect(c.cpuEndNs ?? 0).toBeGreaterThanOrEqual(c.cpuStartNs ?? 0)
      expect(c.endNs).toBeGreaterThanOrEqual(c.startNs)
    }
    const fetch = calls.find((c) => c.method === 'com.example.Net.fetch')
    expect(((fetch?.cpuEndNs ?? 0) - (fetch?.cpuStartNs ?? 0)) / 1000).toBe(30)
  })

  test('a clock stepping backwards is clamped and reported, not turned into negative time', () => {
    const base = scenario('wall')
    const records = base.records.map((r, i) => (i === 4 ? { ...r, wallUs: 10 } : r))
    const trace = parseArtTrace(writeArtTrace({ ...base, records }))
    const calls = readArtCallTrace(trace)
    expect(calls.warnings.join('\n')).toMatch(/backwards/)
    expect(calls.calls.every((c) => c.endNs >= c.startNs)).toBe(true)
    const s = summarizeArtTrace(trace)
    expect(
      s.methods.every((m) => (m.inclusiveWallUs ?? 0) >= 0 && (m.exclusiveWallUs ?? 0) >= 0),
    ).toBe(true)
  })
})

describe('mismatched exits', () => {
  const base = scenario('dual')
  // Thread 1 exits Json.parse while Json.value is on top (a lost exit record).
  const records = base.records.filter((_, i) => i !== 14)
  const trace = parseArtTrace(writeArtTrace({ ...base, records }))

  test('summary refuses, as dmtracedump does', () => {
    const e = errorOf(() => summarizeArtTrace(trace))
    expect(e.code).toBe(ArtTraceErrors.MISMATCHED_EXIT)
    expect(e.message).toMatch(/thread 1: exit from method 0x1008 while 0x100c/)
  })

  test('call intervals recover: the skipped frame is closed early and flagged', () => {
    const calls = readArtCallTrace(trace)
    expect(calls.warnings.join('\n')).toMatch(/1 calls closed early/)
    const value = calls.calls.filter(
      (c) => c.method === 'com.example.Json.value' && c.threadId === 1,
    )
    expect(value.map((c) => c.clippedEnd)).toEqual([true, false])
  })
})

describe('writer errors', () => {
  const base = scenario('dual')
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['dual in v1', () => writeArtTrace({ ...base, version: 1 }), /needs version 3/],
    [
      'streaming v1',
      () => writeArtTrace({ ...scenario('wall'), version: 1, streaming: true }),
      /version 2 or 3/,
    ],
    [
      'thread id too big for v1',
      () => writeArtTrace({ ...scenario('wall'), version: 1, threads: [{ id: 300, name: 'x' }] }),
      /thread id 300/,
    ],
    [
      'streaming thread 0',
      () => writeArtTrace({ ...base, streaming: true, threads: [{ id: 0, name: 'x' }] }),
      /thread id 0/,
    ],
    [
      'method id with action bits',
      () =>
        writeArtTrace({
          ...base,
          methods: [{ id: 0x1001, className: 'A', name: 'b', signature: '()V' }],
        }),
      /low two bits/,
    ],
    [
      'missing wall time',
      () =>
        writeArtTrace({
          ...base,
          records: [{ threadId: 1, methodId: 0x1000, action: 'enter', threadCpuUs: 1 }],
        }),
      /needs wallUs/,
    ],
    [
      'record count differs from the header',
      () => {
        const e = new ArtTraceEncoder({ ...base, numRecords: 5, onChunk: () => undefined })
        e.finish()
      },
      /announced 5 records/,
    ],
    [
      'legacy without numRecords',
      () => new ArtTraceEncoder({ ...base, onChunk: () => undefined }),
      /numRecords is required/,
    ],
  ]
  test.each(cases)('%s', (_name, fn, message) => {
    const e = errorOf(fn)
    expect(e.code).toBe(ArtTraceErrors.INVALID_WRITE)
    expect(e.message).toMatch(message)
  })
})

test('unknown thread filter lists the threads there are', () => {
  const e = errorOf(() => summarizeArtTrace(parseArtTrace(legacy), { thread: 'RenderThread' }))
  expect(e.code).toBe(ArtTraceErrors.UNKNOWN_THREAD)
  expect(e.hint).toContain('1 (main)')
})

describe('fuzz: never anything but a result or an EnergyError', () => {
  const check = (bytes: Uint8Array): void => {
    try {
      const trace = parseArtTrace(bytes)
      expect(trace.records.length).toBeGreaterThanOrEqual(0)
    } catch (error) {
      if (!(error instanceof EnergyError)) throw error
      expect(error.code).toMatch(/^E_/)
      expect(error.hint.length).toBeGreaterThan(0)
    }
  }

  test('random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => check(bytes)),
      {
        numRuns: 500,
      },
    )
  })

  test('valid traces with bytes flipped or cut', () => {
    const sources = [legacy, streaming, writeArtTrace(scenario('wall', { version: 1 }))]
    fc.assert(
      fc.property(
        fc.constantFrom(...sources),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        fc.nat(),
        (source, flips, cut) => {
          const bytes = source.slice(0, source.byteLength - (cut % 20))
          for (const [at, value] of flips) bytes[at % bytes.byteLength] = value
          check(bytes)
        },
      ),
      { numRuns: 1000 },
    )
  })
})

/** Decodes in chunks of `size` and returns the info or the error code (never throws). */
function chunkedOutcome(bytes: Uint8Array, size: number): string | ArtTraceInfo {
  const decoder = new ArtTraceDecoder()
  try {
    for (let i = 0; i < bytes.byteLength; i += size) decoder.push(bytes.subarray(i, i + size))
    return decoder.end()
  } catch (error) {
    if (error instanceof EnergyError) return `${error.code}@${String(error.details.offset)}`
    throw error
  }
}

describe('a trace that went through a text tool (issue 16)', () => {
  const nl = new Uint8Array([0x0a])

  test('legacy: all num-method-calls records, then one stray \\n: read, with a warning', () => {
    const bytes = Buffer.concat([legacy, nl])
    const trace = parseArtTrace(bytes)
    expect(trace.records).toEqual(parseArtTrace(legacy).records)
    expect(trace.warnings).toEqual([
      `1 stray byte after the last of the num-method-calls=22 records ignored (offset ${legacy.byteLength}; did a text tool add a line end?)`,
    ])
    expect(summarizeArtTrace(trace)).toEqual(summarizeArtTrace(parseArtTrace(legacy)))
    for (const size of [1, 7, 4096]) {
      const info = chunkedOutcome(bytes, size)
      const { records: _records, ...batch } = trace
      expect(info, `chunks of ${size}`).toEqual(batch)
    }
  })

  test('legacy: \\r\\n too (anything shorter than a record)', () => {
    const trace = parseArtTrace(Buffer.concat([legacy, Buffer.from('\r\n')]))
    expect(trace.warnings.join('\n')).toMatch(/^2 stray bytes after the last/)
  })

  test.skipIf(!hasDmtracedump)('dmtracedump warns and lists the same records', () => {
    const bytes = Buffer.concat([legacy, nl])
    const listing = parseDmtraceListing(dmtracedump(bytes, true))
    expect(listing).toEqual(parseDmtraceListing(dmtracedump(legacy, true)))
    const dir = mkdtempSync(join(tmpdir(), 'art-trace-'))
    try {
      writeFileSync(join(dir, 'nl.trace'), bytes)
      const run = spawnSync(DMTRACEDUMP, ['-o', join(dir, 'nl.trace')], { encoding: 'utf8' })
      expect(run.stderr).toContain('hit EOF mid-record')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('real truncation stays an error, whatever follows', () => {
    const cut = legacy.subarray(0, legacy.byteLength - 3)
    for (const bytes of [cut, Buffer.concat([cut, nl])]) {
      const e = errorOf(() => parseArtTrace(bytes))
      expect(e.code).toBe(ArtTraceErrors.TRUNCATED)
      expect(e.hint).toMatch(/pull it from the device again/)
    }
    // A whole record missing, then a stray byte: the count is short, so it is truncation.
    const short = Buffer.concat([legacy.subarray(0, legacy.byteLength - 14), nl])
    expect(errorOf(() => parseArtTrace(short)).code).toBe(ArtTraceErrors.TRUNCATED)
  })

  test('without num-method-calls nothing says the records are complete: still truncated', () => {
    const text = Buffer.from(legacy)
      .toString('latin1')
      .replace(/num-method-calls=\d+\n/, '')
    const bytes = Buffer.concat([Buffer.from(text, 'latin1'), nl])
    expect(parseArtTrace(Buffer.from(text, 'latin1')).records).toHaveLength(22)
    expect(errorOf(() => parseArtTrace(bytes)).code).toBe(ArtTraceErrors.TRUNCATED)
  })

  test('streaming: a final \\n or \\r\\n after the summary is ignored with a warning', () => {
    for (const tail of ['\n', '\r\n']) {
      const bytes = Buffer.concat([streaming, Buffer.from(tail)])
      const trace = parseArtTrace(bytes)
      expect(trace.records).toEqual(parseArtTrace(streaming).records)
      expect(trace.warnings).toEqual([
        `${tail.length} line-end byte${tail.length === 1 ? '' : 's'} after the streaming summary packet ignored (did a text tool add a line end?)`,
      ])
      for (const size of [1, 3, 4096]) {
        const { records: _records, ...batch } = trace
        expect(chunkedOutcome(bytes, size), `chunks of ${size}`).toEqual(batch)
      }
    }
  })

  test('streaming: more than a line end after the summary is still an error, chunked or not', () => {
    for (const tail of ['\n\n\n', '\nS', 'x']) {
      const bytes = Buffer.concat([streaming, Buffer.from(tail)])
      const e = errorOf(() => parseArtTrace(bytes))
      expect(e.code).toBe(ArtTraceErrors.BAD_PACKET)
      expect(e.details.offset).toBe(streaming.byteLength)
      for (const size of [1, 2, 4096]) {
        expect(chunkedOutcome(bytes, size)).toBe(`E_ART_TRACE_BAD_PACKET@${streaming.byteLength}`)
      }
    }
  })
})

describe('key-section lines over the 1 MiB limit (issue 16)', () => {
  const withName = (length: number): Uint8Array => {
    const input = scenario('dual')
    return writeArtTrace({
      ...input,
      methods: input.methods.map((m, i) => (i === 1 ? { ...m, name: 'x'.repeat(length) } : m)),
    })
  }

  test('a line over the limit is refused the same way in one chunk and in chunks', () => {
    const bytes = withName(MAX_KEY_LINE_BYTES)
    const lineStart = Buffer.from(bytes).indexOf('0x1004\t')
    expect(lineStart).toBeGreaterThan(0)
    const e = errorOf(() => parseArtTrace(bytes))
    expect(e.code).toBe(ArtTraceErrors.BAD_HEADER)
    expect(e.details.offset).toBe(lineStart)
    expect(e.message).toMatch(/longer than 1048576 bytes/)
    for (const size of [4096, 65_536, 1 << 20, 3 << 20]) {
      expect(chunkedOutcome(bytes, size), `chunks of ${size}`).toBe(
        `E_ART_TRACE_BAD_HEADER@${lineStart}`,
      )
    }
  })

  test('a line of exactly the limit is read in one chunk and in chunks', () => {
    const bytes = withName(1)
    const line = Buffer.from(bytes).toString('latin1').split('\n')[15] ?? ''
    const exact = withName(MAX_KEY_LINE_BYTES - line.length + 1)
    const batch = parseArtTrace(exact)
    expect(batch.methods[1]?.name.length).toBe(MAX_KEY_LINE_BYTES - line.length + 1)
    const { records: _records, ...info } = batch
    for (const size of [4096, 1 << 20]) expect(chunkedOutcome(exact, size)).toEqual(info)
  })
})
