/**
 * The live status line: in a terminal (not CI), while tests run, one line at the bottom says what
 * each phone is doing — `vdev-0001 › feed.test.ts › scrolls the feed · recording 2.1 s │ …`.
 * Test processes send their phases over a loopback socket this module listens on (the events:
 * `src/model/progress.ts`); the reporter provides the port to them. Whatever else is written to
 * stdout or stderr meanwhile is printed above the line, which is redrawn at most ten times a
 * second, and erased before the reporter prints its report. Without a live line (CI, a pipe,
 * another reporter drawing in the terminal) the reporter does not listen, and test processes print
 * plain lines on stderr instead.
 */
import { createServer, type Server, type Socket } from 'node:net'
import { stripVTControlCharacters } from 'node:util'
import {
  parseProgressEvent,
  type ProgressEvent,
  type ProgressPhase,
} from '../src/model/progress.js'
import type { Screen } from './screen.js'

/** Redraws at most this often. */
const FRAME_MS = 100
/** An event line longer than this is a broken peer: its connection is closed. */
const MAX_LINE_BYTES = 64 * 1024
/** Test processes of one run (a worker per phone, Jest's or Vitest's pool). */
const MAX_CONNECTIONS = 256
/**
 * Tests one test process has on the line at once (its concurrent tests, waiting for the phone:
 * 5 by default in Vitest and Jest); a peer's further new tests are not shown, so what it sends
 * cannot grow the reporter's memory.
 */
const MAX_TESTS_PER_SOURCE = 32
const SEPARATOR = ' │ '
const ERASE_LINE = '\r\x1b[2K'

/** What one test's phone is doing, as the line shows it. */
export interface StatusEntry {
  readonly phone: string
  readonly file: string
  readonly name: string
  readonly phase: ProgressPhase
  readonly detail?: string
  /** When the phase began (reporter's clock), ms. */
  readonly sinceMs: number
}

/** One phone on the line: the test holding it, and how many wait for it. */
interface PhoneSegment {
  readonly phone: string
  /** The test shown (the holder, or the only one waiting); none when several only wait. */
  readonly test?: { readonly file: string; readonly name: string }
  readonly state: string
  readonly elapsed: string
  /** Tests waiting for the phone besides the one shown. */
  readonly waiting: number
}

const WAITING: ProgressPhase = 'waiting for the phone'

/**
 * The status line for `entries` at `nowMs`, at most `width` columns: per phone, the test that
 * holds it with its phase and the time in that phase, and how many tests wait for it; names are
 * shortened (file names first) rather than phones left out.
 */
export function statusLine(
  entries: readonly StatusEntry[],
  nowMs: number,
  width: number,
  colors: Screen['colors'],
): string {
  if (entries.length === 0 || width < 10) return ''
  const phones = [...new Set(entries.map((e) => e.phone))].sort()
  const segments = phones.map((phone) => phoneSegment(phone, entries, nowMs))
  const text = (s: PhoneSegment, test: string): string =>
    `${s.phone} › ${test === '' ? '' : `${test} · `}${s.state} ${s.elapsed}${s.waiting > 0 ? ` · ${s.waiting} waiting` : ''}`
  const length = (format: (s: PhoneSegment) => string): number =>
    segments.reduce(
      (n, s) => n + columnsOf(text(s, format(s))),
      SEPARATOR.length * (segments.length - 1),
    )
  // The test names: with their files, else alone, else shortened alike to fit.
  const withFile = (s: PhoneSegment): string => (s.test ? `${s.test.file} › ${s.test.name}` : '')
  const nameOnly = (s: PhoneSegment): string => s.test?.name ?? ''
  const showFiles = length(withFile) <= width
  const named = segments.filter((s) => s.test !== undefined).length
  const perName =
    showFiles || length(nameOnly) <= width || named === 0
      ? Infinity
      : Math.max(1, Math.floor((width - length(() => '') - 3 * named) / named))
  const c = colors
  const line = segments
    .map((s) => {
      let test = ''
      if (s.test !== undefined)
        test = `${showFiles ? `${s.test.file}${c.dim(' › ')}` : ''}${shorten(s.test.name, perName)}${c.dim(' · ')}`
      const waiting = s.waiting > 0 ? `${c.dim(' · ')}${s.waiting} waiting` : ''
      return `${c.cyan(s.phone)}${c.dim(' › ')}${test}${c.yellow(s.state)} ${c.dim(s.elapsed)}${waiting}`
    })
    .join(c.dim(SEPARATOR))
  return fitWidth(line, width)
}

