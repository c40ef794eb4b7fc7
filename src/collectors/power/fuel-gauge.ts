/**
 * Fuel-gauge power: an on-device loop polls `current_now`, `voltage_now` and `/proc/uptime`
 * (boottime) and streams the readings back while the test runs. The loop polls faster than the
 * sensor updates (fuel gauges refresh at 1–5 Hz and hold their value in between), so no update is
 * missed; attribution counts distinct values to get the sensor's real rate.
 *
 * The loop's own work costs a little device energy; it is the same in every window (and in the
 * idle baseline), so it cancels out of net energy.
 */
import type { Readable } from 'node:stream'
import { shellStream, type FuelGaugeCapability } from '../../device/index.js'
import { decodePowerTrace, formatPerfettoTextConfig } from '../../formats/perfetto/index.js'
import {
  EnergyError,
  isEnergyError,
  type CpuSchedule,
  type EnergyWarning,
  type PowerSample,
} from '../../model/index.js'
import { CollectorErrors } from '../errors.js'
import type { CollectorContext, PowerCollector, PowerData } from '../types.js'
import {
  abortPerfetto,
  ftraceDataSource,
  monotonicOffsetFrom,
  startPerfetto,
  stopPerfetto,
  type PerfettoSession,
} from './_perfetto.js'
import { withStartFrequencies } from './odpm.js'
import { readComponentRails, type ComponentModelOptions } from './battery-history.js'

export interface FuelGaugeOptions {
  /** The probe's findings: node, unit and sign of `current_now`. */
  readonly gauge: FuelGaugeCapability
  /** Readings per second the loop asks for. @default 50 */
  readonly pollHz?: number
  /**
   * Also record what ran on each CPU and at which frequency (`sched_switch`, `cpu_frequency`,
   * `cpu_idle`) in a Perfetto session over the window, for the CPU power model that gives
   * per-method energy on a phone without rails. When perfetto cannot record, the window keeps its
   * gauge readings and says why it has no schedule (`W_NO_SCHEDULE`). @default false
   */
  readonly schedule?: boolean
  /** Where perfetto writes its trace on the device. @default '/data/misc/perfetto-traces' */
  readonly traceDir?: string
  /**
   * `wait`: open the window right after the gauge's next refresh and close it after the first
   * refresh past its end, so that the periods at its edges hold the least from outside it (a
   * refresh is the average since the previous one). Costs up to one refresh period at each edge.
   * `extrapolate`: neither wait. @default 'extrapolate'
   */
  readonly edges?: 'wait' | 'extrapolate'
  /**
   * Also model the screen, radios, GPS and Bluetooth: at `stop()` the battery history since the
   * previous window is read (`history`, one reader per phone over the run's single batterystats
   * reset) and priced with `profile` into modelled rails over the window (`PowerData.components`).
   * A history that cannot be used costs only them (`W_NO_COMPONENTS`). @default none
   */
  readonly components?: ComponentModelOptions
}

/** The longest a window waits for a refresh when the gauge's period is not known yet, ms. */
const REFRESH_WAIT_MS = 3000

/** The scheduler and cpufreq events the CPU power model reads. */
export const MODEL_FTRACE_EVENTS = [
  'sched/sched_switch',
  'power/cpu_frequency',
  'power/cpu_idle',
] as const

/** The text config of the schedule's Perfetto session. */
export function scheduleTraceConfig(): string {
  return formatPerfettoTextConfig({
    buffers: [{ sizeKb: 16384, fillPolicy: 'RING_BUFFER', unknownFields: [] }],
    dataSources: [ftraceDataSource(MODEL_FTRACE_EVENTS)],
    writeIntoFile: true,
    fileWritePeriodMs: 1000,
    unknownFields: [],
  })
}

/** One polled reading before conversion. */
export interface FuelGaugeReading {
  readonly tNs: number
  readonly currentRaw: number
  readonly voltageRaw: number
}

