/**
 * `dumpsys batterystats --history` text (also the first section of a full `dumpsys batterystats`).
 *
 * Reference: AOSP frameworks/base core/java/android/os/BatteryStats.java, class HistoryPrinter
 * (printNextItem, non-checkin branch; android-15.0.0_r1) and TimeUtils.formatDuration with
 * HUNDRED_DAY_FIELD_LEN = 19. Each line is: two spaces, the time since the start of the history
 * right-aligned in 19 columns, ` (n) ` (ints read for the record; optional here), then either a
 * command (`RESET:TIME: …`, `TIME: …`, `START`, `SHUTDOWN`, `*OVERFLOW*`) or the 3-digit battery
 * level followed by what changed: `+flag`, `-flag`, `key=value`, `[+-]key=uid:"tag"`.
 * Some records are followed by continuation lines (`Details: cpu=…`, `/proc/stat=…`; Android 8.1
 * puts `, SubsystemPowerState …` at column 0); they are kept verbatim. Lines we do not understand
 * inside the section become `unknown` items. A full dump's own `Time on battery:` is checked
 * against the history (`W_BATTERYSTATS_HISTORY_INCOMPLETE`).
 *
 * `dumpsys batterystats --history-start <t>` (BatteryStatsService.dumpUnmonitored) prints only the
 * records whose history time is ≥ t and ends the section with `  NEXT: <last record's time + 1>`
 * (BatteryStats.dumpHistoryLocked, android-13.0.0_r1; the same in 14 and 15): that line gives the
 * history's own clock of the records, whose printed times are relative to the first record the
 * dump iterated. It is read into `BatteryHistory.next`.
 */
import type { EnergyWarning } from '../../model/energy.js'
import { EnergyError } from '../../model/errors.js'
import { LineSplitter, lineTooLong, MAX_LINE_LENGTH, splitLines, stripCrs } from './_lines.js'
import { BatterystatsErrors, BatterystatsWarnings } from './errors.js'
import { historyTimeline, timeOnBatteryNs } from './timeline.js'

const FORMAT = 'batterystats history'

/** One token of an update record, in the order printed. */
export type HistoryToken =
  /** `+screen`, `-wifi_running`: a state bit turned on or off. */
  | { readonly kind: 'flag'; readonly on: boolean; readonly name: string }
  /**
   * `+top=u0a123:"com.example"`, `-job=…`, `conn=1:"CONNECTED"`: an event (or a tagged state) with
   * the app uid as printed (`u0a123`, `1000`, `-1`) and its tag string. `prefix` is `''` for events
   * that are neither start nor finish.
   */
  | {
      readonly kind: 'tagged'
      readonly prefix: '+' | '-' | ''
      readonly name: string
      readonly uid: string
      readonly tag: string
    }
  /** `volt=4317`, `brightness=dark`, `status=discharging`: a changed value, verbatim. */
  | { readonly kind: 'value'; readonly name: string; readonly value: string }
  /** A token of no known shape, verbatim. */
  | { readonly kind: 'unknown'; readonly text: string }

export type HistoryCommand = 'update' | 'reset' | 'time' | 'start' | 'shutdown' | 'overflow'

/** One history line (and its continuation lines). */
export interface HistoryRecord {
  readonly kind: 'record'
  /** 1-based line number in the input. */
  readonly line: number
  /** Time since the start of the history, ns (the printed value has ms resolution). */
  readonly tNs: number
  /**
   * The time token as printed, only when it differs from the canonical form of `tNs`. Old releases
   * (Android 4.4) print overflowing fields such as `+1d00h60m00s533ms` (= +1d01h00m00s533ms).
   */
  readonly timeText?: string
  /** The `(n)` field: ints read for this record. Absent when the line has none. */
  readonly readInts?: number
  readonly command: HistoryCommand
  /** Battery level in % (the 3-digit field), on `update` records. */
  readonly batteryLevel?: number
  /** Device wall clock of `RESET:TIME:` / `TIME:` records, as printed (`yyyy-MM-dd-HH-mm-ss`, device time zone). */
  readonly wallClock?: string
  /** What changed, on `update` records. */
  readonly tokens: readonly HistoryToken[]
  /** Indented continuation lines (`Details: cpu=…`), verbatim. */
  readonly details: readonly string[]
}

