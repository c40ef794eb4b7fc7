import fc from 'fast-check'
import protobuf from 'protobufjs'
import { describe, expect, test } from 'vitest'
import {
  PerfettoErrors,
  decodePowerTrace,
  encodePowerTrace,
  parsePerfettoTextConfig,
} from '../../../src/formats/perfetto/index.js'
import type { PowerTraceSchedule } from '../../../src/formats/perfetto/index.js'
import type { CpuIdleChange, CpuSlice } from '../../../src/model/index.js'
import { expectLinear } from '../_linear.js'
import { expectEnergyError, fixtureText } from '../simpleperf/_helpers.js'
import { textprotoToTrace } from './_textproto.js'
import { expectCorruptionDecodesOrThrowsEnergyError } from './_corrupt.js'

/**
 * A second, hand-written schema for the messages involved, transcribed from google/perfetto's
 * protos (trace_packet.proto, ftrace/ftrace_event_bundle.proto, ftrace/ftrace_event.proto,
 * ftrace/sched.proto, ftrace/power.proto, clock_snapshot.proto) independently of
 * src/formats/perfetto/_schema.ts, so
 * neither the decoder nor the encoder is only checked against its own field numbers.
 */
const UPSTREAM = protobuf
  .parse(
    `
syntax = "proto2";
package upstream;
message SchedSwitchFtraceEvent {
  optional string prev_comm = 1;
  optional int32 prev_pid = 2;
  optional int32 prev_prio = 3;
  optional int64 prev_state = 4;
  optional string next_comm = 5;
  optional int32 next_pid = 6;
  optional int32 next_prio = 7;
}
message CpuFrequencyFtraceEvent {
  optional uint32 state = 1;
  optional uint32 cpu_id = 2;
}
message CpuIdleFtraceEvent {
  optional uint32 state = 1;
  optional uint32 cpu_id = 2;
}
message FtraceEvent {
  optional uint64 timestamp = 1;
  optional uint32 pid = 2;
  oneof event {
    SchedSwitchFtraceEvent sched_switch = 4;
    CpuFrequencyFtraceEvent cpu_frequency = 11;
    CpuIdleFtraceEvent cpu_idle = 13;
  }
}
message FtraceEventBundle {
  optional uint32 cpu = 1;
  repeated FtraceEvent event = 2;
  optional bool lost_events = 3;
  message CompactSched {
    repeated string intern_table = 5;
    repeated uint64 switch_timestamp = 1 [packed = true];
    repeated int64 switch_prev_state = 2 [packed = true];
    repeated int32 switch_next_pid = 3 [packed = true];
    repeated int32 switch_next_prio = 4 [packed = true];
    repeated uint32 switch_next_comm_index = 6 [packed = true];
  }
  optional CompactSched compact_sched = 4;
  optional int32 ftrace_clock = 5;
  optional int64 ftrace_timestamp = 6;
  optional int64 boot_timestamp = 7;
  optional uint64 previous_bundle_end_timestamp = 10;
}
message ClockSnapshot {
  message Clock {
    optional uint32 clock_id = 1;
    optional uint64 timestamp = 2;
  }
  repeated Clock clocks = 1;
}
message TracePacket {
  optional FtraceEventBundle ftrace_events = 1;
  optional ClockSnapshot clock_snapshot = 6;
  optional uint64 timestamp = 8;
  optional uint32 trusted_packet_sequence_id = 10;
  optional uint32 previous_packet_dropped = 42;
}
message Trace { repeated TracePacket packet = 1; }
`,
    { keepCase: true },
  )
  .root.lookupType('upstream.Trace')

function upstreamTrace(packets: unknown[]): Uint8Array {
  return UPSTREAM.encode(UPSTREAM.fromObject({ packet: packets })).finish()
}

/** A decoded packet, as far as these tests look into it. */
interface UpstreamPacket {
  readonly trusted_packet_sequence_id?: number
  readonly ftrace_events?: {
    readonly cpu?: number
    readonly event?: ReadonlyArray<{
      readonly timestamp?: number
      readonly cpu_frequency?: unknown
      readonly cpu_idle?: unknown
      readonly sched_switch?: unknown
    }>
    readonly compact_sched?: Readonly<Record<string, unknown>>
  }
}

function upstreamDecode(bytes: Uint8Array): { packet: UpstreamPacket[] } {
  return UPSTREAM.toObject(UPSTREAM.decode(bytes), { longs: Number, defaults: false }) as {
    packet: UpstreamPacket[]
  }
}

