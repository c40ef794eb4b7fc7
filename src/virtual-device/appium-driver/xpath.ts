/**
 * The XPath 1.0 subset Appium users write against UiAutomator2's page source (tags are view
 * classes, attributes as in the dump). No XPath library is installed, so this is a small
 * recursive-descent parser and evaluator over {@link UiNode} trees. Supported:
 *
 * - absolute and relative paths with `/` and `//`, `.` and `..`, `*` and class-name tests,
 *   axes `child::`, `descendant::`, `descendant-or-self::`, `parent::`, `self::`, `ancestor::`,
 *   `following-sibling::`, `preceding-sibling::`;
 * - predicates: `[n]`, `[last()]`, `[position() op n]`, `[@attr]`, `[@attr="v"]` and `!=`, `<`,
 *   `<=`, `>`, `>=`, `and`, `or`, `not(...)`, `contains()`, `starts-with()`, `ends-with()`,
 *   `string-length()`, `normalize-space()`, nested relative paths (`[android.widget.TextView]`);
 * - a parenthesized path with predicates, `(//android.widget.Button)[2]`, and `|` unions.
 *
 * Anything else is rejected with `E_APPIUM_SELECTOR` and the character offset.
 */
import { EnergyError } from '../../model/index.js'
import { AppiumDriverErrors } from './errors.js'
import type { UiNode } from './hierarchy.js'

type Token =
  | { readonly kind: 'op'; readonly value: string; readonly at: number }
  | { readonly kind: 'name'; readonly value: string; readonly at: number }
  | { readonly kind: 'string'; readonly value: string; readonly at: number }
  | { readonly kind: 'number'; readonly value: number; readonly at: number }

const AXES = [
  'child',
  'descendant',
  'descendant-or-self',
  'parent',
  'self',
  'ancestor',
  'following-sibling',
  'preceding-sibling',
] as const
type Axis = (typeof AXES)[number]

type Expr =
  | { readonly type: 'path'; readonly path: PathExpr }
  | { readonly type: 'literal'; readonly value: string | number }
  | { readonly type: 'attr'; readonly name: string }
  | { readonly type: 'call'; readonly name: string; readonly args: readonly Expr[] }
  | { readonly type: 'binary'; readonly op: string; readonly left: Expr; readonly right: Expr }

interface Step {
  readonly axis: Axis
  /** `*`, `node()` or a tag name. */
  readonly test: string
  readonly predicates: readonly Expr[]
}

interface PathExpr {
  readonly absolute: boolean
  readonly steps: readonly Step[]
  /** `(path)[n]`: predicates over the whole result. */
  readonly groupPredicates: readonly Expr[]
}

/** A parsed XPath: one or more `|`-joined paths. */
export interface XPathQuery {
  readonly source: string
  readonly paths: readonly PathExpr[]
}

function selectorError(source: string, at: number, what: string): EnergyError {
  return new EnergyError({
    code: AppiumDriverErrors.SELECTOR,
    message: `XPath ${JSON.stringify(source)}: ${what} at character ${at}`,
    hint: 'Use the subset in docs/appium-driver.md (paths, predicates, contains(), indexes); check quotes and brackets.',
    details: { format: 'XPath', offset: at },
  })
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < source.length) {
    const c = source.charAt(i)
    if (/\s/.test(c)) {
      i++
      continue
    }
    const two = source.slice(i, i + 2)
    if (two === '//' || two === '!=' || two === '<=' || two === '>=' || two === '..') {
      tokens.push({ kind: 'op', value: two, at: i })
      i += 2
      continue
    }
    if ('/()[]@,=<>|*'.includes(c)) {
      tokens.push({ kind: 'op', value: c, at: i })
      i++
      continue
    }
    if (c === '.' && !/[0-9]/.test(source.charAt(i + 1))) {
      tokens.push({ kind: 'op', value: '.', at: i })
      i++
      continue
    }
    if (c === '"' || c === "'") {
      const end = source.indexOf(c, i + 1)
      if (end < 0) throw selectorError(source, i, 'unterminated string')
      tokens.push({ kind: 'string', value: source.slice(i + 1, end), at: i })
      i = end + 1
      continue
    }
    const num = /^(\d+(\.\d*)?|\.\d+)/.exec(source.slice(i))
    if (num !== null) {
      tokens.push({ kind: 'number', value: Number(num[0]), at: i })
      i += num[0].length
      continue
    }
    const name = /^[A-Za-z_$][\w.$-]*(::|(:[A-Za-z_][\w.-]*))?/.exec(source.slice(i))
    if (name !== null) {
      tokens.push({ kind: 'name', value: name[0], at: i })
      i += name[0].length
      continue
    }
    throw selectorError(source, i, `unexpected character ${JSON.stringify(c)}`)
  }
  return tokens
}

