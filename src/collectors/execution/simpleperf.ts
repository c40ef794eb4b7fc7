/**
 * simpleperf sampling with EDATA's settings: `task-clock` events (a thread is sampled after every
 * 1/f s it spends on a CPU), DWARF call graphs, a clock shared with the power data. The recorder
 * runs in the foreground of an adb shell kept open for the window, started as
 * `sh -c 'echo $$; exec simpleperf record …'` so the pid it prints is the recorder's own; stop
 * sends SIGINT to that pid only (another window's recorder on the phone keeps running), waits for
 * it to write the file, then converts on the device with `report-sample --show-callchain`. The
 * recording is removed when the window ends, however it ends.
 */
import type { Readable } from 'node:stream'
import { quoteShellArg, shell, shellScript, shellStream } from '../../device/index.js'
import {
  parseReportSampleText,
  toStackSampleSet,
  type SimpleperfClockId,
} from '../../formats/simpleperf/index.js'
import { EnergyError, type EnergyWarning } from '../../model/index.js'
import { SLOW_STEP_LINE_MS } from '../../model/progress.js'
import { killProcess, PID_LINE, removeFiles } from '../_device-process.js'
import { CollectorErrors } from '../errors.js'
import type { CollectorContext, ExecutionCollector, ExecutionData } from '../types.js'

export interface SimpleperfOptions {
  /**
   * Samples per second of on-CPU time per thread (`record -f`; the plugin's `samplingHz`).
   * @default 1000
   */
  readonly frequencyHz?: number
  /** `--call-graph` mode. @default 'dwarf' */
  readonly callGraph?: 'dwarf' | 'fp'
  /** Clock of sample times; must be one the power data can be mapped to. @default 'boottime' */
  readonly clock?: SimpleperfClockId
  /** How long to wait for the recorder to flush after SIGINT. @default 30 000 ms */
  readonly stopTimeoutMs?: number
}

/** How long the shell may take to print the recorder's pid. */
const START_TIMEOUT_MS = 10_000
/** How long an abandoned recorder may take to exit after SIGINT before it is killed. */
const ABORT_GRACE_MS = 5_000

interface Recorder {
  readonly stream: Readable
  /** The recorder's output after its pid line (legacy adb shell merges stderr into it). */
  readonly output: string[]
  readonly ended: Promise<void>
  readonly file: string
  /** simpleperf's pid: the shell's, which `exec` handed over. */
  readonly pid: string
}

