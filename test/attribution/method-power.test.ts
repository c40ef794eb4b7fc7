// Per-method energy from the CPU rails only: a bright screen and a busy radio are not spread over
// whatever code happened to be sampled, and the accounting still conserves energy.
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { fittedFloorW } from '../../src/attribution/_parts.js'
import {
  attributeTest,
  clusterOfRail,
  cpuMethodPower,
  railsCurve,
} from '../../src/attribution/index.js'
import { followsCpu, leastSquares } from '../../src/attribution/method-power.js'
import { invariantViolations, type RailSeries, type StackSampleSet } from '../../src/model/index.js'

const MS = 1e6
const window = { clock: 'boottime' as const, startNs: 0, endNs: 1000 * MS }

function rail(name: string, subsystem: string, powerW: (ms: number) => number): RailSeries {
  const readings = [{ tNs: 0, energyJ: 0 }]
  for (let t = 100; t <= 1000; t += 100) {
    readings.push({
      tNs: t * MS,
      energyJ: readings[readings.length - 1]!.energyJ + powerW(t - 100) * 0.1,
    })
  }
  return { kind: 'cumulative', rail: name, subsystem, source: 'odpm', clock: 'boottime', readings }
}

// CPU at 50 mW idle, 550 mW while the app works in [200, 400) ms; the display at a steady 1.2 W
// (brighter than when the 0.5 W device baseline was measured).
const cpu = rail('S4M_VDD_CPUCL0', 'CPU(LITTLE)', (t) => (t >= 200 && t < 400 ? 0.55 : 0.05))
const display = rail('VSYS_PWR_DISPLAY', 'Display', () => 1.2)
const samples: StackSampleSet = {
  clock: 'boottime',
  lostCount: 0,
  samples: Array.from({ length: 200 }, (_, i) => ({
    tNs: (200 + i) * MS,
    threadId: 1,
    frames: ['com.example.Feed.bind', 'com.example.Feed.onScroll'],
    periodNs: MS,
  })),
}

/** The scroll window, per-method power from the CPU rail above its 50 mW floor. */
const scroll = (extra: Partial<Parameters<typeof attributeTest>[0]> = {}) =>
  attributeTest({
    label: 'scroll',
    window,
    power: [cpu, display],
    baseline: { kind: 'configured', powerW: 0.5 },
    execution: { kind: 'samples', samples },
    methodPower: { curve: railsCurve([cpu]), baselinePowerW: 0.05 },
    ...extra,
  })

test('methods are charged the CPU rails above their idle level', () => {
  const { result } = scroll()
  const bind = result.methods.find((m) => m.method === 'com.example.Feed.bind')
  // 0.5 W above the CPU floor for 200 ms = 0.1 J, all while bind was the leaf.
  expect(bind?.localEnergyJ).toBeCloseTo(0.1, 9)
  expect(result.grossEnergyJ).toBeCloseTo(0.05 + 0.1 + 1.2, 9)
  expect(invariantViolations(result)).toEqual([])
})

test('without it, the brighter screen is spread over the sampled code', () => {
  const { result } = attributeTest({
    label: 'scroll',
    window,
    power: [cpu, display],
    baseline: { kind: 'configured', powerW: 0.5 },
    execution: { kind: 'samples', samples },
  })
  const bind = result.methods.find((m) => m.method === 'com.example.Feed.bind')
  // The window's net energy (1.35 J gross − 0.5 J baseline) all lands on the only sampled code,
  // the screen's 1.2 J included.
  expect(bind?.localEnergyJ).toBeCloseTo(0.85, 9)
})

test('the SoC rails are the CPU clusters, memory and the interconnect; not sensors, TPU or disk', () => {
  const names: Array<[string, string | undefined, boolean]> = [
    ['S4M_VDD_CPUCL0', 'CPU(LITTLE)', true],
    ['CPU_BIG', undefined, true],
    ['L21S_VDD2L_MEM', 'Memory', true],
    ['S5M_VDD_INT', 'System', true],
    ['S10M_VDD_TPU', 'INFRASTRUCTURE', true],
    ['L2S_VDD_AOC_RET', 'AOC', false],
    ['S1M_VDD_SENSOR', 'Sensor', false],
    ['S12S_VDD_TPU', 'TPU', false],
    ['UFS', 'UFS(Disk)', false],
    ['VSYS_PWR_DISPLAY', 'Display', false],
    ['L9S_GNSS_CORE', 'GPS', false],
  ]
  for (const [rail, subsystem, expected] of names) {
    expect(followsCpu({ rail, ...(subsystem ? { subsystem } : {}) }), rail).toBe(expected)
  }
})

