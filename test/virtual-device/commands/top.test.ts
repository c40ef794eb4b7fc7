import { describe, expect, test } from 'vitest'
import { cpuScheduleOf } from '../../../src/virtual-device/sim/cpu-schedule.js'
import { OTHER_THREADS } from '../../../src/virtual-device/sim/other-processes.js'
import { centerOf, harness, type Harness } from './_harness.js'

/** The phone after a launch and a tap on refresh, 0.3 s later. */
async function busy(physics: 'phone' | 'simple' = 'phone'): Promise<Harness> {
  const h = harness({ physics })
  await h.sh('am start -W -n com.example.trails/.MainActivity')
  await h.sh(`input tap ${centerOf(h.phone, 'refresh')}`)
  await h.sh('sleep 0.3')
  return h
}

/** TIME+ (m:ss.hh) in s. */
const seconds = (time: string): number => {
  const [m, s] = time.split(':')
  return Number(m) * 60 + Number(s)
}

/** CPU time per tid since boot from the sched_switch view of the simulation, s. */
function cpuByTid(h: Harness): Map<number, number> {
  const now = h.clock.nowNs('boottime')
  const byTid = new Map<number, number>()
  for (const s of cpuScheduleOf(h.phone.sim, 0, now).slices) {
    byTid.set(s.tid, (byTid.get(s.tid) ?? 0) + (s.endNs - s.startNs) / 1e9)
  }
  return byTid
}

describe('top (toybox, batch)', () => {
  test('top -b -n 1: the summary lines, the columns, the other processes with their CPU time as sched_switch has it, busiest first', async () => {
    const h = await busy()
    const r = await h.sh('top -b -n 1')
    expect(r.status).toBe(0)
    const lines = r.out.trimEnd().split('\n')
    expect(lines[0]).toMatch(
      /^Tasks: \d+ total, +\d+ running, +\d+ sleeping, +0 stopped, +0 zombie$/,
    )
    expect(lines[1]).toMatch(/^ {2}Mem: +\d+K total, +\d+K used, +\d+K free, +\d+K buffers$/)
    expect(lines[2]).toMatch(/^ Swap: +\d+K total, +\d+K used, +\d+K free, +\d+K cached$/)
    expect(lines[3]).toMatch(/^800%cpu +\d+%user +0%nice +\d+%sys +\d+%idle +0%iow/)
    expect(lines[4]).toBe('  PID USER         PR  NI VIRT  RES  SHR S[%CPU] %MEM     TIME+ ARGS')
    const rows = lines.slice(5).map((l) => l.trim().split(/\s+/))
    const byPid = new Map(rows.map((c) => [Number(c[0]), c]))
    const app = h.phone.sim.pid!
    for (const pid of [app, OTHER_THREADS.surfaceflinger.pid, OTHER_THREADS.binder.pid]) {
      expect(Number(byPid.get(pid)?.[8]), `%CPU of ${pid}`).toBeGreaterThan(0)
    }
    // TIME+ is the process's threads' running time in sched_switch, to the hundredth of a second.
    const cpu = cpuByTid(h)
    const appThreads = h.phone.sim.threadList().map((t) => t.tid)
    const appCpuS = appThreads.reduce((a, tid) => a + (cpu.get(tid) ?? 0), 0)
    expect(seconds(byPid.get(app)![10]!)).toBeCloseTo(Math.floor(appCpuS * 100) / 100, 2)
    const sf = cpu.get(OTHER_THREADS.surfaceflinger.tid) ?? 0
    expect(seconds(byPid.get(566)![10]!)).toBeCloseTo(Math.floor(sf * 100) / 100, 2)
    // Sorted by %CPU, busiest first.
    const pcts = rows.map((c) => Number(c[8]))
    expect(pcts).toEqual([...pcts].sort((a, b) => b - a))
    expect(r.out).toContain('[kworker/u16:2]')
  })

  test('top -H lists threads (THREAD, PROCESS) with the same tids as ps -T; -p, -o, -q and -m select', async () => {
    const h = await busy()
    const app = h.phone.sim.pid!
    const threads = await h.sh(`top -b -n 1 -H -p ${app}`)
    expect(threads.out.split('\n')[4]).toBe(
      '  TID USER         PR  NI VIRT  RES  SHR S[%CPU] %MEM     TIME+ THREAD          PROCESS',
    )
    const topTids = threads.out
      .trimEnd()
      .split('\n')
      .slice(5)
      .map((l) => Number(l.trim().split(/\s+/)[0]))
      .sort((a, b) => a - b)
    const ps = await h.sh(`ps -T -p ${app}`)
    expect(ps.out.split('\n')[0]).toMatch(/^USER +PID +TID +PPID +VSZ +RSS WCHAN +ADDR S CMD$/)
    const psTids = ps.out
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => Number(l.trim().split(/\s+/)[2]))
    expect(topTids).toEqual(psTids)
    expect(psTids).toEqual(h.phone.sim.threadList().map((t) => t.tid))
    expect(ps.out).toContain('RenderThread')

    const custom = await h.sh(`top -b -n 1 -q -H -p ${app} -o TID,CMD,TIME+`)
    expect(custom.out.split('\n')[0]).toMatch(/^ *\d+ \S+ +\d+:\d\d\.\d\d$/)
    expect((await h.sh('top -b -n 1 -q -m 3')).out.trimEnd().split('\n')).toHaveLength(3)
    const bad = await h.sh('top -b -n 1 -o PID,NOPE')
    expect(bad.status).toBe(1)
    expect(bad.err).toContain('bad -o NOPE')
  })

  test('simple physics: only the app’s threads ever ran', async () => {
    const h = await busy('simple')
    const rows = (await h.sh('top -b -n 1 -q')).out
      .trimEnd()
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
    const busyPids = rows.filter((c) => Number(c[8]) > 0).map((c) => Number(c[0]))
    expect(busyPids).toEqual([h.phone.sim.pid])
  })

  test('ps without -T is the base table, and ps -A -T lists the other processes’ threads', async () => {
    const h = await busy()
    expect((await h.sh('ps -A')).out.split('\n')[0]).toMatch(/^USER +PID +PPID +VSZ/)
    const all = await h.sh('ps -A -T')
    for (const t of [OTHER_THREADS.inputReader, OTHER_THREADS.binder, OTHER_THREADS.kworker]) {
      expect(all.out).toMatch(new RegExp(` ${t.pid} +${t.tid} .* ${t.comm.replace('/', '\\/')}\\n`))
    }
  })
})

describe('/proc/interrupts', () => {
  test('one column per CPU; the USB controller’s count is its threaded handler’s runs, the timer ticks with busy time', async () => {
    const h = await busy()
    const text = (await h.sh('cat /proc/interrupts')).out
    const lines = text.trimEnd().split('\n')
    expect(lines[0]!.trim().split(/\s+/)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => `CPU${i}`))
    const counts = (label: string) =>
      lines
        .find((l) => l.trimStart().startsWith(`${label}:`))!
        .trim()
        .split(/\s+/)
        .slice(1, 9)
        .map(Number)
    const runs = cpuScheduleOf(h.phone.sim, 0, h.clock.nowNs('boottime')).slices.filter(
      (s) => s.tid === OTHER_THREADS.usbIrq.tid,
    ).length
    expect(counts('317').reduce((a, b) => a + b, 0)).toBe(runs)
    expect(runs).toBeGreaterThan(0)
    expect(counts('11').reduce((a, b) => a + b, 0)).toBeGreaterThan(0)
    expect(text).toContain('arch_timer')
    expect(text).toContain('Rescheduling interrupts')
  })
})
