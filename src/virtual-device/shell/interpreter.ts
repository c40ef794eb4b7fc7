/**
 * Runs parsed mksh command lines against a virtual device. Output goes to the sinks as soon as a
 * command produces it (a `while` loop streams) and the shell waits for room after every command (a
 * client that does not read stalls only its own command). The stages of a pipeline run at once,
 * joined by bounded pipes (streams.ts); a stage that writes to a pipe nobody reads any more gets
 * SIGPIPE. Everything stops when `signal` aborts (the ADB client went away).
 */
import type { ShellCommand, ShellIo, VirtualDeviceHandle } from '../contract.js'
import {
  parseShell,
  ShellSyntaxError,
  type AndOr,
  type CommandNode,
  type ListNode,
  type Pipeline,
  type Redirect,
  type SimpleCommand,
  type Word,
} from './parse.js'
import {
  basename,
  deniedErrno,
  dirname,
  errnoOf,
  normalizePath,
  shellMayWrite,
  SHELL_UMASK,
} from './vfs.js'
import { concatBytes } from '../../formats/_bytes.js'
import { ArithError, evaluateArithmetic } from './arith.js'
import { ERRNO_TEXT } from './errors.js'
import type { SpawnOptions } from './processes.js'
import {
  bytesSource,
  collect,
  discardSink,
  emptySource,
  Pipe,
  STDIN_COLLECT_MAX,
  streamingBody,
  streamingIo,
  untilAborted,
  withSignals,
  type ByteSink,
  type ByteSource,
  type PacedShellIo,
} from './streams.js'

/** The shell's name as it prefixes its own error messages. */
export const SHELL_NAME = '/system/bin/sh'

const encoder = new TextEncoder()
const EMPTY = new Uint8Array(0)

export function toBytes(chunk: string | Uint8Array): Uint8Array {
  return typeof chunk === 'string' ? encoder.encode(chunk) : chunk
}

interface Streams {
  readonly stdin: ByteSource
  /** fd 1 and fd 2. */
  readonly out: ByteSink
  readonly err: ByteSink
}

const READY = Promise.resolve()

/**
 * A phone's shell runs out of memory where a host would not: one expanded word (a variable's value,
 * an argument) and all of a shell's variables together are bounded, and a shell past either ends
 * with `out of memory` (status 1) instead of growing the server (`x=$x$x` in a loop reached 1.9 GB).
 */
export const SHELL_WORD_MAX_CHARS = 16 * 1024 * 1024
export const SHELL_VARS_MAX_CHARS = 64 * 1024 * 1024

/** Thrown by `exit N`; unwinds to the nearest shell boundary. */
class ExitRequest {
  constructor(readonly status: number) {}
}

/** Thrown by `break N` / `continue N`; caught by the enclosing loop(s). */
class LoopControl {
  constructor(
    readonly kind: 'break' | 'continue',
    public levels: number,
  ) {}
}

/** Thrown when the client disconnected: unwinds everything without further output. */
class Aborted {
  readonly aborted = true
}

/** The status of a shell that was stopped: 141 after SIGPIPE, else 130 (interrupted). */
function killedStatus(signal: AbortSignal): number {
  return signal.reason === 'PIPE' ? 128 + SIGPIPE : 130
}

const SIGPIPE = 13

export interface RunShellOptions {
  readonly device: VirtualDeviceHandle
  /** Where output goes; with `ready` (a client socket) the shell waits for room after each command. */
  readonly io: ShellIo | PacedShellIo
  /** Aborts the whole command line (the ADB connection closed). */
  readonly signal: AbortSignal
  readonly stdin?: Uint8Array
  /**
   * `$$`: the process in the device's table this shell runs as (`exec` runs a command in its
   * place). @default 0, no process (`exec` then starts the command as a child)
   */
  readonly pid?: number
  /** Initial variables. @default PATH, HOME, TMPDIR, EXTERNAL_STORAGE, HOSTNAME */
  readonly env?: ReadonlyMap<string, string>
}

export function defaultEnv(): Map<string, string> {
  return new Map([
    [
      'PATH',
      '/product/bin:/apex/com.android.runtime/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin',
    ],
    ['HOME', '/'],
    ['TMPDIR', '/data/local/tmp'],
    ['EXTERNAL_STORAGE', '/sdcard'],
    ['ANDROID_DATA', '/data'],
    ['ANDROID_ROOT', '/system'],
    ['HOSTNAME', 'localhost'],
    ['IFS', ' \t\n'],
  ])
}

