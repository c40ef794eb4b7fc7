/**
 * The simulation's indexes over its records (what a window reads without visiting the whole
 * session) give the same results as reading every record: property tests on random sessions of
 * both physics, windows anywhere (before the session, in its past, past its end).
 */
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  clippedSlices,
  cpuScheduleOf,
  frequencyChanges,
} from '../../../src/virtual-device/sim/cpu-schedule.js'
import type { Simulation } from '../../../src/virtual-device/sim/simulation.js'
import { BOOT, makeSim, MS, playSession, sessionSteps } from './_sim.js'

/** The window's slices as read before the indexes: every slice of the session, cut, sorted. */
function naiveClipped(sim: Simulation, startNs: number, stopNs: number) {
  return sim.slices
    .map((s) => ({
      s,
      startNs: Math.round(Math.max(s.startNs, startNs)),
      endNs: Math.round(Math.min(s.endNs, stopNs)),
    }))
    .filter((c) => c.endNs > c.startNs)
    .sort((a, b) => a.s.core - b.s.core || a.startNs - b.startNs)
}

/** Every governor's every change, one per CPU of its cluster, kept when in the window. */
function naiveFrequencies(sim: Simulation, startNs: number, stopNs: number) {
  return sim.governors
    .flatMap((g) =>
      g.changes
        .map((c) => ({ tNs: Math.round(c.tNs), khz: c.khz }))
        .filter((c) => c.tNs >= startNs && c.tNs < stopNs)
        .flatMap((c) =>
          Array.from({ length: g.cluster.cores }, (_, i) => ({
            cpu: g.cluster.firstCore + i,
            ...c,
          })),
        ),
    )
    .sort((a, b) => a.tNs - b.tNs || a.cpu - b.cpu)
}

/** A played session and a window [from, to] placed by two fractions of -10 %…110 % of it. */
const sessionAndWindow = fc.record({
  seed: fc.integer({ min: 1, max: 10_000 }),
  physics: fc.constantFrom('phone' as const, 'simple' as const),
  steps: sessionSteps,
  a: fc.double({ min: -0.1, max: 1.1, noNaN: true }),
  b: fc.double({ min: -0.1, max: 1.1, noNaN: true }),
})

type SessionAndWindow = typeof sessionAndWindow extends fc.Arbitrary<infer T> ? T : never

function play({ seed, physics, steps, a, b }: SessionAndWindow) {
  const { sim, advance } = makeSim(seed, undefined, undefined, physics)
  sim.launch(5000)
  // A long enough session that its slices fill several blocks of the index.
  for (let i = 0; i < 3; i++) {
    const feed = sim.currentScreen()?.widgets.find((w) => w.contentDesc === 'feed-list')
    if (feed !== undefined) sim.tap(feed.bounds[0] + 1, feed.bounds[1] + 1)
    advance(300)
  }
  const ms = playSession(sim, advance, steps) + 900
  advance(2000)
  const at = (f: number): number => BOOT + Math.round(f * ms * MS)
  return { sim, fromNs: Math.max(0, at(Math.min(a, b))), toNs: at(Math.max(a, b)) }
}

describe('property: the indexes over slices read a window as a scan of the whole session does', () => {
  test('visitSlices visits, in index order, every slice that overlaps the window', () => {
    fc.assert(
      fc.property(sessionAndWindow, (input) => {
        const { sim, fromNs, toNs } = play(input)
        const visited: number[] = []
        sim.visitSlices(fromNs, toNs, (s, i) => {
          expect(sim.slices[i]).toBe(s)
          visited.push(i)
        })
        for (let k = 1; k < visited.length; k++) {
          expect(visited[k]).toBeGreaterThan(visited[k - 1]!)
        }
        const seen = new Set(visited)
        const overlapping = sim.slices.flatMap((s, i) =>
          s.startNs < toNs && s.endNs > fromNs ? [i] : [],
        )
        for (const i of overlapping) expect(seen.has(i), `slice ${i}`).toBe(true)
        // It skips something when the window is well inside a long session.
        if (sim.slices.length > 2000 && toNs - fromNs < 100 * MS && overlapping.length > 0) {
          expect(visited.length).toBeLessThan(sim.slices.length)
        }
      }),
      { numRuns: 60 },
    )
  })

  test('the schedule’s slices and frequency changes equal the naive scan of every slice and change', () => {
    fc.assert(
      fc.property(sessionAndWindow, (input) => {
        const { sim, fromNs, toNs } = play(input)
        const schedule = cpuScheduleOf(sim, fromNs, toNs)
        expect(clippedSlices(sim, fromNs, toNs)).toEqual(naiveClipped(sim, fromNs, toNs))
        expect(frequencyChanges(sim, fromNs, toNs)).toEqual(naiveFrequencies(sim, fromNs, toNs))
        expect(schedule.frequencies).toEqual(
          sim.physics === 'phone' ? naiveFrequencies(sim, fromNs, toNs) : undefined,
        )
      }),
      { numRuns: 60 },
    )
  })

  test('the sensors’ totals-only integration equals the ground truth’s sums to the bit', () => {
    fc.assert(
      fc.property(sessionAndWindow, (input) => {
        const { sim, fromNs, toNs } = play(input)
        // Before any checkpoint, energy since boot is one integration from 0.
        const since = sim.energySinceBoot(toNs)
        const gt = sim.groundTruth(0, toNs)
        expect(since.totalJ).toBe(gt.totalEnergyJ)
        expect(since.rails).toEqual(gt.rails)
        if (toNs > fromNs) {
          const window = sim.groundTruth(fromNs, toNs)
          expect(sim.averagePowerW(fromNs, toNs)).toBe(
            (window.totalEnergyJ * 1e9) / (toNs - fromNs),
          )
        }
      }),
      { numRuns: 40 },
    )
  })
})
