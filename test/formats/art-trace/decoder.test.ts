/** The chunked decoder equals the batch parser whatever the chunk size; the visitor API. */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  ArtTraceDecoder,
  forEachRecord,
  parseArtTrace,
  readArtCallTrace,
  readArtCallTraceChunks,
  summarizeArtTrace,
  summarizeArtTraceChunks,
  writeArtTrace,
  type ArtTraceRecord,
} from '../../../src/formats/art-trace/index.js'
import {
  CORPUS,
  GOLDEN,
  chunksOf,
  dmtracedump,
  hasDmtracedump,
  LAYOUTS,
  parseDmtraceListing,
  scenario,
} from './_helpers.js'

const ACTIONS = ['enter', 'exit', 'unwind'] as const

function decodeInChunks(bytes: Uint8Array, size: number) {
  const records: ArtTraceRecord[] = []
  const decoder = new ArtTraceDecoder({
    onRecord(threadId, methodId, action, threadCpuUs, wallUs) {
      records.push({
        threadId,
        methodId,
        action: ACTIONS[action] ?? 'exit',
        ...(threadCpuUs >= 0 ? { threadCpuUs } : {}),
        ...(wallUs >= 0 ? { wallUs } : {}),
      })
    },
  })
  // Reuse one buffer for every chunk, as a file reader does: the decoder must copy what it keeps.
  const scratch = new Uint8Array(size)
  for (const chunk of chunksOf(bytes, size)) {
    scratch.set(chunk)
    decoder.push(scratch.subarray(0, chunk.byteLength))
    scratch.fill(0xee)
  }
  const info = decoder.end()
  return { info, records, recordClock: decoder.recordClock }
}

const inputs: Array<[string, Uint8Array]> = [
  ...readdirSync(CORPUS)
    .filter((f) => f.endsWith('.trace') && !f.includes('header'))
    .map((f): [string, Uint8Array] => [f, readFileSync(join(CORPUS, f))]),
  ...readdirSync(GOLDEN)
    .filter((f) => f.endsWith('.trace'))
    .map((f): [string, Uint8Array] => [f, readFileSync(join(GOLDEN, f))]),
]

describe.each(inputs)('%s', (_name, bytes) => {
  const batch = parseArtTrace(bytes)
  test.each([1, 7, 4096])('chunks of %i bytes decode exactly like the batch parser', (size) => {
    const { info, records, recordClock } = decodeInChunks(bytes, size)
    const { records: batchRecords, ...batchInfo } = batch
    if (recordClock === info.clock) {
      expect(info).toEqual(batchInfo)
      expect(records).toEqual(batchRecords)
    } else {
      // Single-clock streaming: only parseArtTrace can re-map records already handed out.
      expect({ ...info, warnings: [] }).toEqual({ ...batchInfo, warnings: [] })
      expect(records.map((r) => r.wallUs)).toEqual(batchRecords.map((r) => r.threadCpuUs))
    }
  })

  test('the one-pass chunked call reader equals the batch call reader', () => {
    expect(readArtCallTraceChunks(chunksOf(bytes, 7))).toEqual(readArtCallTrace(batch))
  })

  test('the one-pass chunked summary equals the batch summary', () => {
    expect(summarizeArtTraceChunks(chunksOf(bytes, 7))).toEqual(summarizeArtTrace(batch))
  })
})

test('forEachRecord visits every record with -1 for the clock a file lacks', () => {
  const bytes = writeArtTrace(scenario('wall'))
  const seen: number[][] = []
  const info = forEachRecord(bytes, (tid, method, action, cpu, wall) =>
    seen.push([tid, method, action, cpu, wall]),
  )
  expect(info.clock).toBe('wall')
  expect(seen).toHaveLength(22)
  expect(seen.every((r) => r[3] === -1 && (r[4] ?? -1) >= 0)).toBe(true)
  expect(seen[0]).toEqual([1, 0x1018, 1, -1, 105])
})

test('forEachRecord takes an iterable of chunks too', () => {
  const bytes = writeArtTrace(scenario('dual'))
  let n = 0
  forEachRecord(chunksOf(bytes, 5), () => n++)
  expect(n).toBe(22)
})

test('single-clock streaming: records are decoded as wall until the summary says thread-cpu', () => {
  const bytes = writeArtTrace(scenario('thread-cpu', { streaming: true }))
  const { info, recordClock } = decodeInChunks(bytes, 4096)
  expect(recordClock).toBe('wall')
  expect(info.clock).toBe('thread-cpu')
  expect(info.warnings.join('\n')).toMatch(/decoded as clock 'wall'/)
  // parseArtTrace fixes the records up once it knows.
  expect(parseArtTrace(bytes).records).toEqual(scenario('thread-cpu').records)
  // …and the streaming hint avoids the fix-up altogether.
  const hinted = new ArtTraceDecoder({ streamingClock: 'thread-cpu' })
  hinted.push(bytes)
  expect(hinted.end().warnings).toEqual([])
})

