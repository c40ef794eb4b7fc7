import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { decodePowerTrace, encodePowerTrace } from '../../../src/formats/perfetto/index.js'
import { parsePowerProfile } from '../../../src/formats/power-profile/index.js'
import { cpuScheduleOf, simCpus } from '../../../src/virtual-device/sim/cpu-schedule.js'
import { DEMO_APP_MODEL } from '../../../src/virtual-device/sim/demo-app.js'
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
