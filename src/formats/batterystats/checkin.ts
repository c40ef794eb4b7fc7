/**
 * `dumpsys batterystats -c` (checkin CSV).
 *
 * Reference: AOSP frameworks/base core/java/android/os/BatteryStats.java, dumpCheckinLocked and
 * dumpLine (android-9.0.0_r1): every line is `<checkin version>,<uid>,<category>,<type>,<fields…>`
 * with category `i` (info), `l` (since last charge), `c` (current), `u` (since unplugged).
 * Rows we type: `vers` (checkin version, parcel version, start/end platform version), `uid`
 * (uid → package), `pws` (power summary: capacity, computed drain, min/max actual drain, mAh),
 * `pwi` (power item per uid/label: total mAh, system flag, screen mAh, proportional smear mAh; old
 * releases print only `label,mAh`), `h` (a battery history record, HistoryPrinter.printNextItem
 * with checkin = true; android-15.0.0_r1). Everything else (and the `9,hsp,…` history string pool,
 * whose second field is not a uid either) is kept as a raw row, fields verbatim.
 */
import { EnergyError } from '../../model/errors.js'
import { mAhToJ, type Joules } from '../../model/units.js'
import { LineSplitter, lineTooLong, MAX_LINE_LENGTH, splitLines, stripCrs } from './_lines.js'
import { BatterystatsErrors } from './errors.js'

const FORMAT = 'batterystats checkin'

interface RowBase {
  /** 1-based line number in the input (0 for rows built in code). */
  readonly line: number
  /** First field, e.g. 9. */
  readonly checkinVersion: number
}

/** `9,0,i,vers,<checkin>,<parcel>,<start platform>,<end platform>` */
export interface CheckinVersRow extends RowBase {
  readonly type: 'vers'
  readonly uid: number
  readonly category: string
  /** Statistics (checkin) version, e.g. 32 on Android 9, 36 on Android 14. */
  readonly statsVersion: number
  readonly parcelVersion: number
  readonly startPlatformVersion: string
  readonly endPlatformVersion: string
}

/** `9,0,i,uid,<uid>,<package>`: one package of a uid (shared uids have several rows). */
export interface CheckinUidRow extends RowBase {
  readonly type: 'uid'
  readonly uid: number
  readonly category: string
  readonly appUid: number
  readonly packageName: string
}

/** `9,0,l,pws,<capacity>,<computed>,<min drained>,<max drained>`, all mAh. */
export interface CheckinPowerSummaryRow extends RowBase {
  readonly type: 'pws'
  readonly uid: number
  readonly category: string
  readonly capacityMah: number
  readonly computedPowerMah: number
  readonly minDrainedMah: number
  readonly maxDrainedMah: number
}

/** `9,<uid>,l,pwi,<label>,<total mAh>[,<system 0|1>,<screen mAh>,<proportional smear mAh>]` */
export interface CheckinPowerItemRow extends RowBase {
  readonly type: 'pwi'
  readonly uid: number
  readonly category: string
  /** `uid`, `scrn`, `wifi`, `blue`, `cell`, `idle`, `unacc`, `over`, `camera`, `flashlight`, … */
  readonly label: string
  readonly totalMah: number
  /** Absent in the old 2-field form. */
  readonly isSystem?: boolean
  readonly screenMah?: number
  readonly proportionalSmearMah?: number
}

/**
 * `9,h,<time>[:<command>][,<change>…]`: one battery history record. `<time>` is ms since the
 * history start on the first `h` row and ms since the previous record after it, so a row's time
 * on the history axis is the running sum of `timeMs`; the step-detail rows of a record
 * (`9,h,0,Dcpu=…`, `9,h,0,Dpst=…`) print 0. A record that changed nothing printable is just
 * `9,h,<time>`; a reset is `9,h,0:RESET:TIME:<epoch ms>`.
 */
