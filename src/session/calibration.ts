/**
 * The active calibration of a phone's CPU power model (phones without power rails): a busy loop
 * pinned to one core of each cluster, then to all its cores, between idle stretches, while the
 * fuel gauge watches and Perfetto records where the loops ran and at which frequency — the way
 * `power-calibrate` calibrates Linux machines. Each phase's steady part gives the gauge's energy
 * beside the model's nominal energy per cluster; `fitCpuScales` turns them into a scale per
 * cluster (and for `cpu.active`) with its standard error. Once per phone per run, shared by the
 * run's workers through the run's folder; kept across runs in `.vitest-energy/calibration/` when
 * the `calibration: 'keep'` option asks for it (docs/attribution.md, "Phones without rails").
 */
import {
  cpuModelEnergies,
  fitCpuScales,
  fitGaugeCalibration,
  gaugeUpdates,
  withModelFrequencies,
  type CpuModelScales,
  type CpuPowerModel,
} from '../attribution/index.js'
import { fuelGaugeCollector, type CollectorContext } from '../collectors/index.js'
import {
  parseProcUptime,
  quoteShellArg,
  shell,
  shellScript,
  type AdbDevice,
  type DeviceClockMapping,
  type FuelGaugeCapability,
} from '../device/index.js'
import {
  EnergyError,
  type CpuModelObservation,
  type CpuModelRunFit,
  type CpuSchedule,
  type PowerSeries,
} from '../model/index.js'
import type { Progress } from '../model/progress.js'

/** The battery voltage the model's currents are priced at, V (calibration absorbs the rest). */
export const MODEL_VOLTAGE_V = 3.85

/** How the CPU model's currents were set for a phone. */
export interface CpuCalibration {
  /**
   * `active`: measured on this phone with busy loops (this run, or kept from an earlier one:
   * `measuredAt`); `passive`: fitted over this run's windows, when the busy loops could not run and
   * the windows can tell; `nominal`: the profile's currents as shipped (`why` says why).
   */
  readonly kind: 'active' | 'passive' | 'nominal'
  readonly scales: CpuModelScales
  /** Standard error of each cluster's scale; absent where the calibration could not tell it. */
  readonly clusterSe: readonly (number | null)[]
  readonly activeSe?: number
  /**
   * How the phone's fuel gauge behaves, as the calibration saw it: its refresh period, the time
   * constant of its moving average (0: each reading is its period's average) and its noise.
   */
  readonly gauge?: { readonly periodS: number; readonly tauS: number; readonly noiseW: number }
  /** ISO time of the measurement. */
  readonly measuredAt?: string
  /** The phone it was measured on. */
  readonly serial?: string
  /** Why the profile's currents were kept as shipped, or what the calibration could not tell. */
  readonly why?: string
}

/**
 * The fit's version in a calibration kept by `calibration: 'keep'`. A calibration kept by an
 * earlier fit is measured again: version 2 fits `cpu.active` with the profile's value as a prior,
 * where version 1 (no version field) kept the profile's value whenever the gauge told it roughly.
 */
export const CALIBRATION_FIT_VERSION = 2

/** A calibration as `calibration: 'keep'` stores it. */
export interface KeptCalibration extends CpuCalibration {
  readonly fitVersion: number
}

/**
 * A kept calibration, if it can be used for a phone whose model has `clusterCount` clusters: an
 * active one, from this version of the fit, for as many clusters.
 */
export function usableKeptCalibration(
  kept: unknown,
  clusterCount: number,
): CpuCalibration | undefined {
  if (typeof kept !== 'object' || kept === null) return undefined
  const k = kept as Partial<KeptCalibration>
  if (k.fitVersion !== CALIBRATION_FIT_VERSION || k.kind !== 'active') return undefined
  if (!Array.isArray(k.scales?.clusters) || k.scales.clusters.length !== clusterCount)
    return undefined
  const { fitVersion: _, ...calibration } = k as KeptCalibration
  return calibration
}

/** Why a phone was not calibrated when its user set `calibration: 'none'` (no warning then). */
export const NOT_CALIBRATED_ON_PURPOSE = "calibration: 'none'"

