/**
 * `perfetto --version` prints the release's version line (android-versions.ts).
 * `perfetto -c - --txt -o FILE [--background]`: reads a text TraceConfig from stdin, and for an
 * `android.power` data source polls the ODPM rails (`collect_power_rails: true`) and the battery
 * counters at the session's start and then every `battery_poll_ms` in the phone-wide phase
 * traced_probes uses (`pollTimesNs`); for a `linux.ftrace` data source that records `sched_switch`
 * it writes what ran on each CPU of the simulated phone over the session (compact unless
 * `compact_sched { enabled: false }`), with `power/cpu_frequency` and `power/cpu_idle` events when
 * the config asks for them. The binary trace is written with the perfetto encoder when
 * the session ends (`duration_ms`, or SIGTERM/SIGINT via `kill`). `--background` prints the pid
 * and returns at once, as the real tool does.
 */
import {
  encodePowerTrace,
  parsePerfettoTextConfig,
  requestsSchedSwitch,
  type BatteryCounterReading,
  type FtraceConfig,
  type PerfettoTraceConfig,
  type PowerTraceSchedule,
} from '../../formats/perfetto/index.js'
import type { RailSeries } from '../../model/index.js'
import { apiLevelOf, perfettoVersionLine } from '../android-versions.js'
import type { ShellCommand, ShellInvocation } from '../contract.js'
import { cpuScheduleOf, idleChanges } from '../sim/cpu-schedule.js'
import { RAIL_SUBSYSTEMS } from '../sim/power-model.js'
import { bootNowNs, type SimPhone } from '../sim/phone.js'
import type { PowerPoll } from '../sim/power-stats-hal.js'
import { readRails } from '../sim/sensors.js'
import { err, out } from './_util.js'

const DEFAULT_POLL_MS = 1000
/** traced_probes drains the ftrace buffers this often by default (ftrace_controller.cc). */
const FTRACE_DRAIN_MS = 100
/** traced_probes caps `battery_poll_ms` below this (android_power_data_source.cc). */
const MIN_POLL_MS = 100

/**
 * When traced_probes' android.power data source reads the counters over [startNs, stopNs]
 * (boottime ns): once when the session starts, then as its `Tick()` schedules itself — the next
 * poll `poll − now_ms % poll` ms after each one, `now_ms` being CLOCK_MONOTONIC in whole ms (perfetto's
 * wall clock). So polls fall on multiples of the period (plus the start's sub-ms remainder), the
 * same phase for every session on the phone, and nothing is read when a session stops.
 */
export function pollTimesNs(
  phone: SimPhone,
  pollMs: number,
  startNs: number,
  stopNs: number,
): number[] {
  const next = nextPollNs(phone, pollMs)
  const times = [startNs]
  for (let t = next(startNs); t <= stopNs; t = next(t)) times.push(t)
  return times
}

/**
 * When traced_probes' next Tick is due after one that ran at `ranNs`: `poll − now_ms % poll` ms
 * later, `now_ms` being CLOCK_MONOTONIC in whole ms (perfetto's wall clock).
 */
function nextPollNs(phone: SimPhone, pollMs: number): (ranNs: number) => number {
  const monoMinusBootNs = phone.clock.nowNs('monotonic') - phone.clock.nowNs('boottime')
  return (ranNs) => {
    const nowMs = Math.floor((ranNs + monoMinusBootNs) / 1e6)
    return ranNs + (pollMs - (nowMs % pollMs)) * 1e6
  }
}

/**
 * The session's polls: with the phone physics as the power-stats HAL times them (late Ticks, the
 * driver's own stamps per PMIC, cached readings; sim/power-stats-hal.ts), else on the exact grid.
 */
function pollsOf(
  phone: SimPhone,
  config: PerfettoTraceConfig,
  pollMs: number,
  startNs: number,
  stopNs: number,
): PowerPoll[] {
  if (phone.sim.physics !== 'phone') {
    return pollTimesNs(phone, pollMs, startNs, stopNs).map((t) => ({
      tickNs: t,
      meters: [
        { stampNs: t, energyUws: readRails(phone.sim, t).energyUws, energyAtNs: t, cached: false },
      ],
    }))
  }
  // Any linux.ftrace data source drains on traced_probes' one thread every 100 ms (its default),
  // aligned like the poll.
  const ftrace = config.dataSources.some((d) => d.name === 'linux.ftrace')
  const monoMinusBootNs = phone.clock.nowNs('monotonic') - phone.clock.nowNs('boottime')
  return phone.hal.polls(
    startNs,
    stopNs,
    nextPollNs(phone, pollMs),
    (dueNs) => ftrace && Math.round((dueNs + monoMinusBootNs) / 1e6) % FTRACE_DRAIN_MS === 0,
  )
}

