/**
 * The phone's battery history, read a window at a time, for the modelled components of a phone
 * without rails (`componentRails`). batterystats is reset once per phone per run
 * (`resetBatterystats`, by the device session), never per window; each window then reads only
 * what the history gained since the previous read.
 *
 * `dumpsys batterystats --history-start <t>` (BatteryStatsService.dumpUnmonitored; AOSP
 * frameworks/base services/core/java/com/android/server/am/BatteryStatsService.java, e.g. at
 * 79fed186442feca82e87b930e4bba79c310cad11) takes `t` as a time on the history's own clock, in
 * ms ("show only history data starting at given time offset"), parsed with
 * `ParseUtils.parseLong(args[i], 0)`. BatteryStats.dumpHistoryLocked (core/java/android/os/
 * BatteryStats.java, e.g. at 0054447beca694523c7866693c53dca222f23767) then prints only the
 * records whose time is ≥ t: the first one as a full state (its HistoryPrinter starts from an
 * all-off state, and a `TIME:` line precedes it), the rest as changes, every time relative to the
 * first record it iterated, and ends with `  NEXT: <the last record's time + 1>`. History time is
 * `mHistoryBaseTimeMs + elapsedRealtime` (BatteryStatsHistory.writeHistoryItem), and a reset sets
 * the base to 0 (BatteryStatsHistory.initHistoryBuffer, e.g. at
 * e1b5dc72c4eb910c3c70b7eda697a6ad6511010b); Android 15 stamps records with MonotonicClock
 * (elapsedRealtime plus an offset kept across reboots). Either way it is CLOCK_BOOTTIME plus a
 * constant within one boot, in whole ms.
 *
 * Mapping it onto boottime: `resetBatterystats` reads /proc/uptime around `--reset`, then
 * `--history-start 0`, whose `NEXT:` gives the reset record's history time. The offset between the
 * two clocks is known to ± half the reset's duration + 10 ms (/proc/uptime's tick); when the
 * history time equals boottime within that (Android ≤ 14 after a reset), the offset is exactly 0
 * and records land on boottime within their 1 ms resolution. Each window's read
 * (`--history-start <the last record already read>`) is put on the same axis by its own `NEXT:`.
 * A phone without `--history-start` (it prints `Unknown option`) is read with `--history`, anchored
 * on the last `RESET` record.
 */
import { shellStream, type AdbDevice } from '../../device/index.js'
import {
  historyTimeline,
  parseBatterystatsHistory,
  type BatteryHistory,
  type HistoryRecord,
  type HistoryTimeline,
} from '../../formats/batterystats/index.js'
import type { PowerProfile } from '../../formats/power-profile/index.js'
import { isEnergyError, type EnergyWarning, type RailSeries } from '../../model/index.js'
import type { CollectorContext } from '../types.js'
import { resetBatterystatsAt, UPTIME_TICK_NS } from './batterystats.js'
import { componentRails, type BrightnessChange } from './components.js'

/** Where the history's clock lies on CLOCK_BOOTTIME, from the reset. JSON-safe (worker processes share it). */
export interface BatterystatsAnchor {
  /** The reset record on CLOCK_BOOTTIME, ns. */
  readonly bootNs: number
  /** How well `bootNs` is known, ± ns. */
  readonly uncertaintyNs: number
  /**
   * The reset record's time on the history's own clock, ms (the unit `--history-start` takes).
   * Absent when the phone did not answer `--history-start` (then windows read `--history`).
   */
  readonly historyMs?: number
}

export interface BatteryHistoryReadOptions {
  /**
   * Refuse a read longer than this (characters): the history since the previous read is skipped
   * with a warning. A window reads only what the history gained since the previous one, a few kB;
   * a whole day's history is megabytes. @default 4 MiB (4,194,304)
   */
  readonly maxChars?: number
  /** Give up on a read after this long, ms. @default 20000 */
  readonly timeoutMs?: number
}

const DEFAULT_MAX_CHARS = 4 * 1024 * 1024
const DEFAULT_TIMEOUT_MS = 20_000

/**
 * Resets batterystats (`dumpsys batterystats --reset`, between two reads of /proc/uptime) and puts
 * the history's clock on boottime. Once per phone per run: it clears the phone's battery statistics
 * and history. Throws `E_COLLECTOR_RECORDER_FAILED` when the phone refuses the reset; a history
 * that cannot be read afterwards leaves `historyMs` out.
 */
