/**
 * Bounded byte streams between shell processes, as the kernel gives them: a pipe holds 64 KiB
 * (Linux's default, 16 pages), a writer waits for room once it is full, and a write after the
 * reader has gone fails the way EPIPE does (the writing stage is sent SIGPIPE). Commands that read
 * their stdin as it arrives are `streamingCommand`s; the rest get it as one buffer, collected up to
 * `STDIN_COLLECT_MAX`.
 */
import type { ShellCommand, ShellInvocation, ShellIo } from '../contract.js'
import { concatBytes } from '../../formats/_bytes.js'

/** Bytes a pipe holds before its writer waits (Linux's default pipe size). */
export const PIPE_CAPACITY = 64 * 1024
/**
 * Most stdin a command that takes it as one buffer (`perfetto -c -`, `sh` reading a script) or
 * a `$( )` substitution is given; past it the reader stops reading and its writer gets EPIPE.
 */
export const STDIN_COLLECT_MAX = 8 * 1024 * 1024

const EMPTY = new Uint8Array(0)

/** Where a command's output goes: a socket, a pipe, a file, nowhere. */
export interface ByteSink {
  /** Queues bytes; never waits. On a pipe whose reader is gone the writer gets SIGPIPE instead. */
  write(chunk: Uint8Array): void
  /** Resolves once the reader has room again (at once when it has, or when it is gone). */
  ready(): Promise<void>
}

/** Where a command's stdin comes from. */
export interface ByteSource {
  /** The next bytes, or `undefined` at the end of input (or once `signal` aborts). */
  read(signal?: AbortSignal): Promise<Uint8Array | undefined>
}

/** A `ShellIo` whose reader can push back, such as an ADB client socket. */
export interface PacedShellIo extends ShellIo {
  /** Resolves once the reader has taken enough of what was written (or has gone). */
  ready(): Promise<void>
}

const READY = Promise.resolve()

export const discardSink: ByteSink = { write: () => undefined, ready: () => READY }
export const emptySource: ByteSource = { read: () => Promise.resolve(undefined) }

/** A source that yields `bytes` once (a `<` redirect, a buffer handed to a command). */
export function bytesSource(bytes: Uint8Array): ByteSource {
  let done = bytes.length === 0
  return {
    read() {
      if (done) return Promise.resolve(undefined)
      done = true
      return Promise.resolve(bytes)
    },
  }
}

let pipeBytes = 0
let peakPipeBytes = 0

/**
 * Bytes held in pipes between shell processes in this process (every device), now and at most
 * since the last `resetPipeStats()`; for tests that check pipes stay bounded.
 */
export function pipeStats(): { readonly bytes: number; readonly peakBytes: number } {
  return { bytes: pipeBytes, peakBytes: peakPipeBytes }
}

export function resetPipeStats(): void {
  peakPipeBytes = pipeBytes
}

/** A pipe between two shell processes. */
export class Pipe {
  private chunks: Uint8Array[] = []
  private size = 0
  private writeClosed = false
  private readClosed = false
  private readers: (() => void)[] = []
  private wakeWriters: (() => void)[] = []

  constructor(private readonly capacity = PIPE_CAPACITY) {}

  /**
   * Queues `chunk` (whole, even past the capacity: it already exists in memory; the writer then
   * waits in `space()`). False when the read end is closed: the bytes are dropped (EPIPE).
   */
  write(chunk: Uint8Array): boolean {
    if (this.readClosed) return false
    if (chunk.length === 0 || this.writeClosed) return true
    this.chunks.push(chunk)
    this.size += chunk.length
    pipeBytes += chunk.length
    peakPipeBytes = Math.max(peakPipeBytes, pipeBytes)
    this.readers.shift()?.()
    return true
  }

  /** Resolves once the pipe is below its capacity or its reader has gone. */
  space(): Promise<void> {
    if (this.size < this.capacity || this.readClosed) return READY
    return new Promise((resolve) => this.wakeWriters.push(resolve))
  }

  /** Everything buffered (waiting for bytes when empty); `undefined` at EOF or once `signal` aborts. */
  async read(signal?: AbortSignal): Promise<Uint8Array | undefined> {
    while (this.size === 0) {
      if (this.writeClosed || this.readClosed || signal?.aborted === true) return undefined
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        }
        // A killed reader leaves the queue, so it never takes bytes meant for the next one.
        const onAbort = (): void => {
          this.readers = this.readers.filter((r) => r !== wake)
          resolve()
        }
        this.readers.push(wake)
        signal?.addEventListener('abort', onAbort, { once: true })
      })
    }
    const out = concatBytes(this.chunks)
    this.drop()
    return out
  }

  /** The writer is done: the reader sees EOF once it has read what is buffered. */
  closeWrite(): void {
    this.writeClosed = true
    this.wakeAllReaders()
  }

  /** The reader is done: buffered bytes are dropped and further writes fail. */
  closeRead(): void {
    this.readClosed = true
    this.drop()
    this.wakeAllReaders()
  }

  private wakeAllReaders(): void {
    const readers = this.readers
    this.readers = []
    for (const wake of readers) wake()
  }

  private drop(): void {
    pipeBytes -= this.size
    this.chunks = []
    this.size = 0
    const writers = this.wakeWriters
    this.wakeWriters = []
    for (const wake of writers) wake()
  }
}

