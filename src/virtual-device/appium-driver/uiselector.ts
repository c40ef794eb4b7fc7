/**
 * `-android uiautomator` locators: `new UiSelector()` chains as UiAutomator2 accepts them
 * (`new UiSelector().className("android.widget.Button").text("Sync")`), several joined by `;`.
 * Evaluated over the dump's attributes. Child/parent selectors and UiScrollable are rejected with
 * `E_APPIUM_SELECTOR`.
 */
import { EnergyError } from '../../model/index.js'
import { AppiumDriverErrors } from './errors.js'
import { descendants, type UiNode } from './hierarchy.js'

type Arg = string | number | boolean

interface Criterion {
  readonly method: string
  readonly arg: Arg
}

/** One parsed `new UiSelector()...` chain. */
export interface UiSelector {
  readonly criteria: readonly Criterion[]
  /** `.instance(n)`: the n-th (0-based) match in document order. */
  readonly instance: number | undefined
}

const STRING_METHODS: Readonly<Record<string, (node: UiNode, arg: string) => boolean>> = {
  text: (n, a) => (n.attrs['text'] ?? '') === a,
  textContains: (n, a) => (n.attrs['text'] ?? '').includes(a),
  textStartsWith: (n, a) => (n.attrs['text'] ?? '').startsWith(a),
  textMatches: (n, a) => fullMatch(a, n.attrs['text'] ?? ''),
  resourceId: (n, a) => (n.attrs['resource-id'] ?? '') === a,
  resourceIdMatches: (n, a) => fullMatch(a, n.attrs['resource-id'] ?? ''),
  description: (n, a) => (n.attrs['content-desc'] ?? '') === a,
  descriptionContains: (n, a) => (n.attrs['content-desc'] ?? '').includes(a),
  descriptionStartsWith: (n, a) => (n.attrs['content-desc'] ?? '').startsWith(a),
  descriptionMatches: (n, a) => fullMatch(a, n.attrs['content-desc'] ?? ''),
  className: (n, a) => (n.attrs['class'] ?? '') === a,
  classNameMatches: (n, a) => fullMatch(a, n.attrs['class'] ?? ''),
  packageName: (n, a) => (n.attrs['package'] ?? '') === a,
  packageNameMatches: (n, a) => fullMatch(a, n.attrs['package'] ?? ''),
}

const BOOLEAN_METHODS: Readonly<Record<string, string>> = {
  checkable: 'checkable',
  checked: 'checked',
  clickable: 'clickable',
  enabled: 'enabled',
  focusable: 'focusable',
  focused: 'focused',
  longClickable: 'long-clickable',
  scrollable: 'scrollable',
  selected: 'selected',
}

function fullMatch(pattern: string, value: string): boolean {
  return new RegExp(`^(?:${pattern})$`, 's').test(value)
}

function selectorError(source: string, at: number, what: string): EnergyError {
  return new EnergyError({
    code: AppiumDriverErrors.SELECTOR,
    message: `UiSelector ${JSON.stringify(source)}: ${what} at character ${at}`,
    hint: 'Write `new UiSelector().text("…")` chains with the methods listed in docs/appium-driver.md.',
    details: { format: 'UiSelector', offset: at },
  })
}

/** Parses one or more `;`-separated selectors. Throws `E_APPIUM_SELECTOR` when malformed. */
export function parseUiSelectors(source: string): UiSelector[] {
  let i = 0
  const skip = (): void => {
    while (i < source.length && /\s/.test(source.charAt(i))) i++
  }
  const expect = (s: string): void => {
    skip()
    if (!source.startsWith(s, i)) throw selectorError(source, i, `expected '${s}'`)
    i += s.length
  }
  const readArg = (): Arg => {
    skip()
    const c = source.charAt(i)
    if (c === '"') {
      let out = ''
      i++
      while (i < source.length && source.charAt(i) !== '"') {
        if (source.charAt(i) === '\\' && i + 1 < source.length) i++
        out += source.charAt(i)
        i++
      }
      if (i >= source.length) throw selectorError(source, i, 'unterminated string')
      i++
      return out
    }
    const m = /^(true|false|-?\d+)/.exec(source.slice(i))
    if (m === null) throw selectorError(source, i, 'expected a "string", a number or true/false')
    i += m[0].length
    return m[0] === 'true' ? true : m[0] === 'false' ? false : Number(m[0])
  }
  const selectors: UiSelector[] = []
  for (;;) {
    skip()
    if (i >= source.length) break
    const criteria: Criterion[] = []
    let instance: number | undefined
    if (source.startsWith('new UiScrollable', i)) {
      throw selectorError(
        source,
        i,
        'UiScrollable is not supported (the virtual screen does not scroll)',
      )
    }
    if (source.startsWith('new', i)) {
      expect('new')
      expect('UiSelector')
      expect('(')
      expect(')')
    }
    for (;;) {
      skip()
      if (source.charAt(i) !== '.') break
      i++
      skip()
      const at = i
      const name = /^[A-Za-z]+/.exec(source.slice(i))?.[0]
      if (name === undefined) throw selectorError(source, i, 'expected a method name')
      i += name.length
      const known =
        name === 'instance' || name === 'index' || name in STRING_METHODS || name in BOOLEAN_METHODS
      if (!known) throw selectorError(source, at, `unsupported UiSelector method '${name}'`)
      expect('(')
      const arg = readArg()
      expect(')')
      if (name === 'instance' || name === 'index') {
        if (typeof arg !== 'number' || arg < 0) {
          throw selectorError(source, at, `${name}() takes a non-negative integer`)
        }
        if (name === 'instance') instance = arg
        else criteria.push({ method: name, arg })
      } else if (name in STRING_METHODS) {
        if (typeof arg !== 'string') throw selectorError(source, at, `${name}() takes a string`)
        if (name.endsWith('Matches')) {
          try {
            new RegExp(arg)
          } catch {
            throw selectorError(source, at, `${name}() has an invalid regular expression`)
          }
        }
        criteria.push({ method: name, arg })
      } else if (name in BOOLEAN_METHODS) {
        if (typeof arg !== 'boolean')
          throw selectorError(source, at, `${name}() takes true or false`)
        criteria.push({ method: name, arg })
      } else {
        throw selectorError(source, at, `unsupported UiSelector method '${name}'`)
      }
    }
    if (criteria.length === 0 && instance === undefined) {
      throw selectorError(source, i, 'a selector with no criteria')
    }
    selectors.push({ criteria, instance })
    skip()
    if (i >= source.length) break
    if (source.charAt(i) !== ';') throw selectorError(source, i, "expected '.' or ';'")
    i++
  }
  if (selectors.length === 0) throw selectorError(source, 0, 'an empty selector')
  return selectors
}

function matches(node: UiNode, c: Criterion): boolean {
  if (c.method === 'index') return node.attrs['index'] === String(c.arg)
  const str = STRING_METHODS[c.method]
  if (str !== undefined) return str(node, String(c.arg))
  const attr = BOOLEAN_METHODS[c.method]
  return attr !== undefined && node.attrs[attr] === String(c.arg)
}

/** Nodes under `context` matching any of `selectors`, in document order. */
export function evaluateUiSelectors(selectors: readonly UiSelector[], context: UiNode): UiNode[] {
  const all = descendants(context)
  const found = new Set<UiNode>()
  for (const s of selectors) {
    const hits = all.filter((n) => s.criteria.every((c) => matches(n, c)))
    if (s.instance === undefined) hits.forEach((n) => found.add(n))
    else {
      const n = hits[s.instance]
      if (n !== undefined) found.add(n)
    }
  }
  return all.filter((n) => found.has(n))
}
