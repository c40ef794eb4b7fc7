/**
 * What the phone's processes and threads did, as toybox shows it: `top` (batch mode, `-H` threads,
 * `-p`, `-o`, `-m`, `-q`, `-s`, `-u`, `-d`, `-n`), `ps -T` (threads), and `/proc/interrupts`.
 * CPU time comes from the simulation's execution slices — the app's threads and, with the phone
 * physics, the other processes' (sim/other-processes.ts) — so `top` agrees with `sched_switch`.
 */
import type { ShellCommand, ShellInvocation, VirtualProcess } from '../contract.js'
import type { ProcessInfo } from '../shell/processes.js'
import { formatRow } from '../shell/commands/proc.js'
import { OTHER_THREADS } from '../sim/other-processes.js'
import { bootNowNs, type SimPhone } from '../sim/phone.js'
import { err, out } from './_util.js'

/** MemTotal of the simulated phone (a Pixel 6 has 8 GB), KiB. */
const MEM_TOTAL_K = 7_869_104
/** Kernel ticks per second (CONFIG_HZ on Pixel 6 kernels). */
const HZ = 250

/** One thread (or, without `-H`, one process) as top lists it. */
interface Task {
  readonly pid: number
  readonly tid: number
  readonly user: string
  readonly process: string
  readonly thread: string
  readonly info: ProcessInfo
  /** CPU time since the phone started, ns. */
  cpuNs: number
  /** CPU time in the last `-d` seconds, ns. */
  recentNs: number
  running: boolean
  readonly kernel: boolean
}

/** Scheduling figures top shows: PR (39 − priority, or −1 − RT priority) and NI. */
function priorityOf(task: { pid: number; tid: number; user: string; thread: string }): {
  pr: string
  ni: number
} {
  if (task.thread.startsWith('irq/')) return { pr: '-51', ni: 0 } // SCHED_FIFO 50
  if (task.pid === OTHER_THREADS.surfaceflinger.pid) return { pr: '-3', ni: -8 }
  if (task.user.startsWith('u0_a') && (task.thread === 'main' || task.thread === 'RenderThread')) {
    return { pr: '10', ni: -10 } // the top app's UI threads
  }
  if (task.pid === OTHER_THREADS.binder.pid) return { pr: '18', ni: -2 }
  return { pr: '20', ni: 0 }
}

