/**
 * Perfetto text config (`perfetto -c - --txt`): protobuf text format of `TraceConfig`.
 *
 * Grammar (protobuf text format, as perfetto's config parser accepts it): fields are
 * `name: scalar`, `name { ... }` or `name: { ... }` (also `< ... >`), optionally followed by `;`
 * or `,`; scalars are numbers, identifiers (enum values, true/false) and "strings" (adjacent
 * strings concatenate); `#` starts a comment; `name: [a, b]` lists repeat a field.
 * Known fields are typed; everything else is kept verbatim in `unknownFields` and written back.
 * Field semantics: google/perfetto protos/perfetto/config/trace_config.proto @010da55c,
 * config/power/android_power_config.proto @1bc7c76b and config/ftrace/ftrace_config.proto @c65180f5.
 */
import { EnergyError } from '../../model/errors.js'
import { PerfettoErrors } from './errors.js'

const FORMAT = 'Perfetto text config'

/** A scalar as written in the text. */
export type TextProtoScalar =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'identifier'; readonly value: string }

/** A message: its fields in order (repeated fields appear several times). */
export interface TextProtoMessage {
  readonly fields: readonly TextProtoField[]
}

export interface TextProtoField {
  readonly name: string
  /** 1-based line where the field name stands. */
  readonly line: number
  readonly value: TextProtoScalar | TextProtoMessage
}

/** `TraceConfig.BufferConfig`. */
export interface PerfettoBufferConfig {
  readonly sizeKb?: number
  /** `RING_BUFFER` (default on device) or `DISCARD`. */
  readonly fillPolicy?: string
  readonly unknownFields: readonly TextProtoField[]
}

/** `AndroidPowerConfig` of the `android.power` data source. */
export interface AndroidPowerConfig {
  /** Battery counter poll period, ms. */
  readonly batteryPollMs?: number
  /** e.g. `BATTERY_COUNTER_CURRENT`, `BATTERY_COUNTER_CHARGE`, ... (enum names as written). */
  readonly batteryCounters: readonly string[]
  /** Poll ODPM rails (Pixel 6+), written as power_rails packets. */
  readonly collectPowerRails?: boolean
  readonly collectEnergyEstimationBreakdown?: boolean
  readonly collectEntityStateResidency?: boolean
  readonly unknownFields: readonly TextProtoField[]
}

/** `FtraceConfig` of the `linux.ftrace` data source (the fields this tool uses). */
export interface FtraceConfig {
  /** Kernel events as `group/name`, e.g. `sched/sched_switch`, `power/cpu_frequency`. */
  readonly ftraceEvents: readonly string[]
  /** Android atrace categories, e.g. `sched`, `gfx` (each turns on its own kernel events). */
  readonly atraceCategories: readonly string[]
  /** Size of each per-CPU kernel ring buffer, KiB. */
  readonly bufferSizeKb?: number
  /**
   * `compact_sched { enabled }`: write sched_switch in the dense `compact_sched` form. Unset means
   * the service default (enabled since perfetto v42). A `compact_sched` block holding anything
   * but one `enabled` stays verbatim in `unknownFields` instead.
   */
  readonly compactSched?: boolean
  readonly unknownFields: readonly TextProtoField[]
}

/** One `data_sources { config { ... } }` entry. */
export interface PerfettoDataSource {
  /** Data source name, e.g. `android.power`, `linux.ftrace`. */
  readonly name: string
  readonly targetBuffer?: number
  readonly androidPowerConfig?: AndroidPowerConfig
  readonly ftraceConfig?: FtraceConfig
  /** Fields of `config { }` this parser does not model (e.g. `process_stats_config`), verbatim. */
  readonly unknownFields: readonly TextProtoField[]
  /** Fields next to `config { }` (e.g. `producer_name_filter`), verbatim. */
  readonly dataSourceUnknownFields: readonly TextProtoField[]
}

/** A parsed `TraceConfig`. Durations in ms as the config states them. */
export interface PerfettoTraceConfig {
  readonly buffers: readonly PerfettoBufferConfig[]
  readonly dataSources: readonly PerfettoDataSource[]
  /** Stop the session after this long. */
  readonly durationMs?: number
  /** Stream into the output file while tracing (long sessions). */
  readonly writeIntoFile?: boolean
  /** With `writeIntoFile`: how often the buffer is written out. */
  readonly fileWritePeriodMs?: number
  readonly flushPeriodMs?: number
  readonly maxFileSizeBytes?: number
  readonly unknownFields: readonly TextProtoField[]
}

