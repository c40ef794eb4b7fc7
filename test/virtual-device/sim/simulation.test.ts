import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { parsePowerProfile } from '../../../src/formats/power-profile/index.js'
import { validateAppModel } from '../../../src/virtual-device/sim/app-model.js'
import { DEMO_APP_MODEL } from '../../../src/virtual-device/sim/demo-app.js'
import {
  buildPowerModel,
  defaultPowerProfile,
  maToW,
} from '../../../src/virtual-device/sim/power-model.js'
import type { Simulation } from '../../../src/virtual-device/sim/simulation.js'
import {
  BOOT,
  checkCores,
  checkInvariants,
  close,
  makeSim,
  MS,
  playSession,
  sessionSteps,
} from './_sim.js'

const power = buildPowerModel(defaultPowerProfile())

function center(sim: Simulation, desc: string): [number, number] {
  const w = sim.currentScreen()?.widgets.find((x) => x.contentDesc === desc)
  if (w === undefined) throw new Error(`no widget ${desc} on ${sim.currentScreenId}`)
  return [(w.bounds[0] + w.bounds[2]) / 2, (w.bounds[1] + w.bounds[3]) / 2]
}

function tap(sim: Simulation, desc: string): void {
  const [x, y] = center(sim, desc)
  expect(sim.tap(x, y)?.contentDesc).toBe(desc)
}

describe('power model from the Pixel 6 profile', () => {
  test('takes the structure and currents of the real profile', () => {
    expect(power.clusters.map((c) => c.cores)).toEqual([4, 2, 2])
    expect(power.clusters.map((c) => c.rail)).toEqual([
      'S4M_VDD_CPUCL0',
      'S3M_VDD_CPUCL1',
      'S2M_VDD_CPUCL2',
    ])
    expect(power.uiCluster).toBe(1)
    expect(power.suspendMa).toBe(10)
    expect(power.awakeMa).toBe(28.6)
    expect(power.screenOnMa).toBe(98)
    expect(power.screenFullMa).toBe(470)
    expect(power.wifiActiveMa).toBe(470)
    expect(power.wifiTailMa).toBe(98)
    expect(power.gpsMa).toBe(23.9)
    // Busy frequency of the UI cluster: 70 % up its 14 steps = step 10 (1836 MHz, 49.37 mA).
    expect(power.clusters[1]!.busyFreqKhz).toBe(1836000)
    expect(power.clusters[1]!.busyCoreMa).toBe(49.37)
  })

  test('a profile without CPU clusters is refused with a clear error', () => {
    const profile = parsePowerProfile(
      '<device name="Android"><item name="screen.on">1</item></device>',
    )
    expect(() => buildPowerModel(profile)).toThrow(/E_VDEV_POWER_PROFILE_UNUSABLE/)
  })
})