export interface CheckinHistoryRow extends RowBase {
  readonly type: 'history'
  /** ms since the previous record (since the history start on the first); negative when the clock went back. */
  readonly timeMs: number
  /** The text after `<time>:`, verbatim: `RESET:TIME:1522652080855`, `TIME:…`, `START`, `SHUTDOWN`, `*OVERFLOW*`. */
  readonly command?: string
  /** Wall clock of `RESET:TIME:` and `TIME:` records, ms since the Unix epoch. */
  readonly wallClockMs?: number
  /** What changed, fields verbatim (`Bl=100`, `Bs=d`, `+r`, `-S`, `Etp=12`, `wr=3`, `Dcpu=…`); empty when nothing did. */
  readonly changes: readonly string[]
}

/** Any other row, fields after the type verbatim. `uid` is a string for `hsp` (history string pool) rows. */
export interface CheckinRawRow extends RowBase {
  readonly type: 'raw'
  readonly uid: number | string
  readonly category: string
  readonly rowType: string
  readonly fields: readonly string[]
}

export type CheckinRow =
  | CheckinVersRow
  | CheckinUidRow
  | CheckinPowerSummaryRow
  | CheckinPowerItemRow
  | CheckinHistoryRow
  | CheckinRawRow

function fail(
  code: (typeof BatterystatsErrors)[keyof typeof BatterystatsErrors],
  line: number,
  message: string,
  hint: string,
  extra: Record<string, string | number> = {},
): never {
  throw new EnergyError({ code, message, hint, details: { format: FORMAT, line, ...extra } })
}

/** A field as quoted in a message: at most 40 characters of it. */
function shown(text: string): string {
  return text.length <= 40
    ? JSON.stringify(text)
    : `${JSON.stringify(text.slice(0, 40))}… (${text.length} characters)`
}

/**
 * Whether `text` is `-?(D+[.D*] | .D+)([eE][-+]?D+)?` (D a digit), in one pass: the regex
 * `\d+\.?\d*` backtracked quadratically on a long digit run ending in another character.
 */
function isDecimal(text: string): boolean {
  const n = text.length
  let i = 0
  const digits = (): number => {
    const from = i
    while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++
    return i - from
  }
  if (text[i] === '-') i++
  const whole = digits()
  if (text[i] === '.') {
    i++
    if (digits() === 0 && whole === 0) return false
  } else if (whole === 0) return false
  if (text[i] === 'e' || text[i] === 'E') {
    i++
    if (text[i] === '+' || text[i] === '-') i++
    if (digits() === 0) return false
  }
  return i === n
}

function num(text: string | undefined, line: number, field: string, rowType: string): number {
  const value = text !== undefined && isDecimal(text) ? Number(text) : Number.NaN
  if (!Number.isFinite(value)) {
    fail(
      BatterystatsErrors.CHECKIN_BAD_NUMBER,
      line,
      `${rowType} field ${field} is ${shown(text ?? '')}, expected a number`,
      'Pass the unmodified output of `dumpsys batterystats -c`.',
      { field },
    )
  }
  return value
}

function need(fields: readonly string[], n: number, line: number, rowType: string): void {
  if (fields.length < n) {
    fail(
      BatterystatsErrors.CHECKIN_SHORT_ROW,
      line,
      `${rowType} row has ${fields.length} field(s) after the type, expected at least ${n}`,
      'The output looks truncated; capture `dumpsys batterystats -c` again.',
    )
  }
}

/**
 * Parses one checkin line (without line terminator; trailing CRs are ignored). Empty lines give
 * `undefined`; a line over 1 MiB is `E_BATTERYSTATS_LINE_TOO_LONG`.
 */