/** toybox's human_readable: 1024-based, one decimal below 10 (`4.0M`, `13M`, `11G`). */
function human(bytes: number): string {
  if (bytes < 1024) return String(Math.round(bytes))
  const units = ['K', 'M', 'G', 'T']
  let v = bytes / 1024
  let u = 0
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024
    u++
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)}${units[u]}`
}

/** TIME+: minutes:seconds.hundredths. */
function timePlus(ns: number): string {
  const cs = Math.floor(ns / 1e7)
  const m = Math.floor(cs / 6000)
  const s = Math.floor((cs % 6000) / 100)
  return `${m}:${String(s).padStart(2, '0')}.${String(cs % 100).padStart(2, '0')}`
}

interface Column {
  readonly title: string
  readonly width: number
  readonly value: (t: Task) => string
  /** Sort key, larger first. */
  readonly key: (t: Task) => number | string
}

const pctCpu = (t: Task, periodNs: number): number => (t.recentNs / periodNs) * 100

function columns(periodNs: number): Readonly<Record<string, Column>> {
  const num = (title: string, width: number, f: (t: Task) => number): Column => ({
    title,
    width,
    value: (t) => String(f(t)),
    key: f,
  })
  const text = (title: string, width: number, f: (t: Task) => string): Column => ({
    title,
    width,
    value: f,
    key: f,
  })
  return {
    PID: num('PID', 5, (t) => t.pid),
    TID: num('TID', 5, (t) => t.tid),
    USER: text('USER', -12, (t) => t.user),
    PR: { ...text('PR', 2, (t) => priorityOf(t).pr), key: (t) => Number(priorityOf(t).pr) },
    NI: num('NI', 3, (t) => priorityOf(t).ni),
    VIRT: { ...text('VIRT', 4, (t) => human(t.info.vszK * 1024)), key: (t) => t.info.vszK },
    RES: { ...text('RES', 4, (t) => human(t.info.rssK * 1024)), key: (t) => t.info.rssK },
    SHR: {
      ...text('SHR', 4, (t) => human(Math.round(t.info.rssK * 0.6) * 1024)),
      key: (t) => t.info.rssK,
    },
    S: text('S', -1, (t) => (t.running ? 'R' : 'S')),
    '%CPU': {
      title: '%CPU',
      width: 4,
      value: (t) => pctCpu(t, periodNs).toFixed(1),
      key: (t) => pctCpu(t, periodNs),
    },
    '%MEM': {
      title: '%MEM',
      width: 5,
      value: (t) => ((t.info.rssK / MEM_TOTAL_K) * 100).toFixed(1),
      key: (t) => t.info.rssK,
    },
    'TIME+': { ...text('TIME+', 9, (t) => timePlus(t.cpuNs)), key: (t) => t.cpuNs },
    ARGS: text('ARGS', -27, (t) => (t.kernel ? `[${t.process}]` : t.process)),
    CMDLINE: text('CMDLINE', -27, (t) => (t.kernel ? '' : t.process)),
    NAME: text('NAME', -27, (t) => t.process),
    CMD: text('CMD', -15, (t) => t.thread),
  }
}

/** The threads the phone knows of, by pid: the app's, the other processes', else one main thread. */
function threadsOf(phone: SimPhone, p: VirtualProcess): { tid: number; name: string }[] {
  if (p.pid === phone.sim.pid)
    return phone.sim.threadList().map((t) => ({ tid: t.tid, name: t.name }))
  const others = Object.values(OTHER_THREADS)
    .filter((t) => t.pid === p.pid && t.process === p.name)
    .map((t) => ({ tid: t.tid, name: t.comm }))
  const main = { tid: p.pid, name: p.name.slice(-15) }
  return others.some((t) => t.tid === p.pid) ? others : [main, ...others]
}

/** Every thread of every process, with its CPU time since start and over [nowNs − periodNs, nowNs]. */
export function tasksAt(
  inv: ShellInvocation,
  phone: SimPhone,
  nowNs: number,
  periodNs: number,
): Task[] {
  const table = inv.device.processes as typeof inv.device.processes & {
    info?: (pid: number) => ProcessInfo | undefined
  }
  const byTid = new Map<number, Task>()
  for (const p of table.list()) {
    const info = table.info?.(p.pid) ?? {
      pid: p.pid,
      ppid: 1,
      name: p.name,
      user: p.user,
      vszK: 0,
      rssK: 0,
      wchan: 'do_wait',
      state: 'S' as const,
    }
    for (const t of threadsOf(phone, p)) {
      byTid.set(t.tid, {
        pid: p.pid,
        tid: t.tid,
        user: p.user,
        process: p.name,
        thread: t.name,
        info,
        cpuNs: 0,
        recentNs: 0,
        running: false,
        kernel: info.ppid === 2 || p.pid === 2,
      })
    }
  }
  phone.sim.materialize(nowNs)
  const from = nowNs - periodNs
  for (const s of phone.sim.slices) {
    const task = byTid.get(s.tid)
    // A slice starting right now runs now (a busy thread's next stretch), with no time yet.
    if (task === undefined || s.startNs > nowNs) continue
    task.cpuNs += Math.min(s.endNs, nowNs) - s.startNs
    const recent = Math.min(s.endNs, nowNs) - Math.max(s.startNs, from)
    if (recent > 0) task.recentNs += recent
    if (s.endNs > nowNs) task.running = true
  }
  return [...byTid.values()]
}

/** Per process: its threads summed (top without `-H`). */
function perProcess(tasks: readonly Task[]): Task[] {
  const byPid = new Map<number, Task>()
  for (const t of tasks) {
    const p = byPid.get(t.pid)
    if (p === undefined) {
      byPid.set(t.pid, { ...t, tid: t.pid, thread: t.process.slice(-15) })
      continue
    }
    p.cpuNs += t.cpuNs
    p.recentNs += t.recentNs
    p.running ||= t.running
  }
  return [...byPid.values()]
}

function cpuCount(phone: SimPhone): number {
  return phone.sim.power.clusters.reduce((n, c) => n + c.cores, 0)
}

/** The four summary lines of batch mode. */
function header(tasks: readonly Task[], threads: boolean, cpus: number, periodNs: number): string {
  const running = tasks.filter((t) => t.running).length
  const n3 = (n: number): string => String(n).padStart(3)
  const k9 = (n: number): string => `${String(n).padStart(9)}K`
  const pct = (f: (t: Task) => boolean): number =>
    Math.round(tasks.filter(f).reduce((a, t) => a + pctCpu(t, periodNs), 0))
  const user = pct((t) => !t.kernel)
  const sys = pct((t) => t.kernel)
  const idle = Math.max(0, cpus * 100 - user - sys)
  const used = Math.round(MEM_TOTAL_K * 0.71)
  return [
    `${threads ? 'Threads' : 'Tasks'}: ${tasks.length} total, ${n3(running)} running, ${n3(tasks.length - running)} sleeping, ${n3(0)} stopped, ${n3(0)} zombie`,
    `  Mem:${k9(MEM_TOTAL_K)} total,${k9(used)} used,${k9(MEM_TOTAL_K - used)} free,${k9(43_016)} buffers`,
    ` Swap:${k9(4_194_300)} total,${k9(312_448)} used,${k9(3_881_852)} free,${k9(2_740_112)} cached`,
    `${n3(cpus * 100)}%cpu ${n3(user)}%user ${n3(0)}%nice ${n3(sys)}%sys ${n3(idle)}%idle ${n3(0)}%iow ${n3(0)}%irq ${n3(0)}%sirq ${n3(0)}%host`,
  ].join('\n')
}

/** `top` as toybox runs it without a terminal (batch output; `-b` is implied). */
export function topCommand(phone: SimPhone): ShellCommand {
  return async (inv) => {
    const args = inv.argv.slice(1)
    let threads = false
    let quiet = false
    let iterations = Number.POSITIVE_INFINITY
    let delayS = 3
    let maxLines = Number.POSITIVE_INFINITY
    let sortField = 9
    let spec: string | undefined
    const pids = new Set<number>()
    const users = new Set<string>()
    for (let i = 0; i < args.length; i++) {
      const a = args[i] ?? ''
      if (!a.startsWith('-') || a.length < 2) {
        err(inv, `top: Unknown option '${a}'\n`)
        return 1
      }
      for (let j = 1; j < a.length; j++) {
        const c = a[j] ?? ''
        const rest = a.slice(j + 1)
        const value = (): string => (rest !== '' ? rest : (args[++i] ?? ''))
        if (c === 'H') threads = true
        else if (c === 'b') continue
        else if (c === 'q') quiet = true
        else if ('nmdsopuk'.includes(c)) {
          const v = value()
          if (c === 'n') iterations = Number(v)
          else if (c === 'm') maxLines = Number(v)
          else if (c === 'd') delayS = Number(v)
          else if (c === 's') sortField = Number(v)
          else if (c === 'o') spec = spec === undefined ? v : `${spec},${v}`
          else if (c === 'p') for (const p of v.split(',')) pids.add(Number(p))
          else if (c === 'u') for (const u of v.split(',')) users.add(u)
          // -k: fallback sort order, ignored (ties fall back to the newest pid first)
          if (['n', 'm', 'd', 's'].includes(c) && !(Number(v) >= 0)) {
            err(inv, `top: -${c} ${v}: not a number\n`)
            return 1
          }
          break
        } else {
          err(inv, `top: Unknown option '${c}'\n`)
          return 1
        }
      }
    }
    const periodNs = Math.max(0.1, delayS) * 1e9
    const all = columns(periodNs)
    const wanted = (
      spec ??
      (threads
        ? 'TID,USER,PR,NI,VIRT,RES,SHR,S,%CPU,%MEM,TIME+,CMD:15=THREAD,NAME=PROCESS'
        : 'PID,USER,PR,NI,VIRT,RES,SHR,S,%CPU,%MEM,TIME+,ARGS')
    ).split(',')
    const cols: Column[] = []
    for (const item of wanted) {
      const m = /^([A-Za-z%+]+)(?::(\d+))?(?:=(.*))?$/.exec(item)
      const base = m === null ? undefined : all[(m[1] ?? '').toUpperCase()]
      if (m === null || base === undefined) {
        err(inv, `top: bad -o ${item}\n`)
        return 1
      }
      cols.push({
        ...base,
        title: m[3] ?? base.title,
        width: m[2] === undefined ? base.width : Math.sign(base.width) * Number(m[2]),
      })
    }
    const sortBy = cols[Math.min(cols.length, Math.max(1, sortField)) - 1]
    for (let n = 0; n < iterations; n++) {
      if (n > 0) {
        try {
          await phone.clock.sleep(delayS * 1e9, inv.signal)
        } catch {
          return 0
        }
      }
      const nowNs = bootNowNs(phone)
      const every = tasksAt(inv, phone, nowNs, periodNs)
      let tasks = threads ? every : perProcess(every)
      if (pids.size > 0) tasks = tasks.filter((t) => pids.has(t.pid))
      if (users.size > 0) tasks = tasks.filter((t) => users.has(t.user))
      const key = sortBy?.key
      tasks.sort((a, b) => {
        const ka = key?.(a) ?? 0
        const kb = key?.(b) ?? 0
        if (ka !== kb) return ka < kb ? 1 : -1
        return b.pid - a.pid || b.tid - a.tid
      })
      let text = quiet ? '' : `${header(tasks, threads, cpuCount(phone), periodNs)}\n`
      // The sort column's title is bracketed in place of the spaces around it.
      const titles = formatRow(
        cols,
        cols.map((c) => c.title),
      )
      text += quiet ? '' : bracketSort(titles, cols, sortBy)
      for (const t of tasks.slice(0, maxLines)) {
        text += formatRow(
          cols,
          cols.map((c) => c.value(t)),
        )
      }
      out(inv, text)
    }
    return 0
  }
}

/** Puts `[` `]` around the sort column's title in a header row, as toybox's top marks it. */
function bracketSort(row: string, cols: readonly Column[], sortBy: Column | undefined): string {
  if (sortBy === undefined) return row
  let pos = 0
  for (const c of cols) {
    const w = Math.max(Math.abs(c.width), c.title.length)
    if (c === sortBy) {
      const start = pos + (c.width < 0 ? 0 : w - c.title.length)
      const chars = [...row]
      if (start > 0) chars[start - 1] = '['
      const end = start + c.title.length
      if (end < chars.length - 1) chars[end] = ']'
      else chars.splice(end, 0, ']')
      return chars.join('')
    }
    pos += w + 1
  }
  return row
}

/** `ps` with `-T` (threads) from the simulation; anything else goes to the base device's `ps`. */
export function psCommand(phone: SimPhone, base: ShellCommand | undefined): ShellCommand {
  return (inv) => {
    const args = inv.argv.slice(1)
    const threads = args.some((a) => /^-[A-Za-z]*T/.test(a) && !/^-[op]$/.test(a))
    if (!threads || base === undefined) {
      if (base !== undefined) return base(inv)
      err(inv, 'ps: not available\n')
      return 1
    }
    const pids = new Set<number>()
    let all = false
    for (let i = 0; i < args.length; i++) {
      const a = args[i] ?? ''
      if (a === '-p') for (const p of (args[++i] ?? '').split(',')) pids.add(Number(p))
      else if (/^-[A-Za-z]+$/.test(a) && /[Ae]/.test(a)) all = true
      else if (/^\d+$/.test(a)) pids.add(Number(a))
    }
    const nowNs = bootNowNs(phone)
    let tasks = tasksAt(inv, phone, nowNs, 1e9)
    if (pids.size > 0) tasks = tasks.filter((t) => pids.has(t.pid))
    else if (!all) tasks = tasks.filter((t) => t.user === 'shell' && t.process !== 'adbd')
    tasks.sort((a, b) => a.pid - b.pid || a.tid - b.tid)
    // toybox on Android: ps -T's default columns.
    const cols = [
      { title: 'USER', width: -12, value: (t: Task) => t.user },
      { title: 'PID', width: 5, value: (t: Task) => String(t.pid) },
      { title: 'TID', width: 5, value: (t: Task) => String(t.tid) },
      { title: 'PPID', width: 5, value: (t: Task) => String(t.info.ppid) },
      { title: 'VSZ', width: 7, value: (t: Task) => String(t.info.vszK) },
      { title: 'RSS', width: 6, value: (t: Task) => String(t.info.rssK) },
      { title: 'WCHAN', width: -10, value: (t: Task) => (t.running ? '0' : t.info.wchan) },
      { title: 'ADDR', width: 10, value: () => '0' },
      { title: 'S', width: -1, value: (t: Task) => (t.running ? 'R' : 'S') },
      { title: 'CMD', width: -15, value: (t: Task) => t.thread },
    ]
    let text = formatRow(
      cols,
      cols.map((c) => c.title),
    )
    for (const t of tasks) {
      text += formatRow(
        cols,
        cols.map((c) => c.value(t)),
      )
    }
    out(inv, text)
    return 0
  }
}

/**
 * `/proc/interrupts` at `nowNs`: per CPU, the architected timer (HZ ticks while a CPU is busy —
 * the kernel is tickless when idle — plus one per wake-up), the USB controller's interrupt (one
 * per run of its threaded handler, `irq/317-dwc3`, taken on CPU 0) and rescheduling IPIs (one per
 * wake-up of a thread on another CPU's behalf, taken as one per slice begun).
 */
export function procInterrupts(phone: SimPhone, nowNs: number): string {
  const cpus = cpuCount(phone)
  const timer = new Array<number>(cpus).fill(0)
  const ipi = new Array<number>(cpus).fill(0)
  let usb = 0
  phone.sim.materialize(nowNs)
  for (const s of phone.sim.slices) {
    if (s.startNs >= nowNs) continue
    const busyNs = Math.min(s.endNs, nowNs) - s.startNs
    timer[s.core] = (timer[s.core] ?? 0) + (busyNs * HZ) / 1e9 + 1
    ipi[s.core] = (ipi[s.core] ?? 0) + 1
    if (s.tid === OTHER_THREADS.usbIrq.tid) usb++
  }
  const cell = (n: number): string => String(Math.round(n)).padStart(10)
  const head = `${' '.repeat(5)}${Array.from({ length: cpus }, (_, i) => `CPU${i}`.padStart(11)).join('')}`
  const row = (label: string, counts: readonly number[], what: string): string =>
    `${label.padStart(4)}: ${counts.map(cell).join(' ')} ${what}`
  return `${[
    head,
    row('11', timer, '    GICv3  30 Level     arch_timer'),
    row(
      '317',
      Array.from({ length: cpus }, (_, i) => (i === 0 ? usb : 0)),
      '    GICv3 349 Level     dwc3',
    ),
    row('IPI0', ipi, '      Rescheduling interrupts'),
  ].join('\n')}\n`
}
