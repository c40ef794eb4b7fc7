import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { TraceConfigType } from '../../../src/formats/perfetto/_schema.js'
import {
  PerfettoErrors,
  encodeTraceConfig,
  formatPerfettoTextConfig,
  parsePerfettoTextConfig,
  parseTextProto,
  requestsSchedSwitch,
} from '../../../src/formats/perfetto/index.js'
import type { PerfettoTraceConfig } from '../../../src/formats/perfetto/index.js'
import { expectEnergyError, fixtureText } from '../simpleperf/_helpers.js'
import { expectLinear } from '../_linear.js'

const TEXT = fixtureText('perfetto/android_power_config.pbtxt')

/** Line numbers differ between an input and its re-rendering; compare without them. */
function withoutLines(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLines)
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'line')
        .map(([k, v]) => [k, withoutLines(v)]),
    )
  }
  return value
}

describe('parsePerfettoTextConfig', () => {
  const config = parsePerfettoTextConfig(TEXT)

  test('typed fields', () => {
    expect(config.buffers.map((b) => [b.sizeKb, b.fillPolicy])).toEqual([
      [63488, 'DISCARD'],
      [2048, undefined],
    ])
    expect(config.durationMs).toBe(10000)
    expect(config.writeIntoFile).toBe(true)
    expect(config.fileWritePeriodMs).toBe(2500)
    expect(config.flushPeriodMs).toBe(30000)
    expect(config.dataSources.map((d) => [d.name, d.targetBuffer])).toEqual([
      ['android.power', 0],
      ['linux.ftrace', 1],
    ])
    expect(config.dataSources[0]?.androidPowerConfig).toEqual({
      batteryPollMs: 250,
      batteryCounters: [
        'BATTERY_COUNTER_CAPACITY_PERCENT',
        'BATTERY_COUNTER_CHARGE',
        'BATTERY_COUNTER_CURRENT',
      ],
      collectPowerRails: true,
      unknownFields: [],
    })
  })

  test('ftrace_config is typed (events, buffer size, compact_sched)', () => {
    expect(config.dataSources[1]?.ftraceConfig).toEqual({
      ftraceEvents: ['sched/sched_switch', 'power/cpu_frequency', 'power/cpu_idle'],
      atraceCategories: [],
      bufferSizeKb: 2048,
      compactSched: true,
      unknownFields: [],
    })
    expect(config.dataSources[0]?.ftraceConfig).toBeUndefined()
  })

  test('unknown fields are kept verbatim with their lines, at every level', () => {
    expect(config.unknownFields.map((f) => [f.name, f.line])).toEqual([
      ['incremental_state_config', 41],
    ])
    const ftrace = config.dataSources[1]
    expect(ftrace?.unknownFields).toEqual([])
    expect(ftrace?.dataSourceUnknownFields).toEqual([
      { name: 'producer_name_filter', line: 35, value: { kind: 'string', value: 'traced_probes' } },
    ])
  })

  test('format → parse keeps everything (unknown fields included)', () => {
    const again = parsePerfettoTextConfig(formatPerfettoTextConfig(config))
    expect(withoutLines(again)).toEqual(withoutLines(config))
  })

  test('writer output is canonical text', () => {
    const small = parsePerfettoTextConfig(
      'data_sources: { config { name: "android.power" android_power_config { battery_poll_ms: 250 battery_counters: BATTERY_COUNTER_CURRENT collect_power_rails: true } } } duration_ms: 5000 buffers { size_kb: 1024 }',
    )
    expect(formatPerfettoTextConfig(small)).toBe(
      [
        'buffers {',
        '  size_kb: 1024',
        '}',
        'data_sources {',
        '  config {',
        '    name: "android.power"',
        '    android_power_config {',
        '      battery_poll_ms: 250',
        '      battery_counters: BATTERY_COUNTER_CURRENT',
        '      collect_power_rails: true',
        '    }',
        '  }',
        '}',
        'duration_ms: 5000',
        '',
      ].join('\n'),
    )
  })

  test('binary TraceConfig carries the known fields', () => {
    const decoded = TraceConfigType.toObject(TraceConfigType.decode(encodeTraceConfig(config)), {
      enums: String,
      longs: Number,
    })
    expect(decoded).toEqual({
      buffers: [{ size_kb: 63488, fill_policy: 'DISCARD' }, { size_kb: 2048 }],
      data_sources: [
        {
          config: {
            name: 'android.power',
            target_buffer: 0,
            android_power_config: {
              battery_poll_ms: 250,
              battery_counters: [
                'BATTERY_COUNTER_CAPACITY_PERCENT',
                'BATTERY_COUNTER_CHARGE',
                'BATTERY_COUNTER_CURRENT',
              ],
              collect_power_rails: true,
            },
          },
        },
        {
          config: {
            name: 'linux.ftrace',
            target_buffer: 1,
            ftrace_config: {
              ftrace_events: ['sched/sched_switch', 'power/cpu_frequency', 'power/cpu_idle'],
              buffer_size_kb: 2048,
              compact_sched: { enabled: true },
            },
          },
        },
      ],
      duration_ms: 10000,
      write_into_file: true,
      file_write_period_ms: 2500,
      flush_period_ms: 30000,
    })
  })

  test('text-format variants: `<>` messages, lists, numeric enums, ; and , separators, string concatenation, escapes', () => {
    const parsed = parsePerfettoTextConfig(
      [
        'buffers < size_kb: 8, fill_policy: 1 >;',
        'data_sources { config { name: "android." "power" android_power_config {',
        '  battery_counters: [BATTERY_COUNTER_CHARGE, 3] collect_power_rails: 1 } } }',
        'unique_session_name: "a\\"b\\n\\101"',
      ].join('\n'),
    )
    expect(parsed.buffers[0]).toMatchObject({ sizeKb: 8, fillPolicy: 'RING_BUFFER' })
    expect(parsed.dataSources[0]?.name).toBe('android.power')
    expect(parsed.dataSources[0]?.androidPowerConfig?.batteryCounters).toEqual([
      'BATTERY_COUNTER_CHARGE',
      'BATTERY_COUNTER_CURRENT',
    ])
    expect(parsed.dataSources[0]?.androidPowerConfig?.collectPowerRails).toBe(true)
    expect(parsed.unknownFields[0]?.value).toEqual({ kind: 'string', value: 'a"b\nA' })
    const again = parsePerfettoTextConfig(formatPerfettoTextConfig(parsed))
    expect(withoutLines(again)).toEqual(withoutLines(parsed))
  })

  test('ftrace_config: canonical text, round trip, binary fields, and the sched_switch request', () => {
    const ftrace = parsePerfettoTextConfig(
      'data_sources { config { name: "linux.ftrace" ftrace_config { compact_sched { enabled: false } ftrace_events: "sched/sched_switch" atrace_categories: "gfx" buffer_size_kb: 4096 drain_period_ms: 250 } } }',
    )
    const f = ftrace.dataSources[0]?.ftraceConfig
    expect(f).toMatchObject({
      ftraceEvents: ['sched/sched_switch'],
      atraceCategories: ['gfx'],
      bufferSizeKb: 4096,
      compactSched: false,
    })
    expect(f?.unknownFields.map((u) => u.name)).toEqual(['drain_period_ms'])
    expect(formatPerfettoTextConfig(ftrace)).toBe(
      [
        'data_sources {',
        '  config {',
        '    name: "linux.ftrace"',
        '    ftrace_config {',
        '      ftrace_events: "sched/sched_switch"',
        '      atrace_categories: "gfx"',
        '      buffer_size_kb: 4096',
        '      compact_sched {',
        '        enabled: false',
        '      }',
        '      drain_period_ms: 250',
        '    }',
        '  }',
        '}',
        '',
      ].join('\n'),
    )
    expect(withoutLines(parsePerfettoTextConfig(formatPerfettoTextConfig(ftrace)))).toEqual(
      withoutLines(ftrace),
    )
    const binary = TraceConfigType.toObject(TraceConfigType.decode(encodeTraceConfig(ftrace)), {
      longs: Number,
    })
    expect(binary).toEqual({
      data_sources: [
        {
          config: {
            name: 'linux.ftrace',
            ftrace_config: {
              ftrace_events: ['sched/sched_switch'],
              atrace_categories: ['gfx'],
              buffer_size_kb: 4096,
              compact_sched: { enabled: false },
            },
          },
        },
      ],
    })
    expect(requestsSchedSwitch(f!)).toBe(true)
  })

  test('a compact_sched block other than `{ enabled: x }` stays verbatim (and the default applies)', () => {
    const text =
      'data_sources { config { name: "linux.ftrace" ftrace_config { compact_sched { } } } }'
    const f = parsePerfettoTextConfig(text).dataSources[0]?.ftraceConfig
    expect(f?.compactSched).toBeUndefined()
    expect(f?.unknownFields.map((u) => u.name)).toEqual(['compact_sched'])
    expect(formatPerfettoTextConfig(parsePerfettoTextConfig(text))).toContain(
      '      compact_sched {\n      }\n',
    )
  })

  test.each<[string, string[], string[], boolean]>([
    ['sched/sched_switch', ['sched/sched_switch'], [], true],
    ['bare event name', ['sched_switch'], [], true],
    ['whole sched group', ['sched/*'], [], true],
    ['atrace sched category', [], ['sched'], true],
    ['other sched events only', ['sched/sched_wakeup', 'sched/sched_waking'], [], false],
    ['power events', ['power/cpu_frequency'], ['gfx'], false],
  ])('requestsSchedSwitch: %s', (_name, ftraceEvents, atraceCategories, expected) => {
    expect(requestsSchedSwitch({ ftraceEvents, atraceCategories, unknownFields: [] })).toBe(
      expected,
    )
  })

  test('an empty config is a valid (empty) TraceConfig', () => {
    expect(parsePerfettoTextConfig('# nothing\n')).toEqual({
      buffers: [],
      dataSources: [],
      unknownFields: [],
    })
  })
})

