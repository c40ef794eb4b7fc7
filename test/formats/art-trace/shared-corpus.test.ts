/**
 * Every trace of the shared corpus (../shared/corpus/3_method_traces, PROVENANCE.md §7; the
 * firefoxprofiler_* files are MPL-2.0 and read in place) parses or is refused with the code a
 * user would expect, pinned here; the real Firefox traces agree with dmtracedump; and one-shot and
 * randomly chunked decoding agree on every corpus trace and fixture (issue 16).
 */
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  ArtTraceDecoder,
  parseArtTrace,
  readArtCallTrace,
  readArtCallTraceChunks,
  summarizeArtTrace,
  summarizeArtTraceChunks,
  writeArtTrace,
  type ArtTrace,
} from '../../../src/formats/art-trace/index.js'
import { EnergyError } from '../../../src/model/index.js'
import {
  CORPUS,
  GOLDEN,
  SHARED_CORPUS,
  dmLabel,
  dmtracedump,
  hasDmtracedump,
  hasSharedCorpus,
  parseDmtraceListing,
  parseDmtraceProfile,
} from './_helpers.js'
import { cut, splits } from '../simpleperf/_helpers.js'

if (!hasSharedCorpus) {
  console.warn(`NOTICE: ${SHARED_CORPUS} not found: shared-corpus ART trace tests are SKIPPED`)
}

const sharedFiles = hasSharedCorpus ? readdirSync(SHARED_CORPUS).sort() : []
const read = (file: string): Uint8Array => readFileSync(join(SHARED_CORPUS, file))

/** What parsing a file gives: header facts, or the error code and offset. */
type Outcome =
  | {
      readonly layout: string
      readonly version: number
      readonly clock: string
      readonly records: number
      readonly threads: number
      readonly methods: number
      readonly warnings: readonly string[]
      readonly calls: number
      readonly callWarnings: readonly string[]
    }
  | { readonly code: string; readonly offset: unknown }

const unknownIds = (n: number) => [`${n} method ids in records are missing from the method table`]

const PINNED: Record<string, Outcome> = {
  'aosp_perflib_basic-api10.trace': {
    ...{ layout: 'legacy', version: 1, clock: 'thread-cpu', records: 10, threads: 8 },
    ...{ methods: 7, warnings: [], calls: 7, callWarnings: [] },
  },
  'aosp_perflib_basic.trace': {
    ...{ layout: 'legacy', version: 3, clock: 'dual', records: 9, threads: 11 },
    ...{ methods: 7, warnings: [], calls: 7, callWarnings: [] },
  },
  'aosp_perflib_exception.trace': {
    ...{ layout: 'legacy', version: 3, clock: 'dual', records: 23, threads: 11 },
    ...{ methods: 14, warnings: [], calls: 14, callWarnings: [] },
  },
  // Header only: the bytes after *end are not a data section; dmtracedump says the same
  // ("Unsupported trace file version: 25610").
  'aosp_perflib_header.trace': { code: 'E_ART_TRACE_UNSUPPORTED_VERSION', offset: 561 },
  'aosp_perflib_mismatched.trace': {
    ...{ layout: 'legacy', version: 3, clock: 'dual', records: 9, threads: 11 },
    ...{ methods: 8, warnings: [], calls: 8, callWarnings: [] },
  },
  'firefoxprofiler_art-trace-regular.trace': {
    ...{ layout: 'legacy', version: 3, clock: 'dual', records: 13_295, threads: 66 },
    ...{ methods: 2067, warnings: [], calls: 6777, callWarnings: unknownIds(18) },
  },
  'firefoxprofiler_art-trace-streaming.trace': {
    ...{ layout: 'streaming', version: 3, clock: 'dual', records: 39_377, threads: 61 },
    ...{ methods: 3963, warnings: [], calls: 19_885, callWarnings: unknownIds(9) },
  },
}

function outcomeOf(bytes: Uint8Array): Outcome {
  try {
    const trace = parseArtTrace(bytes)
    summarizeArtTrace(trace) // throws on what dmtracedump would abort on
    const calls = readArtCallTrace(trace)
    return {
      layout: trace.layout,
      version: trace.version,
      clock: trace.clock,
      records: trace.records.length,
      threads: trace.threads.length,
      methods: trace.methods.length,
      warnings: trace.warnings,
      calls: calls.calls.length,
      callWarnings: calls.warnings,
    }
  } catch (error) {
    if (error instanceof EnergyError) return { code: error.code, offset: error.details.offset }
    throw error
  }
}

describe.skipIf(!hasSharedCorpus)('shared corpus: every file has a pinned outcome', () => {
  test('no file is left unpinned', () => {
    expect(sharedFiles).toEqual(Object.keys(PINNED).sort())
  })

  test.each(sharedFiles)('%s', (file) => {
    expect(outcomeOf(read(file))).toEqual(PINNED[file])
  })
})

/** dmtracedump's label for a record's method; it names ids missing from the table `???.???`. */
function dmLabelOf(trace: ArtTrace, methodId: number): string {
  const m = trace.methods.find((x) => x.id === methodId)
  return m === undefined ? `???.??? methodId: 0x${methodId.toString(16)}` : dmLabel(m)
}

/**
 * Compares our summary with dmtracedump's profile of `bytes` (thread-CPU µs, its first time
 * field). dmtracedump folds every id missing from the method table into one `(unknown)` entry.
 */
