/**
 * Parser for the subset of mksh (`/system/bin/sh` on Android) the virtual device understands:
 * quoting ('…', "…", \x, $'…'), `$VAR` `${VAR}` `$?` `$$` `$!` `$#`, `$(…)` and `…` substitution,
 * `$((…))` arithmetic, pathname expansion (`*` `?` `[…]`),
 * `;` `&` `&&` `||` `|` `!`, redirections (`>` `>>` `<` `N>` `N>&M`), `while`/`until`, `for`,
 * `if`, `{ …; }` and `( … )`. Reference: mksh R59 man page (sections "Quoting", "Commands").
 */

/** A piece of a word: literal text, or a parameter / command substitution to expand. */
export type WordPart =
  | { readonly kind: 'text'; readonly text: string; readonly quoted: boolean }
  | { readonly kind: 'param'; readonly name: string; readonly quoted: boolean }
  | { readonly kind: 'subst'; readonly source: string; readonly quoted: boolean }
  | { readonly kind: 'arith'; readonly source: string; readonly quoted: boolean }

export interface Word {
  readonly parts: readonly WordPart[]
  /** The unquoted literal spelling when the word has no quoting or expansion (for keywords). */
  readonly bare: string | undefined
}

export interface Redirect {
  readonly fd: number
  readonly op: '>' | '>>' | '<' | '>&' | '<&'
  readonly target: Word
}

export interface SimpleCommand {
  readonly type: 'simple'
  readonly assignments: readonly { readonly name: string; readonly value: Word }[]
  readonly words: readonly Word[]
  readonly redirects: readonly Redirect[]
}

export interface LoopCommand {
  readonly type: 'while' | 'until'
  readonly condition: ListNode
  readonly body: ListNode
  readonly redirects: readonly Redirect[]
}

export interface ForCommand {
  readonly type: 'for'
  readonly variable: string
  /** `undefined` = `for x; do` (iterates "$@", empty here). */
  readonly items: readonly Word[] | undefined
  readonly body: ListNode
  readonly redirects: readonly Redirect[]
}

export interface IfCommand {
  readonly type: 'if'
  readonly branches: readonly { readonly condition: ListNode; readonly body: ListNode }[]
  readonly otherwise: ListNode | undefined
  readonly redirects: readonly Redirect[]
}

export interface GroupCommand {
  readonly type: 'group' | 'subshell'
  readonly body: ListNode
  readonly redirects: readonly Redirect[]
}

export type CommandNode = SimpleCommand | LoopCommand | ForCommand | IfCommand | GroupCommand

export interface Pipeline {
  readonly negated: boolean
  readonly commands: readonly CommandNode[]
}

export interface AndOr {
  readonly first: Pipeline
  readonly rest: readonly { readonly op: '&&' | '||'; readonly pipeline: Pipeline }[]
  readonly background: boolean
}

export interface ListNode {
  readonly items: readonly AndOr[]
}

/** A syntax error, phrased the way mksh phrases it (after `/system/bin/sh: `). */
export class ShellSyntaxError extends Error {
  override readonly name = 'ShellSyntaxError'
}

type Token =
  | { readonly t: 'word'; readonly word: Word }
  | { readonly t: 'op'; readonly op: string }
  | { readonly t: 'io'; readonly fd: number }
  | { readonly t: 'newline' }
  | { readonly t: 'eof' }

const OPERATORS = ['&&', '||', ';;', '>>', '>&', '<&', '>|', ';', '&', '|', '(', ')', '<', '>']
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/

