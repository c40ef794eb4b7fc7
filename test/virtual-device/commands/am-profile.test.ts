import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { parseArtTrace, writeArtTrace } from '../../../src/formats/art-trace/index.js'
import type { ArtProfileResult } from '../../../src/virtual-device/sim/art-profile.js'
import { validateAppModel } from '../../../src/virtual-device/sim/app-model.js'
import { DEMO_APP_MODEL } from '../../../src/virtual-device/sim/demo-app.js'
import { centerOf, harness, type Harness } from './_harness.js'

const hasDmtracedump = existsSync('/usr/bin/dmtracedump')
if (!hasDmtracedump) {
  console.warn(
    'NOTICE: /usr/bin/dmtracedump missing; ART trace cross-checks are skipped (apt install dmtracedump)',
  )
}

async function profiledSession(h: Harness, flags: string): Promise<ArtProfileResult> {
  await h.sh('am start -W -n com.example.trails/.MainActivity')
  const start = await h.sh(`am profile start ${flags} com.example.trails /data/local/tmp/t.trace`)
  expect(start).toMatchObject({ status: 0, err: '' })
  await h.sh(`input tap ${centerOf(h.phone, 'refresh')}`)
  await h.sh('sleep 1')
  await h.sh(`input tap ${centerOf(h.phone, 'feed-list')}`)
  await h.sh('sleep 1')
  expect((await h.sh('am profile stop com.example.trails')).status).toBe(0)
  const result = h.phone.lastArtProfile
  if (result === undefined) throw new Error('no trace written')
  expect(h.device.fs.readFile('/data/local/tmp/t.trace')).toEqual(result.bytes)
  return result
}

/** `dmtracedump -o` lines: tid, ent/xit, µs, class.method. */
function dmtraceRecords(
  bytes: Uint8Array,
): { tid: number; action: string; us: number; method: string }[] {
  const dir = mkdtempSync(join(tmpdir(), 'vdev-art-'))
  const file = join(dir, 't.trace')
  writeFileSync(file, bytes)
  const run = spawnSync('/usr/bin/dmtracedump', ['-o', file], { encoding: 'utf8' })
  rmSync(dir, { recursive: true, force: true })
  // "Without complaint": no warning or error on stderr, exit status 0.
  expect(run.stderr).toBe('')
  expect(run.status).toBe(0)
  const text = run.stdout
  const rows = []
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+) (ent|xit|unr)\s+(\d+) \.*(\S+) /.exec(line)
    if (m !== null) rows.push({ tid: Number(m[1]), action: m[2]!, us: Number(m[3]), method: m[4]! })
  }
  return rows
}

