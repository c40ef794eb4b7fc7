/**
 * External power meters (ground truth in the lab): BattOr, Monsoon-style CSV, Battery Historian
 * power-monitor files.
 *
 * References:
 * - BattOr text: catapult-project/catapult (systrace/systrace/test_data/battor_test_data.txt,
 *   tracing/test_data/battor.zip): `# BattOr` and `# key value` header lines, then one sample per
 *   line `<time ms> <current mA> <voltage mV>`, time relative to the capture start.
 * - Battery Historian: google/battery-historian powermonitor/power_monitor.go (commit d2356ba):
 *   `<unix time s[.frac]> <current A> [<voltage V>]` or `<unix time ms> <current mA> [<voltage mV>]`;
 *   the voltage column is all-or-nothing; with whole-second timestamps several readings per second
 *   are spread evenly over that second. Historian decides ms vs s by asking whether the value read
 *   as seconds lies in the future; we use a fixed threshold (1e11, i.e. year 5138 as seconds and
 *   1973 as ms) so parsing is deterministic.
 * - Monsoon-style CSV: a header row naming the columns with units in parentheses (`Time (s)`,
 *   `Main Avg Current (mA)`, `Main Avg Voltage (V)`, `Main(mA)`, `Main Voltage(V)`, `Time(ms)`, …).
 *
 * Clocks: relative times (BattOr, CSV) are on the host's capture timeline with t = 0 at the first
 * row of the file: clock `host`. Battery Historian files carry Unix epoch time: clock `realtime`.
 */
import { EnergyError } from '../../model/errors.js'
import type { ClockName } from '../../model/clock.js'
import type { PowerSample, PowerSeries } from '../../model/samples.js'
import { MeterErrors } from './errors.js'

export { MeterErrors } from './errors.js'

export type MeterFormat = 'battor' | 'monsoon-csv' | 'historian'

export interface MeterParseOptions {
  /** Force a format instead of sniffing the content. */
  readonly format?: MeterFormat
  /**
   * Supply voltage (V) to assume when the file has no voltage column (Monsoon main output is set
   * to a fixed voltage). Without it such files are rejected with `E_METER_NO_VOLTAGE`.
   */
  readonly nominalVoltageV?: number
}

export interface MeterCapture {
  readonly format: MeterFormat
  /** `source: 'external-meter'`; `clock: 'host'` for relative times, `'realtime'` for Unix time. */
  readonly series: PowerSeries
  /** Current per sample, A (parallel to `series.samples`); absent for a power-only file without voltage. */
  readonly currentA?: readonly number[]
  /** Voltage per sample, V; the nominal voltage when the file had none; absent when unknown. */
  readonly voltageV?: readonly number[]
  /** Whether `voltageV` was measured (false: `nominalVoltageV` was used or there is none). */
  readonly voltageMeasured: boolean
  /** BattOr `# key value` header lines, verbatim (`sample_rate` → `2000 Hz, gain 5.0x`). */
  readonly header: Readonly<Record<string, string>>
}

/** Guesses the format from the content; `null` when it is none of them. */
export function sniffMeterFormat(text: string): MeterFormat | null {
  const first = firstNonEmptyLine(text)
  if (first === undefined) return null
  if (/^#\s*BattOr\b/.test(first.text)) return 'battor'
  if (historianFields(first.text.trim()) !== undefined) return 'historian'
  if (/[A-Za-z]/.test(first.text) && /[,;\t]/.test(first.text) && /time/i.test(first.text)) {
    return 'monsoon-csv'
  }
  return null
}

/** Parses a meter capture into a `PowerSeries`. Throws `EnergyError` (codes in `MeterErrors`). */
export function parseMeterText(text: string, options: MeterParseOptions = {}): MeterCapture {
  const format = options.format ?? sniffMeterFormat(text)
  switch (format) {
    case 'battor':
      return parseBattor(text, options)
    case 'historian':
      return parseHistorian(text, options)
    case 'monsoon-csv':
      return parseMonsoonCsv(text, options)
    case null:
    case undefined:
      throw new EnergyError({
        code: MeterErrors.UNKNOWN_FORMAT,
        message:
          'not a BattOr text file, Monsoon-style CSV or Battery Historian power-monitor file',
        hint: 'Export the meter data as CSV with a header row (e.g. "Time (s),Main Avg Current (mA),Main Avg Voltage (V)") or as "<unix time> <amps> [volts]" lines.',
        details: { format: 'power meter', line: firstNonEmptyLine(text)?.line ?? 1 },
      })
  }
}

interface Row {
  readonly line: number
  readonly tNs: number
  readonly currentA?: number | undefined
  readonly voltageV?: number | undefined
  /** Measured power, W, when the file has a power column. */
  readonly powerW?: number | undefined
}

function firstNonEmptyLine(text: string): { text: string; line: number } | undefined {
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const t = (lines[i] ?? '').replace(/\r$/, '')
    if (t.trim() !== '') return { text: t, line: i + 1 }
  }
  return undefined
}