// ---------------------------------------------------------------------------------------------
// Tokenizer and generic text-format parser

type Token =
  | { readonly type: 'ident'; readonly text: string; readonly line: number }
  | { readonly type: 'number'; readonly text: string; readonly line: number }
  | { readonly type: 'string'; readonly text: string; readonly line: number }
  | { readonly type: 'punct'; readonly text: string; readonly line: number }

function syntax(line: number, message: string): EnergyError {
  return new EnergyError({
    code: PerfettoErrors.CONFIG_SYNTAX,
    message,
    hint: 'Fix the config text: fields are `name: value` or `name { ... }`, strings in double quotes, `#` comments.',
    details: { format: FORMAT, line },
  })
}

function* tokenize(text: string): Generator<Token> {
  let i = 0
  let line = 1
  while (i < text.length) {
    const c = text[i] ?? ''
    if (c === '\n') {
      line++
      i++
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++
    } else if ('{}[]<>:;,'.includes(c)) {
      yield { type: 'punct', text: c, line }
      i++
    } else if (c === '"' || c === "'") {
      const start = line
      let value = ''
      i++
      for (;;) {
        if (i >= text.length || text[i] === '\n') throw syntax(start, 'unterminated string')
        const ch = text[i] ?? ''
        if (ch === c) {
          i++
          break
        }
        if (ch === '\\') {
          const next = text[i + 1] ?? ''
          const simple: Record<string, string> = {
            n: '\n',
            t: '\t',
            r: '\r',
            '\\': '\\',
            '"': '"',
            "'": "'",
          }
          const mapped = simple[next]
          if (mapped !== undefined) {
            value += mapped
            i += 2
            continue
          }
          const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4))
          if (octal !== null) {
            value += String.fromCharCode(parseInt(octal[0], 8))
            i += 1 + octal[0].length
            continue
          }
          const hexEsc = /^x([0-9a-fA-F]{1,2})/.exec(text.slice(i + 1, i + 4))
          if (hexEsc !== null && hexEsc[1] !== undefined) {
            value += String.fromCharCode(parseInt(hexEsc[1], 16))
            i += 2 + hexEsc[1].length
            continue
          }
          throw syntax(line, `unknown escape \\${next} in string`)
        }
        value += ch
        i++
      }
      yield { type: 'string', text: value, line: start }
    } else {
      const m =
        /^(?:-?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[fF]?|[A-Za-z_][\w.]*)/.exec(
          text.slice(i, i + 256),
        )
      if (m === null) throw syntax(line, `unexpected character ${JSON.stringify(c)}`)
      const word = m[0]
      yield { type: /^[-.\d]/.test(word) ? 'number' : 'ident', text: word, line }
      i += word.length
    }
  }
}

/**
 * Deepest message nesting accepted. A real TraceConfig nests about five levels (`data_sources {
 * config { ftrace_config { compact_sched { …`); protobuf's binary decoders refuse more than 100
 * (CodedInputStream's default recursion limit), so a deeper config could not reach the service
 * anyway. The bound keeps the recursive descent below off the call stack's limit.
 */
const MAX_DEPTH = 100