/** The profile as shipped, and why. */
export function nominalCalibration(model: CpuPowerModel, why: string): CpuCalibration {
  return {
    kind: 'nominal',
    scales: { clusters: model.clusters.map(() => 1), active: 1 },
    clusterSe: model.clusters.map(() => null),
    why,
  }
}

export interface CalibrationPlan {
  readonly device: AdbDevice
  readonly model: CpuPowerModel
  readonly gauge: FuelGaugeCapability
  readonly boottime: DeviceClockMapping
  /** How long each phase lasts, ms: long enough for the gauge to settle and then update often. */
  readonly phaseMs: number
  /** Lets `ms` pass on the phone. @default a host timer (a fast-clock virtual device sleeps on the device) */
  readonly wait?: (ms: number) => Promise<void>
  readonly progress?: Progress
}

/** A phase's length for a gauge that updates every `updatePeriodS`: 8 updates, within 4–60 s. */
export function calibrationPhaseMs(updatePeriodS: number): number {
  const s = Number.isFinite(updatePeriodS) && updatePeriodS > 0 ? 8 * updatePeriodS : 4
  return Math.round(Math.min(60, Math.max(4, s)) * 1000)
}

interface Phase {
  readonly label: string
  /** The cluster loaded, and on how many of its cores (0 for the idle phase). */
  readonly cluster?: number
  readonly cores: readonly number[]
  /** Boottime when its loops were running (from `/proc/uptime`), and when the next phase began. */
  startNs: number
  endNs: number
}

/**
 * Runs the busy loops and fits the scales. Whatever happens the loops are killed; a phone that
 * cannot run them (no `taskset`, no perfetto, a gauge that never moved) gives a nominal
 * calibration saying why, not an error: per-method figures are then the profile's.
 */
export async function calibrateCpuModel(plan: CalibrationPlan): Promise<CpuCalibration> {
  const { model, device } = plan
  const phases: Phase[] = [{ label: 'idle', cores: [], startNs: 0, endNs: 0 }]
  model.clusters.forEach((c, k) => {
    const one = c.cpus.slice(0, 1)
    phases.push({ label: `cluster ${k}, 1 core`, cluster: k, cores: one, startNs: 0, endNs: 0 })
    if (c.cpus.length > 1) {
      phases.push({
        label: `cluster ${k}, ${c.cpus.length} cores`,
        cluster: k,
        cores: c.cpus,
        startNs: 0,
        endNs: 0,
      })
    }
  })
  const total = phases.length
  const wait = plan.wait ?? sleep
  const collector = fuelGaugeCollector({ gauge: plan.gauge, schedule: true })
  const context: CollectorContext = {
    device,
    app: 'calibration',
    deviceDir: '/data/local/tmp/vitest-energy',
    windowId: `cal${Date.now().toString(36)}`,
  }
  let pids: string[] = []
  await collector.start(context)
  let endNs: number
  try {
    for (const [i, phase] of phases.entries()) {
      const left = Math.round(((total - i) * plan.phaseMs) / 1000)
      plan.progress?.step('calibrating', {
        detail: `${phase.label} (${left} s left)`,
        line: `calibrating the CPU model of ${device.serial}: ${phase.label}, ${i + 1}/${total} (≈ ${left} s left, once per phone)`,
      })
      const next = await switchLoops(device, pids, phase.cores)
      pids = next.pids
      phase.startNs = next.boottimeNs
      if (i > 0) (phases[i - 1] as Phase).endNs = next.boottimeNs
      await wait(plan.phaseMs)
    }
    endNs = (await switchLoops(device, pids, [])).boottimeNs
    pids = []
  } catch (error) {
    await shell(device, ['kill', ...pids]).catch(() => undefined)
    await collector.abort(context)
    throw error
  }
  ;(phases.at(-1) as Phase).endNs = endNs
  const data = await collector.stop(context)
  if (data.kind !== 'series') throw new Error('unreachable: the fuel gauge gives a series')
  if (data.schedule === undefined) {
    return nominalCalibration(
      model,
      `the calibration recorded no CPU schedule (${data.warnings.map((w) => w.message).join('; ') || 'perfetto did not record'})`,
    )
  }
  return fitRefreshes(plan, data.series, data.schedule)
}