/** A line inside the history section that is not a record and follows no record: kept, never fatal. */
export interface HistoryUnknownLine {
  readonly kind: 'unknown'
  readonly line: number
  readonly text: string
}

export type HistoryItem = HistoryRecord | HistoryUnknownLine

/** What a full dump says about itself in its `Statistics since last charge:` block. */
export interface HistoryDumpStats {
  /** 1-based line of `Total run time:`. */
  readonly line: number
  /** `Time on battery:` (realtime), ns. */
  readonly timeOnBatteryNs: number
  /** `Total run time:` (realtime), ns: when the dump was taken, on the history's time axis. */
  readonly totalRunTimeNs: number
}

export interface BatteryHistory {
  /** The `Battery History (…):` line, verbatim, when present. */
  readonly header?: string
  readonly items: readonly HistoryItem[]
  /** Present when the input is a full dump with a `Statistics since last charge:` block. */
  readonly dumpStats?: HistoryDumpStats
  /**
   * The `NEXT:` value a `--history-start` dump ends with: the history time (ms, on the history's
   * own clock, the unit `--history-start` takes) of the last record the dump iterated, plus 1.
   * Absent from `--history` and full dumps.
   */
  readonly next?: number
  /**
   * What the parser found wrong with the history without refusing it (`W_BATTERYSTATS_HISTORY_CUT`,
   * `W_BATTERYSTATS_HISTORY_INCOMPLETE`). Always set by the parsers; absent on histories built in code.
   */
  readonly warnings?: readonly EnergyWarning[]
}