const slice = (
  cpu: number,
  tid: number,
  comm: string | undefined,
  startNs: number,
  endNs: number,
): CpuSlice => ({ cpu, tid, ...(comm === undefined ? {} : { comm }), startNs, endNs })

describe('golden: sched_blocked_reason_symbolized.textproto (google/perfetto diff test, plain sched_switch)', () => {
  const trace = decodePowerTrace(
    textprotoToTrace(
      fixtureText('perfetto/perfetto_testfixture_sched_blocked_reason_symbolized.textproto'),
    ),
  )

  test('slices per CPU: next_pid from its switch to the next; swapper left out', () => {
    expect(trace.schedule).toEqual({
      source: 'perfetto.sched_switch',
      clock: 'boottime',
      slices: [
        slice(1, 100, '100', 50, 1_000_000),
        slice(1, 101, '101', 1_000_000, 1_001_000),
        slice(1, 100, '100', 1_001_000, 1_003_000),
        slice(2, 102, '102', 60, 999_000),
        slice(2, 103, '103', 999_000, 1_002_000),
        slice(2, 104, '104', 1_002_000, 1_005_000),
        slice(3, 105, '105', 60, 999_000),
      ],
      cpus: [1, 2, 3],
      lostEvents: false,
    })
    expect(trace.packetKinds).toEqual({ ftrace_events: 4 })
    // The first packet's previous_packet_dropped is the service's flag on a sequence's first packet.
    expect(trace.warnings).toEqual([])
  })

  test("each slice ends where upstream's thread_state shows the thread leaving the CPU (state D)", () => {
    // Expected CSV of test_sched_blocked_reason_symbolized_sched_blocked_reason_function (tests.py).
    const blocked: Array<[number, number]> = [
      [999000, 105],
      [999000, 102],
      [1000000, 100],
      [1001000, 101],
      [1002000, 103],
      [1003000, 100],
      [1005000, 104],
    ]
    const ends = (trace.schedule?.slices ?? []).map((s) => [s.endNs, s.tid])
    expect(ends.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!)).toEqual(
      blocked.sort((a, b) => a[0] - b[0] || a[1] - b[1]),
    )
  })

  test('re-encoding the decoded schedule (compact and plain) decodes to the same slices', () => {
    const schedule = trace.schedule
    if (schedule === undefined) throw new Error('no schedule')
    for (const compact of [true, false]) {
      const again = decodePowerTrace(encodePowerTrace({ schedule: { ...schedule, compact } }))
      expect(again.schedule, `compact ${compact}`).toEqual(schedule)
    }
  })
})

describe('golden: crop_compact_sched_switch (google/perfetto diff test, compact_sched)', () => {
  const trace = decodePowerTrace(
    textprotoToTrace(fixtureText('perfetto/perfetto_difftest_crop_compact_sched_switch.textproto')),
  )

  test('delta-decoded timestamps and interned comms; the documented differences from trace processor', () => {
    // Trace processor's expected CSV: (3, 1200, -1, 51), (6, 1100, 100, 42), (6, 1200, -1, 43).
    // It drops every switch before the latest first-bundle previous_bundle_end_timestamp (1000) and
    // the first compact switch of each CPU; we keep both. Its open slices (dur -1) end here at the
    // trace's last timestamp, 1200, so they are empty and left out.
    expect(trace.schedule?.slices).toEqual([
      slice(3, 50, 'zero:3', 1100, 1200),
      slice(6, 40, 'zero:6', 500, 600),
      slice(6, 41, 'one:6', 600, 1100),
      slice(6, 42, 'two:6', 1100, 1200),
    ])
    expect(trace.schedule?.cpus).toEqual([3, 6])
    expect(trace.schedule?.lostEvents).toBe(false)
    expect(trace.warnings).toEqual([
      'ftrace data of CPU 3 before 1000 ns was overwritten (ring buffer): its schedule is known only from its first switch on',
    ])
  })
})

