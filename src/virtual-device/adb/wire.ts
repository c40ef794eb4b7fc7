/**
 * The ADB wire format, shared by the server and by tests that play the client: smart-socket
 * requests and replies (4 hex digits of length + payload; `OKAY` / `FAIL`) and sync-service frames
 * (4-byte id + little-endian u32). Reference: AOSP packages/modules/adb/SERVICES.TXT, SYNC.TXT,
 * and @devicefarmer/adbkit 3 `protocol.ts` (whose `encodeLength` this mirrors, lower-case like
 * adb's own `%04x`).
 */
import type { Socket } from 'node:net'

/** Largest `DATA` payload in the sync protocol (both directions). */
export const SYNC_DATA_MAX = 64 * 1024
/** Longest path a sync request may carry (adbd's limit). */
export const SYNC_PATH_MAX = 1024
/** Unread bytes a connection buffers before it stops reading its socket. */
export const READ_HIGH_WATER_MARK = 1024 * 1024

export type SyncId =
  'STAT' | 'LIST' | 'DENT' | 'RECV' | 'SEND' | 'DATA' | 'DONE' | 'OKAY' | 'FAIL' | 'QUIT'

/** `length` as 4 lower-case hex digits. */
export function encodeLength(length: number): string {
  return length.toString(16).padStart(4, '0')
}

/** A smart-socket request or value: hex length + payload. */
export function encodeData(payload: string | Uint8Array): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload)
  return Buffer.concat([Buffer.from(encodeLength(body.length), 'ascii'), body])
}

/** `OKAY`, optionally followed by a length-prefixed value. */
export function encodeOkay(value?: string | Uint8Array): Buffer {
  const okay = Buffer.from('OKAY', 'ascii')
  return value === undefined ? okay : Buffer.concat([okay, encodeData(value)])
}

/** `FAIL` + length-prefixed message. */
export function encodeFail(message: string): Buffer {
  return Buffer.concat([Buffer.from('FAIL', 'ascii'), encodeData(message)])
}

/** A sync frame header: id + little-endian u32. */
export function syncHeader(id: SyncId, value: number): Buffer {
  const b = Buffer.alloc(8)
  b.write(id, 0, 'ascii')
  b.writeUInt32LE(value >>> 0, 4)
  return b
}

/** A sync frame with a payload (`RECV path`, `FAIL message`, ...). */
export function syncFrame(id: SyncId, payload: string | Uint8Array): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload)
  return Buffer.concat([syncHeader(id, body.length), body])
}

/** `STAT` reply / `DENT` entry fields. */
export function syncStat(id: 'STAT', mode: number, size: number, mtimeS: number): Buffer {
  const b = Buffer.alloc(16)
  b.write(id, 0, 'ascii')
  b.writeUInt32LE(mode >>> 0, 4)
  b.writeUInt32LE(Math.min(size, 0xffffffff) >>> 0, 8)
  b.writeUInt32LE(Math.max(0, Math.floor(mtimeS)) >>> 0, 12)
  return b
}

export function syncDent(mode: number, size: number, mtimeS: number, name: string): Buffer {
  const nameBytes = Buffer.from(name, 'utf8')
  const b = Buffer.alloc(20)
  b.write('DENT', 0, 'ascii')
  b.writeUInt32LE(mode >>> 0, 4)
  b.writeUInt32LE(Math.min(size, 0xffffffff) >>> 0, 8)
  b.writeUInt32LE(Math.max(0, Math.floor(mtimeS)) >>> 0, 12)
  b.writeUInt32LE(nameBytes.length, 16)
  return Buffer.concat([b, nameBytes])
}

/** `DONE` closing a `LIST`: id + four zero u32s. */
export function syncListDone(): Buffer {
  const b = Buffer.alloc(20)
  b.write('DONE', 0, 'ascii')
  return b
}

/**
 * Pull-style reader over a socket: `read(n)` resolves with exactly `n` bytes, or `undefined` when
 * the peer closed first. Pauses the socket while more than `highWaterMark` bytes are unread, so
 * a client that sends faster than its service consumes (a flood of stdin, pushed data) costs at
 * most that plus one chunk; TCP then stops the client.
 */
