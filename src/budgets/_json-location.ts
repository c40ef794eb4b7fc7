/**
 * Where things are in a JSON text, for error messages: the offset at which the text stops being
 * JSON, and the offset of the value at a path. JSON.parse gives neither reliably: its message says
 * "position N" on Node 20, "position N (line L column C)" on Node 22, and no position at all for
 * some errors ("Unexpected end of JSON input", "Unexpected token 'x', "…" is not valid JSON"). A
 * strict RFC 8259 scanner finds both; the parsed value itself still comes from JSON.parse.
 */

/** Object keys and array indices from the top-level value down. */
export type JsonPath = readonly (string | number)[]

export interface JsonSyntaxProblem {
  /** Index into the text (UTF-16 code units) where the text stops being JSON. */
  readonly offset: number
  /** What was expected there and what was found, e.g. `expected ',' or '}', found '"'`. */
  readonly problem: string
}

/** The first place where `text` is not JSON; `undefined` for valid JSON. */
export function findJsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  try {
    new Scanner(text).document()
    return undefined
  } catch (error) {
    if (error instanceof ScanStop) return { offset: error.offset, problem: error.problem }
    if (isStackOverflow(error)) return undefined
    throw error
  }
}

/**
 * Index of the first character of the value at `path` in valid JSON `text` (of the last one, for a
 * key given twice: JSON.parse keeps the last), or `undefined` when there is none.
 */
export function findJsonValue(text: string, path: JsonPath): number | undefined {
  let found: number | undefined
  const visit = (at: JsonPath, offset: number): void => {
    if (at.length === path.length && at.every((key, i) => key === path[i])) found = offset
  }
  try {
    new Scanner(text, visit).document()
  } catch (error) {
    if (isStackOverflow(error)) return undefined
    if (!(error instanceof ScanStop)) throw error
  }
  return found
}

/** Nesting deep enough to exhaust the stack (thousands of levels): no place is given, not a crash. */
function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError
}

/** 1-based line and column of an index into `text`; `\n`, `\r\n` and `\r` end lines. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === LF || (c === CR && text.charCodeAt(i + 1) !== LF)) {
      line += 1
      lineStart = i + 1
    }
  }
  return { line, column: offset - lineStart + 1 }
}

/** `tests["feed.test.ts"]["opening"]["*"].energyJ`; the empty path is `the top level`. */
export function formatJsonPath(path: JsonPath): string {
  if (path.length === 0) return 'the top level'
  return path
    .map((key, i) => {
      if (typeof key === 'number') return `[${key}]`
      if (!IDENTIFIER.test(key)) return `[${JSON.stringify(key)}]`
      return i === 0 ? key : `.${key}`
    })
    .join('')
}

const LF = 0x0a
const CR = 0x0d
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't'])
const HEX_DIGIT = /^[0-9A-Fa-f]$/

class ScanStop {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {}
}

/** A recursive-descent pass over JSON text that reports each value's start to `visit`. */
class Scanner {
  private i = 0
  private readonly path: (string | number)[] = []

  constructor(
    private readonly text: string,
    private readonly visit?: (path: JsonPath, offset: number) => void,
  ) {}

  document(): void {
    this.whitespace()
    this.value()
    this.whitespace()
    if (this.i < this.text.length) this.stop('the end of the file after the top-level value')
  }

  private value(): void {
    this.visit?.(this.path, this.i)
    const c = this.text[this.i]
    if (c === '{') this.object()
    else if (c === '[') this.array()
    else if (c === '"') this.string()
    else if (c === 't') this.word('true')
    else if (c === 'f') this.word('false')
    else if (c === 'n') this.word('null')
    else if (c === '-' || isDigit(c)) this.number()
    else this.stop('a value (an object, array, string, number, true, false or null)')
  }