function cEscape(src: string, i: number): { text: string; next: number } {
  // src[i] is the character after the backslash inside $'…'
  const c = src[i] ?? ''
  const simple: Record<string, string> = {
    a: '\x07',
    b: '\b',
    e: '\x1b',
    E: '\x1b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '?': '?',
  }
  const known = simple[c]
  if (known !== undefined) return { text: known, next: i + 1 }
  if (/[0-7]/.test(c)) {
    const m = /^[0-7]{1,3}/.exec(src.slice(i)) ?? ['0']
    return { text: String.fromCharCode(parseInt(m[0], 8) & 0xff), next: i + m[0].length }
  }
  if (c === 'x') {
    const m = /^[0-9A-Fa-f]{1,2}/.exec(src.slice(i + 1))
    if (m === null) return { text: '\\x', next: i + 1 }
    return { text: String.fromCharCode(parseInt(m[0], 16)), next: i + 1 + m[0].length }
  }
  if (c === 'u' || c === 'U') {
    const m = (c === 'u' ? /^[0-9A-Fa-f]{1,4}/ : /^[0-9A-Fa-f]{1,8}/).exec(src.slice(i + 1))
    if (m === null) return { text: `\\${c}`, next: i + 1 }
    return { text: String.fromCodePoint(parseInt(m[0], 16)), next: i + 1 + m[0].length }
  }
  if (c === 'c' && i + 1 < src.length) {
    return { text: String.fromCharCode((src.charCodeAt(i + 1) ?? 0) & 0x1f), next: i + 2 }
  }
  return { text: `\\${c}`, next: i + 1 }
}

/** Finds the `)` closing a `$(` whose body starts at `start`; returns its index. */
function matchParen(src: string, start: number): number {
  let depth = 1
  let i = start
  while (i < src.length) {
    const c = src[i]
    if (c === '\\') i += 2
    else if (c === "'") {
      const end = src.indexOf("'", i + 1)
      if (end < 0) throw new ShellSyntaxError('no closing quote')
      i = end + 1
    } else if (c === '"') {
      i++
      while (i < src.length && src[i] !== '"') i += src[i] === '\\' ? 2 : 1
      i++
    } else if (c === '(') {
      depth++
      i++
    } else if (c === ')') {
      depth--
      if (depth === 0) return i
      i++
    } else i++
  }
  throw new ShellSyntaxError('no closing quote')
}

class Lexer {
  private i = 0
  constructor(private readonly src: string) {}

  next(): Token {
    const src = this.src
    // skip blanks and comments
    for (;;) {
      const c = src[this.i]
      if (c === ' ' || c === '\t') this.i++
      else if (c === '\\' && src[this.i + 1] === '\n') this.i += 2
      else if (c === '#') {
        while (this.i < src.length && src[this.i] !== '\n') this.i++
      } else break
    }
    if (this.i >= src.length) return { t: 'eof' }
    const c = src[this.i]
    if (c === '\n') {
      this.i++
      return { t: 'newline' }
    }
    const io = /^(\d+)(?=[<>])/.exec(src.slice(this.i, this.i + 12))
    if (io !== null) {
      this.i += io[0].length
      return { t: 'io', fd: Number(io[1]) }
    }
    for (const op of OPERATORS) {
      if (src.startsWith(op, this.i)) {
        this.i += op.length
        return { t: 'op', op }
      }
    }
    return { t: 'word', word: this.word() }
  }

  private word(): Word {
    const src = this.src
    const parts: WordPart[] = []
    let text = ''
    let bare = true
    const flush = (quoted: boolean): void => {
      if (text !== '') parts.push({ kind: 'text', text, quoted })
      text = ''
    }
    while (this.i < src.length) {
      const c = src[this.i] ?? ''
      if (/[\s;&|()<>]/.test(c)) break
      if (c === '\\') {
        bare = false
        flush(false)
        const n = src[this.i + 1]
        this.i += 2
        if (n === undefined) text += '\\'
        else if (n !== '\n') text += n
        flush(true)
      } else if (c === "'") {
        bare = false
        flush(false)
        const end = src.indexOf("'", this.i + 1)
        if (end < 0) throw new ShellSyntaxError('no closing quote')
        parts.push({ kind: 'text', text: src.slice(this.i + 1, end), quoted: true })
        this.i = end + 1
      } else if (c === '$' && src[this.i + 1] === "'") {
        bare = false
        flush(false)
        this.i += 2
        let out = ''
        for (;;) {
          if (this.i >= src.length) throw new ShellSyntaxError('no closing quote')
          const d = src[this.i]
          if (d === "'") break
          if (d === '\\') {
            const e = cEscape(src, this.i + 1)
            out += e.text
            this.i = e.next
          } else {
            out += d
            this.i++
          }
        }
        this.i++
        parts.push({ kind: 'text', text: out, quoted: true })
      } else if (c === '"') {
        bare = false
        flush(false)
        this.i++
        this.doubleQuoted(parts)
      } else if (c === '$' || c === '`') {
        const p = this.dollar(false)
        if (p === undefined) {
          text += c
          this.i++
        } else {
          bare = false
          flush(false)
          parts.push(p)
        }
      } else {
        text += c
        this.i++
      }
    }
    const bareText = bare ? text : undefined
    flush(false)
    return { parts, bare: bareText }
  }

