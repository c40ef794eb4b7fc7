/** Call intervals (the model's CallTrace) from real traces, checked against dmtracedump's listing. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import {
  parseArtTrace,
  qualifiedMethodName,
  readArtCallTrace,
  writeArtTrace,
} from '../../../src/formats/art-trace/index.js'
import { CORPUS, scenario } from './_helpers.js'

const exception = parseArtTrace(readFileSync(join(CORPUS, 'aosp_perflib_exception.trace')))

test('exception.trace: nesting, unwinding and clipping as dmtracedump -o shows them', () => {
  const trace = readArtCallTrace(exception)
  expect(trace.clock).toBe('realtime') // vm=dalvik: gettimeofday-based start time
  expect(trace.overflowed).toBe(false)
  expect(trace.mode).toBe('instrumentation')
  const rows = trace.calls.map((c) => [
    c.depth,
    c.method,
    (c.cpuStartNs ?? 0) / 1000,
    (c.cpuEndNs ?? 0) / 1000,
    c.clippedStart,
    c.clippedEnd,
    c.unwound,
  ])
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
