/**
 * ODPM power rails (Pixel 6 and later) through a Perfetto `android.power` session: cumulative
 * energy counters per rail on CLOCK_BOOTTIME, measured downstream of the battery so USB power does
 * not disturb them. Window energy per rail = difference of the counters at the window's edges.
 *
 * The config goes in on stdin (`perfetto -c - --txt`) because SELinux stops perfetto from reading
 * files the shell wrote on many releases; the trace goes where perfetto may write it. The session
 * is stopped by the pid `--background` printed (never by name: other windows' sessions on the
 * phone keep running), and its trace is removed when the window ends, however it ends.
 *
 * The window's end needs one reading after it, and perfetto reads only on its poll (at most every
 * 100 ms, nothing when the session stops). traced_probes polls at the session's start and then on
 * every multiple of the period on CLOCK_MONOTONIC, the same phase for every session on the phone;
 * with the host → boottime mapping and boottime − monotonic from an earlier trace, `stop()` waits
 * just past the next poll instead of a whole period.
 */
import { hostNowNs, mappingAgeNs, type DeviceClockMapping } from '../../device/index.js'
import { decodePowerTrace, formatPerfettoTextConfig } from '../../formats/perfetto/index.js'
import { EnergyError, type CpuSchedule, type EnergyWarning } from '../../model/index.js'
import type { CpuFrequencyChange } from '../../model/samples.js'
import { CollectorErrors } from '../errors.js'
import type { PowerCollector, PowerData } from '../types.js'
import { withoutRepeats } from './rail-repeats.js'
import {
  abortPerfetto,
  ftraceDataSource,
  monotonicOffsetFrom,
  startPerfetto,
  stopPerfetto,
  type PerfettoSession,
} from './_perfetto.js'

export { readCpuFrequencies } from './_perfetto.js'

export interface OdpmOptions {
  /** How often the rails and battery counters are polled, ms (perfetto's minimum is 100). @default 100 */
  readonly pollMs?: number
  /** Where perfetto writes its trace on the device. @default '/data/misc/perfetto-traces' */
  readonly traceDir?: string
  /**
   * How long to wait, after SIGTERM, for perfetto to flush and its trace to come off the phone.
   * @default 20 000 ms
   */
  readonly stopTimeoutMs?: number
  /**
   * Also record the scheduler's `sched_switch` and cpufreq's `cpu_frequency` events (`linux.ftrace`,
   * compact form) in the same session, so per-method attribution knows which CPU cluster each thread
   * ran on and at what frequency. @default true
   */
  readonly schedule?: boolean
  /**
   * Where perfetto's polls fall, so `stop()` waits only until the first poll after the window's
   * end: the host → device boottime mapping, and boottime − monotonic (a perfetto clock snapshot
   * of an earlier session). Without `monotonicToBoottimeNs` it waits a whole poll period. The
   * mapping alone still lets `stop()` check that a reading covers the window's end.
   */
  readonly pollPhase?: {
    readonly hostToBoottime: DeviceClockMapping
    readonly monotonicToBoottimeNs?: number
    /**
     * Where earlier sessions' rail readings were stamped relative to the poll grid (signed ns,
     * `readingOffsetsNs` of their power data): a HAL that stamps a reading before the poll that
     * read it, or polls that run late, widen the wait accordingly. Absent: on the grid.
     */
    readonly readingOffsetsNs?: ReadingOffsets
  }
  /** Slack after the predicted poll, for traced_probes' own scheduling, ms. @default 10 */
  readonly pollSlackMs?: number
  /**
   * `wait` for the first poll after the window's end; `extrapolate`: stop at once and let
   * attribution carry the last interval's power to the end (no wait, less accurate when the
   * test ends busy). @default 'wait'
   */
  readonly endReading?: 'wait' | 'extrapolate'
}

/** traced_probes polls android.power at most this often (it caps shorter periods silently). */
const MIN_POLL_MS = 100

