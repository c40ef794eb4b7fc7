import { constants as zlibConstants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  PerfettoErrors,
  decodePowerTrace,
  encodePowerTrace,
  isPerfettoTrace,
  parsePerfettoTextConfig,
} from '../../../src/formats/perfetto/index.js'
import type { BatteryCounterSeries } from '../../../src/formats/perfetto/index.js'
import { TraceType } from '../../../src/formats/perfetto/_schema.js'
import type { RailSeries } from '../../../src/model/samples.js'
import { expectEnergyError, fixture, fixtureText } from '../simpleperf/_helpers.js'
import { textprotoToTrace } from './_textproto.js'
import { expectCorruptionDecodesOrThrowsEnergyError } from './_corrupt.js'
import { expectLinear } from '../_linear.js'

const CORPUS = 'corpus/5_power_monitor/'

describe('golden: perfetto_testfixture_power_rails.textproto (google/perfetto diff test)', () => {
  const trace = decodePowerTrace(
    textprotoToTrace(fixtureText(`${CORPUS}perfetto_testfixture_power_rails.textproto`)),
  )

  test('rail descriptors with subsystem and sampling rate', () => {
    expect(trace.railDescriptors).toEqual([
      { index: 3, railName: 'test_rail2', subsystem: 'test_subsys2', samplingRateHz: 1022 },
      { index: 4, railName: 'test_rail', subsystem: 'test_subsys', samplingRateHz: 1023 },
    ])
  })

  test('cumulative series in J on boottime; a reading without timestamp_ms takes the packet time', () => {
    expect(trace.rails).toEqual([
      {
        kind: 'cumulative',
        rail: 'test_rail2',
        subsystem: 'test_subsys2',
        source: 'perfetto.power_rails',
        clock: 'boottime',
        readings: [{ tNs: 3000005, energyJ: 999e-6 }],
      },
      {
        kind: 'cumulative',
        rail: 'test_rail',
        subsystem: 'test_subsys',
        source: 'perfetto.power_rails',
        clock: 'boottime',
        readings: [
          { tNs: 3e6, energyJ: 333e-6 },
          { tNs: 3e6, energyJ: 0 },
          { tNs: 5e6, energyJ: 666e-6 },
        ],
      },
    ])
  })

  test('the counter going backwards (666 → 0 µWs) is reported; the ftrace packet (a print, no sched_switch) gives no schedule', () => {
    expect(trace.warnings).toHaveLength(1)
    expect(trace.warnings[0]).toContain('went backwards')
    expect(trace.packetCount).toBe(4)
    expect(trace.packetKinds).toEqual({ power_rails: 3, ftrace_events: 1 })
    expect(trace.hasPowerData).toBe(true)
    expect(trace.schedule).toBeUndefined()
  })
})

test('golden: energy_breakdown / entity_state_residency fixtures decode with no power series', () => {
  for (const name of [
    'perfetto_testfixture_energy_breakdown.textproto',
    'perfetto_testfixture_entity_state_residency.textproto',
  ]) {
    const trace = decodePowerTrace(textprotoToTrace(fixtureText(`${CORPUS}${name}`)))
    expect(trace.hasPowerData, name).toBe(false)
    expect(trace.packetCount, name).toBeGreaterThan(0)
    expect(trace.packetKinds.other, name).toBe(trace.packetCount)
  }
})