class Parser {
  private pos = 0
  constructor(
    private readonly source: string,
    private readonly tokens: readonly Token[],
  ) {}

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.pos + offset]
  }

  private isOp(value: string, offset = 0): boolean {
    const t = this.peek(offset)
    return t?.kind === 'op' && t.value === value
  }

  private isName(value: string): boolean {
    const t = this.peek()
    return t?.kind === 'name' && t.value === value
  }

  private fail(what: string): never {
    throw selectorError(this.source, this.peek()?.at ?? this.source.length, what)
  }

  private expectOp(value: string): void {
    if (!this.isOp(value)) this.fail(`expected '${value}'`)
    this.pos++
  }

  query(): XPathQuery {
    const paths = [this.topPath()]
    while (this.isOp('|')) {
      this.pos++
      paths.push(this.topPath())
    }
    if (this.peek() !== undefined) this.fail('unexpected token')
    return { source: this.source, paths }
  }

  private topPath(): PathExpr {
    if (this.isOp('(')) {
      this.pos++
      const inner = this.path()
      this.expectOp(')')
      const groupPredicates = this.predicates()
      if (this.isOp('/') || this.isOp('//')) this.fail('a path after a parenthesized group')
      return { ...inner, groupPredicates }
    }
    return this.path()
  }

  private path(): PathExpr {
    const steps: Step[] = []
    let absolute = false
    if (this.isOp('/') || this.isOp('//')) {
      absolute = true
    } else {
      steps.push(this.step())
    }
    while (this.isOp('/') || this.isOp('//')) {
      const op = this.peek()
      this.pos++
      if (op?.kind === 'op' && op.value === '//') {
        steps.push({ axis: 'descendant-or-self', test: 'node()', predicates: [] })
      }
      steps.push(this.step())
    }
    if (steps.length === 0) this.fail('an empty path')
    return { absolute, steps, groupPredicates: [] }
  }

  private step(): Step {
    if (this.isOp('.')) {
      this.pos++
      return { axis: 'self', test: 'node()', predicates: this.predicates() }
    }
    if (this.isOp('..')) {
      this.pos++
      return { axis: 'parent', test: 'node()', predicates: this.predicates() }
    }
    if (this.isOp('@')) this.fail('attribute steps select no elements; use them in a predicate')
    let axis: Axis = 'child'
    const t = this.peek()
    if (t?.kind === 'name' && t.value.endsWith('::')) {
      const name = t.value.slice(0, -2)
      if (!(AXES as readonly string[]).includes(name)) this.fail(`unsupported axis '${name}'`)
      axis = name as Axis
      this.pos++
    }
    return { axis, test: this.nodeTest(), predicates: this.predicates() }
  }

  private nodeTest(): string {
    if (this.isOp('*')) {
      this.pos++
      return '*'
    }
    const t = this.peek()
    if (t?.kind !== 'name') this.fail('expected a class name or *')
    this.pos++
    if (t.value === 'node' && this.isOp('(')) {
      this.pos++
      this.expectOp(')')
      return 'node()'
    }
    if (this.isOp('(')) this.fail(`function '${t.value}()' where a step was expected`)
    return t.value
  }

  private predicates(): Expr[] {
    const out: Expr[] = []
    while (this.isOp('[')) {
      this.pos++
      out.push(this.or())
      this.expectOp(']')
    }
    return out
  }

  private or(): Expr {
    let left = this.and()
    while (this.isName('or')) {
      this.pos++
      left = { type: 'binary', op: 'or', left, right: this.and() }
    }
    return left
  }

  private and(): Expr {
    let left = this.equality()
    while (this.isName('and')) {
      this.pos++
      left = { type: 'binary', op: 'and', left, right: this.equality() }
    }
    return left
  }

  private equality(): Expr {
    const left = this.relational()
    if (this.isOp('=') || this.isOp('!=')) {
      const op = (this.peek() as { value: string }).value
      this.pos++
      return { type: 'binary', op, left, right: this.relational() }
    }
    return left
  }

  private relational(): Expr {
    const left = this.primary()
    for (const op of ['<', '<=', '>', '>=']) {
      if (this.isOp(op)) {
        this.pos++
        return { type: 'binary', op, left, right: this.primary() }
      }
    }
    return left
  }

  private primary(): Expr {
    const t = this.peek()
    if (t === undefined) this.fail('unexpected end')
    if (t.kind === 'string' || t.kind === 'number') {
      this.pos++
      return { type: 'literal', value: t.value }
    }
    if (t.kind === 'op' && t.value === '@') {
      this.pos++
      const name = this.peek()
      if (name?.kind === 'name') {
        this.pos++
        return { type: 'attr', name: name.value }
      }
      if (this.isOp('*')) this.fail('@* is not supported')
      this.fail('expected an attribute name')
    }
    if (t.kind === 'op' && t.value === '(') {
      this.pos++
      const inner = this.or()
      this.expectOp(')')
      return inner
    }
    if (t.kind === 'name' && this.isOp('(', 1) && t.value !== 'node') {
      this.pos += 2
      const args: Expr[] = []
      if (!this.isOp(')')) {
        args.push(this.or())
        while (this.isOp(',')) {
          this.pos++
          args.push(this.or())
        }
      }
      this.expectOp(')')
      checkCall(this.source, t, args.length)
      return { type: 'call', name: t.value, args }
    }
    return { type: 'path', path: this.path() }
  }
}