export async function resetBatterystats(
  device: AdbDevice,
  options: BatteryHistoryReadOptions = {},
): Promise<BatterystatsAnchor> {
  const at = await resetBatterystatsAt(device)
  const read = await readHistoryText(device, ['--history-start', '0'], options).catch(
    (error: unknown) => {
      if (isEnergyError(error) && error.code === 'E_DEVICE_DISCONNECTED') throw error
      return undefined
    },
  )
  const history = read?.truncated === false ? parseQuietly(read.text) : undefined
  const records = history === undefined ? [] : recordsOf(history)
  const reset = records.findLast((r) => r.command === 'reset')
  const base = history === undefined ? undefined : historyBaseMs(history, records)
  if (reset === undefined || base === undefined) return at
  const historyMs = base + reset.tNs / 1e6
  // The history's clock is boottime itself (its base is 0 after a reset up to Android 14): exact.
  if (Math.abs(historyMs * 1e6 - at.bootNs) <= at.uncertaintyNs)
    return { bootNs: historyMs * 1e6, uncertaintyNs: 1e6, historyMs }
  return { ...at, historyMs }
}

/** One read of the history, on boottime. */
export type BatteryHistoryRead =
  | {
      readonly ok: true
      readonly history: BatteryHistory
      /** Added to the history's axis (ns) to get boottime (ns). */
      readonly offsetNs: number
    }
  | { readonly ok: false; readonly reason: string }

/** Reads a phone's battery history a window at a time (see the module comment). */
export interface BatteryHistoryReader {
  readonly anchor: BatterystatsAnchor
  /**
   * The history from the last record the previous read saw (the first read: from the reset), on
   * boottime; `ok: false` with the reason when it cannot be read or placed. `keep` receives the
   * text as read. Only a disconnected phone throws (`E_DEVICE_DISCONNECTED`).
   */
  read(device: AdbDevice, keep?: (name: string, data: string) => void): Promise<BatteryHistoryRead>
}

/** A reader of the history reset at `anchor` (one per phone, shared by its windows). */
export function batteryHistoryReader(
  anchor: BatterystatsAnchor,
  options: BatteryHistoryReadOptions = {},
): BatteryHistoryReader {
  /** History time (ms) of the last record read so far. */
  let cursorMs = anchor.historyMs
  let historyStart = anchor.historyMs !== undefined
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS

  async function readText(
    device: AdbDevice,
  ): Promise<{ text: string; truncated: boolean; start: boolean }> {
    if (historyStart && cursorMs !== undefined) {
      const got = await readHistoryText(device, ['--history-start', String(cursorMs)], options)
      // An Android that has no --history-start prints its help after "Unknown option".
      if (got.truncated || !/^\s*Unknown option/m.test(got.text)) return { ...got, start: true }
      historyStart = false
    }
    return { ...(await readHistoryText(device, ['--history'], options)), start: false }
  }

  return {
    anchor,
    async read(device, keep) {
      let got: { text: string; truncated: boolean; start: boolean }
      try {
        got = await readText(device)
      } catch (error) {
        if (isEnergyError(error) && error.code === 'E_DEVICE_DISCONNECTED') throw error
        const message = error instanceof Error ? error.message : String(error)
        return {
          ok: false,
          reason: `\`dumpsys batterystats\` could not be read: ${message.split('\n')[0] ?? ''}`,
        }
      }
      keep?.('batterystats-history.txt', got.text)
      if (got.truncated) {
        return {
          ok: false,
          reason: `the history since the previous read is longer than ${maxChars} characters, more than a window adds: it was not read`,
        }
      }
      let history: BatteryHistory
      try {
        history = parseBatterystatsHistory(got.text)
      } catch (error) {
        if (!isEnergyError(error)) throw error
        return { ok: false, reason: `the history does not parse (${error.code}: ${error.message})` }
      }
      const records = recordsOf(history)
      if (records.length === 0) return { ok: false, reason: 'the history has no records' }
      const base = got.start ? historyBaseMs(history, records) : undefined
      if (base !== undefined && anchor.historyMs !== undefined) {
        cursorMs = (history.next ?? 0) - 1
        return {
          ok: true,
          history,
          offsetNs: (base - anchor.historyMs) * 1e6 + anchor.bootNs,
        }
      }
      // `--history`: the history since our reset starts at its last RESET record.
      const reset = records.findLast((r) => r.command === 'reset')
      if (reset === undefined) {
        return {
          ok: false,
          reason: `the history has ${got.start ? 'no NEXT: line' : 'no RESET record'}, so it cannot be put on the phone's clock (batterystats must be reset once in the run)`,
        }
      }
      return { ok: true, history, offsetNs: anchor.bootNs - reset.tNs }
    },
  }
}

/** What the fuel-gauge collector needs to model a phone's components (its `components` option). */
export interface ComponentModelOptions {
  /** The phone's power profile: the currents each component state is priced with. */
  readonly profile: PowerProfile
  /** The phone's history since the run reset it (one reader per phone, shared by its windows). */
  readonly history: BatteryHistoryReader
  /** Battery voltage, V. @default the history's `volt=` readings */
  readonly voltageV?: number
  /** The screen's exact brightness changes on boottime, when the caller read them. @default the history's bins */
  readonly brightness?: readonly BrightnessChange[]
}

