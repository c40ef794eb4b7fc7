/**
 * A test process's side of the run's progress (the events are in `src/model/progress.ts`): each
 * test's phases go to the reporter over a loopback socket when a reporter draws a live status line
 * (it provides the port), else the steps worth a line are printed on stderr as plain lines, once
 * each: `  ⋯ <test>: waiting for phone vdev-0001 (held by …)`. Progress never fails a test: a
 * socket that breaks or backs up drops events, and its notes fall back to stderr.
 */
import { connect, type Socket } from 'node:net'
import type { Progress, ProgressEvent, ProgressPhase, StepOptions } from '../model/progress.js'

/** Bytes the socket may hold unsent before events are dropped (a reporter that stopped reading). */
const MAX_UNSENT_BYTES = 64 * 1024

/** A step's detail alone (a pull's megabytes) is sent at most this often. */
const DETAIL_INTERVAL_MS = 100

/** The test process's connection to the reporter, one per process and port. */
export class ProgressChannel {
  private socket: Socket | undefined
  private broken = false
  private nextId = 1

  private constructor(port: number | undefined) {
    // A port no socket can have (a stray environment variable) is no reporter: `connect` would
    // throw, and progress never fails a test.
    if (port === undefined || !Number.isInteger(port) || port < 1 || port > 65_535) return
    const socket = connect({ host: '127.0.0.1', port })
    socket.setNoDelay(true)
    // The reporter may close first (Ctrl-C); a test process never waits for it.
    socket.unref()
    socket.on('error', () => {
      this.broken = true
      socket.destroy()
    })
    socket.on('close', () => (this.broken = true))
    this.socket = socket
  }

  /** The channel to the reporter listening on `port`; none when `port` is undefined or invalid. */
  static for(port: number | undefined): ProgressChannel {
    const key = port ?? 0
    const open = channels.get(key)
    if (open !== undefined) return open
    const channel = new ProgressChannel(port)
    channels.set(key, channel)
    return channel
  }

  /** A reporter draws the phases: plain lines would only repeat them. */
  get live(): boolean {
    return this.socket !== undefined && !this.broken
  }

  /** A fresh id for a test of this process. */
  testId(): number {
    return this.nextId++
  }

  /** Sends `event`; false when it was not sent (no reporter, a broken or backed-up socket). */
  send(event: ProgressEvent): boolean {
    const socket = this.socket
    if (socket === undefined || this.broken || socket.writableLength > MAX_UNSENT_BYTES)
      return false
    socket.write(`${JSON.stringify(event)}\n`)
    return true
  }
}

const channels = new Map<number, ProgressChannel>()

/** The test a `TestProgress` reports on. */
export interface ProgressSubject {
  readonly phone: string
  /** The test file relative to the project root. */
  readonly file: string
  /** The test's own name (what plain lines call it). */
  readonly name: string
}

/** One test's progress: its phases to the reporter, or its plain lines to stderr. */
export class TestProgress implements Progress {
  private readonly test: ProgressEvent['test']
  private phase: ProgressPhase | undefined
  private detail: string | undefined
  private detailSentMs = 0
  private pendingLine: NodeJS.Timeout | undefined
  /** Shown after every phase until cleared: `repetition 2/5`. */
  private context: string | undefined
  /**
   * The test released its phone: a later step (a body still running past its timeout) would put
   * it back on the line, holding a phone another test now has, until its process ends.
   */
  private ended = false

  constructor(
    private readonly channel: ProgressChannel,
    subject: ProgressSubject,
    private readonly writeLine: (text: string) => void = (text) => void process.stderr.write(text),
  ) {
    this.test = { id: channel.testId(), ...subject }
  }

  step(phase: ProgressPhase, options: StepOptions = {}): void {
    if (this.ended) return
    if (phase === this.phase) {
      this.setDetail(options.detail)
      return
    }
    this.phase = phase
    this.detail = options.detail
    clearTimeout(this.pendingLine)
    this.pendingLine = undefined
    this.sendPhase()
    const line = options.line
    if (line === undefined || this.channel.live) return
    const say = (): void => this.plain(typeof line === 'string' ? line : line())
    if (options.lineAfterMs === undefined) say()
    else this.pendingLine = setTimeout(say, options.lineAfterMs).unref()
  }

  note(text: string): void {
    if (!this.channel.send({ kind: 'note', test: this.test, text })) this.plain(text)
  }

  /**
   * Said after every phase until `undefined` clears it (a repetition's number); `line` is printed
   * where no live line shows it.
   */
  within(context: string | undefined, line?: string): void {
    if (this.ended) return
    this.context = context
    this.sendPhase()
    if (line !== undefined && !this.channel.live) this.plain(line)
  }

  /** The test released its phone (again: nothing); its steps from now on are not news. */
  done(): void {
    this.ended = true
    clearTimeout(this.pendingLine)
    this.pendingLine = undefined
    if (this.phase === undefined) return
    this.phase = undefined
    this.channel.send({ kind: 'done', test: this.test })
  }

  /** A pull reports every chunk: its figure on the line needs no more than a few a second. */
  private setDetail(detail: string | undefined): void {
    if (detail === this.detail) return
    this.detail = detail
    if (Date.now() - this.detailSentMs >= DETAIL_INTERVAL_MS) this.sendPhase()
  }

  private sendPhase(): void {
    if (this.phase === undefined) return
    this.detailSentMs = Date.now()
    const detail = [this.context, this.detail].filter((d) => d !== undefined).join(', ')
    this.channel.send({
      kind: 'phase',
      test: this.test,
      phase: this.phase,
      ...(detail === '' ? {} : { detail }),
    })
  }

  private plain(text: string): void {
    this.writeLine(`  ⋯ ${this.test.name}: ${text}\n`)
  }
}
