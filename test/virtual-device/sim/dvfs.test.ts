/**
 * The phone physics' CPUs: the governor's frequencies (DVFS), the migrating scheduler and the
 * cluster/core power split (docs/virtual-device.md, "DVFS", "Scheduler").
 */
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import type { AppModel } from '../../../src/virtual-device/sim/app-model.js'
import { cpuScheduleOf } from '../../../src/virtual-device/sim/cpu-schedule.js'
import { DEMO_APP_MODEL } from '../../../src/virtual-device/sim/demo-app.js'
import { GOVERNOR } from '../../../src/virtual-device/sim/governor.js'
import { OTHER_THREADS } from '../../../src/virtual-device/sim/other-processes.js'
import {
  buildPowerModel,
  defaultPowerProfile,
  maToW,
} from '../../../src/virtual-device/sim/power-model.js'
import type { Simulation } from '../../../src/virtual-device/sim/simulation.js'
import {
  checkCores,
  checkInvariants,
  close,
  makeSim,
  MS,
  playSession,
  sessionSteps,
} from './_sim.js'

const power = buildPowerModel(defaultPowerProfile())

/** One screen whose button runs `selfCpuMs` on the main thread and `pool` work on 4 threads. */
function busyModel(selfCpuMs: number, poolMs = 0): AppModel {
  return {
    ...DEMO_APP_MODEL,
    package: 'com.example.busy',
    initialScreen: 'home',
    screens: [
      {
        id: 'home',
        activity: '.Home',
        widgets: [
          {
            className: 'android.widget.Button',
            contentDesc: 'go',
            bounds: [0, 0, 100, 100],
            clickable: true,
            actions: {
              tap: {
                calls: [
                  { method: 'com.example.busy.Main.work', selfCpuMs },
                  ...(poolMs > 0
                    ? [
                        {
                          method: 'com.example.busy.Pool.work',
                          selfCpuMs: poolMs,
                          repeat: 12,
                          pool: { name: 'pool-1', threads: 4 },
                        },
                      ]
                    : []),
                ],
              },
            },
          },
        ],
      },
    ],
  }
}

/** The busy model's button tapped after `idleMs`; everything up to `runMs` later placed. */
function tapped(seed: number, selfCpuMs: number, idleMs: number, runMs: number) {
  const { sim, advance } = makeSim(seed, busyModel(selfCpuMs), 0, 'phone')
  sim.launch(5000)
  advance(idleMs)
  const t0 = sim.now()
  expect(sim.tap(50, 50)).toBeDefined()
  advance(runMs)
  sim.materialize(sim.now())
  return { sim, t0 }
}

/** The governor's decisions are frequencies of the table, rate-limited, in time order. */
function checkGovernors(sim: Simulation): void {
  for (const g of sim.governors) {
    const table = g.cluster.speedsKhz
    let prev: { tNs: number; khz: number } | undefined
    for (const c of g.changes) {
      expect(table).toContain(c.khz)
      if (prev !== undefined) {
        expect(c.tNs).toBeGreaterThan(prev.tNs)
        expect(c.khz).not.toBe(prev.khz)
        const limit = c.khz > prev.khz ? GOVERNOR.upRateLimitNs : GOVERNOR.downRateLimitNs
        expect(c.tNs - prev.tNs, `cluster ${g.cluster.index}`).toBeGreaterThanOrEqual(limit)
      }
      prev = c
    }
  }
  // Every slice ran at its cluster's decided frequency and drew that frequency's core current.
  for (const s of sim.slices) {
    const cluster = power.clusters[s.cluster]!
    expect(s.khz).toBe(sim.governors[s.cluster]!.freqAt(s.startNs))
    const step = cluster.speedsKhz.indexOf(s.khz)
    expect(close(s.coreW, maToW(power, cluster.corePowerMa[step]!))).toBe(true)
  }
}

/** A thread is on one core at a time, and only on cores its cpuset allows. */
function checkThreads(sim: Simulation): void {
  const byTid = new Map<number, Array<{ startNs: number; endNs: number }>>()
  for (const s of sim.slices) {
    if (s.endNs <= s.startNs) continue
    byTid.set(s.tid, [...(byTid.get(s.tid) ?? []), s])
    const cluster = power.clusters[s.cluster]!
    expect(s.core).toBeGreaterThanOrEqual(cluster.firstCore)
    expect(s.core).toBeLessThan(cluster.firstCore + cluster.cores)
    if (s.other?.cpus === 'background') expect(s.cluster).toBe(0)
    if (s.other?.cpus === 'foreground') expect([0, power.uiCluster]).toContain(s.cluster)
  }
  for (const [tid, list] of byTid) {
    list.sort((a, b) => a.startNs - b.startNs)
    for (let i = 1; i < list.length; i++) {
      expect(list[i]!.startNs, `tid ${tid}`).toBeGreaterThanOrEqual(list[i - 1]!.endNs)
    }
  }
}