describe('real traces without power data', () => {
  const cases: Array<[string, number, string[]]> = [
    [
      'emanafa_perfetto_trace-1620136726-1614351254.0.pftrace',
      33,
      ['linux.ftrace', 'linux.process_stats'],
    ],
    [
      'emanafa_perfetto_trace-1623058691-1622418866.0.pftrace',
      404,
      ['linux.ftrace', 'linux.process_stats'],
    ],
    [
      'emanafa_perfetto_trace-1625480726-1625480595.0.pftrace',
      9,
      ['linux.ftrace', 'linux.process_stats'],
    ],
    [
      'nowinandroid_fork_app_startup.perfetto-trace',
      7676,
      [
        'android.packages_list',
        'android.log',
        'android.surfaceflinger.frametimeline',
        'android.game_interventions',
        'android.packages_list',
        'android.java_hprof',
        'linux.ftrace',
      ],
    ],
  ]
  test.each(cases)('%s: %i packets, no rails, no battery', (name, packets, sources) => {
    const trace = decodePowerTrace(new Uint8Array(fixture(`${CORPUS}${name}`)))
    expect(trace.packetCount).toBe(packets)
    expect(trace.hasPowerData).toBe(false)
    expect(trace.rails).toEqual([])
    expect(trace.battery).toEqual([])
    expect(trace.configuredDataSources).toEqual(sources)
    expect(trace.androidPowerConfig).toBeUndefined()
    expect(trace.packetKinds.trace_config).toBe(1)
    expect(trace.warnings).toEqual([])
    // Every session starts with a clock snapshot that has BOOTTIME.
    expect(trace.clockSnapshots[0]?.some((c) => c.clock === 'boottime')).toBe(true)
  })

  test('realtime clock values beyond 2^53 are kept exactly as text', () => {
    const trace = decodePowerTrace(new Uint8Array(fixture(`${CORPUS}${cases[0]![0]}`)))
    const realtime = trace.clockSnapshots[0]?.find((c) => c.clockId === 1)
    expect(realtime?.timestamp).toBe('1620136724911496486')
    expect(realtime?.timestampNs).toBeUndefined()
    const boottime = trace.clockSnapshots[0]?.find((c) => c.clockId === 6)
    expect(boottime?.timestampNs).toBe(5785470590225310)
  })
})

const rail = (name: string, subsystem: string, readings: Array<[number, number]>): RailSeries => ({
  kind: 'cumulative',
  rail: name,
  subsystem,
  source: 'perfetto.power_rails',
  clock: 'boottime',
  readings: readings.map(([tMs, uWs]) => ({ tNs: tMs * 1e6, energyJ: uWs / 1e6 })),
})