/**
 * The sched_switch data of a session over [startNs, stopNs], when its config has a `linux.ftrace`
 * data source that records it: one bundle per CPU of the power profile.
 */
function scheduleOf(
  phone: SimPhone,
  config: PerfettoTraceConfig,
  startNs: number,
  stopNs: number,
): PowerTraceSchedule | undefined {
  const ftrace = config.dataSources.find(
    (d) =>
      d.name === 'linux.ftrace' &&
      d.ftraceConfig !== undefined &&
      requestsSchedSwitch(d.ftraceConfig),
  )?.ftraceConfig
  if (ftrace === undefined) return undefined
  // traced_probes enables only the events its config lists: no cpu_frequency or cpu_idle unless
  // asked.
  const { frequencies, ...schedule } = cpuScheduleOf(phone.sim, startNs, stopNs)
  return {
    ...schedule,
    ...(frequencies !== undefined && requestsPowerEvent(ftrace, 'cpu_frequency', 'freq')
      ? { frequencies }
      : {}),
    ...(requestsPowerEvent(ftrace, 'cpu_idle', 'idle')
      ? { idle: idleChanges(phone.sim, startNs, stopNs) }
      : {}),
    compact: ftrace.compactSched ?? true,
    endNs: stopNs,
  }
}

/**
 * Whether an ftrace config records the `power/<event>` event: by name, the `power/*` group, or the
 * atrace category perfetto expands to it (`freq` to the cpufreq events, `idle` to `cpu_idle`:
 * src/traced/probes/ftrace/ftrace_config_muxer.cc).
 */
function requestsPowerEvent(config: FtraceConfig, event: string, atraceCategory: string): boolean {
  return (
    config.ftraceEvents.some((e) => e === `power/${event}` || e === event || e === 'power/*') ||
    config.atraceCategories.includes(atraceCategory)
  )
}

/** Builds the trace bytes of an android.power / linux.ftrace session over [startNs, stopNs]. */
export function powerTraceBytes(
  phone: SimPhone,
  config: PerfettoTraceConfig,
  startNs: number,
  stopNs: number,
): Uint8Array {
  const power = config.dataSources.find((d) => d.name === 'android.power')?.androidPowerConfig
  // 0 or absent: the default period; below the minimum: capped, as traced_probes does.
  const asked = power?.batteryPollMs ?? 0
  const polls = pollsOf(
    phone,
    config,
    asked === 0 ? DEFAULT_POLL_MS : Math.max(MIN_POLL_MS, asked),
    startNs,
    stopNs,
  )
  const railNames = phone.sim.railNames()
  const rails: RailSeries[] = []
  // A phone without ODPM has no PowerStats HAL: traced_probes finds no rails and writes none.
  if (power?.collectPowerRails === true && phone.odpm) {
    const readings = new Map<string, { tNs: number; energyJ: number }[]>(
      railNames.map((r) => [r, []]),
    )
    for (const poll of polls) {
      for (const meter of poll.meters) {
        for (const [name, uws] of meter.energyUws) {
          readings.get(name)?.push({ tNs: meter.stampNs, energyJ: uws / 1e6 })
        }
      }
    }
    for (const name of railNames) {
      rails.push({
        kind: 'cumulative',
        rail: name,
        subsystem: RAIL_SUBSYSTEMS[name] ?? '',
        source: 'odpm',
        clock: 'boottime',
        readings: readings.get(name) ?? [],
      })
    }
  }
  const counters = new Set(power?.batteryCounters ?? [])
  const battery: BatteryCounterReading[] = []
  if (counters.size > 0) {
    // The battery packet is stamped when the Tick runs (traced_probes' own CLOCK_BOOTTIME). The
    // values are the gauge's nodes as the health HAL reads them (BatteryMonitor reads the sysfs
    // files as they are), so a node's refresh, quantum and unit/sign quirks show here too; a
    // gauge without `current_avg` gives no average (the HAL answers NOT_SUPPORTED).
    for (const { tickNs: t } of polls) {
      const g = phone.battery.read(t)
      const avg = counters.has('BATTERY_COUNTER_CURRENT_AVG')
        ? phone.battery.readCurrentAvg(t)
        : undefined
      battery.push({
        tNs: t,
        ...(counters.has('BATTERY_COUNTER_CHARGE') ? { chargeC: g.chargeCounter * 3.6e-3 } : {}),
        ...(counters.has('BATTERY_COUNTER_CAPACITY_PERCENT')
          ? { capacityPercent: g.capacityPct }
          : {}),
        ...(counters.has('BATTERY_COUNTER_CURRENT') ? { currentA: g.currentNow / 1e6 } : {}),
        ...(avg === undefined ? {} : { currentAvgA: avg / 1e6 }),
        ...(counters.has('BATTERY_COUNTER_VOLTAGE') ? { voltageV: g.voltageUv / 1e6 } : {}),
      })
    }
  }
  const schedule = scheduleOf(phone, config, startNs, stopNs)
  return encodePowerTrace({
    rails,
    batteryCounters: battery.length > 0 ? [{ clock: 'boottime', readings: battery }] : [],
    clockSnapshot: {
      boottime: startNs,
      monotonic: startNs + (phone.clock.nowNs('monotonic') - phone.clock.nowNs('boottime')),
    },
    config,
    ...(schedule === undefined ? {} : { schedule }),
  })
}