/**
 * The window's modelled component rails over `span` (boottime), or none and a `W_NO_COMPONENTS`
 * warning saying why: the history could not be read, parsed or placed on boottime, or it does not
 * reach back to the span's start. Never fails the window (a disconnected phone aside).
 */
export async function readComponentRails(
  context: CollectorContext,
  options: ComponentModelOptions,
  span: { readonly startNs: number; readonly endNs: number },
): Promise<{ readonly rails?: readonly RailSeries[]; readonly warnings: EnergyWarning[] }> {
  const read = await options.history.read(context.device, context.keepArtifact)
  const none = (reason: string) => ({
    warnings: [
      {
        code: 'W_NO_COMPONENTS',
        severity: 'warning',
        message: `no modelled screen, radio, GPS or Bluetooth energy for this window: ${reason}`,
      } satisfies EnergyWarning,
    ],
  })
  if (!read.ok) return none(read.reason)
  let timeline = historyTimeline(read.history, { endNs: span.endNs - read.offsetNs })
  const lateNs = timeline.startNs + read.offsetNs - span.startNs
  if (lateNs > options.history.anchor.uncertaintyNs + UPTIME_TICK_NS) {
    return none(
      `the history read starts ${(lateNs / 1e6).toFixed(0)} ms after the window's start (batterystats was reset, or its history overflowed, since the previous read)`,
    )
  }
  // A window opened right after the reset can start before its record by as much as the two
  // clocks are known to agree (the gauge's /proc/uptime tick, the anchor): the record's state then.
  if (lateNs > 0) timeline = heldFrom(timeline, span.startNs - read.offsetNs)
  const rails = componentRails(timeline, options.profile, span, {
    offsetNs: read.offsetNs,
    ...(options.voltageV === undefined ? {} : { voltageV: options.voltageV }),
    ...(options.brightness === undefined ? {} : { brightness: options.brightness }),
  })
  return { rails, warnings: [] }
}

/** `timeline` with the state of its first record held back to `fromNs` (history axis). */
function heldFrom(timeline: HistoryTimeline, fromNs: number): HistoryTimeline {
  const first = timeline.startNs
  return {
    ...timeline,
    startNs: fromNs,
    intervals: timeline.intervals.map((i) => (i.startNs === first ? { ...i, startNs: fromNs } : i)),
  }
}

function recordsOf(history: BatteryHistory): HistoryRecord[] {
  return history.items.filter((i): i is HistoryRecord => i.kind === 'record')
}

/**
 * The history time (ms) of a `--history-start` dump's printed time 0, from its `NEXT:` line (the
 * last record's time + 1); undefined without one.
 */
function historyBaseMs(
  history: BatteryHistory,
  records: readonly HistoryRecord[],
): number | undefined {
  const last = records.at(-1)
  if (history.next === undefined || last === undefined) return undefined
  return history.next - 1 - last.tNs / 1e6
}

function parseQuietly(text: string): BatteryHistory | undefined {
  try {
    return parseBatterystatsHistory(text)
  } catch (error) {
    if (isEnergyError(error)) return undefined
    throw error
  }
}

/**
 * `dumpsys batterystats <args>`'s output, read until it ends, `maxChars` characters are exceeded
 * (`truncated`: the rest is not read, the command is hung up) or `timeoutMs` passes (an error).
 */
async function readHistoryText(
  device: AdbDevice,
  args: readonly string[],
  options: BatteryHistoryReadOptions,
): Promise<{ text: string; truncated: boolean }> {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const stream = await shellStream(device, ['dumpsys', 'batterystats', ...args])
  return new Promise((resolve, reject) => {
    const pieces: string[] = []
    const decoder = new TextDecoder()
    let chars = 0
    let done = false
    const finish = (outcome: { error: unknown } | { truncated: boolean }): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      // Destroying our end hangs up the command on the phone (shellStream).
      if (!('truncated' in outcome) || outcome.truncated) stream.destroy()
      if ('error' in outcome) {
        reject(outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error)))
        return
      }
      pieces.push(decoder.decode())
      resolve({ text: pieces.join(''), truncated: outcome.truncated })
    }
    const timer = setTimeout(
      () => finish({ error: new Error(`no end after ${timeoutMs} ms`) }),
      timeoutMs,
    )
    stream.on('data', (chunk: Buffer) => {
      if (done) return
      const text = decoder.decode(chunk, { stream: true })
      chars += text.length
      if (chars > maxChars) finish({ truncated: true })
      else pieces.push(text)
    })
    stream.on('end', () => finish({ truncated: false }))
    stream.on('error', (error: unknown) => finish({ error }))
  })
}
