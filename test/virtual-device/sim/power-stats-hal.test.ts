import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { testEnergy } from '../../../src/attribution/index.js'
import { withoutRepeats } from '../../../src/collectors/power/rail-repeats.js'
import type { RailSeries } from '../../../src/model/index.js'
import { DEMO_APP_MODEL } from '../../../src/virtual-device/sim/demo-app.js'
import {
  ODPM_MIN_REFRESH_NS,
  PowerStatsHal,
  type PowerPoll,
} from '../../../src/virtual-device/sim/power-stats-hal.js'
import type { Simulation } from '../../../src/virtual-device/sim/simulation.js'
import { BOOT, makeSim, MS } from './_sim.js'

/** traced_probes' next due time after a Tick that ran at `ranNs` (grid on this clock). */
const nextDue =
  (periodMs: number) =>
  (ranNs: number): number =>
    ranNs + (periodMs - (Math.floor(ranNs / MS) % periodMs)) * MS

/** A phone busy for `busyMs` with the demo app's work plus a long loop on several threads. */
function busyPhone(seed: number, heavy: boolean): { sim: Simulation; advance(ms: number): void } {
  const { sim, advance } = makeSim(seed, DEMO_APP_MODEL, undefined, 'phone')
  sim.launch(5000)
  if (heavy) {
    sim.fire({
      calls: ['main', 'w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7'].map((thread) => ({
        method: `com.example.Load.spin`,
        selfCpuMs: 3000,
        thread,
      })),
    })
  }
  return { sim, advance }
}

function railsOf(polls: readonly PowerPoll[]): RailSeries[] {
  const byRail = new Map<string, { tNs: number; energyJ: number }[]>()
  for (const p of polls) {
    for (const m of p.meters) {
      for (const [rail, uws] of m.energyUws) {
        byRail.set(rail, [...(byRail.get(rail) ?? []), { tNs: m.stampNs, energyJ: uws / 1e6 }])
      }
    }
  }
  return [...byRail].map(([rail, readings]) => ({
    kind: 'cumulative',
    rail,
    source: 'odpm',
    clock: 'boottime',
    readings,
  }))
}

