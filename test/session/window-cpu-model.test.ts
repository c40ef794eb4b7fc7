// A window on a phone without power rails, attributed from what its collectors returned (no
// device): methods get the CPU model's energy of their own threads, with where it came from; what
// is missing (the model, the schedule, cpufreq events, a gauge that never refreshes) is said, and
// no whole-phone energy lands on methods.
import { describe, expect, test } from 'vitest'
import { PROFILE_RELATIVE_SD, type CpuPowerModel } from '../../src/attribution/index.js'
import type { PowerCollector, PowerData, ExecutionData } from '../../src/collectors/index.js'
import type { AdbDevice, DeviceClockMapping } from '../../src/device/index.js'
import type { CpuSchedule, StackSample } from '../../src/model/index.js'
import {
  NOT_CALIBRATED_ON_PURPOSE,
  nominalCalibration,
  type CpuCalibration,
} from '../../src/session/calibration.js'
import { attributeWindowData, type WindowPlan } from '../../src/session/window.js'

const S = 1e9
const MS = 1e6
const MODEL: CpuPowerModel = {
  clusters: [
    {
      cpus: [0, 1],
      currents: { speedsKhz: [500_000, 1_000_000], currentsMa: [50, 120], clusterMa: 5 },
    },
    { cpus: [2], currents: { speedsKhz: [1_000_000, 2_000_000], currentsMa: [200, 500] } },
  ],
  activeMa: 10,
}
const WINDOW = { clock: 'boottime' as const, startNs: 10 * S, endNs: 14 * S }

/** A fuel gauge polled every 20 ms that refreshes every second (or never), 1.5 W. */
function gauge(refreshes = true): PowerData {
  const samples = []
  for (let t = 9 * S; t <= 15.5 * S; t += 20 * MS) {
    const k = Math.floor(t / S)
    samples.push({ tNs: t, powerW: refreshes ? 1.5 + 0.01 * (k % 3) : 1.5 })
  }
  return {
    kind: 'series',
    series: { kind: 'instant', source: 'fuel-gauge', clock: 'boottime', samples },
    ...{ schedule: schedule() },
    warnings: [],
  }
}

/** The app's main thread (tid 100) on cpu2 for 1 s, its pool thread (101) on cpu0; another process on cpu1. */
function schedule(frequencies = true): CpuSchedule {
  return {
    source: 'test',
    clock: 'boottime',
    cpus: [0, 1, 2],
    lostEvents: false,
    slices: [
      { cpu: 0, tid: 101, startNs: 11 * S, endNs: 12 * S },
      { cpu: 1, tid: 900, startNs: 11 * S, endNs: 13 * S },
      { cpu: 2, tid: 100, startNs: 11 * S, endNs: 12 * S },
    ],
    ...(frequencies
      ? {
          frequencies: [0, 1, 2].map((cpu) => ({
            cpu,
            tNs: 9 * S,
            khz: cpu === 2 ? 2_000_000 : 1_000_000,
          })),
        }
      : {}),
  }
}

function samples(): ExecutionData {
  const list: StackSample[] = []
  for (let t = 11 * S + 0.5 * MS; t < 12 * S; t += MS) {
    list.push({ tNs: t, threadId: 100, frames: ['com.example.Main.work'], periodNs: MS })
    list.push({ tNs: t, threadId: 101, frames: ['com.example.Pool.decode'], periodNs: MS })
  }
  return {
    kind: 'stacks',
    samples: { clock: 'boottime', samples: list, lostCount: 0 },
    warnings: [],
  }
}

function plan(calibration?: CpuCalibration, model = true): WindowPlan {
  const boottime = { offsetNs: 0, uncertaintyNs: 0 } as DeviceClockMapping
  return {
    device: { serial: 'fake-1' } as AdbDevice,
    deviceModel: 'Fake',
    app: 'com.example',
    power: { name: 'fuel-gauge' } as PowerCollector,
    execution: { name: 'simpleperf' } as WindowPlan['execution'] & object,
    boottime,
    baseline: { kind: 'configured', powerW: 1.4 },
    ...(model
      ? {
          cpuModel: {
            model: MODEL,
            profile: 'test profile',
            calibration: calibration ?? {
              kind: 'active',
              scales: { clusters: [1.2, 0.9], active: 0.95 },
              clusterSe: [0.012, 0.018],
              activeSe: 0.0095,
            },
          },
        }
      : {}),
  }
}

const V = 3.85 / 1000
const codes = (r: { warnings: readonly { code: string }[] }): string[] =>
  r.warnings.map((w) => w.code)