/*
 * Every pattern here matches in time linear in its input: no two parts of a pattern can match the
 * same characters in more than one way (`\d+\.?\d*` could: quadratic on a long digit run), and
 * `(.*)$` runs with the `s` flag so that it always reaches the end.
 */
const NUMBER_RE = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/

function num(text: string | undefined, format: string, line: number, what: string): number {
  const t = (text ?? '').trim().replace(/^"(.*)"$/, '$1')
  if (!NUMBER_RE.test(t)) {
    throw new EnergyError({
      code: MeterErrors.BAD_ROW,
      message: `${what} is ${JSON.stringify(t)}, expected a number`,
      hint: 'The file looks truncated or corrupted at this line; re-export it from the meter software.',
      details: { format, line },
    })
  }
  return Number(t)
}

function build(
  format: MeterFormat,
  formatName: string,
  clock: ClockName,
  rows: readonly Row[],
  options: MeterParseOptions,
  header: Record<string, string>,
): MeterCapture {
  if (rows.length === 0) {
    throw new EnergyError({
      code: MeterErrors.EMPTY,
      message: 'no samples',
      hint: 'The capture is empty; check that the meter was recording during the test.',
      details: { format: formatName },
    })
  }
  const measured = rows.every((r) => r.voltageV !== undefined)
  const nominal = options.nominalVoltageV
  if (nominal !== undefined && !(nominal > 0)) {
    throw new EnergyError({
      code: MeterErrors.NO_VOLTAGE,
      message: `nominalVoltageV must be a positive number of volts, got ${nominal}`,
      hint: 'Pass the supply voltage the meter was set to, e.g. 4.2.',
      details: { format: formatName },
    })
  }
  const samples: PowerSample[] = []
  const currentA: number[] = []
  const voltageV: number[] = []
  let prev = Number.NEGATIVE_INFINITY
  for (const r of rows) {
    if (!(r.tNs > prev)) {
      throw new EnergyError({
        code: MeterErrors.TIME_NOT_INCREASING,
        message: `timestamp ${r.tNs / 1e9} s is not after the previous sample (${prev / 1e9} s)`,
        hint: 'Samples must be in time order without duplicates; the file may be two captures concatenated.',
        details: { format: formatName, line: r.line },
      })
    }
    prev = r.tNs
    const v = r.voltageV ?? nominal
    let powerW = r.powerW
    if (powerW === undefined) {
      if (r.currentA === undefined || v === undefined) {
        throw new EnergyError({
          code: MeterErrors.NO_VOLTAGE,
          message: 'the file has no voltage readings, so power cannot be computed',
          hint: 'Pass nominalVoltageV (the supply voltage the meter was set to, e.g. 4.2).',
          details: { format: formatName, line: r.line },
        })
      }
      powerW = r.currentA * v
    }
    samples.push({ tNs: r.tNs, powerW })
    const a = r.currentA ?? (v === undefined ? undefined : powerW / v)
    if (a !== undefined) currentA.push(a)
    if (v !== undefined) voltageV.push(v)
  }
  return {
    format,
    series: { kind: 'instant', source: 'external-meter', clock, samples },
    ...(currentA.length === rows.length ? { currentA } : {}),
    ...(voltageV.length === rows.length ? { voltageV } : {}),
    voltageMeasured: measured,
    header,
  }
}