  private object(): void {
    this.members('}', 'a property', () => {
      if (this.text[this.i] !== '"') this.stop('a property name in double quotes')
      const key = this.string()
      this.whitespace()
      if (this.text[this.i] !== ':') this.stop("':' after the property name")
      this.i += 1
      this.whitespace()
      this.path.push(key)
      this.value()
      this.path.pop()
    })
  }

  private array(): void {
    this.members(']', 'an array element', (index) => {
      this.path.push(index)
      this.value()
      this.path.pop()
    })
  }

  /** The members of an object or array, from its opening bracket to `close`, comma-separated. */
  private members(close: '}' | ']', what: string, member: (index: number) => void): void {
    this.i += 1
    this.whitespace()
    if (this.text[this.i] === close) {
      this.i += 1
      return
    }
    for (let index = 0; ; index++) {
      member(index)
      this.whitespace()
      const c = this.text[this.i]
      this.i += 1
      if (c === close) return
      if (c !== ',') this.stop(`',' or '${close}' after ${what}`, this.i - 1)
      const comma = this.i - 1
      this.whitespace()
      // Where JSON.parse stops (the bracket), naming the comma's place: the mistake is there.
      if (this.text[this.i] === close) {
        const { line, column } = lineColumn(this.text, comma)
        this.stop(
          `${what} after the ',' at ${line}:${column} (JSON allows no trailing comma: remove it)`,
        )
      }
    }
  }

  /** A string literal; returns its value. */
  private string(): string {
    const start = this.i
    this.i += 1
    for (;;) {
      if (this.i >= this.text.length) this.stop("a closing '\"' (the string is not terminated)")
      const c = this.text[this.i] ?? ''
      if (c === '"') break
      if (c.charCodeAt(0) < 0x20)
        this.stop('no control character inside a string (escape it: \\n, \\t)')
      if (c === '\\') {
        const next = this.text[this.i + 1] ?? ''
        if (next === 'u') {
          for (let k = this.i + 2; k < this.i + 6; k++)
            if (!HEX_DIGIT.test(this.text[k] ?? '')) this.stop('four hex digits after \\u', k)
          this.i += 6
          continue
        }
        if (!ESCAPES.has(next))
          this.stop('an escape: \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX', this.i + 1)
        this.i += 2
        continue
      }
      this.i += 1
    }
    this.i += 1
    return JSON.parse(this.text.slice(start, this.i)) as string
  }

  private number(): void {
    if (this.text[this.i] === '-') this.i += 1
    if (this.text[this.i] === '0') this.i += 1
    else this.digits()
    if (this.text[this.i] === '.') {
      this.i += 1
      this.digits()
    }
    if (this.text[this.i] === 'e' || this.text[this.i] === 'E') {
      this.i += 1
      if (this.text[this.i] === '+' || this.text[this.i] === '-') this.i += 1
      this.digits()
    }
  }

  private digits(): void {
    if (!isDigit(this.text[this.i])) this.stop('a digit')
    while (isDigit(this.text[this.i])) this.i += 1
  }

  private word(word: 'true' | 'false' | 'null'): void {
    for (const letter of word) {
      if (this.text[this.i] !== letter) this.stop(`'${word}'`)
      this.i += 1
    }
  }

  private whitespace(): void {
    for (;;) {
      const c = this.text[this.i]
      if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') return
      this.i += 1
    }
  }

  private stop(expected: string, at = this.i): never {
    throw new ScanStop(at, `expected ${expected}, found ${describeAt(this.text, at)}`)
  }
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9'
}

/** The character at `offset`, readable: `'}'`, `U+FEFF` for invisible ones, or the end. */
function describeAt(text: string, offset: number): string {
  const code = text.codePointAt(offset)
  if (code === undefined) return 'the end of the file'
  const visible = code > 0x20 && code !== 0x7f && !(code >= 0x80 && code <= 0xa0) && code !== 0xfeff
  return visible
    ? `'${String.fromCodePoint(code)}'`
    : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
}