export function parseCheckinLine(text: string, line: number): CheckinRow | undefined {
  const t = stripCrs(text)
  if (t.length > MAX_LINE_LENGTH) throw lineTooLong(FORMAT, line)
  if (t.trim() === '') return undefined
  const all = t.split(',')
  const [verText, uidText, category, rowType] = all
  const notCheckin = (): never =>
    fail(
      BatterystatsErrors.CHECKIN_NOT_CHECKIN,
      line,
      `not a checkin line (expected <version>,<uid>,<category>,<type>,…): ${JSON.stringify(t.slice(0, 60))}`,
      'Capture with `adb shell dumpsys batterystats -c` (the checkin CSV), not the human-readable dump.',
    )
  if (verText === undefined || !/^\d+$/.test(verText) || uidText === undefined) return notCheckin()
  const checkinVersion = Number(verText)
  if (uidText === 'h') return historyRow(all, line, checkinVersion)
  if (category === undefined || rowType === undefined) return notCheckin()
  const fields = all.slice(4)
  const numericUid = /^-?\d+$/.test(uidText) ? Number(uidText) : undefined
  if (numericUid === undefined) {
    return {
      type: 'raw',
      line,
      checkinVersion,
      uid: uidText,
      category,
      rowType,
      fields: all.slice(2),
    }
  }
  const base = { line, checkinVersion, uid: numericUid, category }
  switch (rowType) {
    case 'vers':
      need(fields, 4, line, rowType)
      return {
        ...base,
        type: 'vers',
        statsVersion: num(fields[0], line, 'statsVersion', rowType),
        parcelVersion: num(fields[1], line, 'parcelVersion', rowType),
        startPlatformVersion: fields[2] ?? '',
        endPlatformVersion: fields.slice(3).join(','),
      }
    case 'uid':
      need(fields, 2, line, rowType)
      return {
        ...base,
        type: 'uid',
        appUid: num(fields[0], line, 'uid', rowType),
        packageName: fields.slice(1).join(','),
      }
    case 'pws':
      need(fields, 4, line, rowType)
      return {
        ...base,
        type: 'pws',
        capacityMah: num(fields[0], line, 'capacity', rowType),
        computedPowerMah: num(fields[1], line, 'computedPower', rowType),
        minDrainedMah: num(fields[2], line, 'minDrained', rowType),
        maxDrainedMah: num(fields[3], line, 'maxDrained', rowType),
      }
    case 'pwi': {
      need(fields, 2, line, rowType)
      const row: CheckinPowerItemRow = {
        ...base,
        type: 'pwi',
        label: fields[0] ?? '',
        totalMah: num(fields[1], line, 'totalMah', rowType),
      }
      if (fields.length < 5) return row
      return {
        ...row,
        isSystem: num(fields[2], line, 'isSystem', rowType) !== 0,
        screenMah: num(fields[3], line, 'screenMah', rowType),
        proportionalSmearMah: num(fields[4], line, 'proportionalSmearMah', rowType),
      }
    }
    default:
      return { ...base, type: 'raw', rowType, fields }
  }
}

/** `9,h,<time>[:<command>][,<change>…]` (fields already split at commas). */
function historyRow(all: readonly string[], line: number, checkinVersion: number): CheckinRow {
  const timeField = all[2]
  if (timeField === undefined) {
    fail(
      BatterystatsErrors.CHECKIN_SHORT_ROW,
      line,
      'h (history) row has no time field',
      'The output looks truncated; capture `dumpsys batterystats -c` again.',
    )
  }
  const colon = timeField.indexOf(':')
  const timeText = colon < 0 ? timeField : timeField.slice(0, colon)
  if (!/^-?\d+$/.test(timeText)) {
    fail(
      BatterystatsErrors.CHECKIN_BAD_NUMBER,
      line,
      `h (history) row time is ${shown(timeText)}, expected whole ms`,
      'Pass the unmodified output of `dumpsys batterystats -c`.',
      { field: 'time' },
    )
  }
  const command = colon < 0 ? undefined : timeField.slice(colon + 1)
  const wall = command === undefined ? null : /^(?:RESET:)?TIME:(\d+)$/.exec(command)
  return {
    type: 'history',
    line,
    checkinVersion,
    timeMs: Number(timeText),
    ...(command === undefined ? {} : { command }),
    ...(wall === null ? {} : { wallClockMs: Number(wall[1]) }),
    changes: all.slice(3),
  }
}

/** Streams typed rows out of checkin lines. Throws `EnergyError` with the line number on bad rows. */
export function* parseBatterystatsCheckin(lines: Iterable<string>): Generator<CheckinRow> {
  let line = 0
  for (const text of lines) {
    line++
    const row = parseCheckinLine(text, line)
    if (row !== undefined) yield row
  }
}