test('empty chunks are ignored', () => {
  const bytes = writeArtTrace(scenario('dual'))
  const decoder = new ArtTraceDecoder()
  decoder.push(new Uint8Array(0))
  decoder.push(bytes)
  decoder.push(new Uint8Array(0))
  expect(decoder.end().threads).toHaveLength(3)
  expect(decoder.recordCount).toBe(22)
})

test('a very long key-section line fed byte by byte is still parsed (no quadratic rescans)', () => {
  const input = scenario('dual')
  const longName = 'x'.repeat(200_000)
  const bytes = writeArtTrace({
    ...input,
    methods: input.methods.map((m, i) => (i === 0 ? { ...m, name: longName } : m)),
  })
  const decoder = new ArtTraceDecoder()
  for (let i = 0; i < bytes.byteLength; i++) decoder.push(bytes.subarray(i, i + 1))
  const info = decoder.end()
  expect(info.methods[0]?.name).toBe(longName)
  expect(decoder.recordCount).toBe(22)
})

test('end() uses bytes still pending below the wait threshold', () => {
  const bytes = writeArtTrace(scenario('wall'))
  const decoder = new ArtTraceDecoder()
  // Everything except the last byte, then the last byte: the final record completes at end().
  decoder.push(bytes.subarray(0, bytes.byteLength - 1))
  decoder.push(bytes.subarray(bytes.byteLength - 1))
  expect(decoder.end().clock).toBe('wall')
  expect(decoder.recordCount).toBe(22)
})

describe('14-byte (dual) records under a single clock= line (fuzz art-calls, issue 16)', () => {
  /** The streaming summary packet (`u2 0, u1 3, u4 length`, key text, end of file) rewritten. */
  function withSummaryClock(bytes: Uint8Array, clock: string): Uint8Array {
    const at = Buffer.from(bytes).lastIndexOf('*version') - 7
    const text = Buffer.from(bytes.subarray(at + 7)).toString('latin1')
    const summary = Buffer.from(text.replace('clock=dual\n', `clock=${clock}\n`), 'latin1')
    const head = Buffer.from([0, 0, 3, 0, 0, 0, 0])
    head.writeUInt32LE(summary.byteLength, 3)
    return Buffer.concat([bytes.subarray(0, at), head, summary])
  }
  /** The same records in a legacy file whose key section says the same clock. */
  function withKeyClock(bytes: Uint8Array, clock: string): Uint8Array {
    const at = Buffer.from(bytes).indexOf('clock=dual\n')
    const line = Buffer.from(`clock=${clock}\n`)
    return Buffer.concat([bytes.subarray(0, at), line, bytes.subarray(at + 11)])
  }

  // A streaming header says 14-byte records, so they are decoded as dual until the summary at the
  // end names a single clock. That clock's time is each record's first time field (the thread-cpu
  // field of a dual record): one-shot parsing took the second (wall) field for clock=thread-cpu
  // while the chunked readers took the first, and both took the second for clock=wall.
  test.each(['thread-cpu', 'wall'] as const)(
    'clock=%s: every split point reads the first time field, as a legacy file and dmtracedump do',
    (clock) => {
      // The ignored second field runs backwards: that is no clock of the file's, so no warning.
      const base = scenario('dual', { streaming: true })
      const dual = { ...base, records: base.records.map((r, i) => ({ ...r, wallUs: 5000 - i })) }
      const bytes = withSummaryClock(writeArtTrace(dual), clock)
      const trace = parseArtTrace(bytes)
      const firstField = dual.records.map((r) => r.threadCpuUs)
      const times = trace.records.map((r) => (clock === 'wall' ? r.wallUs : r.threadCpuUs))
      expect(times).toEqual(firstField)
      expect(new Set(firstField)).not.toEqual(new Set(dual.records.map((r) => r.wallUs)))
      const legacy = withKeyClock(writeArtTrace(scenario('dual')), clock)
      expect(parseArtTrace(legacy).records).toEqual(trace.records)
      if (hasDmtracedump) {
        expect(parseDmtraceListing(dmtracedump(legacy, true)).map((r) => r.timeUs)).toEqual(
          firstField,
        )
      }
      expect(trace.warnings).toContain(
        `14-byte records (room for two clocks) but the summary says clock=${clock}: its time is read from each record's first time field, the second is ignored`,
      )
      const calls = readArtCallTrace(trace)
      const summary = summarizeArtTrace(trace)
      expect(calls.warnings).toEqual(trace.warnings)
      expect(calls.warnings.join('\n')).not.toMatch(/went backwards/)
      for (let at = 0; at <= bytes.byteLength; at++) {
        const chunks = [bytes.subarray(0, at), bytes.subarray(at)]
        expect(readArtCallTraceChunks(chunks)).toEqual(calls)
        expect(summarizeArtTraceChunks(chunks)).toEqual(summary)
      }
    },
  )

  test("the fuzzer's minimized input (clock=thread-cpu, 14-byte records) agrees at every split", () => {
    const bytes = readFileSync(
      join(import.meta.dirname, '../../fixtures/fuzz/art-calls/mismatch-78acd2776e.bin'),
    )
    const trace = parseArtTrace(bytes)
    const calls = readArtCallTrace(trace)
    // Binder:123_2's unwind record: first time field 825913957 µs, second 845099826 µs.
    expect(calls.calls.find((c) => c.threadId === 12)?.cpuEndNs).toBe(825_913_957_000)
    for (let at = 0; at <= bytes.byteLength; at++) {
      const chunks = [bytes.subarray(0, at), bytes.subarray(at)]
      expect(readArtCallTraceChunks(chunks)).toEqual(calls)
      expect(summarizeArtTraceChunks(chunks)).toEqual(summarizeArtTrace(trace))
    }
  })
})