describe('errors carry the line', () => {
  const cases: Array<[string, string, string, number]> = [
    ['missing closing brace', 'buffers {\n  size_kb: 1\n', PerfettoErrors.CONFIG_SYNTAX, 2],
    ['stray closing brace', 'duration_ms: 1\n}\n', PerfettoErrors.CONFIG_SYNTAX, 2],
    ['missing colon', 'duration_ms 5\n', PerfettoErrors.CONFIG_SYNTAX, 1],
    [
      'unterminated string',
      'data_sources {\n config { name: "android.power\n } }',
      PerfettoErrors.CONFIG_SYNTAX,
      2,
    ],
    ['bad escape', 'x: "\\q"', PerfettoErrors.CONFIG_SYNTAX, 1],
    ['odd character', 'duration_ms: 5\n@\n', PerfettoErrors.CONFIG_SYNTAX, 2],
    ['value missing at end', 'duration_ms:', PerfettoErrors.CONFIG_SYNTAX, 1],
    ['bad list', 'a: [1 2]', PerfettoErrors.CONFIG_SYNTAX, 1],
    ['string duration', '\nduration_ms: "10"\n', PerfettoErrors.CONFIG_VALUE, 2],
    ['negative size', 'buffers { size_kb: -1 }', PerfettoErrors.CONFIG_VALUE, 1],
    ['bool as word', 'write_into_file: yes', PerfettoErrors.CONFIG_VALUE, 1],
    ['message as scalar', 'data_sources: 5', PerfettoErrors.CONFIG_VALUE, 1],
    ['scalar as message', 'duration_ms { }', PerfettoErrors.CONFIG_VALUE, 1],
    ['unnamed enum number', 'buffers { fill_policy: 9 }', PerfettoErrors.CONFIG_VALUE, 1],
    ['duration twice', 'duration_ms: 1\nduration_ms: 2', PerfettoErrors.CONFIG_VALUE, 2],
    [
      'name twice',
      'data_sources { config { name: "a"\n name: "b" } }',
      PerfettoErrors.CONFIG_VALUE,
      2,
    ],
    ['size twice', 'buffers { size_kb: 1 size_kb: 2 }', PerfettoErrors.CONFIG_VALUE, 1],
    [
      'name not a string',
      'data_sources { config { name: android.power } }',
      PerfettoErrors.CONFIG_VALUE,
      1,
    ],
    [
      'ftrace event not a string',
      'data_sources { config {\n ftrace_config { ftrace_events: sched } } }',
      PerfettoErrors.CONFIG_VALUE,
      2,
    ],
    [
      'compact_sched enabled not a bool',
      'data_sources { config { ftrace_config {\n compact_sched { enabled: maybe } } } }',
      PerfettoErrors.CONFIG_VALUE,
      2,
    ],
    [
      'buffer_size_kb twice',
      'data_sources { config { ftrace_config { buffer_size_kb: 1\n buffer_size_kb: 2 } } }',
      PerfettoErrors.CONFIG_VALUE,
      2,
    ],
  ]
  test.each(cases)('%s', (_name, text, code, line) => {
    const error = expectEnergyError(() => parsePerfettoTextConfig(text), code)
    expect(error.details.line).toBe(line)
    expect(error.message).toContain(`line ${line}`)
  })
})

