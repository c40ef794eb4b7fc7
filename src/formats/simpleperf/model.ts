/** simpleperf report → the model's `StackSampleSet`. */
import type { ClockName } from '../../model/clock.js'
import { EnergyError } from '../../model/errors.js'
import type { StackSample, StackSampleSet } from '../../model/samples.js'
import { SimpleperfErrors } from './errors.js'
import { normalizeFrameName } from './symbols.js'
import type { SimpleperfReport } from './types.js'

/** Values of `simpleperf record --clockid` this tool can place on a model clock. */
export type SimpleperfClockId = 'monotonic' | 'monotonic_raw' | 'boottime' | 'realtime'

const CLOCKS: Record<string, ClockName> = {
  monotonic: 'monotonic',
  monotonic_raw: 'monotonic_raw',
  boottime: 'boottime',
  realtime: 'realtime',
}

/** Options of {@link toStackSampleSet}. */
export interface StackSampleSetOptions {
  /**
   * The `--clockid` the recording used. simpleperf's `time` is ns on that clock; report-sample
   * does not print it, so the caller (who ran `simpleperf record`) says. A `clockid` key in the
   * text's `meta_info:` block is used when this is absent.
   * @default 'monotonic' (simpleperf's default where the kernel supports it)
   */
  readonly clock?: SimpleperfClockId
  /** Keep only samples of this event type (e.g. `task-clock`). @default all samples */
  readonly eventType?: string
  /**
   * Turn Java frames into `com.example.Foo.bar` method names (see `symbols.ts`); native frames
   * stay as printed. `false` keeps every symbol verbatim.
   * @default true
   */
  readonly javaMethodNames?: boolean
}

/** Event types whose `event_count` is a duration in ns (the kernel's software clocks). */
const NS_EVENTS: ReadonlySet<string> = new Set(['task-clock', 'cpu-clock'])

/**
 * The model view of a report: one `StackSample` per sample, frames leaf first, `periodNs` from
 * `event_count` for task-clock/cpu-clock samples, `lostCount` from `lost_situation`.
 */
export function toStackSampleSet(
  report: SimpleperfReport,
  options: StackSampleSetOptions = {},
): StackSampleSet {
  const metaClock = report.meta?.extra.find(([key]) => key === 'clockid')?.[1]
  const clockId: string = options.clock ?? metaClock ?? 'monotonic'
  const clock = CLOCKS[clockId]
  if (clock === undefined) {
    throw new EnergyError({
      code: SimpleperfErrors.UNKNOWN_CLOCK,
      message: `simpleperf clock \`${clockId}\` cannot be mapped to a device clock`,
      hint: 'Record with `simpleperf record --clockid monotonic` (or monotonic_raw/boottime) so samples can be aligned with power data.',
      details: { format: 'simpleperf report-sample' },
    })
  }
  const javaNames = options.javaMethodNames ?? true
  const samples: StackSample[] = []
  for (const s of report.samples) {
    if (options.eventType !== undefined && s.eventType !== options.eventType) continue
    samples.push({
      tNs: s.timeNs,
      threadId: s.threadId,
      ...(s.threadName === '' ? {} : { threadName: s.threadName }),
      frames: s.frames.map((f) => (javaNames ? normalizeFrameName(f.symbol, f.file) : f.symbol)),
      ...(s.eventCount !== undefined && NS_EVENTS.has(s.eventType)
        ? { periodNs: s.eventCount }
        : {}),
    })
  }
  return { clock, samples, lostCount: report.lost?.lostCount ?? 0 }
}