describe('independently encoded bundles (upstream field numbers)', () => {
  const bytes = upstreamTrace([
    {
      trusted_packet_sequence_id: 3,
      ftrace_events: {
        cpu: 4,
        previous_bundle_end_timestamp: 0,
        compact_sched: {
          intern_table: ['swapper/4', 'RenderThread', 'main'],
          switch_timestamp: [1_000_000, 500_000, 250_000, 1_250_000],
          switch_prev_state: [0, 1, 1, 0],
          switch_next_pid: [4242, 4250, 0, 4242],
          switch_next_prio: [110, 116, 120, 110],
          switch_next_comm_index: [2, 1, 0, 2],
        },
      },
    },
    {
      trusted_packet_sequence_id: 3,
      ftrace_events: {
        cpu: 0,
        lost_events: true,
        event: [
          {
            timestamp: 2_000_000,
            pid: 0,
            sched_switch: {
              prev_comm: 'swapper/0',
              prev_pid: 0,
              prev_state: 0,
              next_comm: 'pool-1-thread-1',
              next_pid: 4300,
              next_prio: 120,
            },
          },
          {
            timestamp: 2_600_000,
            pid: 4300,
            sched_switch: {
              prev_comm: 'pool-1-thread-1',
              prev_pid: 4300,
              prev_state: 1,
              next_comm: 'swapper/0',
              next_pid: 0,
              next_prio: 120,
            },
          },
        ],
      },
    },
    // The service's closing clock snapshot: the trace's last boottime instant.
    {
      trusted_packet_sequence_id: 1,
      clock_snapshot: { clocks: [{ clock_id: 6, timestamp: 4_000_000 }] },
    },
  ])

  test('compact and plain bundles decode to slices; the open slice ends at the last timestamp', () => {
    const trace = decodePowerTrace(bytes)
    expect(trace.schedule).toEqual({
      source: 'perfetto.sched_switch',
      clock: 'boottime',
      slices: [
        slice(0, 4300, 'pool-1-thread-1', 2_000_000, 2_600_000),
        slice(4, 4242, 'main', 1_000_000, 1_500_000),
        slice(4, 4250, 'RenderThread', 1_500_000, 1_750_000),
        slice(4, 4242, 'main', 3_000_000, 4_000_000),
      ],
      cpus: [0, 4],
      lostEvents: true,
    })
    expect(trace.warnings).toEqual([
      'the kernel lost ftrace events on CPU 0 (lost_events): scheduler slices there may be missing or too long',
    ])
    expect(trace.packetKinds).toEqual({ ftrace_events: 2, clock_snapshot: 1 })
  })

  test("the encoder's output reads back with the upstream schema as perfetto writes it", () => {
    const schedule: PowerTraceSchedule = {
      slices: [
        slice(2, 11, 'A', 100, 200),
        slice(2, 12, 'B', 200, 300),
        slice(2, 11, 'A', 500, 600),
        slice(2, 11, 'A', 600, 700), // adjacent, same thread: one stretch, no switch
      ],
      cpus: [0, 2],
      endNs: 1000,
    }
    const compact = upstreamDecode(encodePowerTrace({ schedule, sequenceId: 7 })).packet
    const bundles = compact.filter((p) => p.ftrace_events !== undefined)
    expect(bundles.map((p) => p.trusted_packet_sequence_id)).toEqual([8, 8])
    expect(bundles[0]?.ftrace_events).toEqual({ cpu: 0, previous_bundle_end_timestamp: 0 })
    expect(bundles[1]?.ftrace_events).toEqual({
      cpu: 2,
      previous_bundle_end_timestamp: 0,
      compact_sched: {
        intern_table: ['A', 'B', 'swapper/2'],
        // 100 absolute, then 200 (B), 300 (idle), 500 (A), 700 (idle) as deltas
        switch_timestamp: [100, 100, 100, 200, 200],
        switch_prev_state: [0, 1, 1, 0, 1],
        switch_next_pid: [11, 12, 0, 11, 0],
        switch_next_prio: [120, 120, 120, 120, 120],
        switch_next_comm_index: [0, 1, 2, 0, 2],
      },
    })
    expect(compact.at(-1)).toMatchObject({
      timestamp: 1000,
      clock_snapshot: { clocks: [{ clock_id: 6, timestamp: 1000 }] },
    })
    const plain = upstreamDecode(encodePowerTrace({ schedule: { ...schedule, compact: false } }))
    const events = plain.packet.find((p) => p.ftrace_events?.cpu === 2)?.ftrace_events?.event
    expect(events?.[1]).toEqual({
      timestamp: 200,
      pid: 11,
      sched_switch: {
        prev_comm: 'A',
        prev_pid: 11,
        prev_prio: 120,
        prev_state: 1,
        next_comm: 'B',
        next_pid: 12,
        next_prio: 120,
      },
    })
    expect(events).toHaveLength(5)
  })

  test('a thread still running at the end gets no switch there (open, as in a real trace)', () => {
    const schedule: PowerTraceSchedule = { slices: [slice(1, 9, 'x', 10, 50)], endNs: 50 }
    const packets = upstreamDecode(encodePowerTrace({ schedule })).packet
    const bundle = packets.find((p) => p.ftrace_events !== undefined)?.ftrace_events
    expect(bundle?.compact_sched?.switch_next_pid).toEqual([9])
    expect(decodePowerTrace(encodePowerTrace({ schedule })).schedule?.slices).toEqual(
      schedule.slices,
    )
  })
})