function phoneSegment(phone: string, entries: readonly StatusEntry[], nowMs: number): PhoneSegment {
  const mine = entries.filter((e) => e.phone === phone)
  const waiting = mine.filter((e) => e.phase === WAITING)
  const holder =
    mine.find((e) => e.phase !== WAITING) ?? (waiting.length === 1 ? waiting[0] : undefined)
  const elapsed = (sinceMs: number): string =>
    `${(Math.max(0, nowMs - sinceMs) / 1000).toFixed(1)} s`
  if (holder === undefined) {
    // Only tests waiting, several: how long the first has waited.
    const sinceMs = Math.min(...waiting.map((e) => e.sinceMs))
    return {
      phone,
      state: `${waiting.length} tests ${WAITING}`,
      elapsed: elapsed(sinceMs),
      waiting: 0,
    }
  }
  return {
    phone,
    test: { file: holder.file, name: holder.name },
    state: `${holder.phase}${holder.detail === undefined ? '' : ` (${holder.detail})`}`,
    elapsed: elapsed(holder.sinceMs),
    waiting: mine.filter((e) => e !== holder && e.phase === WAITING).length,
  }
}

/** `text` cut to `columns` with an ellipsis. */
function shorten(text: string, columns: number): string {
  if (columnsOf(text) <= columns) return text
  let out = ''
  let used = 0
  for (const ch of text) {
    const w = columnsOf(ch)
    if (used + w > columns - 1) break
    out += ch
    used += w
  }
  return `${out.trimEnd()}…`
}

/** A line still too wide (many phones on a narrow terminal) is cut, uncoloured. */
function fitWidth(line: string, width: number): string {
  const plain = stripVTControlCharacters(line)
  return columnsOf(plain) <= width ? line : shorten(plain, width)
}

/**
 * Columns `text` takes in a terminal: East Asian wide characters and emoji take two. A line that
 * wrapped could not be erased in place, so this errs wide.
 */
function columnsOf(text: string): number {
  let n = 0
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0
    const wide =
      (c >= 0x1100 && c <= 0x115f) ||
      (c >= 0x2e80 && c <= 0xa4cf) ||
      (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) ||
      (c >= 0xfe30 && c <= 0xfe4f) ||
      (c >= 0xff00 && c <= 0xff60) ||
      (c >= 0xffe0 && c <= 0xffe6) ||
      (c >= 0x1f300 && c <= 0x1faff) ||
      (c >= 0x20000 && c <= 0x3fffd)
    n += wide ? 2 : 1
  }
  return n
}

/** Control characters (a newline or an escape in a test name) would break the line: spaces. */
function printable(text: string): string {
  let out = ''
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0
    out += c < 0x20 || (c >= 0x7f && c <= 0x9f) ? ' ' : ch
  }
  return out
}

/** Where the line is drawn: a terminal's stream (process.stdout). */
export interface StatusTerminal {
  write(text: string): unknown
  readonly columns?: number
}

export interface LiveStatusOptions {
  readonly terminal: StatusTerminal
  /** Streams whose writes go above the line while it is shown. @default stdout and stderr */
  readonly intercept?: readonly NodeJS.WriteStream[]
  readonly colors: Screen['colors']
  /** @default Date.now */
  readonly nowMs?: () => number
}

