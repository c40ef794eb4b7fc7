/**
 * Message definitions of `simpleperf report-sample --protobuf`, written from AOSP
 * platform/system/extras simpleperf/cmd_report_sample.proto (field numbers as in
 * github.com/jbeich/platform_system_extras@6c10ab498f42eb7fa13acf3c173f8c2a62891d3d; MetaInfo
 * fields 3-6 and Record.context_switch = 6 from current AOSP, checked against the real
 * display_bitmaps capture whose MetaInfo carries field 6 = trace_offcpu).
 */
import protobuf from 'protobufjs'

const PROTO = `
syntax = "proto2";
package simpleperf_report_proto;

message Sample {
  optional uint64 time = 1;
  optional int32 thread_id = 2;
  message CallChainEntry {
    optional uint64 vaddr_in_file = 1;
    optional uint32 file_id = 2;
    optional int32 symbol_id = 3;
    enum ExecutionType {
      NATIVE_METHOD = 0;
      INTERPRETED_JVM_METHOD = 1;
      JIT_JVM_METHOD = 2;
      ART_METHOD = 3;
    }
    optional ExecutionType execution_type = 4 [default = NATIVE_METHOD];
  }
  repeated CallChainEntry callchain = 3;
  optional uint64 event_count = 4;
  optional uint32 event_type_id = 5;
  message UnwindingResult {
    optional uint32 raw_error_code = 1;
    optional uint64 error_addr = 2;
    enum ErrorCode {
      ERROR_NONE = 0;
      ERROR_UNKNOWN = 1;
      ERROR_NOT_ENOUGH_STACK = 2;
      ERROR_MEMORY_INVALID = 3;
      ERROR_UNWIND_INFO = 4;
      ERROR_INVALID_MAP = 5;
      ERROR_MAX_FRAME_EXCEEDED = 6;
      ERROR_REPEATED_FRAME = 7;
      ERROR_INVALID_ELF = 8;
    }
    optional ErrorCode error_code = 3;
  }
  optional UnwindingResult unwinding_result = 6;
}

message LostSituation {
  optional uint64 sample_count = 1;
  optional uint64 lost_count = 2;
}

message File {
  optional uint32 id = 1;
  optional string path = 2;
  repeated string symbol = 3;
  repeated string mangled_symbol = 4;
}

message Thread {
  optional uint32 thread_id = 1;
  optional uint32 process_id = 2;
  optional string thread_name = 3;
}

message MetaInfo {
  repeated string event_type = 1;
  optional string app_package_name = 2;
  optional string app_type = 3;
  optional string android_sdk_version = 4;
  optional string android_build_type = 5;
  optional bool trace_offcpu = 6;
}

message ContextSwitch {
  optional bool switch_on = 1;
  optional uint64 time = 2;
  optional uint32 thread_id = 3;
}

message Record {
  oneof record_data {
    Sample sample = 1;
    LostSituation lost = 2;
    File file = 3;
    Thread thread = 4;
    MetaInfo meta_info = 5;
    ContextSwitch context_switch = 6;
  }
}
`

const root = protobuf.parse(PROTO, { keepCase: true }).root

/** The `Record` message type (everything else is reachable from it). */
export const RecordType: protobuf.Type = root.lookupType('simpleperf_report_proto.Record')