test('power/cpu_frequency events: written per CPU in plain events (upstream field numbers) beside compact switches, read back', () => {
  const frequencies = [
    { cpu: 2, tNs: 150, khz: 574_000 },
    { cpu: 0, tNs: 400, khz: 300_000 },
    { cpu: 2, tNs: 450, khz: 1_098_000 },
  ]
  const schedule: PowerTraceSchedule = {
    slices: [slice(2, 11, 'A', 100, 200), slice(2, 12, 'B', 300, 500)],
    cpus: [0, 2],
    endNs: 1000,
    frequencies,
  }
  for (const compact of [true, false]) {
    const bytes = encodePowerTrace({ schedule: { ...schedule, compact } })
    const bundle = upstreamDecode(bytes).packet.find((p) => p.ftrace_events?.cpu === 2)
    const events = bundle?.ftrace_events?.event ?? []
    const freq = events.filter((e) => e.cpu_frequency !== undefined)
    expect(freq).toEqual([
      { timestamp: 150, pid: 0, cpu_frequency: { state: 574_000, cpu_id: 2 } },
      { timestamp: 450, pid: 0, cpu_frequency: { state: 1_098_000, cpu_id: 2 } },
    ])
    // In time order with the switches when those are plain events too.
    const times = events.map((e) => e.timestamp)
    expect(times).toEqual([...times].sort((a, b) => Number(a) - Number(b)))
    const decoded = decodePowerTrace(bytes).schedule
    expect(decoded?.frequencies).toEqual([...frequencies].sort((a, b) => a.tNs - b.tNs))
    expect(decoded?.slices).toEqual(schedule.slices)
  }
})