export function odpmCollector(options: OdpmOptions = {}): PowerCollector {
  const pollMs = options.pollMs ?? MIN_POLL_MS
  if (!Number.isInteger(pollMs) || pollMs < MIN_POLL_MS) {
    throw new EnergyError({
      code: CollectorErrors.INVALID_OPTION,
      message: `ODPM pollMs ${pollMs} is not a whole number of ms ≥ ${MIN_POLL_MS}: perfetto polls the rails at most every ${MIN_POLL_MS} ms`,
      hint: `Use pollMs: ${MIN_POLL_MS} (the default) or a longer whole-ms period.`,
    })
  }
  const traceDir = options.traceDir ?? '/data/misc/perfetto-traces'
  let session: PerfettoSession | undefined
  /** Host time of the window's end, once `awaitEndReading` has waited for the poll after it. */
  let endReading: number | undefined
  const extrapolate = options.endReading === 'extrapolate'
  const awaitPoll = async (endHostNs = hostNowNs()): Promise<number> => {
    if (!extrapolate)
      await delay(untilPollAfterMs(endHostNs, pollMs, options.pollPhase, options.pollSlackMs))
    return endHostNs
  }

  return {
    name: 'odpm',
    async awaitEndReading(_context, endHostNs) {
      if (session === undefined) throw notStarted()
      endReading = await awaitPoll(endHostNs)
    },
    async start(context) {
      endReading = undefined
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
            : [ftraceDataSource(['sched/sched_switch', 'power/cpu_frequency'])]),
        ],
        writeIntoFile: true,
        fileWritePeriodMs: 1000,
        unknownFields: [],
      })
      session = await startPerfetto(context, config, file, {
        frequencies: options.schedule !== false,
        hint: 'ODPM rails need Android 11+ with the power HAL rails (Pixel 6 and later); use power: "fuel-gauge" otherwise.',
      })
    },
    async stop(context): Promise<PowerData> {
      const s = session
      session = undefined
      if (s === undefined) throw notStarted()
      // Let one more poll land after the window's end, so the counters cover the whole window.
      const endHostNs = endReading ?? (await awaitPoll())
      endReading = undefined
      const bytes = await stopPerfetto(context, s, options.stopTimeoutMs ?? 20_000)
      context.keepArtifact?.('power-rails.pftrace', bytes)
      const trace = decodePowerTrace(bytes)
      const rails = withoutRepeats(trace.rails)
      if (rails.length === 0) {
        throw new EnergyError({
          code: CollectorErrors.NO_POWER_DATA,
          message: `the perfetto trace has no power-rail data (${trace.packetCount} packets: ${JSON.stringify(trace.packetKinds)})`,
          hint: 'This device exposes no ODPM rails to perfetto; use power: "fuel-gauge".',
          details: { serial: context.device.serial },
        })
      }
      const warnings: EnergyWarning[] = trace.warnings.map((message) => ({
        code: 'W_PERFETTO',
        severity: 'info',
        message,
      }))
      const mapping = options.pollPhase?.hostToBoottime
      if (mapping !== undefined && !extrapolate) {
        const gap = uncoveredEndMs(rails, endHostNs, mapping)
        if (gap !== undefined) {
          const why =
            options.pollPhase?.monotonicToBoottimeNs === undefined
              ? 'no poll came within a whole period after it'
              : 'its poll came later than predicted'
          warnings.push({
            code: 'W_ODPM_END_UNCOVERED',
            severity: 'info',
            message: `perfetto's last rail reading came ${gap.toFixed(1)} ms before the window's end (${why}); the energy of those ms is extrapolated from the interval before`,
          })
        }
      }
      const monotonicToBoottimeNs = monotonicOffsetFrom(trace.clockSnapshots)
      const offsets =
        monotonicToBoottimeNs === undefined
          ? undefined
          : readingOffsetsNs(rails, monotonicToBoottimeNs, pollMs)
      return {
        kind: 'rails',
        rails,
        ...(trace.schedule === undefined
          ? {}
          : { schedule: withStartFrequencies(trace.schedule, s.startKhz, rails) }),
        ...(monotonicToBoottimeNs === undefined ? {} : { monotonicToBoottimeNs }),
        ...(offsets === undefined ? {} : { readingOffsetsNs: offsets }),
        warnings,
      }
    },
    async abort(context) {
      const s = session
      session = undefined
      endReading = undefined
      if (s === undefined) return
      await abortPerfetto(context, s)
    },
  }
}

/**
 * The schedule with each CPU's frequency at the session's start (`startKhz`) as a change just
 * before the trace's first event: `power/cpu_frequency` reports changes only, so without it a
 * CPU's frequency before its first change in the trace is unknown.
 */
export function withStartFrequencies(
  schedule: CpuSchedule,
  startKhz: ReadonlyMap<number, number> | undefined,
  rails: ReturnType<typeof decodePowerTrace>['rails'],
): CpuSchedule {
  if (startKhz === undefined || startKhz.size === 0) return schedule
  let firstNs = Infinity
  for (const s of schedule.slices) firstNs = Math.min(firstNs, s.startNs)
  for (const c of schedule.frequencies ?? []) firstNs = Math.min(firstNs, c.tNs)
  for (const r of rails) firstNs = Math.min(firstNs, r.readings[0]?.tNs ?? Infinity)
  if (!Number.isFinite(firstNs)) return schedule
  const start: CpuFrequencyChange[] = [...startKhz]
    .sort(([a], [b]) => a - b)
    .map(([cpu, khz]) => ({ cpu, tNs: firstNs - 1, khz }))
  return { ...schedule, frequencies: [...start, ...(schedule.frequencies ?? [])] }
}

/**
 * How long to wait after `endHostNs` (the window's end) for the first perfetto reading stamped
 * after it, ms: until the next multiple of the poll period on the device's CLOCK_MONOTONIC
 * (traced_probes' `Tick()` posts its next poll `poll − now_ms % poll` ms ahead), shifted by where
 * earlier readings were stamped relative to that grid, plus the clock mapping's uncertainty on
 * both sides and the slack. A whole period plus the slack when the phase is unknown.
 */
