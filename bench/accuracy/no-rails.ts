/**
 * Accuracy on a phone without power rails (issue 27): the virtual phone with only a fuel gauge
 * (its default, a Qualcomm/MediaTek-like gauge refreshing every second), on battery, with silicon
 * that departs from the power profile it ships (the phone physics' default), running an app model
 * written for this benchmark (`stride-app.json`, not the demo app). Per phone: the product's idle
 * baseline, its active calibration (`calibrateCpuModel`), then random UI windows of 3–8 s measured
 * with the product's collectors (the fuel gauge with its Perfetto schedule, simpleperf) and
 * attributed by the product's own `attributeWindowData`, each compared with `vdev ground-truth`
 * over the same window.
 *
 * The CPU model is priced with one of three profiles: the phone's own (`found`), the same with
 * every cluster's currents off by 30% (`off30`: a profile from another build, or a plugin given the
 * wrong one), or the phone's own without calibration (`nominal`, to show what calibration adds).
 */
import { gaugeUpdates, idlePowerW, type CpuPowerModel } from '../../src/attribution/index.js'
import {
  batteryHistoryReader,
  fuelGaugeCollector,
  resetBatterystats,
  simpleperfCollector,
  type BatteryHistoryReader,
  type CollectorContext,
} from '../../src/collectors/index.js'
import { mapDeviceClock } from '../../src/device/index.js'
import type { PowerProfile } from '../../src/formats/power-profile/index.js'
import type { MeasuredEnergyResult } from '../../src/model/index.js'
import { mulberry32 } from '../../src/stats/index.js'
import {
  calibrateCpuModel,
  calibrationPhaseMs,
  MODEL_VOLTAGE_V,
  nominalCalibration,
  type CpuCalibration,
} from '../../src/session/calibration.js'
import { coreCurrentsFor } from '../../src/session/core-currents.js'
import { attributeWindowData, type WindowPlan } from '../../src/session/window.js'
import {
  loadAppModel,
  type FuelGaugeOptions,
  type GroundTruth,
} from '../../src/virtual-device/index.js'
import { defaultPowerProfile } from '../../src/virtual-device/sim/power-model.js'
import { startFastPhone, waitUntil, type FastPhone } from './session.js'

export type ProfileVariant = 'found' | 'off30' | 'nominal'

export const STRIDE_APP = loadAppModel(new URL('./stride-app.json', import.meta.url).pathname)

/** What one window of the benchmark measured, next to its truth. */
export interface NoRailsWindow {
  readonly label: string
  readonly durationS: number
  readonly grossRelError: number
  /**
   * Methods holding ≥ 10% of the window's app CPU energy that run code of their own (≥ 5% of
   * their inclusive energy is self): estimate vs truth (inclusive).
   */
  readonly methods: readonly {
    readonly method: string
    readonly estimateJ: number
    readonly truthJ: number
  }[]
}

/** A phone's true silicon factors on its profile's currents. */
export interface SiliconFactors {
  readonly clusters: readonly number[]
  readonly active: number
}

export interface NoRailsFigure {
  readonly variant: ProfileVariant
  readonly phones: number
  readonly windows: readonly NoRailsWindow[]
  readonly calibrations: readonly CpuCalibration[]
  /** The phones' true silicon factors (`vdev silicon`), per phone: per cluster, and `cpu.active`'s. */
  readonly silicon: readonly SiliconFactors[]
}

/** Actions: a tab (its x on the tab bar), then a widget's centre. */
const TAB_X: Record<string, number> = {
  home: 108,
  stats: 324,
  photos: 540,
  run: 756,
  settings: 972,
}
const ACTIONS: readonly (readonly [tab: string, y: number])[] = [
  ['home', 380], // sync over Wi-Fi
  ['home', 560], // sync over mobile data
  ['home', 740], // refresh
  ['stats', 380], // this year
  ['stats', 560], // this week
  ['photos', 750], // open a photo
  ['photos', 1380], // share
  ['run', 380], // start a run (GPS, periodic ticks)
  ['run', 560], // lap
  ['settings', 380], // dim
  ['settings', 560], // bright
  ['settings', 740], // export
]

/** The profile the CPU model is priced with for a variant. */
function profileFor(variant: ProfileVariant, seed: number): PowerProfile {
  const shipped = defaultPowerProfile()
  if (variant !== 'off30') return shipped
  const random = mulberry32(seed * 31 + 7)
  const clusters = shipped.cpu.clusters.map((c) => {
    const f = random() < 0.5 ? 0.7 : 1.3
    return {
      ...c,
      corePowerMa: c.corePowerMa.map((ma) => ma * f),
      clusterPowerMa: c.clusterPowerMa * f,
    }
  })
  return { ...shipped, cpu: { ...shipped.cpu, clusters } }
}