describe('power/cpu_idle events (FtraceEvent.cpu_idle = 13, CpuIdleFtraceEvent { state = 1, cpu_id = 2 })', () => {
  const idle = (cpu: number, tNs: number, state: number): CpuIdleChange => ({ cpu, tNs, state })

  test('decoded as a real bundle has them: leaving idle (4294967295, PWR_EVENT_EXIT) just before the switch from swapper; entering a state after the switch to it', () => {
    // The shape of a real Android bundle (as quoted in google/perfetto's trace_redaction tests):
    // the CPU leaves idle, then switches from swapper/N to a thread microseconds later.
    const bytes = upstreamTrace([
      {
        trusted_packet_sequence_id: 4,
        ftrace_events: {
          cpu: 1,
          event: [
            { timestamp: 5_000_000, pid: 0, cpu_idle: { state: 4294967295, cpu_id: 1 } },
            {
              timestamp: 5_006_400,
              pid: 0,
              sched_switch: {
                prev_comm: 'swapper/1',
                prev_pid: 0,
                next_comm: 'writer',
                next_pid: 730,
              },
            },
            {
              timestamp: 5_900_000,
              pid: 730,
              sched_switch: {
                prev_comm: 'writer',
                prev_pid: 730,
                next_comm: 'swapper/1',
                next_pid: 0,
              },
            },
            { timestamp: 5_900_020, pid: 0, cpu_idle: { state: 1, cpu_id: 1 } },
            // cpu_id is the event's own field; the bundle's CPU only when it is missing.
            { timestamp: 5_950_000, pid: 0, cpu_idle: { state: 0 } },
          ],
        },
      },
      { clock_snapshot: { clocks: [{ clock_id: 6, timestamp: 6_000_000 }] } },
    ])
    const schedule = decodePowerTrace(bytes).schedule
    expect(schedule?.slices).toEqual([slice(1, 730, 'writer', 5_006_400, 5_900_000)])
    expect(schedule?.idle).toEqual([
      idle(1, 5_000_000, -1),
      idle(1, 5_900_020, 1),
      idle(1, 5_950_000, 0),
    ])
    expect(schedule?.frequencies).toBeUndefined()
  })

  test('absent when the trace has no cpu_idle events', () => {
    const schedule = decodePowerTrace(
      encodePowerTrace({ schedule: { slices: [slice(0, 1, 'a', 10, 20)], endNs: 30 } }),
    ).schedule
    expect(schedule).toBeDefined()
    expect(schedule && 'idle' in schedule).toBe(false)
  })

  test('written into each CPU’s bundle with the upstream field numbers, in either encoding; at one instant an exit precedes the switch and an entry follows it', () => {
    const changes = [
      idle(2, 50, 0),
      idle(2, 100, -1),
      idle(0, 120, 1),
      idle(2, 200, 1),
      idle(2, 300, -1),
      idle(2, 500, 0),
    ]
    const schedule: PowerTraceSchedule = {
      slices: [slice(2, 11, 'A', 100, 200), slice(2, 12, 'B', 300, 500)],
      cpus: [0, 2],
      endNs: 1000,
      idle: changes,
      frequencies: [{ cpu: 2, tNs: 300, khz: 574_000 }],
    }
    for (const compact of [true, false]) {
      const bytes = encodePowerTrace({ schedule: { ...schedule, compact } })
      const bundle = upstreamDecode(bytes).packet.find((p) => p.ftrace_events?.cpu === 2)
      const events = bundle?.ftrace_events?.event ?? []
      expect(events.filter((e) => e.cpu_idle !== undefined)).toEqual([
        { timestamp: 50, pid: 0, cpu_idle: { state: 0, cpu_id: 2 } },
        { timestamp: 100, pid: 0, cpu_idle: { state: 4294967295, cpu_id: 2 } },
        { timestamp: 200, pid: 0, cpu_idle: { state: 1, cpu_id: 2 } },
        { timestamp: 300, pid: 0, cpu_idle: { state: 4294967295, cpu_id: 2 } },
        { timestamp: 500, pid: 0, cpu_idle: { state: 0, cpu_id: 2 } },
      ])
      const kinds = events.map(
        (e) =>
          `${e.timestamp}:${e.cpu_idle !== undefined ? 'idle' : e.sched_switch !== undefined ? 'switch' : 'freq'}`,
      )
      expect(kinds, `compact ${compact}`).toEqual(
        compact
          ? ['50:idle', '100:idle', '200:idle', '300:idle', '300:freq', '500:idle']
          : [
              '50:idle',
              '100:idle',
              '100:switch',
              '200:switch',
              '200:idle',
              '300:idle',
              '300:switch',
              '300:freq',
              '500:switch',
              '500:idle',
            ],
      )
      const decoded = decodePowerTrace(bytes).schedule
      expect(decoded?.idle).toEqual([...changes].sort((a, b) => a.tNs - b.tNs || a.cpu - b.cpu))
      expect(decoded?.slices).toEqual(schedule.slices)
      // A decoded schedule re-encodes to the same events.
      expect(
        decodePowerTrace(encodePowerTrace({ schedule: { ...decoded!, compact } })).schedule,
      ).toEqual(decoded)
    }
  })

  test.each<[string, CpuIdleChange]>([
    ['a state below -1', idle(0, 10, -2)],
    ['a fractional state', idle(0, 10, 0.5)],
    ['PWR_EVENT_EXIT as a state (write -1)', idle(0, 10, 4294967295)],
    ['fractional ns', idle(0, 10.5, 0)],
    ['a negative time', idle(0, -1, 0)],
    ['a CPU that is not a CPU number', idle(-1, 10, 0)],
  ])('the encoder refuses %s', (_name, change) => {
    expectEnergyError(
      () => encodePowerTrace({ schedule: { slices: [], cpus: [0], idle: [change] } }),
      PerfettoErrors.ENCODE_INPUT,
    )
  })

  test('property: random idle transitions come back exactly, either encoding', () => {
    const arb = fc.record({
      perCpu: fc.array(
        fc.array(fc.tuple(fc.nat({ max: 5000 }), fc.integer({ min: -1, max: 3 })), {
          maxLength: 10,
        }),
        { minLength: 1, maxLength: 4 },
      ),
      compact: fc.boolean(),
    })
    fc.assert(
      fc.property(arb, ({ perCpu, compact }) => {
        const changes: CpuIdleChange[] = []
        perCpu.forEach((steps, cpu) => {
          let t = 0
          for (const [dt, state] of steps) {
            t += dt
            changes.push(idle(cpu, t, state))
          }
        })
        const decoded = decodePowerTrace(
          encodePowerTrace({
            schedule: { slices: [], cpus: perCpu.map((_s, cpu) => cpu), idle: changes, compact },
            clockSnapshot: { boottime: 0 },
          }),
        ).schedule
        // Two transitions of one CPU at the same nanosecond have no order a trace can tell (fast-check
        // found one): compared in a canonical order, every transition must come back exactly.
        const canonical = (list: readonly CpuIdleChange[]): CpuIdleChange[] =>
          [...list].sort((a, b) => a.tNs - b.tNs || a.cpu - b.cpu || a.state - b.state)
        const expected = canonical(changes)
        // Without sched_switch data and without a config asking for it there is no schedule.
        expect(decoded).toBeUndefined()
        const config = parsePerfettoTextConfig(
          'data_sources { config { name: "linux.ftrace" ftrace_config { ftrace_events: "sched/sched_switch" ftrace_events: "power/cpu_idle" } } }',
        )
        const asked = decodePowerTrace(
          encodePowerTrace({
            config,
            schedule: { slices: [], cpus: perCpu.map((_s, cpu) => cpu), idle: changes, compact },
            clockSnapshot: { boottime: 0 },
          }),
        ).schedule
        expect(canonical(asked?.idle ?? [])).toEqual(expected)
      }),
      { numRuns: 150 },
    )
  })

  test('decoding is linear in the number of cpu_idle events', () => {
    expectLinear(
      (n) =>
        encodePowerTrace({
          schedule: {
            slices: [slice(0, 1, 'a', 0, 1)],
            idle: Array.from({ length: n }, (_x, i) => idle(i % 8, 10 + i, i % 2 === 0 ? 0 : -1)),
            cpus: [0, 1, 2, 3, 4, 5, 6, 7],
          },
        }),
      (bytes) => decodePowerTrace(bytes),
      4000,
    )
  })
})