/** Parse protobuf text format into a generic tree (no schema). */
export function parseTextProto(text: string): TextProtoMessage {
  const tokens = [...tokenize(text)]
  let at = 0
  const peek = (): Token | undefined => tokens[at]
  const lastLine = (): number => tokens[tokens.length - 1]?.line ?? 1
  const scalar = (): TextProtoScalar => {
    const t = tokens[at]
    if (t === undefined) throw syntax(lastLine(), 'value expected at end of input')
    if (t.type === 'string') {
      let value = t.text
      at++
      for (let next = peek(); next?.type === 'string'; next = peek()) {
        value += next.text
        at++
      }
      return { kind: 'string', value }
    }
    if (t.type === 'number') {
      at++
      return { kind: 'number', text: t.text }
    }
    if (t.type === 'ident') {
      at++
      return { kind: 'identifier', value: t.text }
    }
    throw syntax(t.line, `value expected, got \`${t.text}\``)
  }
  const message = (close: string | undefined, depth: number, line: number): TextProtoMessage => {
    if (depth > MAX_DEPTH) {
      throw new EnergyError({
        code: PerfettoErrors.CONFIG_TOO_DEEP,
        message: `messages nested more than ${MAX_DEPTH} deep`,
        hint: 'A trace config nests a few levels (data_sources { config { ftrace_config { … } } }); check for unclosed or runaway `{`.',
        details: { format: FORMAT, line },
      })
    }
    const fields: TextProtoField[] = []
    for (;;) {
      const t = peek()
      if (t === undefined) {
        if (close !== undefined) throw syntax(lastLine(), `missing \`${close}\` at end of input`)
        return { fields }
      }
      if (t.type === 'punct' && t.text === close) {
        at++
        return { fields }
      }
      if (t.type !== 'ident') throw syntax(t.line, `field name expected, got \`${t.text}\``)
      at++
      let next = peek()
      let colon = false
      if (next?.type === 'punct' && next.text === ':') {
        colon = true
        at++
        next = peek()
      }
      if (next?.type === 'punct' && (next.text === '{' || next.text === '<')) {
        at++
        fields.push({
          name: t.text,
          line: t.line,
          value: message(next.text === '{' ? '}' : '>', depth + 1, next.line),
        })
      } else if (next?.type === 'punct' && next.text === '[' && colon) {
        at++
        for (;;) {
          const item = peek()
          if (item?.type === 'punct' && item.text === ']') {
            at++
            break
          }
          if (item?.type === 'punct' && item.text === '{') {
            at++
            fields.push({ name: t.text, line: t.line, value: message('}', depth + 1, item.line) })
          } else {
            fields.push({ name: t.text, line: t.line, value: scalar() })
          }
          const sep = peek()
          if (sep?.type === 'punct' && sep.text === ',') at++
          else if (!(sep?.type === 'punct' && sep.text === ']')) {
            throw syntax(sep?.line ?? lastLine(), 'expected `,` or `]` in list')
          }
        }
      } else {
        if (!colon) throw syntax(t.line, `expected \`:\` or \`{\` after \`${t.text}\``)
        fields.push({ name: t.text, line: t.line, value: scalar() })
      }
      const sep = peek()
      if (sep?.type === 'punct' && (sep.text === ';' || sep.text === ',')) at++
    }
  }
  return message(undefined, 0, 1)
}

// ---------------------------------------------------------------------------------------------
// Typed view

function isMessage(value: TextProtoScalar | TextProtoMessage): value is TextProtoMessage {
  return 'fields' in value
}

function valueError(field: TextProtoField, expected: string): EnergyError {
  return new EnergyError({
    code: PerfettoErrors.CONFIG_VALUE,
    message: `\`${field.name}\` must be ${expected}`,
    hint: 'Fix the value in the config; see perfetto.dev/docs/reference/trace-config-proto.',
    details: { format: FORMAT, line: field.line },
  })
}

function asUint(field: TextProtoField): number {
  const v = field.value
  if (isMessage(v) || v.kind !== 'number') throw valueError(field, 'a non-negative integer')
  const n = Number(v.text)
  if (!Number.isSafeInteger(n) || n < 0) throw valueError(field, 'a non-negative integer')
  return n
}

function asBool(field: TextProtoField): boolean {
  const v = field.value
  if (!isMessage(v)) {
    const text = v.kind === 'identifier' ? v.value : v.kind === 'number' ? v.text : ''
    if (text === 'true' || text === 'True' || text === 't' || text === '1') return true
    if (text === 'false' || text === 'False' || text === 'f' || text === '0') return false
  }
  throw valueError(field, '`true` or `false`')
}

function asString(field: TextProtoField): string {
  const v = field.value
  if (isMessage(v) || v.kind !== 'string') throw valueError(field, 'a "string"')
  return v.value
}

function asEnum(field: TextProtoField, names: readonly string[]): string {
  const v = field.value
  if (!isMessage(v) && v.kind === 'identifier') return v.value
  if (!isMessage(v) && v.kind === 'number') {
    const name = names[Number(v.text)]
    if (name !== undefined) return name
  }
  throw valueError(field, `an enum value (${names.filter((n) => n !== '').join(', ')})`)
}

