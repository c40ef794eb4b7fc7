/**
 * The virtual device's process table (implements `ProcessTable` from contract.ts): a few system
 * processes that never exit, plus whatever the shell, background jobs (`&`) and the simulation
 * spawn. Signals abort the process body's `AbortSignal` with the signal name as the reason.
 */
import type { ProcessTable, VirtualProcess } from '../contract.js'

/** Linux signal numbers (arm64/x86), as `kill -l` lists them. */
export const SIGNALS: Readonly<Record<string, number>> = {
  HUP: 1,
  INT: 2,
  QUIT: 3,
  ILL: 4,
  TRAP: 5,
  ABRT: 6,
  BUS: 7,
  FPE: 8,
  KILL: 9,
  USR1: 10,
  SEGV: 11,
  USR2: 12,
  PIPE: 13,
  ALRM: 14,
  TERM: 15,
  STKFLT: 16,
  CHLD: 17,
  CONT: 18,
  STOP: 19,
  TSTP: 20,
  TTIN: 21,
  TTOU: 22,
  URG: 23,
  XCPU: 24,
  XFSZ: 25,
  VTALRM: 26,
  PROF: 27,
  WINCH: 28,
  IO: 29,
  PWR: 30,
  SYS: 31,
}

/** Signals whose default action is to do nothing (or that the table cannot model: STOP/TSTP). */
const IGNORED = new Set(['CHLD', 'CONT', 'URG', 'WINCH', 'STOP', 'TSTP', 'TTIN', 'TTOU'])

/** What `ps` shows about a process beyond the contract's fields. */
export interface ProcessInfo {
  readonly pid: number
  readonly ppid: number
  readonly name: string
  readonly user: string
  /** Virtual size, KiB. */
  readonly vszK: number
  /** Resident set, KiB. */
  readonly rssK: number
  /** Kernel wait channel (`0` when running). */
  readonly wchan: string
  /** `S` sleeping, `R` running. */
  readonly state: 'S' | 'R'
}

export interface SpawnOptions {
  readonly user?: string
  /** @default 1 (init), or the spawning shell's pid when the shell starts it */
  readonly ppid?: number
}

/** A `ProcessTable` that also reports `ps` columns. */
export interface MemoryProcessTable extends ProcessTable {
  info(pid: number): ProcessInfo | undefined
  spawn(
    name: string,
    body: (signal: AbortSignal) => Promise<number>,
    options?: SpawnOptions,
  ): VirtualProcess
}

interface Entry {
  readonly process: VirtualProcess
  readonly info: ProcessInfo
}

const SYSTEM_PROCESSES: readonly (readonly [
  number,
  number,
  string,
  string,
  number,
  number,
  string,
])[] = [
  [1, 0, 'init', 'root', 10_871_668, 3_240, 'do_epoll_wait'],
  [2, 0, 'kthreadd', 'root', 0, 0, 'kthreadd'],
  // Kernel threads and a threaded interrupt handler the phone-like physics runs (sim/other-processes.ts).
  [13, 2, 'rcu_preempt', 'root', 0, 0, 'rcu_gp_fqs_loop'],
  [95, 2, 'kworker/u16:2', 'root', 0, 0, 'worker_thread'],
  [148, 1, 'ueventd', 'root', 10_813_392, 2_052, 'do_sys_poll'],
  [274, 1, 'logd', 'logd', 10_941_276, 5_928, 'do_epoll_wait'],
  [276, 1, 'servicemanager', 'system', 10_832_620, 3_960, 'do_epoll_wait'],
  [312, 1, 'adbd', 'shell', 10_895_516, 6_316, 'do_epoll_wait'],
  [566, 1, 'surfaceflinger', 'system', 11_268_764, 24_880, 'do_epoll_wait'],
  [640, 1, 'zygote64', 'root', 14_637_004, 96_136, 'do_sys_poll'],
  [417, 2, 'irq/317-dwc3', 'root', 0, 0, 'irq_thread'],
  [1021, 640, 'system_server', 'system', 19_371_928, 255_448, 'do_epoll_wait'],
  [
    1802,
    640,
    'com.google.android.apps.nexuslauncher',
    'u0_a120',
    15_102_344,
    178_204,
    'do_epoll_wait',
  ],
  [1874, 640, 'com.google.android.gms.persistent', 'u0_a146', 15_480_112, 142_560, 'do_epoll_wait'],
]

