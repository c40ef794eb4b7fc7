/**
 * simpleperf sampling with EDATA's settings: `task-clock` events (a thread is sampled after every
 * 1/f s it spends on a CPU), DWARF call graphs, a clock shared with the power data. The recorder
 * runs in the foreground of an adb shell kept open for the window; stop sends SIGINT, waits for
 * it to write the file, then converts on the device with `report-sample --show-callchain`.
 */
import type { Readable } from 'node:stream'
import { quoteShellArg, shell, shellScript, shellStream } from '../../device/index.js'
import {
  parseReportSampleText,
  toStackSampleSet,
  type SimpleperfClockId,
} from '../../formats/simpleperf/index.js'
import { EnergyError, type EnergyWarning } from '../../model/index.js'
import { CollectorErrors } from '../errors.js'
import type { CollectorContext, ExecutionCollector, ExecutionData } from '../types.js'

export interface SimpleperfOptions {
  /** Samples per second of on-CPU time per thread. @default 1000 */
  readonly frequencyHz?: number
  /** `--call-graph` mode. @default 'dwarf' */
  readonly callGraph?: 'dwarf' | 'fp'
  /** Clock of sample times; must be one the power data can be mapped to. @default 'boottime' */
  readonly clock?: SimpleperfClockId
  /** How long to wait for the recorder to flush after SIGINT. @default 30 000 ms */
  readonly stopTimeoutMs?: number
}

export function simpleperfCollector(options: SimpleperfOptions = {}): ExecutionCollector {
  const frequencyHz = options.frequencyHz ?? 1000
  const clock = options.clock ?? 'boottime'
  let recorder:
    { stream: Readable; output: string[]; ended: Promise<void>; file: string } | undefined

  return {
    name: 'simpleperf',
    async start(context) {
      const file = `${context.deviceDir}/${context.windowId}.perf.data`
      await shell(context.device, ['mkdir', '-p', context.deviceDir])
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
      const stream = await shellStream(context.device, argv)
      const output: string[] = []
      stream.setEncoding('utf8')
      stream.on('data', (chunk: string) => output.push(chunk))
      const ended = new Promise<void>((resolve) => {
        stream.once('end', resolve)
        stream.once('close', resolve)
        stream.once('error', () => resolve())
      })
      recorder = { stream, output, ended, file }
    },
    async stop(context): Promise<ExecutionData> {
      const r = recorder
      recorder = undefined
      if (r === undefined) throw notStarted()
      await interruptRecorder(context)
      const timeoutMs = options.stopTimeoutMs ?? 30_000
      const finished = await Promise.race([
        r.ended.then(() => true),
        delay(timeoutMs).then(() => false),
      ])
      r.stream.destroy()
      const recorderOutput = r.output.join('')
      if (!finished) {
        throw new EnergyError({
          code: CollectorErrors.RECORDER_FAILED,
          message: `simpleperf did not finish within ${timeoutMs} ms of SIGINT`,
          hint: 'Check the device with `adb shell ps -A | grep simpleperf`; a very large recording may need a larger stopTimeoutMs.',
          details: { serial: context.device.serial },
        })
      }
      context.onProgress?.('converting simpleperf samples on the device')
      const report = await shellScript(
        context.device,
        `simpleperf report-sample --show-callchain -i ${quoteShellArg(r.file)}`,
      )
      context.keepArtifact?.('simpleperf-report-sample.txt', report.stdout)
      if (report.exitCode !== 0) {
        throw new EnergyError({
          code: CollectorErrors.RECORDER_FAILED,
          message: `simpleperf report-sample failed (exit ${report.exitCode}): ${firstLine(report.stdout)}; recorder said: ${firstLine(recorderOutput)}`,
          hint: `Is ${context.app} profileable (\`<profileable android:shell="true"/>\`) and running during the test?`,
          details: { serial: context.device.serial },
        })
      }
      await shell(context.device, ['rm', '-f', r.file])
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
      return { kind: 'stacks', samples, warnings }
    },
    async abort(context) {
      const r = recorder
      recorder = undefined
      if (r === undefined) return
      await interruptRecorder(context).catch(() => undefined)
      r.stream.destroy()
    },
  }
}

async function interruptRecorder(context: CollectorContext): Promise<void> {
  const pids = (await shell(context.device, ['pidof', 'simpleperf'])).stdout
    .trim()
    .split(/\s+/)
    .filter(Boolean)
  if (pids.length > 0) await shell(context.device, ['kill', '-INT', ...pids])
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
