/**
 * `perfetto` with a `linux.ftrace` sched_switch data source on the virtual device, and the CPU
 * topology in sysfs: through the shell harness, and end to end over adbkit against the
 * simulation's ground truth.
 */
import type { Client } from '@devicefarmer/adbkit'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { adbkit, adbkitPull, adbkitShell } from './_adbkit.js'
import { TraceType } from '../../../src/formats/perfetto/_schema.js'
import { decodePowerTrace } from '../../../src/formats/perfetto/index.js'
import type { CpuSlice } from '../../../src/model/samples.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../../src/virtual-device/index.js'
import { frequencyChanges, idleChanges } from '../../../src/virtual-device/sim/cpu-schedule.js'
import type { GroundTruth, Simulation } from '../../../src/virtual-device/sim/simulation.js'
import { centerOf, harness } from './_harness.js'

const SCHED = `buffers { size_kb: 8192 }
data_sources {
  config {
    name: "linux.ftrace"
    ftrace_config {
      ftrace_events: "sched/sched_switch"
      COMPACT
    }
  }
}
`

function config(compact: 'default' | 'on' | 'off'): string {
  const line =
    compact === 'default' ? '' : `compact_sched { enabled: ${compact === 'on' ? 'true' : 'false'} }`
  return SCHED.replace('COMPACT', line)
}

/** On-CPU ns per tid in [from, to], straight from the simulation's execution slices. */
function simCpuNs(sim: Simulation, from: number, to: number): Map<number, number> {
  const byTid = new Map<number, number>()
  for (const s of sim.slices) {
    const ns = Math.min(s.endNs, to) - Math.max(s.startNs, from)
    if (ns > 0) byTid.set(s.tid, (byTid.get(s.tid) ?? 0) + ns)
  }
  return byTid
}

function decodedCpuNs(slices: readonly CpuSlice[]): Map<number, number> {
  const byTid = new Map<number, number>()
  for (const s of slices) byTid.set(s.tid, (byTid.get(s.tid) ?? 0) + s.endNs - s.startNs)
  return byTid
}

describe('sysfs CPU topology (Pixel 6 profile: 4 little, 2 mid, 2 big)', () => {
  test('possible/present/online and one cpufreq policy per cluster with its related_cpus', async () => {
    const h = harness()
    for (const name of ['possible', 'present', 'online']) {
      expect(await h.sh(`cat /sys/devices/system/cpu/${name}`)).toMatchObject({
        out: '0-7\n',
        status: 0,
      })
    }
    expect(
      (await h.sh('ls /sys/devices/system/cpu/cpufreq')).out.split(/\s+/).filter(Boolean),
    ).toEqual(['policy0', 'policy4', 'policy6'])
    const related = await h.sh(
      'cat /sys/devices/system/cpu/cpufreq/policy0/related_cpus /sys/devices/system/cpu/cpufreq/policy4/related_cpus /sys/devices/system/cpu/cpufreq/policy6/related_cpus',
    )
    expect(related.out).toBe('0 1 2 3\n4 5\n6 7\n')
  })

  test("scaling_cur_freq follows the governor: one of scaling_available_frequencies, the cluster's decision now", async () => {
    const h = harness({ physics: 'phone' })
    const policy = '/sys/devices/system/cpu/cpufreq/policy4'
    const available = (await h.sh(`cat ${policy}/scaling_available_frequencies`)).out
    expect(available).toMatch(/^(\d+ )+\n$/)
    const table = available.trim().split(' ').map(Number)
    expect(table[0]).toBe(400_000)
    expect((await h.sh(`cat ${policy}/cpuinfo_max_freq`)).out).toBe(`${table.at(-1)}\n`)
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    await h.sh(`input tap ${centerOf(h.phone, 'refresh')}`)
    for (let i = 0; i < 10; i++) {
      await h.sh('sleep 0.05')
      const khz = Number((await h.sh(`cat ${policy}/scaling_cur_freq`)).out)
      expect(table).toContain(khz)
      expect(khz).toBe(h.phone.sim.governors[1]?.freqAt(h.clock.nowNs('boottime')))
    }
  })
})