function asMessage(field: TextProtoField): TextProtoMessage {
  if (!isMessage(field.value)) throw valueError(field, 'a message `{ ... }`')
  return field.value
}

/**
 * Protobuf text format rejects a non-repeated field given twice ("specified multiple times");
 * so do we, for the fields we type, instead of silently keeping one of them.
 */
function rejectDuplicates(m: TextProtoMessage, singular: readonly string[]): void {
  const seen = new Set<string>()
  for (const f of m.fields) {
    if (!singular.includes(f.name)) continue
    if (seen.has(f.name)) {
      throw new EnergyError({
        code: PerfettoErrors.CONFIG_VALUE,
        message: `\`${f.name}\` is specified more than once`,
        hint: 'Keep one value for each non-repeated field.',
        details: { format: FORMAT, line: f.line },
      })
    }
    seen.add(f.name)
  }
}

const FILL_POLICIES = ['UNSPECIFIED', 'RING_BUFFER', 'DISCARD']
const BATTERY_COUNTERS = [
  'BATTERY_COUNTER_UNSPECIFIED',
  'BATTERY_COUNTER_CHARGE',
  'BATTERY_COUNTER_CAPACITY_PERCENT',
  'BATTERY_COUNTER_CURRENT',
  'BATTERY_COUNTER_CURRENT_AVG',
  'BATTERY_COUNTER_VOLTAGE',
]

function powerConfig(m: TextProtoMessage): AndroidPowerConfig {
  rejectDuplicates(m, [
    'battery_poll_ms',
    'collect_power_rails',
    'collect_energy_estimation_breakdown',
    'collect_entity_state_residency',
  ])
  let batteryPollMs: number | undefined
  const batteryCounters: string[] = []
  let collectPowerRails: boolean | undefined
  let collectEnergyEstimationBreakdown: boolean | undefined
  let collectEntityStateResidency: boolean | undefined
  const unknownFields: TextProtoField[] = []
  for (const f of m.fields) {
    if (f.name === 'battery_poll_ms') batteryPollMs = asUint(f)
    else if (f.name === 'battery_counters') batteryCounters.push(asEnum(f, BATTERY_COUNTERS))
    else if (f.name === 'collect_power_rails') collectPowerRails = asBool(f)
    else if (f.name === 'collect_energy_estimation_breakdown')
      collectEnergyEstimationBreakdown = asBool(f)
    else if (f.name === 'collect_entity_state_residency') collectEntityStateResidency = asBool(f)
    else unknownFields.push(f)
  }
  return {
    ...(batteryPollMs === undefined ? {} : { batteryPollMs }),
    batteryCounters,
    ...(collectPowerRails === undefined ? {} : { collectPowerRails }),
    ...(collectEnergyEstimationBreakdown === undefined ? {} : { collectEnergyEstimationBreakdown }),
    ...(collectEntityStateResidency === undefined ? {} : { collectEntityStateResidency }),
    unknownFields,
  }
}

function ftraceConfig(m: TextProtoMessage): FtraceConfig {
  rejectDuplicates(m, ['buffer_size_kb', 'compact_sched'])
  const ftraceEvents: string[] = []
  const atraceCategories: string[] = []
  let bufferSizeKb: number | undefined
  let compactSched: boolean | undefined
  const unknownFields: TextProtoField[] = []
  for (const f of m.fields) {
    if (f.name === 'ftrace_events') ftraceEvents.push(asString(f))
    else if (f.name === 'atrace_categories') atraceCategories.push(asString(f))
    else if (f.name === 'buffer_size_kb') bufferSizeKb = asUint(f)
    else if (f.name === 'compact_sched') {
      const inner = asMessage(f)
      const only = inner.fields.length === 1 ? inner.fields[0] : undefined
      // Only the plain `{ enabled: x }` form is typed, so formatting writes back what was read.
      if (only?.name === 'enabled') compactSched = asBool(only)
      else unknownFields.push(f)
    } else unknownFields.push(f)
  }
  return {
    ftraceEvents,
    atraceCategories,
    ...(bufferSizeKb === undefined ? {} : { bufferSizeKb }),
    ...(compactSched === undefined ? {} : { compactSched }),
    unknownFields,
  }
}