/** Parses and runs `source`; resolves with the exit status as `sh -c` would report it. */
export async function runShell(source: string, options: RunShellOptions): Promise<number> {
  const { io } = options
  const ready = 'ready' in io ? () => io.ready() : () => READY
  const streams: Streams = {
    stdin: bytesSource(options.stdin ?? EMPTY),
    out: { write: (c) => io.write(c), ready },
    err: { write: (c) => io.writeErr(c), ready },
  }
  const shell = new Shell(
    options.device,
    options.pid ?? 0,
    options.env ?? defaultEnv(),
    options.pid !== undefined,
  )
  return shell.runSource(source, streams, options.signal)
}

class Shell {
  lastStatus = 0
  lastBackgroundPid: number | undefined
  cwd = '/'
  readonly vars: Map<string, string>

  /**
   * @param ownsProcess whether this shell is process `pid` itself, so `exec` may replace it
   *   (subshells, pipeline stages and `$( )` share `$$` with their parent but not its process)
   */
  constructor(
    readonly device: VirtualDeviceHandle,
    readonly pid: number,
    vars: ReadonlyMap<string, string>,
    private readonly ownsProcess = false,
  ) {
    this.vars = new Map(vars)
  }

  /** Sets a variable within the shell's memory (SHELL_VARS_MAX_CHARS), else ends the shell. */
  private setVar(name: string, value: string, streams: Streams): void {
    let total = value.length
    for (const [k, v] of this.vars) if (k !== name) total += v.length
    if (total > SHELL_VARS_MAX_CHARS) this.outOfMemory(streams)
    this.vars.set(name, value)
  }

  /** What mksh does when an allocation fails: says so and ends the shell. */
  private outOfMemory(streams: Streams): never {
    streams.err.write(toBytes(`${SHELL_NAME}: out of memory\n`))
    throw new ExitRequest(1)
  }

  private child(): Shell {
    const s = new Shell(this.device, this.pid, this.vars)
    s.cwd = this.cwd
    s.lastStatus = this.lastStatus
    s.lastBackgroundPid = this.lastBackgroundPid
    return s
  }

  async runSource(source: string, streams: Streams, signal: AbortSignal): Promise<number> {
    let program: ListNode
    try {
      program = parseShell(source)
    } catch (error) {
      if (error instanceof ShellSyntaxError) {
        streams.err.write(toBytes(`${SHELL_NAME}: syntax error: ${error.message}\n`))
        return 1
      }
      throw error
    }
    try {
      return await this.runList(program, streams, signal)
    } catch (error) {
      if (error instanceof ExitRequest) return error.status
      if (error instanceof Aborted) return killedStatus(signal)
      if (error instanceof LoopControl) return 0
      throw error
    }
  }

  private check(signal: AbortSignal): void {
    if (signal.aborted) throw new Aborted()
  }

  async runList(list: ListNode, streams: Streams, signal: AbortSignal): Promise<number> {
    for (const item of list.items) {
      this.check(signal)
      if (item.background) {
        this.lastStatus = await this.runBackground(item, streams)
      } else {
        this.lastStatus = await this.runAndOr(item, streams, signal)
      }
    }
    return this.lastStatus
  }

  private async runAndOr(item: Omit<AndOr, 'background'>, streams: Streams, signal: AbortSignal) {
    let status = await this.runPipeline(item.first, streams, signal)
    this.lastStatus = status
    for (const { op, pipeline } of item.rest) {
      if ((op === '&&' && status !== 0) || (op === '||' && status === 0)) continue
      status = await this.runPipeline(pipeline, streams, signal)
      this.lastStatus = status
    }
    return status
  }