describe('perfetto linux.ftrace sched_switch (shell harness)', () => {
  async function session(compact: 'default' | 'on' | 'off') {
    const h = harness()
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    const pid = (
      await h.sh('perfetto -c - --txt -o /data/local/tmp/s.pftrace --background', config(compact))
    ).out.trim()
    for (const widget of ['refresh', 'feed-list', 'refresh']) {
      await h.sh(`input tap ${centerOf(h.phone, widget)}`)
      await h.sh('sleep 1')
    }
    await h.sh(`kill ${pid}`)
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
    return { h, bytes: h.device.fs.readFile('/data/local/tmp/s.pftrace') }
  }

  test('compact by default (perfetto v42+), plain with compact_sched { enabled: false }; same slices', async () => {
    const runs = await Promise.all((['default', 'on', 'off'] as const).map(session))
    const layouts = runs.map(({ bytes }) => {
      const trace = TraceType.toObject(TraceType.decode(bytes), { defaults: false }) as {
        packet: Array<{ ftrace_events?: { compact_sched?: unknown; event?: unknown[] } }>
      }
      const bundles = trace.packet.flatMap((p) =>
        p.ftrace_events === undefined ? [] : [p.ftrace_events],
      )
      return {
        bundles: bundles.length,
        compact: bundles.some((b) => b.compact_sched !== undefined),
        plain: bundles.some((b) => (b.event?.length ?? 0) > 0),
      }
    })
    expect(layouts).toEqual([
      { bundles: 8, compact: true, plain: false },
      { bundles: 8, compact: true, plain: false },
      { bundles: 8, compact: false, plain: true },
    ])
    const schedules = runs.map(({ bytes }) => decodePowerTrace(bytes).schedule)
    // main once per tap (taps are a second apart); the feed pool's two threads for the list tap
    const comms = schedules[0]?.slices.map((s) => s.comm)
    expect(comms?.sort()).toEqual(['main', 'main', 'main', 'pool-1-thread-1', 'pool-1-thread-2'])
    expect(schedules[1]).toEqual(schedules[0])
    expect(schedules[2]).toEqual(schedules[0])
  })

  test('periodic work that fell due while nothing touched the simulation is in the trace', async () => {
    const h = harness()
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    await h.sh(`input tap ${centerOf(h.phone, 'sync')}`)
    const pid = (
      await h.sh('perfetto -c - --txt -o /data/local/tmp/s.pftrace --background', config('on'))
    ).out.trim()
    await h.sh(`input tap ${centerOf(h.phone, 'sync-now')}`)
    const tapNs = h.clock.nowNs('boottime')
    await h.sh(`sleep 9; kill ${pid}`)
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
    const slices = decodePowerTrace(h.device.fs.readFile('/data/local/tmp/s.pftrace')).schedule
      ?.slices
    const worker = slices?.filter((s) => s.comm === 'SyncWorker')
    // syncAll at the tap, then SyncManager.poll every 4 s
    expect(worker?.map((s) => Math.round((s.startNs - tapNs) / 1e9))).toEqual([0, 4, 8])
  })

  /**
   * A tap on the phone physics and 1 s more, recorded with these `ftrace_config` lines in place of
   * the plain sched_switch one.
   */
  async function recordTap(ftrace: string) {
    const h = harness({ physics: 'phone' })
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    const text = SCHED.replace('ftrace_events: "sched/sched_switch"', ftrace).replace('COMPACT', '')
    const from = h.clock.nowNs('boottime')
    const pid = (
      await h.sh('perfetto -c - --txt -o /data/local/tmp/f.pftrace --background', text)
    ).out.trim()
    await h.sh(`input tap ${centerOf(h.phone, 'refresh')}; sleep 1; kill ${pid}`)
    const to = h.clock.nowNs('boottime')
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
    const schedule = decodePowerTrace(h.device.fs.readFile('/data/local/tmp/f.pftrace')).schedule
    return { h, from, to, schedule }
  }

  test("power/cpu_frequency only when the config lists it (phone physics): the governor's changes, per CPU", async () => {
    const without = await recordTap('ftrace_events: "sched/sched_switch"')
    expect(frequencyChanges(without.h.phone.sim, without.from, without.to).length).toBeGreaterThan(
      0,
    )
    expect(without.schedule?.slices.length).toBeGreaterThan(0)
    expect(
      without.schedule?.frequencies,
      'sched_switch alone: no cpu_frequency events',
    ).toBeUndefined()
    for (const ftrace of [
      'ftrace_events: "sched/sched_switch" ftrace_events: "power/cpu_frequency"',
      'ftrace_events: "sched/sched_switch" ftrace_events: "power/*"',
    ]) {
      const { from, to, schedule } = await recordTap(ftrace)
      const decoded = schedule?.frequencies ?? []
      expect(decoded.length, ftrace).toBeGreaterThan(0)
      expect(decoded.every((c) => c.tNs >= from && c.tNs < to)).toBe(true)
    }
  })

  test('power/cpu_idle only when the config asks (the event, power/*, atrace idle): an entry where a core’s slices stop, an exit where they resume', async () => {
    const without = await recordTap('ftrace_events: "sched/sched_switch"')
    expect(without.schedule?.slices.length).toBeGreaterThan(0)
    expect(without.schedule?.idle, 'sched_switch alone: no cpu_idle events').toBeUndefined()
    for (const ftrace of [
      'ftrace_events: "sched/sched_switch" ftrace_events: "power/cpu_idle"',
      'ftrace_events: "sched/sched_switch" ftrace_events: "power/*"',
      'ftrace_events: "sched/sched_switch" atrace_categories: "idle"',
    ]) {
      const { h, from, to, schedule } = await recordTap(ftrace)
      const idle = schedule?.idle ?? []
      expect(idle, ftrace).toEqual(idleChanges(h.phone.sim, from, to))
      expect(new Set(idle.map((c) => c.state))).toEqual(new Set([-1, 0, 1]))
      // Against the decoded sched_switch slices: per CPU, every entry is where a stretch of
      // slices stops before the stop, every exit where one starts after a gap.
      for (const cpu of schedule?.cpus ?? []) {
        const stretches: [number, number][] = []
        for (const s of schedule?.slices.filter((x) => x.cpu === cpu) ?? []) {
          const last = stretches.at(-1)
          if (last !== undefined && s.startNs === last[1]) last[1] = s.endNs
          else stretches.push([s.startNs, s.endNs])
        }
        const own = idle.filter((c) => c.cpu === cpu)
        expect(own.filter((c) => c.state >= 0).map((c) => c.tNs)).toEqual(
          stretches.map(([, end]) => end).filter((end) => end < to),
        )
        // (A stretch starting right at the session's start may have run before it: not compared.)
        expect(own.filter((c) => c.state === -1 && c.tNs > from).map((c) => c.tNs)).toEqual(
          stretches.map(([start]) => start).filter((start) => start > from),
        )
      }
    }
  })

  test('a thread already running when the session starts gets a switch at the start', async () => {
    const h = harness()
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    await h.sh(`input tap ${centerOf(h.phone, 'refresh')}; sleep 0.001`)
    const from = h.clock.nowNs('boottime')
    const pid = (
      await h.sh('perfetto -c - --txt -o /data/local/tmp/s.pftrace --background', config('on'))
    ).out.trim()
    await h.sh(`sleep 1; kill ${pid}`)
    const to = h.clock.nowNs('boottime')
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
    const slices =
      decodePowerTrace(h.device.fs.readFile('/data/local/tmp/s.pftrace')).schedule?.slices ?? []
    expect(slices[0]).toMatchObject({ comm: 'main', startNs: from })
    expect([...decodedCpuNs(slices)]).toEqual([...simCpuNs(h.phone.sim, from, to)])
  })

  test('no linux.ftrace data source: no scheduler data; an idle phone: an empty schedule of 8 CPUs', async () => {
    const h = harness()
    const power =
      'data_sources { config { name: "android.power" android_power_config { collect_power_rails: true } } } duration_ms: 1000'
    await h.sh('perfetto -c - --txt -o /data/local/tmp/p.pftrace', power)
    expect(
      decodePowerTrace(h.device.fs.readFile('/data/local/tmp/p.pftrace')).schedule,
    ).toBeUndefined()
    await h.sh(
      'perfetto -c - --txt -o /data/local/tmp/i.pftrace',
      `${config('default')} duration_ms: 1000`,
    )
    expect(decodePowerTrace(h.device.fs.readFile('/data/local/tmp/i.pftrace')).schedule).toEqual({
      source: 'perfetto.sched_switch',
      clock: 'boottime',
      slices: [],
      cpus: [0, 1, 2, 3, 4, 5, 6, 7],
      lostEvents: false,
    })
  })
})

