/**
 * External power meter (lab ground truth): a file the meter software writes (BattOr text,
 * Monsoon-style CSV, Battery Historian power-monitor file), read at stop, or a host command the
 * user gives that prints such text on stdout while it runs (spawned at start, sent SIGTERM at
 * stop). Parsed by `parseMeterText`; returned on CLOCK_BOOTTIME.
 *
 * Clock assumption (the meter shares no clock with the phone, so this is the weak point):
 * - relative times (BattOr, CSV: t = 0 at the first row) are taken to start at a host instant:
 *   for a command, the moment it was spawned (its start-up latency, typically a few ms, shifts
 *   every reading late by that much); for a file, `fileStartHostNs` or else the collector's
 *   `start()`;
 * - Unix times (Battery Historian) are read as the host's wall clock (`Date.now()`), so the host
 *   and the meter's PC must agree (same machine or NTP);
 * - host times are mapped to boottime with the session's host → boottime mapping (± its
 *   uncertainty), measured at start when none is given.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { hostNowNs, mapDeviceClock } from '../../device/index.js'
import { parseMeterText, type MeterFormat } from '../../formats/meter/index.js'
import {
  EnergyError,
  mapTime,
  type ClockMapping,
  type EnergyWarning,
  type PowerSample,
  type PowerSeries,
} from '../../model/index.js'
import { CollectorErrors } from '../errors.js'
import type { PowerCollector, PowerData } from '../types.js'

export interface ExternalMeterOptions {
  /** A meter file (host path), read at stop. Exactly one of `file` and `command`. */
  readonly file?: string
  /** A host command (argv, no shell) that prints meter text on stdout until it gets SIGTERM. */
  readonly command?: readonly string[]
  /** Force a format instead of sniffing it. @default sniffed */
  readonly format?: MeterFormat
  /** Supply voltage (V) for files without a voltage column (Monsoon main output). */
  readonly nominalVoltageV?: number
  /** Host time (`process.hrtime`, ns) of a relative-time file's first row. @default the collector's start */
  readonly fileStartHostNs?: number
  /** Host → boottime mapping. @default measured at start (5 paired `/proc/uptime` reads) */
  readonly hostToBoottime?: ClockMapping
  /** Keep only readings around the window (the last before it, the first after it). @default true */
  readonly clipToWindow?: boolean
  /** How long to wait for the command to exit after SIGTERM before SIGKILL, ms. @default 5000 */
  readonly stopTimeoutMs?: number
}

interface Running {
  readonly startHostNs: number
  readonly mapping: ClockMapping
  /** Host→realtime offset at start (realtime = host + offset), for Unix-time files. */
  readonly hostToRealtimeNs: number
  readonly child?: ChildProcess
  readonly originHostNs: number
  stdout: string[]
  stderr: string
  exit?: { code: number | null; signal: NodeJS.Signals | null }
}