export class SocketReader {
  private chunks: Buffer[] = []
  private buffered = 0
  private ended = false
  private discarding = false
  private waiter: { n: number; resolve: (b: Buffer | undefined) => void } | undefined

  constructor(
    private readonly socket: Socket,
    private readonly highWaterMark = READ_HIGH_WATER_MARK,
  ) {
    socket.on('data', (chunk: Buffer) => {
      if (this.discarding) return
      this.chunks.push(chunk)
      this.buffered += chunk.length
      if (this.buffered > this.highWaterMark) socket.pause()
      this.pump()
    })
    const end = (): void => {
      this.ended = true
      this.pump()
    }
    socket.on('end', end)
    socket.on('close', end)
  }

  /**
   * From now on drops what the peer sends (a service that never reads its client again), while
   * still reading the socket, so its close is noticed; a paused socket would not notice.
   */
  discard(): void {
    this.discarding = true
    this.chunks = []
    this.buffered = 0
    if (this.socket.isPaused()) this.socket.resume()
  }

  /** Bytes received but not read yet. */
  get pending(): number {
    return this.buffered
  }

  read(n: number): Promise<Buffer | undefined> {
    if (this.waiter !== undefined) return Promise.reject(new Error('concurrent read'))
    return new Promise((resolve) => {
      this.waiter = { n, resolve }
      this.pump()
    })
  }

  /** Whatever is buffered (at least one byte, at most `max`), or `undefined` once the peer closed. */
  readSome(max = Number.POSITIVE_INFINITY): Promise<Buffer | undefined> {
    return this.read(1).then((first) => {
      if (first === undefined) return undefined
      const more = Math.min(this.buffered, max - 1)
      const rest = more > 0 ? this.take(more) : undefined
      if (this.buffered <= this.highWaterMark && this.socket.isPaused()) this.socket.resume()
      return rest === undefined ? Buffer.from(first) : Buffer.concat([first, rest])
    })
  }

  private pump(): void {
    const w = this.waiter
    if (w === undefined) return
    if (this.buffered >= w.n) {
      this.waiter = undefined
      w.resolve(this.take(w.n))
      if (this.buffered <= this.highWaterMark && this.socket.isPaused()) this.socket.resume()
    } else if (this.ended) {
      this.waiter = undefined
      w.resolve(undefined)
    }
  }

  private take(n: number): Buffer {
    const first = this.chunks[0]
    if (first !== undefined && first.length >= n) {
      const out = first.subarray(0, n)
      if (first.length === n) this.chunks.shift()
      else this.chunks[0] = first.subarray(n)
      this.buffered -= n
      return out
    }
    const out = Buffer.allocUnsafe(n)
    let offset = 0
    while (offset < n) {
      const c = this.chunks[0]
      if (c === undefined) break
      const k = Math.min(c.length, n - offset)
      c.copy(out, offset, 0, k)
      offset += k
      if (k === c.length) this.chunks.shift()
      else this.chunks[0] = c.subarray(k)
    }
    this.buffered -= n
    return out
  }
}

/** Result of reading one smart-socket request. */
export type Request =
  | { readonly ok: true; readonly service: string }
  | { readonly ok: false; readonly reason: string }
  | undefined

/** Reads `XXXX<payload>`; `undefined` on EOF before any byte of a new request. */
export async function readRequest(reader: SocketReader): Promise<Request> {
  const head = await reader.read(4)
  if (head === undefined) return undefined
  const text = head.toString('latin1')
  if (!/^[0-9a-fA-F]{4}$/.test(text)) {
    return {
      ok: false,
      reason: `malformed length prefix ${JSON.stringify(text)}: expected 4 hex digits`,
    }
  }
  const length = Number.parseInt(text, 16)
  if (length === 0) return { ok: false, reason: 'empty request' }
  const body = await reader.read(length)
  if (body === undefined) return undefined
  return { ok: true, service: body.toString('utf8') }
}
