export type {
  AndroidPowerConfig,
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
  traceConfigToTextProto,
} from './config.js'
export { PerfettoErrors } from './errors.js'
export type { PowerTraceInput, PowerTraceRail } from './trace.js'
export { decodePowerTrace, encodePowerTrace, encodeTraceConfig, isPerfettoTrace } from './trace.js'
export type {
  BatteryCounterReading,
  BatteryCounterSeries,
  PerfettoClockReading,
  PerfettoPowerTrace,
  PerfettoRailDescriptor,
} from './types.js'