export function createProcessTable(): MemoryProcessTable {
  const entries = new Map<number, Entry>()
  /** CPUs per pid as `taskset` set them (the kernel keeps a task's mask across exec). */
  const affinities = new Map<number, readonly number[]>()
  let nextPid = 4_317

  const staticProcess = (pid: number, name: string, user: string): VirtualProcess => ({
    pid,
    name,
    user,
    exited: new Promise<number>(() => undefined),
    // System processes belong to other users: the shell cannot signal them.
    kill: () => false,
  })
  for (const [pid, ppid, name, user, vszK, rssK, wchan] of SYSTEM_PROCESSES) {
    entries.set(pid, {
      process: staticProcess(pid, name, user),
      info: { pid, ppid, name, user, vszK, rssK, wchan, state: 'S' },
    })
  }

  const table: MemoryProcessTable = {
    list: () => [...entries.values()].map((e) => e.process).sort((a, b) => a.pid - b.pid),
    get: (pid) => entries.get(pid)?.process,
    info: (pid) => entries.get(pid)?.info,
    affinity: (pid) => (entries.has(pid) ? affinities.get(pid) : undefined),
    setAffinity(pid, cpus) {
      if (!entries.has(pid)) return false
      affinities.set(pid, [...cpus])
      return true
    },
    rename(pid, name) {
      const entry = entries.get(pid)
      if (entry === undefined) return
      const { process } = entry
      entries.set(pid, {
        process: {
          pid,
          name,
          user: process.user,
          exited: process.exited,
          kill: (signal) => process.kill(signal),
        },
        info: { ...entry.info, name },
      })
    },
    spawn(name, body, options = {}) {
      const pid = nextPid
      nextPid += 1 + (nextPid % 5)
      const controller = new AbortController()
      let done = false
      let resolveExit: (status: number) => void = () => undefined
      const exited = new Promise<number>((resolve) => {
        resolveExit = resolve
      })
      const finish = (status: number): void => {
        if (done) return
        done = true
        entries.delete(pid)
        affinities.delete(pid)
        resolveExit(status)
      }
      const user = options.user ?? 'shell'
      const isApp = user.startsWith('u0_') || user === 'system'
      const process: VirtualProcess = {
        pid,
        name,
        user,
        exited,
        kill(signal: string): boolean {
          if (done) return false
          const sig = signal.toUpperCase().replace(/^SIG/, '')
          if (IGNORED.has(sig)) return false
          if (!controller.signal.aborted) controller.abort(sig)
          if (sig === 'KILL') finish(128 + 9)
          return true
        },
      }
      entries.set(pid, {
        process,
        info: {
          pid,
          ppid: options.ppid ?? (isApp ? 640 : 1),
          name,
          user,
          vszK: isApp ? 14_921_000 + (pid % 97) * 1_024 : 10_780_000 + (pid % 89) * 512,
          rssK: isApp ? 98_000 + (pid % 53) * 256 : 3_000 + (pid % 41) * 64,
          wchan: isApp ? 'do_epoll_wait' : 'do_wait',
          state: 'S',
        },
      })
      // The body starts on the next microtask so `spawn` can return first.
      void Promise.resolve()
        .then(() => body(controller.signal))
        .then(
          (status) => finish(status),
          () => {
            const reason: unknown = controller.signal.reason
            const signo = typeof reason === 'string' ? (SIGNALS[reason] ?? 15) : 1
            finish(controller.signal.aborted ? 128 + signo : 1)
          },
        )
      return process
    },
  }
  return table
}
