// Energy windows as the fixture builds them, with the figures a reader would see on a Pixel 6.
import {
  measuredResult,
  methodEnergy,
  summarize,
  type EnergyWarning,
  type MethodColor,
  type MethodEnergy,
  type MeasuredEnergyResult,
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
  return measuredResult({
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

export function meta(...windows: MeasuredEnergyResult[]): TestEnergyMeta {
  return summarize(windows)
}