/**
 * Resolves when `promise` settles or `signal` aborts, whichever comes first (a waiter that
 * outlives its command must not keep it alive).
 */
export function untilAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return READY
  return new Promise((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
    promise.then(done, done)
  })
}

/**
 * `use(signal)` with a signal that aborts (with its reason) when the first of `signals` does, and
 * is unlinked from them once `use` settles. Instead of `AbortSignal.any`, which on Node 20 leaves a
 * WeakRef in each long-lived source per call: a `while true` loop that starts a process per
 * iteration grew by ~100 bytes an iteration for as long as it ran.
 */
export async function withSignals<T>(
  signals: readonly AbortSignal[],
  use: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController()
  const links: [AbortSignal, () => void][] = []
  for (const source of signals) {
    if (source.aborted) {
      controller.abort(source.reason)
      break
    }
    const onAbort = (): void => controller.abort(source.reason)
    source.addEventListener('abort', onAbort, { once: true })
    links.push([source, onAbort])
  }
  try {
    return await use(controller.signal)
  } finally {
    for (const [source, onAbort] of links) source.removeEventListener('abort', onAbort)
  }
}

/** Reads `source` to its end or to `max` bytes, whichever comes first. */
export async function collect(
  source: ByteSource,
  max: number,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let size = 0
  while (size < max && !signal.aborted) {
    const chunk = await readOrAbort(source, signal)
    if (chunk === undefined) break
    const kept = chunk.length > max - size ? chunk.subarray(0, max - size) : chunk
    chunks.push(kept)
    size += kept.length
  }
  return concatBytes(chunks)
}

/** `source.read()`, or `undefined` once `signal` aborts. */
function readOrAbort(source: ByteSource, signal: AbortSignal): Promise<Uint8Array | undefined> {
  return signal.aborted ? Promise.resolve(undefined) : source.read(signal)
}

/** A command's `read`: a killed command's read fails rather than looking like EOF. */
async function commandRead(
  source: ByteSource,
  signal: AbortSignal,
): Promise<Uint8Array | undefined> {
  const chunk = await readOrAbort(source, signal)
  if (chunk === undefined && signal.aborted) throw new Error('read interrupted: killed')
  return chunk
}

/** A command that reads its stdin as it arrives and waits for room as it writes. */
export interface StreamingInvocation extends ShellInvocation {
  /** The next bytes of stdin as they arrive; `undefined` at its end; rejects once the command is killed. */
  read(): Promise<Uint8Array | undefined>
  /** Resolves once stdout and stderr have room again; loops that write as they read await it. */
  drained(): Promise<void>
}

export type StreamingCommand = (invocation: StreamingInvocation) => Promise<number> | number

const streamingBodies = new WeakMap<ShellCommand, StreamingCommand>()

/**
 * Registers a command that streams: the shell hands it its stdin as it arrives (`read`) instead
 * of collecting it first, so `producer | head -n 1` ends as soon as `head` has its line. Called
 * as a plain `ShellCommand`, it reads `stdin` as one chunk.
 */
export function streamingCommand(body: StreamingCommand): ShellCommand {
  const command: ShellCommand = (invocation) => {
    const source = bytesSource(invocation.stdin)
    return body({
      ...invocation,
      read: () => commandRead(source, invocation.signal),
      drained: () => READY,
    })
  }
  streamingBodies.set(command, body)
  return command
}

/** The streaming body of `command`, or `undefined` for a command that takes stdin as one buffer. */
export function streamingBody(command: ShellCommand): StreamingCommand | undefined {
  return streamingBodies.get(command)
}

/** Invocation fields a streaming command gets from the shell for `source` and its sinks. */
export function streamingIo(
  source: ByteSource,
  sinks: readonly ByteSink[],
  signal: AbortSignal,
): Pick<StreamingInvocation, 'read' | 'drained' | 'stdin'> {
  return {
    stdin: EMPTY,
    read: () => commandRead(source, signal),
    drained: () => untilAborted(Promise.all(sinks.map((s) => s.ready())), signal),
  }
}