describe('records and packets split across chunk boundaries', () => {
  // A record or control packet cut by a chunk's end is completed with only the bytes it needs
  // from the next chunk, and the rest of that chunk is decoded in place (the summary reads whole
  // runs of records straight from it): every cut position must give the one-piece results, with
  // the caller reusing (and scribbling over) one buffer as a file reader does.

  function reusedBuffer(bytes: Uint8Array, sizes: readonly number[]): Iterable<Uint8Array> {
    return {
      *[Symbol.iterator]() {
        const scratch = new Uint8Array(Math.max(...sizes))
        let at = 0
        for (let i = 0; at < bytes.byteLength; i++) {
          const chunk = bytes.subarray(at, at + (sizes[i % sizes.length] ?? 1))
          at += chunk.byteLength
          scratch.set(chunk)
          yield scratch.subarray(0, chunk.byteLength)
          scratch.fill(0xee)
        }
      },
    }
  }

  test.each(LAYOUTS)('v$version $clock streaming=$streaming', ({ version, clock, streaming }) => {
    const bytes = writeArtTrace(scenario(clock, { version, streaming }))
    const trace = parseArtTrace(bytes)
    const summary = summarizeArtTrace(trace)
    const { records } = decodeInChunks(bytes, bytes.byteLength)
    // Two chunks: a cut at every offset, the second chunk large.
    for (let at = 1; at < bytes.byteLength; at++) {
      const chunks = reusedBuffer(bytes, [at, bytes.byteLength])
      expect(summarizeArtTraceChunks(chunks)).toEqual(summary)
    }
    // A short chunk between large ones: a record or packet split over three chunks.
    for (let at = 1; at < bytes.byteLength - 3; at++) {
      for (const short of [1, 2, 3]) {
        const chunks = [
          bytes.subarray(0, at),
          bytes.subarray(at, at + short),
          bytes.subarray(at + short),
        ]
        expect(summarizeArtTraceChunks(chunks)).toEqual(summary)
      }
    }
    // Odd sizes, so that cuts fall at every offset inside records.
    for (const size of [5, 13, 64, 99]) {
      expect(summarizeArtTraceChunks(reusedBuffer(bytes, [size, 1, size * 3]))).toEqual(summary)
      expect(decodeInChunks(bytes, size).records).toEqual(records)
    }
  })

  test('an error inside a run of records is reported at the same offset however it is cut', () => {
    const bytes = writeArtTrace(scenario('dual'))
    const bad = bytes.slice()
    // The 5th record's action bits set to 3 (records are 14 bytes after the 32-byte header).
    const dataStart = bytes.byteLength - 22 * 14
    const at = dataStart + 4 * 14 + 2
    bad[at] = (bad[at] ?? 0) | 3
    const offsetOf = (chunks: Iterable<Uint8Array>): unknown => {
      try {
        summarizeArtTraceChunks(chunks)
      } catch (error) {
        return (error as { details?: { offset?: number } }).details?.offset
      }
      return 'no error'
    }
    expect(offsetOf([bad])).toBe(dataStart + 4 * 14)
    for (let cut = 1; cut < bad.byteLength; cut++) {
      expect(offsetOf([bad.subarray(0, cut), bad.subarray(cut)])).toBe(dataStart + 4 * 14)
    }
  })
})