  /** `cmd &`: a process in the table, output discarded unless redirected; status 0. */
  private async runBackground(item: AndOr, streams: Streams): Promise<number> {
    const background: Streams = { stdin: emptySource, out: discardSink, err: discardSink }
    const only =
      item.rest.length === 0 && item.first.commands.length === 1
        ? item.first.commands[0]
        : undefined
    const shell = this.child()
    const spawnOptions: SpawnOptions = { ppid: this.pid }
    if (only?.type === 'simple' && only.words.length > 0 && !item.first.negated) {
      const argv = await this.expandWords(only.words, streams, new AbortController().signal)
      const name = argv[0]
      if (name !== undefined) {
        const command = this.lookup(name)
        if (command !== undefined) {
          const process = this.device.processes.spawn(
            basename(name),
            async (procSignal) => {
              const redirected = shell.redirect(only.redirects, background, procSignal)
              const io = await redirected
              if (io === undefined) return 1
              return shell.invoke(command, argv, io, procSignal, process.pid)
            },
            spawnOptions,
          )
          this.lastBackgroundPid = process.pid
          return 0
        }
      }
    }
    const process = this.device.processes.spawn(
      'sh',
      async (procSignal) => {
        try {
          return await shell.runAndOr(item, background, procSignal)
        } catch (error) {
          if (error instanceof ExitRequest) return error.status
          if (error instanceof Aborted) return 130
          throw error
        }
      },
      spawnOptions,
    )
    this.lastBackgroundPid = process.pid
    return 0
  }

  private async runPipeline(pipeline: Pipeline, streams: Streams, signal: AbortSignal) {
    this.check(signal)
    const [only] = pipeline.commands
    const status =
      pipeline.commands.length === 1 && only !== undefined
        ? await this.runCommand(only, streams, signal)
        : await this.runConnected(pipeline.commands, streams, signal)
    return pipeline.negated ? (status === 0 ? 1 : 0) : status
  }

  /**
   * `a | b | c`: every stage at once, joined by bounded pipes; the status is the last stage's,
   * once every stage has ended (as the shell waits for the whole pipeline). A stage ends when its
   * commands do, or with SIGPIPE when it writes to a pipe whose reader has ended (`head -n 1`).
   */
  private async runConnected(
    commands: readonly CommandNode[],
    streams: Streams,
    signal: AbortSignal,
  ): Promise<number> {
    let stdin = streams.stdin
    let input: Pipe | undefined
    const writers: Promise<number>[] = []
    for (const command of commands.slice(0, -1)) {
      const pipe = new Pipe()
      const stage = new AbortController()
      const out: ByteSink = {
        write: (c) => {
          if (!pipe.write(c)) stage.abort('PIPE')
        },
        ready: () => pipe.space(),
      }
      const reads = input
      // Each stage but the last runs in a subshell (mksh runs the last in the shell itself).
      const shell = this.child()
      writers.push(
        withSignals([signal, stage.signal], (either) =>
          shell.runStage(command, { stdin, out, err: streams.err }, either),
        ).finally(() => {
          pipe.closeWrite()
          reads?.closeRead()
        }),
      )
      stdin = pipe
      input = pipe
    }
    const settled = Promise.allSettled(writers)
    const last = commands[commands.length - 1]
    let status = 0
    try {
      if (last !== undefined) status = await this.runCommand(last, { ...streams, stdin }, signal)
    } finally {
      input?.closeRead()
    }
    for (const result of await settled) {
      if (result.status === 'rejected') throw result.reason
    }
    return status
  }

  /** One stage of a pipeline in a subshell: `exit` ends only it, and so does SIGPIPE (141). */
  private async runStage(node: CommandNode, streams: Streams, signal: AbortSignal) {
    try {
      return await this.runCommand(node, streams, signal)
    } catch (error) {
      if (error instanceof ExitRequest) return error.status
      if (error instanceof LoopControl) return 0
      if (error instanceof Aborted) return killedStatus(signal)
      throw error
    }
  }

  private async runCommand(node: CommandNode, streams: Streams, signal: AbortSignal) {
    if (node.type === 'simple') return this.runSimple(node, streams, signal)
    const io = await this.redirect(node.redirects, streams, signal)
    if (io === undefined) return 1
    switch (node.type) {
      case 'while':
      case 'until': {
        let status = 0
        for (;;) {
          this.check(signal)
          const c = await this.runList(node.condition, io, signal)
          if ((c === 0) !== (node.type === 'while')) break
          const control = await this.loopBody(node.body, io, signal)
          if (control === 'break') break
          status = this.lastStatus
          // Yield to the event loop so a tight loop cannot starve the server.
          await new Promise<void>((resolve) => setImmediate(resolve))
        }
        return status
      }
      case 'for': {
        let status = 0
        const items = node.items === undefined ? [] : await this.expandWords(node.items, io, signal)
        for (const value of items) {
          this.check(signal)
          this.setVar(node.variable, value, io)
          const control = await this.loopBody(node.body, io, signal)
          status = this.lastStatus
          if (control === 'break') break
        }
        return status
      }
      case 'if': {
        for (const branch of node.branches) {
          if ((await this.runList(branch.condition, io, signal)) === 0) {
            return this.runList(branch.body, io, signal)
          }
        }
        return node.otherwise === undefined ? 0 : this.runList(node.otherwise, io, signal)
      }
      case 'group':
        return this.runList(node.body, io, signal)
      case 'subshell': {
        try {
          return await this.child().runList(node.body, io, signal)
        } catch (error) {
          if (error instanceof ExitRequest) return error.status
          throw error
        }
      }
    }
  }

