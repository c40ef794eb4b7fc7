/** toybox process commands: `ps`, `pidof`, `kill`, `sleep`. */
import type { ProcessTable, ShellCommand, VirtualProcess } from '../../contract.js'
import { SIGNALS, type ProcessInfo } from '../processes.js'
import { complain } from './_util.js'

function infoOf(table: ProcessTable, p: VirtualProcess): ProcessInfo {
  const withInfo = table as ProcessTable & { info?: (pid: number) => ProcessInfo | undefined }
  return (
    withInfo.info?.(p.pid) ?? {
      pid: p.pid,
      ppid: 1,
      name: p.name,
      user: p.user,
      vszK: 10_780_000,
      rssK: 3_000,
      wchan: 'do_wait',
      state: 'S',
    }
  )
}

/** A `ps -o` field: title, toybox width (negative = left-justified), value. */
interface Field {
  readonly title: string
  readonly width: number
  readonly numeric: boolean
  readonly value: (p: ProcessInfo) => string
}

const FIELDS: Readonly<Record<string, Omit<Field, 'title'> & { title?: string }>> = {
  PID: { width: 5, numeric: true, value: (p) => String(p.pid) },
  PPID: { width: 5, numeric: true, value: (p) => String(p.ppid) },
  VSZ: { width: 7, numeric: true, value: (p) => String(p.vszK) },
  VSIZE: { width: 7, numeric: true, value: (p) => String(p.vszK), title: 'VSZ' },
  RSS: { width: 6, numeric: true, value: (p) => String(p.rssK) },
  ADDR: { width: 12, numeric: true, value: () => '0' },
  UID: { width: 5, numeric: true, value: (p) => String(uidOf(p.user)) },
  USER: { width: -12, numeric: false, value: (p) => p.user },
  WCHAN: { width: -6, numeric: false, value: (p) => p.wchan },
  S: { width: -1, numeric: false, value: (p) => p.state },
  NAME: { width: -27, numeric: false, value: (p) => p.name },
  CMD: { width: -15, numeric: false, value: (p) => p.name.slice(0, 15) },
  COMM: { width: -27, numeric: false, value: (p) => p.name },
  ARGS: { width: -27, numeric: false, value: (p) => p.name },
  CMDLINE: { width: -27, numeric: false, value: (p) => p.name },
}

/** Uid from a `ps` user name: `u0_a120` → 10120, `system` → 1000; 9999 (nobody) when unknown. */
export function uidOf(user: string): number {
  const fixed: Record<string, number> = { root: 0, system: 1000, shell: 2000, logd: 1036 }
  const known = fixed[user]
  if (known !== undefined) return known
  const app = /^u0_a(\d+)$/.exec(user)
  return app === null ? 9999 : 10_000 + Number(app[1])
}

function parseFieldList(spec: string): Field[] | string {
  const out: Field[] = []
  for (const item of spec.split(',')) {
    const m = /^([A-Za-z%+]+)(?::(\d+))?(?:=(.*))?$/.exec(item)
    const base = m === null ? undefined : FIELDS[(m[1] ?? '').toUpperCase()]
    if (m === null || base === undefined) return item
    const width = m[2] === undefined ? base.width : Math.sign(base.width) * Number(m[2])
    out.push({
      title: m[3] ?? base.title ?? (m[1] ?? '').toUpperCase(),
      width,
      numeric: base.numeric,
      value: base.value,
    })
  }
  return out
}

/**
 * toybox show_ps(): one space between fields, overflow borrowed back from later slack (negative
 * width = left-justified). Also top's rows (commands/top.ts).
 */
export function formatRow(
  fields: readonly { readonly width: number }[],
  values: readonly string[],
): string {
  let line = ''
  let extra = 0
  for (const [i, field] of fields.entries()) {
    const out = values[i] ?? ''
    if (i > 0) line += ' '
    let abslen = Math.abs(field.width)
    const left = field.width < 0
    const olen = out.length
    // Not a tty, so toybox sets -w: every field may overflow.
    if (olen > abslen) {
      extra += olen - abslen
      abslen = olen
    } else if (extra > 0 && olen < abslen) {
      const unused = Math.min(abslen - olen, extra)
      abslen -= unused
      extra -= unused
    }
    if (i === fields.length - 1 && left) line += out
    else line += left ? out.padEnd(abslen) : out.padStart(abslen)
  }
  return `${line}\n`
}

const ANDROID_DEFAULT = 'USER,PID,PPID,VSIZE,RSS,WCHAN:10,ADDR:10,S,NAME'

