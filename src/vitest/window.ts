/**
 * One energy window, end to end: start the collectors, run the body, stop them, put every series on
 * the device's boottime clock, and attribute. Whatever fails, the collectors are stopped (or
 * aborted) and the failure becomes an `EnergyError` naming what broke; the caller releases the lease.
 */
import { randomBytes } from 'node:crypto'
import { attributeTest, type Baseline, type ExecutionInput } from '../attribution/index.js'
import type {
  CollectorContext,
  ExecutionCollector,
  ExecutionData,
  PowerCollector,
  PowerData,
} from '../collectors/index.js'
import { hostNowNs, type AdbDevice, type DeviceClockMapping } from '../device/index.js'
import {
  EnergyError,
  isEnergyError,
  type EnergyWarning,
  type FailedEnergyResult,
  type MeasuredEnergyResult,
} from '../model/index.js'

export interface WindowPlan {
  readonly device: AdbDevice
  readonly deviceModel: string
  readonly app: string
  readonly power: PowerCollector
  readonly execution?: ExecutionCollector
  /** Host → device boottime (the clock of power data and of the window's edges). */
  readonly boottime: DeviceClockMapping
  /**
   * Device monotonic → boottime offset (ns), for ART traces whose wall clock is CLOCK_MONOTONIC.
   * Absent: assumed 0 (no suspend since boot), with a warning.
   */
  readonly monotonicToBoottimeNs?: number
  readonly baseline: Baseline | { readonly kind: 'measured'; readonly powerW: number }
  readonly batteryCapacityJ?: number
  readonly charging?: boolean
  readonly debuggable?: boolean
  /** @default '/data/local/tmp/vitest-energy' */
  readonly deviceDir?: string
  readonly onProgress?: (message: string) => void
}

export interface WindowOutcome<T> {
  readonly result: MeasuredEnergyResult
  readonly value: T
}

/** An open energy window: collectors are recording. */
export interface OpenWindow {
  /** Stops the collectors and attributes the window. */
  close(): Promise<MeasuredEnergyResult>
  /** Stops the collectors without attributing (the window is abandoned). */
  abort(): Promise<void>
}

/** Starts the collectors; the window's start is the moment they are all recording. */
export async function openWindow(plan: WindowPlan, label: string): Promise<OpenWindow> {
  const context: CollectorContext = {
    device: plan.device,
    app: plan.app,
    deviceDir: plan.deviceDir ?? '/data/local/tmp/vitest-energy',
    windowId: `w${Date.now().toString(36)}${randomBytes(3).toString('hex')}`,
    ...(plan.onProgress === undefined ? {} : { onProgress: plan.onProgress }),
  }
  const started: Array<PowerCollector | ExecutionCollector> = []
  try {
    await plan.power.start(context)
    started.push(plan.power)
    if (plan.execution !== undefined) {
      await plan.execution.start(context)
      started.push(plan.execution)
    }
  } catch (error) {
    await abortAll(started, context)
    throw error
  }
  const startHostNs = hostNowNs()
  let done = false
  return {
    async abort() {
      if (done) return
      done = true
      await abortAll(started, context)
    },
    async close() {
      if (done) throw closedTwice(label)
      done = true
      const endHostNs = hostNowNs()
      let execution: ExecutionData | undefined
      try {
        if (plan.execution !== undefined) execution = await plan.execution.stop(context)
      } catch (error) {
        await plan.power.abort(context).catch(() => undefined)
        throw error
      }
      const power: PowerData = await plan.power.stop(context)
      return attributeWindow(plan, label, startHostNs, endHostNs, power, execution)
    },
  }
}

/** Runs `body` inside an energy window and returns its measured result. */
export async function measureWindow<T>(
  plan: WindowPlan,
  label: string,
  body: () => Promise<T>,
): Promise<WindowOutcome<T>> {
  const window = await openWindow(plan, label)
  let value: T
  try {
    value = await body()
  } catch (error) {
    await window.abort()
    throw error
  }
  return { result: await window.close(), value }
}