/** Runs `phones` phones × `windows` windows of the variant. */
export async function noRailsAccuracy(
  variant: ProfileVariant,
  phones: number,
  windows: number,
  seed: number,
  log: (line: string) => void = () => undefined,
  /** The phones' fuel gauge. @default the virtual phone's (`typical`: 1 s refreshes) */
  sensors?: FuelGaugeOptions,
  /** How much a core's power depends on the code it runs (σ). @default 0 */
  codePowerSpread?: number,
): Promise<NoRailsFigure> {
  const all: NoRailsWindow[] = []
  const calibrations: CpuCalibration[] = []
  const silicon: SiliconFactors[] = []
  for (let p = 0; p < phones; p++) {
    const phoneSeed = seed * 1000 + p + 1
    const phone = await startFastPhone({
      app: STRIDE_APP,
      seed: phoneSeed,
      odpm: false,
      charger: 'none',
      ...(sensors === undefined ? {} : { sensors }),
      ...(codePowerSpread === undefined ? {} : { codePowerSpread }),
    })
    try {
      silicon.push(await trueFactors(phone))
      const fitted = coreCurrentsFor(profileFor(variant, phoneSeed), phone.capabilities.cpuClusters)
      if (fitted.currents === undefined) throw new Error('the profile does not fit the phone')
      const model: CpuPowerModel = {
        clusters: fitted.currents.map((currents, i) => ({
          cpus: phone.capabilities.cpuClusters[i] ?? [],
          currents,
        })),
        activeMa: defaultPowerProfile().cpu.activeMa,
      }
      const idleW = await idleLevel(phone)
      const calibration =
        variant === 'nominal'
          ? nominalCalibration(model, "calibration: 'none'")
          : await calibrateCpuModel({
              device: phone.device,
              model,
              gauge: phone.capabilities.fuelGauge,
              boottime: await mapDeviceClock(phone.device, 'boottime'),
              phaseMs: calibrationPhaseMs(await refreshPeriodS(phone)),
              wait: async (ms) => waitUntil(phone, (await phone.nowNs()) + ms * 1e6),
            })
      calibrations.push(calibration)
      // As the device session does after calibrating: the battery history reset, read per window.
      const history = batteryHistoryReader(await resetBatterystats(phone.device))
      const profile = profileFor(variant, phoneSeed)
      const active = `cpu.active ${calibration.scales.active.toFixed(3)}${calibration.activeSe === undefined ? ' (profile)' : ` ± ${calibration.activeSe.toFixed(3)}`}`
      const truth = silicon.at(-1)
      log(
        `phone ${p + 1}/${phones} (${variant}): ${calibration.kind} ${calibration.scales.clusters.map((s) => s.toFixed(3)).join(' ')}, ${active}; silicon ${truth?.clusters
          .map((s) => s.toFixed(3))
          .join(' ')}, cpu.active ${truth?.active.toFixed(3)}`,
      )
      const rnd = mulberry32(phoneSeed * 104_729)
      for (let i = 0; i < windows; i++) {
        const action = ACTIONS[Math.floor(rnd() * ACTIONS.length)] ?? ACTIONS[0]
        const second = ACTIONS[Math.floor(rnd() * ACTIONS.length)] ?? ACTIONS[0]
        const durationS = 3 + 5 * rnd()
        const w = await measureWindow(
          phone,
          model,
          calibration,
          idleW,
          `w${i}`,
          durationS,
          { profile, history },
          [action as readonly [string, number], second as readonly [string, number]],
        )
        all.push(w)
        log(
          `  ${w.label} ${durationS.toFixed(1)} s gross ${(w.grossRelError * 100).toFixed(2)}%` +
            w.methods
              .map(
                (m) =>
                  ` ${m.method.split('.').slice(-2).join('.')} ${(((m.estimateJ - m.truthJ) / m.truthJ) * 100).toFixed(1)}%`,
              )
              .join(''),
        )
      }
    } finally {
      await phone.close()
    }
  }
  return { variant, phones, windows: all, calibrations, silicon }
}

/** How often the gauge refreshed in the idle window, s (what the session reads off its baseline). */
let lastIdlePeriodS = 1
async function refreshPeriodS(_phone: FastPhone): Promise<number> {
  return lastIdlePeriodS
}

/** The phone's idle level, as the product's idle baseline measures it (a 3 s idle window). */
async function idleLevel(phone: FastPhone): Promise<number> {
  const collector = fuelGaugeCollector({ gauge: phone.capabilities.fuelGauge })
  const context = contextOf(phone, 'idle')
  await collector.start(context)
  const start = await phone.nowNs()
  await waitUntil(phone, start + 3e9)
  const end = await phone.nowNs()
  const data = await collector.stop(context)
  if (data.kind !== 'series') throw new Error('unreachable')
  const refreshes = gaugeUpdates(data.series).samples.length - 1
  lastIdlePeriodS = refreshes > 0 ? (end - start) / 1e9 / refreshes : 10
  return idlePowerW({
    window: { clock: 'boottime', startNs: start, endNs: end },
    power: data.series,
  })
}

