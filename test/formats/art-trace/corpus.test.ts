/**
 * Real device traces (test/fixtures/corpus/3_method_traces): every one parses (the header-only
 * fixture is rejected clearly), and records and per-method times equal what dmtracedump says.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  ArtTraceErrors,
  parseArtTrace,
  sniffArtTrace,
  summarizeArtTrace,
  type ArtTrace,
} from '../../../src/formats/art-trace/index.js'
import { EnergyError } from '../../../src/model/index.js'
import {
  CORPUS,
  DMTRACEDUMP,
  GOLDEN,
  dmtracedump,
  hasDmtracedump,
  parseDmtraceListing,
  parseDmtraceProfile,
} from './_helpers.js'

const files = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.trace'))
  .sort()
const valid = files.filter((f) => f !== 'aosp_perflib_header.trace')

function labelFor(trace: ArtTrace, methodId: number): string {
  const m = trace.methods.find((x) => x.id === methodId)
  return m === undefined ? `??? methodId` : `${m.className}.${m.name} ${m.signature}`
}

/** dmtracedump uses the first time field: thread-cpu for dual and thread-cpu, wall for wall. */
function dmtraceTime(trace: ArtTrace, r: ArtTrace['records'][number]): number {
  return (trace.clock === 'wall' ? r.wallUs : r.threadCpuUs) ?? -1
}

test('the corpus has the five expected traces', () => {
  expect(files).toEqual([
    'aosp_perflib_basic-api10.trace',
    'aosp_perflib_basic.trace',
    'aosp_perflib_exception.trace',
    'aosp_perflib_header.trace',
    'aosp_perflib_mismatched.trace',
  ])
})

describe.each(valid)('%s', (file) => {
  const bytes = readFileSync(join(CORPUS, file))
  const trace = parseArtTrace(bytes)

  test('parses with the header facts PROVENANCE.md lists', () => {
    const expected: Record<string, [number, string, number, number, number, number]> = {
      'aosp_perflib_basic-api10.trace': [1, 'thread-cpu', 9, 10, 8, 7],
      'aosp_perflib_basic.trace': [3, 'dual', 14, 9, 11, 7],
      'aosp_perflib_exception.trace': [3, 'dual', 14, 23, 11, 14],
      'aosp_perflib_mismatched.trace': [3, 'dual', 14, 9, 11, 8],
    }
    const got = [
      trace.version,
      trace.clock,
      trace.recordSizeBytes,
      trace.records.length,
      trace.threads.length,
      trace.methods.length,
    ]
    expect(got).toEqual(expected[file])
    expect(trace.vm).toBe('dalvik')
    expect(trace.layout).toBe('legacy')
    expect(trace.overflow).toBe(false)
    expect(trace.numMethodCalls).toBe(trace.records.length)
    expect(trace.warnings).toEqual([])
  })

  test('sniffs as legacy without a file name', () => {
    expect(sniffArtTrace(bytes)).toBe('legacy')
  })

  test('summary matches the golden file', () => {
    const golden = JSON.parse(
      readFileSync(join(GOLDEN, file.replace('.trace', '.summary.json')), 'utf8'),
    ) as unknown
    expect(summarizeArtTrace(trace)).toEqual(golden)
  })

  test.skipIf(!hasDmtracedump)('records equal `dmtracedump -o` record by record', () => {
    const listed = parseDmtraceListing(dmtracedump(bytes, true))
    const ours = trace.records.map((r) => ({
      threadId: r.threadId,
      action: r.action,
      timeUs: dmtraceTime(trace, r),
      label: labelFor(trace, r.methodId),
    }))
    expect(ours).toEqual(listed)
  })

  test.skipIf(!hasDmtracedump)('per-method times equal the dmtracedump profile', () => {
    const profile = parseDmtraceProfile(dmtracedump(bytes, false))
    const summary = summarizeArtTrace(trace)
    let compared = 0
    for (const m of summary.methods) {
      const label = `${m.className}.${m.name} ${m.signature}`
      const inclusive = trace.clock === 'wall' ? m.inclusiveWallUs : m.inclusiveCpuUs
      const exclusive = trace.clock === 'wall' ? m.exclusiveWallUs : m.exclusiveCpuUs
      const theirs = profile.get(label)
      if (theirs === undefined) {
        // dmtracedump omits methods with no time at all.
        expect({ label, inclusive, exclusive }).toEqual({ label, inclusive: 0, exclusive: 0 })
        continue
      }
      if (theirs.inclusiveUs !== undefined) expect(inclusive, label).toBe(theirs.inclusiveUs)
      if (theirs.calls !== undefined) expect(m.calls, label).toBe(theirs.calls)
      expect(exclusive, label).toBe(theirs.exclusiveUs ?? 0)
      compared++
    }
    expect(compared).toBeGreaterThan(3)
  })
})

test('header.trace (header only, no data section) is rejected with a clear error', () => {
  const bytes = readFileSync(join(CORPUS, 'aosp_perflib_header.trace'))
  expect(sniffArtTrace(bytes)).toBe('legacy')
  let error: unknown
  try {
    parseArtTrace(bytes)
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(EnergyError)
  const e = error as EnergyError
  expect(e.code).toBe(ArtTraceErrors.UNSUPPORTED_VERSION)
  expect(e.details.offset).toBe(bytes.indexOf('SLOW') + 4)
  expect(e.message).toContain('25610')
  expect(e.hint).toMatch(/header-only/)
})

test.skipIf(!hasDmtracedump)('dmtracedump also rejects header.trace', () => {
  const run = spawnSync(DMTRACEDUMP, ['-o', join(CORPUS, 'aosp_perflib_header.trace')], {
    encoding: 'utf8',
  })
  expect(run.stderr).toContain('Unsupported trace file version: 25610')
  expect(run.stdout).not.toMatch(/^\s*\d+ (ent|xit)/m)
})