const ARITY: Readonly<Record<string, readonly [number, number]>> = {
  contains: [2, 2],
  'starts-with': [2, 2],
  'ends-with': [2, 2],
  not: [1, 1],
  position: [0, 0],
  last: [0, 0],
  'string-length': [1, 1],
  'normalize-space': [1, 1],
  true: [0, 0],
  false: [0, 0],
  count: [1, 1],
}

function checkCall(source: string, t: Token, argc: number): void {
  const name = String(t.value)
  const arity = ARITY[name]
  if (arity === undefined) {
    throw selectorError(
      source,
      t.at,
      name === 'text'
        ? 'text() selects text nodes, which UiAutomator hierarchies do not have; use @text'
        : `unsupported function '${name}()'`,
    )
  }
  if (argc < arity[0] || argc > arity[1]) {
    throw selectorError(source, t.at, `${name}() takes ${arity[0]} argument(s), got ${argc}`)
  }
}

/** Parses an XPath. Throws `E_APPIUM_SELECTOR` outside the supported subset. */
export function parseXPath(source: string): XPathQuery {
  if (source.trim() === '') throw selectorError(source, 0, 'an empty selector')
  return new Parser(source, tokenize(source)).query()
}

// ── evaluation ──────────────────────────────────────────────────────────────────────────────

type Value = string | number | boolean | { readonly nodes: readonly UiNode[] } | AttrValue
interface AttrValue {
  readonly attr: string | undefined
}

interface Ctx {
  readonly node: UiNode
  readonly position: number
  readonly size: number
  readonly doc: UiNode
  readonly order: ReadonlyMap<UiNode, number>
}

function axisNodes(node: UiNode, axis: Axis, doc: UiNode): readonly UiNode[] {
  // The hierarchy root's parent is the document node (for `..` and `ancestor::`).
  const parentOf = (n: UiNode): UiNode | undefined =>
    n.parent ?? (n !== doc && n.path === '' ? doc : undefined)
  switch (axis) {
    case 'child':
      return node.children
    case 'self':
      return [node]
    case 'parent':
      return parentOf(node) === undefined ? [] : [parentOf(node) as UiNode]
    case 'descendant':
    case 'descendant-or-self': {
      const out: UiNode[] = axis === 'descendant-or-self' ? [node] : []
      const walk = (n: UiNode): void => {
        for (const c of n.children) {
          out.push(c)
          walk(c)
        }
      }
      walk(node)
      return out
    }
    case 'ancestor': {
      const out: UiNode[] = []
      for (let p = parentOf(node); p !== undefined; p = parentOf(p)) out.push(p)
      return out
    }
    case 'following-sibling':
    case 'preceding-sibling': {
      const siblings = parentOf(node)?.children ?? []
      const i = siblings.indexOf(node)
      return axis === 'following-sibling'
        ? siblings.slice(i + 1)
        : siblings.slice(0, Math.max(0, i)).reverse()
    }
  }
}

function matchesTest(node: UiNode, test: string): boolean {
  if (test === 'node()') return true
  if (node.tag === '#document') return false
  return test === '*' || node.tag === test
}

function applyPredicates(
  nodes: readonly UiNode[],
  predicates: readonly Expr[],
  base: Omit<Ctx, 'node' | 'position' | 'size'>,
): UiNode[] {
  let current = [...nodes]
  for (const p of predicates) {
    const size = current.length
    current = current.filter((node, i) => {
      const value = evaluate(p, { ...base, node, position: i + 1, size })
      return typeof value === 'number' ? value === i + 1 : toBoolean(value)
    })
  }
  return current
}

function evalPath(path: PathExpr, ctx: Ctx): UiNode[] {
  let context: readonly UiNode[] = [path.absolute ? ctx.doc : ctx.node]
  for (const step of path.steps) {
    const seen = new Set<UiNode>()
    for (const c of context) {
      const candidates = axisNodes(c, step.axis, ctx.doc).filter((n) => matchesTest(n, step.test))
      for (const n of applyPredicates(candidates, step.predicates, ctx)) seen.add(n)
    }
    context = sortByOrder([...seen], ctx.order)
  }
  const nodes = context.filter((n) => n.tag !== '#document')
  return applyPredicates(nodes, path.groupPredicates, ctx)
}