/** The state of every test process's phones, and the line that shows it. */
export class LiveStatus {
  private readonly entries = new Map<string, StatusEntry>()
  /** How many of `entries` each source has. */
  private readonly perSource = new Map<number, number>()
  private readonly terminal: StatusTerminal
  /** The terminal's own write, taken before `start()` makes its writes pass above the line. */
  private out: (text: string) => unknown
  private readonly intercept: readonly NodeJS.WriteStream[]
  private readonly nowMs: () => number
  private readonly restores: (() => void)[] = []
  private timer: NodeJS.Timeout | undefined
  /** What is on the screen now ('' when nothing is). */
  private shown = ''
  /** The last write above the line ended a line: the line can be drawn under it. */
  private atLineStart = true
  private readonly eraseOnExit = (): void => this.erase()

  constructor(private readonly options: LiveStatusOptions) {
    this.terminal = options.terminal
    this.out = this.terminal.write.bind(this.terminal)
    this.intercept = options.intercept ?? [process.stdout, process.stderr]
    this.nowMs = options.nowMs ?? Date.now
  }

  get running(): boolean {
    return this.timer !== undefined
  }

  /** Starts drawing (a run begins): other writers' output goes above the line from now on. */
  start(): void {
    if (this.running) return
    this.out = this.terminal.write.bind(this.terminal)
    for (const stream of this.intercept) this.restores.push(this.passAbove(stream))
    this.timer = setInterval(() => this.draw(), FRAME_MS).unref()
    process.once('exit', this.eraseOnExit)
  }

  /** Erases the line and stops drawing (before the report, at the run's end). Idempotent. */
  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
    process.off('exit', this.eraseOnExit)
    this.erase()
    for (const restore of this.restores.splice(0)) restore()
  }

  /** One event from the test process `source` (one socket). */
  receive(source: number, event: ProgressEvent): void {
    const key = `${source}:${event.test.id}`
    switch (event.kind) {
      case 'phase': {
        const before = this.entries.get(key)
        const held = this.perSource.get(source) ?? 0
        if (before === undefined) {
          if (held >= MAX_TESTS_PER_SOURCE) return
          this.perSource.set(source, held + 1)
        }
        this.entries.set(key, {
          phone: printable(event.test.phone),
          file: printable(event.test.file),
          name: printable(event.test.name),
          phase: event.phase,
          ...(event.detail === undefined ? {} : { detail: printable(event.detail) }),
          sinceMs: before?.phase === event.phase ? before.sinceMs : this.nowMs(),
        })
        return
      }
      case 'done':
        if (this.entries.delete(key))
          this.perSource.set(source, (this.perSource.get(source) ?? 1) - 1)
        return
      case 'note':
        this.print(`  ⋯ ${printable(event.test.name)}: ${printable(event.text)}\n`)
        return
    }
  }

  /** A test process went away: its tests leave the line. */
  closed(source: number): void {
    for (const key of [...this.entries.keys()])
      if (key.startsWith(`${source}:`)) this.entries.delete(key)
    this.perSource.delete(source)
  }

  /** The line as it would be drawn now. */
  render(): string {
    // A terminal of unknown size says 0 columns (`script` without one): draw for 80.
    const columns = this.terminal.columns
    const width = (columns !== undefined && columns > 0 ? columns : 80) - 1
    return statusLine([...this.entries.values()], this.nowMs(), width, this.options.colors)
  }

  /** Draws the line if it changed (the timer's frame; tests call it directly). */
  draw(): void {
    if (!this.running || !this.atLineStart) return
    const line = this.render()
    if (line === this.shown) return
    this.out(`${this.shown === '' ? '' : ERASE_LINE}${line}`)
    this.shown = line
  }

  private erase(): void {
    if (this.shown === '') return
    this.out(ERASE_LINE)
    this.shown = ''
  }

  /** A line of our own above the status line, or on stderr when the line is not drawn. */
  private print(text: string): void {
    if (!this.running) {
      process.stderr.write(text)
      return
    }
    this.erase()
    this.out(text)
    this.atLineStart = true
  }

  /** Makes `stream`'s writes erase the line first; returns what undoes it. */
  private passAbove(stream: NodeJS.WriteStream): () => void {
    const original = Object.getOwnPropertyDescriptor(stream, 'write')
    const write = stream.write.bind(stream)
    const above = (chunk: unknown, ...rest: unknown[]): boolean => {
      this.erase()
      const last =
        typeof chunk === 'string'
          ? chunk.at(-1)
          : chunk instanceof Uint8Array
            ? chunk.at(-1)
            : undefined
      if (last !== undefined) this.atLineStart = last === '\n' || last === 10
      return (write as (chunk: unknown, ...rest: unknown[]) => boolean)(chunk, ...rest)
    }
    stream.write = above as typeof stream.write
    return () => {
      if (original === undefined) Reflect.deleteProperty(stream, 'write')
      else Object.defineProperty(stream, 'write', original)
    }
  }
}