/**
 * Kills the running loops and starts `yes` pinned to each of `cpus` in the background, in one
 * shell; returns their pids and the phone's boottime once they run (`/proc/uptime`).
 */
async function switchLoops(
  device: AdbDevice,
  running: readonly string[],
  cpus: readonly number[],
): Promise<{ pids: string[]; boottimeNs: number }> {
  const kill =
    running.length === 0 ? '' : `kill ${running.map(quoteShellArg).join(' ')} 2>/dev/null; `
  const start = cpus
    .map((cpu) => `taskset ${(2 ** cpu).toString(16)} yes </dev/null >/dev/null 2>&1 & echo $!; `)
    .join('')
  const result = await shellScript(device, `${kill}${start}cat /proc/uptime`)
  const lines = result.stdout.trim().split(/\r?\n/)
  const pids = lines.slice(0, -1).map((l) => l.trim())
  const uptime = parseProcUptime(`${lines.at(-1) ?? ''} `)?.deviceNs
  if (
    uptime === undefined ||
    result.exitCode !== 0 ||
    pids.length !== cpus.length ||
    !pids.every((p) => /^\d+$/.test(p))
  ) {
    await shell(device, ['kill', ...pids.filter((p) => /^\d+$/.test(p))]).catch(() => undefined)
    throw new EnergyError({
      code: 'E_CALIBRATION_FAILED',
      message: `could not start busy loops on cpu ${cpus.join(', ')} (\`taskset <mask> yes\` printed ${JSON.stringify(result.stdout.trim().slice(0, 120))}, exit ${result.exitCode})`,
      hint: "The phone's shell needs toybox's taskset and yes (Android 7+); set calibration: 'none' to use the power profile's currents as shipped.",
      details: { serial: device.serial },
    })
  }
  return { pids, boottimeNs: uptime }
}

/**
 * The fit over every refresh of the gauge during the calibration (`fitGaugeCalibration`): the
 * model's nominal energies at the refreshes' times, from the schedule Perfetto recorded, against
 * the readings; which also says how the gauge averages. A cluster whose loops could not run on
 * its cores (a cpuset keeping the shell off them) is fitted from wherever they ran, and when the
 * refreshes cannot tell its scale it keeps the profile's.
 */