  /** Runs a loop body; reports a `break`/`continue` aimed at this loop. */
  private async loopBody(
    body: ListNode,
    io: Streams,
    signal: AbortSignal,
  ): Promise<'break' | 'continue' | undefined> {
    try {
      await this.runList(body, io, signal)
      return undefined
    } catch (error) {
      if (!(error instanceof LoopControl)) throw error
      if (error.levels > 1) {
        error.levels--
        throw error
      }
      this.lastStatus = 0
      return error.kind
    }
  }

  private async runSimple(node: SimpleCommand, streams: Streams, signal: AbortSignal) {
    const argv = await this.expandWords(node.words, streams, signal)
    const values: [string, string][] = []
    for (const a of node.assignments) {
      values.push([a.name, (await this.expandWord(a.value, streams, signal, false)).join('')])
    }
    if (argv.length === 0) {
      for (const [k, v] of values) this.setVar(k, v, streams)
      const io = await this.redirect(node.redirects, streams, signal)
      return io === undefined ? 1 : this.lastStatus
    }
    // Prefix assignments (`X=1 cmd`) only affect that command; plain variables suffice here.
    for (const [k, v] of values) this.setVar(k, v, streams)
    const io = await this.redirect(node.redirects, streams, signal)
    if (io === undefined) return 1
    const status = await this.runNamed(argv, io, signal)
    await this.paced(io, signal)
    return status
  }

  private async runNamed(argv: string[], io: Streams, signal: AbortSignal): Promise<number> {
    const name = argv[0] ?? ''
    const builtin = await this.builtin(argv, io, signal)
    if (builtin !== undefined) return builtin
    const command = this.lookup(name)
    if (command === undefined) {
      io.err.write(toBytes(`${SHELL_NAME}: ${name}: inaccessible or not found\n`))
      return 127
    }
    return this.runProcess(
      basename(name),
      (procSignal, pid) => this.invoke(command, argv, io, procSignal, pid),
      signal,
    )
  }

  /**
   * Waits until stdout and stderr have room again (a pipe under its capacity, a client that read
   * what it was sent), as a process blocks in write(2); what one command wrote is the most a
   * reader that stopped reading can be owed.
   */
  private async paced(io: Streams, signal: AbortSignal): Promise<void> {
    await untilAborted(Promise.all([io.out.ready(), io.err.ready()]), signal)
    this.check(signal)
  }