test('cluster rails are matched to cpufreq clusters by CPUCL<n>, else LITTLE/MID/BIG', () => {
  expect(clusterOfRail({ rail: 'S4M_VDD_CPUCL0', subsystem: 'CPU(LITTLE)' }, 3)).toBe(0)
  expect(clusterOfRail({ rail: 'S2M_VDD_CPUCL2', subsystem: 'CPU(BIG)' }, 3)).toBe(2)
  expect(clusterOfRail({ rail: 'CPU_BIG' }, 3)).toBe(2)
  expect(clusterOfRail({ rail: 'CPU_MID' }, 3)).toBe(1)
  expect(clusterOfRail({ rail: 'CPU_MID' }, 2), 'no middle cluster on a 2-cluster SoC').toBe(
    undefined,
  )
  expect(clusterOfRail({ rail: 'X_BIG', subsystem: 'CPU(BIG)' }, 2)).toBe(1)
  expect(clusterOfRail({ rail: 'S2M_VDD_CPUCL2' }, 2), 'no such cluster').toBe(undefined)
  expect(clusterOfRail({ rail: 'S5M_VDD_INT', subsystem: 'System' }, 3)).toBe(undefined)
})

test('cpuMethodPower names each cluster rail’s CPUs when the layout is known', () => {
  const big = rail('S2M_VDD_CPUCL2', 'CPU(BIG)', () => 0.3)
  const system = rail('S5M_VDD_INT', 'System', () => 0.1)
  const mp = cpuMethodPower([cpu, big, system, display], window, undefined, [
    [0, 1, 2, 3],
    [4, 5],
    [6, 7],
  ])
  expect(mp?.parts.map((p) => p.cpus)).toEqual([[0, 1, 2, 3], [6, 7], undefined])
  expect(mp?.baselinePowerW).toBeCloseTo(0.05 + 0.3 + 0.1, 12)
  const noLayout = cpuMethodPower([cpu, big], window)
  expect(noLayout?.parts.map((p) => p.cpus)).toEqual([undefined, undefined])
})

test('a CPU schedule in which none of the method data’s threads ran is dropped with W_SCHEDULE_UNMATCHED', () => {
  const { result } = scroll({
    schedule: {
      source: 'test',
      clock: 'boottime',
      cpus: [0],
      lostEvents: false,
      slices: [{ cpu: 0, tid: 999, startNs: 200 * MS, endNs: 400 * MS }],
    },
  })
  expect(result.warnings.map((w) => w.code)).toContain('W_SCHEDULE_UNMATCHED')
  // Divided as without a schedule: all of the CPU rail's 0.1 J above its floor to bind.
  expect(
    result.methods.find((m) => m.method === 'com.example.Feed.bind')?.localEnergyJ,
  ).toBeCloseTo(0.1, 9)
})

test('the part of the memory rail that goes with the GPU rail is taken out of what methods divide', () => {
  // Per 100 ms interval: CPU and GPU power vary independently; memory = 20 mW floor + 10% of the
  // CPU's power above its floor + 0.2 W per W of GPU power.
  const cpuW = [0.05, 0.55, 0.3, 0.05, 0.8, 0.4, 0.05, 0.2, 0.6, 0.05]
  const gpuW = [0, 0.4, 0, 0.46, 0, 0.2, 0.46, 0, 0.1, 0]
  const at = (list: number[]) => (ms: number) => list[Math.floor(ms / 100)] ?? 0
  const little = rail('S4M_VDD_CPUCL0', 'CPU(LITTLE)', at(cpuW))
  const gpu = rail('S2S_VDD_G3D', 'GPU', at(gpuW))
  const memory = rail('S1M_VDD_MIF', 'Memory', (ms) => {
    const i = Math.floor(ms / 100)
    return 0.02 + 0.1 * ((cpuW[i] ?? 0) - 0.05) + 0.2 * (gpuW[i] ?? 0)
  })
  expect(followsCpu(gpu), 'the GPU rail is not divided among methods').toBe(false)
  const power = cpuMethodPower([little, memory, gpu], window)
  expect(power?.parts).toHaveLength(2)
  const mem = power!.parts[1]!
  // What is left of the memory rail above its floor is the CPU-driven 10% only.
  for (let i = 0; i < 10; i++) {
    const netJ = mem.curve.energyJ(i * 100 * MS, (i + 1) * 100 * MS) - mem.baselinePowerW * 0.1
    expect(netJ, `interval ${i}`).toBeCloseTo(0.1 * ((cpuW[i] ?? 0) - 0.05) * 0.1, 9)
  }
  // The whole curve agrees with its parts.
  expect(power!.curve.energyJ(0, 1000 * MS)).toBeCloseTo(
    power!.parts.reduce((a, p) => a + p.curve.energyJ(0, 1000 * MS), 0),
    12,
  )
  // Without GPU activity nothing is taken out.
  const still = rail('S2S_VDD_G3D', 'GPU', () => 0)
  const plain = cpuMethodPower([little, memory, still], window)
  expect(plain!.parts[1]!.curve.energyJ(0, 1000 * MS)).toBeCloseTo(
    memory.readings.at(-1)!.energyJ,
    12,
  )
})

