import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { decodePowerTrace, encodePowerTrace } from '../../../src/formats/perfetto/index.js'
import { parsePowerProfile } from '../../../src/formats/power-profile/index.js'
import type { CpuIdleChange } from '../../../src/model/index.js'
import { validateAppModel } from '../../../src/virtual-device/sim/app-model.js'
import {
  cpuScheduleOf,
  DEEP_IDLE_NS,
  idleChanges,
  simCpus,
} from '../../../src/virtual-device/sim/cpu-schedule.js'
import { DEMO_APP_MODEL } from '../../../src/virtual-device/sim/demo-app.js'
import type { Physics } from '../../../src/virtual-device/sim/other-processes.js'
import {
  buildPowerModel,
  defaultPowerProfile,
} from '../../../src/virtual-device/sim/power-model.js'
import { Simulation } from '../../../src/virtual-device/sim/simulation.js'
import { fixtureText } from '../../formats/simpleperf/_helpers.js'

const BOOT = 12_000_000_000_000
const MS = 1_000_000
const power = buildPowerModel(defaultPowerProfile())

test('the CPUs are the clusters’ cores in order (Pixel 6: 4 + 2 + 2; Pixel 4a 5G: 6 + 1 + 1)', () => {
  expect(simCpus(power)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
  expect(power.clusters.map((c) => [c.firstCore, c.cores])).toEqual([
    [0, 4],
    [4, 2],
    [6, 2],
  ])
  const pixel4a = buildPowerModel(
    parsePowerProfile(fixtureText('corpus/1_power_profile/emanafa_power_profile_pixel4a_5g.xml')),
  )
  expect(pixel4a.clusters.map((c) => [c.firstCore, c.cores])).toEqual([
    [0, 6],
    [6, 1],
    [7, 1],
  ])
  expect(simCpus(pixel4a)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
})

describe('property: random sessions', () => {
  test('the schedule of any window encodes, and decodes to each thread’s CPU time on its core', () => {
    const widgets = DEMO_APP_MODEL.screens.flatMap((s) => s.widgets.map((w) => w.contentDesc))
    const action = fc.oneof(
      fc.record({ kind: fc.constant('tap' as const), desc: fc.constantFrom(...widgets) }),
      fc.record({ kind: fc.constant('key' as const), code: fc.constantFrom(3, 4) }),
      fc.record({ kind: fc.constant('stop' as const) }),
    )
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 3000 }), action), { maxLength: 12 }),
        fc.tuple(
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.double({ min: 0, max: 1, noNaN: true }),
        ),
        fc.boolean(),
        (seed, steps, [a, b], compact) => {
          let now = BOOT
          const sim = new Simulation({ model: DEMO_APP_MODEL, power, seed, now: () => now })
          sim.launch(5000)
          let pid = 5000
          for (const [dt, step] of steps) {
            now += dt * MS
            if (step.kind === 'tap') {
              const w = sim.currentScreen()?.widgets.find((x) => x.contentDesc === step.desc)
              if (w !== undefined) sim.tap(w.bounds[0] + 1, w.bounds[1] + 1)
            } else if (step.kind === 'key') sim.keyevent(step.code)
            else {
              sim.forceStop()
              pid += 100
              sim.launch(pid)
            }
          }
          now += 5000 * MS
          const from = BOOT + Math.round(Math.min(a, b) * (now - BOOT))
          const to = BOOT + Math.round(Math.max(a, b) * (now - BOOT))
          const schedule = cpuScheduleOf(sim, from, to)
          const decoded = decodePowerTrace(
            encodePowerTrace({
              schedule: { ...schedule, compact, endNs: to },
              clockSnapshot: { boottime: from },
            }),
          ).schedule
          const expected = new Map<number, number>()
          for (const s of sim.slices) {
            const ns = Math.min(s.endNs, to) - Math.max(s.startNs, from)
            if (ns > 0) expected.set(s.tid, (expected.get(s.tid) ?? 0) + ns)
          }
          const got = new Map<number, number>()
          for (const s of decoded?.slices ?? []) {
            got.set(s.tid, (got.get(s.tid) ?? 0) + s.endNs - s.startNs)
            const thread = sim.threadByTid(s.tid)
            expect(s.cpu).toBe(thread?.core)
            expect(s.comm).toBe(thread?.name.slice(0, 15))
          }
          expect(got).toEqual(expected)
        },
      ),
      { numRuns: 60 },
    )
  })
})

