/**
 * Writer of `simpleperf report-sample` text, byte for byte as the tool prints it (reference: AOSP
 * simpleperf/cmd_report_sample.cpp PrintMetaInfo / PrintSample / ProcessSwitchRecord /
 * PrintLostSituation at github.com/Miku-UI/platform_system_extras@b03ef35587a5696450f4a6b16da913ae4acc7ce3;
 * the `ip`/`dso` form from the 2016 PrintSampleRecord). Used by the virtual device.
 */
import { EnergyError } from '../../model/errors.js'
import { SimpleperfErrors } from './errors.js'
import { mergeByTime } from './report-sample-proto.js'
import type { SimpleperfFrame, SimpleperfReport } from './types.js'

/** Options of {@link formatReportSampleText}. */
export interface FormatReportSampleTextOptions {
  /**
   * `--show-callchain`: print callers under `callchain:`. Without it simpleperf cuts each chain to
   * the sampled frame.
   * @default true
   */
  readonly showCallchain?: boolean
  /**
   * `vaddr_in_file` = current simpleperf (meta_info, event_type, event_count, thread_name,
   * lost_situation); `ip` = the 2016 form (time, thread_id, ip, dso, symbol only).
   * @default 'vaddr_in_file'
   */
  readonly keyStyle?: 'vaddr_in_file' | 'ip'
  /** `--show-execution-type`: print `execution_type:` after each frame that has one. @default false */
  readonly showExecutionType?: boolean
}

/** Render a report as `simpleperf report-sample` stdout. */
export function formatReportSampleText(
  report: Pick<SimpleperfReport, 'samples'> & Partial<SimpleperfReport>,
  options: FormatReportSampleTextOptions = {},
): string {
  const showCallchain = options.showCallchain ?? true
  const old = options.keyStyle === 'ip'
  const out: string[] = []
  if (!old) {
    const eventTypes = [...(report.meta?.eventTypes ?? [])]
    for (const s of report.samples)
      if (!eventTypes.includes(s.eventType)) eventTypes.push(s.eventType)
    const meta = report.meta
    out.push('meta_info:\n', `  trace_offcpu: ${meta?.traceOffcpu === true ? 'true' : 'false'}\n`)
    for (const e of eventTypes) out.push(`  event_type: ${e}\n`)
    if (meta?.appPackageName) out.push(`  app_package_name: ${meta.appPackageName}\n`)
    if (meta?.appType) out.push(`  app_type: ${meta.appType}\n`)
    if (meta?.androidSdkVersion) out.push(`  android_sdk_version: ${meta.androidSdkVersion}\n`)
    if (meta?.androidBuildType) out.push(`  android_build_type: ${meta.androidBuildType}\n`)
  }
  const frame = (f: SimpleperfFrame, indent: string): void => {
    out.push(
      `${indent}${old ? 'ip' : 'vaddr_in_file'}: ${f.vaddrInFile}\n`,
      `${indent}${old ? 'dso' : 'file'}: ${f.file}\n`,
      `${indent}symbol: ${f.symbol}\n`,
    )
    if (options.showExecutionType === true && f.executionType !== undefined) {
      out.push(`${indent}execution_type: ${f.executionType}\n`)
    }
  }
  for (const event of mergeByTime(report.samples, old ? [] : (report.contextSwitches ?? []))) {
    if (event.kind === 'switch') {
      const c = event.value
      out.push(
        'context_switch:\n',
        `  switch_on: ${c.switchOn ? 'true' : 'false'}\n`,
        `  time: ${c.timeNs}\n`,
        `  thread_id: ${c.threadId}\n`,
      )
      continue
    }
    const s = event.value
    const [top, ...callers] = s.frames
    if (top === undefined) {
      throw new EnergyError({
        code: SimpleperfErrors.WRITER_INPUT,
        message: `sample at ${s.timeNs} ns on thread ${s.threadId} has no frames`,
        hint: 'Every simpleperf sample has at least the sampled instruction; give each sample one frame or more.',
        details: { format: 'simpleperf report-sample text' },
      })
    }
    if (!old && s.eventCount === undefined) {
      throw new EnergyError({
        code: SimpleperfErrors.WRITER_INPUT,
        message: `sample at ${s.timeNs} ns on thread ${s.threadId} has no event_count, which current simpleperf always prints`,
        hint: "Give every sample its event_count (the sampling period), or write the 2016 form with keyStyle: 'ip'.",
        details: { format: 'simpleperf report-sample text' },
      })
    }
    out.push('sample:\n')
    if (old) {
      out.push(`  time: ${s.timeNs}\n`, `  thread_id: ${s.threadId}\n`)
    } else {
      out.push(
        `  event_type: ${s.eventType}\n`,
        `  time: ${s.timeNs}\n`,
        `  event_count: ${s.eventCount}\n`,
        `  thread_id: ${s.threadId}\n`,
        `  thread_name: ${s.threadName}\n`,
      )
    }
    frame(top, '  ')
    // Current builds print `callchain:` only when there are callers; the 2016 build always did
    // under --show-callchain.
    if (showCallchain && (old || callers.length > 0)) {
      out.push('  callchain:\n')
      for (const f of callers) frame(f, '    ')
    }
  }
  if (!old) {
    out.push(
      'lost_situation:\n',
      `  sample_count: ${report.samples.length}\n`,
      `  lost_count: ${report.lost?.lostCount ?? 0}\n`,
    )
  }
  return out.join('')
}
