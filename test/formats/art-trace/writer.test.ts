/**
 * The writer in every version × clock, legacy and streaming: dmtracedump reads what we write
 * (record by record and per-method profile), our parser reads it back, and the bytes match the
 * golden files in test/fixtures/art-trace (regenerate with UPDATE_GOLDEN=1).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  ArtTraceEncoder,
  parseArtTrace,
  sniffArtTrace,
  summarizeArtTrace,
  writeArtTrace,
  type ArtClock,
} from '../../../src/formats/art-trace/index.js'
import {
  GOLDEN,
  dmtracedump,
  hasDmtracedump,
  labelOf,
  parseDmtraceListing,
  parseDmtraceProfile,
  scenario,
} from './_helpers.js'

interface Variant {
  readonly version: 1 | 2 | 3
  readonly clock: ArtClock
  readonly streaming: boolean
}

const variants: Variant[] = [
  { version: 1, clock: 'wall', streaming: false },
  { version: 1, clock: 'thread-cpu', streaming: false },
  { version: 2, clock: 'wall', streaming: false },
  { version: 2, clock: 'thread-cpu', streaming: false },
  { version: 3, clock: 'dual', streaming: false },
  { version: 3, clock: 'wall', streaming: false },
  { version: 3, clock: 'thread-cpu', streaming: false },
  { version: 2, clock: 'wall', streaming: true },
  { version: 2, clock: 'thread-cpu', streaming: true },
  { version: 3, clock: 'dual', streaming: true },
  { version: 3, clock: 'wall', streaming: true },
  { version: 3, clock: 'thread-cpu', streaming: true },
]

const name = (v: Variant): string =>
  `writer-v${v.version}-${v.clock}${v.streaming ? '-streaming' : ''}.trace`

describe.each(variants)('version $version, clock $clock, streaming $streaming', (variant) => {
  const input = scenario(variant.clock, { version: variant.version, streaming: variant.streaming })
  const bytes = writeArtTrace(input)
  const golden = join(GOLDEN, name(variant))

  test('bytes equal the golden file', () => {
    if (process.env.UPDATE_GOLDEN === '1' || !existsSync(golden)) writeFileSync(golden, bytes)
    expect(Buffer.from(bytes).equals(readFileSync(golden))).toBe(true)
  })

  test('sniffs without a file name', () => {
    expect(sniffArtTrace(bytes)).toBe(variant.streaming ? 'streaming' : 'legacy')
  })

  test('parses back to the same header and records', () => {
    const trace = parseArtTrace(bytes)
    expect(trace.version).toBe(variant.version)
    expect(trace.clock).toBe(variant.clock)
    expect(trace.layout).toBe(variant.streaming ? 'streaming' : 'legacy')
    expect(trace.recordSizeBytes).toBe(
      variant.version === 1 ? 9 : variant.clock === 'dual' ? 14 : 10,
    )
    expect(trace.startTimeUs).toBe(input.startTimeUs)
    expect(trace.pid).toBe(4321)
    expect(trace.vm).toBe('art')
    expect(trace.threads).toEqual(input.threads)
    expect(trace.methods).toEqual(input.methods)
    expect(trace.records).toEqual(input.records)
    expect(trace.overflow).toBe(false)
  })

  test('summary equals the legacy v3 summary for the same clock', () => {
    const reference = summarizeArtTrace(
      parseArtTrace(writeArtTrace(scenario(variant.clock, { version: 3 }))),
    )
    const summary = summarizeArtTrace(parseArtTrace(bytes))
    expect({ ...summary, version: 3 }).toEqual(reference)
  })

  // dmtracedump reads only the legacy layout; streaming output is checked against it above.
  if (variant.streaming) return

  test.skipIf(!hasDmtracedump)('dmtracedump -o lists exactly the intended records', () => {
    const listed = parseDmtraceListing(dmtracedump(bytes, true))
    const intended = input.records.map((r) => ({
      threadId: r.threadId,
      action: r.action,
      timeUs: variant.clock === 'wall' ? r.wallUs : r.threadCpuUs,
      label: labelOf(r.methodId),
    }))
    expect(listed).toEqual(intended)
  })

  test.skipIf(!hasDmtracedump)('dmtracedump profile equals summarizeArtTrace', () => {
    const profile = parseDmtraceProfile(dmtracedump(bytes, false))
    const summary = summarizeArtTrace(parseArtTrace(bytes))
    let compared = 0
    for (const m of summary.methods) {
      const label = labelOf(Number(m.id))
      const inclusive = variant.clock === 'wall' ? m.inclusiveWallUs : m.inclusiveCpuUs
      const exclusive = variant.clock === 'wall' ? m.exclusiveWallUs : m.exclusiveCpuUs
      const theirs = profile.get(label)
      if (theirs === undefined) {
        // dmtracedump prints no main line for a method without time.
        expect({ label, inclusive, exclusive }).toEqual({ label, inclusive: 0, exclusive: 0 })
        continue
      }
      expect(inclusive, `${label} inclusive`).toBe(theirs?.inclusiveUs)
      expect(m.calls, `${label} calls`).toBe(theirs?.calls)
      expect(exclusive, `${label} exclusive`).toBe(theirs?.exclusiveUs ?? 0)
      compared++
    }
    expect(compared).toBeGreaterThanOrEqual(6)
  })
})

test('the scenario summary has the hand-computed dual-clock figures', () => {
  const s = summarizeArtTrace(parseArtTrace(writeArtTrace(scenario('dual'))))
  const byName = new Map(s.methods.map((m) => [`${m.className}.${m.name}`, m]))
  // Json.value: called twice, recursively (the inner call is inside the outer): inclusive counts
  // the outer call only. Outer value enters at cpu 2+4+30+2+5=43 (thread 1), exits at 43+4+2+3+6+1+1+2=62.
  expect(byName.get('com/example/Json.value')).toMatchObject({ calls: 3, inclusiveCpuUs: 19 + 5 })
  // Start.run: exit without enter at cpu 0 on thread 1 → inclusive 0 - 0, one call.
  expect(byName.get('com/example/Start.run')).toMatchObject({ calls: 1, inclusiveCpuUs: 0 })
  // Db.query: thread 7 (0→11) + thread 12 (open 0→… last event 2+4+5+1=12) + thread 1 (open, 0 long)
  expect(byName.get('com/example/Db.query')).toMatchObject({
    calls: 3,
    inclusiveCpuUs: 11 + 10 + 0,
  })
})

test('dmtracedump cannot read streaming files (ours can): the reason streaming is checked via legacy', () => {
  const bytes = writeArtTrace(scenario('dual', { streaming: true }))
  expect(parseArtTrace(bytes).records.length).toBe(22)
})

test('overflow=true is written and read back loudly', () => {
  const trace = parseArtTrace(writeArtTrace(scenario('dual', { overflow: true })))
  expect(trace.overflow).toBe(true)
  expect(trace.keys['data-file-overflow']).toBe('true')
  expect(trace.warnings.join('\n')).toMatch(/data-file-overflow=true/)
})

test('the encoder streams chunks of the requested size and equals writeArtTrace', () => {
  const input = scenario('dual')
  const chunks: Uint8Array[] = []
  const encoder = new ArtTraceEncoder({
    ...input,
    numRecords: input.records.length,
    chunkBytes: 64,
    onChunk: (c) => chunks.push(c),
  })
  for (const r of input.records) encoder.add(r)
  encoder.finish()
  expect(chunks.length).toBeGreaterThan(5)
  expect(chunks.every((c) => c.byteLength <= 64 && c.byteLength > 0)).toBe(true)
  expect(Buffer.concat(chunks).equals(Buffer.from(writeArtTrace(input)))).toBe(true)
})

test('times wrap modulo 2^32 in the file, as on a device', () => {
  const input = scenario('wall', { version: 3 })
  const shifted = {
    ...input,
    records: input.records.map((r) => ({ ...r, wallUs: (r.wallUs ?? 0) + 2 ** 32 - 200 })),
  }
  const trace = parseArtTrace(writeArtTrace(shifted))
  expect(trace.records.map((r) => r.wallUs)).toEqual(shifted.records.map((r) => r.wallUs % 2 ** 32))
  // …and the summary unwraps them: same figures as without the offset, except for the call
  // open at trace start, which dmtracedump counts from time 0 (so from the raw first value).
  const start = '0x1018'
  const wrapped = summarizeArtTrace(trace).methods
  const plain = summarizeArtTrace(parseArtTrace(writeArtTrace(input))).methods
  expect(wrapped.filter((m) => m.id !== start)).toEqual(plain.filter((m) => m.id !== start))
  expect(wrapped.find((m) => m.id === start)?.inclusiveWallUs).toBe(2 ** 32 - 200 + 105)
})
