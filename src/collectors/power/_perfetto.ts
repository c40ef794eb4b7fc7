/**
 * A Perfetto session a collector runs for the length of a window: started with its text config on
 * stdin (`--background`, so the shell returns the pid), stopped by that pid with SIGTERM (never by
 * name: other windows' sessions on the phone keep running), its trace handed back in the same
 * shell and removed, however the window ends. The ODPM collector records the rails (and the
 * schedule) this way; on a phone without rails the fuel-gauge collector records the schedule.
 */
import { DeviceErrors, quoteShellArg, shellScript } from '../../device/index.js'
import type { decodePowerTrace, PerfettoTraceConfig } from '../../formats/perfetto/index.js'
import { EnergyError, isEnergyError } from '../../model/index.js'
import { endProcess, killProcess, removeFiles } from '../_device-process.js'
import { CollectorErrors } from '../errors.js'
import type { CollectorContext } from '../types.js'

type PerfettoDataSource = PerfettoTraceConfig['dataSources'][number]

/** A `linux.ftrace` data source recording `events` (`group/name`), with compact sched_switch. */
export function ftraceDataSource(events: readonly string[]): PerfettoDataSource {
  return {
    name: 'linux.ftrace',
    ftraceConfig: {
      ftraceEvents: [...events],
      atraceCategories: [],
      compactSched: true,
      unknownFields: [],
    },
    unknownFields: [],
    dataSourceUnknownFields: [],
  }
}

/** A running session: perfetto's pid, its trace file, and each CPU's kHz when it started. */
export interface PerfettoSession {
  readonly pid: string
  readonly file: string
  readonly startKhz: ReadonlyMap<number, number> | undefined
}

/** How long an abandoned session may take to exit after SIGTERM before it is killed. */
const ABORT_GRACE_MS = 5_000

/**
 * Starts perfetto with `config` (text format) writing to `file`. With `frequencies`, each cpufreq
 * policy's frequency is read in the same shell once perfetto records: ftrace reports frequency
 * changes only (a change after the read is in the trace). `hint` says what to do when perfetto
 * does not start; the script's status stays perfetto's.
 */
export async function startPerfetto(
  context: CollectorContext,
  config: string,
  file: string,
  options: { readonly frequencies: boolean; readonly hint: string },
): Promise<PerfettoSession> {
  const { frequencies } = options
  const started = await shellScript(
    context.device,
    `echo ${quoteShellArg(config)} | perfetto --txt -c - -o ${quoteShellArg(file)} --background` +
      (frequencies
        ? `; s=$?; echo ${quoteShellArg(FREQUENCIES_MARK)}; ${CPU_FREQUENCIES_SCRIPT}; (exit $s)`
        : ''),
  )
  const mark = started.stdout.lastIndexOf(FREQUENCIES_MARK)
  const perfettoOut = mark < 0 ? started.stdout : started.stdout.slice(0, mark)
  // `--background` prints the session's pid last (log lines on stderr may come first).
  const pid = perfettoOut.trim().split(/\s+/).pop() ?? ''
  if (started.exitCode !== 0 || !/^\d+$/.test(pid)) {
    await removeFiles(context, [file])
    throw new EnergyError({
      code: CollectorErrors.RECORDER_FAILED,
      message: `perfetto did not start (exit ${started.exitCode}): ${perfettoOut.trim().slice(0, 200) || 'no output'}`,
      hint: options.hint,
      details: { serial: context.device.serial },
    })
  }
  const startKhz =
    frequencies && mark >= 0
      ? parseCpuFrequencies(started.stdout.slice(mark + FREQUENCIES_MARK.length))
      : undefined
  return { pid, file, startKhz }
}

/** Ends an abandoned session and removes its trace (gone first, or it could write it again). */
export async function abortPerfetto(
  context: CollectorContext,
  session: PerfettoSession,
): Promise<void> {
  await endProcess(context, session.pid, 'TERM', ABORT_GRACE_MS).catch(() => undefined)
  await removeFiles(context, [session.file])
}

/** Prints `<related_cpus>:<scaling_cur_freq>` for every cpufreq policy. */
const CPU_FREQUENCIES_SCRIPT =
  '(cd /sys/devices/system/cpu/cpufreq && for p in policy*; do echo "$(cat $p/related_cpus):$(cat $p/scaling_cur_freq)"; done) 2>/dev/null'

/** Between perfetto's output and the frequencies in the start script's output. */
const FREQUENCIES_MARK = '--- cpufreq ---'

