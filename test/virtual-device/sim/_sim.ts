/** Shared by the simulation's tests: a simulation on a hand-moved clock, and schedule checks. */
import fc from 'fast-check'
import { expect } from 'vitest'
import type { AppModel } from '../../../src/virtual-device/sim/app-model.js'
import { DEMO_APP_MODEL } from '../../../src/virtual-device/sim/demo-app.js'
import type { Physics } from '../../../src/virtual-device/sim/other-processes.js'
import {
  buildPowerModel,
  defaultPowerProfile,
  GPU_MEMORY_MODEL,
} from '../../../src/virtual-device/sim/power-model.js'
import { Simulation, type GroundTruth } from '../../../src/virtual-device/sim/simulation.js'

export const BOOT = 12_000_000_000_000
export const MS = 1_000_000
const power = buildPowerModel(defaultPowerProfile())

/** A simulation whose clock moves only with `advance(ms)`. */
export function makeSim(
  seed = 7,
  model: AppModel = DEMO_APP_MODEL,
  cpuJitter?: number,
  physics: Physics = 'simple',
) {
  let now = BOOT
  const sim = new Simulation({
    model,
    power,
    seed,
    now: () => now,
    physics,
    ...(cpuJitter === undefined ? {} : { cpuJitter }),
  })
  return {
    sim,
    advance(ms: number) {
      now += ms * MS
    },
    get now() {
      return now
    },
  }
}

/** Slices of one core never overlap; another process's thread is never an app thread. */
export function checkCores(sim: Simulation): void {
  const byCore = new Map<number, Array<{ startNs: number; endNs: number }>>()
  for (const s of sim.slices) {
    if (s.endNs <= s.startNs) continue
    byCore.set(s.core, [...(byCore.get(s.core) ?? []), s])
    if (s.other !== undefined) expect(sim.threadByTid(s.tid), `tid ${s.tid}`).toBeUndefined()
  }
  for (const [core, list] of byCore) {
    list.sort((a, b) => a.startNs - b.startNs)
    for (let i = 1; i < list.length; i++) {
      expect(list[i]!.startNs, `core ${core}`).toBeGreaterThanOrEqual(list[i - 1]!.endNs)
    }
  }
}

export const close = (a: number, b: number, rel = 1e-9) =>
  Math.abs(a - b) <= rel * Math.max(1, Math.abs(a), Math.abs(b))

/** The ground truth's invariants (docs/virtual-device.md, "Ground truth"). */
export function checkInvariants(gt: GroundTruth): void {
  const components = Object.values(gt.components).reduce((a, b) => a + b, 0)
  const rails = Object.values(gt.rails).reduce((a, b) => a + b, 0)
  const selfSum = gt.methods.reduce((a, m) => a + m.selfEnergyJ, 0)
  expect(close(components, gt.totalEnergyJ), 'components sum to total').toBe(true)
  expect(close(rails, gt.totalEnergyJ, 1e-9), 'rails sum to total').toBe(true)
  expect(close(selfSum, gt.appCpuEnergyJ), 'method self energies sum to app CPU').toBe(true)
  const otherSum = gt.processes.reduce((a, p) => a + p.cpuEnergyJ, 0)
  expect(close(otherSum, gt.otherCpuEnergyJ), 'processes sum to other CPU').toBe(true)
  // The marginal CPU energy includes the memory traffic the CPU work causes (phone physics).
  expect(gt.appCpuEnergyJ + gt.otherCpuEnergyJ).toBeLessThanOrEqual(
    (gt.components.cpu + gt.components.memory) * (1 + 1e-12),
  )
  // GPU frames: the GPU rail plus the memory traffic they cause, the app's or another process's.
  const gpuJ = gt.appGpuEnergyJ + gt.processes.reduce((a, p) => a + p.gpuEnergyJ, 0)
  const g3dJ = gt.rails.S2S_VDD_G3D ?? 0
  const { gpu, memory } = GPU_MEMORY_MODEL
  expect(close(gpuJ, (g3dJ * (gpu.activeMa + memory.gpuMa)) / gpu.activeMa), 'GPU').toBe(true)
  expect(close(gt.components.gpu, g3dJ), 'GPU component = G3D rail').toBe(true)
  // The app's process is never one of the other processes.
  expect(gt.processes.map((p) => p.process)).not.toContain(DEMO_APP_MODEL.package)
  for (const m of gt.methods) {
    expect(m.inclusiveEnergyJ + 1e-15).toBeGreaterThanOrEqual(m.selfEnergyJ)
    expect(m.inclusiveCpuNs).toBeGreaterThanOrEqual(m.selfCpuNs)
  }
}

const WIDGETS = DEMO_APP_MODEL.screens.flatMap((s) => s.widgets.map((w) => w.contentDesc))

/** A random user session on the demo app: (ms to wait, action) pairs. */
export const sessionSteps = fc.array(
  fc.tuple(
    fc.integer({ min: 1, max: 5000 }),
    fc.oneof(
      fc.record({ kind: fc.constant('tap' as const), desc: fc.constantFrom(...WIDGETS) }),
      fc.record({ kind: fc.constant('key' as const), code: fc.constantFrom(3, 4, 26) }),
      fc.record({ kind: fc.constant('text' as const) }),
      fc.record({ kind: fc.constant('stop' as const) }),
    ),
  ),
  { maxLength: 12 },
)

export type SessionSteps = typeof sessionSteps extends fc.Arbitrary<infer T> ? T : never

/** Plays `steps` on a launched app; returns the ms that passed. */
export function playSession(
  sim: Simulation,
  advance: (ms: number) => void,
  steps: SessionSteps,
): number {
  let elapsed = 0
  for (const [dt, a] of steps) {
    advance(dt)
    elapsed += dt
    if (a.kind === 'tap') {
      const w = sim.currentScreen()?.widgets.find((x) => x.contentDesc === a.desc)
      if (w !== undefined) sim.tap(w.bounds[0] + 1, w.bounds[1] + 1)
    } else if (a.kind === 'key') sim.keyevent(a.code)
    else if (a.kind === 'text') sim.typeText('x')
    else {
      sim.forceStop()
      sim.launch(6000)
    }
  }
  return elapsed
}
