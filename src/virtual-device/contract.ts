/**
 * The seams inside the virtual device, so its parts can be built separately:
 *
 *   adb/      the ADB host-protocol server (host:*, transport, shell:, sync:) → talks to a VirtualDeviceHandle
 *   shell/    a small /system/bin/sh (quoting, ; && || | > &, while/for loops) that runs ShellCommands
 *   sim/      the simulated phone: app model, physics, sensors, ground truth; registers its ShellCommands
 *
 * Nothing here is imported by product code: product code reaches the virtual device only over ADB.
 */
import type { Duplex } from 'node:stream'

/** Device clocks the simulation keeps. All in nanoseconds. */
export type DeviceClockName = 'boottime' | 'monotonic' | 'realtime'

/**
 * The device's sense of time. In real-time mode it follows the host's monotonic clock; in fast mode
 * (benchmarks) simulated work completes at once and `sleep` jumps the clocks forward.
 */
export interface DeviceClock {
  /** Current time on the named device clock, ns. */
  nowNs(clock: DeviceClockName): number
  /** Waits `durationNs` of device time. Rejects with an AbortError when `signal` aborts. */
  sleep(durationNs: number, signal?: AbortSignal): Promise<void>
}

/** One node of the device's file system. Dynamic nodes (sysfs, /proc) compute their bytes on read. */
export type VirtualFileNode =
  | { readonly kind: 'file'; data: Uint8Array; mode: number; mtimeS: number }
  | {
      readonly kind: 'dynamic'
      readonly read: () => Uint8Array
      readonly mode: number
      /** Writes to e.g. sysfs nodes; absent = read-only (`Permission denied`). */
      readonly write?: (data: Uint8Array) => void
    }
  | { readonly kind: 'dir'; mode: number; mtimeS: number }

export interface VirtualFs {
  /** `undefined` when the path does not exist. Paths are absolute and normalized. */
  stat(path: string): VirtualFileNode | undefined
  readFile(path: string): Uint8Array
  writeFile(path: string, data: Uint8Array, mode?: number): void
  appendFile(path: string, data: Uint8Array): void
  remove(path: string): void
  /** Names (not paths) directly inside a directory, sorted. */
  list(path: string): string[]
  mkdirp(path: string): void
  /**
   * True when SELinux keeps the `shell` user out of `path` (it is, or is below, a directory whose
   * label shell may not search or read, such as `/vendor/overlay` on a user build): `ls`, `cat`
   * and adb's sync service answer `Permission denied` while the phone's own services read it.
   */
  shellDenied(path: string): boolean
  /** Keeps the `shell` user out of `dir` and everything below it (see `shellDenied`). */
  denyShell(dir: string): void
  /** Sets a file's or directory's mtime, seconds. */
  setMtime(path: string, mtimeS: number): void
  /** Adds a node whose content is computed when read. */
  defineDynamic(
    path: string,
    node: Omit<Extract<VirtualFileNode, { kind: 'dynamic' }>, 'kind'>,
  ): void
}

/** A process in `ps -A`: apps, background tools (simpleperf record, perfetto --background), shells. */
export interface VirtualProcess {
  readonly pid: number
  /** Process name as `ps` prints it (package name for apps). */
  readonly name: string
  readonly user: string
  /** Resolves with the exit status when the process ends. */
  readonly exited: Promise<number>
  /** Delivers a signal (`INT`, `TERM`, `KILL`, ...). Returns false when the process ignores it. */
  kill(signal: string): boolean
}

export interface ProcessTable {
  list(): VirtualProcess[]
  get(pid: number): VirtualProcess | undefined
  /**
   * Starts a process that runs `body` until it returns or is signalled (`signal` aborts on
   * INT/TERM/KILL, with the signal name as `signal.reason`).
   */
  spawn(
    name: string,
    body: (signal: AbortSignal) => Promise<number>,
    options?: { user?: string },
  ): VirtualProcess
  /**
   * `exec` in a shell: the process keeps its pid, parent and signals and takes the new program's
   * name (what `ps` and `pidof` show). Nothing happens when `pid` is not running.
   */
  rename(pid: number, name: string): void
  /**
   * The CPUs `pid` may run on as `sched_setaffinity` (`taskset`) set them; `undefined` when never
   * set (every CPU of the phone) or when `pid` is not running. `exec` keeps it.
   */
  affinity(pid: number): readonly number[] | undefined
  /** Sets the CPUs `pid` may run on; false when `pid` is not running. */
  setAffinity(pid: number, cpus: readonly number[]): boolean
}

/**
 * Where a device's CPU-bound shell processes run (`yes`): the simulation's scheduler, which draws
 * their power and shows them in `sched_switch`, `top` and the ground truth.
 */
export interface CpuHost {
  /** The phone's CPU numbers, as `/sys/devices/system/cpu/possible` lists them. */
  readonly cpus: readonly number[]
  /**
   * Runs process `pid`'s one thread (tid = pid, `comm`) from now on, busy all the time, on one of
   * the CPUs `allowed()` returns (asked again as it runs, so `taskset -p` moves it), until `stop()`.
   */
  spin(
    process: { readonly pid: number; readonly name: string; readonly comm: string },
    allowed: () => readonly number[],
  ): { stop(): void }
}

/** Byte sinks for a running command. */
export interface ShellIo {
  write(chunk: string | Uint8Array): void
  writeErr(chunk: string | Uint8Array): void
}

export interface ShellInvocation {
  /** `argv[0]` is the command name as typed. */
  readonly argv: readonly string[]
  /** What a pipe or `<` redirect fed in; empty otherwise. */
  readonly stdin: Uint8Array
  readonly io: ShellIo
  readonly device: VirtualDeviceHandle
  /** Aborts when the ADB client disconnects or the command is killed. */
  readonly signal: AbortSignal
  /** The shell's working directory (absolute) for relative paths; `/` when absent (adbd's default). */
  readonly cwd?: string
  /** The process the command runs as (its `getpid()`), when it runs in the process table. */
  readonly pid?: number
  /**
   * Its stdout goes nowhere (`> /dev/null`, a background job's unredirected output): a command
   * that only produces output (`yes`) need not make any.
   */
  readonly stdoutDiscarded?: boolean
}

/** A shell command: resolves with the exit status, as `/system/bin/sh` would report it. */
export type ShellCommand = (invocation: ShellInvocation) => Promise<number> | number

/** What the ADB server and the shell need from a device. */
export interface VirtualDeviceHandle {
  readonly serial: string
  /** `device`, `offline`, `unauthorized` as `adb devices` shows it. */
  state: 'device' | 'offline' | 'unauthorized'
  readonly props: Map<string, string>
  readonly fs: VirtualFs
  readonly processes: ProcessTable
  readonly clock: DeviceClock
  /** Commands by name; the shell looks them up here (`getprop`, `dumpsys`, `am`, ...). */
  readonly commands: Map<string, ShellCommand>
  /** Every shell command line received, for test assertions. */
  readonly commandLog: string[]
  /** Where CPU-bound shell processes run; set by the simulation (absent on a bare device). */
  cpu?: CpuHost
  /**
   * Servers listening on the phone's loopback, by TCP port (the UiAutomator2 server on 6790): the
   * ADB server's `tcp:<port>` service and `adb forward` hand each connection to the listener.
   */
  readonly tcpListeners: Map<number, (connection: Duplex) => void>
}
