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
import { CORPUS, GOLDEN, chunksOf, scenario } from './_helpers.js'

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
