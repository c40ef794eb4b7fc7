import { describe, expect, test } from 'vitest'
import { validateAppModel, type AppModel } from '../../../src/virtual-device/sim/app-model.js'
import { DEMO_APP_MODEL } from '../../../src/virtual-device/sim/demo-app.js'
import { buildArtProfile } from '../../../src/virtual-device/sim/art-profile.js'
import { cpuScheduleOf } from '../../../src/virtual-device/sim/cpu-schedule.js'
import {
  FRAME_COST_MS,
  OTHER_THREADS,
  RENDER_METHOD,
  VSYNC_NS,
  type Physics,
} from '../../../src/virtual-device/sim/other-processes.js'
import {
  buildPowerModel,
  defaultPowerProfile,
  maToW,
} from '../../../src/virtual-device/sim/power-model.js'
import { sampleTaskClock } from '../../../src/virtual-device/sim/simpleperf-sampler.js'
import type { Simulation } from '../../../src/virtual-device/sim/simulation.js'
import { BOOT, checkCores, checkInvariants, makeSim as makeSimOn, MS } from './_sim.js'

const power = buildPowerModel(defaultPowerProfile())

function makeSim(seed = 7, physics: Physics = 'phone') {
  return makeSimOn(seed, DEMO_APP_MODEL, undefined, physics)
}

function tap(sim: Simulation, desc: string): void {
  const w = sim.currentScreen()?.widgets.find((x) => x.contentDesc === desc)
  if (w === undefined) throw new Error(`no widget ${desc} on ${sim.currentScreenId}`)
  expect(sim.tap((w.bounds[0] + w.bounds[2]) / 2, (w.bounds[1] + w.bounds[3]) / 2)).toBeDefined()
}