function expectProfileAgrees(trace: ArtTrace, bytes: Uint8Array): void {
  const profile = parseDmtraceProfile(dmtracedump(bytes, false))
  const summary = summarizeArtTrace(trace)
  let compared = 0
  const unknown = { calls: 0, inclusiveUs: 0 }
  for (const m of summary.methods) {
    if (m.className === '(unknown)') {
      unknown.calls += m.calls
      unknown.inclusiveUs += m.inclusiveCpuUs ?? 0
      expect(m.exclusiveCpuUs, m.id).toBe(0)
      continue
    }
    const label = dmLabelOf(trace, Number(m.id))
    const theirs = profile.get(label)
    if (theirs === undefined) {
      expect({ label, incl: m.inclusiveCpuUs, excl: m.exclusiveCpuUs }).toEqual({
        label,
        incl: 0,
        excl: 0,
      })
      continue
    }
    expect(m.inclusiveCpuUs, `${label} inclusive`).toBe(theirs.inclusiveUs)
    expect(m.calls, `${label} calls`).toBe(theirs.calls)
    expect(m.exclusiveCpuUs, `${label} exclusive`).toBe(theirs.exclusiveUs ?? 0)
    compared++
  }
  expect(compared).toBeGreaterThan(1000)
  const theirs = profile.get('(unknown)')
  expect({ calls: theirs?.calls, inclusiveUs: theirs?.inclusiveUs }).toEqual(unknown)
}

describe.skipIf(!hasSharedCorpus || !hasDmtracedump)(
  'the Firefox traces agree with dmtracedump',
  () => {
    test('regular: records equal `dmtracedump -o` record by record', () => {
      const bytes = read('firefoxprofiler_art-trace-regular.trace')
      const trace = parseArtTrace(bytes)
      const listed = parseDmtraceListing(dmtracedump(bytes, true))
      const ours = trace.records.map((r) => ({
        threadId: r.threadId,
        action: r.action,
        timeUs: r.threadCpuUs,
        label: dmLabelOf(trace, r.methodId),
      }))
      expect(ours).toEqual(listed)
    })

    test('regular: per-method times equal the dmtracedump profile', () => {
      const bytes = read('firefoxprofiler_art-trace-regular.trace')
      expectProfileAgrees(parseArtTrace(bytes), bytes)
    })

    test('streaming: dmtracedump cannot read it; the same records as a legacy file agree', () => {
      const trace = parseArtTrace(read('firefoxprofiler_art-trace-streaming.trace'))
      const legacy = writeArtTrace({
        version: 3,
        clock: 'dual',
        streaming: false,
        threads: trace.threads,
        methods: trace.methods,
        records: trace.records,
        startTimeUs: trace.startTimeUs,
        elapsedTimeUs: trace.elapsedTimeUs ?? 0,
        ...(trace.pid !== undefined ? { pid: trace.pid } : {}),
        ...(trace.vm !== undefined ? { vm: trace.vm } : {}),
      })
      const copy = parseArtTrace(legacy)
      expect(copy.records).toEqual(trace.records)
      expect(summarizeArtTrace(copy)).toEqual(summarizeArtTrace(trace))
      expectProfileAgrees(trace, legacy)
    })
  },
)

/** Every distinct trace: the shared corpus, the repo's corpus copy and the writer goldens. */
const inputs: Array<[string, Uint8Array]> = (() => {
  const seen = new Set<string>()
  const out: Array<[string, Uint8Array]> = []
  const add = (dir: string, files: readonly string[]) => {
    for (const file of files.filter((f) => f.endsWith('.trace'))) {
      const bytes = readFileSync(join(dir, file))
      const hash = createHash('sha256').update(bytes).digest('hex')
      if (seen.has(hash)) continue
      seen.add(hash)
      out.push([file, bytes])
    }
  }
  add(SHARED_CORPUS, sharedFiles)
  add(CORPUS, readdirSync(CORPUS).sort())
  add(GOLDEN, readdirSync(GOLDEN).sort())
  return out
})()

/** Decodes `chunks`: header facts and raw records, or the error code and offset. */
function decodeChunks(chunks: Iterable<Uint8Array>): unknown {
  const records: number[] = []
  const decoder = new ArtTraceDecoder({
    onRecord: (tid, method, action, cpu, wall) => records.push(tid, method, action, cpu, wall),
  })
  try {
    for (const chunk of chunks) decoder.push(chunk)
    return { info: decoder.end(), records, recordClock: decoder.recordClock }
  } catch (error) {
    if (error instanceof EnergyError) return { code: error.code, offset: error.details.offset }
    throw error
  }
}

test('the inputs include the shared corpus, the repo corpus and the goldens', () => {
  expect(inputs.length).toBeGreaterThanOrEqual(hasSharedCorpus ? 19 : 17)
})

describe.each(inputs)('%s: one-shot and randomly chunked agree', (_file, bytes) => {
  const whole = decodeChunks([bytes])
  const big = bytes.byteLength > 100_000

  test('decoder: same header, records and warnings, or the same error and offset', () => {
    fc.assert(
      fc.property(splits, (split) => {
        expect(decodeChunks(cut(bytes, split))).toEqual(whole)
      }),
      { numRuns: big ? 12 : 60 },
    )
  })

  test('summary and call intervals from chunks equal the batch ones', () => {
    let trace: ArtTrace
    try {
      trace = parseArtTrace(bytes)
    } catch (error) {
      expect(error).toBeInstanceOf(EnergyError)
      return
    }
    fc.assert(
      fc.property(splits, (split) => {
        expect(summarizeArtTraceChunks(cut(bytes, split))).toEqual(summarizeArtTrace(trace))
        expect(readArtCallTraceChunks(cut(bytes, split))).toEqual(readArtCallTrace(trace))
      }),
      { numRuns: big ? 3 : 20 },
    )
  })
})
