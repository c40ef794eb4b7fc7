/** `echo` (mksh builtin semantics), `getprop`, `setprop`, and toybox `date`, `which`, `id`, `uname`. */
import type { ShellCommand } from '../../contract.js'
import { complain } from './_util.js'

/** mksh `echo`: `-n`, `-e`, `-E`; backslash escapes are interpreted by default. */
export const echo: ShellCommand = (inv) => {
  let args = inv.argv.slice(1)
  let newline = true
  let escapes = true
  while (args[0] !== undefined && /^-[neE]+$/.test(args[0])) {
    for (const c of args[0].slice(1)) {
      if (c === 'n') newline = false
      else if (c === 'e') escapes = true
      else escapes = false
    }
    args = args.slice(1)
  }
  let text = args.join(' ')
  if (escapes) {
    let out = ''
    for (let i = 0; i < text.length; i++) {
      const c = text[i]
      if (c !== '\\' || i + 1 >= text.length) {
        out += c
        continue
      }
      const n = text[++i] ?? ''
      const map: Record<string, string> = {
        a: '\x07',
        b: '\b',
        e: '\x1b',
        f: '\f',
        n: '\n',
        r: '\r',
        t: '\t',
        v: '\v',
        '\\': '\\',
      }
      if (n === 'c') {
        newline = false
        text = ''
        break
      }
      const mapped = map[n]
      if (mapped !== undefined) out += mapped
      else if (n === '0') {
        const m = /^[0-7]{0,3}/.exec(text.slice(i + 1))?.[0] ?? ''
        out += String.fromCharCode(m === '' ? 0 : parseInt(m, 8) & 0xff)
        i += m.length
      } else out += `\\${n}`
    }
    text = out
  }
  inv.io.write(newline ? `${text}\n` : text)
  return 0
}

export const getprop: ShellCommand = (inv) => {
  const [key, fallback] = inv.argv.slice(1)
  const props = inv.device.props
  if (key === undefined) {
    const keys = [...props.keys()].sort()
    inv.io.write(keys.map((k) => `[${k}]: [${props.get(k) ?? ''}]\n`).join(''))
    return 0
  }
  inv.io.write(`${props.get(key) ?? fallback ?? ''}\n`)
  return 0
}

export const setprop: ShellCommand = (inv) => {
  const [key, value] = inv.argv.slice(1)
  if (key === undefined || value === undefined || inv.argv.length > 3) {
    complain(inv, 'Needs 2 arguments')
    return 1
  }
  if ((key.startsWith('ro.') && inv.device.props.has(key)) || key.length === 0) {
    inv.io.writeErr(`Failed to set property '${key}' to '${value}'.\nSee dmesg for error reason.\n`)
    return 1
  }
  inv.device.props.set(key, value)
  return 0
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** strftime for the conversions toybox `date` users need, in UTC, plus toybox's `%N`. */
export function strftimeUtc(format: string, realtimeNs: number): string {
  const epochMs = Math.floor(realtimeNs / 1e6)
  const d = new Date(epochMs)
  const seconds = Math.floor(realtimeNs / 1e9)
  const nanos = Math.max(0, Math.round(realtimeNs - seconds * 1e9))
  const p2 = (n: number): string => String(n).padStart(2, '0')
  return format.replace(/%([a-zA-Z%])/g, (all, c: string) => {
    switch (c) {
      case 'a':
        return DAYS[d.getUTCDay()] ?? ''
      case 'b':
      case 'h':
        return MONTHS[d.getUTCMonth()] ?? ''
      case 'd':
        return p2(d.getUTCDate())
      case 'e':
        return String(d.getUTCDate()).padStart(2, ' ')
      case 'H':
        return p2(d.getUTCHours())
      case 'M':
        return p2(d.getUTCMinutes())
      case 'S':
        return p2(d.getUTCSeconds())
      case 'm':
        return p2(d.getUTCMonth() + 1)
      case 'y':
        return p2(d.getUTCFullYear() % 100)
      case 'Y':
        return String(d.getUTCFullYear())
      case 'Z':
        return 'UTC'
      case 'z':
        return '+0000'
      case 's':
        return String(seconds)
      case 'N':
        return String(Math.min(nanos, 999_999_999)).padStart(9, '0')
      case 'F':
        return `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}`
      case 'T':
        return `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`
      case 'R':
        return `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}`
      case 'j': {
        const start = Date.UTC(d.getUTCFullYear(), 0, 1)
        return String(Math.floor((epochMs - start) / 86_400_000) + 1).padStart(3, '0')
      }
      case 'n':
        return '\n'
      case 't':
        return '\t'
      case '%':
        return '%'
      default:
        return all
    }
  })
}

export const date: ShellCommand = (inv) => {
  const args = inv.argv.slice(1).filter((a) => a !== '-u')
  const format = args.find((a) => a.startsWith('+'))
  const other = args.find((a) => !a.startsWith('+'))
  if (other !== undefined) {
    complain(inv, `bad date '${other}'`)
    return 1
  }
  const realtimeNs = inv.device.clock.nowNs('realtime')
  inv.io.write(`${strftimeUtc(format?.slice(1) ?? '%a %b %e %H:%M:%S %Z %Y', realtimeNs)}\n`)
  return 0
}

export const which: ShellCommand = (inv) => {
  let status = 0
  for (const name of inv.argv.slice(1).filter((a) => !a.startsWith('-'))) {
    if (inv.device.commands.has(name) || name === 'sh') inv.io.write(`/system/bin/${name}\n`)
    else status = 1
  }
  return status
}

const SHELL_GROUPS =
  '2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs)'

export const id: ShellCommand = (inv) => {
  const flags = inv.argv.slice(1).join('')
  if (flags.includes('u')) inv.io.write(flags.includes('n') ? 'shell\n' : '2000\n')
  else if (flags.includes('g')) inv.io.write(flags.includes('n') ? 'shell\n' : '2000\n')
  else inv.io.write(`uid=2000(shell) gid=2000(shell) groups=${SHELL_GROUPS} context=u:r:shell:s0\n`)
  return 0
}

export const uname: ShellCommand = (inv) => {
  const props = inv.device.props
  const abi = props.get('ro.product.cpu.abi') ?? 'arm64-v8a'
  const machine = abi.startsWith('x86_64') ? 'x86_64' : abi.startsWith('x86') ? 'i686' : 'aarch64'
  const parts: Record<string, string> = {
    s: 'Linux',
    n: 'localhost',
    r:
      props.get('ro.kernel.version.release') ??
      '5.10.157-android13-4-00001-g5c5a4a3b8e1c-ab9627331',
    v: '#1 SMP PREEMPT Tue Feb 14 11:08:52 UTC 2023',
    m: machine,
    o: 'Toybox',
  }
  let flags = inv.argv
    .slice(1)
    .filter((a) => a.startsWith('-'))
    .map((a) => a.slice(1))
    .join('')
  if (flags.includes('a')) flags = 'snrvmo'
  if (flags === '') flags = 's'
  inv.io.write(
    `${[...'snrvmo']
      .filter((c) => flags.includes(c))
      .map((c) => parts[c])
      .join(' ')}\n`,
  )
  return 0
}