describe('the power-stats HAL timing (physics: phone)', () => {
  test('property: Ticks in time order, stamps and counters never go back, a repeated stamp is the cached reading, and the energy between readings is the ground truth', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.constantFrom(100, 250, 1000),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 0, max: 999 }),
        (seed, periodMs, heavy, ftrace, offsetMs) => {
          const { sim, advance } = busyPhone(seed, heavy)
          advance(4000)
          const hal = new PowerStatsHal(sim, seed, { stallPerLoad: 0.3 })
          const startNs = BOOT + 200 * MS + offsetMs * MS + 123_457
          const stopNs = startNs + 3000 * MS
          const polls = hal.polls(startNs, stopNs, nextDue(periodMs), () => ftrace)
          expect(polls[0]?.tickNs).toBe(startNs)
          for (let i = 1; i < polls.length; i++) {
            const a = polls[i - 1]!
            const b = polls[i]!
            expect(b.tickNs).toBeGreaterThan(a.tickNs)
            expect(b.tickNs).toBeLessThanOrEqual(stopNs)
            b.meters.forEach((m, k) => {
              const before = a.meters[k]!
              expect(m.stampNs).toBeGreaterThanOrEqual(before.stampNs)
              expect(m.stampNs % MS).toBe(0)
              if (m.stampNs === before.stampNs) {
                // Only the driver's cache repeats a stamp, with the same counters.
                expect(m.cached).toBe(true)
                expect([...m.energyUws]).toEqual([...before.energyUws])
              } else {
                // Refreshes start ≥ 50 ms apart; the stamp is the start to the ms below, and the
                // accumulators latch up to 4 ms into the refresh (two PMICs of 1–2 ms each), so
                // two latches can come that much closer than their refreshes.
                expect(m.stampNs - before.stampNs).toBeGreaterThanOrEqual(ODPM_MIN_REFRESH_NS - MS)
                expect(m.energyAtNs - before.energyAtNs).toBeGreaterThanOrEqual(
                  ODPM_MIN_REFRESH_NS - 4 * MS,
                )
              }
              for (const [rail, uws] of m.energyUws) {
                expect(uws, rail).toBeGreaterThanOrEqual(before.energyUws.get(rail)!)
              }
            })
          }
          // Conservation: each meter's counters advance by the ground truth between its latches.
          const first = polls[0]!
          const last = polls.at(-1)!
          first.meters.forEach((m, k) => {
            const end = last.meters[k]!
            if (end.energyAtNs === m.energyAtNs) return
            const gt = sim.groundTruth(m.energyAtNs, end.energyAtNs)
            for (const [rail, uws] of m.energyUws) {
              const delta = (end.energyUws.get(rail)! - uws) / 1e6
              expect(Math.abs(delta - (gt.rails[rail] ?? 0)), rail).toBeLessThanOrEqual(2e-6)
            }
          })
        },
      ),
      { numRuns: 25, examples: [[4, 250, false, false, 0]] },
    )
  })

  test('property: two overlapping sessions, the later-started one worked out last (a window read in the background), each see counters that never go back', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 50, max: 5000 }),
        (seed, backUs) => {
          const { sim, advance } = busyPhone(seed, false)
          advance(4000)
          const hal = new PowerStatsHal(sim, seed)
          const first = hal.polls(BOOT + 500 * MS, BOOT + 1300 * MS, nextDue(100), () => true)
          // The second starts just before the first's last Tick: its start reads the meters
          // afresh, and its first Tick finds the refresh the first session made.
          const lastTickNs = first.at(-1)!.tickNs
          const startNs = lastTickNs - backUs * 1e3
          const second = hal.polls(startNs, startNs + 400 * MS, nextDue(100), () => true)
          for (let i = 1; i < second.length; i++) {
            second[i]!.meters.forEach((m, k) => {
              const before = second[i - 1]!.meters[k]!
              expect(m.energyAtNs).toBeGreaterThanOrEqual(before.energyAtNs)
              for (const [rail, uws] of m.energyUws)
                expect(uws, rail).toBeGreaterThanOrEqual(before.energyUws.get(rail)!)
            })
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  test('readings are stamped off the poll grid, by the Tick’s lateness and the HAL’s own refresh time', () => {
    const { sim, advance } = busyPhone(5, false)
    advance(3000)
    const hal = new PowerStatsHal(sim, 5)
    const startNs = BOOT + 100 * MS
    const polls = hal.polls(startNs, startNs + 2000 * MS, nextDue(100), () => true)
    const offsetsMs = polls.slice(1).map((p) => ((p.tickNs / MS) % 100) + 0)
    // Late by a fraction of a ms to a few ms, never early, and not all alike.
    expect(Math.min(...offsetsMs)).toBeGreaterThan(0)
    expect(Math.max(...offsetsMs)).toBeLessThan(20)
    expect(new Set(offsetsMs.map((o) => o.toFixed(3))).size).toBeGreaterThan(5)
    // The two PMICs are latched one after the other under the refresh's one stamp.
    for (const p of polls) {
      expect(p.meters[1]!.stampNs).toBe(p.meters[0]!.stampNs)
      expect(p.meters[1]!.energyAtNs).toBeGreaterThan(p.meters[0]!.energyAtNs)
    }
  })

  test('a poll within 50 ms of the last refresh gets the driver’s cached reading, old stamp and all; the collector drops the repeat', () => {
    const { sim, advance } = busyPhone(8, false)
    advance(3000)
    const hal = new PowerStatsHal(sim, 8, { stallPerLoad: 0 })
    // The session starts 10 ms before a due time: its second poll finds the start's refresh fresh.
    const startNs = BOOT + 990 * MS
    const polls = hal.polls(startNs, startNs + 500 * MS, nextDue(100), () => false)
    expect(polls[1]!.meters.every((m) => m.cached)).toBe(true)
    expect(polls[1]!.meters.map((m) => m.stampNs)).toEqual(polls[0]!.meters.map((m) => m.stampNs))
    expect(polls[2]!.meters.some((m) => m.cached)).toBe(false)
    const raw = railsOf(polls)
    const rails = withoutRepeats(raw)
    for (const [i, r] of rails.entries()) {
      expect(r.readings).toHaveLength(raw[i]!.readings.length - 1)
    }
  })

  test('under load a poll is now and then missed; integrating across it is exact, and repeats are dropped', () => {
    const { sim, advance } = busyPhone(3, true)
    advance(4000)
    // Every poll at full load stalls, often past the next due time.
    const hal = new PowerStatsHal(sim, 3, { stallPerLoad: 1, stallMeanMs: 80 })
    const startNs = BOOT + 500 * MS
    const stopNs = startNs + 3000 * MS
    const polls = hal.polls(startNs, stopNs, nextDue(100), () => true)
    const gapsMs = polls.slice(1).map((p, i) => (p.tickNs - polls[i]!.tickNs) / MS)
    expect(Math.max(...gapsMs)).toBeGreaterThan(150) // a due time skipped
    const rails = withoutRepeats(railsOf(polls))
    for (const r of rails) {
      for (let i = 1; i < r.readings.length; i++) {
        expect(r.readings[i]!.tNs).toBeGreaterThan(r.readings[i - 1]!.tNs)
      }
    }
    // A window across the missed polls integrates to the ground truth, up to the latch (the energy
    // of a reading runs ≤ 3 ms past its stamp) at both edges.
    const lo = Math.max(...rails.map((r) => r.readings[0]!.tNs))
    const hi = Math.min(...rails.map((r) => r.readings.at(-1)!.tNs))
    const window = { clock: 'boottime' as const, startNs: lo, endNs: hi }
    const measured = testEnergy({ window, power: rails }).grossEnergyJ
    const truth = sim.groundTruth(lo, hi).totalEnergyJ
    const edgeJ = (2 * 3e-3 * truth) / ((hi - lo) / 1e9) + 1e-3
    expect(Math.abs(measured - truth)).toBeLessThan(edgeJ * 3)
    expect(Math.abs(measured - truth) / truth).toBeLessThan(0.01)
  })
})
