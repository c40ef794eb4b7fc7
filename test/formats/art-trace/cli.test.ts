/** `vitest-energy trace`: table and JSON output, thread filter, errors with exit code 1. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { runCommand } from '../../../src/cli/index.js'
import {
  parseArtTrace,
  summarizeArtTrace,
  writeArtTrace,
} from '../../../src/formats/art-trace/index.js'
import { CORPUS, scenario } from './_helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'art-trace-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function run(...argv: string[]) {
  let out = ''
  let err = ''
  const code = await runCommand(['trace', ...argv], {
    out: (t) => (out += t),
    err: (t) => (err += t),
    cwd: CORPUS,
    signal: new AbortController().signal,
  })
  return { code, out, err }
}

test('table output for a corpus trace', async () => {
  const { code, out, err } = await run('aosp_perflib_basic.trace')
  expect(code).toBe(0)
  expect(err).toBe('')
  expect(out).toMatchInlineSnapshot(`
    "ART trace: legacy v3, clock=dual, vm=dalvik, 9 records, 11 threads, 7 methods
    elapsed: 303 µs

           calls  incl cpu µs  excl cpu µs incl wall µs excl wall µs  method
               1           16           16           16           16  android.os.Debug.stopMethodTracing ()V
               1            7            5            7            5  com.test.android.traceview.Basic.foo ()V
               1            7            4          233            3  android.os.Debug.startMethodTracing (Ljava/lang/String;II)V
               1            9            2          235            2  android.os.Debug.startMethodTracing (Ljava/lang/String;)V
               1            2            2            2            2  com.test.android.traceview.Basic.bar ()I
               1            3            0          230            0  dalvik.system.VMDebug.startMethodTracing (Ljava/lang/String;II)V
               1            0            0            0            0  dalvik.system.VMDebug.stopMethodTracing ()V
    "
  `)
})

test('--format json prints exactly summarizeArtTrace', async () => {
  const { code, out } = await run('aosp_perflib_exception.trace', '--format', 'json')
  expect(code).toBe(0)
  const { readFileSync } = await import('node:fs')
  const expected = summarizeArtTrace(
    parseArtTrace(readFileSync(join(CORPUS, 'aosp_perflib_exception.trace'))),
  )
  expect(JSON.parse(out)).toEqual(expected)
})

test('--thread filters by name, also for streaming files; overflow warns on stderr', async () => {
  const file = join(dir, 'streaming.trace')
  writeFileSync(file, writeArtTrace(scenario('dual', { streaming: true, overflow: true })))
  const { code, out, err } = await run(file, '--format', 'json', '--thread', 'AsyncTask #1')
  expect(code).toBe(0)
  const summary = JSON.parse(out) as { threads: unknown[]; methods: Array<{ name: string }> }
  expect(summary.threads).toEqual([{ id: 7, name: 'AsyncTask #1' }])
  expect(summary.methods.map((m) => m.name)).toEqual(['query'])
  expect(err).toMatch(/warning: data-file-overflow=true/)
  const table = await run(file, '--top', '2')
  expect(table.out).toMatch(/WARNING: data-file-overflow=true/)
  expect(table.out).toMatch(/… 5 more/)
})

test('a missing file is an EnergyError and exit code 1', async () => {
  const { code, err } = await run('nope.trace')
  expect(code).toBe(1)
  expect(err).toMatch(/\[E_ART_TRACE_FILE_UNREADABLE\].*nope\.trace/)
  expect(err).toMatch(/→ /)
})

test('a header-only trace is an EnergyError and exit code 1', async () => {
  const { code, err } = await run('aosp_perflib_header.trace')
  expect(code).toBe(1)
  expect(err).toMatch(/\[E_ART_TRACE_UNSUPPORTED_VERSION\]/)
})

test('an unknown thread is an EnergyError naming the threads', async () => {
  const { code, err } = await run('aosp_perflib_basic.trace', '--thread', 'RenderThread')
  expect(code).toBe(1)
  expect(err).toMatch(/E_ART_TRACE_UNKNOWN_THREAD.*\n.*11 \(AsyncTask #1\)/)
})

test('usage errors exit 2 with the usage text', async () => {
  for (const argv of [[], ['a', 'b'], ['x.trace', '--format', 'xml'], ['x.trace', '--top', '0']]) {
    const { code, err } = await run(...argv)
    expect(code, argv.join(' ')).toBe(2)
    expect(err).toMatch(/Usage: vitest-energy trace/)
  }
})
