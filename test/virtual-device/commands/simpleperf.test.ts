import { describe, expect, test } from 'vitest'
import { parseSimpleperf } from '../../../src/formats/simpleperf/index.js'
import { centerOf, harness } from './_harness.js'

const RECORD =
  'simpleperf record --app com.example.trails -e task-clock -f 1000 --call-graph dwarf --clockid monotonic_raw -o /data/local/tmp/perf.data'

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
}

describe('simpleperf', () => {
  test('record in the background, stop with kill -INT, report-sample with task-clock semantics', async () => {
    const h = harness()
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    const started = await h.sh(`${RECORD} & echo $!`)
    const pid = Number(started.out.trim())
    expect((await h.sh('pidof simpleperf')).out.trim()).toBe(String(pid))
    const from = h.clock.nowNs('boottime')
    await h.sh(`input tap ${centerOf(h.phone, 'refresh')}`)
    await h.sh(`input tap ${centerOf(h.phone, 'feed-list')}`)
    await h.sh('sleep 2')
    const to = h.clock.nowNs('boottime')
    expect((await h.sh(`kill -INT ${pid}`)).status).toBe(0)
    await settle()
    expect((await h.sh('pidof simpleperf')).status).not.toBe(0)
    const report = await h.sh(
      'simpleperf report-sample --show-callchain -i /data/local/tmp/perf.data',
    )
    expect(report.status).toBe(0)
    expect(
      report.out.startsWith('meta_info:\n  trace_offcpu: false\n  event_type: task-clock\n'),
    ).toBe(true)
    const parsed = parseSimpleperf(new TextEncoder().encode(report.out))
    const samples = parsed.samples
    expect(samples.length).toBeGreaterThan(10)
    // Task-clock: per thread, one sample per full millisecond of on-CPU time in the window.
    const cpuByTid = new Map<number, number>()
    for (const s of h.phone.sim.slices) {
      const ns = Math.min(s.endNs, to) - Math.max(s.startNs, from)
      if (ns > 0) cpuByTid.set(s.tid, (cpuByTid.get(s.tid) ?? 0) + ns)
    }
    for (const [tid, ns] of cpuByTid) {
      const count = samples.filter((s) => s.threadId === tid).length
      expect(count, `thread ${tid}`).toBe(Math.floor(ns / 1_000_000))
    }
    const symbols = samples.flatMap((s) => s.frames.map((f) => f.symbol))
    expect(symbols).toContain('com.example.trails.ElevationProfile.smooth')
    const leafSmooth = samples.find((s) => s.frames[0]?.symbol.endsWith('ElevationProfile.smooth'))
    expect(leafSmooth?.frames.map((f) => f.symbol).slice(0, 3)).toEqual([
      'com.example.trails.ElevationProfile.smooth',
      'com.example.trails.FeedAdapter.bind',
      expect.stringMatching(/FeedRepository\.refresh|FeedAdapter\.onScrolled/),
    ])
    expect(leafSmooth?.frames.at(-1)?.symbol).toBe('__start_thread')
    for (const s of samples) expect(s.eventCount).toBe(1_000_000)
  })

  test('without --show-callchain the chain is cut to the sampled frame', async () => {
    const h = harness()
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    await h.sh(`${RECORD.replace('-o', '--duration 1 -o')} &`)
    await h.sh(`input tap ${centerOf(h.phone, 'feed-list')}`)
    await h.sh('sleep 2')
    await settle()
    const report = await h.sh('simpleperf report-sample -i /data/local/tmp/perf.data')
    expect(report.out).not.toContain('callchain:')
    expect(report.out).toContain('symbol: com.example.trails.')
  })

  test('errors: no such app process, missing file, not a recording', async () => {
    const h = harness()
    const r = await h.sh(RECORD)
    expect(r.status).toBe(1)
    expect(r.err).toContain("Can't find process of app com.example.trails")
    const missing = await h.sh('simpleperf report-sample -i /data/local/tmp/none.data')
    expect(missing.err).toContain('No such file or directory')
    await h.sh('echo hello > /data/local/tmp/bad.data')
    expect((await h.sh('simpleperf report-sample -i /data/local/tmp/bad.data')).err).toContain(
      'is not a valid perf.data file',
    )
  })
})