let counter = 0
function contextOf(phone: FastPhone, name: string): CollectorContext {
  return {
    device: phone.device,
    app: phone.app.package,
    deviceDir: '/data/local/tmp/vitest-energy',
    windowId: `nr${name}${(counter++).toString(36)}`,
  }
}

/**
 * One window as the product measures it (src/session/window.ts's openWindow and close, with the
 * edges read on the fast clock): the recorders start, the window opens right after the gauge's
 * next refresh, the taps run, the window ends, the first refresh past the end lands, the recorders
 * stop, `attributeWindowData` attributes; then the ground truth of the same window.
 */
async function measureWindow(
  phone: FastPhone,
  model: CpuPowerModel,
  calibration: CpuCalibration,
  idleW: number,
  label: string,
  durationS: number,
  components: { readonly profile: PowerProfile; readonly history: BatteryHistoryReader },
  actions: readonly (readonly [string, number])[],
): Promise<NoRailsWindow> {
  const power = fuelGaugeCollector({
    gauge: phone.capabilities.fuelGauge,
    schedule: true,
    edges: 'wait',
    components: { ...components, voltageV: MODEL_VOLTAGE_V },
  })
  const execution = simpleperfCollector({ frequencyHz: 1000 })
  const context = contextOf(phone, label)
  await Promise.all([power.start(context), execution.start(context)])
  await power.awaitStartReading?.(context)
  const startNs = await phone.nowNs()
  for (const [tab, y] of actions) {
    await phone.sh(`input tap ${TAB_X[tab] ?? 108} 2300; input tap 540 ${y}`)
    await waitUntil(phone, (await phone.nowNs()) + (durationS / actions.length) * 1e9)
  }
  const endNs = await phone.nowNs()
  await power.awaitEndReading?.(context)
  const [executionData, powerData] = await Promise.all([
    execution.stop(context),
    power.stop(context),
  ])
  const plan: WindowPlan = {
    device: phone.device,
    deviceModel: phone.capabilities.model,
    app: phone.app.package,
    power,
    execution,
    boottime: await mapDeviceClock(phone.device, 'boottime'),
    baseline: { kind: 'configured', powerW: idleW },
    cpuClusters: phone.capabilities.cpuClusters,
    cpuModel: { model, profile: 'benchmark', calibration },
  }
  const result: MeasuredEnergyResult = attributeWindowData(
    plan,
    label,
    { clock: 'boottime', startNs, endNs },
    powerData,
    executionData,
  )
  const truth: GroundTruth = await phone.groundTruth(startNs, endNs)
  const estimates = new Map(result.methods.map((m) => [m.method, m.inclusiveEnergyJ]))
  return {
    label,
    durationS: (endNs - startNs) / 1e9,
    grossRelError: (result.grossEnergyJ - truth.totalEnergyJ) / truth.totalEnergyJ,
    methods: truth.methods
      .filter((m) => m.inclusiveEnergyJ >= 0.1 * truth.appCpuEnergyJ && m.inclusiveEnergyJ > 0)
      // Methods that run code of their own: not the frames every stack passes through
      // (`Looper.loop`, `__start_thread`), whose inclusive figure is the whole thread's.
      .filter((m) => m.selfEnergyJ >= 0.05 * m.inclusiveEnergyJ)
      .map((m) => ({
        method: m.method,
        estimateJ: estimates.get(m.method) ?? 0,
        truthJ: m.inclusiveEnergyJ,
      })),
  }
}

/** The phone's true silicon factors (`vdev silicon`, ground truth for the log). */
async function trueFactors(phone: FastPhone): Promise<SiliconFactors> {
  try {
    const silicon = JSON.parse(await phone.sh('vdev silicon')) as {
      readonly clusters?: readonly { readonly factor: number }[]
      readonly cpuActive?: { readonly factor: number }
    }
    return {
      clusters: (silicon.clusters ?? []).map((c) => c.factor),
      active: silicon.cpuActive?.factor ?? Number.NaN,
    }
  } catch {
    return { clusters: [], active: Number.NaN }
  }
}

/**
 * The largest |calibrated `cpu.active` scale − its silicon factor| over the figure's phones (the
 * fit's scale also absorbs what the model's structure misses, so a few percent is no error).
 */
export function activeScaleError(figure: NoRailsFigure): number {
  return Math.max(
    ...figure.calibrations.map((c, p) =>
      Math.abs(c.scales.active - (figure.silicon[p]?.active ?? Number.NaN)),
    ),
  )
}

/** Mean of |estimate − truth| / truth over every (window, method) pair. */
export function methodMmre(windows: readonly NoRailsWindow[]): number {
  const errors = windows.flatMap((w) =>
    w.methods.map((m) => Math.abs(m.estimateJ - m.truthJ) / m.truthJ),
  )
  return errors.length === 0 ? Number.NaN : errors.reduce((a, e) => a + e, 0) / errors.length
}