/**
 * Whether an ftrace config records `sched_switch`: the event named as `sched/sched_switch` or
 * `sched_switch`, the whole `sched/*` group, or the atrace `sched` category (which perfetto expands
 * to the scheduler events).
 */
export function requestsSchedSwitch(config: FtraceConfig): boolean {
  return (
    config.ftraceEvents.some(
      (e) => e === 'sched/sched_switch' || e === 'sched_switch' || e === 'sched/*',
    ) || config.atraceCategories.includes('sched')
  )
}

function dataSource(m: TextProtoMessage): PerfettoDataSource {
  rejectDuplicates(m, ['config'])
  let name = ''
  let targetBuffer: number | undefined
  let androidPowerConfig: AndroidPowerConfig | undefined
  let ftrace: FtraceConfig | undefined
  const unknownFields: TextProtoField[] = []
  const dataSourceUnknownFields: TextProtoField[] = []
  for (const f of m.fields) {
    if (f.name !== 'config') {
      dataSourceUnknownFields.push(f)
      continue
    }
    const config = asMessage(f)
    rejectDuplicates(config, ['name', 'target_buffer', 'android_power_config', 'ftrace_config'])
    for (const c of config.fields) {
      if (c.name === 'name') name = asString(c)
      else if (c.name === 'target_buffer') targetBuffer = asUint(c)
      else if (c.name === 'android_power_config') androidPowerConfig = powerConfig(asMessage(c))
      else if (c.name === 'ftrace_config') ftrace = ftraceConfig(asMessage(c))
      else unknownFields.push(c)
    }
  }
  return {
    name,
    ...(targetBuffer === undefined ? {} : { targetBuffer }),
    ...(androidPowerConfig === undefined ? {} : { androidPowerConfig }),
    ...(ftrace === undefined ? {} : { ftraceConfig: ftrace }),
    unknownFields,
    dataSourceUnknownFields,
  }
}

/**
 * Parse a Perfetto text config. Syntax errors and wrongly typed known fields are `EnergyError`s
 * with the line; unknown fields are kept in `unknownFields` (never fatal).
 */
export function parsePerfettoTextConfig(text: string): PerfettoTraceConfig {
  const root = parseTextProto(text)
  rejectDuplicates(root, [
    'duration_ms',
    'write_into_file',
    'file_write_period_ms',
    'flush_period_ms',
    'max_file_size_bytes',
  ])
  const buffers: PerfettoBufferConfig[] = []
  const dataSources: PerfettoDataSource[] = []
  const unknownFields: TextProtoField[] = []
  let durationMs: number | undefined
  let writeIntoFile: boolean | undefined
  let fileWritePeriodMs: number | undefined
  let flushPeriodMs: number | undefined
  let maxFileSizeBytes: number | undefined
  for (const f of root.fields) {
    switch (f.name) {
      case 'buffers': {
        let sizeKb: number | undefined
        let fillPolicy: string | undefined
        const rest: TextProtoField[] = []
        const buffer = asMessage(f)
        rejectDuplicates(buffer, ['size_kb', 'fill_policy'])
        for (const b of buffer.fields) {
          if (b.name === 'size_kb') sizeKb = asUint(b)
          else if (b.name === 'fill_policy') fillPolicy = asEnum(b, FILL_POLICIES)
          else rest.push(b)
        }
        buffers.push({
          ...(sizeKb === undefined ? {} : { sizeKb }),
          ...(fillPolicy === undefined ? {} : { fillPolicy }),
          unknownFields: rest,
        })
        break
      }
      case 'data_sources':
        dataSources.push(dataSource(asMessage(f)))
        break
      case 'duration_ms':
        durationMs = asUint(f)
        break
      case 'write_into_file':
        writeIntoFile = asBool(f)
        break
      case 'file_write_period_ms':
        fileWritePeriodMs = asUint(f)
        break
      case 'flush_period_ms':
        flushPeriodMs = asUint(f)
        break
      case 'max_file_size_bytes':
        maxFileSizeBytes = asUint(f)
        break
      default:
        unknownFields.push(f)
    }
  }
  return {
    buffers,
    dataSources,
    ...(durationMs === undefined ? {} : { durationMs }),
    ...(writeIntoFile === undefined ? {} : { writeIntoFile }),
    ...(fileWritePeriodMs === undefined ? {} : { fileWritePeriodMs }),
    ...(flushPeriodMs === undefined ? {} : { flushPeriodMs }),
    ...(maxFileSizeBytes === undefined ? {} : { maxFileSizeBytes }),
    unknownFields,
  }
}