export function simpleperfCollector(options: SimpleperfOptions = {}): ExecutionCollector {
  const frequencyHz = options.frequencyHz ?? 1000
  const clock = options.clock ?? 'boottime'
  let recorder: Recorder | undefined

  return {
    name: 'simpleperf',
    async start(context) {
      const file = `${context.deviceDir}/${context.windowId}.perf.data`
      const argv = [
        'simpleperf',
        'record',
        '--app',
        context.app,
        '-e',
        'task-clock',
        '-f',
        String(frequencyHz),
        '--call-graph',
        options.callGraph ?? 'dwarf',
        '--clockid',
        clock,
        '-o',
        file,
      ]
      // `exec` keeps the shell's pid: the pid printed first is the recorder's. The folder is made
      // in the same shell (one round trip less); if that fails, no pid comes and its error shows.
      const stream = await shellStream(context.device, [
        'sh',
        '-c',
        `mkdir -p ${quoteShellArg(context.deviceDir)} && echo $$ && exec ${argv.map(quoteShellArg).join(' ')}`,
      ])
      const r = await recorderStarted(stream, file)
      if (typeof r === 'string') {
        stream.destroy()
        await removeFiles(context, [file])
        throw new EnergyError({
          code: CollectorErrors.RECORDER_FAILED,
          message: `the shell that starts simpleperf did not print its pid within ${START_TIMEOUT_MS} ms: ${firstLine(r) || 'no output'}`,
          hint: "Check the device answers `adb shell sh -c 'echo $$'` and has simpleperf (`adb shell simpleperf --version`, Android 9+).",
          details: { serial: context.device.serial },
        })
      }
      recorder = r
    },
    async stop(context): Promise<ExecutionData> {
      const r = recorder
      recorder = undefined
      if (r === undefined) throw notStarted()
      let removed = false
      try {
        const stopped = await stopRecorder(context, r)
        removed = stopped.removed
        return stopped.data
      } finally {
        r.stream.destroy()
        if (!removed) await removeFiles(context, [r.file])
      }
    },
    async abort(context) {
      const r = recorder
      recorder = undefined
      if (r === undefined) return
      try {
        await shell(context.device, ['kill', '-INT', r.pid])
        if (!(await endedWithin(r, ABORT_GRACE_MS))) await killProcess(context, r.pid)
      } catch {
        // Abandoned: nothing to report; the file is removed either way.
      } finally {
        r.stream.destroy()
        await removeFiles(context, [r.file])
      }
    },
  }

  /**
   * SIGINT, then one shell on the phone waits for the recorder to write its file, converts it and
   * removes it: one round trip instead of a kill, a conversion and an rm. The host watches the
   * recorder's own shell end, so a recorder that will not stop is killed after `stopTimeoutMs`
   * while a long conversion is never cut short.
   */
  async function stopRecorder(
    context: CollectorContext,
    r: Recorder,
  ): Promise<{ data: ExecutionData; removed: boolean }> {
    const pid = quoteShellArg(r.pid)
    const file = quoteShellArg(r.file)
    const cancel = new AbortController()
    // Exit status 1 from kill when it is gone already (the app died): its file is still there.
    const converted = shellScript(
      context.device,
      `kill -INT ${pid} 2>/dev/null; while kill -0 ${pid} 2>/dev/null; do sleep 0.005; done; ` +
        `simpleperf report-sample --show-callchain -i ${file} && rm -f ${file}`,
      { signal: cancel.signal },
    )
    // Settled here, awaited below: a rejection while the recorder still runs is not unhandled.
    converted.catch(() => undefined)
    const timeoutMs = options.stopTimeoutMs ?? 30_000
    if (!(await endedWithin(r, timeoutMs))) {
      cancel.abort()
      await killProcess(context, r.pid)
      throw new EnergyError({
        code: CollectorErrors.RECORDER_FAILED,
        message: `simpleperf (pid ${r.pid}) did not finish within ${timeoutMs} ms of SIGINT; it was killed and its recording is lost`,
        hint: 'Check the device with `adb shell ps -A | grep simpleperf`; a very large recording may need a larger stopTimeoutMs.',
        details: { serial: context.device.serial },
      })
    }
    const recorderOutput = r.output.join('')
    // A plain line only when it is slow (a long recording on a phone): a quick conversion after
    // every window would be noise in a log.
    context.progress?.step('converting samples', {
      line: 'converting simpleperf samples on the device',
      lineAfterMs: SLOW_STEP_LINE_MS,
    })
    const report = await converted
    context.keepArtifact?.('simpleperf-report-sample.txt', report.stdout)
    if (report.exitCode !== 0) {
      throw new EnergyError({
        code: CollectorErrors.RECORDER_FAILED,
        message: `simpleperf report-sample failed (exit ${report.exitCode}): ${firstLine(report.stdout)}; recorder said: ${firstLine(recorderOutput)}`,
        hint: `Is ${context.app} profileable (\`<profileable android:shell="true"/>\`) and running during the test?`,
        details: { serial: context.device.serial },
      })
    }
    const samples = toStackSampleSet(parseReportSampleText(report.stdout), {
      clock,
      eventType: 'task-clock',
    })
    const warnings: EnergyWarning[] = []
    if (samples.lostCount > 0) {
      warnings.push({
        code: 'W_SAMPLES_LOST',
        severity: 'warning',
        message: `simpleperf lost ${samples.lostCount} sample(s); per-method figures undercount`,
      })
    }
    return { data: { kind: 'stacks', samples, warnings }, removed: true }
  }
}

/**
 * Waits for the shell's first line, the recorder's pid. Resolves with what the shell said instead
 * when it ended (or stayed silent) without one.
 */
function recorderStarted(stream: Readable, file: string): Promise<Recorder | string> {
  const output: string[] = []
  stream.setEncoding('utf8')
  const ended = new Promise<void>((resolve) => {
    stream.once('end', resolve)
    stream.once('close', resolve)
    stream.once('error', () => resolve())
  })
  return new Promise((resolve) => {
    let head = ''
    const done = (pid?: string): void => {
      clearTimeout(timer)
      resolve(pid === undefined ? head : { stream, output, ended, file, pid })
    }
    const timer = setTimeout(() => done(), START_TIMEOUT_MS)
    const onHead = (chunk: string): void => {
      head += chunk
      const m = PID_LINE.exec(head)
      if (m === null) return
      stream.off('data', onHead)
      stream.on('data', (c: string) => output.push(c))
      output.push(head.slice(m[0].length))
      done(m[1])
    }
    stream.on('data', onHead)
    void ended.then(() => done())
  })
}

function endedWithin(r: Recorder, timeoutMs: number): Promise<boolean> {
  return Promise.race([r.ended.then(() => true), delay(timeoutMs).then(() => false)])
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? ''
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
}

function notStarted(): EnergyError {
  return new EnergyError({
    code: CollectorErrors.NOT_STARTED,
    message: 'the simpleperf collector was stopped before it was started',
    hint: 'This is a bug in vitest-energy; please report it.',
  })
}