describe('power/cpu_idle: idle gaps of the cores', () => {
  test('WFI (0) for a gap under 2 ms, the deeper state (1) for a longer one; the exit when the next slice starts', () => {
    // main works 0.2 ms every 1 ms, five times, on its core (simple physics: cpu 4, no jitter).
    const model = validateAppModel({
      package: 'com.example.idle',
      launcherActivity: 'com.example.idle/.Main',
      debuggable: false,
      profileable: true,
      screens: [
        {
          id: 'main',
          activity: '.Main',
          widgets: [
            {
              contentDesc: 'go',
              bounds: [0, 0, 100, 100],
              clickable: true,
              actions: {
                tap: {
                  periodic: {
                    everyMs: 1,
                    count: 5,
                    calls: [{ method: 'com.example.idle.Work.tick', selfCpuMs: 0.2 }],
                  },
                },
              },
            },
          ],
        },
      ],
    })
    let now = BOOT
    const sim = new Simulation({ model, power, seed: 1, now: () => now, cpuJitter: 0 })
    sim.launch(4000)
    now += 10 * MS
    const t0 = now
    sim.tap(1, 1)
    now += 100 * MS
    const slices = cpuScheduleOf(sim, t0, now).slices
    expect(slices.map((s) => [s.cpu, s.startNs - t0, s.endNs - t0])).toEqual(
      [1, 2, 3, 4, 5].map((k) => [4, k * MS, k * MS + 0.2 * MS]),
    )
    const at = (ms: number, state: number): CpuIdleChange => ({
      cpu: 4,
      tNs: t0 + ms * MS,
      state,
    })
    // Idle when the window starts: no entry before the first exit.
    expect(idleChanges(sim, t0, now)).toEqual([
      at(1, -1),
      at(1.2, 0),
      at(2, -1),
      at(2.2, 0),
      at(3, -1),
      at(3.2, 0),
      at(4, -1),
      at(4.2, 0),
      at(5, -1),
      at(5.2, 1),
    ])
    // A window that ends inside a short gap: the entry is still WFI (the next tick is known).
    expect(idleChanges(sim, t0, t0 + 1.5 * MS)).toEqual([at(1, -1), at(1.2, 0)])
    // A window starting inside a slice: no exit for it.
    expect(idleChanges(sim, t0 + 1.1 * MS, t0 + 2.5 * MS)).toEqual([
      at(1.2, 0),
      at(2, -1),
      at(2.2, 0),
    ])
  })

  test.each<Physics>(['simple', 'phone'])(
    'property (%s physics): per core one entry at each gap start and one exit at each slice start after a gap, alternating, the state from the gap’s length',
    (physics) => {
      const widgets = DEMO_APP_MODEL.screens.flatMap((s) => s.widgets.map((w) => w.contentDesc))
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 1000 }),
          fc.array(fc.tuple(fc.integer({ min: 1, max: 1500 }), fc.constantFrom(...widgets)), {
            maxLength: 6,
          }),
          fc.tuple(
            fc.double({ min: 0, max: 1, noNaN: true }),
            fc.double({ min: 0, max: 1, noNaN: true }),
          ),
          (seed, steps, [a, b]) => {
            let now = BOOT
            const sim = new Simulation({
              model: DEMO_APP_MODEL,
              power,
              seed,
              now: () => now,
              physics,
            })
            sim.launch(5000)
            for (const [dt, desc] of steps) {
              now += dt * MS
              const w = sim.currentScreen()?.widgets.find((x) => x.contentDesc === desc)
              if (w !== undefined) sim.tap(w.bounds[0] + 1, w.bounds[1] + 1)
            }
            now += 2000 * MS
            const from = BOOT + Math.round(Math.min(a, b) * (now - BOOT))
            const to = BOOT + Math.round(Math.max(a, b) * (now - BOOT))
            const changes = idleChanges(sim, from, to)
            // Every core's busy stretches (slices, rounded, touching ones joined), unclipped.
            const busy = new Map<number, [number, number][]>()
            for (const s of [...sim.slices].sort((x, y) => x.startNs - y.startNs)) {
              const [f, t] = [Math.round(s.startNs), Math.round(s.endNs)]
              if (t <= f) continue
              const list = busy.get(s.core) ?? []
              const last = list.at(-1)
              if (last !== undefined && f <= last[1]) last[1] = Math.max(last[1], t)
              else list.push([f, t])
              busy.set(s.core, list)
            }
            const expected: CpuIdleChange[] = []
            for (const [cpu, list] of busy) {
              list.forEach(([f, t], i) => {
                if (f >= from && f < to) expected.push({ cpu, tNs: f, state: -1 })
                if (t < from || t >= to) return
                const next = list[i + 1]?.[0] ?? Number.POSITIVE_INFINITY
                expected.push({ cpu, tNs: t, state: next - t >= DEEP_IDLE_NS ? 1 : 0 })
              })
            }
            expect(changes).toEqual(expected.sort((x, y) => x.tNs - y.tNs || x.cpu - y.cpu))
            for (const cpu of simCpus(power)) {
              const own = changes.filter((c) => c.cpu === cpu)
              own.forEach((c, i) => {
                expect(c.tNs).toBeGreaterThanOrEqual(from)
                expect(c.tNs).toBeLessThan(to)
                if (i > 0)
                  expect(c.state === -1, 'exit and entry alternate').toBe(own[i - 1]!.state !== -1)
              })
            }
          },
        ),
        { numRuns: 40 },
      )
    },
  )
})