function parseBattor(text: string, options: MeterParseOptions): MeterCapture {
  const FORMAT = 'BattOr text'
  const header: Record<string, string> = {}
  const rows: Row[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '')
    if (line.trim() === '') continue
    if (line.startsWith('#')) {
      const m = /^#\s*(\S+)\s*(.*)$/s.exec(line)
      if (m !== null && m[1] !== 'BattOr') header[m[1] ?? ''] = m[2] ?? ''
      continue
    }
    const f = line.trim().split(/\s+/)
    if (f.length !== 3) {
      throw new EnergyError({
        code: MeterErrors.BAD_ROW,
        message: `expected 3 fields (time ms, current mA, voltage mV), found ${f.length}`,
        hint: 'The file looks truncated or corrupted at this line.',
        details: { format: FORMAT, line: i + 1 },
      })
    }
    rows.push({
      line: i + 1,
      tNs: Math.round(num(f[0], FORMAT, i + 1, 'time (ms)') * 1e6),
      currentA: num(f[1], FORMAT, i + 1, 'current (mA)') / 1000,
      voltageV: num(f[2], FORMAT, i + 1, 'voltage (mV)') / 1000,
    })
  }
  return build('battor', FORMAT, 'host', rows, options, header)
}

/** `<whole>[.<fraction>] <current> [<voltage>]`, split on whitespace; `undefined` when not that. */
function historianFields(
  line: string,
): { whole: string; fraction?: string; current: string; voltage?: string } | undefined {
  const [time, current, voltage, ...rest] = line.split(/\s+/)
  if (time === undefined || current === undefined || rest.length > 0) return undefined
  const t = /^(\d+)(\.\d+)?$/.exec(time)
  if (t === null || !HISTORIAN_VALUE.test(current)) return undefined
  if (voltage !== undefined && !HISTORIAN_VALUE.test(voltage)) return undefined
  return {
    whole: t[1] ?? '',
    ...(t[2] === undefined ? {} : { fraction: t[2] }),
    current,
    ...(voltage === undefined ? {} : { voltage }),
  }
}
const HISTORIAN_VALUE = /^-?(?:\d+(?:\.\d+)?|\.\d+)$/
/** Whole timestamps above this are ms (as seconds they would be after the year 5000). */
const HISTORIAN_MS_THRESHOLD = 1e11

function parseHistorian(text: string, options: MeterParseOptions): MeterCapture {
  const FORMAT = 'Battery Historian power monitor'
  const lines = text.split('\n')
  let mode: { fractional: boolean; ms: boolean; volts: boolean } | undefined
  const rows: Row[] = []
  // whole-second mode: readings sharing a second are spread over it
  let bucket: Array<{ line: number; currentA: number; voltageV: number | undefined }> = []
  let bucketSecond = Number.NaN
  const flush = (nextSecond: number): void => {
    const span = (nextSecond - bucketSecond) * 1e9
    bucket.forEach((b, k) =>
      rows.push({
        line: b.line,
        tNs: Math.round(bucketSecond * 1e9 + (span * k) / bucket.length),
        currentA: b.currentA,
        voltageV: b.voltageV,
      }),
    )
    bucket = []
  }
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '').trim()
    if (line === '') continue
    const m = historianFields(line)
    if (m === undefined) {
      throw new EnergyError({
        code: MeterErrors.BAD_ROW,
        message: `line is not "<unix time> <current> [<voltage>]": ${JSON.stringify(line.slice(0, 60))}`,
        hint: 'Each line must be "<epoch s.frac> <amps> [volts]" or "<epoch ms> <mA> [mV]".',
        details: { format: FORMAT, line: i + 1 },
      })
    }
    const whole = Number(m.whole)
    const fractional = m.fraction !== undefined
    const volts = m.voltage !== undefined
    mode ??= { fractional, ms: !fractional && whole > HISTORIAN_MS_THRESHOLD, volts }
    if (mode.fractional !== fractional || mode.volts !== volts) {
      throw new EnergyError({
        code: MeterErrors.BAD_ROW,
        message:
          fractional !== mode.fractional
            ? 'timestamp style changes (fractional and whole seconds mixed)'
            : 'voltage column present on some lines only',
        hint: 'Battery Historian files must use one timestamp style and include voltage on all lines or none.',
        details: { format: FORMAT, line: i + 1 },
      })
    }
    const current = Number(m.current)
    const voltage = m.voltage === undefined ? undefined : Number(m.voltage)
    if (mode.ms) {
      rows.push({
        line: i + 1,
        tNs: whole * 1e6,
        currentA: current / 1000,
        voltageV: voltage === undefined ? undefined : voltage / 1000,
      })
    } else if (mode.fractional) {
      rows.push({
        line: i + 1,
        tNs: whole * 1e9 + Math.round(Number(`0${m.fraction ?? ''}`) * 1e9),
        currentA: current,
        voltageV: voltage,
      })
    } else {
      if (whole !== bucketSecond) {
        if (bucket.length > 0) {
          if (whole < bucketSecond) {
            throw new EnergyError({
              code: MeterErrors.TIME_NOT_INCREASING,
              message: `timestamp ${whole} s is before the previous second ${bucketSecond}`,
              hint: 'Samples must be in time order.',
              details: { format: FORMAT, line: i + 1 },
            })
          }
          flush(whole)
        }
        bucketSecond = whole
      }
      bucket.push({ line: i + 1, currentA: current, voltageV: voltage })
    }
  }
  if (bucket.length > 0) flush(bucketSecond + 1)
  return build('historian', FORMAT, 'realtime', rows, options, {})
}

