/**
 * ART method tracing through `am profile start|stop`. Sampling mode (the default) has the runtime
 * diff stacks every interval and costs little; full instrumentation records every call but
 * deoptimizes the app, which inflates the energy being measured — allowed only on request, and
 * reported as a warning. Needs a debuggable or profileable app (API 29+). The trace file is the
 * window's own (`<deviceDir>/<windowId>.trace`) and is removed when the window ends, however it
 * ends. `am profile stop` ends the app's one profiling session: Android refuses a second
 * `am profile start` while one runs, so the session it stops is this window's.
 */
import { pull, shell, statFile } from '../../device/index.js'
import { parseArtTrace, readArtCallTrace } from '../../formats/art-trace/index.js'
import { EnergyError, type EnergyWarning } from '../../model/index.js'
import { SLOW_STEP_LINE_MS } from '../../model/progress.js'
import { removeFiles } from '../_device-process.js'
import { CollectorErrors } from '../errors.js'
import type { CollectorContext, ExecutionCollector, ExecutionData } from '../types.js'

export interface ArtTracingOptions {
  /** Sampling interval in µs; `'instrumentation'` traces every call (inflates energy). @default 1000 */
  readonly samplingIntervalUs?: number | 'instrumentation'
  /** How long to wait for the app to finish writing the trace after `am profile stop`. @default 30 000 ms */
  readonly stopTimeoutMs?: number
}

export function artTracingCollector(options: ArtTracingOptions = {}): ExecutionCollector {
  const sampling = options.samplingIntervalUs ?? 1000
  let file: string | undefined

  return {
    name: sampling === 'instrumentation' ? 'art-instrumentation' : 'art-sampling',
    async start(context) {
      await shell(context.device, ['mkdir', '-p', context.deviceDir])
      const path = `${context.deviceDir}/${context.windowId}.trace`
      await shell(context.device, ['rm', '-f', path])
      const argv = [
        'am',
        'profile',
        'start',
        ...(sampling === 'instrumentation' ? [] : ['--sampling', String(sampling)]),
        context.app,
        path,
      ]
      const result = await shell(context.device, argv)
      const problem = amProblem(result.stdout)
      if (result.exitCode !== 0 || problem !== undefined) {
        // `am` creates the file before the app refuses.
        await removeFiles(context, [path])
        throw startFailed(context, problem ?? result.stdout)
      }
      file = path
    },
    async stop(context): Promise<ExecutionData> {
      const path = file
      file = undefined
      if (path === undefined) throw notStarted()
      try {
        return await stopTracing(context, path)
      } finally {
        await removeFiles(context, [path])
      }
    },
    async abort(context) {
      const path = file
      file = undefined
      if (path === undefined) return
      await shell(context.device, ['am', 'profile', 'stop', context.app]).catch(() => undefined)
      await removeFiles(context, [path])
    },
  }

  async function stopTracing(context: CollectorContext, path: string): Promise<ExecutionData> {
    const result = await shell(context.device, ['am', 'profile', 'stop', context.app])
    const problem = amProblem(result.stdout)
    if (result.exitCode !== 0 || problem !== undefined) {
      throw new EnergyError({
        code: CollectorErrors.RECORDER_FAILED,
        message: `am profile stop failed: ${problem ?? result.stdout.trim()}`,
        hint: `Is ${context.app} still running? Method tracing ends when the process dies.`,
        details: { serial: context.device.serial },
      })
    }
    await waitForStableFile(context, path, options.stopTimeoutMs ?? 30_000)
    let pulledMB = '0.0'
    const step = (): void =>
      context.progress?.step('pulling the method trace', {
        detail: `${pulledMB} MB`,
        line: () => `pulling method trace: ${pulledMB} MB so far`,
        lineAfterMs: SLOW_STEP_LINE_MS,
      })
    step()
    const bytes = await pull(context.device, path, {
      onProgress: (p) => {
        pulledMB = (p.bytes / 1e6).toFixed(1)
        step()
      },
    })
    context.keepArtifact?.('method-trace.trace', bytes)
    const trace = readArtCallTrace(parseArtTrace(bytes), {
      mode: sampling === 'instrumentation' ? 'instrumentation' : 'sampling',
    })
    const warnings: EnergyWarning[] = trace.warnings.map((message) => ({
      code: 'W_TRACE_REPAIRED',
      severity: 'info',
      message,
    }))
    if (sampling === 'instrumentation') {
      warnings.push({
        code: 'W_INSTRUMENTATION',
        severity: 'warning',
        message:
          'full method tracing deoptimizes the app and inflates the energy measured; use sampling for budgets',
      })
    }
    if (trace.overflowed) {
      warnings.push({
        code: 'W_TRACE_OVERFLOW',
        severity: 'error',
        message:
          'the method trace buffer overflowed (data-file-overflow=true): calls near the end of the window are missing',
      })
    }
    return { kind: 'calls', trace, warnings }
  }
}

/** `am` reports failures on stdout with exit status 0 on many releases. */
function amProblem(output: string): string | undefined {
  const line = output
    .split('\n')
    .find((l) => /Exception|Error:|not debuggable|not profileable|Unknown process/i.test(l))
  return line?.trim()
}

function startFailed(context: CollectorContext, output: string): EnergyError {
  if (/not debuggable|not profileable/i.test(output)) {
    return new EnergyError({
      code: 'E_NOT_PROFILEABLE',
      message: `${context.app} cannot be traced: ${output.trim()}`,
      hint: 'add `<profileable android:shell="true"/>` to the manifest or use a debuggable build',
      details: { serial: context.device.serial },
    })
  }
  return new EnergyError({
    code: CollectorErrors.RECORDER_FAILED,
    message: `am profile start failed: ${output.trim() || 'no output'}`,
    hint: `Start ${context.app} before the energy window opens (method tracing attaches to a running process).`,
    details: { serial: context.device.serial },
  })
}

/** The app writes the trace asynchronously after `am profile stop`: wait until its size settles. */
async function waitForStableFile(
  context: CollectorContext,
  path: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let lastSize = -1
  while (Date.now() < deadline) {
    const stat = await statFile(context.device, path)
    if (stat !== undefined && stat.sizeBytes > 0 && stat.sizeBytes === lastSize) return
    lastSize = stat?.sizeBytes ?? -1
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new EnergyError({
    code: CollectorErrors.RECORDER_FAILED,
    message: `the method trace ${path} was not complete ${timeoutMs} ms after am profile stop`,
    hint: 'The app may have crashed while writing it; check `adb logcat` for the app process.',
    details: { serial: context.device.serial },
  })
}

function notStarted(): EnergyError {
  return new EnergyError({
    code: CollectorErrors.NOT_STARTED,
    message: 'the ART tracing collector was stopped before it was started',
    hint: 'This is a bug in vitest-energy; please report it.',
  })
}
