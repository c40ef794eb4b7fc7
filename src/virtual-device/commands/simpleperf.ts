/**
 * `simpleperf record [--app PKG | -p PID] -e task-clock [-f HZ] [--call-graph dwarf]
 * [--clockid monotonic_raw] [--duration S] -o FILE` runs until `--duration` elapses or it gets
 * SIGINT (`kill -INT <pid>`), then writes the recording. `simpleperf report-sample
 * [--show-callchain] [--protobuf] -i FILE [-o OUT]` converts it with the simpleperf writers.
 *
 * The recording file is the virtual device's own container (magic `VDEV-SIMPLEPERF`), not a
 * kernel perf.data: only this device's `report-sample` reads it, as only simpleperf reads perf.data.
 */
import {
  encodeReportSampleProtobuf,
  formatReportSampleText,
  type SimpleperfSample,
} from '../../formats/simpleperf/index.js'
import type { ShellCommand, ShellInvocation } from '../contract.js'
import { bootNowNs, type SimPhone } from '../sim/phone.js'
import { sampleTaskClock } from '../sim/simpleperf-sampler.js'
import { err, option, out } from './_util.js'
import { appApkPath } from './pm.js'

const MAGIC = 'VDEV-SIMPLEPERF 1\n'

interface Recording {
  readonly appPackageName?: string
  readonly androidSdkVersion: string
  readonly samples: readonly SimpleperfSample[]
}

export function simpleperfCommand(phone: SimPhone): ShellCommand {
  return async (inv) => {
    const [, sub, ...args] = inv.argv
    if (sub === 'record') return record(phone, inv, args)
    if (sub === 'report-sample') return reportSample(inv, args)
    if (sub === '--version') {
      out(inv, 'Simpleperf version 1.build.9627331\n')
      return 0
    }
    err(inv, `simpleperf E command.cpp:62] malformed command line: unknown command ${sub ?? ''}\n`)
    return 1
  }
}

async function record(
  phone: SimPhone,
  inv: ShellInvocation,
  args: readonly string[],
): Promise<number> {
  const file = option(args, '-o') ?? '/data/local/tmp/perf.data'
  const event = option(args, '-e') ?? 'cpu-cycles'
  const app = option(args, '--app')
  const pidArg = option(args, '-p')
  const freq = Number(option(args, '-f') ?? '4000')
  const duration = option(args, '--duration')
  if (event !== 'task-clock' && event !== 'cpu-clock') {
    err(
      inv,
      `simpleperf E event_selection_set.cpp:315] The virtual device supports only task-clock and cpu-clock, not ${event}\n`,
    )
    return 1
  }
  if (!Number.isFinite(freq) || freq <= 0) {
    err(
      inv,
      `simpleperf E cmd_record.cpp:1003] Invalid sample frequency: '${option(args, '-f') ?? ''}'\n`,
    )
    return 1
  }
  const pid = phone.appProcess?.pid
  const targets = app === phone.app.package || (pidArg !== undefined && pidArg === String(pid))
  if (app !== undefined && app !== phone.app.package) {
    err(
      inv,
      `simpleperf E cmd_record.cpp:819] Package ${app} doesn't exist or isn't debuggable/profileable.\n`,
    )
    return 1
  }
  if (app !== undefined && !phone.app.debuggable && !phone.app.profileable) {
    err(
      inv,
      `simpleperf E cmd_record.cpp:819] Package ${app} doesn't exist or isn't debuggable/profileable.\n`,
    )
    return 1
  }
  if (!targets || pid === undefined) {
    err(inv, `simpleperf E cmd_record.cpp:1147] Can't find process of app ${app ?? pidArg ?? ''}\n`)
    return 1
  }
  const startNs = bootNowNs(phone)
  try {
    if (duration !== undefined) await phone.clock.sleep(Number(duration) * 1e9, inv.signal)
    else {
      await new Promise<void>((resolve) => {
        if (inv.signal.aborted) resolve()
        inv.signal.addEventListener('abort', () => resolve(), { once: true })
      })
    }
  } catch {
    // SIGINT during --duration: stop early, as simpleperf does.
  }
  const reason: unknown = inv.signal.reason
  if (inv.signal.aborted && reason !== 'INT' && reason !== 'TERM') return 130
  const stopNs = bootNowNs(phone)
  const clockId = option(args, '--clockid') ?? 'perf'
  const clockOffsetNs =
    clockId === 'boottime' ? 0 : phone.clock.nowNs('monotonic') - phone.clock.nowNs('boottime')
  const samples = sampleTaskClock(phone.sim, {
    pid,
    startNs,
    stopNs,
    frequencyHz: freq,
    clockOffsetNs,
    odexPath: appApkPath(phone).replace(/base\.apk$/, 'oat/arm64/base.odex'),
  }).map((s) => ({ ...s, eventType: event }))
  const recording: Recording = {
    appPackageName: phone.app.package,
    androidSdkVersion: inv.device.props.get('ro.build.version.sdk') ?? '33',
    samples,
  }
  inv.device.fs.writeFile(file, new TextEncoder().encode(MAGIC + JSON.stringify(recording)), 0o644)
  err(
    inv,
    `simpleperf I cmd_record.cpp:729] Samples recorded: ${samples.length}. Samples lost: 0.\n`,
  )
  return 0
}

function reportSample(inv: ShellInvocation, args: readonly string[]): number {
  const input = option(args, '-i') ?? 'perf.data'
  const output = option(args, '-o')
  const path = input.startsWith('/') ? input : `/data/local/tmp/${input}`
  if (inv.device.fs.stat(path) === undefined) {
    err(
      inv,
      `simpleperf E record_file_reader.cpp:78] failed to open record file '${input}': No such file or directory\n`,
    )
    return 1
  }
  const text = new TextDecoder().decode(inv.device.fs.readFile(path))
  if (!text.startsWith(MAGIC)) {
    err(inv, `simpleperf E record_file_reader.cpp:99] ${input} is not a valid perf.data file\n`)
    return 1
  }
  const recording = JSON.parse(text.slice(MAGIC.length)) as Recording
  const report = {
    samples: recording.samples,
    meta: {
      eventTypes: [...new Set(recording.samples.map((s) => s.eventType))],
      ...(recording.appPackageName === undefined
        ? {}
        : { appPackageName: recording.appPackageName }),
      appType: 'profileable',
      androidSdkVersion: recording.androidSdkVersion,
      androidBuildType: 'user',
      traceOffcpu: false,
      extra: [],
    },
    lost: { sampleCount: recording.samples.length, lostCount: 0 },
    contextSwitches: [],
    threads: [],
  }
  if (args.includes('--protobuf')) {
    const bytes = encodeReportSampleProtobuf(report)
    if (output === undefined) inv.io.write(bytes)
    else inv.device.fs.writeFile(output, bytes, 0o644)
    return 0
  }
  const rendered = formatReportSampleText(report, {
    showCallchain: args.includes('--show-callchain'),
  })
  if (output === undefined) out(inv, rendered)
  else inv.device.fs.writeFile(output, new TextEncoder().encode(rendered), 0o644)
  return 0
}