export const ps: ShellCommand = (inv) => {
  const args = inv.argv.slice(1)
  let all = false
  let spec = ANDROID_DEFAULT
  const pids = new Set<number>()
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? ''
    if (a === '-o') spec = args[++i] ?? ''
    else if (a === '-p') for (const p of (args[++i] ?? '').split(',')) pids.add(Number(p))
    else if (a.startsWith('-')) {
      for (const c of a.slice(1)) {
        if (c === 'A' || c === 'e') all = true
        else if (c === 'o') spec = args[++i] ?? ''
        else if (!'wTZ'.includes(c)) {
          complain(inv, `Unknown option '${c}'`)
          return 1
        }
      }
    } else if (/^\d+$/.test(a)) pids.add(Number(a))
  }
  const fields = parseFieldList(spec)
  if (typeof fields === 'string') {
    complain(inv, `bad -o ${fields}`)
    return 1
  }
  const table = inv.device.processes
  let procs = table.list().map((p) => infoOf(table, p))
  if (pids.size > 0) procs = procs.filter((p) => pids.has(p.pid))
  else if (!all) procs = procs.filter((p) => p.user === 'shell' && p.name !== 'adbd')
  let out = formatRow(
    fields,
    fields.map((f) => f.title),
  )
  for (const p of procs)
    out += formatRow(
      fields,
      fields.map((f) => f.value(p)),
    )
  inv.io.write(out)
  return 0
}

export const pidof: ShellCommand = (inv) => {
  const args = inv.argv.slice(1)
  const single = args.includes('-s')
  const names = args.filter((a) => !a.startsWith('-'))
  const found: number[] = []
  for (const name of names) {
    const matches = inv.device.processes
      .list()
      .filter((p) => p.name === name || p.name.slice(p.name.lastIndexOf('/') + 1) === name)
      .map((p) => p.pid)
      // toybox walks /proc in readdir order, i.e. ascending pids
      .sort((a, b) => a - b)
    found.push(...(single ? matches.slice(0, 1) : matches))
  }
  if (found.length === 0) return 1
  inv.io.write(`${found.join(' ')}\n`)
  return 0
}

function signalNumber(name: string): number | undefined {
  if (/^\d+$/.test(name)) {
    const n = Number(name)
    return Object.values(SIGNALS).includes(n) || n === 0 ? n : undefined
  }
  return SIGNALS[name.toUpperCase().replace(/^SIG/, '')]
}

function signalName(n: number): string | undefined {
  return Object.entries(SIGNALS).find(([, v]) => v === n)?.[0]
}

/**
 * `kill` as Android users meet it: mksh's builtin (it shadows toybox's /system/bin/kill), so errors
 * read `/system/bin/sh: kill: 1234: No such process` (seen in real captures), status 1.
 * Old-style `-SIGNAL`/`-N` only for digits or upper case, as mksh's c_kill.
 */
export const kill: ShellCommand = (inv) => {
  const complainSh = (message: string): void => {
    inv.io.writeErr(`/system/bin/sh: kill: ${message}\n`)
  }
  let args = inv.argv.slice(1)
  if (args[0] === '-l') {
    const rest = args.slice(1)
    if (rest.length === 0) {
      const lines = Object.entries(SIGNALS).map(([k, v]) => `${String(v).padStart(2)}) SIG${k}`)
      inv.io.write(`${lines.join('\n')}\n`)
    } else {
      for (const r of rest) {
        const n = signalNumber(r)
        inv.io.write(/^\d+$/.test(r) ? `${signalName(n ?? -1) ?? 'UNKNOWN'}\n` : `${n ?? -1}\n`)
      }
    }
    return 0
  }
  let sigArg: string | undefined
  if (args[0] === '-s') {
    sigArg = args[1] ?? ''
    args = args.slice(2)
  } else if (args[0] !== undefined && /^-[0-9A-Z]/.test(args[0])) {
    sigArg = args[0].slice(1)
    args = args.slice(args[1] === '--' ? 2 : 1)
  } else if (args[0] !== undefined && /^-./.test(args[0]) && args[0] !== '--') {
    complainSh(`${args[0].slice(0, 2)}: unknown option`)
    return 1
  }
  let signo = 15
  if (sigArg !== undefined) {
    const n = signalNumber(sigArg)
    if (n === undefined) {
      complainSh(`bad signal '${sigArg}'`)
      return 1
    }
    signo = n
  }
  if (args.length === 0) {
    complainSh('usage: kill [-s signame | -signum | -signame] { job | pid | pgrp } ...')
    return 1
  }
  let status = 0
  for (const arg of args) {
    if (!/^-?\d+$/.test(arg)) {
      complainSh(`${arg}: arguments must be jobs or process IDs`)
      status = 1
      continue
    }
    const proc = inv.device.processes.get(Number(arg))
    if (proc === undefined) {
      complainSh(`${arg}: No such process`)
      status = 1
      continue
    }
    if (proc.user !== 'shell') {
      complainSh(`${arg}: Operation not permitted`)
      status = 1
      continue
    }
    if (signo !== 0) proc.kill(signalName(signo) ?? 'TERM')
  }
  return status
}

const SLEEP_UNITS: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }

export const sleep: ShellCommand = async (inv) => {
  const args = inv.argv.slice(1)
  if (args.length === 0) {
    complain(inv, 'Needs 1 argument')
    return 1
  }
  let totalS = 0
  for (const a of args) {
    const m = /^(\d*\.?\d+|\d+\.)([smhd]?)$/.exec(a)
    if (m === null) {
      complain(inv, `Not a number '${a}'`)
      return 1
    }
    totalS += Number(m[1]) * (SLEEP_UNITS[m[2] ?? ''] ?? 1)
  }
  try {
    await inv.device.clock.sleep(totalS * 1e9, inv.signal)
  } catch {
    return 130
  }
  return 0
}
