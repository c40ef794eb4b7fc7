// Energy windows as the fixture builds them, with the figures a reader would see on a Pixel 6:
// their timelines and call trees come from synthetic sensor readings (ODPM every 100 ms, or a
// fuel gauge every second) and 1 kHz stack samples, through the code the fixture uses.
import { CallTreeBuilder, powerCurve, reportDetail } from '../../../../src/attribution/index.js'
import {
  measuredResult,
  methodEnergy,
  summarize,
  type CarriedInEnergy,
  type EnergyWarning,
  type MethodColor,
  type MethodEnergy,
  type MeasuredEnergyResult,
  type PowerSeries,
  type RailSeries,
  type StackSample,
  type TestEnergyMeta,
} from '../../../../src/model/index.js'

/** A test name (and label, and warning) that is markup: the report must show it as text. */
export const HOSTILE =
  '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> & "quotes" </title>'

const PIXEL_6 = { serial: 'emulator-5554', model: 'Pixel 6' }
/** Boot time of the first window, ns. */
const T0 = 1_843_000_000_000

export interface WindowSpec {
  readonly label: string
  /** Seconds after T0. */
  readonly at: number
  readonly durationS: number
  readonly grossEnergyJ: number
  /** Rail name → share of gross; empty for the fuel gauge. */
  readonly rails?: Readonly<Record<string, readonly [subsystem: string, share: number]>>
  readonly methods?: readonly MethodEnergy[]
  readonly warnings?: readonly EnergyWarning[]
  readonly intervalJ?: number
  /** A method's callers, outermost first (default: the main thread's looper). */
  readonly callers?: Readonly<Record<string, readonly string[]>>
  /** Asynchronous energy an earlier window left running. */
  readonly carriedIn?: readonly CarriedInEnergy[]
}

export const PIXEL_RAILS = {
  S4M_VDD_CPUCL0: ['CPU(LITTLE)', 0.18],
  S3M_VDD_CPUCL1: ['CPU(MID)', 0.12],
  S2M_VDD_CPUCL2: ['CPU(BIG)', 0.22],
  S5M_VDD_INT: ['Display', 0.28],
  S9M_VDD_WLAN: ['WLAN', 0.08],
} as const

export function window(spec: WindowSpec): MeasuredEnergyResult {
  const rails = Object.entries(spec.rails ?? {}).map(([rail, [subsystem, share]]) => ({
    rail,
    subsystem,
    energyJ: spec.grossEnergyJ * share,
  }))
  const startNs = T0 + spec.at * 1e9
  const net = spec.grossEnergyJ - 0.25 * spec.durationS
  const result = measuredResult({
    label: spec.label,
    window: { clock: 'boottime', startNs, endNs: startNs + spec.durationS * 1e9 },
    grossEnergyJ: spec.grossEnergyJ,
    baselinePowerW: 0.25,
    ...(spec.intervalJ === undefined
      ? {}
      : { netIntervalJ: { low: net - spec.intervalJ, high: net + spec.intervalJ, level: 0.95 } }),
    components: [
      { component: 'cpu', energyJ: spec.grossEnergyJ * 0.52 },
      { component: 'screen', energyJ: spec.grossEnergyJ * 0.28 },
      { component: 'wifi', energyJ: spec.grossEnergyJ * 0.08 },
    ],
    rails,
    methods: spec.methods ?? [],
    sources:
      rails.length > 0
        ? {
            power: 'odpm',
            execution: 'simpleperf',
            sampleCount: 10 * spec.durationS,
            sensorRateHz: 10,
          }
        : {
            power: 'fuel-gauge',
            execution: 'art-sampling',
            sampleCount: spec.durationS,
            sensorRateHz: 1,
          },
    warnings: spec.warnings ?? [],
    device: PIXEL_6,
    battery: {
      capacityJ: 66_000,
      percentOfCapacity: (100 * spec.grossEnergyJ) / 66_000,
      percentPerHour: (100 * (spec.grossEnergyJ / spec.durationS) * 3600) / 66_000,
    },
  })
  return { ...result, ...windowDetail(result, spec) }
}

const LOOPER = ['android.app.ActivityThread.main', 'android.os.Looper.loop']

