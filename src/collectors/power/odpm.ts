/**
 * ODPM power rails (Pixel 6 and later) through a Perfetto `android.power` session: cumulative
 * energy counters per rail on CLOCK_BOOTTIME, measured downstream of the battery so USB power does
 * not disturb them. Window energy per rail = difference of the counters at the window's edges.
 *
 * The config goes in on stdin (`perfetto -c - --txt`) because SELinux stops perfetto from reading
 * files the shell wrote on many releases; the trace goes where perfetto may write it.
 */
import { pull, quoteShellArg, shell, shellScript } from '../../device/index.js'
import { decodePowerTrace, formatPerfettoTextConfig } from '../../formats/perfetto/index.js'
import { EnergyError, type EnergyWarning } from '../../model/index.js'
import { CollectorErrors } from '../errors.js'
import type { CollectorContext, PowerCollector, PowerData } from '../types.js'

export interface OdpmOptions {
  /** How often the rails and battery counters are polled, ms. @default 100 */
  readonly pollMs?: number
  /** Where perfetto writes its trace on the device. @default '/data/misc/perfetto-traces' */
  readonly traceDir?: string
  /** How long to wait for perfetto to flush after SIGTERM. @default 20 000 ms */
  readonly stopTimeoutMs?: number
  /**
   * Also record the scheduler's `sched_switch` events (`linux.ftrace`, compact form) in the same
   * session, so per-method attribution knows which CPU cluster each thread ran on. @default true
   */
  readonly schedule?: boolean
}

/** The clock offsets Perfetto recorded (boottime − monotonic), for method traces on CLOCK_MONOTONIC. */
export interface OdpmExtras {
  readonly monotonicToBoottimeNs?: number
}

export function odpmCollector(
  options: OdpmOptions = {},
): PowerCollector & { readonly extras: () => OdpmExtras } {
  const pollMs = options.pollMs ?? 100
  const traceDir = options.traceDir ?? '/data/misc/perfetto-traces'
  let session: { pid: string; file: string } | undefined
  let extras: OdpmExtras = {}

  return {
    name: 'odpm',
    extras: () => extras,
    async start(context) {
      const file = `${traceDir}/vitest-energy-${context.windowId}.pftrace`
      const config = formatPerfettoTextConfig({
        buffers: [{ sizeKb: 8192, fillPolicy: 'RING_BUFFER', unknownFields: [] }],
        dataSources: [
          {
            name: 'android.power',
            androidPowerConfig: {
              batteryPollMs: pollMs,
              batteryCounters: [
                'BATTERY_COUNTER_CURRENT',
                'BATTERY_COUNTER_VOLTAGE',
                'BATTERY_COUNTER_CHARGE',
              ],
              collectPowerRails: true,
              unknownFields: [],
            },
            unknownFields: [],
            dataSourceUnknownFields: [],
          },
          ...(options.schedule === false
            ? []
            : [
                {
                  name: 'linux.ftrace',
                  ftraceConfig: {
                    ftraceEvents: ['sched/sched_switch'],
                    atraceCategories: [],
                    compactSched: true,
                    unknownFields: [],
                  },
                  unknownFields: [],
                  dataSourceUnknownFields: [],
                },
              ]),
        ],
        writeIntoFile: true,
        fileWritePeriodMs: 1000,
        unknownFields: [],
      })
      const started = await shellScript(
        context.device,
        `echo ${quoteShellArg(config)} | perfetto --txt -c - -o ${quoteShellArg(file)} --background`,
      )
      const pid = started.stdout.trim().split(/\s+/).pop() ?? ''
      if (started.exitCode !== 0 || !/^\d+$/.test(pid)) {
        throw new EnergyError({
          code: CollectorErrors.RECORDER_FAILED,
          message: `perfetto did not start (exit ${started.exitCode}): ${started.stdout.trim().slice(0, 200) || 'no output'}`,
          hint: 'ODPM rails need Android 11+ with the power HAL rails (Pixel 6 and later); use power: "fuel-gauge" otherwise.',
          details: { serial: context.device.serial },
        })
      }
      session = { pid, file }
    },
    async stop(context): Promise<PowerData> {
      const s = session
      session = undefined
      if (s === undefined) throw notStarted()
      // Let one more poll land after the window's end, so the counters cover the whole window
      // (perfetto does not take a last reading when it stops).
      await new Promise((resolve) => setTimeout(resolve, pollMs + 10))
      await stopPerfetto(context, s.pid, options.stopTimeoutMs ?? 20_000)
      const bytes = await pull(context.device, s.file)
      context.keepArtifact?.('power-rails.pftrace', bytes)
      await shell(context.device, ['rm', '-f', s.file])
      const trace = decodePowerTrace(bytes)
      if (trace.rails.length === 0) {
        throw new EnergyError({
          code: CollectorErrors.NO_POWER_DATA,
          message: `the perfetto trace has no power-rail data (${trace.packetCount} packets: ${JSON.stringify(trace.packetKinds)})`,
          hint: 'This device exposes no ODPM rails to perfetto; use power: "fuel-gauge".',
          details: { serial: context.device.serial },
        })
      }
      extras = offsetsFrom(trace.clockSnapshots)
      const warnings: EnergyWarning[] = trace.warnings.map((message) => ({
        code: 'W_PERFETTO',
        severity: 'info',
        message,
      }))
      return {
        kind: 'rails',
        rails: trace.rails,
        ...(trace.schedule === undefined ? {} : { schedule: trace.schedule }),
        warnings,
      }
    },
    async abort(context) {
      const s = session
      session = undefined
      if (s !== undefined)
        await shell(context.device, ['kill', '-TERM', s.pid]).catch(() => undefined)
    },
  }
}

/** SIGTERM makes perfetto flush and write the trace; then we wait for the process to go away. */
async function stopPerfetto(
  context: CollectorContext,
  pid: string,
  timeoutMs: number,
): Promise<void> {
  await shell(context.device, ['kill', '-TERM', pid])
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const alive = await shell(context.device, ['kill', '-0', pid])
    if (alive.exitCode !== 0) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new EnergyError({
    code: CollectorErrors.RECORDER_FAILED,
    message: `perfetto (pid ${pid}) did not exit within ${timeoutMs} ms of SIGTERM`,
    hint: 'Check `adb shell ps -A | grep perfetto`; kill it by hand before the next run.',
    details: { serial: context.device.serial },
  })
}

function offsetsFrom(snapshots: ReturnType<typeof decodePowerTrace>['clockSnapshots']): OdpmExtras {
  for (const snapshot of snapshots) {
    const boot = snapshot.find((c) => c.clock === 'boottime')
    const mono = snapshot.find((c) => c.clock === 'monotonic')
    if (boot?.timestampNs !== undefined && mono?.timestampNs !== undefined) {
      return { monotonicToBoottimeNs: boot.timestampNs - mono.timestampNs }
    }
  }
  return {}
}

function notStarted(): EnergyError {
  return new EnergyError({
    code: CollectorErrors.NOT_STARTED,
    message: 'the ODPM collector was stopped before it was started',
    hint: 'This is a bug in vitest-energy; please report it.',
  })
}
