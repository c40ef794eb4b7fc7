/** Call intervals (the model's CallTrace) from real traces, checked against dmtracedump's listing. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { expectLinear } from '../_linear.js'
import {
  parseArtTrace,
  qualifiedMethodName,
  readArtCallTrace,
  readArtCallTraceChunks,
  writeArtTrace,
  type ArtTraceRecord,
} from '../../../src/formats/art-trace/index.js'
import type { CallInterval } from '../../../src/model/index.js'
import { CORPUS, scenario } from './_helpers.js'

/** A call as [depth, method, thread-CPU start µs, end µs, clippedStart, clippedEnd, unwound]. */
const cpuRow = (c: CallInterval) => [
  c.depth,
  c.method,
  (c.cpuStartNs ?? 0) / 1000,
  (c.cpuEndNs ?? 0) / 1000,
  c.clippedStart,
  c.clippedEnd,
  c.unwound,
]

const exception = parseArtTrace(readFileSync(join(CORPUS, 'aosp_perflib_exception.trace')))

test('exception.trace: nesting, unwinding and clipping as dmtracedump -o shows them', () => {
  const trace = readArtCallTrace(exception)
  expect(trace.clock).toBe('realtime') // vm=dalvik: gettimeofday-based start time
  expect(trace.overflowed).toBe(false)
  expect(trace.mode).toBe('instrumentation')
  const rows = trace.calls.map(cpuRow)
  // Thread-CPU µs from `dmtracedump -o` (its depth dots, minus the 2 it starts with, are the depth).
  expect(rows).toEqual([
    [0, 'android.os.Debug.startMethodTracing', 0, 9, true, false, false],
    [1, 'android.os.Debug.startMethodTracing', 0, 6, true, false, false],
    [2, 'dalvik.system.VMDebug.startMethodTracing', 0, 3, true, false, false],
    [0, 'com.test.android.traceview.Exceptions.foo', 14, 66, false, false, true],
    [1, 'com.test.android.traceview.Exceptions.bar', 17, 64, false, false, true],
    [2, 'com.test.android.traceview.Exceptions.baz', 20, 62, false, false, true],
    [3, 'java.lang.RuntimeException.<init>', 26, 59, false, false, false],
    [4, 'java.lang.Exception.<init>', 29, 57, false, false, false],
    [5, 'java.lang.Throwable.<init>', 31, 55, false, false, false],
    [6, 'java.util.Collections.emptyList', 34, 36, false, false, false],
    [6, 'java.lang.Throwable.fillInStackTrace', 38, 53, false, false, false],
    [7, 'java.lang.Throwable.nativeFillInStackTrace', 41, 50, false, false, false],
    [0, 'android.os.Debug.stopMethodTracing', 69, 72, false, true, false],
    [1, 'dalvik.system.VMDebug.stopMethodTracing', 72, 72, false, true, false],
  ])
})

test('wall times are absolute ns: header start time + wall µs', () => {
  const trace = readArtCallTrace(exception)
  const foo = trace.calls.find((c) => c.method.endsWith('Exceptions.foo'))
  const enter = exception.records.find(
    (r) =>
      r.action === 'enter' && exception.methods.find((m) => m.id === r.methodId)?.name === 'foo',
  )
  expect(foo?.startNs).toBe((exception.startTimeUs + (enter?.wallUs ?? 0)) * 1000)
})

test('mismatched.trace: exits without enters become clipped calls one level further out', () => {
  const trace = readArtCallTrace(
    parseArtTrace(readFileSync(join(CORPUS, 'aosp_perflib_mismatched.trace'))),
  )
  expect(
    trace.calls.map((c) => [c.depth, c.method.split('.').slice(-1)[0], c.clippedStart]),
  ).toEqual([
    [0, 'foo', true],
    [1, 'bar', true],
    [2, 'startMethodTracing', true],
    [3, 'startMethodTracing', true],
    [4, 'startMethodTracing', true],
    [2, 'baz', false],
    [0, 'stopMethodTracing', false],
    [1, 'stopMethodTracing', false],
  ])
})

test('thread-cpu-only traces put thread-CPU time on the thread-cpu clock', () => {
  const trace = readArtCallTrace(
    parseArtTrace(readFileSync(join(CORPUS, 'aosp_perflib_basic-api10.trace'))),
  )
  expect(trace.clock).toBe('thread-cpu')
  expect(trace.calls.every((c) => c.cpuStartNs === c.startNs && c.cpuEndNs === c.endNs)).toBe(true)
})

test('wall-only traces carry no CPU fields', () => {
  const trace = readArtCallTrace(parseArtTrace(writeArtTrace(scenario('wall'))))
  expect(trace.clock).toBe('monotonic')
  expect(trace.calls.every((c) => c.cpuStartNs === undefined)).toBe(true)
})

test('data-file-overflow=true is a field and a warning', () => {
  const trace = readArtCallTrace(parseArtTrace(writeArtTrace(scenario('dual', { overflow: true }))))
  expect(trace.overflowed).toBe(true)
  expect(trace.warnings.join('\n')).toMatch(/data-file-overflow=true.*missing/)
})