interface Column {
  readonly index: number
  readonly name: string
  readonly factor: number
}

const TIME_UNITS: Record<string, number> = { s: 1e9, ms: 1e6, us: 1e3, µs: 1e3, ns: 1 }
const CURRENT_UNITS: Record<string, number> = { A: 1, mA: 1e-3, uA: 1e-6, µA: 1e-6 }
const VOLTAGE_UNITS: Record<string, number> = { V: 1, mV: 1e-3 }
const POWER_UNITS: Record<string, number> = { W: 1, mW: 1e-3, uW: 1e-6, µW: 1e-6 }

function parseMonsoonCsv(text: string, options: MeterParseOptions): MeterCapture {
  const FORMAT = 'power meter CSV'
  const lines = text.split('\n')
  const head = firstNonEmptyLine(text)
  if (head === undefined) return build('monsoon-csv', FORMAT, 'host', [], options, {})
  const sep = head.text.includes(',') ? ',' : head.text.includes(';') ? ';' : '\t'
  const names = head.text.split(sep).map((n) => n.trim().replace(/^"(.*)"$/, '$1'))
  const unitOf = (name: string): string | undefined => {
    // `… (unit)` at the end; by index, as `\(([^)]+)\)\s*$` is quadratic on a run of `(`
    const end = name.trimEnd()
    if (!end.endsWith(')')) return undefined
    const inside = end.slice(end.lastIndexOf('(') + 1, -1)
    return end.includes('(') && inside !== '' && !inside.includes(')') ? inside.trim() : undefined
  }
  const pick = (
    role: string,
    test: (n: string) => boolean,
    units: Record<string, number>,
  ): Column | undefined => {
    const candidates = names
      .map((name, index) => ({ name, index }))
      .filter((c) => test(c.name))
      .sort((a, b) => Number(/main/i.test(b.name)) - Number(/main/i.test(a.name)))
    const c = candidates[0]
    if (c === undefined) return undefined
    const unit = unitOf(c.name)
    const factor = unit === undefined ? undefined : units[unit]
    if (factor === undefined) {
      throw new EnergyError({
        code: MeterErrors.UNKNOWN_UNIT,
        message: `${role} column "${c.name}" has ${unit === undefined ? 'no unit' : `unit "${unit}"`}; supported: ${Object.keys(units).join(', ')}`,
        hint: `Name the column with its unit in parentheses, e.g. "${role === 'time' ? 'Time (s)' : role === 'current' ? 'Main Avg Current (mA)' : role === 'voltage' ? 'Main Avg Voltage (V)' : 'Main Avg Power (mW)'}".`,
        details: { format: FORMAT, line: head.line, column: c.name },
      })
    }
    return { index: c.index, name: c.name, factor }
  }
  const time = pick('time', (n) => /^(time|timestamp)\b/i.test(n), TIME_UNITS)
  const current = pick('current', (n) => /current|^(main|usb|aux)\s*\(/i.test(n), CURRENT_UNITS)
  const voltage = pick('voltage', (n) => /volt/i.test(n), VOLTAGE_UNITS)
  const power = pick('power', (n) => /power/i.test(n), POWER_UNITS)
  if (time === undefined || (current === undefined && power === undefined)) {
    throw new EnergyError({
      code: MeterErrors.MISSING_COLUMN,
      message: `header has no ${time === undefined ? 'time' : 'current or power'} column: ${names.join(' | ')}`,
      hint: 'The CSV needs a time column (e.g. "Time (s)") and a current column (e.g. "Main Avg Current (mA)") or a power column.',
      details: { format: FORMAT, line: head.line },
    })
  }
  const rows: Row[] = []
  for (let i = head.line; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '')
    if (line.trim() === '') continue
    const f = line.split(sep)
    if (f.length !== names.length) {
      throw new EnergyError({
        code: MeterErrors.BAD_ROW,
        message: `row has ${f.length} fields, header has ${names.length}`,
        hint: 'The file looks truncated or corrupted at this line.',
        details: { format: FORMAT, line: i + 1 },
      })
    }
    const t = num(f[time.index], FORMAT, i + 1, time.name) * time.factor
    const cell = (c: Column | undefined): number | undefined =>
      c === undefined ? undefined : num(f[c.index], FORMAT, i + 1, c.name) * c.factor
    rows.push({
      line: i + 1,
      tNs: Math.round(t),
      currentA: cell(current),
      voltageV: cell(voltage),
      powerW: cell(power),
    })
  }
  return build('monsoon-csv', FORMAT, 'host', rows, options, {})
}