describe('other processes (physics: phone)', () => {
  test('the simple physics runs only the app', () => {
    const { sim, advance, now } = makeSim(7, 'simple')
    sim.launch(5000)
    tap(sim, 'refresh')
    advance(3000)
    expect(sim.slices.every((s) => s.other === undefined)).toBe(true)
    const gt = sim.groundTruth(now, now + 3000 * MS)
    expect(gt.processes).toEqual([])
    expect(gt.otherCpuEnergyJ).toBe(0)
  })

  test('an input event costs system_server work; a tap animates: RenderThread and surfaceflinger per frame', () => {
    const { sim, advance } = makeSim(3)
    sim.launch(5000)
    advance(2000)
    const t0 = BOOT + 2000 * MS
    tap(sim, 'feed-list')
    advance(1000)
    const schedule = cpuScheduleOf(sim, t0, t0 + 1000 * MS)
    const comms = (name: string) => schedule.slices.filter((s) => s.comm === name)
    expect(comms('InputReader').length).toBe(1)
    expect(comms('InputDispatcher').length).toBe(1)
    // A 250 ms ripple at 60 Hz: 15 frames, each drawn by the app and composited after.
    const frames = sim.calls.filter((c) => c.method === RENDER_METHOD && c.enterNs >= t0)
    expect(frames.length).toBeGreaterThanOrEqual(Math.floor(250e6 / VSYNC_NS))
    expect(frames.length).toBeLessThanOrEqual(Math.ceil(250e6 / VSYNC_NS))
    for (const f of frames) expect(f.enterNs % VSYNC_NS).toBeLessThan(1e-3 * VSYNC_NS)
    expect(comms('surfaceflinger').length).toBe(frames.length)
    const rt = sim.threadList().find((t) => t.name === 'RenderThread')
    expect(rt?.cluster).toBe(power.uiCluster)
    expect(frames.every((f) => f.tid === rt?.tid)).toBe(true)
    // Each frame costs about its model cost in CPU work at the reference frequency (±10% jitter,
    // 4σ), whatever frequency the governor ran it at.
    for (const f of frames) {
      const workMs = sim.slices
        .filter((x) => x.callId === f.id)
        .reduce((a, x) => a + ((x.endNs - x.startNs) * x.khz) / power.referenceFreqKhz / MS, 0)
      expect(Math.abs(workMs - FRAME_COST_MS.renderThread)).toBeLessThan(
        0.4 * FRAME_COST_MS.renderThread,
      )
    }
    checkCores(sim)
  })

  test('an activity change (navigate) costs system_server binder work and a transition', () => {
    const { sim, advance } = makeSim(5)
    sim.launch(5000)
    advance(2000)
    const t0 = BOOT + 2000 * MS
    tap(sim, 'map')
    advance(1000)
    // One burst (the governor may split it into slices at frequency changes: one switch-in).
    const bursts = cpuScheduleOf(sim, t0, t0 + 1000 * MS).slices.filter(
      (s) => s.tid === OTHER_THREADS.binder.tid,
    )
    expect(bursts.length).toBe(1)
  })

  test('kernel threads and the background service run on their own, only where their cpuset allows', () => {
    const { sim, advance, now } = makeSim(11)
    sim.launch(5000)
    advance(120_000)
    const gt = sim.groundTruth(now, now + 120_000 * MS)
    const byName = new Map(gt.processes.map((p) => [p.process, p]))
    // Poisson rates over 2 min: kworker 30/s, rcu 15/s; the service wakes ~every 20 s.
    const kworker = sim.slices.filter((s) => s.other?.tid === OTHER_THREADS.kworker.tid).length
    expect(kworker).toBeGreaterThan(3000)
    expect(kworker).toBeLessThan(4200)
    expect(byName.get('com.google.android.gms.persistent')?.cpuNs ?? 0).toBeGreaterThan(0)
    const little = power.clusters[0]!
    for (const s of sim.slices) {
      if (s.other?.cpus === 'background') {
        expect(s.core).toBeLessThan(little.firstCore + little.cores)
      }
    }
    checkInvariants(gt)
    checkCores(sim)
  })

  test('other processes are never counted as the app: not in samples, traces, methods or app CPU energy', () => {
    const { sim, advance, now } = makeSim(9)
    sim.launch(5000)
    tap(sim, 'refresh')
    advance(500)
    tap(sim, 'feed-list')
    advance(4000)
    const from = now
    const to = now + 4500 * MS
    const gt = sim.groundTruth(from, to)
    expect(gt.otherCpuEnergyJ).toBeGreaterThan(0)
    const otherTids = new Set<number>(Object.values(OTHER_THREADS).map((t) => t.tid))
    const samples = sampleTaskClock(sim, {
      pid: 5000,
      startNs: from,
      stopNs: to,
      frequencyHz: 4000,
      clockOffsetNs: 0,
      odexPath: '/data/app/base.odex',
    })
    expect(samples.length).toBeGreaterThan(0)
    expect(samples.some((x) => otherTids.has(x.threadId))).toBe(false)
    // The app's RenderThread is the app's: sampled, with native frames.
    const rt = samples.filter((x) => x.threadName === 'RenderThread')
    expect(rt.length).toBeGreaterThan(0)
    expect(rt[0]?.frames[0]?.symbol).toBe(RENDER_METHOD)
    expect(rt[0]?.frames[0]?.file).toBe('/system/lib64/libhwui.so')
    // ART traces Java methods only.
    const art = buildArtProfile(sim, {
      pid: 5000,
      startNs: from,
      stopNs: to,
      monotonicOffsetNs: 0,
      bufferBytes: 64 * 1024 * 1024,
    })
    expect(art.methods.length).toBeGreaterThan(0)
    expect(art.methods.some((m) => JSON.stringify(m).includes('::'))).toBe(false)
    // The app's CPU time in the window is exactly its own threads' slices.
    const appNs = gt.methods.reduce((a, m) => a + m.selfCpuNs, 0)
    const schedule = cpuScheduleOf(sim, from, to)
    const appSlicesNs = schedule.slices
      .filter((s) => !otherTids.has(s.tid))
      .reduce((a, s) => a + s.endNs - s.startNs, 0)
    expect(appSlicesNs).toBe(appNs)
  })

  test('frames cost GPU-rail energy (the app’s own); the memory rail follows CPU and GPU work', () => {
    const { sim, advance, now } = makeSim(21)
    sim.launch(5000)
    advance(2000)
    const t0 = now + 2000 * MS
    const idle = sim.groundTruth(t0 - 1000 * MS, t0)
    tap(sim, 'feed-list')
    advance(1000)
    const gt = sim.groundTruth(t0, t0 + 1000 * MS)
    const frames = sim.gpuWork.filter((g) => g.startNs >= t0)
    expect(frames.length).toBeGreaterThanOrEqual(14)
    expect(frames.every((g) => g.other === undefined)).toBe(true)
    const gpuW = maToW(power, power.gpu.activeMa)
    expect(gt.rails.S2S_VDD_G3D).toBeCloseTo(frames.length * power.gpu.frameMs * 1e-3 * gpuW, 12)
    expect(gt.appGpuEnergyJ).toBeGreaterThan(gt.rails.S2S_VDD_G3D ?? 0)
    // Memory: the awake level, plus CPU work and GPU frames.
    const awakeMifW = maToW(power, power.memory.awakeMa)
    expect((idle.rails.S1M_VDD_MIF ?? 0) - awakeMifW * 1).toBeGreaterThanOrEqual(0)
    const busyExtraJ = (gt.rails.S1M_VDD_MIF ?? 0) - awakeMifW * 1
    const gpuMifJ = frames.length * power.gpu.frameMs * 1e-3 * maToW(power, power.memory.gpuMa)
    expect(busyExtraJ).toBeGreaterThan(gpuMifJ)
    // The app's memory traffic is part of its methods' (marginal) energy.
    const cpuMifJ = busyExtraJ - gpuMifJ
    expect(cpuMifJ).toBeGreaterThan(0)
    expect(gt.appCpuEnergyJ + gt.otherCpuEnergyJ).toBeCloseTo(
      gt.components.cpu - maToW(power, power.awakeMa) * 1 + cpuMifJ,
      9,
    )
  })

  test('deterministic for a seed, however often the phone is asked in between', () => {
    const run = (ask: boolean) => {
      const { sim, advance, now } = makeSim(13)
      sim.launch(5000)
      for (let i = 0; i < 20; i++) {
        advance(50)
        if (ask) sim.groundTruth(now, now + (i + 1) * 50 * MS)
      }
      tap(sim, 'refresh')
      advance(2000)
      return sim.groundTruth(now, now + 3000 * MS)
    }
    const asked = run(true)
    expect(asked.processes.length).toBeGreaterThan(0)
    expect(asked).toEqual(run(false))
  })
})

