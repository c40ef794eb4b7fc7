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
  powerCurve,
  withModelFrequencies,
  type CalibrationSpan,
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
import { EnergyError, units, type CpuSchedule, type PowerSeries } from '../model/index.js'
import type { Progress } from '../model/progress.js'

/** The battery voltage the model's currents are priced at, V (calibration absorbs the rest). */
export const MODEL_VOLTAGE_V = 3.85

/** How the CPU model's currents were set for a phone. */
export interface CpuCalibration {
  /**
   * `active`: measured on this phone with busy loops (this run, or kept from an earlier one:
   * `measuredAt`); `nominal`: the profile's currents as shipped (`why` says why).
   */
  readonly kind: 'active' | 'nominal'
  readonly scales: CpuModelScales
  /** Standard error of each cluster's scale; absent where the calibration could not tell it. */
  readonly clusterSe: readonly (number | null)[]
  readonly activeSe?: number
  /** ISO time of the measurement. */
  readonly measuredAt?: string
  /** The phone it was measured on. */
  readonly serial?: string
  /** Why the profile's currents were kept as shipped, or what the calibration could not tell. */
  readonly why?: string
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
  return fitPhases(plan, phases, data.series, data.schedule)
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
 * The steady second half of each phase: the gauge's energy and its standard error, the model's
 * nominal energies; a cluster phase counts only when its loops really ran on that cluster for
 * most of it (a cpuset can keep the shell off the big cores).
 */
function fitPhases(
  plan: CalibrationPlan,
  phases: readonly Phase[],
  series: PowerSeries,
  traced: CpuSchedule,
): CpuCalibration {
  const { model } = plan
  const curve = powerCurve(series, { edges: 'hold' })
  const spans: CalibrationSpan[] = []
  const notes: string[] = []
  for (const phase of phases) {
    const endNs = phase.endNs - 50e6
    const startNs = phase.startNs + (phase.endNs - phase.startNs) / 2
    if (!(endNs > startNs)) continue
    const window = { clock: 'boottime' as const, startNs, endNs }
    const schedule = withModelFrequencies(model, traced, window)
    const durationS = (endNs - startNs) / units.NS_PER_S
    const updates = series.samples.filter(
      (s, i) => s.tNs > startNs && s.tNs <= endNs && s.powerW !== series.samples[i - 1]?.powerW,
    )
    if (updates.length < 2) {
      notes.push(`${phase.label}: the gauge updated ${updates.length} time(s)`)
      continue
    }
    if (phase.cluster !== undefined) {
      const loaded = loadedShare(schedule, phase.cores, startNs, endNs)
      if (loaded < 0.8) {
        notes.push(
          `${phase.label}: the busy loops ran ${(loaded * 100).toFixed(0)}% of the time on their CPUs`,
        )
        continue
      }
    }
    const energies = cpuModelEnergies(model, schedule, [startNs, endNs], MODEL_VOLTAGE_V)
    const powers = updates.map((s) => s.powerW)
    const meanW = powers.reduce((a, p) => a + p, 0) / powers.length
    const sdW = Math.sqrt(
      powers.reduce((a, p) => a + (p - meanW) ** 2, 0) / Math.max(1, powers.length - 1),
    )
    spans.push({
      label: phase.label,
      durationS,
      measuredJ: curve.energyJ(startNs, endNs),
      measuredSeJ: Math.max((sdW / Math.sqrt(powers.length)) * durationS, 1e-6 * durationS),
      clusterJ: energies.clusters.map((c) => c[1] ?? 0),
      activeJ: energies.active[1] ?? 0,
    })
  }
  const fit = fitCpuScales(spans, model.clusters.length)
  const told = fit.clusterSe.some((se) => se !== undefined)
  if (!told) {
    return nominalCalibration(
      model,
      `the fuel gauge could not tell the clusters' power apart${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`,
    )
  }
  const untold = model.clusters.flatMap((_, k) => (fit.clusterSe[k] === undefined ? [k] : []))
  return {
    kind: 'active',
    scales: fit.scales,
    clusterSe: fit.clusterSe.map((se) => se ?? null),
    ...(fit.activeSe === undefined ? {} : { activeSe: fit.activeSe }),
    measuredAt: new Date().toISOString(),
    serial: plan.device.serial,
    ...(untold.length === 0 && notes.length === 0
      ? {}
      : {
          why: [
            ...(untold.length === 0
              ? []
              : [
                  `cluster ${untold.join(', ')} kept the profile's currents: the gauge could not tell`,
                ]),
            ...notes,
          ].join('; '),
        }),
  }
}

/** Share of [startNs, endNs) × |cpus| during which those CPUs ran something. */
function loadedShare(
  schedule: CpuSchedule,
  cpus: readonly number[],
  startNs: number,
  endNs: number,
): number {
  const on = new Set(cpus)
  let busyNs = 0
  for (const s of schedule.slices) {
    if (!on.has(s.cpu)) continue
    const overlap = Math.min(endNs, s.endNs) - Math.max(startNs, s.startNs)
    if (overlap > 0) busyNs += overlap
  }
  return busyNs / ((endNs - startNs) * Math.max(1, cpus.length))
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
