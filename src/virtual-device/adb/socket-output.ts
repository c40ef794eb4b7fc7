/**
 * A shell session's output to its client socket, paced by the client. Bytes written in one turn of
 * the event loop leave in one socket write (an interactive echo is not one write per typed byte,
 * a quick command's OKAY, output and FIN share a segment), and `ready()` resolves only once Node's
 * buffer for the socket has drained, so a client that does not read stalls the command writing to
 * it and nothing else, as a full socket buffer blocks adbd's write(2) on a phone.
 */
import type { Socket } from 'node:net'

const READY = Promise.resolve()

/** Counters shared by every output of one server (for `AdbServer.stats()`). */
export interface OutputCounters {
  /** Socket writes made so far. */
  writes: number
}

export class SocketOutput {
  private pending: Uint8Array[] = []
  private pendingBytes = 0
  private scheduled = false
  private drained: Promise<void> | undefined

  constructor(
    private readonly socket: Socket,
    private readonly counters: OutputCounters,
  ) {}

  /** Bytes queued for this turn's write (Node's socket buffer holds what was written before). */
  get queued(): number {
    return this.pendingBytes
  }

  /** Whether a command is waiting now for the client to read. */
  get stalled(): boolean {
    return this.drained !== undefined
  }

  /** Queues bytes for this turn's write; dropped once the client has gone. */
  write(chunk: string | Uint8Array): void {
    if (this.gone) return
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    if (bytes.length === 0) return
    this.pending.push(bytes)
    this.pendingBytes += bytes.length
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(() => this.flush())
    }
  }

  /** Writes what this turn queued, in one socket write. */
  flush(): void {
    this.scheduled = false
    if (this.pendingBytes === 0) return
    const data = Buffer.concat(this.pending, this.pendingBytes)
    this.pending = []
    this.pendingBytes = 0
    if (this.gone) return
    this.counters.writes++
    this.socket.write(data)
  }

  /** Resolves once the client has taken enough of what was written, or has gone. */
  ready(): Promise<void> {
    if (this.pendingBytes >= this.socket.writableHighWaterMark) this.flush()
    if (this.gone || !this.socket.writableNeedDrain) return READY
    this.drained ??= new Promise<void>((resolve) => {
      const done = (): void => {
        this.socket.off('drain', done)
        this.socket.off('close', done)
        this.drained = undefined
        resolve()
      }
      this.socket.on('drain', done)
      this.socket.on('close', done)
    })
    return this.drained
  }

  /** Writes what is queued, then half-closes the socket. */
  end(): void {
    this.flush()
    if (!this.socket.destroyed) this.socket.end()
  }

  private get gone(): boolean {
    return this.socket.destroyed || !this.socket.writable
  }
}