describe('the trace config decides whether an empty schedule is reported', () => {
  const config = parsePerfettoTextConfig(
    'data_sources { config { name: "linux.ftrace" ftrace_config { ftrace_events: "sched/sched_switch" } } }',
  )

  test('a session that asked for sched_switch on CPUs that stayed idle has an empty schedule', () => {
    const trace = decodePowerTrace(
      encodePowerTrace({ config, schedule: { slices: [], cpus: [0, 1, 2, 3] } }),
    )
    expect(trace.schedule).toEqual({
      source: 'perfetto.sched_switch',
      clock: 'boottime',
      slices: [],
      cpus: [0, 1, 2, 3],
      lostEvents: false,
    })
    expect(trace.configuredDataSources).toEqual(['linux.ftrace'])
  })

  test('without the request and without events there is no schedule', () => {
    expect(
      decodePowerTrace(encodePowerTrace({ schedule: { slices: [], cpus: [0] } })).schedule,
    ).toBeUndefined()
    expect(decodePowerTrace(encodePowerTrace({})).schedule).toBeUndefined()
  })
})

test('a bundle may hold both encodings: their switches merge in time order', () => {
  const bytes = upstreamTrace([
    {
      ftrace_events: {
        cpu: 1,
        compact_sched: {
          intern_table: ['a', 'c'],
          switch_timestamp: [10, 20],
          switch_prev_state: [0, 0],
          switch_next_pid: [1, 3],
          switch_next_prio: [120, 120],
          switch_next_comm_index: [0, 1],
        },
        event: [{ timestamp: 20, pid: 1, sched_switch: { next_comm: 'b', next_pid: 2 } }],
      },
    },
    { clock_snapshot: { clocks: [{ clock_id: 6, timestamp: 40 }] } },
  ])
  expect(decodePowerTrace(bytes).schedule?.slices).toEqual([
    slice(1, 1, 'a', 10, 20),
    slice(1, 2, 'b', 20, 30),
    slice(1, 3, 'c', 30, 40),
  ])
})