describe('display content (physics: phone)', () => {
  const model: AppModel = {
    ...DEMO_APP_MODEL,
    screens: DEMO_APP_MODEL.screens.map((screen) =>
      screen.id === 'feed'
        ? { ...screen, luminance: 0.9 }
        : screen.id === 'map'
          ? { ...screen, luminance: 0.1 }
          : screen,
    ),
  }

  test('an OLED panel draws screen.on + screen.full × brightness × luminance / 0.5', () => {
    for (const physics of ['phone', 'simple'] as const) {
      const { sim, advance, now } = makeSimOn(3, model, undefined, physics)
      sim.launch(5000) // the feed: luminance 0.9
      advance(1000)
      tap(sim, 'map') // luminance 0.1
      advance(1000)
      sim.keyevent(3) // home: the default, 0.5
      advance(1000)
      const second = (k: number) =>
        sim.groundTruth(now + k * 1000 * MS, now + (k + 1) * 1000 * MS).components.screen
      const displayW = (luminance: number) =>
        maToW(power, power.screenOnMa + (power.screenFullMa * 102 * luminance) / 0.5 / 255)
      const expected = physics === 'phone' ? [0.9, 0.1, 0.5] : [0.5, 0.5, 0.5]
      expected.forEach((luminance, k) => {
        expect(second(k), `${physics} second ${k}`).toBeCloseTo(displayW(luminance), 9)
      })
    }
  })

  test('a luminance outside 0–1 fails the schema', () => {
    const bad = { ...model, screens: [{ ...model.screens[0]!, luminance: 1.5 }] }
    expect(() => validateAppModel(bad)).toThrow(/luminance must be <= 1/)
  })
})