/** Push-style checkin decoder for chunked input: same rows as the batch parser whatever the chunking. */
export class BatterystatsCheckinDecoder {
  private readonly lines = new LineSplitter()
  private line = 0

  push(chunk: string): CheckinRow[] {
    return this.rows(this.lines.push(chunk))
  }

  end(): CheckinRow[] {
    return this.rows(this.lines.end())
  }

  private rows(lines: readonly string[]): CheckinRow[] {
    const out: CheckinRow[] = []
    for (const text of lines) {
      this.line++
      const row = parseCheckinLine(text, this.line)
      if (row !== undefined) out.push(row)
    }
    return out
  }
}

/** The parts of a checkin dump the energy model uses, collected from all rows. */
export interface CheckinSummary {
  readonly vers?: CheckinVersRow
  /** uid → packages (shared uids map to several). */
  readonly packagesByUid: Readonly<Record<number, readonly string[]>>
  /** Power summaries per category (`l`, `c`, `u`). */
  readonly powerSummary: readonly CheckinPowerSummaryRow[]
  readonly powerItems: readonly CheckinPowerItemRow[]
  readonly rows: readonly CheckinRow[]
}

/** Parses checkin text and collects the summary. */
export function summarizeBatterystatsCheckin(text: string): CheckinSummary {
  const rows = [...parseBatterystatsCheckin(splitLines(text))]
  const packagesByUid: Record<number, string[]> = {}
  let vers: CheckinVersRow | undefined
  for (const row of rows) {
    if (row.type === 'vers') vers ??= row
    if (row.type === 'uid') (packagesByUid[row.appUid] ??= []).push(row.packageName)
  }
  return {
    ...(vers === undefined ? {} : { vers }),
    packagesByUid,
    powerSummary: rows.filter((r): r is CheckinPowerSummaryRow => r.type === 'pws'),
    powerItems: rows.filter((r): r is CheckinPowerItemRow => r.type === 'pwi'),
    rows,
  }
}

/** Energy of a charge figure from the checkin (mAh) at a battery voltage (V): mAh × 3.6 × V. */
export function checkinMahToJ(mAh: number, batteryVoltageV: number): Joules {
  return mAhToJ(mAh, batteryVoltageV)
}

/** Writes one row back as a checkin line (no terminator). */
export function formatCheckinRow(row: CheckinRow): string {
  if (row.type === 'history') {
    const time = row.command === undefined ? `${row.timeMs}` : `${row.timeMs}:${row.command}`
    return [String(row.checkinVersion), 'h', time, ...row.changes].join(',')
  }
  const head = [String(row.checkinVersion), String(row.uid), row.category]
  switch (row.type) {
    case 'vers':
      return [
        ...head,
        'vers',
        row.statsVersion,
        row.parcelVersion,
        row.startPlatformVersion,
        row.endPlatformVersion,
      ].join(',')
    case 'uid':
      return [...head, 'uid', row.appUid, row.packageName].join(',')
    case 'pws':
      return [
        ...head,
        'pws',
        row.capacityMah,
        row.computedPowerMah,
        row.minDrainedMah,
        row.maxDrainedMah,
      ].join(',')
    case 'pwi': {
      const base = [...head, 'pwi', row.label, row.totalMah]
      if (row.isSystem === undefined) return base.join(',')
      return [
        ...base,
        row.isSystem ? 1 : 0,
        row.screenMah ?? 0,
        row.proportionalSmearMah ?? 0,
      ].join(',')
    }
    case 'raw':
      return typeof row.uid === 'string'
        ? [String(row.checkinVersion), row.uid, ...row.fields].join(',')
        : [...head, row.rowType, ...row.fields].join(',')
  }
}

/** Writes checkin text (one row per line, each ending in `\n`), as `dumpsys batterystats -c` prints it. */
export function formatBatterystatsCheckin(rows: Iterable<CheckinRow>): string {
  let out = ''
  for (const row of rows) out += `${formatCheckinRow(row)}\n`
  return out
}