  /**
   * Runs `body` as a child process in the device's table (its own pid, this shell's as parent)
   * and waits for it; the client going away hangs it up. `body` gets its own signal combined
   * with ours, and its pid.
   */
  private async runProcess(
    name: string,
    body: (signal: AbortSignal, pid: number) => Promise<number>,
    signal: AbortSignal,
  ): Promise<number> {
    const spawnOptions: SpawnOptions = { ppid: this.pid }
    const process = this.device.processes.spawn(
      name,
      (procSignal) => withSignals([signal, procSignal], (either) => body(either, process.pid)),
      spawnOptions,
    )
    const onAbort = (): void => {
      process.kill('HUP')
    }
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      const status = await process.exited
      this.check(signal)
      return status
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  /**
   * mksh's `exec cmd args…`: the command replaces the shell — same pid, the shell's signals reach
   * it, and the shell ends with its status. In a subshell (which has no process of its own here)
   * the command runs as a child and the subshell ends with it. `exec` alone (redirections only)
   * is not modelled: it does nothing.
   */
  private async exec(args: string[], io: Streams, signal: AbortSignal): Promise<number> {
    const [name] = args
    if (name === undefined) return 0
    const program = basename(name)
    let run: ((signal: AbortSignal, pid: number) => Promise<number>) | undefined
    if (program === 'sh') run = (s, pid) => this.sh(args.slice(1), io, s, pid)
    else {
      const command = this.lookup(name)
      if (command !== undefined) run = (s, pid) => this.invoke(command, args, io, s, pid)
    }
    if (run === undefined) {
      io.err.write(toBytes(`${SHELL_NAME}: ${name}: inaccessible or not found\n`))
      throw new ExitRequest(127)
    }
    if (this.ownsProcess) {
      this.device.processes.rename(this.pid, program)
      throw new ExitRequest(await run(signal, this.pid))
    }
    throw new ExitRequest(await this.runProcess(program, run, signal))
  }

  /** Finds a device command by name or by path (`/system/bin/ls`). */
  lookup(name: string): ShellCommand | undefined {
    if (!name.includes('/')) return this.device.commands.get(name)
    const path = normalizePath(name, this.cwd)
    if (this.device.fs.stat(path) === undefined) return undefined
    return this.device.commands.get(basename(path))
  }

  /** Runs `command` as process `pid` (its `getpid()`), with `io` as its fds 0–2. */
  async invoke(
    command: ShellCommand,
    argv: readonly string[],
    io: Streams,
    signal: AbortSignal,
    pid: number,
  ): Promise<number> {
    const shellIo: ShellIo = {
      write: (c) => io.out.write(toBytes(c)),
      writeErr: (c) => io.err.write(toBytes(c)),
    }
    const common = {
      argv,
      io: shellIo,
      device: this.device,
      signal,
      cwd: this.cwd,
      pid,
      ...(io.out === discardSink ? { stdoutDiscarded: true } : {}),
    }
    try {
      const streaming = streamingBody(command)
      if (streaming !== undefined) {
        return await streaming({ ...common, ...streamingIo(io.stdin, [io.out, io.err], signal) })
      }
      // Commands that take stdin as one buffer get it once its writer is done (or at the cap).
      const stdin = await collect(io.stdin, STDIN_COLLECT_MAX, signal)
      return await command({ ...common, stdin })
    } catch (error) {
      if (signal.aborted) return 130
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error)
      io.err.write(toBytes(`${argv[0] ?? ''}: ${message}\n`))
      return 1
    }
  }

  /** Shell builtins (mksh): `undefined` when `argv[0]` is not one. */
  private async builtin(
    argv: string[],
    io: Streams,
    signal: AbortSignal,
  ): Promise<number | undefined> {
    const [name, ...args] = argv
    switch (name) {
      case ':':
      case 'true':
        return 0
      case 'false':
        return 1
      case 'exit': {
        const status = args[0] === undefined ? this.lastStatus : Number.parseInt(args[0], 10)
        throw new ExitRequest(Number.isNaN(status) ? 1 : status & 0xff)
      }
      case 'cd': {
        const target = normalizePath(args[0] ?? '/', this.cwd)
        const node = this.device.fs.stat(target)
        if (node?.kind !== 'dir') {
          io.err.write(toBytes(`${SHELL_NAME}: cd: ${args[0] ?? '/'}: ${ERRNO_TEXT.ENOENT}\n`))
          return 2
        }
        this.cwd = target
        return 0
      }
      case 'pwd':
        io.out.write(toBytes(`${this.cwd}\n`))
        return 0
      case 'export':
      case 'readonly':
        for (const a of args) {
          const eq = a.indexOf('=')
          if (eq > 0) this.setVar(a.slice(0, eq), a.slice(eq + 1), io)
        }
        return 0
      case 'unset':
        for (const a of args) this.vars.delete(a)
        return 0
      case 'wait':
        return 0
      case 'break':
      case 'continue': {
        const levels = Number.parseInt(args[0] ?? '1', 10)
        throw new LoopControl(name, Number.isNaN(levels) || levels < 1 ? 1 : levels)
      }
      case 'test':
      case '[':
        return this.test(name === '[' ? args : args, name === '[', io)
      case 'exec':
        return this.exec(args, io, signal)
      case 'sh':
      case '/system/bin/sh':
        // Not a builtin in mksh: a new process, with its own `$$`.
        return this.runProcess('sh', (s, pid) => this.sh(args, io, s, pid), signal)
      default:
        return undefined
    }
  }