describe('bounds (issue 16)', () => {
  test('8 000 nested `a {` is a coded error, not a stack overflow', () => {
    const error = expectEnergyError(
      () => parsePerfettoTextConfig('a {\n'.repeat(8000)),
      PerfettoErrors.CONFIG_TOO_DEEP,
    )
    expect(error.details.line).toBe(101)
    expect(error.message).toContain('100')
  })
  test('nesting by lists and `<` counts too; 100 levels parse', () => {
    expectEnergyError(
      () => parseTextProto('a: [{ '.repeat(101) + '}]'.repeat(101)),
      PerfettoErrors.CONFIG_TOO_DEEP,
    )
    expectEnergyError(
      () => parseTextProto('a < '.repeat(101) + '>'.repeat(101)),
      PerfettoErrors.CONFIG_TOO_DEEP,
    )
    let deepest = parseTextProto('a { '.repeat(100) + 'x: 1' + ' }'.repeat(100))
    for (let i = 0; i < 100; i++) {
      const value = deepest.fields[0]?.value
      if (value === undefined || !('fields' in value)) throw new Error(`level ${i} missing`)
      deepest = value
    }
    expect(deepest.fields[0]?.name).toBe('x')
  })
  test('time is linear in the input: many fields, long strings with escapes', () => {
    expectLinear(
      (n) => 'data_sources { config { name: "android.power" } }\n'.repeat(n / 50),
      parsePerfettoTextConfig,
      8000,
    )
    expectLinear((n) => `x: "${'\\n'.repeat(n / 2)}"`, parseTextProto, 8000)
    expectLinear((n) => `${'1'.repeat(n)}`, parseTextProto, 8000)
  })
})

