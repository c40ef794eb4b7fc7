/**
 * A calibration's busy loop on the virtual phone, over ADB as the product runs it: `taskset 40 yes
 * > /dev/null &` keeps cpu6 busy — `sched_switch` shows `yes` there, the big cluster's governor
 * goes to its top step, the ground truth charges the process that core's true current, its
 * cluster's and its share of `cpu.active` — until `kill`. On the fast clock (benchmarks) and on
 * the real one (demo, Appium).
 */
import type { Client } from '@devicefarmer/adbkit'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { decodePowerTrace } from '../../../src/formats/perfetto/index.js'
import {
  startVirtualDevice,
  type GroundTruth,
  type SiliconReport,
  type VirtualDeviceServer,
} from '../../../src/virtual-device/index.js'
import { adbkitClient, adbkitPull, adbkitShell } from './_adbkit.js'

/** A text config on one line (the shell has no here-documents). */
const TRACE =
  'buffers { size_kb: 8192 } data_sources { config { name: "linux.ftrace" ftrace_config { ftrace_events: "sched/sched_switch" ftrace_events: "power/cpu_frequency" ftrace_events: "power/cpu_idle" } } }'

describe('taskset + yes over adb, fast clock', () => {
  let server: VirtualDeviceServer
  let c: Client
  let serial: string
  const sh = (line: string): Promise<string> => adbkitShell(c, serial, line)
  const now = async (): Promise<number> => Number(await sh('vdev now'))
  const truth = async (from: number, to: number): Promise<GroundTruth> =>
    JSON.parse(await sh(`vdev ground-truth --from ${from} --to ${to}`)) as GroundTruth

  beforeAll(async () => {
    server = await startVirtualDevice({ time: 'fast', seed: 5 })
    c = adbkitClient(server.port)
    serial = server.serials[0] ?? ''
  })
  afterAll(async () => {
    await server.close()
  })

  test('yes on cpu6 for 2 s: in sched_switch, at the top frequency, charged as its own process; gone after kill', async () => {
    const perfetto = (
      await sh(
        `echo '${TRACE}' | perfetto -c - --txt -o /data/misc/perfetto-traces/cal.pftrace --background`,
      )
    ).trim()
    expect(perfetto).toMatch(/^\d+$/)
    const startNs = await now()
    const pid = (await sh('taskset 40 yes > /dev/null & echo $!')).trim()
    expect(pid).toMatch(/^\d+$/)
    expect(await sh(`pidof yes; taskset -p ${pid}`)).toBe(
      `${pid}\npid ${pid}'s current affinity mask: 40\n`,
    )
    await sh('sleep 2')
    const endNs = await now()
    expect(endNs - startNs).toBe(2e9)
    expect(await sh('ps -A -o PID,NAME')).toContain(`${pid} yes`)
    expect(await sh(`top -b -n 1 -p ${pid} -o PID,TIME+,ARGS`)).toContain(`${pid}   0:02.00 yes`)
    await sh(`kill ${perfetto}`)
    const schedule = decodePowerTrace(
      await adbkitPull(c, serial, '/data/misc/perfetto-traces/cal.pftrace'),
    ).schedule
    const mine = schedule?.slices.filter((s) => s.tid === Number(pid)) ?? []
    expect(new Set(mine.map((s) => [s.cpu, s.comm].join(' ')))).toEqual(new Set(['6 yes']))
    expect(mine.reduce((ns, s) => ns + Math.min(s.endNs, endNs) - s.startNs, 0)).toBe(2e9)
    // cpu6 never idles while it runs: its last entry into idle is before yes started.
    expect(schedule?.idle?.filter((e) => e.cpu === 6 && e.tNs > startNs && e.state >= 0)).toEqual(
      [],
    )
    const silicon = JSON.parse(await sh('vdev silicon')) as SiliconReport
    const big = silicon.clusters[2]
    if (big === undefined) throw new Error('no big cluster')
    const topKhz = Math.max(...big.speedsKhz)
    const cpu6 = schedule?.frequencies?.filter((f) => f.cpu === 6) ?? []
    expect(cpu6.at(-1)?.khz, 'the governor took the big cluster to its top step').toBe(topKhz)
    expect(cpu6.find((f) => f.khz === topKhz)!.tNs - startNs).toBeLessThan(150e6)

    const gt = await truth(startNs, endNs)
    const yes = gt.processes.find((p) => p.pid === Number(pid))
    expect(yes).toMatchObject({ process: 'yes', cpuNs: 2e9 })
    // The true silicon's currents: its core at the top step (+ the 8% memory traffic it causes),
    // the cluster's cost (alone on the cluster) and cpu.active (shared now and then with the
    // kernel threads), for 2 s; the governor's ramp and the sharing take a few percent off.
    const ma =
      (big.true.corePowerMa.at(-1) ?? 0) * 1.08 + big.true.clusterPowerMa + silicon.cpuActive.trueMa
    const boundJ = (ma / 1000) * 3.85 * 2
    expect(yes?.cpuEnergyJ).toBeLessThanOrEqual(boundJ)
    expect(yes?.cpuEnergyJ).toBeGreaterThan(0.95 * boundJ)
    // The nominal profile would have said otherwise: the silicon departs from it.
    expect(Math.abs(big.factor - 1)).toBeGreaterThanOrEqual(0.1)

    expect(await sh(`kill ${pid}; sleep 1; pidof yes; echo $?`)).toBe('1\n')
    const after = await truth(endNs + 1e6, await now())
    expect(after.processes.find((p) => p.process === 'yes')).toBeUndefined()
  })

  test('one yes per core of a cluster, killed one by one; `yes` alone (no taskset) runs on one core', async () => {
    // As the product's calibration starts them (src/session/calibration.ts).
    const started = await sh(
      'taskset 10 yes </dev/null >/dev/null 2>&1 & echo $!; taskset 20 yes </dev/null >/dev/null 2>&1 & echo $!; cat /proc/uptime',
    )
    const pids = started.trim().split('\n').slice(0, 2)
    expect(pids.every((p) => /^\d+$/.test(p))).toBe(true)
    const from = await now()
    await sh('sleep 1')
    const to = await now()
    const gt = await truth(from, to)
    expect(gt.processes.filter((p) => p.process === 'yes').map((p) => [p.pid, p.cpuNs])).toEqual(
      pids.map((p) => [Number(p), 1e9]),
    )
    await sh(`kill ${pids.join(' ')}`)
    const lone = (await sh('yes > /dev/null & echo $!')).trim()
    const t0 = await now()
    await sh('sleep 0.5')
    const t1 = await now()
    await sh(`kill -9 ${lone}`)
    const alone = await truth(t0, t1)
    expect(alone.processes.filter((p) => p.process === 'yes')).toMatchObject([
      { pid: Number(lone), cpuNs: 5e8 },
    ])
  })
})