const shell = adbkitShell

const pull = adbkitPull

/** Center of a widget in a uiautomator dump, by content-desc. */
function tapTarget(xml: string, desc: string): string {
  const m = new RegExp(
    `content-desc="${desc}"[^>]*bounds="\\[(\\d+),(\\d+)\\]\\[(\\d+),(\\d+)\\]"`,
  ).exec(xml)
  if (m === null) throw new Error(`~${desc} not in dump`)
  const [l, t, r, b] = m.slice(1, 5).map(Number) as [number, number, number, number]
  return `${Math.floor((l + r) / 2)} ${Math.floor((t + b) / 2)}`
}

describe('over adb: the decoded schedule is the simulation ground truth', () => {
  let server: VirtualDeviceServer
  let c: Client
  beforeAll(async () => {
    server = await startVirtualDevice({ time: 'fast', seed: 21 })
    c = adbkit.Adb.createClient({ host: '127.0.0.1', port: server.port, bin: '/nonexistent-adb' })
  })
  afterAll(async () => {
    await server.close()
  })

  test('per thread, on its cluster, to the ns; lazily scheduled periodic work included', async () => {
    const serial = server.serials[0] ?? ''
    const sim = server.devices[0]?.phone.sim
    if (sim === undefined) throw new Error('no phone')
    await shell(c, serial, 'am start -W -n com.example.trails/.MainActivity')
    const sched =
      'buffers { size_kb: 8192 } data_sources { config { name: "android.power" android_power_config { battery_poll_ms: 250 collect_power_rails: true } } } data_sources { config { name: "linux.ftrace" ftrace_config { ftrace_events: "sched/sched_switch" } } }'
    const pid = (
      await shell(
        c,
        serial,
        `echo '${sched}' | perfetto -c - --txt -o /data/misc/perfetto-traces/s.pftrace --background`,
      )
    ).trim()
    expect(pid).toMatch(/^\d+$/)
    await shell(c, serial, 'uiautomator dump /data/local/tmp/ui.xml')
    let xml = (await pull(c, serial, '/data/local/tmp/ui.xml')).toString('utf8')
    await shell(c, serial, `input tap ${tapTarget(xml, 'feed-list')}; sleep 1`)
    await shell(c, serial, `input tap ${tapTarget(xml, 'sync')}`)
    await shell(c, serial, 'uiautomator dump /data/local/tmp/ui.xml')
    xml = (await pull(c, serial, '/data/local/tmp/ui.xml')).toString('utf8')
    await shell(c, serial, `input tap ${tapTarget(xml, 'sync-now')}`)
    const lastActionNs = Number(await shell(c, serial, 'vdev now'))
    // Nothing touches the simulation for 9 s: the sync polls due at +4 s and +8 s exist only once
    // something asks for that time.
    await shell(c, serial, 'sleep 9')
    await shell(c, serial, `kill ${pid}; sleep 0.1`)

    const trace = decodePowerTrace(
      new Uint8Array(await pull(c, serial, '/data/misc/perfetto-traces/s.pftrace')),
    )
    const schedule = trace.schedule
    if (schedule === undefined) throw new Error('no schedule in the trace')
    expect(trace.warnings).toEqual([])
    expect(trace.rails.length).toBe(11) // with the phone physics' GPU and memory rails
    expect(schedule.cpus).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    expect(schedule.lostEvents).toBe(false)
    const boot = (snapshot: (typeof trace.clockSnapshots)[number] | undefined): number =>
      snapshot?.find((c) => c.clock === 'boottime')?.timestampNs ?? Number.NaN
    const from = boot(trace.clockSnapshots[0])
    const to = boot(trace.clockSnapshots.at(-1))
    expect(to - from).toBe(10e9)
    expect(lastActionNs).toBeLessThan(to - 8.5e9)

    // Per thread: the decoded on-CPU time equals the simulation's, exactly.
    const expected = simCpuNs(sim, from, to)
    const decoded = decodedCpuNs(schedule.slices)
    expect([...decoded.keys()].sort()).toEqual([...expected.keys()].sort())
    for (const [tid, ns] of expected) expect(decoded.get(tid), `tid ${tid}`).toBe(ns)
    // In total, the ground truth's per-method self CPU time (vdev ground-truth over adb).
    const gt = JSON.parse(
      await shell(c, serial, `vdev ground-truth --from ${from} --to ${to}`),
    ) as GroundTruth
    // With the phone physics, the other processes' CPU time is theirs (never a method's).
    const selfCpuNs = gt.methods.reduce((sum, m) => sum + m.selfCpuNs, 0)
    const otherCpuNs = gt.processes.reduce((sum, p) => sum + p.cpuNs, 0)
    expect(otherCpuNs).toBeGreaterThan(0)
    const appTids = new Set(sim.threadList().map((t) => t.tid))
    const onCpu = (slices: readonly CpuSlice[]): number =>
      slices.reduce((sum, s) => sum + s.endNs - s.startNs, 0)
    expect(onCpu(schedule.slices.filter((s) => appTids.has(s.tid)))).toBe(selfCpuNs)
    expect(onCpu(schedule.slices.filter((s) => !appTids.has(s.tid)))).toBe(otherCpuNs)

    // Each app thread's slice is on a core the simulation ran that thread on (threads migrate
    // between calls), inside that core's cluster as sysfs reports it; comms are thread names as the
    // kernel keeps them.
    const related = new Map<number, number[]>()
    for (const policy of (await shell(c, serial, 'ls /sys/devices/system/cpu/cpufreq')).split(
      /\s+/,
    )) {
      if (policy === '') continue
      const cpus = (
        await shell(c, serial, `cat /sys/devices/system/cpu/cpufreq/${policy}/related_cpus`)
      )
        .trim()
        .split(' ')
        .map(Number)
      for (const cpu of cpus) related.set(cpu, cpus)
    }
    for (const s of schedule.slices) {
      if (!appTids.has(s.tid)) {
        // Another process's thread, named as the kernel keeps it, on a CPU of the phone.
        expect(s.comm, `tid ${s.tid}`).toBe(sim.commOf(s.tid))
        expect(related.has(s.cpu)).toBe(true)
        continue
      }
      const thread = sim.threadByTid(s.tid)
      expect(thread, `tid ${s.tid}`).toBeDefined()
      const ran = sim.slices.find(
        (x) => x.tid === s.tid && x.core === s.cpu && x.startNs < s.endNs && x.endNs > s.startNs,
      )
      expect(ran, `${thread?.name} on cpu ${s.cpu}`).toBeDefined()
      const cluster = sim.power.clusters[ran?.cluster ?? -1]
      expect(related.get(s.cpu)?.[0], thread?.name).toBe(cluster?.firstCore)
      expect(s.comm).toBe(thread?.name.slice(0, 15))
    }
    const names = new Set(schedule.slices.map((s) => s.comm))
    expect(names).toContain('main')
    expect(names).toContain('pool-1-thread-1')
    for (const other of ['surfaceflinger', 'InputReader', 'RenderThread', 'kworker/u16:2']) {
      expect(names).toContain(other)
    }

    // The SyncWorker ran at the sync and again for each poll after the last command.
    const worker = sim.threadList().find((t) => t.name === 'SyncWorker')
    // (Slices come by CPU, then start: the polls may run on different cores.)
    const polls = schedule.slices
      .filter((s) => s.tid === worker?.tid && s.startNs > lastActionNs + 3e9)
      .sort((a, b) => a.startNs - b.startNs)
    expect(polls.map((s) => Math.round((s.startNs - lastActionNs) / 1e9))).toEqual([4, 8])
  })
})
