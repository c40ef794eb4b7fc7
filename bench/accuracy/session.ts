/**
 * The accuracy benchmark's view of one virtual phone in fast mode: adb only (like a real phone),
 * window edges read on the device (`vdev now`), ground truth from `vdev ground-truth`.
 *
 * Why not `measureWindow` from src/session/window.ts: it takes the window's edges from the host
 * clock mapped to boottime by a constant offset. In fast mode the device clock moves only when
 * something sleeps, so host time says nothing about device time. `measureFastWindow` below does the
 * same steps (start collectors → body → stop → attributeTest with the same arguments) with edges
 * read on the device clock instead.
 */
import {
  attributeTest,
  cpuMethodPower,
  lowestRailPowerW,
  type Baseline,
  type ExecutionInput,
  type MethodPower,
} from '../../src/attribution/index.js'
import type {
  CollectorContext,
  ExecutionCollector,
  ExecutionData,
  PowerCollector,
  PowerData,
} from '../../src/collectors/index.js'
import {
  connectAdb,
  probeCapabilities,
  shellScript,
  type AdbDevice,
  type Capabilities,
} from '../../src/device/index.js'
import {
  shiftCallTrace,
  type MeasuredEnergyResult,
  type RailSeries,
} from '../../src/model/index.js'
import {
  startVirtualDevice,
  type AppModel,
  type Charger,
  type FuelGaugeOptions,
  type GroundTruth,
  type Physics,
  type VirtualDeviceServer,
} from '../../src/virtual-device/index.js'
import { defaultPowerProfile } from '../../src/virtual-device/sim/power-model.js'

export interface FastPhone {
  readonly server: VirtualDeviceServer
  readonly device: AdbDevice
  readonly capabilities: Capabilities
  readonly app: AppModel
  /** Runs a shell command line on the phone; throws on a non-zero exit. */
  sh(commandLine: string): Promise<string>
  /** Device CLOCK_BOOTTIME, ns. */
  nowNs(): Promise<number>

  groundTruth(fromNs: number, toNs: number): Promise<GroundTruth>
  close(): Promise<void>
  /**
   * Lowest power seen on each rail over this phone's windows (its idle floor), W — kept as the
   * product's DeviceSession keeps it, so per-method CPU power is measured above a real idle level.
   */
  readonly railFloorsW: Map<string, number>
}

/** The physics every fast phone of this process runs (`--physics`; the virtual device's default otherwise). */
let benchPhysics: Physics | undefined

export function useBenchPhysics(physics: Physics | undefined): void {
  benchPhysics = physics
}

export interface FastPhoneOptions {
  readonly app: AppModel
  readonly seed: number
  readonly cpuJitter?: number
  readonly sensors?: FuelGaugeOptions
  /** A phone with ODPM power rails. @default true */
  readonly odpm?: boolean
  /** What powers it. @default the virtual device's (USB, unplugged below) */
  readonly charger?: Charger
  /** How much a core's power depends on the code it runs (σ). @default 0 */
  readonly codePowerSpread?: number
}

/** Starts one fast-mode phone, unplugs it (no charging) and launches the app. */
export async function startFastPhone(options: FastPhoneOptions): Promise<FastPhone> {
  const server = await startVirtualDevice({
    time: 'fast',
    app: options.app,
    seed: options.seed,
    ...(options.cpuJitter === undefined ? {} : { cpuJitter: options.cpuJitter }),
    ...(options.sensors === undefined ? {} : { sensors: options.sensors }),
    ...(options.odpm === undefined ? {} : { odpm: options.odpm }),
    ...(options.charger === undefined ? {} : { charger: options.charger }),
    ...(options.codePowerSpread === undefined ? {} : { codePowerSpread: options.codePowerSpread }),
    ...(benchPhysics === undefined ? {} : { physics: benchPhysics }),
  })
  const serial = server.serials[0] ?? 'vdev-0001'
  const client = await connectAdb({ host: server.host, port: server.port })
  const device = client.device(serial)
  const sh = async (commandLine: string): Promise<string> => {
    const r = await shellScript(device, commandLine)
    if (r.exitCode !== 0) {
      throw new Error(
        `'${commandLine.slice(0, 120)}' exited ${r.exitCode}: ${r.stdout.slice(0, 300)}`,
      )
    }
    return r.stdout
  }
  // Two periods of the default gauge (1 s, each reading the average of the second before): the
  // probe then reads a current drawn on battery only, whatever the refresh's phase.
  await sh('dumpsys battery unplug; sleep 2.5')
  const capabilities = await probeCapabilities(device, { app: options.app.package })
  await sh(`am start -W -n ${options.app.launcherActivity}`)
  return {
    server,
    device,
    capabilities,
    app: options.app,
    railFloorsW: new Map(),
    sh,
    async nowNs() {
      return Number((await sh('vdev now')).trim())
    },
    async groundTruth(fromNs, toNs) {
      return JSON.parse(
        await sh(`vdev ground-truth --from ${Math.round(fromNs)} --to ${Math.round(toNs)}`),
      ) as GroundTruth
    },
    close: () => server.close(),
  }
}