describe('encodePowerTrace', () => {
  test('writes what a phone writes; decode gives the rails and battery back', () => {
    const rails = [
      rail('S4M_VDD_CPUCL0', 'CPU(LITTLE)', [
        [1000, 5_000_000],
        [1250, 5_100_000],
      ]),
      rail('S10M_VDD_TPU', 'TPU', [
        [1000, 70],
        [1250, 90],
      ]),
    ]
    const battery: BatteryCounterSeries[] = [
      {
        clock: 'boottime',
        readings: [
          {
            tNs: 1_100_000_000,
            currentA: 0.35,
            voltageV: 4.1,
            chargeC: 3600,
            capacityPercent: 87,
            energyJ: 36,
          },
        ],
      },
    ]
    const config = parsePerfettoTextConfig(
      'data_sources { config { name: "android.power" android_power_config { battery_poll_ms: 250 collect_power_rails: true } } }\nduration_ms: 10000\n',
    )
    const bytes = encodePowerTrace({
      rails: [{ series: rails[0]!, samplingRateHz: 1000 }, rails[1]!],
      batteryCounters: battery,
      clockSnapshot: { boottime: 999_000_000, monotonic: 990_000_000 },
      config,
    })
    const trace = decodePowerTrace(bytes)
    expect(trace.rails).toEqual(rails)
    expect(trace.railDescriptors).toEqual([
      { index: 0, railName: 'S4M_VDD_CPUCL0', subsystem: 'CPU(LITTLE)', samplingRateHz: 1000 },
      { index: 1, railName: 'S10M_VDD_TPU', subsystem: 'TPU' },
    ])
    expect(trace.battery).toEqual(battery)
    expect(trace.configuredDataSources).toEqual(['android.power'])
    expect(trace.androidPowerConfig).toMatchObject({ batteryPollMs: 250, collectPowerRails: true })
    // config, clock snapshot, descriptors, 2 energy packets, 1 battery packet
    expect(trace.packetKinds).toEqual({
      trace_config: 1,
      clock_snapshot: 1,
      power_rails: 3,
      battery: 1,
    })
    expect(trace.clockSnapshots[0]).toEqual([
      { clockId: 6, clock: 'boottime', timestamp: '999000000', timestampNs: 999000000 },
      { clockId: 3, clock: 'monotonic', timestamp: '990000000', timestampNs: 990000000 },
    ])
  })

  test('battery on a non-boottime clock keeps its clock through timestamp_clock_id', () => {
    const series: BatteryCounterSeries = {
      name: 'battery2',
      clock: 'monotonic',
      readings: [{ tNs: 5, currentA: -0.5 }],
    }
    expect(decodePowerTrace(encodePowerTrace({ batteryCounters: [series] })).battery).toEqual([
      series,
    ])
  })

  test('an empty session still decodes (service clock snapshot), with no power data', () => {
    const trace = decodePowerTrace(encodePowerTrace({}))
    expect(trace.packetKinds).toEqual({ clock_snapshot: 1 })
    expect(trace.hasPowerData).toBe(false)
  })

  test('refuses what it cannot write', () => {
    const bad = rail('X', 'Y', [[1, -5]])
    expectEnergyError(() => encodePowerTrace({ rails: [bad] }), PerfettoErrors.ENCODE_INPUT)
    const wrongClock: RailSeries = { ...rail('X', 'Y', [[1, 5]]), clock: 'monotonic' }
    expectEnergyError(() => encodePowerTrace({ rails: [wrongClock] }), PerfettoErrors.ENCODE_INPUT)
    expectEnergyError(
      () =>
        encodePowerTrace({
          batteryCounters: [{ clock: 'host', readings: [{ tNs: 1, currentA: 1 }] }],
        }),
      PerfettoErrors.ENCODE_INPUT,
    )
  })

  test('property: rails in whole ms and µWs round-trip exactly', () => {
    const railArb = fc.record({
      name: fc.stringMatching(/^[A-Z][A-Z0-9_]{0,15}$/),
      subsystem: fc.constantFrom('CPU(LITTLE)', 'Display', 'GPU', 'Modem'),
      readings: fc.uniqueArray(
        fc.tuple(fc.integer({ min: 0, max: 2 ** 31 }), fc.nat({ max: 2 ** 45 })),
        {
          selector: ([t]) => t,
          minLength: 1,
          maxLength: 8,
        },
      ),
    })
    fc.assert(
      fc.property(fc.uniqueArray(railArb, { selector: (r) => r.name, maxLength: 5 }), (specs) => {
        const rails = specs.map((s) => {
          // Cumulative counters: energies non-decreasing in time.
          const times = s.readings.map(([t]) => t).sort((a, b) => a - b)
          const energies = s.readings.map(([, e]) => e).sort((a, b) => a - b)
          return rail(
            s.name,
            s.subsystem,
            times.map((t, i) => [t, energies[i]!]),
          )
        })
        const trace = decodePowerTrace(encodePowerTrace({ rails }))
        expect(trace.rails).toEqual(rails)
        expect(trace.warnings).toEqual([])
        expect(trace.hasPowerData).toBe(rails.length > 0)
      }),
      { numRuns: 100 },
    )
  })

  test('property: battery readings in whole µA/µV round-trip', () => {
    const readingArb = fc.record({
      tNs: fc.nat({ max: 2 ** 50 }),
      currentA: fc.integer({ min: -(2 ** 31), max: 2 ** 31 }).map((ua) => ua / 1e6),
      voltageV: fc.integer({ min: 0, max: 5_000_000 }).map((uv) => uv / 1e6),
    })
    fc.assert(
      fc.property(fc.array(readingArb, { minLength: 1, maxLength: 10 }), (readings) => {
        const sorted = [...readings].sort((a, b) => a.tNs - b.tNs)
        const series: BatteryCounterSeries = { clock: 'boottime', readings: sorted }
        const back = decodePowerTrace(encodePowerTrace({ batteryCounters: [series] })).battery
        expect(back).toHaveLength(1)
        for (const [i, r] of back[0]!.readings.entries()) {
          expect(r.tNs).toBe(sorted[i]!.tNs)
          expect(Math.round(r.currentA! * 1e6)).toBe(Math.round(sorted[i]!.currentA * 1e6))
          expect(Math.round(r.voltageV! * 1e6)).toBe(Math.round(sorted[i]!.voltageV * 1e6))
        }
      }),
      { numRuns: 100 },
    )
  })
})

