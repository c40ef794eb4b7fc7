export { SimpleperfErrors } from './errors.js'
export type { SimpleperfClockId, StackSampleSetOptions } from './model.js'
export { toStackSampleSet } from './model.js'
export type { EncodeReportSampleProtobufOptions } from './report-sample-proto.js'
export {
  encodeReportSampleProtobuf,
  isReportSampleProtobuf,
  parseReportSampleProtobuf,
} from './report-sample-proto.js'
export type { SimpleperfTextRecord } from './report-sample-text.js'
export {
  ReportSampleTextDecoder,
  parseReportSampleText,
  parseReportSampleTextRecords,
} from './report-sample-text.js'
export type { FormatReportSampleTextOptions } from './report-sample-text-writer.js'
export { formatReportSampleText } from './report-sample-text-writer.js'
export type { SimpleperfSniff } from './sniff.js'
export { parseSimpleperf, sniffSimpleperf } from './sniff.js'
export { isNativeFile, javaMethodName, normalizeFrameName } from './symbols.js'
export type {
  SimpleperfContextSwitch,
  SimpleperfExecutionType,
  SimpleperfFrame,
  SimpleperfLostSituation,
  SimpleperfMetaInfo,
  SimpleperfReport,
  SimpleperfSample,
  SimpleperfThread,
} from './types.js'