export type Reattribution =
  | { readonly power: 'reading' | 'split' | 'regression'; readonly minSamplesPerGroup?: number }
  | { readonly split: 'activity' | 'time' }
  /** As if the window had not waited for a reading past its end: rail readings after it dropped. */
  | { readonly extrapolateEnd: true }

export interface FastWindowPlan {
  readonly power: PowerCollector
  readonly execution?: ExecutionCollector
  readonly baseline: Baseline
}

export interface FastWindow {
  readonly result: MeasuredEnergyResult
  readonly power: PowerData
  /**
   * Attributes the same collected data again with another estimator: stack samples' `power`
   * (and group size), or the interval method's `split`; undefined without such execution data.
   */
  readonly reattribute: (how: Reattribution) => MeasuredEnergyResult | undefined
  readonly startNs: number
  readonly endNs: number
  readonly truth: GroundTruth
}

let windowCounter = 0

const PROFILE_CURRENTS = defaultPowerProfile().cpu.clusters.map((c) => ({
  speedsKhz: c.speedsKhz,
  currentsMa: c.corePowerMa,
  clusterMa: c.clusterPowerMa,
}))

/** The ODPM collector's poll period (its default): one poll lands within this after any instant. */
const ODPM_POLL_NS = 100e6

/**
 * One energy window whose edges are read on the device: collectors start, `vdev now`, body, `vdev
 * now`, collectors stop, attribution (as the product's `attributeWindow` does), then ground truth
 * for exactly the same window.
 */