const TIME_RE = /^([+-])?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(\d+)ms$/
/** A history line: indentation, a time-like token, optional `(n)`, body. */
const LINE_RE = /^\s+([-+]?\d[0-9a-z]*)(?: \((\d+)\))? (.*)$/
const TAGGED_RE = /^([+-]?)([A-Za-z_][A-Za-z0-9_.]*)=(-?[0-9a-z]+):"(.*)"$/s
const FLAG_RE = /^([+-])([A-Za-z_][A-Za-z0-9_.]*)$/
const VALUE_RE = /^([A-Za-z_][A-Za-z0-9_.]*)=([^"]*)$/

/**
 * Parses a history time token (`0`, `+2s895ms`, `+4d22h52m29s039ms`) into ms; `undefined` if
 * malformed, or too large to be exact (over 2^53 ms: no device prints that).
 */
export function parseHistoryTimeMs(token: string): number | undefined {
  if (token === '0') return 0
  const m = TIME_RE.exec(token)
  if (m === null || m[1] === undefined) return undefined
  const [d, h, min, s, ms] = [m[2], m[3], m[4], m[5], m[6]].map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
  ]
  const total = (((d * 24 + h) * 60 + min) * 60 + s) * 1000 + ms
  if (!Number.isSafeInteger(total)) return undefined
  return m[1] === '-' ? -total : total
}

/**
 * Formats ms the way TimeUtils.formatDuration does with a field width: `0`, else a sign, then
 * d/h/m/s/ms where every field after the first printed one is always printed and zero-padded.
 */
export function formatHistoryTime(ms: number): string {
  if (ms === 0) return '0'
  let rest = Math.abs(Math.round(ms))
  const days = Math.floor(rest / 86_400_000)
  rest -= days * 86_400_000
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const secs = Math.floor(rest / 1000)
  const millis = rest - secs * 1000
  let out = ms < 0 ? '-' : '+'
  let printed = false
  const field = (amount: number, unit: string, width: number, always: boolean): void => {
    if (always || printed || amount > 0) {
      out += printed ? String(amount).padStart(width, '0') : String(amount)
      out += unit
      printed = true
    }
  }
  field(days, 'd', 0, false)
  field(hours, 'h', 2, false)
  field(minutes, 'm', 2, false)
  field(secs, 's', 2, false)
  field(millis, 'ms', 3, true)
  return out
}

/** Splits at spaces outside double quotes (tags such as wake lock names contain spaces). */
function splitTokens(text: string): string[] {
  // runs of non-space characters, where a double-quoted part may contain spaces (and an unclosed
  // quote runs to the end of the line, as a truncated line would)
  return text.match(/(?:[^ "]+|"[^"]*"?)+/g) ?? []
}

function parseToken(text: string): HistoryToken {
  const tagged = TAGGED_RE.exec(text)
  if (tagged !== null) {
    return {
      kind: 'tagged',
      prefix: (tagged[1] ?? '') as '+' | '-' | '',
      name: tagged[2] ?? '',
      uid: tagged[3] ?? '',
      tag: tagged[4] ?? '',
    }
  }
  const flag = FLAG_RE.exec(text)
  if (flag !== null) return { kind: 'flag', on: flag[1] === '+', name: flag[2] ?? '' }
  const value = VALUE_RE.exec(text)
  if (value !== null) return { kind: 'value', name: value[1] ?? '', value: value[2] ?? '' }
  return { kind: 'unknown', text }
}

/** The printed form of a token (the inverse of the tokenizer). */
export function formatHistoryToken(token: HistoryToken): string {
  switch (token.kind) {
    case 'flag':
      return `${token.on ? '+' : '-'}${token.name}`
    case 'tagged':
      return `${token.prefix}${token.name}=${token.uid}:"${token.tag}"`
    case 'value':
      return `${token.name}=${token.value}`
    case 'unknown':
      return token.text
  }
}

interface Body {
  readonly command: HistoryCommand
  readonly batteryLevel?: number
  readonly wallClock?: string
  readonly tokens: readonly HistoryToken[]
}

function parseBody(body: string): Body | undefined {
  const reset = /^RESET:(?:TIME: (.*))?$/.exec(body)
  if (reset !== null)
    return {
      command: 'reset',
      tokens: [],
      ...(reset[1] === undefined ? {} : { wallClock: reset[1] }),
    }
  const time = /^TIME: (.*)$/.exec(body)
  if (time !== null) return { command: 'time', wallClock: time[1] ?? '', tokens: [] }
  if (body === 'START') return { command: 'start', tokens: [] }
  if (body === 'SHUTDOWN') return { command: 'shutdown', tokens: [] }
  if (body === '*OVERFLOW*') return { command: 'overflow', tokens: [] }
  const update = /^(\d{3})(?: (.*))?$/.exec(body)
  if (update === null) return undefined
  return {
    command: 'update',
    batteryLevel: Number(update[1]),
    tokens: splitTokens(update[2] ?? '').map(parseToken),
  }
}

/**
 * What the line parsers yield: history items; the section header when present; the dump's own
 * statistics (`dumpStats`) when the input is a full dump; and `cut` when the section ended at an
 * unindented line that is neither blank nor a continuation (the history may go on after it).
 */
export type HistoryLineItem =
  | HistoryItem
  | { readonly kind: 'header'; readonly text: string }
  | { readonly kind: 'dumpStats'; readonly stats: HistoryDumpStats }
  | { readonly kind: 'cut'; readonly line: number; readonly text: string }
  | { readonly kind: 'next'; readonly line: number; readonly next: number }

/** `  NEXT: 1234` after the records of a `--history-start` dump (a long: it may be negative). */
const NEXT_RE = /^\s+NEXT: (-?\d{1,15})$/

const DUMP_UNIT_MS: Readonly<Record<string, number>> = {
  d: 86_400_000,
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
}

/** `8m 14s 616ms (92,0%) realtime, …` (BatteryStats.formatTimeMs): the leading duration, ns. */
function parseDumpDurationNs(text: string): number | undefined {
  let ms = 0
  let last: string | undefined
  for (const part of text.split(' ', 8)) {
    const m = /^(\d+)(d|h|m|s|ms)$/.exec(part)
    if (m === null) break
    last = m[2] ?? ''
    ms += Number(m[1]) * (DUMP_UNIT_MS[last] ?? 0)
  }
  return last === 'ms' ? ms * 1e6 : undefined
}

type Mode = 'seek' | 'history' | 'stats' | 'done'

/** `DUMP OF SERVICE batterystats:` (Android 8+ may name a priority before the service). */
const DUMP_OF_SERVICE_RE = /^DUMP OF SERVICE (?:(?:CRITICAL|HIGH|NORMAL) )?(.*):\s*$/
/** What ends a service's dump in a bugreport: its duration line, a separator, the next service. */
const SERVICE_END_RE = /^(?:-{9}|DUMP OF SERVICE )/

/**
 * The history state machine, one line at a time (trailing CRs are ignored).
 * - `seek`: until the `Battery History` header (or, without it, the first complete valid record).
 *   A bugreport (a `== dumpstate:` line) or an all-services `dumpsys` (`DUMP OF SERVICE …:`) is
 *   read only inside its `DUMP OF SERVICE batterystats:` section, which ends the parse; other
 *   services print history-shaped lines (`dumpsys alarm`: `    +5s123ms 100 wakes …`).
 * - `history`: records and their continuation lines (indented, or at column 0 starting with `,`:
 *   Android 8.1 wraps the `Details:` text onto `, SubsystemPowerState …`), up to the first blank
 *   line, or an unindented line (then a `cut` item); a `--history-start` dump's `  NEXT: <n>`
 *   line (a `next` item).
 * - `stats`: looks for `Time on battery:` and `Total run time:` in the `Statistics since last
 *   charge:` block of a full dump; `done` once both are read (later lines are ignored).
 * A record is emitted when the next line shows it has no more continuation lines, or at `finish()`.
 */
class HistoryLineParser {
  private mode: Mode = 'seek'
  private lineNo = 0
  private pending: { record: Omit<HistoryRecord, 'details'>; details: string[] } | undefined
  private inStatsBlock = false
  private timeOnBatteryNs: number | undefined
  private historySeen = false
  /** Line where the input showed it is a bugreport (or all-services dumpsys); 0 when it is not. */
  private bugreportLine = 0
  /** Line of `DUMP OF SERVICE batterystats:`, 0 before; `inService` while inside that section. */
  private serviceLine = 0
  private inService = false

  get done(): boolean {
    return this.mode === 'done'
  }

  feed(rawLine: string): HistoryLineItem[] {
    this.lineNo++
    const text = stripCrs(rawLine)
    if (text.length > MAX_LINE_LENGTH) {
      // a record or continuation line that long is not batterystats; elsewhere (other sections of
      // a full dump or bugreport) the line is passed over, unread
      if (this.mode === 'history') throw lineTooLong(FORMAT, this.lineNo)
      return []
    }
    if (this.inService && SERVICE_END_RE.test(text)) return this.endService()
    switch (this.mode) {
      case 'seek':
        return this.seek(text)
      case 'history':
        return this.history(text)
      case 'stats':
        return this.stats(text)
      case 'done':
        return []
    }
  }

  /**
   * Emits the record still waiting for continuation lines. Throws for a bugreport without a
   * batterystats section, or whose section has no history.
   */
  finish(): HistoryLineItem[] {
    const out = this.flush()
    this.mode = 'done'
    if (this.bugreportLine > 0 && this.serviceLine === 0) {
      throw new EnergyError({
        code: BatterystatsErrors.BUGREPORT_NO_BATTERYSTATS,
        message:
          'this is a bugreport (or an all-services dumpsys) without a "DUMP OF SERVICE batterystats:" section',
        hint: 'The bugreport was cut short or taken without dumpsys: capture `adb shell dumpsys batterystats` (or `--history`) instead.',
        details: { format: FORMAT, line: this.bugreportLine },
      })
    }
    if (this.serviceLine > 0 && !this.historySeen) this.noHistoryInService()
    return out
  }

  private seek(text: string): HistoryLineItem[] {
    const service = DUMP_OF_SERVICE_RE.exec(text)
    if (service !== null && !this.inService) {
      this.bugreportLine ||= this.lineNo
      if (service[1] === 'batterystats') {
        this.serviceLine = this.lineNo
        this.inService = true
      }
      return []
    }
    if (/^== dumpstate: /.test(text)) {
      this.bugreportLine ||= this.lineNo
      return []
    }
    if (this.bugreportLine > 0 && !this.inService) return []
    if (/^Battery History\b/.test(text)) {
      this.mode = 'history'
      this.historySeen = true
      return [{ kind: 'header', text }]
    }
    // without a header, only a complete, valid record starts the section (so indented numbered
    // lines of other dumpsys sections are not mistaken for history)
    const start = LINE_RE.exec(text)
    if (
      start === null ||
      parseHistoryTimeMs(start[1] ?? '') === undefined ||
      parseBody(start[3] ?? '') === undefined
    ) {
      return []
    }
    this.mode = 'history'
    this.historySeen = true
    return this.history(text)
  }

  /** The end of a bugreport's batterystats section: the end of the parse. */
  private endService(): HistoryLineItem[] {
    const out = this.flush()
    this.inService = false
    this.mode = 'done'
    if (!this.historySeen) this.noHistoryInService()
    return out
  }

  private noHistoryInService(): never {
    throw new EnergyError({
      code: BatterystatsErrors.HISTORY_NOT_FOUND,
      message: `the bugreport's batterystats section (from line ${this.serviceLine}) has no "Battery History"`,
      hint: 'Capture `adb shell dumpsys batterystats --history` directly (after `--reset` and the test).',
      details: { format: FORMAT, line: this.serviceLine },
    })
  }

  private history(text: string): HistoryLineItem[] {
    if (text.trim() === '') {
      this.mode = 'stats'
      return this.flush()
    }
    if (!/^\s/.test(text)) {
      if (text.startsWith(',')) return this.continuation(text)
      this.mode = 'stats'
      const out = this.flush()
      out.push({ kind: 'cut', line: this.lineNo, text })
      return out
    }
    const next = NEXT_RE.exec(text)
    if (next !== null) {
      const out = this.flush()
      out.push({ kind: 'next', line: this.lineNo, next: Number(next[1]) })
      return out
    }
    const m = LINE_RE.exec(text)
    if (m === null) return this.continuation(text)
    const timeText = m[1] ?? ''
    const ms = parseHistoryTimeMs(timeText)
    if (ms === undefined) {
      const token = timeText.length <= 40 ? timeText : `${timeText.slice(0, 40)}…`
      throw new EnergyError({
        code: BatterystatsErrors.HISTORY_BAD_TIME,
        message: `malformed time token ${JSON.stringify(token)} (expected 0 or +[Nd][Nh][Nm][Ns]Nms)`,
        hint: 'Pass the unmodified output of `dumpsys batterystats --history`; the line may be truncated or edited.',
        details: { format: FORMAT, line: this.lineNo, token },
      })
    }
    const body = parseBody(m[3] ?? '')
    const out = this.flush()
    if (body === undefined) {
      out.push({ kind: 'unknown', line: this.lineNo, text })
      return out
    }
    const readInts = m[2] === undefined ? undefined : Number(m[2])
    this.pending = {
      record: {
        kind: 'record',
        line: this.lineNo,
        tNs: ms * 1e6,
        ...(formatHistoryTime(ms) === timeText ? {} : { timeText }),
        ...(readInts === undefined ? {} : { readInts }),
        ...body,
      },
      details: [],
    }
    return out
  }

  /** A line that belongs to the record before it; kept as `unknown` when no record precedes it. */
  private continuation(text: string): HistoryLineItem[] {
    if (this.pending === undefined) return [{ kind: 'unknown', line: this.lineNo, text }]
    this.pending.details.push(text)
    return []
  }

  private stats(text: string): HistoryLineItem[] {
    if (/^Statistics since /.test(text)) {
      // the first block is "since last charge" (the history's own span); a later one ends it
      if (this.inStatsBlock) this.mode = 'done'
      this.inStatsBlock = /^Statistics since last charge:/.test(text)
      return []
    }
    if (!this.inStatsBlock) return []
    const onBattery = /^\s+Time on battery: (.*)$/.exec(text)
    if (onBattery !== null) {
      this.timeOnBatteryNs ??= parseDumpDurationNs(onBattery[1] ?? '')
      return []
    }
    const total = /^\s+Total run time: (.*)$/.exec(text)
    const totalNs = total === null ? undefined : parseDumpDurationNs(total[1] ?? '')
    if (totalNs === undefined || this.timeOnBatteryNs === undefined) return []
    this.mode = 'done'
    const stats = {
      line: this.lineNo,
      timeOnBatteryNs: this.timeOnBatteryNs,
      totalRunTimeNs: totalNs,
    }
    return [{ kind: 'dumpStats', stats }]
  }

  private flush(): HistoryLineItem[] {
    const p = this.pending
    this.pending = undefined
    return p === undefined ? [] : [{ ...p.record, details: p.details }]
  }
}

/**
 * Streams the history section out of `lines` (see `HistoryLineParser` rules: header first when
 * present, ends at the first blank or unindented line that is not a continuation, then the dump's
 * own statistics when present). Throws `E_BATTERYSTATS_HISTORY_BAD_TIME` (with the line number)
 * for a malformed time token.
 */
export function* parseBatterystatsHistoryLines(
  lines: Iterable<string>,
): Generator<HistoryLineItem> {
  const parser = new HistoryLineParser()
  for (const line of lines) {
    yield* parser.feed(line)
    if (parser.done) return
  }
  yield* parser.finish()
}

/**
 * Push-style decoder for history text arriving in chunks (e.g. `adb shell` output as it streams):
 * `push(chunk)` returns the items completed so far, `end()` the rest. Same items as the batch parser
 * whatever the chunking.
 */
export class BatterystatsHistoryDecoder {
  private readonly parser = new HistoryLineParser()
  private readonly lines = new LineSplitter()

  push(chunk: string): HistoryLineItem[] {
    if (this.parser.done) return []
    return this.feed(this.lines.push(chunk))
  }

  end(): HistoryLineItem[] {
    const out: HistoryLineItem[] = this.parser.done ? [] : this.feed(this.lines.end())
    out.push(...this.parser.finish())
    return out
  }

  private feed(lines: readonly string[]): HistoryLineItem[] {
    const out: HistoryLineItem[] = []
    for (const line of lines) {
      if (this.parser.done) break
      out.push(...this.parser.feed(line))
    }
    return out
  }
}

/**
 * Builds a `BatteryHistory` from line items (`parseBatterystatsHistoryLines`, or what a
 * `BatterystatsHistoryDecoder` returned), with its warnings. Throws
 * `E_BATTERYSTATS_HISTORY_NOT_FOUND` when there is neither a header nor a single history line.
 */
export function assembleBatterystatsHistory(items: Iterable<HistoryLineItem>): BatteryHistory {
  let header: string | undefined
  let dumpStats: HistoryDumpStats | undefined
  let cut: { readonly line: number; readonly text: string } | undefined
  let next: number | undefined
  const out: HistoryItem[] = []
  for (const item of items) {
    if (item.kind === 'header') header = item.text
    else if (item.kind === 'dumpStats') dumpStats = item.stats
    else if (item.kind === 'cut') cut = item
    else if (item.kind === 'next') next = item.next
    else out.push(item)
  }
  if (header === undefined && out.length === 0) {
    throw new EnergyError({
      code: BatterystatsErrors.HISTORY_NOT_FOUND,
      message: 'no "Battery History" section and no history lines found',
      hint: 'Capture with `adb shell dumpsys batterystats --history` (after `--reset` and the test).',
      details: { format: FORMAT, line: 1 },
    })
  }
  const history: BatteryHistory = {
    ...(header === undefined ? {} : { header }),
    items: out,
    ...(next === undefined ? {} : { next }),
    ...(dumpStats === undefined ? {} : { dumpStats }),
  }
  return { ...history, warnings: historyWarnings(history, cut) }
}

/**
 * Time on battery from the history and the dump's own figure differing by more than this fraction
 * (or 1 s) are reported. Complete real histories agree within 0.05% (8 h: 11.5 s; 1 h: 55 ms)
 * or, on short runs, within 30 ms.
 */
const ON_BATTERY_TOLERANCE = 0.001

function historyWarnings(
  history: BatteryHistory,
  cut: { readonly line: number; readonly text: string } | undefined,
): EnergyWarning[] {
  const warnings: EnergyWarning[] = []
  if (cut !== undefined) {
    warnings.push({
      code: BatterystatsWarnings.HISTORY_CUT,
      severity: 'warning',
      message: `the history section ends at line ${cut.line}, an unindented line that is not a history line (${JSON.stringify(cut.text.slice(0, 60))}); records after it, if any, were not read`,
    })
  }
  const stats = history.dumpStats
  if (stats !== undefined && history.items.some((i) => i.kind === 'record')) {
    const fromHistoryNs = timeOnBatteryNs(historyTimeline(history, { endNs: stats.totalRunTimeNs }))
    const tolerance = Math.max(1e9, ON_BATTERY_TOLERANCE * stats.timeOnBatteryNs)
    if (Math.abs(fromHistoryNs - stats.timeOnBatteryNs) > tolerance) {
      const s = (ns: number): string => (ns / 1e9).toFixed(3)
      warnings.push({
        code: BatterystatsWarnings.HISTORY_INCOMPLETE,
        severity: 'warning',
        message: `the history gives ${s(fromHistoryNs)} s on battery up to the dump's "Total run time" (${s(stats.totalRunTimeNs)} s) where the dump's own "Time on battery" says ${s(stats.timeOnBatteryNs)} s: records are missing (the history was cut short or overflowed its buffer), so durations taken from it are not the device's`,
      })
    }
  }
  return warnings
}

/** Parses a whole `--history` output or full `dumpsys batterystats` text (see `assembleBatterystatsHistory`). */
export function parseBatterystatsHistory(text: string): BatteryHistory {
  return assembleBatterystatsHistory(parseBatterystatsHistoryLines(splitLines(text)))
}

/**
 * Writes history text in the device's layout; `formatBatterystatsHistory(parse(x))` reproduces x's
 * section (`lineEnding: '\r\r\n'` for a dump redirected to a file on Windows).
 */
export function formatBatterystatsHistory(
  history: BatteryHistory,
  options: { readonly lineEnding?: '\n' | '\r\n' | '\r\r\n' | '\r' } = {},
): string {
  const eol = options.lineEnding ?? '\n'
  const out: string[] = []
  if (history.header !== undefined) out.push(history.header)
  for (const item of history.items) {
    if (item.kind === 'unknown') {
      out.push(item.text)
      continue
    }
    out.push(formatRecordLine(item), ...item.details)
  }
  if (history.next !== undefined) out.push(`  NEXT: ${history.next}`)
  return out.map((l) => l + eol).join('')
}

function formatRecordLine(record: HistoryRecord): string {
  const canonical = formatHistoryTime(record.tNs / 1e6)
  const printed =
    record.timeText !== undefined && parseHistoryTimeMs(record.timeText) === record.tNs / 1e6
      ? record.timeText
      : canonical
  const time = printed.padStart(19)
  const ints = record.readInts === undefined ? '' : ` (${record.readInts})`
  let body: string
  switch (record.command) {
    case 'reset':
      body = record.wallClock === undefined ? 'RESET:' : `RESET:TIME: ${record.wallClock}`
      break
    case 'time':
      body = `TIME: ${record.wallClock ?? ''}`
      break
    case 'start':
      body = 'START'
      break
    case 'shutdown':
      body = 'SHUTDOWN'
      break
    case 'overflow':
      body = '*OVERFLOW*'
      break
    case 'update':
      body = [
        String(record.batteryLevel ?? 0).padStart(3, '0'),
        ...record.tokens.map(formatHistoryToken),
      ].join(' ')
      break
  }
  return `  ${time}${ints} ${body}`
}