/** A positive, wavy power shape; each rail gets its own phase. */
const shape = (tS: number, durationS: number, k: number): number =>
  1 + 0.8 * Math.max(0, Math.sin((6 * Math.PI * tS) / durationS + 1.3 * k)) + 0.1 * k

/**
 * The timeline and call tree the fixture would attach: rails read every 100 ms (a fuel gauge every
 * second) from just before to just after the window, scaled so each rail's energy in the window is
 * its figure; 1 kHz stack samples, each method in its own stretch of the window, worth its self
 * energy in total.
 */
export function windowDetail(
  w: MeasuredEnergyResult,
  spec: Pick<WindowSpec, 'callers' | 'carriedIn'> = {},
): Pick<MeasuredEnergyResult, 'timeline' | 'callTree'> {
  const startNs = w.window.startNs
  const d = w.durationS
  let power: readonly RailSeries[] | PowerSeries
  if (w.rails.length > 0) {
    const ticks = Math.round(d / 0.1)
    power = w.rails.map((r, k) => {
      const raw = Array.from({ length: ticks + 2 }, (_, j) => shape((j - 0.5) * 0.1, d, k))
      const inside = raw.slice(1, ticks + 1).reduce((a, b) => a + b, 0)
      let e = 0
      const readings = [{ tNs: startNs - 1e8, energyJ: 0 }]
      raw.forEach((x, j) => {
        e += (x / inside) * r.energyJ
        readings.push({ tNs: startNs + j * 1e8, energyJ: e })
      })
      return {
        kind: 'cumulative',
        rail: r.rail,
        ...(r.subsystem === undefined ? {} : { subsystem: r.subsystem }),
        source: 'odpm',
        clock: 'boottime',
        readings,
      }
    })
  } else {
    const raw: PowerSeries = {
      kind: 'instant',
      source: w.sources.power,
      clock: 'boottime',
      samples: Array.from({ length: Math.ceil(d) + 3 }, (_, j) => ({
        tNs: startNs + (j - 1) * 1e9,
        powerW: shape(j - 1, d, 0),
      })),
    }
    const scale = w.grossEnergyJ / powerCurve(raw).energyJ(startNs, w.window.endNs)
    power = { ...raw, samples: raw.samples.map((x) => ({ ...x, powerW: x.powerW * scale })) }
  }
  // Each charged method runs in its own stretch of the window, its samples worth its self energy.
  const charged = w.methods.filter((m) => m.localEnergyJ > 0)
  const totalJ = charged.reduce((sum, m) => sum + m.localEnergyJ, 0)
  const counts = charged.map((m) => Math.max(1, Math.round((1000 * d * m.localEnergyJ) / totalJ)))
  const n = counts.reduce((a, b) => a + b, 0)
  const samples: StackSample[] = []
  const tree = new CallTreeBuilder()
  charged.forEach((m, k) => {
    const count = counts[k] as number
    const frames = [m.method, ...[...(spec.callers?.[m.method] ?? LOOPER)].reverse()]
    for (let i = 0; i < count; i++) {
      const s: StackSample = {
        tNs: startNs + ((samples.length + 0.5) / n) * d * 1e9,
        threadId: 1,
        threadName: 'main',
        frames,
        periodNs: 1e6,
      }
      samples.push(s)
      tree.addSample(s, m.localEnergyJ / count)
    }
  })
  return reportDetail({
    result: w,
    power,
    activity: { clock: 'boottime', samples, lostCount: 0 },
    tree,
    ...(spec.carriedIn === undefined ? {} : { carriedIn: spec.carriedIn }),
  })
}

export function method(
  name: string,
  selfJ: number,
  calleesJ = 0,
  color?: MethodColor,
  asyncJ?: number,
): MethodEnergy {
  return methodEnergy({
    method: name,
    attribution: 'sampling',
    localEnergyJ: selfJ,
    nonLocalEnergyJ: calleesJ,
    ...(asyncJ === undefined ? {} : { asyncEnergyJ: asyncJ }),
    ...(color === undefined ? {} : { color }),
    localSamples: Math.round(selfJ * 400),
  })
}

/** A test's energy meta; each asks for a budget, as with the plugin's `checkBudgets: true`. */
export function meta(...windows: MeasuredEnergyResult[]): TestEnergyMeta {
  return summarize(windows, { budgetRequested: true })
}