test('thread filter by name and by id; mode is passed through', () => {
  const trace = parseArtTrace(writeArtTrace(scenario('dual')))
  const byName = readArtCallTrace(trace, { thread: 'AsyncTask #1', mode: 'sampling' })
  expect(byName.threads).toEqual([{ id: 7, name: 'AsyncTask #1' }])
  expect(byName.calls.map((c) => c.method)).toEqual(['com.example.Db.query'])
  expect(byName.mode).toBe('sampling')
  expect(readArtCallTrace(trace, { thread: 7 }).calls).toEqual(byName.calls)
})

test('qualified names: slashes become dots; unknown ids are named by id', () => {
  expect(
    qualifiedMethodName(
      { id: 4, className: 'com/example/Foo$Bar', name: 'baz', signature: '()V' },
      4,
    ),
  ).toBe('com.example.Foo$Bar.baz')
  expect(
    qualifiedMethodName({ id: 4, className: 'com.example.Foo', name: '', signature: '' }, 4),
  ).toBe('com.example.Foo')
  expect(qualifiedMethodName(undefined, 0x40)).toBe('unknown.0x40')
})

describe('unmatched exits (issue 16)', () => {
  /** One thread's records, every time field = the record's index. */
  const build = (steps: ReadonlyArray<readonly [action: 'enter' | 'exit', method: number]>) => {
    const methods = [0, 1, 2, 3, 4].map((i) => ({
      id: 0x3000 + 4 * i,
      className: 'com/example/C',
      name: `m${i}`,
      signature: '()V',
    }))
    const records: ArtTraceRecord[] = steps.map(([action, m], i) => ({
      threadId: 1,
      methodId: 0x3000 + 4 * m,
      action,
      threadCpuUs: i,
      wallUs: i,
    }))
    return writeArtTrace({
      version: 3,
      clock: 'dual',
      threads: [{ id: 1, name: 'main' }],
      methods,
      records,
      startTimeUs: 0,
      elapsedTimeUs: steps.length,
    })
  }

  /**
   * The pairing rules, written the obvious quadratic way: an exit closes the topmost frame of its
   * method (frames above it end early), an exit with an empty stack was open at trace start, an
   * exit of a method not on the stack is ignored.
   */
  const naive = (steps: ReadonlyArray<readonly [action: 'enter' | 'exit', method: number]>) => {
    const stack: Array<{ m: number; at: number; depth: number }> = []
    const rows: Array<[number, string, number, number, boolean, boolean, boolean]> = []
    let base = 0
    let ignored = 0
    let repaired = 0
    const name = (m: number) => `com.example.C.m${m}`
    steps.forEach(([action, m], i) => {
      if (action === 'enter') {
        stack.push({ m, at: i, depth: base + stack.length })
        return
      }
      if (stack.length === 0) {
        base--
        rows.push([base, name(m), 0, i, true, false, false])
        return
      }
      const at = stack.map((f) => f.m).lastIndexOf(m)
      if (at < 0) {
        ignored++
        return
      }
      while (stack.length > at) {
        const f = stack.pop()
        if (f === undefined) break
        const early = stack.length > at
        if (early) repaired++
        rows.push([f.depth, name(f.m), f.at, i, false, early, false])
      }
    })
    const last = steps.length - 1
    for (let f = stack.pop(); f !== undefined; f = stack.pop()) {
      rows.push([f.depth, name(f.m), f.at, last, false, true, false])
    }
    rows.sort((a, b) => a[2] - b[2] || a[0] - b[0])
    return { rows: rows.map((r) => [r[0] - base, ...r.slice(1)]), ignored, repaired }
  }

  test('random (mostly corrupt) enter/exit sequences pair exactly like the naive rules', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom<'enter' | 'exit'>('enter', 'exit'),
            fc.integer({ min: 0, max: 4 }),
          ),
          {
            minLength: 1,
            maxLength: 80,
          },
        ),
        (steps) => {
          const calls = readArtCallTrace(parseArtTrace(build(steps)))
          const want = naive(steps)
          expect(calls.calls.map(cpuRow)).toEqual(want.rows)
          const warnings = calls.warnings.join('\n')
          if (want.ignored > 0) expect(warnings).toContain(`${want.ignored} exits of methods`)
          else expect(warnings).not.toContain('exits of methods')
          if (want.repaired > 0) expect(warnings).toContain(`${want.repaired} calls closed early`)
          else expect(warnings).not.toContain('closed early')
        },
      ),
      { numRuns: 300 },
    )
  })

  test('unmatched exits under a deep stack are read in linear time', () => {
    // d nested enters, then 6.5·d exits of a method that is not on the stack: the old stack
    // search took d × 6.5·d steps (≈ 6 s at d = 20 000); linear costs the same per record at any d.
    const trace = (depth: number): Uint8Array => {
      const steps: Array<readonly ['enter' | 'exit', number]> = []
      for (let i = 0; i < depth; i++) steps.push(['enter', i % 4])
      for (let i = 0; i < depth * 6.5; i++) steps.push(['exit', 4])
      return build(steps)
    }
    const calls = readArtCallTraceChunks([trace(20_000)])
    expect(calls.calls).toHaveLength(20_000)
    expect(calls.warnings).toContain("130000 exits of methods not on their thread's stack ignored")
    expectLinear(trace, (bytes) => readArtCallTraceChunks([bytes]), 1_000)
  })
})