// ---------------------------------------------------------------------------------------------
// Writer

function quote(value: string): string {
  let out = '"'
  for (const ch of value) {
    if (ch === '"') out += '\\"'
    else if (ch === '\\') out += '\\\\'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (ch === '\t') out += '\\t'
    else if (ch.charCodeAt(0) < 0x20) out += `\\${ch.charCodeAt(0).toString(8).padStart(3, '0')}`
    else out += ch
  }
  return `${out}"`
}

function formatScalar(value: TextProtoScalar): string {
  if (value.kind === 'string') return quote(value.value)
  if (value.kind === 'number') return value.text
  return value.value
}

function writeFields(out: string[], fields: readonly TextProtoField[], indent: string): void {
  for (const f of fields) {
    if (isMessage(f.value)) {
      out.push(`${indent}${f.name} {`)
      writeFields(out, f.value.fields, `${indent}  `)
      out.push(`${indent}}`)
    } else {
      out.push(`${indent}${f.name}: ${formatScalar(f.value)}`)
    }
  }
}

/** Render a generic text-format tree (two-space indent, one field per line). */
export function formatTextProto(message: TextProtoMessage): string {
  const out: string[] = []
  writeFields(out, message.fields, '')
  return out.length === 0 ? '' : `${out.join('\n')}\n`
}

const num = (name: string, value: number): TextProtoField => ({
  name,
  line: 0,
  value: { kind: 'number', text: String(value) },
})
const ident = (name: string, value: string): TextProtoField => ({
  name,
  line: 0,
  value: { kind: 'identifier', value },
})
const bool = (name: string, value: boolean): TextProtoField => ident(name, value ? 'true' : 'false')
const str = (name: string, value: string): TextProtoField => ({
  name,
  line: 0,
  value: { kind: 'string', value },
})
const msg = (name: string, fields: TextProtoField[]): TextProtoField => ({
  name,
  line: 0,
  value: { fields },
})

/** The config as a generic text-format tree, known fields first in the usual order. */
export function traceConfigToTextProto(config: PerfettoTraceConfig): TextProtoMessage {
  const fields: TextProtoField[] = []
  for (const b of config.buffers) {
    fields.push(
      msg('buffers', [
        ...(b.sizeKb === undefined ? [] : [num('size_kb', b.sizeKb)]),
        ...(b.fillPolicy === undefined ? [] : [ident('fill_policy', b.fillPolicy)]),
        ...b.unknownFields,
      ]),
    )
  }
  for (const d of config.dataSources) {
    const p = d.androidPowerConfig
    const f = d.ftraceConfig
    const configFields: TextProtoField[] = [
      str('name', d.name),
      ...(d.targetBuffer === undefined ? [] : [num('target_buffer', d.targetBuffer)]),
      ...(p === undefined
        ? []
        : [
            msg('android_power_config', [
              ...(p.batteryPollMs === undefined ? [] : [num('battery_poll_ms', p.batteryPollMs)]),
              ...p.batteryCounters.map((c) => ident('battery_counters', c)),
              ...(p.collectPowerRails === undefined
                ? []
                : [bool('collect_power_rails', p.collectPowerRails)]),
              ...(p.collectEnergyEstimationBreakdown === undefined
                ? []
                : [
                    bool('collect_energy_estimation_breakdown', p.collectEnergyEstimationBreakdown),
                  ]),
              ...(p.collectEntityStateResidency === undefined
                ? []
                : [bool('collect_entity_state_residency', p.collectEntityStateResidency)]),
              ...p.unknownFields,
            ]),
          ]),
      ...(f === undefined
        ? []
        : [
            msg('ftrace_config', [
              ...f.ftraceEvents.map((e) => str('ftrace_events', e)),
              ...f.atraceCategories.map((c) => str('atrace_categories', c)),
              ...(f.bufferSizeKb === undefined ? [] : [num('buffer_size_kb', f.bufferSizeKb)]),
              ...(f.compactSched === undefined
                ? []
                : [msg('compact_sched', [bool('enabled', f.compactSched)])]),
              ...f.unknownFields,
            ]),
          ]),
      ...d.unknownFields,
    ]
    fields.push(msg('data_sources', [msg('config', configFields), ...d.dataSourceUnknownFields]))
  }
  if (config.durationMs !== undefined) fields.push(num('duration_ms', config.durationMs))
  if (config.writeIntoFile !== undefined) fields.push(bool('write_into_file', config.writeIntoFile))
  if (config.fileWritePeriodMs !== undefined) {
    fields.push(num('file_write_period_ms', config.fileWritePeriodMs))
  }
  if (config.flushPeriodMs !== undefined) fields.push(num('flush_period_ms', config.flushPeriodMs))
  if (config.maxFileSizeBytes !== undefined) {
    fields.push(num('max_file_size_bytes', config.maxFileSizeBytes))
  }
  fields.push(...config.unknownFields)
  return { fields }
}