export async function measureFastWindow(
  phone: FastPhone,
  plan: FastWindowPlan,
  label: string,
  body: (startNs: number) => Promise<void>,
  options: {
    /**
     * What the phone does after the window's end, before the power source's reading past it: the
     * next test, when the window's end is read in the background (`endReading: 'background'`).
     */
    readonly afterEnd?: (endNs: number) => Promise<void>
  } = {},
): Promise<FastWindow> {
  const context: CollectorContext = {
    device: phone.device,
    app: phone.app.package,
    deviceDir: '/data/local/tmp/vitest-energy',
    windowId: `acc${(windowCounter++).toString(36)}`,
  }
  await plan.power.start(context)
  if (plan.execution !== undefined) await plan.execution.start(context)
  const startNs = await phone.nowNs()
  await body(startNs)
  // Workaround (virtual device): the simpleperf sampler and the ART trace writer read the
  // simulation without first scheduling `periodic` ticks that fell due; a fuel-gauge read does
  // schedule them. Reading current_now is harmless on a real phone.
  await phone.sh('cat /sys/class/power_supply/battery/current_now')
  const endNs = await phone.nowNs()
  await options.afterEnd?.(endNs)
  // As the product does in real time (PowerCollector.awaitEndReading): let perfetto's next poll
  // land past the window's end before stopping; the phone keeps running the app meanwhile. (The
  // fast clock moves only when the phone sleeps, so the collector's own wait would not do it.)
  if (plan.power.name === 'odpm') await advanceTo(phone, endNs + ODPM_POLL_NS + 1e3)
  const execution: ExecutionData | undefined =
    plan.execution === undefined ? undefined : await plan.execution.stop(context)
  const power = await plan.power.stop(context)
  const executionInput =
    execution === undefined
      ? undefined
      : toExecutionInput(
          execution,
          power.kind === 'rails' ? power.monotonicToBoottimeNs : undefined,
        )
  const warnings = [...power.warnings, ...(execution?.warnings ?? [])]
  // As the product does (src/session/window.ts): with rails, methods divide the CPU rails' power.
  const methodPowerOf = (rails: readonly RailSeries[]): MethodPower | undefined =>
    cpuMethodPower(
      rails,
      { clock: 'boottime', startNs, endNs },
      phone.railFloorsW,
      phone.capabilities.cpuClusters,
      power.kind === 'rails' ? power.schedule : undefined,
      PROFILE_CURRENTS,
    )
  const methodPower = power.kind === 'rails' ? methodPowerOf(power.rails) : undefined
  const schedule = power.kind === 'rails' ? power.schedule : undefined
  if (power.kind === 'rails') {
    for (const rail of power.rails) {
      const lowest = lowestRailPowerW(rail, { clock: 'boottime', startNs, endNs })
      if (lowest !== undefined) {
        phone.railFloorsW.set(
          rail.rail,
          Math.min(lowest, phone.railFloorsW.get(rail.rail) ?? lowest),
        )
      }
    }
  }
  const attribute = (
    input: ExecutionInput | undefined,
    cutRails?: readonly RailSeries[],
  ): MeasuredEnergyResult =>
    attributeTest({
      label,
      window: { clock: 'boottime', startNs, endNs },
      power: power.kind === 'series' ? power.series : (cutRails ?? power.rails),
      ...optionalMethodPower(cutRails === undefined ? methodPower : methodPowerOf(cutRails)),
      ...(schedule === undefined ? {} : { schedule }),
      edges: 'hold',
      baseline: plan.baseline,
      ...(input === undefined ? {} : { execution: input }),
      afterWindow: 'clip',
      sourceNames: {
        power: plan.power.name,
        ...(plan.execution ? { execution: plan.execution.name } : {}),
      },
      facts: { debuggable: phone.app.debuggable },
      device: { serial: phone.device.serial, model: phone.capabilities.model },
      warnings,
    }).result
  const result = attribute(executionInput)
  const truth = await phone.groundTruth(startNs, endNs)
  return {
    result,
    power,
    startNs,
    endNs,
    truth,
    reattribute: (how) => {
      if ('extrapolateEnd' in how) {
        if (power.kind !== 'rails') return undefined
        const cut = power.rails.map((r) => ({
          ...r,
          readings: r.readings.filter((x) => x.tNs <= endNs),
        }))
        return attribute(executionInput, cut)
      }
      if ('split' in how) {
        return executionInput?.kind === 'trace'
          ? attribute({ ...executionInput, split: how.split })
          : undefined
      }
      return executionInput?.kind === 'samples'
        ? attribute({ ...executionInput, ...how })
        : undefined
    },
  }
}

function optionalMethodPower(m: MethodPower | undefined): { methodPower?: MethodPower } {
  return m === undefined ? {} : { methodPower: m }
}

/** ART traces are on CLOCK_MONOTONIC: shifted to boottime as the product does (window.ts). */
function toExecutionInput(
  data: ExecutionData,
  monotonicToBoottimeNs: number | undefined,
): ExecutionInput {
  if (data.kind === 'stacks') return { kind: 'samples', samples: data.samples }
  const trace = data.trace
  if (trace.clock === 'boottime') return { kind: 'trace', trace }
  if (monotonicToBoottimeNs === undefined) {
    throw new Error('an ART trace on the monotonic clock needs ODPM (Perfetto clock snapshot)')
  }
  return { kind: 'trace', trace: shiftCallTrace(trace, monotonicToBoottimeNs, 'boottime') }
}

/**
 * Advances the fast clock to `untilNs` in steps of at most `stepS` (so collectors that poll see
 * every update), by `sleep` on the device.
 */
export async function advanceTo(phone: FastPhone, untilNs: number, stepS = 0.1): Promise<void> {
  for (;;) {
    const now = await phone.nowNs()
    const leftS = (untilNs - now) / 1e9
    if (leftS <= 1e-9) return
    const steps = Math.min(50, Math.ceil(leftS / stepS))
    // Whole microseconds, rounded up: `sleep 0.000000` would never get there.
    const eachUs = Math.max(1, Math.ceil(Math.min(stepS, leftS / steps) * 1e6))
    await phone.sh(
      Array.from({ length: steps }, () => `sleep ${(eachUs / 1e6).toFixed(6)}`).join('; '),
    )
  }
}

/**
 * Waits (on the host) until another device-side loop has moved the fast clock to `untilNs` (the
 * fuel-gauge collector's poll loop sleeps on the device, which advances fast time).
 */
export async function waitUntil(phone: FastPhone, untilNs: number): Promise<void> {
  while ((await phone.nowNs()) < untilNs) await new Promise((r) => setTimeout(r, 20))
}