function argValue(args: readonly string[], ...names: string[]): string | undefined {
  for (const name of names) {
    const i = args.indexOf(name)
    if (i >= 0) return args[i + 1]
  }
  return undefined
}

export function perfettoCommand(phone: SimPhone): ShellCommand {
  return async (inv: ShellInvocation) => {
    const args = inv.argv.slice(1)
    if (args.includes('--version')) {
      out(inv, `${perfettoVersionLine(apiLevelOf(inv.device.props))}\n`)
      return 0
    }
    const configArg = argValue(args, '-c', '--config')
    const outPath = argValue(args, '-o', '--out')
    if (configArg === undefined) {
      err(inv, 'Either --config or one of --atrace / --ftrace must be specified\n')
      return 1
    }
    if (outPath === undefined) {
      err(inv, 'Either --out or --upload is required\n')
      return 1
    }
    if (!args.includes('--txt')) {
      err(inv, 'The virtual device reads text configs only: pass --txt\n')
      return 1
    }
    const text =
      configArg === '-'
        ? new TextDecoder().decode(inv.stdin)
        : new TextDecoder().decode(inv.device.fs.readFile(configArg))
    let config: PerfettoTraceConfig
    try {
      config = parsePerfettoTextConfig(text)
    } catch (error) {
      err(
        inv,
        `[perfetto_cmd.cc] Failed to parse config: ${(error as Error).message.split('\n')[0] ?? ''}\n`,
      )
      return 1
    }
    const session = async (signal: AbortSignal): Promise<number> => {
      const startNs = bootNowNs(phone)
      inv.device.fs.writeFile(outPath, new Uint8Array(0), 0o600)
      try {
        if (config.durationMs !== undefined && config.durationMs > 0) {
          await phone.clock.sleep(config.durationMs * 1e6, signal)
        } else {
          await new Promise<void>((resolve) => {
            if (signal.aborted) resolve()
            signal.addEventListener('abort', () => resolve(), { once: true })
          })
        }
      } catch {
        // Stopped by a signal before duration_ms: finalize the trace, like perfetto on SIGTERM.
      }
      if (signal.aborted && signal.reason === 'KILL') return 137
      const stopNs = bootNowNs(phone)
      inv.device.fs.writeFile(outPath, powerTraceBytes(phone, config, startNs, stopNs), 0o600)
      return 0
    }
    if (args.includes('--background') || args.includes('-d')) {
      const process = inv.device.processes.spawn('perfetto', session, { user: 'shell' })
      out(inv, `${process.pid}\n`)
      return 0
    }
    return session(inv.signal)
  }
}