describe('taskset + yes over adb, real-time clock', () => {
  let server: VirtualDeviceServer
  beforeAll(async () => {
    server = await startVirtualDevice({ time: 'real', seed: 6 })
  })
  afterAll(async () => {
    await server.close()
  })

  test('it runs while the host’s time passes, on its core, and stops at kill', async () => {
    const c = adbkitClient(server.port)
    const serial = server.serials[0] ?? ''
    const sh = (line: string): Promise<string> => adbkitShell(c, serial, line)
    const before = Number(await sh('vdev now'))
    const pid = Number((await sh('taskset 10 yes > /dev/null & echo $!')).trim())
    await sleep(300)
    await sh(`kill ${pid}`)
    const killed = Number(await sh('vdev now'))
    await sleep(100)
    const gt = JSON.parse(
      await sh(`vdev ground-truth --from ${before} --to ${Number(await sh('vdev now'))}`),
    ) as GroundTruth
    const yes = gt.processes.find((p) => p.pid === pid)
    expect(yes?.cpuNs).toBeGreaterThan(250e6)
    expect(yes?.cpuNs).toBeLessThanOrEqual(killed - before)
    const cores = new Set(
      server.devices[0]?.phone.sim.slices.filter((s) => s.tid === pid).map((s) => s.core),
    )
    expect(cores).toEqual(new Set([4]))
  })
})