test('with a schedule, the memory rail’s floor is fitted against the CPU and GPU rails that drive it, not running time', () => {
  // Per 100 ms interval: the little cluster's power above its 50 mW floor is 0.8 W × its busy
  // fraction (one thread on CPU 0 at the start of each interval); memory = 20 mW + 10% of that
  // + 0.2 W per W of GPU power, the GPU busy in other intervals than the CPU.
  const netW = [0, 0.5, 0.25, 0, 0.75, 0.35, 0, 0.15, 0.55, 0]
  const gpuW = [0, 0.4, 0, 0.46, 0, 0.2, 0.46, 0, 0.1, 0]
  const at = (list: number[]) => (ms: number) => list[Math.floor(ms / 100)] ?? 0
  const little = rail('S4M_VDD_CPUCL0', 'CPU(LITTLE)', (ms) => 0.05 + at(netW)(ms))
  const gpu = rail('S2S_VDD_G3D', 'GPU', at(gpuW))
  const memory = rail(
    'S1M_VDD_MIF',
    'Memory',
    (ms) => 0.02 + 0.1 * at(netW)(ms) + 0.2 * at(gpuW)(ms),
  )
  const schedule = {
    source: 'test',
    clock: 'boottime' as const,
    cpus: [0],
    lostEvents: false,
    slices: netW
      .map((w, i) => ({
        cpu: 0,
        tid: 1,
        startNs: i * 100 * MS,
        endNs: (i * 100 + (w / 0.8) * 100) * MS,
      }))
      .filter((s) => s.endNs > s.startNs),
  }
  const power = cpuMethodPower([little, memory, gpu], window, undefined, [[0]], schedule)
  const [cluster, mem] = power?.parts ?? []
  expect(cluster?.baselinePowerW).toBeCloseTo(0.05, 9)
  expect(mem?.baselinePowerW).toBeCloseTo(0.02, 9)
  // Running time alone (the fit the other rails get) cannot tell the frames' traffic from the
  // floor here: its floor is off, and every interval's excess would go to whatever ran.
  const byRunning = fittedFloorW(
    { curve: railsCurve([memory]), baselinePowerW: 0, followsCorePower: true },
    schedule,
    window,
  )
  expect(Math.abs((byRunning ?? 0) - 0.02)).toBeGreaterThan(1e-3)
  // What methods divide of the memory rail is the CPU-driven 10% only.
  for (let i = 0; i < 10; i++) {
    const netJ = (mem?.curve.energyJ(i * 100 * MS, (i + 1) * 100 * MS) ?? 0) - 0.02 * 0.1
    expect(netJ, `interval ${i}`).toBeCloseTo(0.1 * (netW[i] ?? 0) * 0.1, 9)
  }
})

test('leastSquares recovers the coefficients of an exact fit, and refuses columns it cannot tell apart', () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: -5, max: 5, noNaN: true }), { minLength: 3, maxLength: 3 }),
      fc.integer({ min: 1, max: 1e6 }),
      (coefficients, seed) => {
        let x = seed
        const next = () => ((x = (x * 48271) % 2147483647) / 2147483647) * 2 - 1
        const columns = [0, 1, 2].map(() => Array.from({ length: 40 }, next))
        const y = columns[0]!.map((_, j) =>
          columns.reduce((s, col, k) => s + (coefficients[k] as number) * (col[j] as number), 0),
        )
        const fit = leastSquares(columns, y, 1e-9)
        expect(fit).toBeDefined()
        fit?.forEach((c, k) => expect(c).toBeCloseTo(coefficients[k] as number, 8))
      },
    ),
  )
  const u = [1, 2, 3, 4]
  expect(leastSquares([u, u.map((v) => 2 * v)], [1, 1, 1, 1], 1e-9)).toBeUndefined()
  expect(leastSquares([u, [0, 0, 0, 0]], [1, 1, 1, 1], 1e-9)).toBeUndefined()
})