function fitRefreshes(
  plan: CalibrationPlan,
  series: PowerSeries,
  traced: CpuSchedule,
): CpuCalibration {
  const { model } = plan
  const updates = gaugeUpdates(series)
  const times = updates.samples.map((s) => s.tNs)
  const first = times[0]
  const last = times.at(-1)
  if (first === undefined || last === undefined || times.length < model.clusters.length + 4) {
    return nominalCalibration(
      model,
      `the fuel gauge refreshed ${Math.max(0, times.length - 1)} time(s) during the calibration, too few to tell the clusters apart`,
    )
  }
  const schedule = withModelFrequencies(model, traced, {
    clock: 'boottime',
    startNs: first,
    endNs: last,
  })
  const energies = cpuModelEnergies(model, schedule, times, MODEL_VOLTAGE_V)
  const fit = fitGaugeCalibration(
    times,
    updates.samples.map((s) => s.powerW),
    energies,
    model.clusters.length,
  )
  if (fit === undefined || !fit.clusterSe.some((se) => se !== undefined)) {
    return nominalCalibration(
      model,
      `the fuel gauge could not tell the clusters' power apart over ${Math.max(0, times.length - 1)} refreshes`,
    )
  }
  const untold = model.clusters.flatMap((_, k) => (fit.clusterSe[k] === undefined ? [k] : []))
  const why = [
    ...(untold.length === 0
      ? []
      : [
          `cluster ${untold.join(', ')} kept the profile's currents: the fuel gauge could not tell`,
        ]),
    ...(fit.activeSe === undefined
      ? ["cpu.active kept the profile's current: the fuel gauge could not tell it"]
      : []),
  ]
  return {
    kind: 'active',
    scales: fit.scales,
    clusterSe: fit.clusterSe.map((se) => se ?? null),
    ...(fit.activeSe === undefined ? {} : { activeSe: fit.activeSe }),
    gauge: { periodS: fit.gaugePeriodS, tauS: fit.gaugeTauS, noiseW: fit.noiseW },
    measuredAt: new Date().toISOString(),
    serial: plan.device.serial,
    ...(why.length === 0 ? {} : { why: why.join('; ') }),
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * The model fitted over a run's windows on one phone (a passive calibration, vLens-style): each
 * window's gauge energy less its modelled components ≈ P_other·T + Σ s_k·E_k + s_a·E_active, by
 * `fitCpuScales` (weighted by each window's noise, widened by the windows' scatter), reweighted
 * robustly (Tukey's bisquare). The screen and
 * the radios draw most of a phone's energy and vary from window to window, so the windows alone
 * seldom tell the CPU's scales (`cpuShare` says how small it is); when they do, the scales are
 * checked against the phone's active calibration.
 */
export function fitRunWindows(
  observations: readonly CpuModelObservation[],
  clusterCount: number,
  calibration: CpuCalibration | undefined,
): CpuModelRunFit {
  let spans = observations.map((o, i) => ({
    label: `window ${i + 1}`,
    durationS: o.durationS,
    measuredJ: o.measuredJ,
    measuredSeJ: o.noiseJ,
    clusterJ: o.clusterJ,
    activeJ: o.activeJ,
  }))
  let fit = fitCpuScales(spans, clusterCount)
  // Robust, as vLens fits its windows: a few Tukey-bisquare reweightings (c = 4.685 on the residuals
  // over their noise, scaled by their MAD), so one window with something the models do not see (a
  // GPU burst, a screen showing white) does not pull the scales; its noise grows as its weight falls.
  for (let step = 0; step < 3; step++) {
    const z = spans.map((_, i) => {
      const o = observations[i] as CpuModelObservation
      const predicted =
        fit.otherPowerW * o.durationS +
        o.clusterJ.reduce((a, j, k) => a + j * (fit.scales.clusters[k] ?? 1), 0) +
        o.activeJ * fit.scales.active
      return (o.measuredJ - predicted) / (observations[i] as CpuModelObservation).noiseJ
    })
    const sorted = z.map(Math.abs).sort((a, b) => a - b)
    const mad = 1.4826 * (sorted[sorted.length >> 1] ?? 0)
    if (!(mad > 0)) break
    spans = spans.map((sp, i) => {
      const u = (z[i] as number) / (4.685 * mad)
      const w = Math.abs(u) < 1 ? (1 - u * u) ** 2 : 0
      const noise = (observations[i] as CpuModelObservation).noiseJ
      return { ...sp, measuredSeJ: w > 1e-6 ? noise / Math.sqrt(w) : noise * 1e3 }
    })
    fit = fitCpuScales(spans, clusterCount)
  }
  const modelJ = observations.reduce(
    (a, o) => a + o.activeJ + o.clusterJ.reduce((b, j) => b + j, 0),
    0,
  )
  const measuredJ = observations.reduce((a, o) => a + o.measuredJ, 0)
  const scales = fit.clusterSe.map((se, k) =>
    se === undefined ? null : (fit.scales.clusters[k] ?? 1),
  )
  const told = scales.some((s) => s !== null)
  const agrees =
    calibration?.kind === 'active' && told
      ? scales.every((s, k) => {
          const se = fit.clusterSe[k]
          const activeSe = calibration.clusterSe[k]
          if (s === null || se === undefined || activeSe === null || activeSe === undefined)
            return true
          const a = calibration.scales.clusters[k] ?? 1
          return Math.abs(s - a) <= 2 * Math.hypot(se, activeSe)
        })
      : undefined
  return {
    windows: observations.length,
    clusterScales: scales,
    clusterSe: fit.clusterSe.map((se) => se ?? null),
    cpuShare: measuredJ > 0 ? modelJ / measuredJ : 0,
    ...(agrees === undefined ? {} : { agreesWithCalibration: agrees }),
  }
}