function sortByOrder(nodes: UiNode[], order: ReadonlyMap<UiNode, number>): UiNode[] {
  return nodes.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0))
}

function toStringValue(v: Value): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number') return String(v)
  if (typeof v === 'boolean') return String(v)
  if ('attr' in v) return v.attr ?? ''
  const first = v.nodes[0]
  return first === undefined ? '' : (first.attrs['text'] ?? '')
}

function toBoolean(v: Value): boolean {
  if (typeof v === 'boolean') return v
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v)
  if (typeof v === 'string') return v.length > 0
  if ('attr' in v) return v.attr !== undefined
  return v.nodes.length > 0
}

function toNumber(v: Value): number {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  const s = toStringValue(v).trim()
  return s === '' ? Number.NaN : Number(s)
}

/** Values a side of a comparison stands for (node-sets and attributes compare existentially). */
function candidates(v: Value): Value[] {
  if (typeof v === 'object' && 'attr' in v) return v.attr === undefined ? [] : [v.attr]
  if (typeof v === 'object' && 'nodes' in v) return v.nodes.map((n) => n.attrs['text'] ?? '')
  return [v]
}

function compare(op: string, a: Value, b: Value): boolean {
  for (const x of candidates(a)) {
    for (const y of candidates(b)) {
      if (op === '=' || op === '!=') {
        const eq =
          typeof x === 'number' || typeof y === 'number'
            ? toNumber(x) === toNumber(y)
            : typeof x === 'boolean' || typeof y === 'boolean'
              ? toBoolean(x) === toBoolean(y)
              : toStringValue(x) === toStringValue(y)
        if (eq === (op === '=')) return true
      } else {
        const [m, n] = [toNumber(x), toNumber(y)]
        if (op === '<' ? m < n : op === '<=' ? m <= n : op === '>' ? m > n : m >= n) return true
      }
    }
  }
  return false
}

function evaluate(expr: Expr, ctx: Ctx): Value {
  switch (expr.type) {
    case 'literal':
      return expr.value
    case 'attr':
      return { attr: ctx.node.attrs[expr.name] }
    case 'path':
      return { nodes: evalPath(expr.path, ctx) }
    case 'binary': {
      if (expr.op === 'or')
        return toBoolean(evaluate(expr.left, ctx)) || toBoolean(evaluate(expr.right, ctx))
      if (expr.op === 'and') {
        return toBoolean(evaluate(expr.left, ctx)) && toBoolean(evaluate(expr.right, ctx))
      }
      return compare(expr.op, evaluate(expr.left, ctx), evaluate(expr.right, ctx))
    }
    case 'call': {
      const args = expr.args.map((a) => evaluate(a, ctx))
      const s = (i: number): string => {
        const v = args[i]
        return v === undefined ? '' : toStringValue(v)
      }
      switch (expr.name) {
        case 'contains':
          return s(0).includes(s(1))
        case 'starts-with':
          return s(0).startsWith(s(1))
        case 'ends-with':
          return s(0).endsWith(s(1))
        case 'not':
          return !toBoolean(args[0] ?? false)
        case 'position':
          return ctx.position
        case 'last':
          return ctx.size
        case 'string-length':
          return s(0).length
        case 'normalize-space':
          return s(0).trim().replace(/\s+/g, ' ')
        case 'true':
          return true
        case 'false':
          return false
        case 'count': {
          const v = args[0]
          return typeof v === 'object' && 'nodes' in v ? v.nodes.length : Number.NaN
        }
        default:
          return false
      }
    }
  }
}

/**
 * Evaluates `query` with `context` as the context node (the hierarchy root for a search from the
 * root, an element for a search from an element). Returns elements in document order.
 */
export function evaluateXPath(query: XPathQuery, root: UiNode, context: UiNode = root): UiNode[] {
  const doc: UiNode = {
    tag: '#document',
    attrs: {},
    children: [root],
    parent: undefined,
    path: '#',
    rect: undefined,
  }
  const order = new Map<UiNode, number>()
  let i = 0
  const walk = (n: UiNode): void => {
    order.set(n, i++)
    for (const c of n.children) walk(c)
  }
  walk(doc)
  const base = { doc, order, position: 1, size: 1 }
  const seen = new Set<UiNode>()
  for (const path of query.paths) {
    for (const n of evalPath(path, { ...base, node: context })) seen.add(n)
  }
  return sortByOrder([...seen], order)
}
