/**
 * A thread busy all the time (`yes` from the shell; `Simulation.spin`): placed lazily up to the
 * device's now on one core of its affinity, it drives its cluster's governor to the top, draws
 * that core's power as another process's work, is avoided by the app's placement while it holds a
 * core, and ends where it is stopped.
 */
import { describe, expect, test } from 'vitest'
import type { OtherThread } from '../../../src/virtual-device/sim/other-processes.js'
import type { Simulation } from '../../../src/virtual-device/sim/simulation.js'
import { checkCores, checkInvariants, makeSim, MS } from './_sim.js'

const yes = (pid: number): OtherThread => ({
  process: 'yes',
  pid,
  tid: pid,
  comm: 'yes',
  cpus: 'all',
})

/** Its slices, clipped to [from, to). */
function ranNs(sim: Simulation, tid: number, from: number, to: number): number {
  let ns = 0
  for (const s of sim.slices) {
    if (s.tid === tid) ns += Math.max(0, Math.min(s.endNs, to) - Math.max(s.startNs, from))
  }
  return ns
}

describe('Simulation.spin', () => {
  test('runs all the time on its one allowed core; the cluster goes to its top step; its energy is its core’s, cluster’s share and cpu.active’s share', () => {
    const s = makeSim(3, undefined, undefined, 'phone')
    const t0 = s.now
    s.sim.spin(yes(7000), () => [6])
    s.advance(2000)
    const truth = s.sim.groundTruth(t0, s.now)
    checkInvariants(truth)
    checkCores(s.sim)
    const mine = s.sim.slices.filter((x) => x.tid === 7000)
    expect(new Set(mine.map((x) => x.core))).toEqual(new Set([6]))
    expect(ranNs(s.sim, 7000, t0, s.now)).toBe(2000 * MS)
    const big = s.sim.power.clusters[2]!
    const top = Math.max(...big.speedsKhz)
    const governor = s.sim.governors[2]!
    expect(governor.freqAt(t0 + 150 * MS), 'top step within 150 ms').toBe(top)
    expect(governor.changes.filter((c) => c.tNs > t0 + 150 * MS)).toEqual([])
    const entry = truth.processes.find((p) => p.process === 'yes')
    expect(entry).toMatchObject({ pid: 7000, cpuNs: 2000 * MS })
    // Upper bound: alone at the top step for the whole 2 s (its core + 8% memory traffic, the
    // cluster's cost, all of cpu.active); the ramp and the kernel threads sharing cpu.active take
    // a few percent off.
    const p = s.sim.power
    const ma =
      big.corePowerMa.at(-1)! * (1 + p.memory.perCoreFraction) + big.clusterPowerMa + p.cpuActiveMa
    const bound = (ma / 1000) * p.voltageV * 2
    expect(entry!.cpuEnergyJ).toBeLessThanOrEqual(bound)
    expect(entry!.cpuEnergyJ).toBeGreaterThan(0.95 * bound)
  })

  test('placed lazily: nothing past now + one tick; stop() cuts it at the then-now and frees its core', () => {
    const s = makeSim(3, undefined, undefined, 'phone')
    const t0 = s.now
    const busy = s.sim.spin(yes(7000), () => [5])
    s.advance(100)
    s.sim.materialize(s.now)
    const end = Math.max(...s.sim.slices.filter((x) => x.tid === 7000).map((x) => x.endNs))
    expect(end).toBeGreaterThan(s.now)
    expect(end).toBeLessThanOrEqual(s.now + 4 * MS)
    busy.stop()
    const stoppedAt = s.now
    s.advance(500)
    s.sim.materialize(s.now)
    expect(ranNs(s.sim, 7000, t0, s.now)).toBe(stoppedAt - t0)
    const later = s.sim.groundTruth(stoppedAt, s.now)
    expect(later.processes.find((p) => p.process === 'yes')).toBeUndefined()
    checkInvariants(later)
    checkCores(s.sim)
    busy.stop() // twice: nothing more
    expect(ranNs(s.sim, 7000, t0, s.now)).toBe(stoppedAt - t0)
  })

  test('follows its affinity as it changes (taskset -p); two of them are two processes', () => {
    const s = makeSim(5, undefined, undefined, 'phone')
    let allowed = [6]
    s.sim.spin(yes(7000), () => allowed)
    s.sim.spin(yes(7005), () => [7])
    const t0 = s.now
    s.advance(50)
    s.sim.materialize(s.now)
    allowed = [0]
    const switchNs = s.now
    s.advance(50)
    const truth = s.sim.groundTruth(t0, s.now)
    const cores = (tid: number, from: number, to: number) =>
      new Set(
        s.sim.slices
          .filter((x) => x.tid === tid && x.endNs > from && x.startNs < to)
          .map((x) => x.core),
      )
    expect(cores(7000, t0, switchNs)).toEqual(new Set([6]))
    // At its next tick it moves to the newly allowed core.
    expect(cores(7000, switchNs + 4 * MS, s.now)).toEqual(new Set([0]))
    expect(cores(7005, t0, s.now)).toEqual(new Set([7]))
    expect(truth.processes.filter((p) => p.process === 'yes').map((p) => p.pid)).toEqual([
      7000, 7005,
    ])
    checkInvariants(truth)
  })

  test('the app’s placement sees the cores it holds: with both UI cores busy, main runs elsewhere', () => {
    const s = makeSim(2, undefined, undefined, 'phone')
    s.sim.launch(4321)
    s.advance(1000)
    s.sim.spin(yes(7000), () => [4])
    s.sim.spin(yes(7005), () => [5])
    s.advance(100)
    const tapNs = s.now
    const refresh = s.sim.currentScreen()?.widgets.find((w) => w.contentDesc === 'refresh')
    s.sim.tap((refresh?.bounds[0] ?? 0) + 1, (refresh?.bounds[1] ?? 0) + 1)
    s.advance(1000)
    s.sim.materialize(s.now)
    const app = s.sim.slices.filter((x) => x.callId >= 0 && x.startNs >= tapNs)
    expect(app.length).toBeGreaterThan(0)
    expect(app.filter((x) => x.core === 4 || x.core === 5)).toEqual([])
    checkCores(s.sim)
    checkInvariants(s.sim.groundTruth(tapNs, s.now))
  })

  test('deterministic: the same spins give the same slices', () => {
    const run = () => {
      const s = makeSim(9, undefined, undefined, 'phone')
      s.sim.spin(yes(7000), () => [0, 1, 2, 3])
      s.advance(300)
      s.sim.materialize(s.now)
      return s.sim.slices.map(({ tid, core, startNs, endNs, khz }) => [
        tid,
        core,
        startNs,
        endNs,
        khz,
      ])
    }
    expect(run()).toEqual(run())
  })
})