  /** `sh [-c source | file]` run as process `pid`. */
  private async sh(args: string[], io: Streams, signal: AbortSignal, pid: number): Promise<number> {
    const child = new Shell(this.device, pid, this.vars, true)
    child.cwd = this.cwd
    let source: string
    if (args[0] === '-c') {
      if (args[1] === undefined) {
        io.err.write(toBytes(`${SHELL_NAME}: -c: option requires an argument\n`))
        return 1
      }
      source = args[1]
    } else if (args[0] !== undefined) {
      const path = normalizePath(args[0], this.cwd)
      try {
        source = new TextDecoder().decode(this.device.fs.readFile(path))
      } catch {
        io.err.write(toBytes(`${SHELL_NAME}: ${args[0]}: No such file or directory\n`))
        return 127
      }
    } else {
      source = new TextDecoder().decode(await collect(io.stdin, STDIN_COLLECT_MAX, signal))
    }
    return child.runSource(source, { ...io, stdin: emptySource }, signal)
  }

  private test(args: string[], bracket: boolean, io: Streams): number {
    if (bracket) {
      if (args[args.length - 1] !== ']') {
        io.err.write(toBytes(`${SHELL_NAME}: [: missing ]\n`))
        return 2
      }
      args = args.slice(0, -1)
    }
    const evaluate = (a: string[]): boolean => {
      if (a[0] === '!') return !evaluate(a.slice(1))
      if (a.length === 0) return false
      if (a.length === 1) return (a[0] ?? '') !== ''
      if (a.length === 2) {
        const [op, v = ''] = a
        const node = this.device.fs.stat(normalizePath(v, this.cwd))
        switch (op) {
          case '-n':
            return v !== ''
          case '-z':
            return v === ''
          case '-e':
            return node !== undefined
          case '-f':
            return node !== undefined && node.kind !== 'dir'
          case '-d':
            return node?.kind === 'dir'
          case '-s':
            return node?.kind === 'file' ? node.data.length > 0 : node?.kind === 'dynamic'
          default:
            return false
        }
      }
      const [l = '', op, r = ''] = a
      const ln = Number(l)
      const rn = Number(r)
      switch (op) {
        case '=':
        case '==':
          return l === r
        case '!=':
          return l !== r
        case '-eq':
          return ln === rn
        case '-ne':
          return ln !== rn
        case '-lt':
          return ln < rn
        case '-le':
          return ln <= rn
        case '-gt':
          return ln > rn
        case '-ge':
          return ln >= rn
        default:
          return false
      }
    }
    return evaluate(args) ? 0 : 1
  }

  /** Applies redirections; `undefined` after printing mksh's error when a file cannot be opened. */
  async redirect(
    redirects: readonly Redirect[],
    streams: Streams,
    signal: AbortSignal,
  ): Promise<Streams | undefined> {
    let { stdin, out, err } = streams
    const fs = this.device.fs
    for (const r of redirects) {
      const target = (await this.expandWord(r.target, streams, signal, false)).join('')
      if (r.op === '>&' || r.op === '<&') {
        const src = target === '1' ? out : target === '2' ? err : undefined
        if (target === '-') {
          if (r.fd === 1) out = discardSink
          else if (r.fd === 2) err = discardSink
          continue
        }
        if (src === undefined) {
          if (target === '0' && r.fd === 0) continue
          err.write(toBytes(`${SHELL_NAME}: ${target}: illegal file descriptor name\n`))
          return undefined
        }
        if (r.fd === 1) out = src
        else if (r.fd === 2) err = src
        continue
      }
      const path = normalizePath(target, this.cwd)
      if (r.op === '<') {
        try {
          stdin = path === '/dev/null' ? emptySource : bytesSource(fs.readFile(path))
        } catch (error) {
          const errno = errnoOf(error) ?? 'ENOENT'
          err.write(toBytes(`${SHELL_NAME}: can't open ${target}: ${ERRNO_TEXT[errno]}\n`))
          return undefined
        }
        continue
      }
      let sink: ByteSink
      if (path === '/dev/null') sink = discardSink
      else {
        const node = fs.stat(path)
        const dir = dirname(path)
        let errno: keyof typeof ERRNO_TEXT | undefined
        if (node?.kind === 'dir') errno = 'EISDIR'
        else if (fs.stat(dir)?.kind !== 'dir')
          errno = fs.stat(dir) === undefined ? 'ENOENT' : 'ENOTDIR'
        else if (node === undefined && !shellMayWrite(fs, dir)) errno = deniedErrno(dir)
        else if (node?.kind === 'dynamic' && node.write === undefined) errno = 'EACCES'
        if (errno !== undefined) {
          err.write(toBytes(`${SHELL_NAME}: can't create ${target}: ${ERRNO_TEXT[errno]}\n`))
          return undefined
        }
        if (node?.kind === 'dynamic') {
          sink = { write: (c) => fs.writeFile(path, c), ready: () => READY }
        } else {
          if (r.op === '>' || node === undefined) fs.writeFile(path, EMPTY, 0o666 & ~SHELL_UMASK)
          sink = { write: (c) => fs.appendFile(path, c), ready: () => READY }
        }
      }
      if (r.fd === 1) out = sink
      else if (r.fd === 2) err = sink
    }
    return { stdin, out, err }
  }