describe('ftrace clocks other than boot', () => {
  const bundle = (extra: Record<string, unknown>): Record<string, unknown> => ({
    ftrace_events: {
      cpu: 0,
      ...extra,
      event: [{ timestamp: 1000, pid: 0, sched_switch: { next_comm: 'w', next_pid: 5 } }],
    },
    trusted_packet_sequence_id: 3,
  })

  test("MONO_RAW with the bundle's (ftrace, boot) pair is shifted onto boottime, with a warning", () => {
    const trace = decodePowerTrace(
      upstreamTrace([
        bundle({ ftrace_clock: 4, ftrace_timestamp: 5000, boot_timestamp: 905_000 }),
        { clock_snapshot: { clocks: [{ clock_id: 6, timestamp: 950_000 }] } },
      ]),
    )
    expect(trace.schedule?.slices).toEqual([slice(0, 5, 'w', 901_000, 950_000)])
    expect(trace.warnings).toEqual([
      "sched_switch times on ftrace clock MONO_RAW were mapped to boottime with each bundle's (ftrace_timestamp, boot_timestamp) pair (best effort)",
    ])
  })

  test('a later bundle without a pair reuses the last pair of its sequence', () => {
    const trace = decodePowerTrace(
      upstreamTrace([
        bundle({ ftrace_clock: 3, ftrace_timestamp: 0, boot_timestamp: 100 }),
        {
          trusted_packet_sequence_id: 3,
          ftrace_events: {
            cpu: 0,
            ftrace_clock: 3,
            event: [
              { timestamp: 2000, pid: 5, sched_switch: { next_comm: 'swapper/0', next_pid: 0 } },
            ],
          },
        },
      ]),
    )
    expect(trace.schedule?.slices).toEqual([slice(0, 5, 'w', 1100, 2100)])
  })

  test('without any pair the clock cannot be mapped', () => {
    const error = expectEnergyError(
      () => decodePowerTrace(upstreamTrace([bundle({ ftrace_clock: 2 })])),
      PerfettoErrors.UNSUPPORTED_CLOCK,
    )
    expect(error.message).toContain('GLOBAL')
  })
})

describe('loss', () => {
  test('previous_packet_dropped after the first packet of the ftrace sequence means lost events', () => {
    const sw = (t: number, pid: number) => ({
      timestamp: t,
      pid: 0,
      sched_switch: { next_comm: 'x', next_pid: pid },
    })
    const trace = decodePowerTrace(
      upstreamTrace([
        {
          trusted_packet_sequence_id: 5,
          previous_packet_dropped: 1,
          ftrace_events: { cpu: 0, event: [sw(1, 7)] },
        },
        {
          trusted_packet_sequence_id: 5,
          previous_packet_dropped: 1,
          ftrace_events: { cpu: 0, event: [sw(9, 0)] },
        },
      ]),
    )
    expect(trace.schedule?.lostEvents).toBe(true)
    expect(trace.warnings).toEqual([
      'packets were lost on the ftrace sequence 5 (previous_packet_dropped): scheduler slices may be missing or too long',
    ])
    expect(trace.schedule?.slices).toEqual([slice(0, 7, 'x', 1, 9)])
  })
})