export function externalMeterCollector(options: ExternalMeterOptions): PowerCollector {
  checkOptions(options)
  let run: Running | undefined

  return {
    name: 'external-meter',
    async start(context) {
      run = undefined
      const mapping =
        options.hostToBoottime ?? (await mapDeviceClock(context.device, 'boottime', { samples: 5 }))
      const hostToRealtimeNs = Date.now() * 1e6 - hostNowNs()
      if (options.command === undefined) {
        const startHostNs = hostNowNs()
        run = {
          startHostNs,
          mapping,
          hostToRealtimeNs,
          originHostNs: options.fileStartHostNs ?? startHostNs,
          stdout: [],
          stderr: '',
        }
        return
      }
      const [bin, ...args] = options.command
      const child = spawn(bin ?? '', args, { stdio: ['ignore', 'pipe', 'pipe'] })
      const originHostNs = hostNowNs()
      const r: Running = {
        startHostNs: originHostNs,
        mapping,
        hostToRealtimeNs,
        child,
        originHostNs,
        stdout: [],
        stderr: '',
      }
      child.stdout?.setEncoding('utf8')
      child.stderr?.setEncoding('utf8')
      child.stdout?.on('data', (s: string) => r.stdout.push(s))
      child.stderr?.on('data', (s: string) => {
        if (r.stderr.length < 4000) r.stderr += s
      })
      child.on('exit', (code, signal) => {
        r.exit = { code, signal }
      })
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', () => resolve())
        child.once('error', (cause) =>
          reject(
            new EnergyError({
              code: CollectorErrors.METER_FAILED,
              message: `the meter command '${bin ?? ''}' did not start: ${cause.message}`,
              hint: 'Check the externalMeter.command path and that it is executable on this host.',
              details: { command: options.command?.join(' ') ?? '' },
              cause,
            }),
          ),
        )
      })
      run = r
    },
    async stop(): Promise<PowerData> {
      const r = run
      run = undefined
      if (r === undefined) {
        throw new EnergyError({
          code: CollectorErrors.NOT_STARTED,
          message: 'the external-meter collector was stopped before it was started',
          hint: 'This is a bug in vitest-energy; please report it.',
        })
      }
      const stopHostNs = hostNowNs()
      let text: string
      if (r.child !== undefined) {
        const exitedEarly = r.exit
        await stopChild(r, options.stopTimeoutMs ?? 5000)
        if (exitedEarly !== undefined && exitedEarly.code !== 0) {
          throw new EnergyError({
            code: CollectorErrors.METER_FAILED,
            message: `the meter command exited with ${exitedEarly.code ?? exitedEarly.signal} before the window ended: ${r.stderr.trim().slice(0, 300) || 'no stderr'}`,
            hint: 'Run the externalMeter.command by hand to see why it stops.',
            details: { command: options.command?.join(' ') ?? '' },
          })
        }
        text = r.stdout.join('')
      } else {
        const file = options.file ?? ''
        try {
          text = await readFile(file, 'utf8')
        } catch (cause) {
          throw new EnergyError({
            code: CollectorErrors.METER_FAILED,
            message: `cannot read the meter file '${file}': ${(cause as Error).message}`,
            hint: 'Check externalMeter.file; the meter software must have written it by the end of the test.',
            details: { path: file },
            cause,
          })
        }
      }
      const capture = parseMeterText(text, {
        ...(options.format === undefined ? {} : { format: options.format }),
        ...(options.nominalVoltageV === undefined
          ? {}
          : { nominalVoltageV: options.nominalVoltageV }),
      })
      const series = toBoottime(capture.series, r)
      const samples =
        options.clipToWindow === false
          ? series
          : clip(series, mapTime(r.startHostNs, r.mapping), mapTime(stopHostNs, r.mapping))
      if (samples.length < 2) {
        throw new EnergyError({
          code: CollectorErrors.NO_POWER_DATA,
          message: `the meter gave ${samples.length} reading(s) around the window (${capture.series.samples.length} in all)`,
          hint: 'Check that the meter was recording during the test and that its time column starts when the test starts (see docs/devices.md, "Collectors").',
        })
      }
      const warnings: EnergyWarning[] = []
      if (!capture.voltageMeasured) {
        warnings.push({
          code: 'W_METER_NOMINAL_VOLTAGE',
          severity: 'info',
          message: `the meter file has no voltage column; ${options.nominalVoltageV ?? '?'} V assumed`,
        })
      }
      const series2: PowerSeries = {
        kind: 'instant',
        source: 'external-meter',
        clock: 'boottime',
        samples,
      }
      return { kind: 'series', series: series2, warnings }
    },
    async abort() {
      const r = run
      run = undefined
      if (r !== undefined) await stopChild(r, options.stopTimeoutMs ?? 5000)
    },
  }
}

function checkOptions(options: ExternalMeterOptions): void {
  const hasFile = options.file !== undefined
  const hasCommand = options.command !== undefined
  if (hasFile === hasCommand || (hasCommand && options.command?.length === 0)) {
    throw new EnergyError({
      code: CollectorErrors.METER_CONFIG,
      message: hasFile
        ? 'externalMeter has both a file and a command'
        : 'externalMeter needs a file or a non-empty command',
      hint: 'Set externalMeter: { file: "meter.csv" } or externalMeter: { command: ["my-meter", "--stdout"] }.',
    })
  }
}

/** Parsed times (host-relative or Unix) → boottime ns. */
function toBoottime(series: PowerSeries, r: Running): PowerSample[] {
  const toHost =
    series.clock === 'realtime'
      ? (t: number) => t - r.hostToRealtimeNs
      : (t: number) => r.originHostNs + t
  return series.samples.map((s) => ({ tNs: mapTime(toHost(s.tNs), r.mapping), powerW: s.powerW }))
}

/** Readings inside [fromNs, toNs] plus the last before and the first after (for the edges). */
export function clip(samples: readonly PowerSample[], fromNs: number, toNs: number): PowerSample[] {
  let first = samples.findIndex((s) => s.tNs >= fromNs)
  if (first < 0) first = samples.length
  let last = -1
  for (let i = samples.length - 1; i >= 0; i--) {
    if ((samples[i]?.tNs ?? Infinity) <= toNs) {
      last = i
      break
    }
  }
  return samples.slice(Math.max(0, first - 1), Math.min(samples.length, last + 2))
}

async function stopChild(r: Running, timeoutMs: number): Promise<void> {
  const child = r.child
  if (child === undefined || r.exit !== undefined) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = new Promise<'timeout'>((resolve) => {
    const t = setTimeout(() => resolve('timeout'), timeoutMs)
    t.unref()
  })
  if ((await Promise.race([exited, timer])) === 'timeout') {
    child.kill('SIGKILL')
    await exited
  }
  // stdout may still hold buffered text after 'exit'
  await new Promise<void>((resolve) => {
    if (child.stdout === null || child.stdout.readableEnded) resolve()
    else child.stdout.once('end', () => resolve())
  })
}