function dmtraceExclusive(bytes: Uint8Array): Map<string, number> {
  const dir = mkdtempSync(join(tmpdir(), 'vdev-art-'))
  const file = join(dir, 't.trace')
  writeFileSync(file, bytes)
  let text: string
  try {
    text = execFileSync('/usr/bin/dmtracedump', [file], { encoding: 'utf8' })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const section = text.split('Exclusive elapsed times for each method')[1]?.split('=====')[0] ?? ''
  const map = new Map<string, number>()
  for (const m of section.matchAll(/^\s*(\d+)\s+[\d.]+\s+[\d.]+\s+\[\d+\] (\S+) /gm)) {
    map.set(m[2]!, Number(m[1]))
  }
  return map
}

function intended(result: ArtProfileResult, clock: 'threadCpuUs' | 'wallUs') {
  const names = new Map(result.methods.map((m) => [m.id, `${m.className}.${m.name}`]))
  return result.records.map((r) => ({
    tid: r.threadId,
    action: r.action === 'enter' ? 'ent' : 'xit',
    us: r[clock] ?? -1,
    method: names.get(r.methodId) ?? '?',
  }))
}

/** Per-method exclusive time from the intended records (per thread stacks). */
function exclusiveOf(
  result: ArtProfileResult,
  clock: 'threadCpuUs' | 'wallUs',
): Map<string, number> {
  const names = new Map(result.methods.map((m) => [m.id, `${m.className}.${m.name}`]))
  const stacks = new Map<number, { method: string; last: number }[]>()
  const excl = new Map<string, number>()
  for (const r of result.records) {
    const t = r[clock] ?? 0
    const stack = stacks.get(r.threadId) ?? []
    stacks.set(r.threadId, stack)
    const top = stack.at(-1)
    if (top !== undefined) excl.set(top.method, (excl.get(top.method) ?? 0) + t - top.last)
    if (r.action === 'enter') stack.push({ method: names.get(r.methodId) ?? '?', last: t })
    else stack.pop()
    const parent = stack.at(-1)
    if (parent !== undefined) parent.last = t
  }
  return excl
}

describe('am profile', () => {
  test('refuses an app that is neither debuggable nor profileable, like a release phone', async () => {
    const app = validateAppModel({ ...DEMO_APP_MODEL, profileable: false, debuggable: false })
    const h = harness({ app })
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    const r = await h.sh('am profile start com.example.trails /data/local/tmp/x.trace')
    expect(r.status).toBe(255)
    expect(r.err).toMatch(
      /^Exception occurred while executing 'profile':\njava\.lang\.SecurityException: Process not debuggable, and not profileable by shell: com\.example\.trails\n\tat /,
    )
    expect(h.device.fs.stat('/data/local/tmp/x.trace')).toBeUndefined()
  })

  test('an unknown process is an IllegalArgumentException', async () => {
    const h = harness()
    const r = await h.sh('am profile start com.example.trails /data/local/tmp/x.trace')
    expect(r.err).toContain(
      'java.lang.IllegalArgumentException: Unknown process: com.example.trails',
    )
  })

  test('the written file parses with our reader and matches the intended records', async () => {
    const h = harness()
    const result = await profiledSession(h, '')
    const trace = parseArtTrace(result.bytes)
    expect(trace.clock).toBe('dual')
    expect(trace.overflow).toBe(false)
    expect(result.records.length).toBeGreaterThan(1000)
  })

  test('a small trace buffer overflows: data-file-overflow=true and the tail is missing', async () => {
    const h = harness({ traceBufferBytes: 32 + 14 * 100 })
    const result = await profiledSession(h, '')
    expect(result.overflow).toBe(true)
    expect(result.records).toHaveLength(100)
    expect(new TextDecoder().decode(result.bytes.slice(0, 200))).toContain(
      'data-file-overflow=true',
    )
  })

  for (const [label, flags, clock] of [
    ['dual clock (default)', '', 'threadCpuUs'],
    ['wall clock', '--clock-type wall', 'wallUs'],
    ['thread-cpu clock', '--clock-type thread-cpu', 'threadCpuUs'],
    ['sampling 1000 µs', '--sampling 1000', 'threadCpuUs'],
  ] as const) {
    test.skipIf(!hasDmtracedump)(
      `${label}: dmtracedump -o prints exactly the intended records`,
      async () => {
        const h = harness()
        const result = await profiledSession(h, flags)
        const printed = dmtraceRecords(result.bytes)
        expect(printed.length).toBe(result.records.length)
        expect(printed).toEqual(intended(result, clock))
        const excl = dmtraceExclusive(result.bytes)
        const ours = exclusiveOf(result, clock)
        expect(excl.size).toBeGreaterThan(0)
        for (const [method, us] of ours) expect(excl.get(method), method).toBe(us)
      },
    )
  }

  test.skipIf(!hasDmtracedump)(
    'streaming: our reader decodes it; re-encoded as a legacy file, dmtracedump prints the intended records',
    async () => {
      // Debian's dmtracedump predates the streaming layout ("not at start of version"), like
      // Android Studio's converter we go through the legacy layout to cross-check it.
      const h = harness()
      const result = await profiledSession(h, '--streaming')
      const bytes = result.bytes
      expect(new TextDecoder().decode(bytes.slice(0, 4))).toBe('SLOW')
      const trace = parseArtTrace(bytes)
      expect(trace.layout).toBe('streaming')
      expect(trace.records).toEqual(result.records)
      const legacy = writeArtTrace({
        clock: trace.clock,
        threads: trace.threads,
        methods: trace.methods,
        startTimeUs: trace.startTimeUs,
        elapsedTimeUs: trace.elapsedTimeUs ?? 0,
        records: trace.records,
      })
      expect(dmtraceRecords(legacy)).toEqual(intended(result, 'threadCpuUs'))
    },
  )

  test('full tracing slows the app (deoptimized, per-call cost); sampling does not', async () => {
    const cpuOf = async (flags: string | undefined) => {
      const h = harness({ cpuJitter: 0 })
      await h.sh('am start -W -n com.example.trails/.MainActivity')
      if (flags !== undefined)
        await h.sh(`am profile start ${flags} com.example.trails /data/local/tmp/o.trace`)
      const from = h.clock.nowNs('boottime')
      await h.sh(`input tap ${centerOf(h.phone, 'refresh')}`)
      await h.sh('sleep 1')
      const gt = h.phone.sim.groundTruth(from, h.clock.nowNs('boottime'))
      if (flags !== undefined) await h.sh('am profile stop com.example.trails')
      return (
        gt.methods.find((m) => m.method.endsWith('FeedRepository.refresh'))?.inclusiveCpuNs ?? 0
      )
    }
    const plain = await cpuOf(undefined)
    const sampled = await cpuOf('--sampling 1000')
    const traced = await cpuOf('')
    expect(sampled).toBe(plain)
    // 1 + 12 + 720 calls: factor 1.5 on their own time plus 1.5 µs each.
    expect(traced).toBe(Math.round(plain * 1.5) + 733 * 1500)
  })

  test('am start --start-profiler traces the cold start until am profile stop', async () => {
    // Everything the trace depends on is fixed by the harness (fast clock that only moves when a
    // command sleeps, seeded simulation, fixed wall clock), so the same session gives the same bytes.
    const coldStart = async () => {
      const h = harness()
      const fromNs = h.clock.nowNs('boottime')
      const r = await h.sh(
        'am start -W --start-profiler /data/local/tmp/start.trace -n com.example.trails/.MainActivity',
      )
      const stopNs = h.clock.nowNs('boottime')
      expect(await h.sh('am profile stop com.example.trails')).toEqual({
        out: '',
        err: '',
        status: 0,
      })
      return { h, r, fromNs, stopNs, bytes: h.device.fs.readFile('/data/local/tmp/start.trace') }
    }
    const { h, r, fromNs, stopNs, bytes } = await coldStart()
    expect(r.status).toBe(0)
    const totalMs = Math.round((stopNs - fromNs) / 1e6)
    expect(r.out).toBe(
      `Starting: Intent { cmp=com.example.trails/.MainActivity }\nStatus: ok\nLaunchState: COLD\nActivity: com.example.trails/.MainActivity\nTotalTime: ${totalMs}\nWaitTime: ${totalMs + 3}\nComplete\n`,
    )
    expect(bytes).toEqual(h.phone.lastArtProfile?.bytes)
    const trace = parseArtTrace(bytes)
    // From process start to the stop command, which ran right after `-W` returned.
    expect(trace.elapsedTimeUs).toBe(Math.floor((stopNs - fromNs) / 1000))
    const names = trace.methods.map((m) => `${m.className}.${m.name}`)
    expect(names).toContain('com.example.trails.MainActivity.onResume')
    expect(names).toContain('com.example.trails.FeedRepository.load')
    expect((await coldStart()).bytes).toEqual(bytes)
    const app = validateAppModel({ ...DEMO_APP_MODEL, profileable: false })
    const silent = harness({ app })
    await silent.sh(
      'am start -W -P /data/local/tmp/start.trace -n com.example.trails/.MainActivity',
    )
    expect(silent.phone.artProfile).toBeUndefined()
    expect(silent.device.fs.stat('/data/local/tmp/start.trace')).toBeUndefined()
  })

  test('sampling traces only change stacks at sample times', async () => {
    const h = harness()
    const result = await profiledSession(h, '--sampling 1000')
    for (const r of result.records) expect((r.wallUs ?? 0) % 1000).toBe(0)
  })
})
