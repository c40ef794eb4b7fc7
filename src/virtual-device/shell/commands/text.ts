/**
 * Small toybox text filters for pipelines: `grep`, `head`, `tail`, `wc`. They read stdin as it
 * arrives, so `producer | head -n 1` ends once the line is there and `… | grep x` streams.
 */
import { streamingCommand, type StreamingInvocation } from '../streams.js'
import { complain, resolve } from './_util.js'

/** One input of a filter: a file's bytes at once, or stdin as it arrives. */
interface Input {
  readonly name: string
  read(): Promise<Uint8Array | undefined>
}

function fileInput(name: string, bytes: Uint8Array): Input {
  let done = false
  return {
    name,
    read() {
      const out = done ? undefined : bytes
      done = true
      return Promise.resolve(out)
    },
  }
}

/** Opens operands (or stdin); reports missing files first, as toybox does. */
function inputs(inv: StreamingInvocation, operands: readonly string[]): Input[] | undefined {
  const stdin = (name: string): Input => ({ name, read: () => inv.read() })
  if (operands.length === 0) return [stdin('(standard input)')]
  const out: Input[] = []
  let failed = false
  for (const op of operands) {
    const node = inv.device.fs.stat(resolve(inv, op))
    if (op === '-') out.push(stdin(op))
    else if (inv.device.fs.shellDenied(resolve(inv, op))) {
      complain(inv, `${op}: Permission denied`)
      failed = true
    } else if (node === undefined || node.kind === 'dir') {
      complain(inv, `${op}: ${node === undefined ? 'No such file or directory' : 'Is a directory'}`)
      failed = true
    } else out.push(fileInput(op, inv.device.fs.readFile(resolve(inv, op))))
  }
  return failed && out.length === 0 ? undefined : out
}

/**
 * The complete lines (without their `\n`) of each chunk as it arrives, and at the end the last
 * line even without a `\n`; nothing for empty input.
 */
async function* lineBatches(input: Input): AsyncGenerator<string[]> {
  const decoder = new TextDecoder()
  let partial = ''
  for (;;) {
    const chunk = await input.read()
    const text = chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true })
    const parts = `${partial}${text}`.split('\n')
    partial = parts.pop() ?? ''
    if (chunk === undefined) {
      if (partial !== '') parts.push(partial)
      if (parts.length > 0) yield parts
      return
    }
    if (parts.length > 0) yield parts
  }
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

export const grep = streamingCommand(async (inv) => {
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
  const listOnly = flags.has('c') || flags.has('q') || flags.has('l')
  let matched = 0
  for (const f of files) {
    let count = 0
    let n = 0
    for await (const batch of lineBatches(f)) {
      let out = ''
      for (const line of batch) {
        n++
        if (regex.test(line) === flags.has('v')) continue
        count++
        // toybox grep -q exits at the first match (a producer on its stdin then gets SIGPIPE).
        if (flags.has('q')) return 0
        if (listOnly) continue
        out += `${prefix ? `${f.name}:` : ''}${flags.has('n') ? `${n}:` : ''}${line}\n`
      }
      if (out !== '') {
        inv.io.write(out)
        await inv.drained()
      }
    }
    matched += count
    let summary = ''
    if (flags.has('c')) summary += `${prefix ? `${f.name}:` : ''}${count}\n`
    if (flags.has('l') && count > 0) summary += `${f.name}\n`
    if (summary !== '') inv.io.write(summary)
  }
  return matched > 0 ? 0 : 1
})

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

/** toybox head: the first `n` lines byte for byte (an unterminated last line stays so). */
export const head = streamingCommand(async (inv) => {
  const { n, operands } = countArg(inv.argv.slice(1))
  const files = inputs(inv, operands)
  if (files === undefined) return 1
  for (const f of files) {
    let remaining = Number.isFinite(n) ? Math.max(0, Math.floor(n)) : 0
    while (remaining > 0) {
      const chunk = await f.read()
      if (chunk === undefined) break
      let end = 0
      while (remaining > 0 && end < chunk.length) {
        const newline = chunk.indexOf(0x0a, end)
        if (newline < 0) end = chunk.length
        else {
          end = newline + 1
          remaining--
        }
      }
      inv.io.write(chunk.subarray(0, end))
      await inv.drained()
    }
  }
  return 0
})

export const tail = streamingCommand(async (inv) => {
  const { n, operands } = countArg(inv.argv.slice(1))
  const files = inputs(inv, operands)
  if (files === undefined) return 1
  const keep = Number.isFinite(n) ? Math.max(0, Math.floor(n)) : 0
  let out = ''
  for (const f of files) {
    let last: string[] = []
    for await (const batch of lineBatches(f)) {
      last = last.concat(batch)
      if (last.length > keep) last = last.slice(last.length - keep)
    }
    out += last.map((l) => `${l}\n`).join('')
  }
  inv.io.write(out)
  return 0
})

/** Counts as toybox wc: newlines, words (runs of non-blanks), bytes. */
async function count(input: Input): Promise<{ lines: number; words: number; bytes: number }> {
  const decoder = new TextDecoder()
  let lines = 0
  let words = 0
  let bytes = 0
  let inWord = false
  for (;;) {
    const chunk = await input.read()
    const text = chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true })
    if (chunk !== undefined) {
      bytes += chunk.length
      for (const b of chunk) if (b === 0x0a) lines++
    }
    if (text !== '') {
      const runs = text.match(/\S+/g)?.length ?? 0
      // A word cut by the chunk boundary was counted with the previous chunk.
      words += runs - (inWord && /^\S/.test(text) ? 1 : 0)
      inWord = /\S$/.test(text)
    }
    if (chunk === undefined) return { lines, words, bytes }
  }
}

export const wc = streamingCommand(async (inv) => {
  const args = inv.argv.slice(1)
  const flags = args.filter((a) => a.startsWith('-') && a !== '-').join('')
  const operands = args.filter((a) => !a.startsWith('-') || a === '-')
  const files = inputs(inv, operands)
  if (files === undefined) return 1
  const want = flags === '' ? 'lwc' : flags
  let out = ''
  for (const f of files) {
    const c = await count(f)
    const counts: number[] = []
    if (want.includes('l')) counts.push(c.lines)
    if (want.includes('w')) counts.push(c.words)
    if (want.includes('c')) counts.push(c.bytes)
    const cols = counts.map((v) => (counts.length === 1 ? String(v) : String(v).padStart(7)))
    out += `${cols.join(counts.length === 1 ? '' : ' ')}${operands.length > 0 ? ` ${f.name}` : ''}\n`
  }
  inv.io.write(out)
  return 0
})