describe('simulation physics and ground truth', () => {
  test('idle device: suspend floor plus screen only, exactly', () => {
    const { sim, advance, now } = makeSim()
    const from = now
    advance(10_000)
    const gt = sim.groundTruth(from, from + 10_000 * MS)
    const floorW = maToW(power, 10)
    expect(gt.idleFloorEnergyJ).toBeCloseTo(floorW * 10, 12)
    expect(gt.components.screen).toBeCloseTo(maToW(power, 98 + (470 * 102) / 255) * 10, 12)
    expect(gt.components.cpu).toBeCloseTo(maToW(power, 28.6) * 10, 12)
    expect(gt.methods).toEqual([])
    checkInvariants(gt)
  })

  test('a main-thread call costs its selfCpuMs at the reference frequency (no jitter)', () => {
    const model = validateAppModel({
      package: 'org.x',
      launcherActivity: 'org.x/.Main',
      debuggable: true,
      profileable: false,
      screens: [
        {
          id: 'main',
          activity: '.Main',
          widgets: [],
          onEnter: {
            calls: [
              {
                method: 'org.x.Main.onCreate',
                selfCpuMs: 10,
                children: [{ method: 'org.x.Util.work', selfCpuMs: 5, repeat: 3 }],
              },
            ],
          },
        },
      ],
    })
    const { sim, advance, now } = makeSim(1, model, 0)
    sim.launch(4242)
    advance(1000)
    const gt = sim.groundTruth(now, now + 1000 * MS)
    const byName = new Map(gt.methods.map((m) => [m.method, m]))
    expect(byName.get('org.x.Main.onCreate')).toMatchObject({
      calls: 1,
      selfCpuNs: 10 * MS,
      inclusiveCpuNs: 25 * MS,
    })
    expect(byName.get('org.x.Util.work')).toMatchObject({ calls: 3, selfCpuNs: 15 * MS })
    // Alone on the device: core power + full cluster cost + full cpu.active, at 3.85 V.
    const c = power.clusters[power.uiCluster]!
    const perSecondW = maToW(power, c.busyCoreMa + c.clusterPowerMa + power.cpuActiveMa)
    expect(byName.get('org.x.Util.work')!.selfEnergyJ).toBeCloseTo(perSecondW * 0.015, 12)
    expect(gt.appCpuEnergyJ).toBeCloseTo(perSecondW * 0.025, 12)
    checkInvariants(gt)
    const main = sim.threadList()[0]!
    expect(main).toMatchObject({ tid: 4242, name: 'main', cpuNs: 25 * MS })
  })

  test('the wakelock bug keeps the CPU awake after the screen goes off, attributed to its method', () => {
    const { sim, advance } = makeSim()
    sim.launch(5000)
    advance(500)
    tap(sim, 'export')
    advance(500)
    tap(sim, 'export-gpx')
    advance(2000)
    sim.keyevent(26) // screen off
    const from = BOOT + 3000 * MS
    advance(60_000)
    const gt = sim.groundTruth(from + 1000 * MS, from + 61_000 * MS)
    const awakeJ = maToW(power, 28.6) * 60
    expect(gt.components.screen).toBe(0)
    expect(gt.components.cpu).toBeCloseTo(awakeJ, 9)
    const exporter = gt.methods.find((m) => m.method === 'com.example.trails.GpxExporter.export')
    expect(exporter?.asyncEnergyJ).toBeCloseTo(awakeJ, 9)
    checkInvariants(gt)
  })

  test('the leaking GPS listener keeps drawing after leaving the map screen, until force-stop', () => {
    const { sim, advance, now } = makeSim()
    sim.launch(5000)
    advance(300)
    tap(sim, 'map')
    advance(5000)
    tap(sim, 'feed')
    const left = now + 5300 * MS
    advance(20_000)
    const leak = sim.groundTruth(left, left + 20_000 * MS)
    expect(leak.components.gps).toBeCloseTo(maToW(power, 23.9) * 20, 9)
    const tracker = leak.methods.find(
      (m) => m.method === 'com.example.trails.LocationTracker.start',
    )
    expect(tracker?.asyncEnergyJ).toBeCloseTo(maToW(power, 23.9) * 20, 9)
    sim.forceStop()
    const stopped = left + 20_000 * MS
    advance(10_000)
    expect(sim.groundTruth(stopped, stopped + 10_000 * MS).components.gps).toBe(0)
  })

  test('sync polling keeps the cellular radio in its tail forever', () => {
    const { sim, advance } = makeSim()
    sim.launch(5000)
    advance(100)
    tap(sim, 'sync')
    advance(100)
    tap(sim, 'sync-now')
    advance(120_000)
    const from = BOOT + 60_000 * MS
    const gt = sim.groundTruth(from, from + 60_000 * MS)
    // Every 4 s a 150 ms burst at the active current; the 10 s tail covers the rest.
    const bursts = 15
    const expected =
      maToW(power, power.cellularActiveMa) * bursts * 0.15 +
      maToW(power, power.cellularTailMa) * (60 - bursts * 0.15)
    expect(gt.components.cellular).toBeCloseTo(expected, 2)
    const poll = gt.methods.find((m) => m.method === 'com.example.trails.SyncManager.poll')
    expect(poll?.calls).toBe(15)
    checkInvariants(gt)
  })

  test('Bluetooth and sensor sessions draw their current for their duration, owned by their method', () => {
    const { sim, advance } = makeSim()
    sim.launch(5000)
    advance(100)
    tap(sim, 'settings')
    advance(100)
    tap(sim, 'pair-watch')
    advance(100)
    tap(sim, 'map')
    advance(60_000)
    const gt = sim.groundTruth(BOOT, BOOT + 60_300 * MS)
    expect(gt.components.bluetooth).toBeCloseTo(maToW(power, power.bluetoothMa) * 5, 9)
    expect(gt.components.other).toBeCloseTo(maToW(power, power.sensorMa) * 30, 9)
    const pair = gt.methods.find((m) => m.method === 'com.example.trails.WatchLink.pair')
    expect(pair?.asyncEnergyJ).toBeCloseTo(gt.components.bluetooth, 12)
    expect(gt.rails.L2S_VDD_AOC_RET).toBeCloseTo(gt.components.other, 12)
    checkInvariants(gt)
  })

  test('a thread pool spreads repetitions over its threads, which run concurrently', () => {
    const { sim, advance, now } = makeSim(1, DEMO_APP_MODEL, 0)
    sim.launch(5000)
    advance(1000)
    const before = sim.calls.length
    tap(sim, 'feed-list')
    advance(1000)
    const decodes = sim.calls
      .slice(before)
      .filter((c) => c.method.endsWith('ThumbnailLoader.decode'))
    const threads = sim.threadList()
    const tids = new Set(decodes.map((c) => c.tid))
    expect(decodes).toHaveLength(4)
    expect(tids.size).toBe(2)
    expect([...tids].map((tid) => threads.find((t) => t.tid === tid)?.name).sort()).toEqual([
      'pool-1-thread-1',
      'pool-1-thread-2',
    ])
    const cores = new Set([...tids].map((tid) => threads.find((t) => t.tid === tid)?.core))
    expect(cores.size).toBe(2)
    // Two threads, two calls each: the pool finishes in half the serial time.
    const span =
      Math.max(...decodes.map((c) => c.exitNs)) - Math.min(...decodes.map((c) => c.enterNs))
    const each = decodes[0]!.exitNs - decodes[0]!.enterNs
    expect(span).toBe(2 * each)
    const gt = sim.groundTruth(now + 1000 * MS, now + 2000 * MS)
    expect(gt.methods.find((m) => m.method.endsWith('ThumbnailLoader.decode'))?.selfCpuNs).toBe(
      4 * each,
    )
    checkInvariants(gt)
  })

  test('a malformed window is E_VDEV_BAD_WINDOW', () => {
    const { sim } = makeSim()
    expect(() => sim.groundTruth(BOOT, BOOT - 1)).toThrow(/E_VDEV_BAD_WINDOW/)
    expect(() => sim.groundTruth(Number.NaN, BOOT)).toThrow(/E_VDEV_BAD_WINDOW/)
  })

  test('deterministic for a seed, different across seeds', () => {
    const run = (seed: number) => {
      const { sim, advance } = makeSim(seed)
      sim.launch(5000)
      advance(100)
      tap(sim, 'feed-list')
      advance(3000)
      return sim.groundTruth(BOOT, BOOT + 3100 * MS)
    }
    expect(run(3)).toEqual(run(3))
    expect(run(3).appCpuEnergyJ).not.toBe(run(4).appCpuEnergyJ)
  })

  test('energySinceBoot is cached incrementally yet equals a fresh integration', () => {
    const { sim, advance } = makeSim()
    sim.launch(5000)
    for (let i = 0; i < 5; i++) {
      advance(700)
      tap(sim, 'feed-list')
      sim.energySinceBoot(BOOT + (i + 1) * 700 * MS)
    }
    advance(1000)
    const t = BOOT + 4500 * MS
    const cached = sim.energySinceBoot(t)
    const fresh = sim.groundTruth(0, t)
    expect(close(cached.totalJ, fresh.totalEnergyJ, 1e-12)).toBe(true)
  })

  test.each(['simple', 'phone'] as const)(
    'property (%s physics): invariants and additivity over adjacent windows for random sessions, no core runs two slices at once',
    (physics) => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 1000 }),
          sessionSteps,
          fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 4 }),
          (seed, steps, cuts) => {
            const { sim, advance, now: start } = makeSim(seed, DEMO_APP_MODEL, undefined, physics)
            sim.launch(5000)
            const elapsed = playSession(sim, advance, steps)
            advance(1000)
            const end = start + (elapsed + 1000) * MS
            const points = [
              start,
              ...cuts.map((c) => start + Math.round(c * (end - start))),
              end,
            ].sort((a, b) => a - b)
            const whole = sim.groundTruth(start, end)
            checkInvariants(whole)
            let total = 0
            let selfJ = 0
            let otherJ = 0
            let calls = 0
            const asyncByMethod = new Map<string, number>()
            for (let i = 0; i + 1 < points.length; i++) {
              const part = sim.groundTruth(points[i]!, points[i + 1]!)
              checkInvariants(part)
              total += part.totalEnergyJ
              selfJ += part.appCpuEnergyJ
              otherJ += part.otherCpuEnergyJ
              for (const m of part.methods) {
                calls += m.calls
                asyncByMethod.set(m.method, (asyncByMethod.get(m.method) ?? 0) + m.asyncEnergyJ)
              }
            }
            expect(close(total, whole.totalEnergyJ, 1e-9), 'total additive').toBe(true)
            expect(close(selfJ, whole.appCpuEnergyJ, 1e-9), 'app CPU additive').toBe(true)
            expect(close(otherJ, whole.otherCpuEnergyJ, 1e-9), 'other CPU additive').toBe(true)
            checkCores(sim)
            expect(calls).toBe(whole.methods.reduce((a, m) => a + m.calls, 0))
            for (const m of whole.methods) {
              expect(close(asyncByMethod.get(m.method) ?? 0, m.asyncEnergyJ, 1e-9), m.method).toBe(
                true,
              )
            }
          },
        ),
        { numRuns: 60 },
      )
    },
  )
})