/** Mean power over the samples, W (plain average of readings; equal weights). */
export function meanPowerW(series: PowerSeries): number {
  if (series.samples.length === 0) return Number.NaN
  let sum = 0
  for (const s of series.samples) sum += s.powerW
  return sum / series.samples.length
}

/**
 * Energy by the left-rectangle rule, J: each sample's power held until the next sample's time (the
 * last sample contributes nothing). Matches how a sampled meter's readings represent the interval after them.
 */
export function energyLeftRectJ(series: PowerSeries): number {
  let e = 0
  for (let i = 1; i < series.samples.length; i++) {
    const a = series.samples[i - 1]
    const b = series.samples[i]
    if (a !== undefined && b !== undefined) e += (a.powerW * (b.tNs - a.tNs)) / 1e9
  }
  return e
}

/** Fixed-point text with `digits` decimals, as the BattOr tool prints (`%f`-style, zeros kept). */
function fixed(value: number, digits: number): string {
  return value.toFixed(digits)
}

/**
 * Writes BattOr text: `# BattOr`, the `header` lines (`# key value`), then `<t ms> <mA> <mV>` with
 * `digits` decimals (catapult's capture uses 6). Times are `tNs` relative to the first sample.
 * Needs `currentA` and `voltageV`.
 */
export function formatBattorText(
  capture: Pick<MeterCapture, 'series' | 'currentA' | 'voltageV' | 'header'>,
  digits = 6,
): string {
  const { currentA, voltageV } = capture
  if (currentA === undefined || voltageV === undefined) {
    throw new EnergyError({
      code: MeterErrors.NO_VOLTAGE,
      message: 'BattOr text needs current and voltage per sample',
      hint: 'Provide currentA and voltageV (e.g. from parseMeterText with a measured voltage).',
      details: { format: 'BattOr text' },
    })
  }
  const out = ['# BattOr', ...Object.entries(capture.header).map(([k, v]) => `# ${k} ${v}`)]
  const t0 = capture.series.samples[0]?.tNs ?? 0
  capture.series.samples.forEach((s, i) => {
    out.push(
      `${fixed((s.tNs - t0) / 1e6, digits)} ${fixed((currentA[i] ?? 0) * 1000, digits)} ${fixed((voltageV[i] ?? 0) * 1000, digits)}`,
    )
  })
  return `${out.join('\n')}\n`
}

/**
 * Writes a Battery Historian power-monitor file in the `<epoch ms> <mA> [<mV>]` form (series on the
 * `realtime` clock; `tNs` rounded to whole ms, which must stay strictly increasing).
 */
export function formatHistorianPowerMonitor(
  capture: Pick<MeterCapture, 'series' | 'currentA' | 'voltageV'>,
): string {
  const { currentA, voltageV } = capture
  if (currentA === undefined) {
    throw new EnergyError({
      code: MeterErrors.NO_VOLTAGE,
      message: 'the Historian format needs current per sample',
      hint: 'Provide currentA.',
      details: { format: 'Battery Historian power monitor' },
    })
  }
  return capture.series.samples
    .map((s, i) => {
      const ms = Math.round(s.tNs / 1e6)
      const mA = String((currentA[i] ?? 0) * 1000)
      return voltageV === undefined
        ? `${ms} ${mA}\n`
        : `${ms} ${mA} ${String((voltageV[i] ?? 0) * 1000)}\n`
    })
    .join('')
}