/**
 * Each CPU's frequency now, kHz (`scaling_cur_freq` of every cpufreq policy, for the CPUs in its
 * `related_cpus`); undefined when the phone does not show them (the attribution then takes each
 * CPU's first traced change as its frequency before it). The collector reads them in the shell
 * that starts perfetto; this is the same read on its own.
 */
export async function readCpuFrequencies(
  context: CollectorContext,
): Promise<ReadonlyMap<number, number> | undefined> {
  const read = await shellScript(context.device, CPU_FREQUENCIES_SCRIPT).catch(() => undefined)
  return read === undefined || read.exitCode !== 0 ? undefined : parseCpuFrequencies(read.stdout)
}

/** `<cpus>:<kHz>` lines → kHz per CPU; undefined when there is none. */
function parseCpuFrequencies(text: string): ReadonlyMap<number, number> | undefined {
  const khzOf = new Map<number, number>()
  for (const line of text.split('\n')) {
    const m = /^\s*([\d ]+):\s*(\d+)\s*$/.exec(line)
    if (m === null) continue
    for (const cpu of (m[1] ?? '').trim().split(/\s+/)) khzOf.set(Number(cpu), Number(m[2]))
  }
  return khzOf.size === 0 ? undefined : khzOf
}

/**
 * SIGTERM makes perfetto flush and write the trace; the same shell waits for it to exit, prints
 * the trace and removes it: one round trip instead of a kill, a pull and an rm, each of which costs
 * an adb connection and a shell on the phone (≈ 5–20 ms apiece) while the test waits. `shell:`
 * with a command runs without a terminal, so the bytes arrive as written. Perfetto is killed, and
 * its trace removed, if it has not exited and handed the trace over in time.
 */
export async function stopPerfetto(
  context: CollectorContext,
  session: { pid: string; file: string },
  timeoutMs: number,
): Promise<Uint8Array> {
  const pid = quoteShellArg(session.pid)
  const file = quoteShellArg(session.file)
  let read: Awaited<ReturnType<typeof shellScript>>
  try {
    read = await shellScript(
      context.device,
      `kill -TERM ${pid} 2>/dev/null; while kill -0 ${pid} 2>/dev/null; do sleep 0.005; done; cat ${file} && rm -f ${file}`,
      { signal: AbortSignal.timeout(timeoutMs) },
    )
  } catch (error) {
    if (isEnergyError(error) && error.code === DeviceErrors.ABORTED) {
      await killProcess(context, session.pid)
      await removeFiles(context, [session.file])
      throw new EnergyError({
        code: CollectorErrors.RECORDER_FAILED,
        message: `perfetto (pid ${session.pid}) did not exit within ${timeoutMs} ms of SIGTERM (or its trace did not arrive in that time); it was killed and its trace is lost`,
        hint: 'Check `adb shell ps -A | grep perfetto` for another stuck session; a very busy phone may need a longer stopTimeoutMs.',
        details: { serial: context.device.serial },
      })
    }
    await removeFiles(context, [session.file])
    throw error
  }
  if (read.exitCode !== 0) {
    await removeFiles(context, [session.file])
    throw new EnergyError({
      code: CollectorErrors.RECORDER_FAILED,
      message: `perfetto (pid ${session.pid}) left no readable trace at ${session.file}: ${read.stdout.trim().slice(0, 200) || `exit ${read.exitCode}`}`,
      hint: 'Another tool may have removed it, or the trace directory is not readable by the shell user; run `adb shell ls -l /data/misc/perfetto-traces`.',
      details: { serial: context.device.serial },
    })
  }
  if (read.output.length === 0) {
    throw new EnergyError({
      code: CollectorErrors.RECORDER_FAILED,
      message: `perfetto (pid ${session.pid}) handed back an empty trace at ${session.file}: it ended before writing what it recorded`,
      hint: 'Something else stopped it (`kill`, another tool ending perfetto sessions, the phone rebooting its tracing service) or the disk is full; run `adb shell ps -A | grep perfetto` and `adb shell df /data`.',
      details: { serial: context.device.serial },
    })
  }
  return read.output
}

/** boottime − monotonic from the trace's clock snapshots (they record both at one instant). */
export function monotonicOffsetFrom(
  snapshots: ReturnType<typeof decodePowerTrace>['clockSnapshots'],
): number | undefined {
  for (const snapshot of snapshots) {
    const boot = snapshot.find((c) => c.clock === 'boottime')
    const mono = snapshot.find((c) => c.clock === 'monotonic')
    if (boot?.timestampNs !== undefined && mono?.timestampNs !== undefined) {
      return boot.timestampNs - mono.timestampNs
    }
  }
  return undefined
}
