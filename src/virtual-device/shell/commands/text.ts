/** Small toybox text filters for pipelines: `grep`, `head`, `tail`, `wc`. */
import type { ShellCommand, ShellInvocation } from '../../contract.js'
import { complain, resolve } from './_util.js'

const decoder = new TextDecoder()

/** Reads operands (or stdin); reports missing files as toybox does. */
function inputs(
  inv: ShellInvocation,
  operands: readonly string[],
): { name: string; text: string }[] | undefined {
  if (operands.length === 0) return [{ name: '(standard input)', text: decoder.decode(inv.stdin) }]
  const out: { name: string; text: string }[] = []
  let failed = false
  for (const op of operands) {
    const node = inv.device.fs.stat(resolve(inv, op))
    if (op === '-') out.push({ name: op, text: decoder.decode(inv.stdin) })
    else if (node === undefined || node.kind === 'dir') {
      complain(inv, `${op}: ${node === undefined ? 'No such file or directory' : 'Is a directory'}`)
      failed = true
    } else out.push({ name: op, text: decoder.decode(inv.device.fs.readFile(resolve(inv, op))) })
  }
  return failed && out.length === 0 ? undefined : out
}

function lines(text: string): string[] {
  if (text === '') return []
  const parts = text.split('\n')
  if (parts.at(-1) === '') parts.pop()
  return parts
}

/** POSIX basic regex → JavaScript (swap the meaning of escaped and bare `( ) | { } + ?`). */
function breToJs(pattern: string): string {
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? ''
    if (c === '\\' && i + 1 < pattern.length) {
      const n = pattern[++i] ?? ''
      out += '(){}|+?'.includes(n) ? n : `\\${n}`
    } else out += '(){}|+?'.includes(c) ? `\\${c}` : c
  }
  return out
}

export const grep: ShellCommand = (inv) => {
  const args = inv.argv.slice(1)
  const flags = new Set<string>()
  const patterns: string[] = []
  const operands: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? ''
    if (a === '-e') patterns.push(args[++i] ?? '')
    else if (a.startsWith('-') && a.length > 1) {
      for (const c of a.slice(1)) {
        if (!'vicqEFnwlsh'.includes(c)) {
          complain(inv, `Unknown option '${c}'`)
          return 2
        }
        flags.add(c)
      }
    } else operands.push(a)
  }
  if (patterns.length === 0) {
    const p = operands.shift()
    if (p === undefined) {
      complain(inv, 'Needs 1 argument')
      return 2
    }
    patterns.push(p)
  }
  let regex: RegExp
  try {
    const sources = patterns.map((p) =>
      flags.has('F') ? p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : flags.has('E') ? p : breToJs(p),
    )
    const body = sources.map((s) => (flags.has('w') ? `\\b(?:${s})\\b` : `(?:${s})`)).join('|')
    regex = new RegExp(body, flags.has('i') ? 'i' : '')
  } catch {
    complain(inv, `bad regex '${patterns.join("' '")}'`)
    return 2
  }
  const files = inputs(inv, operands)
  if (files === undefined) return 2
  const prefix = files.length > 1 && !flags.has('h')
  let matched = 0
  let out = ''
  for (const f of files) {
    let count = 0
    for (const [n, line] of lines(f.text).entries()) {
      if (regex.test(line) === flags.has('v')) continue
      count++
      if (flags.has('c') || flags.has('q') || flags.has('l')) continue
      out += `${prefix ? `${f.name}:` : ''}${flags.has('n') ? `${n + 1}:` : ''}${line}\n`
    }
    matched += count
    if (flags.has('c')) out += `${prefix ? `${f.name}:` : ''}${count}\n`
    if (flags.has('l') && count > 0) out += `${f.name}\n`
  }
  if (!flags.has('q')) inv.io.write(out)
  return matched > 0 ? 0 : 1
}

function countArg(args: string[]): { n: number; operands: string[] } {
  let n = 10
  const operands: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? ''
    if (a === '-n') n = Number(args[++i] ?? '10')
    else if (/^-n\d+$/.test(a)) n = Number(a.slice(2))
    else if (/^-\d+$/.test(a)) n = Number(a.slice(1))
    else operands.push(a)
  }
  return { n, operands }
}

export const head: ShellCommand = (inv) => {
  const { n, operands } = countArg(inv.argv.slice(1))
  const files = inputs(inv, operands)
  if (files === undefined) return 1
  inv.io.write(
    files
      .map((f) =>
        lines(f.text)
          .slice(0, n)
          .map((l) => `${l}\n`)
          .join(''),
      )
      .join(''),
  )
  return 0
}

export const tail: ShellCommand = (inv) => {
  const { n, operands } = countArg(inv.argv.slice(1))
  const files = inputs(inv, operands)
  if (files === undefined) return 1
  inv.io.write(
    files
      .map((f) =>
        lines(f.text)
          .slice(Math.max(0, lines(f.text).length - n))
          .map((l) => `${l}\n`)
          .join(''),
      )
      .join(''),
  )
  return 0
}

export const wc: ShellCommand = (inv) => {
  const args = inv.argv.slice(1)
  const flags = args.filter((a) => a.startsWith('-') && a !== '-').join('')
  const operands = args.filter((a) => !a.startsWith('-') || a === '-')
  const files = inputs(inv, operands)
  if (files === undefined) return 1
  const want = flags === '' ? 'lwc' : flags
  let out = ''
  for (const f of files) {
    const counts: number[] = []
    if (want.includes('l')) counts.push((f.text.match(/\n/g) ?? []).length)
    if (want.includes('w')) counts.push(f.text.split(/\s+/).filter((w) => w !== '').length)
    if (want.includes('c')) counts.push(new TextEncoder().encode(f.text).length)
    const cols = counts.map((c) => (counts.length === 1 ? String(c) : String(c).padStart(7)))
    out += `${cols.join(counts.length === 1 ? '' : ' ')}${operands.length > 0 ? ` ${f.name}` : ''}\n`
  }
  inv.io.write(out)
  return 0
}
