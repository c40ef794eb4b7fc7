/** ART method traces (`.trace`, dmtrace): detect, parse, decode in chunks, summarize, write. */
export type { ArtCallTrace, ArtCallTraceOptions } from './calls.js'
export {
  ArtCallTraceBuilder,
  qualifiedMethodName,
  readArtCallTrace,
  readArtCallTraceChunks,
} from './calls.js'
export type { ArtRecordVisitor, ArtTraceDecoderOptions } from './decoder.js'
export { ArtTraceDecoder, forEachRecord } from './decoder.js'
export type { ArtTraceErrorCode } from './errors.js'
export { ArtTraceErrors } from './errors.js'
export type { ArtTraceKind } from './parse.js'
export { parseArtTrace, sniffArtTrace } from './parse.js'
export type { ArtMethodSummary, ArtSummaryOptions, ArtTraceSummary } from './summary.js'
export {
  ArtTraceSummarizer,
  selectThreads,
  summarizeArtTrace,
  summarizeArtTraceChunks,
} from './summary.js'
export type {
  ArtAction,
  ArtClock,
  ArtMethod,
  ArtThread,
  ArtTrace,
  ArtTraceInfo,
  ArtTraceLayout,
  ArtTraceRecord,
} from './types.js'
export type {
  ArtMethodInput,
  ArtTraceEncoderOptions,
  ArtTraceWriteHeader,
  ArtTraceWriteInput,
} from './writer.js'
export { ArtTraceEncoder, writeArtTrace } from './writer.js'