/** A listening progress socket. */
export interface ProgressServer {
  readonly port: number
  close(): Promise<void>
}

/**
 * Listens on a free loopback port for test processes' progress; each connection is one source.
 * Never keeps the process alive; a line over 64 KiB or a flood of connections is refused.
 */
export async function listenForProgress(status: LiveStatus): Promise<ProgressServer> {
  let next = 1
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    const source = next++
    sockets.add(socket)
    socket.unref()
    socket.setEncoding('utf8')
    let pending = ''
    socket.on('data', (chunk: string) => {
      pending += chunk
      const lines = pending.split('\n')
      pending = lines.pop() ?? ''
      if (Buffer.byteLength(pending) > MAX_LINE_BYTES) {
        socket.destroy()
        return
      }
      for (const line of lines) {
        const event = parseProgressEvent(line)
        if (event !== undefined) status.receive(source, event)
      }
    })
    socket.on('error', () => socket.destroy())
    socket.on('close', () => {
      sockets.delete(socket)
      status.closed(source)
    })
  })
  server.maxConnections = MAX_CONNECTIONS
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  // Listening, an error is a failed accept (out of file descriptors): that connection is lost, not
  // the run, which an 'error' event nobody listens to would end.
  server.on('error', () => undefined)
  server.unref()
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A live status line on stdout and the socket feeding it. */
export interface LiveProgress {
  readonly status: LiveStatus
  readonly server: ProgressServer
}

/**
 * The live line on this process's stdout, listening for test processes; none when no loopback
 * port can be had (progress then stays plain lines: not a reason to fail a run).
 */
export async function liveProgress(colors: Screen['colors']): Promise<LiveProgress | undefined> {
  const status = new LiveStatus({ terminal: process.stdout, colors })
  try {
    return { status, server: await listenForProgress(status) }
  } catch {
    return undefined
  }
}

/**
 * A live line is drawn only on a terminal that is not CI's (`CI` and the usual CI variables), and
 * not `TERM=dumb`; elsewhere progress stays plain lines.
 */
export function liveStatusWanted(
  stream: { readonly isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return stream.isTTY === true && env['TERM'] !== 'dumb' && !isCI(env)
}

const CI_VARIABLES = [
  'GITHUB_ACTIONS',
  'GITLAB_CI',
  'BUILDKITE',
  'CIRCLECI',
  'TRAVIS',
  'TF_BUILD',
  'JENKINS_URL',
  'TEAMCITY_VERSION',
  'CODEBUILD_BUILD_ID',
  'BITBUCKET_BUILD_NUMBER',
]

function isCI(env: Readonly<Record<string, string | undefined>>): boolean {
  const ci = env['CI']
  if (ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false') return true
  return CI_VARIABLES.some((name) => (env[name] ?? '') !== '')
}
