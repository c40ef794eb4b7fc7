/**
 * The subset of Perfetto's trace protos this tool reads and writes, as protobufjs definitions.
 * Field numbers from google/perfetto (protos/perfetto/trace/trace_packet.proto @02603952,
 * power/power_rails.proto @515cd212, power/battery_counters.proto @7e831a6c,
 * clock_snapshot.proto @246b14de, config/trace_config.proto @010da55c,
 * config/power/android_power_config.proto @1bc7c76b; DataSourceConfig.android_power_config = 106).
 * Scheduler data: TracePacket.ftrace_events = 1 (trace_packet.proto @a8dd0bc7),
 * trace/ftrace/ftrace_event_bundle.proto @4958e3c3, trace/ftrace/ftrace_event.proto @0145ae5b
 * (FtraceEvent.sched_switch = 4, cpu_frequency = 11), trace/ftrace/sched.proto @6a5c9a49,
 * trace/ftrace/power.proto (CpuFrequencyFtraceEvent: state = 1 kHz, cpu_id = 2),
 * FtraceEvent.cpu_idle = 13 (ftrace_event.proto @038b48ca; 12 is cpu_frequency_limits) and
 * CpuIdleFtraceEvent { uint32 state = 1; uint32 cpu_id = 2 } (power.proto @34975507; the kernel's
 * include/trace/events/power.h `cpu_idle`, state 4294967295 = PWR_EVENT_EXIT),
 * config/ftrace/ftrace_config.proto @c65180f5, config/data_source_config.proto @adaf7a1d
 * (DataSourceConfig.ftrace_config = 100); only the fields this tool reads or writes.
 * Every other TracePacket member (and every other ftrace event) is unknown here and skipped.
 */
import protobuf from 'protobufjs'

const PROTO = `
syntax = "proto2";
package perfetto.protos;

message PowerRails {
  message RailDescriptor {
    optional uint32 index = 1;
    optional string rail_name = 2;
    optional string subsys_name = 3;
    optional uint32 sampling_rate = 4;
  }
  repeated RailDescriptor rail_descriptor = 1;
  message EnergyData {
    optional uint32 index = 1;
    optional uint64 timestamp_ms = 2;
    optional uint64 energy = 3;
  }
  repeated EnergyData energy_data = 2;
}

message BatteryCounters {
  optional int64 charge_counter_uah = 1;
  optional float capacity_percent = 2;
  optional int64 current_ua = 3;
  optional int64 current_avg_ua = 4;
  optional string name = 5;
  optional int64 energy_counter_uwh = 6;
  optional int64 voltage_uv = 7;
}

message ClockSnapshot {
  message Clock {
    optional uint32 clock_id = 1;
    optional uint64 timestamp = 2;
    optional bool is_incremental = 3;
    optional uint64 unit_multiplier_ns = 4;
  }
  repeated Clock clocks = 1;
  optional uint32 primary_trace_clock = 2;
}

message AndroidPowerConfig {
  enum BatteryCounters {
    BATTERY_COUNTER_UNSPECIFIED = 0;
    BATTERY_COUNTER_CHARGE = 1;
    BATTERY_COUNTER_CAPACITY_PERCENT = 2;
    BATTERY_COUNTER_CURRENT = 3;
    BATTERY_COUNTER_CURRENT_AVG = 4;
    BATTERY_COUNTER_VOLTAGE = 5;
  }
  optional uint32 battery_poll_ms = 1;
  repeated BatteryCounters battery_counters = 2;
  optional bool collect_power_rails = 3;
  optional bool collect_energy_estimation_breakdown = 4;
  optional bool collect_entity_state_residency = 5;
}

message FtraceConfig {
  repeated string ftrace_events = 1;
  repeated string atrace_categories = 2;
  optional uint32 buffer_size_kb = 10;
  message CompactSchedConfig {
    optional bool enabled = 1;
  }
  optional CompactSchedConfig compact_sched = 12;
}

message DataSourceConfig {
  optional string name = 1;
  optional uint32 target_buffer = 2;
  optional FtraceConfig ftrace_config = 100;
  optional AndroidPowerConfig android_power_config = 106;
}

message TraceConfig {
  message BufferConfig {
    optional uint32 size_kb = 1;
    enum FillPolicy {
      UNSPECIFIED = 0;
      RING_BUFFER = 1;
      DISCARD = 2;
    }
    optional FillPolicy fill_policy = 4;
  }
  repeated BufferConfig buffers = 1;
  message DataSource {
    optional DataSourceConfig config = 1;
  }
  repeated DataSource data_sources = 2;
  optional uint32 duration_ms = 3;
  optional bool write_into_file = 8;
  optional uint32 file_write_period_ms = 9;
  optional uint64 max_file_size_bytes = 10;
  optional uint32 flush_period_ms = 13;
}

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

enum FtraceClock {
  FTRACE_CLOCK_UNSPECIFIED = 0;
  FTRACE_CLOCK_UNKNOWN = 1;
  FTRACE_CLOCK_GLOBAL = 2;
  FTRACE_CLOCK_LOCAL = 3;
  FTRACE_CLOCK_MONO_RAW = 4;
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
  optional FtraceClock ftrace_clock = 5;
  optional int64 ftrace_timestamp = 6;
  optional int64 boot_timestamp = 7;
  optional uint64 last_read_event_timestamp = 9;
  optional uint64 previous_bundle_end_timestamp = 10;
}

message TracePacketDefaults {
  optional uint32 timestamp_clock_id = 58;
}

message TracePacket {
  optional FtraceEventBundle ftrace_events = 1;
  optional uint64 timestamp = 8;
  optional uint32 timestamp_clock_id = 58;
  optional int32 trusted_uid = 3;
  optional uint32 trusted_packet_sequence_id = 10;
  optional int32 trusted_pid = 79;
  optional uint32 sequence_flags = 13;
  optional uint32 previous_packet_dropped = 42;
  optional bool first_packet_on_sequence = 87;
  optional TracePacketDefaults trace_packet_defaults = 59;
  optional ClockSnapshot clock_snapshot = 6;
  optional TraceConfig trace_config = 33;
  optional BatteryCounters battery = 38;
  optional PowerRails power_rails = 40;
  optional bytes compressed_packets = 50;
}

message Trace {
  repeated TracePacket packet = 1;
}
`

const root = protobuf.parse(PROTO, { keepCase: true }).root

export const TracePacketType: protobuf.Type = root.lookupType('perfetto.protos.TracePacket')
export const TraceType: protobuf.Type = root.lookupType('perfetto.protos.Trace')
export const TraceConfigType: protobuf.Type = root.lookupType('perfetto.protos.TraceConfig')

/** protobufjs' reader, for walking the top-level `Trace` packet by packet (offsets for errors). */
export const Reader = protobuf.Reader