  private async expandWords(words: readonly Word[], streams: Streams, signal: AbortSignal) {
    const out: string[] = []
    for (const w of words) out.push(...(await this.expandWord(w, streams, signal, true)))
    return out
  }

  /**
   * Expands one word into fields: parameters, substitutions and arithmetic; then, if `split`,
   * field splitting of unquoted expansions on blanks and pathname expansion of unquoted `* ? [`.
   */
  private async expandWord(
    word: Word,
    streams: Streams,
    signal: AbortSignal,
    split: boolean,
  ): Promise<string[]> {
    /**
     * Each character remembers whether it was quoted (quoted glob characters are literal), as runs
     * of equally quoted characters: a long value costs no more than its text.
     */
    type Field = { text: string; runs: { length: number; quoted: boolean }[] }
    const fields: Field[] = []
    let current: Field = { text: '', runs: [] }
    let hasCurrent = false
    let chars = 0
    const append = (text: string, quoted: boolean): void => {
      chars += text.length
      if (chars > SHELL_WORD_MAX_CHARS) this.outOfMemory(streams)
      current.text += text
      const last = current.runs.at(-1)
      if (last !== undefined && last.quoted === quoted) last.length += text.length
      else current.runs.push({ length: text.length, quoted })
    }
    for (const part of word.parts) {
      if (part.kind === 'text') {
        append(part.text, part.quoted)
        hasCurrent = hasCurrent || part.quoted || part.text !== ''
        continue
      }
      let value: string
      if (part.kind === 'param') value = this.param(part.name)
      else if (part.kind === 'subst') value = await this.substitute(part.source, streams, signal)
      else value = this.arithmetic(part.source, streams)
      if (part.quoted || !split) {
        append(value, part.quoted)
        hasCurrent = true
        continue
      }
      const pieces = value.split(/[ \t\n]+/)
      for (const [i, piece] of pieces.entries()) {
        if (i > 0) {
          if (hasCurrent) fields.push(current)
          current = { text: '', runs: [] }
          hasCurrent = false
        }
        append(piece, false)
        if (piece !== '') hasCurrent = true
      }
    }
    if (hasCurrent) fields.push(current)
    if (!split) return [fields.map((f) => f.text).join('')]
    const out: string[] = []
    for (const f of fields) {
      let start = 0
      let globbable = false
      for (const run of f.runs) {
        if (!run.quoted && /[*?[]/.test(f.text.slice(start, start + run.length))) globbable = true
        start += run.length
      }
      const matches = globbable
        ? this.glob(
            f.text,
            f.runs.flatMap((run) => Array<boolean>(run.length).fill(run.quoted)),
          )
        : []
      if (matches.length > 0) out.push(...matches)
      else out.push(f.text)
    }
    return out
  }

  /** `$(( … ))`; on error prints mksh's message and ends the shell with status 1. */
  private arithmetic(source: string, streams: Streams): string {
    try {
      // Parameters inside the expression are expanded first ($x, ${x}, $?).
      const expanded = source.replace(
        /\$(?:\{([A-Za-z_][A-Za-z0-9_]*|[?$!#0-9])\}|([A-Za-z_][A-Za-z0-9_]*|[?$!#0-9]))/g,
        (_all, braced: string | undefined, bare: string | undefined) =>
          this.param(braced ?? bare ?? ''),
      )
      return String(evaluateArithmetic(expanded, (name) => this.param(name)))
    } catch (error) {
      if (!(error instanceof ArithError)) throw error
      streams.err.write(toBytes(`${SHELL_NAME}: ${source.trim()}: ${error.message}\n`))
      throw new ExitRequest(1)
    }
  }

  /** Pathname expansion of one field; sorted matches, or none (the word then stays as typed). */
  private glob(text: string, quotedMask: readonly boolean[]): string[] {
    const fs = this.device.fs
    const segments: { text: string; quoted: boolean[] }[] = [{ text: '', quoted: [] }]
    for (let i = 0; i < text.length; i++) {
      const c = text[i] ?? ''
      if (c === '/') segments.push({ text: '', quoted: [] })
      else {
        const seg = segments[segments.length - 1]
        if (seg !== undefined) {
          seg.text += c
          seg.quoted.push(quotedMask[i] === true)
        }
      }
    }
    const absolute = text.startsWith('/')
    const join = (a: string, b: string): string =>
      a === '' ? b : a.endsWith('/') ? `${a}${b}` : `${a}/${b}`
    let matches = [{ path: absolute ? '/' : this.cwd, shown: absolute ? '/' : '' }]
    for (const seg of segments) {
      if (seg.text === '') continue
      const isPattern = [...seg.text].some((c, i) => '*?['.includes(c) && seg.quoted[i] === false)
      const next: { path: string; shown: string }[] = []
      for (const m of matches) {
        if (!isPattern) {
          const path = join(m.path, seg.text)
          if (fs.stat(path) !== undefined) next.push({ path, shown: join(m.shown, seg.text) })
          continue
        }
        if (fs.stat(m.path)?.kind !== 'dir') continue
        const re = globSegmentRegex(seg.text, seg.quoted)
        for (const name of fs.list(m.path)) {
          if (name.startsWith('.') && !seg.text.startsWith('.')) continue
          if (re.test(name)) next.push({ path: join(m.path, name), shown: join(m.shown, name) })
        }
      }
      matches = next
    }
    return matches.map((m) => m.shown).sort()
  }

  private param(name: string): string {
    switch (name) {
      case '?':
        return String(this.lastStatus)
      case '$':
        return String(this.pid)
      case '!':
        return this.lastBackgroundPid === undefined ? '' : String(this.lastBackgroundPid)
      case '#':
        return '0'
      case '0':
        return SHELL_NAME
      default:
        return /^\d$/.test(name) ? '' : (this.vars.get(name) ?? '')
    }
  }

  /**
   * `$( … )`: the output, read up to `STDIN_COLLECT_MAX` bytes; past that the command gets
   * SIGPIPE, as when the reader of its pipe stops reading.
   */
  private async substitute(source: string, streams: Streams, signal: AbortSignal): Promise<string> {
    const chunks: Uint8Array[] = []
    let size = 0
    const stage = new AbortController()
    const out: ByteSink = {
      write: (c) => {
        const room = STDIN_COLLECT_MAX - size
        if (room <= 0) {
          stage.abort('PIPE')
          return
        }
        const kept = c.length > room ? c.subarray(0, room) : c
        chunks.push(kept)
        size += kept.length
      },
      ready: () => READY,
    }
    const shell = this.child()
    const status = await withSignals([signal, stage.signal], (either) =>
      shell.runSource(source, { stdin: emptySource, out, err: streams.err }, either),
    )
    this.check(signal)
    this.lastStatus = status
    return new TextDecoder().decode(concatBytes(chunks)).replace(/\n+$/, '')
  }
}

/** A glob segment (no `/`) as an anchored RegExp; quoted characters match themselves. */
function globSegmentRegex(text: string, quoted: readonly boolean[]): RegExp {
  const escape = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  let source = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? ''
    if (quoted[i] === true) source += escape(c)
    else if (c === '*') source += '.*'
    else if (c === '?') source += '.'
    else if (c === '[') {
      const close = text.indexOf(']', i + 2)
      if (close < 0) {
        source += '\\['
        continue
      }
      let body = text.slice(i + 1, close)
      const negate = body.startsWith('!') || body.startsWith('^')
      if (negate) body = body.slice(1)
      source += `[${negate ? '^' : ''}${body.replace(/\\/g, '\\\\')}]`
      i = close
    } else source += escape(c)
  }
  return new RegExp(`^${source}$`, 's')
}