describe('negative inputs', () => {
  const sample = encodePowerTrace({
    rails: [
      rail('A', 'B', [
        [1, 2],
        [3, 4],
      ]),
    ],
  })

  test.each([
    ['empty', new Uint8Array(), 'empty'],
    ['gzip', Uint8Array.from([0x1f, 0x8b, 8, 0]), 'gzip'],
    ['zip', new TextEncoder().encode('PK\x03\x04rest'), 'zip'],
    ['textproto', new TextEncoder().encode('packet {\n  timestamp: 1\n}\n'), 'protobuf text'],
    ['text config', new TextEncoder().encode('buffers { size_kb: 100 }'), 'protobuf text'],
    ['ART trace', new TextEncoder().encode('*version\n3\n'), 'ART method trace'],
    [
      'perf.data',
      new Uint8Array(fixture('corpus/4_simpleperf/aosp_simpleperf_perf.data')),
      'perf.data',
    ],
    [
      'zeros',
      new Uint8Array(fixture('corpus/4_simpleperf/aosp_simpleperf_invalid_perf.data')),
      '0x00',
    ],
  ])('%s is not a trace', (_name, bytes, mention) => {
    const error = expectEnergyError(() => decodePowerTrace(bytes), PerfettoErrors.NOT_A_TRACE)
    expect(error.message).toContain(mention)
  })

  test('truncated inside a packet and inside a length varint', () => {
    const error = expectEnergyError(
      () => decodePowerTrace(sample.subarray(0, sample.length - 3)),
      PerfettoErrors.TRUNCATED,
    )
    expect(error.details.offset).toBeTypeOf('number')
    expectEnergyError(
      () => decodePowerTrace(Uint8Array.from([0x0a, 0x80])),
      PerfettoErrors.TRUNCATED,
    )
  })

  test('a real trace cut short is reported as truncated', () => {
    const real = new Uint8Array(
      fixture(`${CORPUS}emanafa_perfetto_trace-1625480726-1625480595.0.pftrace`),
    )
    expectEnergyError(() => decodePowerTrace(real.subarray(0, 500)), PerfettoErrors.TRUNCATED)
  })

  test('a packet that is not a TracePacket', () => {
    // field 1, length 2, then an invalid wire type 7 (on field 2, which the schema skips)
    expectEnergyError(
      () => decodePowerTrace(Uint8Array.from([0x0a, 0x02, 0x17, 0x00])),
      PerfettoErrors.CORRUPT,
    )
  })

  test('battery packets on a sequence-scoped clock are refused', () => {
    const bytes = textprotoToTrace(
      'packet { timestamp: 5 timestamp_clock_id: 64 battery { current_ua: 1 } }',
    )
    expectEnergyError(() => decodePowerTrace(bytes), PerfettoErrors.UNSUPPORTED_CLOCK)
  })

  test('energy data for an undescribed rail is kept under rail#<index> with a warning', () => {
    const bytes = textprotoToTrace(
      'packet { timestamp: 7000000 power_rails { energy_data { index: 9 timestamp_ms: 7 energy: 12 } } }',
    )
    const trace = decodePowerTrace(bytes)
    expect(trace.rails[0]?.rail).toBe('rail#9')
    expect(trace.warnings[0]).toContain('rail index 9')
  })

  test('property: random corruption decodes or throws an EnergyError', () => {
    expectCorruptionDecodesOrThrowsEnergyError(sample)
  })
})

