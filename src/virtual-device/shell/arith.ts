/**
 * `$(( … ))` arithmetic as mksh evaluates it: integers (decimal, 0x hex, 0 octal), variables by
 * name (unset or empty = 0), unary `+ - ! ~`, `* / %`, `+ -`, `<< >>`, `< <= > >=`, `== !=`, `&`,
 * `^`, `|`, `&&`, `||`, parentheses. Errors throw `ArithError` with mksh-like wording.
 */

export class ArithError extends Error {
  override readonly name = 'ArithError'
}

type Tok =
  { t: 'num'; v: number } | { t: 'name'; v: string } | { t: 'op'; v: string } | { t: 'end' }

const OPS = [
  '<<',
  '>>',
  '<=',
  '>=',
  '==',
  '!=',
  '&&',
  '||',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '!',
  '~',
  '&',
  '^',
  '|',
  '(',
  ')',
]

function tokenize(src: string): Tok[] {
  const out: Tok[] = []
  let i = 0
  while (i < src.length) {
    const c = src[i] ?? ''
    if (/\s/.test(c)) {
      i++
      continue
    }
    const num = /^(0[xX][0-9a-fA-F]+|\d+)/.exec(src.slice(i))
    if (num !== null) {
      const text = num[0]
      const v = /^0[xX]/.test(text)
        ? Number.parseInt(text.slice(2), 16)
        : text.length > 1 && text.startsWith('0')
          ? Number.parseInt(text, 8)
          : Number(text)
      if (Number.isNaN(v)) throw new ArithError(`${text}: bad number`)
      out.push({ t: 'num', v })
      i += text.length
      continue
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))
    if (name !== null) {
      out.push({ t: 'name', v: name[0] })
      i += name[0].length
      continue
    }
    const op = OPS.find((o) => src.startsWith(o, i))
    if (op === undefined) throw new ArithError(`unexpected '${c}'`)
    out.push({ t: 'op', v: op })
    i += op.length
  }
  out.push({ t: 'end' })
  return out
}

const BINARY: readonly (readonly string[])[] = [
  ['||'],
  ['&&'],
  ['|'],
  ['^'],
  ['&'],
  ['==', '!='],
  ['<', '<=', '>', '>='],
  ['<<', '>>'],
  ['+', '-'],
  ['*', '/', '%'],
]

/** Evaluates `source`; `lookup` returns a variable's text. Results are 32-bit like mksh's. */
export function evaluateArithmetic(source: string, lookup: (name: string) => string): number {
  const toks = tokenize(source)
  let pos = 0
  const peek = (): Tok => toks[pos] ?? { t: 'end' }
  const variable = (name: string, depth: number): number => {
    const text = lookup(name).trim()
    if (text === '') return 0
    if (depth > 8) throw new ArithError(`${name}: expression recurses on parameter`)
    return evaluateArithmetic(text, (n) => (n === name ? '' : lookup(n)))
  }
  const primary = (): number => {
    const t = peek()
    pos++
    if (t.t === 'num') return t.v
    if (t.t === 'name') return variable(t.v, 0)
    if (t.t === 'op' && t.v === '(') {
      const v = binary(0)
      const close = peek()
      if (!(close.t === 'op' && close.v === ')')) throw new ArithError("missing ')'")
      pos++
      return v
    }
    if (t.t === 'op' && ['-', '+', '!', '~'].includes(t.v)) {
      const v = primary()
      return t.v === '-' ? -v : t.v === '+' ? v : t.v === '!' ? Number(v === 0) : ~v
    }
    throw new ArithError(t.t === 'end' ? 'unexpected end of expression' : `unexpected '${t.v}'`)
  }
  const apply = (op: string, a: number, b: number): number => {
    switch (op) {
      case '||':
        return Number(a !== 0 || b !== 0)
      case '&&':
        return Number(a !== 0 && b !== 0)
      case '|':
        return a | b
      case '^':
        return a ^ b
      case '&':
        return a & b
      case '==':
        return Number(a === b)
      case '!=':
        return Number(a !== b)
      case '<':
        return Number(a < b)
      case '<=':
        return Number(a <= b)
      case '>':
        return Number(a > b)
      case '>=':
        return Number(a >= b)
      case '<<':
        return a << b
      case '>>':
        return a >> b
      case '+':
        return a + b
      case '-':
        return a - b
      case '*':
        return Math.imul(a, b)
      case '/':
      case '%':
        if (b === 0) throw new ArithError('zero divisor')
        return op === '/' ? Math.trunc(a / b) : a % b
      default:
        throw new ArithError(`unexpected '${op}'`)
    }
  }
  const binary = (level: number): number => {
    const ops = BINARY[level]
    if (ops === undefined) return primary()
    let left = binary(level + 1)
    for (;;) {
      const t = peek()
      if (!(t.t === 'op' && ops.includes(t.v))) return left
      pos++
      left = apply(t.v, left, binary(level + 1)) | 0
    }
  }
  const value = binary(0)
  const rest = peek()
  if (rest.t !== 'end') throw new ArithError(`unexpected '${rest.t === 'num' ? rest.v : rest.v}'`)
  return value | 0
}
