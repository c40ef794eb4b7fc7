/**
 * A small little-endian cursor over bytes, shared by the binary format parsers.
 *
 * Two modes, never a silent 0:
 * - batch (`u8()`, `u16le()`, …): reading past the end throws an `EnergyError` `E_FORMAT_TRUNCATED`
 *   with the format name, the byte offset and how many bytes were needed;
 * - streaming (`tryU8()`, …, `tryBytes()`): returns `undefined` meaning "need more input"; the
 *   cursor does not move, so the caller can retry once more bytes arrived.
 */
import { EnergyError } from '../model/index.js'

export const ByteErrors = {
  /** The input ended in the middle of a field. */
  TRUNCATED: 'E_FORMAT_TRUNCATED',
  /** A 64-bit field holds a value above Number.MAX_SAFE_INTEGER. */
  UNSAFE_INTEGER: 'E_FORMAT_UNSAFE_INTEGER',
} as const

export class ByteReader {
  private readonly view: DataView
  /** Current position, in bytes from the start of `bytes`. */
  offset: number

  /**
   * @param bytes the input
   * @param format format name used in error messages, e.g. `ART trace`
   * @param baseOffset added to offsets in error messages (position of `bytes[0]` in the whole file)
   */
  constructor(
    readonly bytes: Uint8Array,
    readonly format: string,
    readonly baseOffset = 0,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.offset = 0
  }

  /** Bytes left after the cursor. */
  get remaining(): number {
    return this.bytes.byteLength - this.offset
  }

  /** True if `n` more bytes are available. */
  has(n: number): boolean {
    return this.offset + n <= this.bytes.byteLength
  }

  private need(n: number): number {
    const at = this.offset
    if (at + n > this.bytes.byteLength) {
      throw new EnergyError({
        code: ByteErrors.TRUNCATED,
        message: `input ends after ${this.bytes.byteLength - at} of ${n} bytes needed`,
        hint: 'The file is truncated (interrupted pull or copy?). Capture or copy it again.',
        details: { format: this.format, offset: this.baseOffset + at, needed: n },
      })
    }
    this.offset = at + n
    return at
  }

  u8(): number {
    return this.view.getUint8(this.need(1))
  }
  u16le(): number {
    return this.view.getUint16(this.need(2), true)
  }
  u32le(): number {
    return this.view.getUint32(this.need(4), true)
  }
  /** Unsigned 64-bit; throws `E_FORMAT_UNSAFE_INTEGER` above 2^53 − 1 rather than lose precision. */
  u64le(): number {
    const at = this.need(8)
    return this.safe(this.view.getBigUint64(at, true), at)
  }
  /** A view (no copy) of the next `n` bytes. */
  bytesView(n: number): Uint8Array {
    const at = this.need(n)
    return this.bytes.subarray(at, at + n)
  }
  skip(n: number): void {
    this.need(n)
  }

  tryU8(): number | undefined {
    return this.has(1) ? this.u8() : undefined
  }
  tryU16le(): number | undefined {
    return this.has(2) ? this.u16le() : undefined
  }
  tryU32le(): number | undefined {
    return this.has(4) ? this.u32le() : undefined
  }
  tryU64le(): number | undefined {
    return this.has(8) ? this.u64le() : undefined
  }
  tryBytes(n: number): Uint8Array | undefined {
    return this.has(n) ? this.bytesView(n) : undefined
  }

  private safe(value: bigint, at: number): number {
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new EnergyError({
        code: ByteErrors.UNSAFE_INTEGER,
        message: `64-bit value ${value} does not fit a JavaScript number`,
        hint: 'The field is corrupt or the file is not in this format.',
        details: { format: this.format, offset: this.baseOffset + at },
      })
    }
    return Number(value)
  }
}

/** The chunks as one array (the chunk itself when there is one). */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0]
  let length = 0
  for (const c of chunks) length += c.length
  const out = new Uint8Array(length)
  let offset = 0
  for (const c of chunks) {
    out.set(c, offset)
    offset += c.length
  }
  return out
}