export function untilPollAfterMs(
  endHostNs: number,
  pollMs: number,
  phase: OdpmOptions['pollPhase'],
  slackMs = 10,
): number {
  const monoToBoot = phase?.monotonicToBoottimeNs
  if (phase === undefined || monoToBoot === undefined) return pollMs + slackMs
  const pollNs = pollMs * 1e6
  const uncertaintyNs = mappingUncertaintyNs(phase.hostToBoottime, endHostNs)
  const early = phase.readingOffsetsNs?.minNs ?? 0
  const late = Math.max(0, phase.readingOffsetsNs?.maxNs ?? 0)
  // The latest the device's monotonic clock can read now, and the first poll whose reading is
  // stamped at or after it even when stamped as early as seen before.
  const latestMonoNs = endHostNs + phase.hostToBoottime.offsetNs + uncertaintyNs - monoToBoot
  const pollMonoNs = Math.ceil((latestMonoNs - early) / pollNs) * pollNs
  // Until that poll has run, as late as seen before; measured from the earliest the clock can
  // read now.
  return (pollMonoNs + late - latestMonoNs + 2 * uncertaintyNs) / 1e6 + slackMs
}

/** Signed offsets of rail readings from the poll grid (reading stamp − nearest grid point), ns. */
export interface ReadingOffsets {
  readonly minNs: number
  readonly maxNs: number
}

/**
 * Where this session's rail readings fell relative to the poll grid (multiples of the period on
 * CLOCK_MONOTONIC), from their own stamps and the trace's clock snapshot; the first reading of
 * each rail (the session's start, off the grid) is left out. Offsets are within ± half a period.
 *
 * Only offsets within a quarter period of the session's median count: they are the HAL's steady
 * latency (whole-ms stamps, a driver that stamps its refresh, ms-granular wake-ups), which every
 * later window's end wait plans for. A poll that stalled under load lands tens of ms off (or
 * nearer the next grid point, as a large negative offset); counted, it would lengthen every
 * later wait by as much, for a stall the next window is unlikely to meet again — and if it does,
 * that window's end is extrapolated and says so (W_ODPM_END_UNCOVERED).
 */
export function readingOffsetsNs(
  rails: ReturnType<typeof decodePowerTrace>['rails'],
  monotonicToBoottimeNs: number,
  pollMs: number,
): ReadingOffsets | undefined {
  const pollNs = pollMs * 1e6
  const offsets: number[] = []
  for (const rail of rails) {
    for (let i = 1; i < rail.readings.length; i++) {
      const monoNs = (rail.readings[i]?.tNs ?? 0) - monotonicToBoottimeNs
      offsets.push(monoNs - Math.round(monoNs / pollNs) * pollNs)
    }
  }
  if (offsets.length === 0) return undefined
  offsets.sort((a, b) => a - b)
  const medianNs = offsets[offsets.length >> 1] ?? 0
  const steady = offsets.filter((o) => Math.abs(o - medianNs) <= pollNs / 4)
  return { minNs: steady[0] ?? medianNs, maxNs: steady.at(-1) ?? medianNs }
}

/** The widest of two sets of offsets (what a device session has seen so far). */
export function widerOffsets(
  a: ReadingOffsets | undefined,
  b: ReadingOffsets | undefined,
): ReadingOffsets | undefined {
  if (a === undefined || b === undefined) return a ?? b
  return { minNs: Math.min(a.minNs, b.minNs), maxNs: Math.max(a.maxNs, b.maxNs) }
}

/** How far apart a phone's clock and the host's may run, relative (crystals: tens of ppm each). */
const CLOCK_DRIFT = 100e-6

/**
 * The mapping's uncertainty at `hostNs`: its own, plus the drift since its readings were taken
 * (the device session maps the clock again every 30 s, so this stays within a few ms).
 */
function mappingUncertaintyNs(mapping: DeviceClockMapping, hostNs: number): number {
  return mapping.uncertaintyNs + mappingAgeNs(mapping, hostNs) * CLOCK_DRIFT
}

/**
 * How far (ms) the rails' last common reading falls short of the window's end, beyond the
 * mapping's uncertainty and the HAL's whole-ms timestamps; undefined when it covers the end.
 */
export function uncoveredEndMs(
  rails: ReturnType<typeof decodePowerTrace>['rails'],
  endHostNs: number,
  mapping: DeviceClockMapping,
): number | undefined {
  const endNs = endHostNs + mapping.offsetNs
  let lastNs = Infinity
  for (const r of rails) lastNs = Math.min(lastNs, r.readings.at(-1)?.tNs ?? -Infinity)
  const shortNs = endNs - lastNs - mappingUncertaintyNs(mapping, endHostNs) - 1e6
  return shortNs > 0 ? (endNs - lastNs) / 1e6 : undefined
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))
}

function notStarted(): EnergyError {
  return new EnergyError({
    code: CollectorErrors.NOT_STARTED,
    message: 'the ODPM collector was stopped before it was started',
    hint: 'This is a bug in vitest-energy; please report it.',
  })
}