/** Render a config as Perfetto text config (what the collector pipes to `perfetto -c - --txt`). */
export function formatPerfettoTextConfig(config: PerfettoTraceConfig): string {
  return formatTextProto(traceConfigToTextProto(config))
}

/**
 * The known part of a config as a protobufjs plain object for the binary `TraceConfig`
 * (unknown text fields have no field numbers here and are not encoded).
 */
export function traceConfigToProtoObject(config: PerfettoTraceConfig): Record<string, unknown> {
  return {
    buffers: config.buffers.map((b) => ({
      ...(b.sizeKb === undefined ? {} : { size_kb: b.sizeKb }),
      ...(b.fillPolicy !== undefined && FILL_POLICIES.includes(b.fillPolicy)
        ? { fill_policy: b.fillPolicy }
        : {}),
    })),
    data_sources: config.dataSources.map((d) => ({
      config: {
        name: d.name,
        ...(d.targetBuffer === undefined ? {} : { target_buffer: d.targetBuffer }),
        ...(d.androidPowerConfig === undefined
          ? {}
          : {
              android_power_config: {
                ...(d.androidPowerConfig.batteryPollMs === undefined
                  ? {}
                  : { battery_poll_ms: d.androidPowerConfig.batteryPollMs }),
                battery_counters: d.androidPowerConfig.batteryCounters.filter((c) =>
                  BATTERY_COUNTERS.includes(c),
                ),
                ...(d.androidPowerConfig.collectPowerRails === undefined
                  ? {}
                  : { collect_power_rails: d.androidPowerConfig.collectPowerRails }),
                ...(d.androidPowerConfig.collectEnergyEstimationBreakdown === undefined
                  ? {}
                  : {
                      collect_energy_estimation_breakdown:
                        d.androidPowerConfig.collectEnergyEstimationBreakdown,
                    }),
                ...(d.androidPowerConfig.collectEntityStateResidency === undefined
                  ? {}
                  : {
                      collect_entity_state_residency:
                        d.androidPowerConfig.collectEntityStateResidency,
                    }),
              },
            }),
        ...(d.ftraceConfig === undefined
          ? {}
          : {
              ftrace_config: {
                ftrace_events: d.ftraceConfig.ftraceEvents,
                atrace_categories: d.ftraceConfig.atraceCategories,
                ...(d.ftraceConfig.bufferSizeKb === undefined
                  ? {}
                  : { buffer_size_kb: d.ftraceConfig.bufferSizeKb }),
                ...(d.ftraceConfig.compactSched === undefined
                  ? {}
                  : { compact_sched: { enabled: d.ftraceConfig.compactSched } }),
              },
            }),
      },
    })),
    ...(config.durationMs === undefined ? {} : { duration_ms: config.durationMs }),
    ...(config.writeIntoFile === undefined ? {} : { write_into_file: config.writeIntoFile }),
    ...(config.fileWritePeriodMs === undefined
      ? {}
      : { file_write_period_ms: config.fileWritePeriodMs }),
    ...(config.maxFileSizeBytes === undefined
      ? {}
      : { max_file_size_bytes: config.maxFileSizeBytes }),
    ...(config.flushPeriodMs === undefined ? {} : { flush_period_ms: config.flushPeriodMs }),
  }
}