describe('compressed packets and big numbers', () => {
  const inner = encodePowerTrace({
    rails: [
      rail('S4M_VDD_CPUCL0', 'CPU(LITTLE)', [
        [10, 100],
        [20, 250],
      ]),
    ],
  })

  test('compressed_packets (zlib) are inflated and walked like top-level packets', async () => {
    const { deflateSync } = await import('node:zlib')
    const { TraceType } = await import('../../../src/formats/perfetto/_schema.js')
    const wrapped = TraceType.encode(
      TraceType.fromObject({ packet: [{ compressed_packets: deflateSync(inner) }] }),
    ).finish()
    const plain = decodePowerTrace(inner)
    const trace = decodePowerTrace(wrapped)
    expect(trace.rails).toEqual(plain.rails)
    expect(trace.packetCount).toBe(plain.packetCount)
  })

  test('compressed_packets that do not inflate are corrupt', async () => {
    const { TraceType } = await import('../../../src/formats/perfetto/_schema.js')
    const wrapped = TraceType.encode(
      TraceType.fromObject({ packet: [{ compressed_packets: Uint8Array.from([1, 2, 3, 4]) }] }),
    ).finish()
    expectEnergyError(() => decodePowerTrace(wrapped), PerfettoErrors.CORRUPT)
  })

  test('a rail energy above 2^53 µWs is refused, not rounded', () => {
    const bytes = textprotoToTrace(
      'packet { power_rails { energy_data { index: 0 timestamp_ms: 1 energy: 18446744073709551615 } } }',
    )
    expectEnergyError(() => decodePowerTrace(bytes), PerfettoErrors.UNSAFE_INTEGER)
  })
})

/**
 * A zlib stream of `mib` MiB of zeros built without compressing them: one fully flushed block of
 * 1 MiB repeated, then a final empty block and the Adler-32 of the zeros (a = 1, b = length).
 * 1 536 MiB take about 1.5 MB, the zip bomb of issue 16.
 */
function zerosZlib(mib: number): Uint8Array {
  const part = deflateSync(new Uint8Array(1 << 20), { finishFlush: zlibConstants.Z_FULL_FLUSH })
  const header = part.subarray(0, 2)
  const body = part.subarray(2)
  const length = mib * (1 << 20)
  const adler = Buffer.alloc(4)
  adler.writeUInt32BE((((length % 65521) << 16) | 1) >>> 0)
  return Buffer.concat([
    header,
    ...Array.from({ length: mib }, () => body),
    deflateRawSync(''),
    adler,
  ])
}

function wrapCompressed(compressed: Uint8Array): Uint8Array {
  return TraceType.encode(
    TraceType.fromObject({ packet: [{ compressed_packets: compressed }] }),
  ).finish()
}