describe('a window on a phone without rails', () => {
  test("each method gets its own thread's modelled CPU energy, scaled by the calibration, with its source", () => {
    const r = attributeWindowData(plan(), 'w', WINDOW, gauge(), samples())
    const main = r.methods.find((m) => m.method === 'com.example.Main.work')
    const pool = r.methods.find((m) => m.method === 'com.example.Pool.decode')
    // Main: cpu2 alone at 2 GHz (500 mA) × 0.9; cpu.active (× 0.95) shared with the two others
    // for 1 s.
    expect(main?.inclusiveEnergyJ).toBeCloseTo(0.9 * 500 * V + (0.95 * 10 * V) / 3, 9)
    // Pool: cpu0 at 1 GHz (120 mA) + the cluster's 5 mA shared with the other process on cpu1.
    expect(pool?.inclusiveEnergyJ).toBeCloseTo(1.2 * (120 + 5 / 2) * V + (0.95 * 10 * V) / 3, 9)
    expect(r.sources.methodEnergy).toMatchObject({
      kind: 'cpu-model',
      profile: 'test profile',
      calibration: 'active',
      clusterScales: [1.2, 0.9],
      activeScale: 0.95,
    })
    // What the window adds to the run's fit: the model's energies at the profile's currents.
    const observation = r.sources.methodEnergy?.observation
    expect(observation?.clusterJ[1]).toBeCloseTo(500 * V, 9)
    expect(observation?.activeJ).toBeCloseTo(10 * V * 2, 9)
    expect(observation?.measuredJ).toBeCloseTo(r.grossEnergyJ, 9)
    // The interval carries the calibration's error (2% on cluster 1, the larger: cpu.active's 1%
    // counts for its share of the window's CPU energy) in quadrature with the samples' own.
    const exact = attributeWindowData(
      plan({
        kind: 'active',
        scales: { clusters: [1.2, 0.9], active: 0.95 },
        clusterSe: [0, 0],
        activeSe: 0,
      }),
      'w',
      WINDOW,
      gauge(),
      samples(),
    ).methods.find((m) => m.method === 'com.example.Main.work')
    const width = (i: { low: number; high: number } | undefined): number =>
      ((i?.high ?? 0) - (i?.low ?? 0)) / 2
    const own = width(exact?.inclusiveIntervalJ)
    const calibrated = 1.96 * 0.02 * (main?.inclusiveEnergyJ ?? 0)
    expect(width(main?.inclusiveIntervalJ)).toBeCloseTo(Math.hypot(own, calibrated), 9)
    expect(codes(r)).not.toContain('W_CALIBRATION_NOMINAL')
  })

  test("the net's interval carries the gauge's reading noise: a steady idle baseline's spread of 0 is no measurement of it", () => {
    const calibration: CpuCalibration = {
      kind: 'active',
      scales: { clusters: [1.2, 0.9], active: 0.95 },
      clusterSe: [0.012, 0.018],
      activeSe: 0.0095,
      gauge: { periodS: 1, tauS: 0, noiseW: 0.008 },
    }
    const r = attributeWindowData(plan(calibration), 'w', WINDOW, gauge(), samples())
    const half = ((r.netIntervalJ?.high ?? 0) - (r.netIntervalJ?.low ?? 0)) / 2
    // 4 s of a 1 s gauge: four readings, each 8 mW off: σ = 0.008 · 4 / √4.
    expect(half).toBeCloseTo(1.96 * ((0.008 * 4) / 2), 9)
    // Uncalibrated: no gauge noise known, the idle baseline's noise alone (none configured here).
    const { gauge: _, ...without } = calibration
    const bare = attributeWindowData(plan(without), 'w', WINDOW, gauge(), samples())
    expect((bare.netIntervalJ?.high ?? 0) - (bare.netIntervalJ?.low ?? 0)).toBeCloseTo(0, 12)
  })

  test("the report's power chart draws each gauge refresh over the period it averaged, not after it", () => {
    // The refresh at 12 s reads the period 11–12 s, when the app's threads ran: 3 W, else 1.5 W.
    const base = gauge() as Extract<PowerData, { kind: 'series' }>
    const samples12 = base.series.samples.map((x) => ({
      tNs: x.tNs,
      powerW: x.tNs >= 12 * S && x.tNs < 13 * S ? 3 : 1.5,
    }))
    const r = attributeWindowData(
      plan(),
      'w',
      WINDOW,
      { ...base, series: { ...base.series, samples: samples12 } },
      samples(),
    )
    const timeline = r.timeline
    const meanW = (fromS: number, toS: number): number => {
      let j = 0
      let t = 0
      timeline?.series[0]?.powerW.forEach((w, i) => {
        const a = Math.max(fromS, timeline.edgesS[i] ?? 0)
        const b = Math.min(toS, timeline.edgesS[i + 1] ?? 0)
        if (b > a) {
          j += w * (b - a)
          t += b - a
        }
      })
      return j / t
    }
    // Window-relative: the work ran 1–2 s into the window.
    expect(meanW(1, 2)).toBeGreaterThan(2.5)
    expect(meanW(2.2, 3)).toBeLessThan(1.7)
  })

  test("cpu.active the calibration could not tell: the profile's value, its ±30% in the interval for its share", () => {
    const calibration: CpuCalibration = {
      kind: 'active',
      scales: { clusters: [1.2, 0.9], active: 1 },
      clusterSe: [0, 0],
      why: "cpu.active kept the profile's current: the fuel gauge could not tell it",
    }
    const r = attributeWindowData(plan(calibration), 'w', WINDOW, gauge(), samples())
    expect(r.sources.methodEnergy?.activeScale).toBeUndefined()
    expect(r.sources.methodEnergy?.note).toMatch(/cpu\.active kept the profile's current/)
    const exact = attributeWindowData(
      plan({ ...calibration, activeSe: 0 }),
      'w',
      WINDOW,
      gauge(),
      samples(),
    )
    const method = (x: typeof r) => x.methods.find((m) => m.method === 'com.example.Main.work')
    const width = (i: { low: number; high: number } | undefined): number =>
      ((i?.high ?? 0) - (i?.low ?? 0)) / 2
    const o = r.sources.methodEnergy?.observation
    const share =
      (o?.activeJ ?? 0) / ((o?.activeJ ?? 0) + (o?.clusterJ ?? []).reduce((a, j) => a + j, 0))
    expect(share).toBeGreaterThan(0)
    const half = 1.96 * share * PROFILE_RELATIVE_SD * (method(r)?.inclusiveEnergyJ ?? 0)
    expect(width(method(r)?.inclusiveIntervalJ)).toBeCloseTo(
      Math.hypot(width(method(exact)?.inclusiveIntervalJ), half),
      9,
    )
  })

  test("the profile as shipped: ±30% intervals and a warning — unless the user chose calibration: 'none'", () => {
    const uncalibrated = attributeWindowData(
      plan(nominalCalibration(MODEL, 'busy loops could not start')),
      'w',
      WINDOW,
      gauge(),
      samples(),
    )
    expect(codes(uncalibrated)).toContain('W_CALIBRATION_NOMINAL')
    const m = uncalibrated.methods[0]
    const half = ((m?.inclusiveIntervalJ?.high ?? 0) - (m?.inclusiveIntervalJ?.low ?? 0)) / 2
    expect(half / (m?.inclusiveEnergyJ ?? 1)).toBeCloseTo(0.3, 2)
    const chosen = attributeWindowData(
      plan(nominalCalibration(MODEL, NOT_CALIBRATED_ON_PURPOSE)),
      'w',
      WINDOW,
      gauge(),
      samples(),
    )
    expect(codes(chosen)).not.toContain('W_CALIBRATION_NOMINAL')
  })

  test('no CPU model: no per-method figures rather than the whole phone spread over them', () => {
    const r = attributeWindowData(plan(undefined, false), 'w', WINDOW, gauge(), samples())
    expect(r.methods).toEqual([])
    expect(r.attributedEnergyJ).toBe(0)
    expect(codes(r)).toContain('W_NO_METHOD_ENERGY')
    expect(r.grossEnergyJ).toBeGreaterThan(0)
  })

  test('no schedule recorded: no per-method figures, and the window still measures', () => {
    const power = gauge()
    const { schedule: _drop, ...without } = power as Extract<PowerData, { kind: 'series' }>
    void _drop
    const r = attributeWindowData(plan(), 'w', WINDOW, without, samples())
    expect(r.methods).toEqual([])
    expect(codes(r)).toContain('W_NO_METHOD_ENERGY')
    expect(r.grossEnergyJ).toBeCloseTo(1.51 * 4, 1)
  })

  test('a trace without cpu_frequency events: priced at mid-table, with a warning that says what to check', () => {
    const power = {
      ...(gauge() as Extract<PowerData, { kind: 'series' }>),
      schedule: schedule(false),
    }
    const r = attributeWindowData(plan(), 'w', WINDOW, power, samples())
    const warning = r.warnings.find((w) => w.code === 'W_NO_CPU_FREQUENCY')
    expect(warning?.message).toMatch(/cpu_frequency/)
    // Mid-table of cluster 1 is 2 GHz (500 mA): the same figure as with the event here.
    expect(
      r.methods.find((m) => m.method === 'com.example.Main.work')?.inclusiveEnergyJ,
    ).toBeCloseTo(0.9 * 500 * V + (0.95 * 10 * V) / 3, 9)
  })

  test('a gauge that never refreshes in the window: said, with how long the window must be', () => {
    const r = attributeWindowData(
      plan({
        kind: 'active',
        scales: { clusters: [1, 1], active: 1 },
        clusterSe: [0.01, 0.01],
        gauge: { periodS: 10, tauS: 0, noiseW: 0.002 },
      }),
      'w',
      WINDOW,
      gauge(false),
      samples(),
    )
    const warning = r.warnings.find((w) => w.code === 'W_GAUGE_NO_REFRESH')
    expect(warning?.message).toMatch(/did not refresh during this 4\.00 s window/)
    expect(warning?.message).toMatch(/10\.0 s on this phone/)
    expect(
      attributeWindowData(plan(), 'w', WINDOW, gauge(true), samples()).warnings.map((w) => w.code),
    ).not.toContain('W_GAUGE_NO_REFRESH')
  })
})

describe('the rest of a phone without rails, as components', () => {
  /** Wi-Fi switched on at 11.5 s by the app (modelled from the battery history: 470 mA × 3.85 V). */
  function withWifi(): PowerData {
    const wifiW = 0.47 * 3.85
    const readings = [
      { tNs: 9 * S, energyJ: 0 },
      { tNs: 11.5 * S, energyJ: 0 },
      { tNs: 11.5 * S + MS, energyJ: wifiW * 0.001 },
      { tNs: 13 * S, energyJ: wifiW * 1.5 },
      { tNs: 15.5 * S, energyJ: wifiW * 1.5 },
    ]
    return {
      ...(gauge() as Extract<PowerData, { kind: 'series' }>),
      components: [
        {
          kind: 'cumulative',
          rail: 'MODEL_WLAN',
          subsystem: 'WLAN (modelled)',
          source: 'batterystats-model',
          clock: 'boottime',
          readings,
        },
      ],
    }
  }

  test('radio energy goes to the method that switched it on, as asynchronous energy, never into CPU figures', () => {
    const r = attributeWindowData(plan(), 'w', WINDOW, withWifi(), samples())
    const main = r.methods.find((m) => m.method === 'com.example.Main.work')
    const pool = r.methods.find((m) => m.method === 'com.example.Pool.decode')
    const wifiJ = 0.47 * 3.85 * 1.5
    // Both threads run when it comes on; charge-to-initiator picks one app method, and the CPU
    // figures are the same as without the radio.
    expect((main?.asyncEnergyJ ?? 0) + (pool?.asyncEnergyJ ?? 0)).toBeCloseTo(wifiJ, 3)
    const plain = attributeWindowData(plan(), 'w', WINDOW, gauge(), samples())
    expect(main?.localEnergyJ).toBeCloseTo(
      plain.methods.find((m) => m.method === 'com.example.Main.work')?.localEnergyJ ?? NaN,
      9,
    )
  })

  test('a modelled radio beyond what the gauge measured above idle: said, with the figures, as an upper bound', () => {
    // The gauge reads a steady 1.5 W against a 1.4 W idle (a net of 0.45 J), while the battery
    // history says Wi-Fi drew 1.81 W for 1.5 s (2.71 J).
    const r = attributeWindowData(plan(), 'w', WINDOW, withWifi(), samples())
    const warning = r.warnings.find((w) => w.code === 'W_MODELS_OVER_MEASURED')
    expect(warning?.message).toMatch(
      /^methods were charged [\d.]+ J, more than the 450 mJ the fuel gauge measured above idle: 2\.71 J of it is what they left on \(wifi 2\.71 J\), .* upper bounds/,
    )
    // Without the radio the same window's methods are CPU figures: nothing to say.
    const plain = attributeWindowData(plan(), 'w', WINDOW, gauge(), samples())
    expect(codes(plain)).not.toContain('W_MODELS_OVER_MEASURED')
  })

  test('components: the CPU model, the modelled Wi-Fi, and what the gauge measured beyond them', () => {
    const r = attributeWindowData(plan(), 'w', WINDOW, withWifi(), samples())
    const of = (c: string) => r.components.find((x) => x.component === c)?.energyJ
    expect(of('wifi')).toBeCloseTo(0.47 * 3.85 * 1.5, 6)
    expect(of('cpu')).toBeGreaterThan(0)
    const sum = r.components.reduce((a, c) => a + c.energyJ, 0)
    expect(sum).toBeCloseTo(r.grossEnergyJ, 9)
  })
})
