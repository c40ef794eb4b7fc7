// What a terminal shows after a program's output: runs a command in a pseudo-terminal (util-linux
// `script`) and replays what it wrote onto a grid of rows and columns, with the escape sequences
// that this package and the test runners write (cursor moves, line erases, colours, private
// modes). An escape sequence it does not know fails the replay: nothing is guessed.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'

/** Whether `script` (util-linux) is on this machine. */
export const hasScript = ['/usr/bin/script', '/bin/script'].some((p) => existsSync(p))

export interface TerminalRun {
  /** Every byte the program wrote to the terminal, as text. */
  readonly raw: string
  /** The screen's rows at the end (trailing spaces and empty last rows dropped). */
  readonly screen: readonly string[]
  readonly code: number
}

/** Runs `command` (a shell command line) in a `columns`-wide pseudo-terminal. */
export async function runInTerminal(
  command: string,
  options: {
    readonly cwd: string
    readonly env: NodeJS.ProcessEnv
    readonly typescript: string
    readonly columns?: number
    readonly timeoutMs?: number
  },
): Promise<TerminalRun> {
  const columns = options.columns ?? 120
  const code = await new Promise<number>((resolve, reject) => {
    execFile(
      'script',
      ['-qfec', `stty cols ${columns} rows 50; ${command}`, options.typescript],
      { cwd: options.cwd, env: options.env, timeout: options.timeoutMs ?? 240_000 },
      (error) => {
        if (error === null) resolve(0)
        else if (typeof error.code === 'number') resolve(error.code)
        else reject(error)
      },
    )
  })
  const raw = (await readFile(options.typescript, 'utf8'))
    .replace(/^Script started[^\n]*\n/, '')
    .replace(/\nScript done[^\n]*\n?$/, '')
  return { raw, screen: replay(raw, columns), code }
}

/** The screen after `output`, `columns` wide (rows grow as output scrolls). */
export function replay(output: string, columns: number): string[] {
  const rows: string[][] = [[]]
  let row = 0
  let col = 0
  const line = (): string[] => (rows[row] ??= [])
  const chars = [...output]
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!
    if (ch === '\x1b') {
      i = escape(chars, i)
      continue
    }
    if (ch === '\r') col = 0
    else if (ch === '\n') row++
    else if (ch === '\b') col = Math.max(0, col - 1)
    else if (ch === '\x07') continue
    else {
      if (col === columns) {
        row++
        col = 0
      }
      line()[col++] = ch
    }
  }
  const screen = Array.from(rows, (r) =>
    Array.from(r ?? [], (c) => c ?? ' ')
      .join('')
      .trimEnd(),
  )
  while (screen.at(-1) === '') screen.pop()
  return screen

  /** Applies the sequence at `chars[start]`; returns the index of its last character. */
  function escape(chars: readonly string[], start: number): number {
    const kind = chars[start + 1]
    if (kind === ']') {
      // Operating system command (a window title): up to BEL or ESC \.
      let j = start + 2
      while (j < chars.length && chars[j] !== '\x07' && chars[j] !== '\x1b') j++
      return chars[j] === '\x1b' ? j + 1 : j
    }
    if (kind !== '[') throw new Error(`unknown escape ESC ${kind ?? '(end)'} at ${start}`)
    let j = start + 2
    let params = ''
    while (j < chars.length && /[0-9;?]/.test(chars[j]!)) params += chars[j++]
    const final = chars[j]
    const n = Number(params === '' ? 1 : params.split(';')[0])
    if (params.startsWith('?') && (final === 'h' || final === 'l')) return j // cursor, sync modes
    switch (final) {
      case 'm': // colours
        return j
      case 'K': {
        const r = line()
        if (params === '' || params === '0') r.length = Math.min(r.length, col)
        else if (params === '2') r.length = 0
        else if (params === '1') for (let k = 0; k <= col; k++) r[k] = ' '
        else break
        return j
      }
      case 'A':
        row = Math.max(0, row - n)
        return j
      case 'B':
        row += n
        return j
      case 'C':
        col = Math.min(columns, col + n)
        return j
      case 'D':
        col = Math.max(0, col - n)
        return j
      case 'G':
        col = Math.max(0, n - 1)
        return j
    }
    throw new Error(`unknown escape ESC [${params}${final ?? '(end)'} at ${start}`)
  }
}
