export type {
  AndroidPowerConfig,
  FtraceConfig,
  PerfettoBufferConfig,
  PerfettoDataSource,
  PerfettoTraceConfig,
  TextProtoField,
  TextProtoMessage,
  TextProtoScalar,
} from './config.js'
export {
  formatPerfettoTextConfig,
  formatTextProto,
  parsePerfettoTextConfig,
  parseTextProto,
  requestsSchedSwitch,
  traceConfigToTextProto,
} from './config.js'
export { PerfettoErrors } from './errors.js'
export type { PowerTraceSchedule } from './sched.js'
export type { DecodePowerTraceOptions, PowerTraceInput, PowerTraceRail } from './trace.js'
export {
  decodePowerTrace,
  encodePowerTrace,
  encodeTraceConfig,
  isPerfettoTrace,
  PowerTraceDecoder,
} from './trace.js'
export type {
  BatteryCounterReading,
  BatteryCounterSeries,
  PerfettoClockReading,
  PerfettoPowerTrace,
  PerfettoRailDescriptor,
} from './types.js'