  private doubleQuoted(parts: WordPart[]): void {
    const src = this.src
    let text = ''
    // Even "" must produce a (quoted, empty) part so the word is not dropped.
    let producedAny = false
    const flush = (): void => {
      parts.push({ kind: 'text', text, quoted: true })
      producedAny = true
      text = ''
    }
    for (;;) {
      if (this.i >= src.length) throw new ShellSyntaxError('no closing quote')
      const c = src[this.i] ?? ''
      if (c === '"') {
        this.i++
        break
      }
      if (c === '\\') {
        const n = src[this.i + 1] ?? ''
        if (n === '$' || n === '`' || n === '"' || n === '\\') text += n
        else if (n !== '\n') text += `\\${n}`
        this.i += 2
      } else if (c === '$' || c === '`') {
        const p = this.dollar(true)
        if (p === undefined) {
          text += c
          this.i++
        } else {
          if (text !== '') flush()
          parts.push(p)
          producedAny = true
        }
      } else {
        text += c
        this.i++
      }
    }
    if (text !== '' || !producedAny) flush()
  }

  /** At `$` or a backquote: a parameter or substitution, or `undefined` for a literal `$`. */
  private dollar(quoted: boolean): WordPart | undefined {
    const src = this.src
    if (src[this.i] === '`') {
      const end = src.indexOf('`', this.i + 1)
      if (end < 0) throw new ShellSyntaxError('no closing quote')
      const source = src.slice(this.i + 1, end)
      this.i = end + 1
      return { kind: 'subst', source, quoted }
    }
    const n = src[this.i + 1] ?? ''
    if (n === '(' && src[this.i + 2] === '(') {
      // $(( arithmetic )): the body ends at the `)` closing the inner `(`, followed by `)`.
      const end = matchParen(src, this.i + 3)
      if (src[end + 1] !== ')') throw new ShellSyntaxError("missing ')'")
      const source = src.slice(this.i + 3, end)
      this.i = end + 2
      return { kind: 'arith', source, quoted }
    }
    if (n === '(') {
      const end = matchParen(src, this.i + 2)
      const source = src.slice(this.i + 2, end)
      this.i = end + 1
      return { kind: 'subst', source, quoted }
    }
    if (n === '{') {
      const end = src.indexOf('}', this.i + 2)
      if (end < 0) throw new ShellSyntaxError("missing '}'")
      const name = src.slice(this.i + 2, end)
      if (!NAME_RE.test(name) && !/^[?$!#0-9]$/.test(name)) {
        throw new ShellSyntaxError(`\${${name}}: bad substitution`)
      }
      this.i = end + 1
      return { kind: 'param', name, quoted }
    }
    if (/[?$!#0-9]/.test(n)) {
      this.i += 2
      return { kind: 'param', name: n, quoted }
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(this.i + 1))
    if (m === null) return undefined
    this.i += 1 + m[0].length
    return { kind: 'param', name: m[0], quoted }
  }
}

const RESERVED = new Set([
  'while',
  'until',
  'do',
  'done',
  'for',
  'in',
  'if',
  'then',
  'elif',
  'else',
  'fi',
  '{',
  '}',
  '!',
])

class Parser {
  private tok: Token
  /** The current token, re-read (TypeScript keeps narrowing `this.tok` across `advance()`). */
  private cur(): Token {
    return this.tok
  }
  constructor(private readonly lexer: Lexer) {
    this.tok = lexer.next()
  }

  private advance(): void {
    this.tok = this.lexer.next()
  }

  private describe(tok: Token): string {
    if (tok.t === 'eof') return 'unexpected EOF'
    if (tok.t === 'newline') return "'newline' unexpected"
    if (tok.t === 'op') return `'${tok.op}' unexpected`
    if (tok.t === 'io') return `'${tok.fd}' unexpected`
    return `'${tok.word.bare ?? '?'}' unexpected`
  }

  private isKeyword(word: string): boolean {
    return this.tok.t === 'word' && this.tok.word.bare === word
  }

  private expectKeyword(word: string): void {
    if (!this.isKeyword(word)) throw new ShellSyntaxError(this.describe(this.tok))
    this.advance()
  }

  private skipNewlines(): void {
    while (this.tok.t === 'newline') this.advance()
  }

  parseProgram(): ListNode {
    const list = this.parseList([])
    if (this.tok.t !== 'eof') throw new ShellSyntaxError(this.describe(this.tok))
    return list
  }

  /** A list, ending before any of `terminators` (keywords) or `)` or EOF. */
  private parseList(terminators: readonly string[]): ListNode {
    const items: AndOr[] = []
    this.skipNewlines()
    for (;;) {
      if (this.tok.t === 'eof') break
      if (this.tok.t === 'op' && this.tok.op === ')') break
      if (this.tok.t === 'word' && this.tok.word.bare !== undefined) {
        if (terminators.includes(this.tok.word.bare)) break
      }
      const andOr = this.parseAndOr()
      let background = false
      const after = this.cur()
      if (after.t === 'op' && (after.op === ';' || after.op === '&')) {
        background = after.op === '&'
        this.advance()
      } else if (after.t === 'newline') {
        this.advance()
      } else if (!(after.t === 'eof' || (after.t === 'op' && after.op === ')'))) {
        if (!(after.t === 'word' && terminators.includes(after.word.bare ?? ''))) {
          throw new ShellSyntaxError(this.describe(after))
        }
      }
      items.push({ ...andOr, background })
      this.skipNewlines()
    }
    return { items }
  }

  private parseAndOr(): Omit<AndOr, 'background'> {
    const first = this.parsePipeline()
    const rest: { op: '&&' | '||'; pipeline: Pipeline }[] = []
    while (this.tok.t === 'op' && (this.tok.op === '&&' || this.tok.op === '||')) {
      const op = this.tok.op
      this.advance()
      this.skipNewlines()
      rest.push({ op, pipeline: this.parsePipeline() })
    }
    return { first, rest }
  }

  private parsePipeline(): Pipeline {
    let negated = false
    if (this.isKeyword('!')) {
      negated = true
      this.advance()
    }
    const commands = [this.parseCommand()]
    while (this.tok.t === 'op' && this.tok.op === '|') {
      this.advance()
      this.skipNewlines()
      commands.push(this.parseCommand())
    }
    return { negated, commands }
  }

  private parseCommand(): CommandNode {
    const tok = this.tok
    if (tok.t === 'op' && tok.op === '(') {
      this.advance()
      const body = this.parseList([])
      if (!(this.tok.t === 'op' && this.tok.op === ')')) {
        throw new ShellSyntaxError(this.describe(this.tok))
      }
      this.advance()
      return { type: 'subshell', body, redirects: this.parseTrailingRedirects() }
    }
    if (tok.t === 'word' && tok.word.bare !== undefined && RESERVED.has(tok.word.bare)) {
      switch (tok.word.bare) {
        case 'while':
        case 'until': {
          const type = tok.word.bare
          this.advance()
          const condition = this.parseList(['do'])
          this.expectKeyword('do')
          const body = this.parseList(['done'])
          this.expectKeyword('done')
          return { type, condition, body, redirects: this.parseTrailingRedirects() }
        }
        case 'for': {
          this.advance()
          if (this.tok.t !== 'word' || !NAME_RE.test(this.tok.word.bare ?? '')) {
            throw new ShellSyntaxError(this.describe(this.tok))
          }
          const variable = this.tok.word.bare ?? ''
          this.advance()
          this.skipNewlines()
          let items: Word[] | undefined
          if (this.isKeyword('in')) {
            this.advance()
            items = []
            while (this.tok.t === 'word') {
              items.push(this.tok.word)
              this.advance()
            }
          }
          const sep = this.cur()
          if (sep.t === 'op' && sep.op === ';') this.advance()
          this.skipNewlines()
          this.expectKeyword('do')
          const body = this.parseList(['done'])
          this.expectKeyword('done')
          return { type: 'for', variable, items, body, redirects: this.parseTrailingRedirects() }
        }
        case 'if': {
          this.advance()
          const branches: { condition: ListNode; body: ListNode }[] = []
          let otherwise: ListNode | undefined
          for (;;) {
            const condition = this.parseList(['then'])
            this.expectKeyword('then')
            const body = this.parseList(['elif', 'else', 'fi'])
            branches.push({ condition, body })
            if (this.isKeyword('elif')) {
              this.advance()
              continue
            }
            if (this.isKeyword('else')) {
              this.advance()
              otherwise = this.parseList(['fi'])
            }
            this.expectKeyword('fi')
            break
          }
          return { type: 'if', branches, otherwise, redirects: this.parseTrailingRedirects() }
        }
        case '{': {
          this.advance()
          const body = this.parseList(['}'])
          this.expectKeyword('}')
          return { type: 'group', body, redirects: this.parseTrailingRedirects() }
        }
        default:
          throw new ShellSyntaxError(this.describe(tok))
      }
    }
    return this.parseSimple()
  }

  private parseTrailingRedirects(): Redirect[] {
    const redirects: Redirect[] = []
    for (;;) {
      const r = this.tryRedirect()
      if (r === undefined) return redirects
      redirects.push(r)
    }
  }

  /** If the next tokens are a redirection, consumes and returns it. */
  private tryRedirect(): Redirect | undefined {
    let fd: number | undefined
    if (this.tok.t === 'io') {
      fd = this.tok.fd
      this.advance()
    }
    const opTok = this.cur()
    if (opTok.t !== 'op') {
      if (fd !== undefined) throw new ShellSyntaxError(this.describe(opTok))
      return undefined
    }
    const op = opTok.op
    if (!['>', '>>', '<', '>&', '<&', '>|'].includes(op)) {
      if (fd !== undefined) throw new ShellSyntaxError(this.describe(this.tok))
      return undefined
    }
    this.advance()
    const targetTok = this.cur()
    if (targetTok.t !== 'word') throw new ShellSyntaxError(this.describe(targetTok))
    const target = targetTok.word
    this.advance()
    const norm = op === '>|' ? '>' : (op as Redirect['op'])
    return { fd: fd ?? (norm === '<' || norm === '<&' ? 0 : 1), op: norm, target }
  }

  private parseSimple(): SimpleCommand {
    const assignments: { name: string; value: Word }[] = []
    const words: Word[] = []
    const redirects: Redirect[] = []
    for (;;) {
      if (this.tok.t === 'op' || this.tok.t === 'io') {
        const r = this.tryRedirect()
        if (r === undefined) break
        redirects.push(r)
        continue
      }
      if (this.tok.t !== 'word') break
      const word = this.tok.word
      const first = word.parts[0]
      if (
        words.length === 0 &&
        first?.kind === 'text' &&
        !first.quoted &&
        /^[A-Za-z_][A-Za-z0-9_]*=/.test(first.text)
      ) {
        const eq = first.text.indexOf('=')
        const rest: WordPart[] = [
          { kind: 'text', text: first.text.slice(eq + 1), quoted: false },
          ...word.parts.slice(1),
        ]
        assignments.push({ name: first.text.slice(0, eq), value: { parts: rest, bare: undefined } })
        this.advance()
        continue
      }
      words.push(word)
      this.advance()
    }
    if (words.length === 0 && assignments.length === 0 && redirects.length === 0) {
      throw new ShellSyntaxError(this.describe(this.tok))
    }
    return { type: 'simple', assignments, words, redirects }
  }
}

/** Parses a command line. Throws `ShellSyntaxError` with mksh's wording. */
export function parseShell(source: string): ListNode {
  return new Parser(new Lexer(source)).parseProgram()
}