describe('properties', () => {
  const name = fc.constantFrom('android.power', 'linux.ftrace', 'linux.process_stats')
  const configArb: fc.Arbitrary<PerfettoTraceConfig> = fc.record({
    buffers: fc.array(
      fc.record({
        sizeKb: fc.nat({ max: 1 << 20 }),
        fillPolicy: fc.constantFrom('RING_BUFFER', 'DISCARD'),
        unknownFields: fc.constant([]),
      }),
      { maxLength: 3 },
    ),
    dataSources: fc.array(
      fc.record({
        name,
        targetBuffer: fc.nat({ max: 3 }),
        androidPowerConfig: fc.record({
          batteryPollMs: fc.nat({ max: 10000 }),
          batteryCounters: fc.array(
            fc.constantFrom(
              'BATTERY_COUNTER_CHARGE',
              'BATTERY_COUNTER_CURRENT',
              'BATTERY_COUNTER_CAPACITY_PERCENT',
            ),
            { maxLength: 3 },
          ),
          collectPowerRails: fc.boolean(),
          unknownFields: fc.constant([]),
        }),
        ftraceConfig: fc.record(
          {
            ftraceEvents: fc.array(
              fc.constantFrom('sched/sched_switch', 'power/cpu_frequency', 'sched/sched_waking'),
              { maxLength: 3 },
            ),
            atraceCategories: fc.array(fc.constantFrom('sched', 'gfx', 'view'), { maxLength: 2 }),
            bufferSizeKb: fc.nat({ max: 1 << 16 }),
            compactSched: fc.boolean(),
            unknownFields: fc.constant([]),
          },
          { requiredKeys: ['ftraceEvents', 'atraceCategories', 'unknownFields'] },
        ),
        unknownFields: fc.constant([]),
        dataSourceUnknownFields: fc.constant([]),
      }),
      { maxLength: 3 },
    ),
    durationMs: fc.nat({ max: 2 ** 31 }),
    writeIntoFile: fc.boolean(),
    fileWritePeriodMs: fc.nat({ max: 100000 }),
    unknownFields: fc.array(
      fc.record({
        name: fc.constantFrom('unique_session_name', 'notes'),
        line: fc.constant(0),
        value: fc.record({
          kind: fc.constant('string' as const),
          value: fc.string({ maxLength: 20 }),
        }),
      }),
      { maxLength: 2 },
    ),
  })

  test('format → parse is the identity', () => {
    fc.assert(
      fc.property(configArb, (config) => {
        const parsed = parsePerfettoTextConfig(formatPerfettoTextConfig(config))
        expect(withoutLines(parsed)).toEqual(withoutLines(config))
      }),
      { numRuns: 200 },
    )
  })

  test('arbitrary text parses or throws an EnergyError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (text) => {
        try {
          parseTextProto(text)
          parsePerfettoTextConfig(text)
        } catch (error) {
          expect((error as { name?: string }).name).toBe('EnergyError')
        }
      }),
      { numRuns: 500 },
    )
  })
})