describe('DVFS and the scheduler (physics: phone)', () => {
  test('under sustained load the governor ramps up within tens of ms, and down after idle', () => {
    const { sim, t0 } = tapped(1, 400, 3000, 3000)
    const main = sim.slices.filter((s) => s.tid === 5000 && s.startNs >= t0)
    const ui = sim.governors[power.uiCluster]!
    const top = Math.max(...ui.cluster.speedsKhz)
    // From a low frequency after 3 s of near idle ...
    expect(main[0]!.khz).toBeLessThan(top / 2)
    // ... to the top of the table within 100 ms of continuous work.
    const reached = main.find((s) => s.khz === top)
    expect(reached).toBeDefined()
    expect(reached!.startNs - t0).toBeLessThan(100 * MS)
    expect(reached!.startNs - t0).toBeGreaterThan(10 * MS)
    // It took longer than at the top frequency all along: the ramp ran below it.
    const end = Math.max(...main.map((s) => s.endNs))
    expect(end - t0).toBeGreaterThan((400 * MS * power.referenceFreqKhz) / top)
    // Reference work is conserved: Σ duration × f / f_ref = the call's cost (no jitter here).
    const workMs = main.reduce(
      (a, s) => a + ((s.endNs - s.startNs) * s.khz) / power.referenceFreqKhz / MS,
      0,
    )
    expect(workMs).toBeCloseTo(400, 3)
    // After the work, the next wake-up of the cluster lowers the frequency again.
    const later = ui.changes.filter((c) => c.tNs > end)
    expect(later.some((c) => c.khz < top)).toBe(true)
    checkGovernors(sim)
  })

  test('app threads migrate and share cores; the cluster cost is drawn once per busy cluster', () => {
    const { sim, advance } = makeSim(2, busyModel(50, 30), 0, 'phone')
    sim.launch(5000)
    advance(1000)
    for (let i = 0; i < 4; i++) {
      expect(sim.tap(50, 50)).toBeDefined()
      advance(700)
    }
    checkThreads(sim)
    checkCores(sim)
    const app = sim.slices.filter((s) => s.other === undefined && s.endNs > s.startNs)
    const coresOf = (tid: number) => new Set(app.filter((s) => s.tid === tid).map((s) => s.core))
    const tids = [...new Set(app.map((s) => s.tid))]
    // Four pool threads and main on a 4-core little cluster and 2-core clusters: some thread ran
    // on more than one core, and more app threads ran than the little cluster has cores.
    expect(tids.some((tid) => coresOf(tid).size > 1)).toBe(true)
    expect(tids.length).toBeGreaterThan(power.clusters[0]!.cores)
    // Cluster/core split: at an instant with k busy cores of the little cluster, its rail draws
    // k core currents at the cluster's frequency plus the cluster's cost once.
    const little = app.filter((s) => s.cluster === 0)
    const probe = little[Math.floor(little.length / 2)]!
    const t = probe.startNs + (probe.endNs - probe.startNs) / 2
    const busy = sim.slices.filter((s) => s.cluster === 0 && s.startNs <= t && s.endNs > t)
    const gt = sim.groundTruth(t - 1, t + 1)
    const expectedW =
      busy.reduce((a, s) => a + s.coreW, 0) + maToW(power, power.clusters[0]!.clusterPowerMa)
    const cl0 = power.clusters[0]!.rail
    // Only when nothing changes within the 2 ns probe.
    if (sim.slices.every((s) => s.cluster !== 0 || !(s.startNs > t - 1 && s.startNs < t + 1))) {
      expect(gt.rails[cl0]! / 2e-9).toBeCloseTo(expectedW, 9)
    }
  })

  test('the background service runs on little cores only; an app not in front too', () => {
    const { sim, advance } = makeSim(3, DEMO_APP_MODEL, undefined, 'phone')
    sim.launch(5000)
    advance(500)
    sim.keyevent(3) // home: the app is in the background cpuset
    const t0 = sim.now()
    advance(60_000)
    sim.materialize(sim.now())
    const appAfter = sim.slices.filter((s) => s.other === undefined && s.startNs > t0 + 400 * MS)
    expect(appAfter.every((s) => s.cluster === 0)).toBe(true)
    const gms = sim.slices.filter((s) => s.tid === OTHER_THREADS.gms.tid)
    expect(gms.length).toBeGreaterThan(0)
    checkThreads(sim)
  })

  test('cpu_frequency changes come with the schedule, one per CPU of the policy', () => {
    const { sim, t0 } = tapped(4, 200, 1000, 1000)
    const schedule = cpuScheduleOf(sim, t0, t0 + 1000 * MS)
    const changes = schedule.frequencies ?? []
    expect(changes.length).toBeGreaterThan(0)
    const ui = power.clusters[power.uiCluster]!
    const uiChanges = sim.governors[power.uiCluster]!.changes.filter(
      (c) => c.tNs >= t0 && c.tNs < t0 + 1000 * MS,
    )
    expect(changes.filter((c) => c.cpu === ui.firstCore).map((c) => c.khz)).toEqual(
      uiChanges.map((c) => c.khz),
    )
    expect(changes.filter((c) => c.cpu === ui.firstCore + 1).length).toBe(uiChanges.length)
    // The simple physics has one fixed frequency: no changes.
    const simple = makeSim(4, busyModel(200), 0, 'simple')
    simple.sim.launch(5000)
    expect(cpuScheduleOf(simple.sim, t0 - 1000 * MS, t0).frequencies).toBeUndefined()
  })

  test('property: frequencies in the table within rate limits, threads on one allowed core at a time, invariants hold', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), sessionSteps, (seed, steps) => {
        const { sim, advance, now: start } = makeSim(seed, DEMO_APP_MODEL, undefined, 'phone')
        sim.launch(5000)
        const elapsed = playSession(sim, advance, steps)
        advance(1000)
        const gt = sim.groundTruth(start, start + (elapsed + 1000) * MS)
        checkInvariants(gt)
        checkGovernors(sim)
        checkThreads(sim)
        checkCores(sim)
        // Other processes are never the app's: no method, no app thread.
        const otherTids = new Set<number>(Object.values(OTHER_THREADS).map((t) => t.tid))
        for (const t of sim.threadList()) expect(otherTids.has(t.tid)).toBe(false)
        for (const s of sim.slices) if (s.other !== undefined) expect(s.callId).toBe(-1)
      }),
      { numRuns: 40 },
    )
  })
})
