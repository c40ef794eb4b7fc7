/** Batch entry points: detection and whole-file parsing, on the streaming decoder. */
import { ArtTraceDecoder, ART_TRACE_MAGIC, STREAMING_VERSION_MASK } from './decoder.js'
import type { ArtAction, ArtTrace, ArtTraceRecord } from './types.js'

/** What `sniffArtTrace` recognised. `v2` = the newer format (versions 4/5), which is rejected. */
export type ArtTraceKind = 'streaming' | 'legacy' | 'v2'

/**
 * Recognises an ART method trace from its first bytes, without a file name. Needs 8 bytes for
 * a text key section, 6 for a streaming header; `null` means "not an ART trace (or too short)".
 */
export function sniffArtTrace(bytes: Uint8Array): ArtTraceKind | null {
  if (bytes.byteLength >= 8 && ascii(bytes, 0, 8) === '*version') {
    const nl = bytes.indexOf(0x0a, 9)
    const versionLine = ascii(bytes, 9, nl < 0 ? Math.min(bytes.byteLength, 20) : nl).trim()
    return versionLine === '4' || versionLine === '5' ? 'v2' : 'legacy'
  }
  if (bytes.byteLength >= 6) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    if (view.getUint32(0, true) !== ART_TRACE_MAGIC) return null
    const version = view.getUint16(4, true)
    const low = version & ~STREAMING_VERSION_MASK
    if ((version & STREAMING_VERSION_MASK) === STREAMING_VERSION_MASK) {
      if (low === 2 || low === 3) return 'streaming'
      if (low === 4 || low === 5) return 'v2'
      return null
    }
    return version === 4 || version === 5 ? 'v2' : null
  }
  return null
}

const ACTIONS: readonly ArtAction[] = ['enter', 'exit', 'unwind']

/** Parses a whole trace held in memory. Throws `EnergyError` (codes in `ArtTraceErrors`). */
export function parseArtTrace(bytes: Uint8Array): ArtTrace {
  const records: ArtTraceRecord[] = []
  const decoder = new ArtTraceDecoder({
    onRecord(threadId, methodId, action, threadCpuUs, wallUs) {
      const name = ACTIONS[action] ?? 'exit'
      records.push(
        threadCpuUs < 0
          ? { threadId, methodId, action: name, wallUs }
          : wallUs < 0
            ? { threadId, methodId, action: name, threadCpuUs }
            : { threadId, methodId, action: name, threadCpuUs, wallUs },
      )
    },
  })
  decoder.push(bytes)
  const info = decoder.end()
  // Single-clock streaming traces name their clock only in the closing summary.
  if (decoder.recordClock !== undefined && decoder.recordClock !== info.clock) {
    const toCpu = info.clock === 'thread-cpu'
    // The records are fixed up here, so the decoder's note about them no longer applies.
    const warnings = info.warnings.filter((w) => !w.startsWith('records were decoded as clock'))
    return { ...info, warnings, records: records.map((r) => remap(r, toCpu)) }
  }
  return { ...info, records }
}

function remap(record: ArtTraceRecord, toCpu: boolean): ArtTraceRecord {
  // The first time field: records decoded as 'dual' hold it in the thread-cpu slot.
  const time = record.threadCpuUs ?? record.wallUs ?? 0
  const { threadId, methodId, action } = record
  return toCpu
    ? { threadId, methodId, action, threadCpuUs: time }
    : { threadId, methodId, action, wallUs: time }
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  let out = ''
  for (let i = start; i < end && i < bytes.byteLength; i++) {
    out += String.fromCharCode(bytes[i] ?? 0)
  }
  return out
}