function attributeWindow(
  plan: WindowPlan,
  label: string,
  startHostNs: number,
  endHostNs: number,
  power: PowerData,
  execution: ExecutionData | undefined,
): MeasuredEnergyResult {
  const warnings: EnergyWarning[] = [...power.warnings, ...(execution?.warnings ?? [])]
  const window = {
    clock: 'boottime' as const,
    startNs: startHostNs + plan.boottime.offsetNs,
    endNs: endHostNs + plan.boottime.offsetNs,
  }
  const executionInput =
    execution === undefined ? undefined : toExecutionInput(execution, plan, warnings)
  const baseline: Baseline =
    plan.baseline.kind === 'measured'
      ? { kind: 'configured', powerW: plan.baseline.powerW }
      : plan.baseline
  return attributeTest({
    label,
    window,
    power: power.kind === 'series' ? power.series : power.rails,
    edges: 'hold',
    baseline,
    ...(plan.batteryCapacityJ === undefined ? {} : { batteryCapacityJ: plan.batteryCapacityJ }),
    ...(executionInput === undefined ? {} : { execution: executionInput }),
    afterWindow: 'clip',
    sourceNames: {
      power: plan.power.name,
      ...(plan.execution ? { execution: plan.execution.name } : {}),
    },
    facts: {
      // Charging only corrupts battery-side sensors; ODPM rails sit downstream of the battery.
      ...(plan.charging === undefined || plan.power.name === 'odpm'
        ? {}
        : { charging: plan.charging }),
      ...(plan.debuggable === undefined ? {} : { debuggable: plan.debuggable }),
    },
    device: { serial: plan.device.serial, model: plan.deviceModel },
    warnings,
  }).result
}

function closedTwice(label: string): EnergyError {
  return new EnergyError({
    code: 'E_WINDOW_CLOSED',
    message: `the energy window '${label}' was already closed`,
    hint: 'This is a bug in vitest-energy; please report it.',
  })
}

/** Puts execution data on the boottime clock. */
function toExecutionInput(
  data: ExecutionData,
  plan: WindowPlan,
  warnings: EnergyWarning[],
): ExecutionInput {
  if (data.kind === 'stacks') {
    if (data.samples.clock !== 'boottime') {
      throw new EnergyError({
        code: 'E_CLOCK_MISMATCH',
        message: `stack samples are on the ${data.samples.clock} clock; power data is on boottime`,
        hint: "Record with simpleperf's default `--clockid boottime` (the simpleperf collector's default).",
      })
    }
    return { kind: 'samples', samples: data.samples }
  }
  const trace = data.trace
  if (trace.clock === 'boottime') return { kind: 'trace', trace }
  let offsetNs = plan.monotonicToBoottimeNs
  if (offsetNs === undefined) {
    offsetNs = 0
    warnings.push({
      code: 'W_CLOCK_ASSUMED',
      severity: 'warning',
      message: `the method trace is on the ${trace.clock} clock and its offset to boottime could not be read (needs root for /proc/timer_list); assumed 0`,
    })
  }
  const shift = offsetNs
  return {
    kind: 'trace',
    trace: {
      ...trace,
      clock: 'boottime',
      calls: trace.calls.map((c) => ({ ...c, startNs: c.startNs + shift, endNs: c.endNs + shift })),
    },
  }
}

async function abortAll(
  started: ReadonlyArray<PowerCollector | ExecutionCollector>,
  context: CollectorContext,
): Promise<void> {
  await Promise.all(started.map((c) => c.abort(context).catch(() => undefined)))
}

/** A failed window as a result, so the reporter can show it beside the others. */
export function failedResult(label: string, error: unknown): FailedEnergyResult {
  const e = isEnergyError(error)
    ? error
    : new EnergyError({
        code: 'E_WINDOW_FAILED',
        message: error instanceof Error ? error.message : String(error),
        hint: 'See the error above; the energy window was abandoned.',
        cause: error,
      })
  return {
    schemaVersion: 1,
    status: 'failed',
    label,
    error: { code: e.code, message: e.message, hint: e.hint },
    warnings: [],
  }
}