export function fuelGaugeCollector(options: FuelGaugeOptions): PowerCollector {
  const { gauge } = options
  const pollHz = options.pollHz ?? 50
  let stream: Readable | undefined
  let readings: FuelGaugeReading[] = []
  /** The poll loop's output as it came, when the caller keeps raw data. */
  let raw: string[] | undefined
  let parser: FuelGaugeLineParser | undefined
  let streamError: unknown
  let trace: PerfettoSession | undefined
  /** Why this window has no schedule although one was asked for. */
  let noSchedule: string | undefined
  const traceDir = options.traceDir ?? '/data/misc/perfetto-traces'
  /** Told when a reading with a new value (a refresh) arrives. */
  let onRefresh: (() => void) | undefined
  /** Arrival times (host ms) of the refreshes seen in this window, for the wait's bound. */
  let refreshesMs: number[] = []
  const waitForRefresh = (): Promise<void> =>
    new Promise((resolve) => {
      const gaps = refreshesMs.slice(1).map((t, i) => t - (refreshesMs[i] as number))
      gaps.sort((a, b) => a - b)
      const period = gaps[gaps.length >> 1]
      const timer = setTimeout(
        () => done(),
        period === undefined ? REFRESH_WAIT_MS : Math.min(REFRESH_WAIT_MS * 4, period * 1.5 + 50),
      )
      const done = (): void => {
        clearTimeout(timer)
        onRefresh = undefined
        resolve()
      }
      onRefresh = done
    })

  const waits = options.edges === 'wait'
  return {
    name: 'fuel-gauge',
    ...(waits
      ? {
          awaitStartReading: async () => waitForRefresh(),
          awaitEndReading: async () => waitForRefresh(),
        }
      : {}),
    async start(context) {
      const node = requireNode(gauge, context)
      readings = []
      streamError = undefined
      noSchedule = undefined
      refreshesMs = []
      parser = new FuelGaugeLineParser((r) => {
        const last = readings.at(-1)
        readings.push(r)
        // A refresh of the current (voltage_now may move on its own schedule).
        if (last !== undefined && last.currentRaw !== r.currentRaw) {
          refreshesMs.push(Date.now())
          onRefresh?.()
        }
      })
      raw = context.keepArtifact === undefined ? undefined : []
      if (options.schedule === true) {
        trace = await startPerfetto(
          context,
          scheduleTraceConfig(),
          `${traceDir}/vitest-energy-${context.windowId}-sched.pftrace`,
          { frequencies: true, hint: 'The CPU power model needs perfetto (Android 10+).' },
        ).catch((error: unknown) => {
          noSchedule = describe(error)
          return undefined
        })
      }
      try {
        stream = await shellStream(context.device, ['sh', '-c', pollScript(node, pollHz)])
      } catch (error) {
        const t = trace
        trace = undefined
        if (t !== undefined) await abortPerfetto(context, t)
        throw error
      }
      stream.setEncoding('latin1')
      stream.on('data', (chunk: string) => {
        raw?.push(chunk)
        parser?.push(chunk)
      })
      stream.on('error', (error: unknown) => {
        streamError = error
      })
    },
    async stop(context): Promise<PowerData> {
      if (stream === undefined || parser === undefined) throw notStarted()
      const s = stream
      stream = undefined
      s.destroy()
      parser.end()
      const sched = await stopSchedule(context)
      if (raw !== undefined) context.keepArtifact?.('fuel-gauge-poll.txt', raw.join(''))
      raw = undefined
      if (streamError !== undefined) throw streamError
      const samples = toSamples(readings, gauge)
      if (samples.length < 2) {
        throw new EnergyError({
          code: CollectorErrors.NO_POWER_DATA,
          message: `the fuel gauge gave ${samples.length} reading(s) in this window`,
          hint: 'Make the test longer than the sensor period (≥ 1 s), or check `adb shell cat /sys/class/power_supply/*/current_now`.',
          details: { serial: context.device.serial },
        })
      }
      const modelled =
        options.components === undefined
          ? undefined
          : await readComponentRails(context, options.components, {
              startNs: samples[0]?.tNs ?? 0,
              endNs: samples.at(-1)?.tNs ?? 0,
            })
      const warnings: EnergyWarning[] = [...sched.warnings, ...(modelled?.warnings ?? [])]
      if (parser.malformed > 0) {
        warnings.push({
          code: 'W_FUEL_GAUGE_GARBLED',
          severity: 'warning',
          message: `${parser.malformed} fuel-gauge reading(s) could not be read and were skipped`,
        })
      }
      return {
        kind: 'series',
        series: { kind: 'instant', source: 'fuel-gauge', clock: 'boottime', samples },
        ...(sched.schedule === undefined ? {} : { schedule: sched.schedule }),
        ...(modelled?.rails === undefined ? {} : { components: modelled.rails }),
        ...(sched.monotonicToBoottimeNs === undefined
          ? {}
          : { monotonicToBoottimeNs: sched.monotonicToBoottimeNs }),
        warnings,
      }
    },
    async abort(context) {
      stream?.destroy()
      stream = undefined
      const t = trace
      trace = undefined
      if (t !== undefined) await abortPerfetto(context, t)
    },
  }

  /** Stops the schedule's session, if one was asked for; its failure costs only the schedule. */
  async function stopSchedule(context: CollectorContext): Promise<{
    schedule?: CpuSchedule
    monotonicToBoottimeNs?: number
    warnings: EnergyWarning[]
  }> {
    if (options.schedule !== true) return { warnings: [] }
    const t = trace
    trace = undefined
    if (t !== undefined) {
      try {
        const bytes = await stopPerfetto(context, t, 20_000)
        context.keepArtifact?.('schedule.pftrace', bytes)
        const decoded = decodePowerTrace(bytes)
        const offset = monotonicOffsetFrom(decoded.clockSnapshots)
        if (decoded.schedule !== undefined) {
          return {
            schedule: withStartFrequencies(decoded.schedule, t.startKhz, []),
            ...(offset === undefined ? {} : { monotonicToBoottimeNs: offset }),
            warnings: [],
          }
        }
        noSchedule = 'the trace holds no sched_switch events'
      } catch (error) {
        if (isEnergyError(error) && error.code === 'E_DEVICE_DISCONNECTED') throw error
        noSchedule = describe(error)
      }
    }
    return {
      warnings: [
        {
          code: 'W_NO_SCHEDULE',
          severity: 'warning',
          message: `no CPU schedule for this window (${noSchedule ?? 'perfetto did not record'}): its methods' energy could not be modelled from the CPUs they ran on`,
        },
      ],
    }
  }
}