describe('negative inputs', () => {
  const compact = (fields: Record<string, unknown>): Uint8Array =>
    upstreamTrace([
      {
        ftrace_events: {
          cpu: 0,
          compact_sched: {
            intern_table: ['a'],
            switch_timestamp: [10, 5],
            switch_prev_state: [0, 0],
            switch_next_pid: [1, 2],
            switch_next_prio: [120, 120],
            switch_next_comm_index: [0, 0],
            ...fields,
          },
        },
      },
    ])
  const plain = (
    cpu: number | undefined,
    times: Array<number | undefined>,
  ): Record<string, unknown> => ({
    ftrace_events: {
      ...(cpu === undefined ? {} : { cpu }),
      event: times.map((t, i) => ({
        ...(t === undefined ? {} : { timestamp: t }),
        pid: 0,
        sched_switch: { next_comm: 'x', next_pid: i + 1 },
      })),
    },
  })

  test('the well-formed base case decodes', () => {
    expect(decodePowerTrace(compact({})).schedule?.slices).toEqual([slice(0, 1, 'a', 10, 15)])
  })

  test.each([
    [
      'a negative compact delta (uint64 wrap-around)',
      compact({ switch_timestamp: ['10', '18446744073709551611'] }),
      'negative delta (-5 ns)',
    ],
    [
      'plain events out of order in a bundle',
      upstreamTrace([plain(0, [20, 10])]),
      'follows one at 20 ns',
    ],
    [
      'a bundle starting before the previous one of its CPU ends',
      upstreamTrace([plain(2, [20, 30]), plain(2, [25])]),
      'before the previous bundle',
    ],
  ])('%s → E_PERFETTO_SCHED_ORDER', (_name, bytes, mention) => {
    const error = expectEnergyError(() => decodePowerTrace(bytes), PerfettoErrors.SCHED_ORDER)
    expect(error.message).toContain(mention)
    expect(error.details.offset).toBeTypeOf('number')
  })

  test.each([
    ['compact arrays of different lengths', compact({ switch_next_pid: [1] }), 'differ in length'],
    [
      'a comm index outside the intern table',
      compact({ switch_next_comm_index: [0, 3] }),
      'comm #3',
    ],
    ['sched_switch data without a cpu', upstreamTrace([plain(undefined, [1])]), 'no `cpu`'],
    ['a sched_switch without a timestamp', upstreamTrace([plain(0, [undefined])]), 'no timestamp'],
    ['a CPU number beyond 1023', upstreamTrace([plain(5000, [1])]), 'CPU 5000'],
  ])('%s → E_PERFETTO_SCHED_CORRUPT', (_name, bytes, mention) => {
    const error = expectEnergyError(() => decodePowerTrace(bytes), PerfettoErrors.SCHED_CORRUPT)
    expect(error.message).toContain(mention)
  })

  test('an absolute switch time beyond 2^53 is refused, not rounded', () => {
    expectEnergyError(
      () => decodePowerTrace(compact({ switch_timestamp: ['9007199254740993', '1'] })),
      PerfettoErrors.UNSAFE_INTEGER,
    )
  })

  test.each<[string, PowerTraceSchedule]>([
    ['overlapping slices', { slices: [slice(0, 1, 'a', 0, 10), slice(0, 2, 'b', 5, 20)] }],
    ['tid 0 in a slice', { slices: [slice(0, 0, 'swapper/0', 0, 10)] }],
    ['a slice ending before it starts', { slices: [slice(0, 1, 'a', 10, 5)] }],
    ['fractional ns', { slices: [slice(0, 1, 'a', 0.5, 5)] }],
    ['a schedule on another clock', { slices: [], clock: 'monotonic' }],
    ['an end before the last slice ends', { slices: [slice(0, 1, 'a', 0, 10)], endNs: 5 }],
    ['a CPU that is not a CPU number', { slices: [], cpus: [-1] }],
  ])('the encoder refuses %s', (_name, schedule) => {
    expectEnergyError(() => encodePowerTrace({ schedule }), PerfettoErrors.ENCODE_INPUT)
  })

  test('property: random corruption of a scheduler trace decodes or throws an EnergyError', () => {
    const sample = encodePowerTrace({
      schedule: {
        slices: [slice(0, 1, 'a', 10, 20), slice(0, 2, 'b', 30, 45), slice(3, 1, 'a', 20, 60)],
        cpus: [0, 1, 2, 3],
      },
    })
    expectCorruptionDecodesOrThrowsEnergyError(sample)
  })
})

describe('property: encode → decode', () => {
  /** Per CPU, a run of (gap before, duration, tid) steps; no two slices of one CPU overlap. */
  const cpuRun = fc.array(
    fc.tuple(
      fc.nat({ max: 1000 }),
      fc.integer({ min: 1, max: 1000 }),
      fc.integer({ min: 1, max: 4 }),
    ),
    { maxLength: 12 },
  )
  const arb = fc.record({
    runs: fc.array(cpuRun, { minLength: 1, maxLength: 4 }),
    start: fc.nat({ max: 2 ** 40 }),
    tail: fc.nat({ max: 500 }),
    compact: fc.boolean(),
  })

  test('slices come back exactly (adjacent slices of one thread as one), in either encoding', () => {
    fc.assert(
      fc.property(arb, ({ runs, start, tail, compact }) => {
        const slices: CpuSlice[] = []
        const expected: CpuSlice[] = []
        runs.forEach((run, cpu) => {
          let t = start
          for (const [gap, dur, tid] of run) {
            const s = slice(cpu, tid, tid === 4 ? undefined : `t${tid}`, t + gap, t + gap + dur)
            slices.push(s)
            const last = expected.at(-1)
            if (
              last !== undefined &&
              last.cpu === cpu &&
              last.tid === tid &&
              last.endNs === s.startNs
            ) {
              expected[expected.length - 1] = { ...last, endNs: s.endNs }
            } else expected.push(s)
            t = s.endNs
          }
        })
        const endNs = Math.max(start, ...slices.map((s) => s.endNs)) + tail
        const trace = decodePowerTrace(
          encodePowerTrace({
            schedule: { slices, cpus: runs.map((_r, cpu) => cpu), compact, endNs },
            clockSnapshot: { boottime: start },
          }),
        )
        expect(trace.schedule?.slices ?? []).toEqual(expected)
        expect(trace.warnings).toEqual([])
      }),
      { numRuns: 200 },
    )
  })
})