describe('inflating is bounded (issue 16)', () => {
  const inner = encodePowerTrace({ rails: [rail('R', 'S', [[1, 5]])] })

  test('1.5 MB of compressed_packets inflating to 1.5 GiB stop at the default limit, 256 MiB', () => {
    const bomb = wrapCompressed(zerosZlib(1536))
    expect(bomb.length).toBeLessThan(2_000_000)
    const error = expectEnergyError(() => decodePowerTrace(bomb), PerfettoErrors.INFLATE_LIMIT)
    expect(error.details.limit).toBe(256 * 1024 * 1024)
    expect(error.details.offset).toBe(0)
  })
  test('the limit is an option and counts every inflation together', () => {
    const packet = deflateSync(inner)
    const twice = TraceType.encode(
      TraceType.fromObject({
        packet: [{ compressed_packets: packet }, { compressed_packets: packet }],
      }),
    ).finish()
    expect(decodePowerTrace(twice, { maxInflatedBytes: 2 * inner.length }).packetCount).toBe(
      2 * decodePowerTrace(inner).packetCount,
    )
    expectEnergyError(
      () => decodePowerTrace(twice, { maxInflatedBytes: 2 * inner.length - 1 }),
      PerfettoErrors.INFLATE_LIMIT,
    )
    expectEnergyError(
      () => decodePowerTrace(wrapCompressed(zerosZlib(2)), { maxInflatedBytes: 1 << 20 }),
      PerfettoErrors.INFLATE_LIMIT,
    )
    expectEnergyError(() => decodePowerTrace(inner, { maxInflatedBytes: -1 }), 'E_INVALID_OPTION')
  })
  test('a gzip-compressed trace decodes like the trace; a gzip bomb stops at the limit', () => {
    const gz = gzipSync(inner)
    expect(isPerfettoTrace(gz)).toBe(true)
    expect(decodePowerTrace(gz)).toEqual(decodePowerTrace(inner))
    expectEnergyError(
      () => decodePowerTrace(gzipSync(new Uint8Array(4 << 20)), { maxInflatedBytes: 1 << 20 }),
      PerfettoErrors.INFLATE_LIMIT,
    )
    const twice = expectEnergyError(
      () => decodePowerTrace(gzipSync(gz)),
      PerfettoErrors.NOT_A_TRACE,
    )
    expect(twice.message).toContain('twice')
    expect(isPerfettoTrace(gzipSync(new TextEncoder().encode('packet {}')))).toBe(false)
  })
  test('compressed_packets inside compressed_packets are corrupt (Perfetto compresses once)', () => {
    const nested = wrapCompressed(deflateSync(wrapCompressed(deflateSync(inner))))
    const error = expectEnergyError(() => decodePowerTrace(nested), PerfettoErrors.CORRUPT)
    expect(error.message).toContain('inside compressed_packets')
  })
  test('a cut-short packet stream inside compressed_packets is corrupt, not a truncated file', () => {
    const cut = wrapCompressed(deflateSync(inner.subarray(0, inner.length - 2)))
    expectEnergyError(() => decodePowerTrace(cut), PerfettoErrors.CORRUPT)
  })
  test('time is linear in the input', () => {
    expectLinear(
      (n) =>
        encodePowerTrace({
          rails: [
            rail(
              'R',
              'S',
              Array.from({ length: n / 16 }, (_, i): [number, number] => [i + 1, i]),
            ),
          ],
        }),
      (bytes) => decodePowerTrace(bytes),
      4000,
    )
  })
})

test("packet loss on the power sequence is reported; the flag on a sequence's first packet is not", () => {
  const lossless = textprotoToTrace(
    [
      'packet { trusted_packet_sequence_id: 2 previous_packet_dropped: 1 power_rails { rail_descriptor { index: 0 rail_name: "R" } } }',
      'packet { trusted_packet_sequence_id: 2 timestamp: 1000000 power_rails { energy_data { index: 0 timestamp_ms: 1 energy: 5 } } }',
    ].join('\n'),
  )
  expect(decodePowerTrace(lossless).warnings).toEqual([])
  const lossy = textprotoToTrace(
    [
      'packet { trusted_packet_sequence_id: 2 previous_packet_dropped: 1 power_rails { rail_descriptor { index: 0 rail_name: "R" } } }',
      'packet { trusted_packet_sequence_id: 2 previous_packet_dropped: 1 timestamp: 9000000 power_rails { energy_data { index: 0 timestamp_ms: 9 energy: 50 } } }',
    ].join('\n'),
  )
  const warnings = decodePowerTrace(lossy).warnings
  expect(warnings).toHaveLength(1)
  expect(warnings[0]).toContain('lost on the power data sequence 2')
})

test('isPerfettoTrace sniffs real traces and rejects other formats', () => {
  for (const name of [
    'emanafa_perfetto_trace-1625480726-1625480595.0.pftrace',
    'nowinandroid_fork_app_startup.perfetto-trace',
  ]) {
    expect(isPerfettoTrace(new Uint8Array(fixture(`${CORPUS}${name}`))), name).toBe(true)
  }
  expect(isPerfettoTrace(encodePowerTrace({}))).toBe(true)
  expect(
    isPerfettoTrace(new Uint8Array(fixture('corpus/4_simpleperf/aosp_simpleperf_perf.data'))),
  ).toBe(false)
  expect(isPerfettoTrace(new TextEncoder().encode('packet {}'))).toBe(false)
  expect(isPerfettoTrace(Uint8Array.from([0x0a, 0x7f, 0]))).toBe(false)
  expect(isPerfettoTrace(new Uint8Array())).toBe(false)
})