/** The first line of an error, for a warning. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0] ?? message
}

function requireNode(gauge: FuelGaugeCapability, context: CollectorContext): string {
  if (!gauge.available || gauge.node === undefined || gauge.dischargeAmperesPerUnit === undefined) {
    throw new EnergyError({
      code: CollectorErrors.SOURCE_UNAVAILABLE,
      message:
        'the fuel gauge is not readable on this device (or its unit/sign could not be determined)',
      hint: 'Use power: "odpm" where the device has power rails, or unplug USB power (wireless adb or a power-blocking hub) so the probe can take a discharging reading.',
      details: { serial: context.device.serial },
    })
  }
  return gauge.node
}

/** The on-device loop: three lines per reading (uptime, current, voltage). */
export function pollScript(node: string, pollHz: number): string {
  const period = (1 / Math.max(1, Math.min(pollHz, 1000))).toFixed(3)
  const dir = node.startsWith('/') ? node : `/sys/class/power_supply/${node}`
  return `while cat /proc/uptime ${dir}/current_now ${dir}/voltage_now; do sleep ${period}; done`
}

/** Reads the loop's output incrementally: chunks may split lines anywhere. */
export class FuelGaugeLineParser {
  private buffer = ''
  private pending: string[] = []
  /** Readings whose lines did not parse (a torn write, an error message). */
  malformed = 0

  constructor(private readonly emit: (reading: FuelGaugeReading) => void) {}

  push(chunk: string): void {
    this.buffer += chunk
    let newline = this.buffer.indexOf('\n')
    while (newline >= 0) {
      this.line(this.buffer.slice(0, newline).replace(/\r$/, ''))
      this.buffer = this.buffer.slice(newline + 1)
      newline = this.buffer.indexOf('\n')
    }
  }

  /** The stream ended: a partial last reading is dropped (it was cut by the stop). */
  end(): void {
    this.buffer = ''
    this.pending = []
  }

  private line(text: string): void {
    // An uptime line ("12345.67 23456.78") starts a reading; it resynchronises after garbage.
    if (/^\d+(\.\d+)? \d+(\.\d+)?$/.test(text)) {
      if (this.pending.length > 0) this.malformed++
      this.pending = [text]
      return
    }
    if (this.pending.length === 0) {
      if (text.trim() !== '') this.malformed++
      return
    }
    this.pending.push(text)
    if (this.pending.length < 3) return
    const [uptime, current, voltage] = this.pending
    this.pending = []
    const tS = Number(uptime?.split(' ')[0])
    const currentRaw = Number(current)
    const voltageRaw = Number(voltage)
    if (!/^-?\d+$/.test(current ?? '') || !/^-?\d+$/.test(voltage ?? '') || !Number.isFinite(tS)) {
      this.malformed++
      return
    }
    this.emit({ tNs: Math.round(tS * 1e9), currentRaw, voltageRaw })
  }
}

/**
 * Converts raw readings to power. `/proc/uptime` ticks in 10 ms steps, so several polls can share
 * a timestamp: we keep the last reading per timestamp so the series stays strictly increasing.
 */
export function toSamples(
  readings: readonly FuelGaugeReading[],
  gauge: FuelGaugeCapability,
): PowerSample[] {
  const amperesPerUnit = gauge.dischargeAmperesPerUnit ?? 0
  const voltsPerUnit = gauge.voltageUnit === 'mV' ? 1e-3 : 1e-6
  const samples: PowerSample[] = []
  for (const r of readings) {
    const powerW = r.currentRaw * amperesPerUnit * r.voltageRaw * voltsPerUnit
    const last = samples[samples.length - 1]
    if (last !== undefined && last.tNs >= r.tNs)
      samples[samples.length - 1] = { tNs: last.tNs, powerW }
    else samples.push({ tNs: r.tNs, powerW })
  }
  return samples
}

function notStarted(): EnergyError {
  return new EnergyError({
    code: CollectorErrors.NOT_STARTED,
    message: 'the fuel-gauge collector was stopped before it was started',
    hint: 'This is a bug in vitest-energy; please report it.',
  })
}
