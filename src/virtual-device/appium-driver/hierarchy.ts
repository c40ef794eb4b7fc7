/**
 * The window hierarchy as `uiautomator dump` writes it (one `<node>` per view, see
 * test/fixtures/corpus/6_dumpsys_uiautomator), parsed with fast-xml-parser into a tree whose tag
 * names are the view classes, as UiAutomator2's page source and XPath see it. Appium's page source
 * itself (`<hierarchy … width height>` with one element per view named after its class, e.g.
 * `<android.widget.TextView …>`, as `renderPageSource` writes it) reads to the same tree. A
 * hierarchy without a single view is refused: a real dump always has the window's root view.
 * Nesting is bounded by fast-xml-parser (100 levels), so the recursion here stays shallow.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { EnergyError } from '../../model/index.js'
import { AppiumDriverErrors } from './errors.js'

/** A view's rectangle on the screen, px. */
export interface Rect {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

/** One node of the hierarchy. The root is `hierarchy` (the dump's own root). */
export interface UiNode {
  /** `hierarchy` for the root, else the view class (`android.widget.Button`). */
  readonly tag: string
  /** The dump's attributes as written (`text`, `resource-id`, `content-desc`, `bounds`, ...). */
  readonly attrs: Readonly<Record<string, string>>
  readonly children: readonly UiNode[]
  readonly parent: UiNode | undefined
  /** Child indexes from the root, `0/1/4`: identifies the node across dumps of the same screen. */
  readonly path: string
  /** From the `bounds` attribute; undefined for the root or a malformed value. */
  readonly rect: Rect | undefined
}

const BOUNDS = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/

/** `[l,t][r,b]` → rect; undefined when it does not have that shape. */
export function parseBounds(bounds: string | undefined): Rect | undefined {
  const m = BOUNDS.exec(bounds ?? '')
  if (m === null) return undefined
  const [l, t, r, b] = [m[1], m[2], m[3], m[4]].map(Number) as [number, number, number, number]
  return { x: l, y: t, width: Math.max(0, r - l), height: Math.max(0, b - t) }
}

type Ordered = Record<string, unknown>

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  processEntities: true,
  // Real dumps write newlines in text as `&#10;` (test/fixtures/corpus): decode numeric references.
  htmlEntities: true,
})

function hierarchyError(message: string, details: Record<string, string | number>): EnergyError {
  return new EnergyError({
    code: AppiumDriverErrors.HIERARCHY,
    message,
    hint: 'Run `adb shell uiautomator dump /dev/tty` on the device to see what it prints; the screen must be on and unlocked.',
    details: { format: 'uiautomator dump', ...details },
  })
}

/**
 * Parses the XML of a dump (or of a page source). Throws `E_APPIUM_HIERARCHY` when it is not a
 * window hierarchy or holds no view.
 */
export function parseHierarchy(xml: string): UiNode {
  const start = xml.indexOf('<?xml')
  const end = xml.lastIndexOf('</hierarchy>')
  if (start < 0 || end < 0) {
    throw hierarchyError('the output has no <hierarchy> document', {
      offset: start < 0 ? 0 : start,
      sample: xml.slice(0, 120),
    })
  }
  const text = xml.slice(start, end + '</hierarchy>'.length)
  let doc: Ordered[]
  try {
    const valid = XMLValidator.validate(text)
    if (valid !== true) {
      throw hierarchyError(`malformed XML: ${valid.err.msg}`, {
        line: valid.err.line,
        column: valid.err.col,
      })
    }
    doc = parser.parse(text) as Ordered[]
  } catch (cause) {
    if (cause instanceof EnergyError) throw cause
    // fast-xml-parser throws plain Errors on some inputs its validator lets through.
    throw hierarchyError(
      `malformed XML: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        offset: start,
      },
    )
  }
  const rootEntry = doc.find((e) => 'hierarchy' in e)
  if (rootEntry === undefined) throw hierarchyError('no <hierarchy> element', {})
  const root = build(rootEntry, 'hierarchy', undefined, '')
  if (root.children.length === 0) {
    throw hierarchyError(
      'the <hierarchy> holds no view (neither <node> nor class-named elements)',
      {
        offset: start,
      },
    )
  }
  return root
}

/** The element name of a preserveOrder entry; undefined for text and processing instructions. */
function elementName(entry: Ordered): string | undefined {
  for (const key of Object.keys(entry)) {
    if (key !== ':@' && key !== '#text' && !key.startsWith('?')) return key
  }
  return undefined
}

function attributesOf(entry: Ordered): Record<string, string> {
  const raw = entry[':@']
  const attrs: Record<string, string> = {}
  if (typeof raw === 'object' && raw !== null) {
    for (const [k, v] of Object.entries(raw)) attrs[k] = String(v)
  }
  return attrs
}

/**
 * One view: `<node class="…">` (uiautomator dump) or `<the.view.Class class="…">` (page source);
 * the `class` attribute names it in both, else the page source's tag does.
 */
function build(entry: Ordered, tagName: string, parent: UiNode | undefined, path: string): UiNode {
  const attrs = attributesOf(entry)
  const tag =
    parent === undefined
      ? 'hierarchy'
      : attrs['class'] || (tagName === 'node' ? 'android.view.View' : tagName)
  const children: UiNode[] = []
  const node: UiNode = { tag, attrs, children, parent, path, rect: parseBounds(attrs['bounds']) }
  const kids = entry[tagName]
  if (Array.isArray(kids)) {
    let i = 0
    for (const kid of kids as Ordered[]) {
      const name = elementName(kid)
      if (name === undefined) continue
      children.push(build(kid, name, node, path === '' ? String(i) : `${path}/${i}`))
      i++
    }
  }
  return node
}

/** Every node under `root` (not `root` itself), in document order. */
export function descendants(root: UiNode): UiNode[] {
  const out: UiNode[] = []
  const walk = (n: UiNode): void => {
    for (const c of n.children) {
      out.push(c)
      walk(c)
    }
  }
  walk(root)
  return out
}

/** The node at `path`, or undefined. */
export function nodeAtPath(root: UiNode, path: string): UiNode | undefined {
  if (path === '') return root
  let node: UiNode | undefined = root
  for (const part of path.split('/')) node = node?.children[Number(part)]
  return node
}

/** A rect's centre in whole pixels, as Android's `Rect.centerX()`/`centerY()` (rounded down). */
export function centre(rect: Rect): [number, number] {
  return [Math.floor(rect.x + rect.width / 2), Math.floor(rect.y + rect.height / 2)]
}

export type SwipeDirection = 'up' | 'down' | 'left' | 'right'

/**
 * UiAutomator2's `swipeGesture`: a straight line through the area's centre over `percent` of its
 * height (up, down) or width (left, right), towards `direction`: `[x1, y1, x2, y2]`.
 */
export function swipeLine(
  area: Rect,
  direction: SwipeDirection,
  percent: number,
): [number, number, number, number] {
  const [cx, cy] = centre(area)
  const vertical = direction === 'up' || direction === 'down'
  const half = Math.floor(((vertical ? area.height : area.width) * percent) / 2)
  const sign = direction === 'up' || direction === 'left' ? -1 : 1
  return vertical
    ? [cx, cy - sign * half, cx, cy + sign * half]
    : [cx - sign * half, cy, cx + sign * half, cy]
}

/**
 * Screen size: a page source's `width`/`height` on `<hierarchy>`, else the largest right/bottom
 * edge in the hierarchy (the root view fills the screen).
 */
export function screenSize(root: UiNode): { readonly width: number; readonly height: number } {
  const given = (name: string): number => {
    const text = root.attrs[name] ?? ''
    return /^[1-9]\d{0,5}$/.test(text) ? Number(text) : 0
  }
  if (given('width') > 0 && given('height') > 0) {
    return { width: given('width'), height: given('height') }
  }
  let width = 0
  let height = 0
  for (const n of descendants(root)) {
    if (n.rect === undefined) continue
    width = Math.max(width, n.rect.x + n.rect.width)
    height = Math.max(height, n.rect.y + n.rect.height)
  }
  return { width: width || 1080, height: height || 2400 }
}

/** Displayed as UiAutomator2 reports it: on screen with a non-empty area. */
export function isDisplayed(node: UiNode, screen: { width: number; height: number }): boolean {
  const r = node.rect
  if (r === undefined || r.width <= 0 || r.height <= 0) return false
  return r.x < screen.width && r.y < screen.height && r.x + r.width > 0 && r.y + r.height > 0
}

/** Attribute names UiAutomator2 accepts, mapped to the dump's names. */
const ATTRIBUTE_ALIASES: Readonly<Record<string, string>> = {
  contentDescription: 'content-desc',
  'content-description': 'content-desc',
  name: 'content-desc',
  resourceId: 'resource-id',
  className: 'class',
  checkable: 'checkable',
  longClickable: 'long-clickable',
  selectionStart: 'selection-start',
}

/**
 * An attribute as UiAutomator2's getAttribute returns it: the dump's string value, `displayed`
 * computed, `null` for a name the element does not have.
 */
export function attributeOf(
  node: UiNode,
  name: string,
  screen: { width: number; height: number },
): string | null {
  if (name === 'displayed') return String(isDisplayed(node, screen))
  const key = ATTRIBUTE_ALIASES[name] ?? name
  return node.attrs[key] ?? null
}

function escapeXml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;')
}

/**
 * Page source in UiAutomator2's layout: tags are view classes, the root is `<hierarchy>` with the
 * screen size, every node gets `displayed`.
 */
export function renderPageSource(root: UiNode): string {
  const screen = screenSize(root)
  const lines = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"]
  const rootAttrs = `index="0" class="hierarchy" rotation="${escapeXml(root.attrs['rotation'] ?? '0')}" width="${screen.width}" height="${screen.height}"`
  const walk = (n: UiNode, depth: number): void => {
    const pad = '  '.repeat(depth)
    const attrs =
      n.tag === 'hierarchy'
        ? rootAttrs
        : [
            ...Object.entries(n.attrs)
              .filter(([k]) => k !== 'displayed') // computed below (a page source read back has it)
              .map(([k, v]) => `${k}="${escapeXml(v)}"`),
            `displayed="${isDisplayed(n, screen)}"`,
          ].join(' ')
    if (n.children.length === 0) {
      lines.push(`${pad}<${n.tag} ${attrs} />`)
      return
    }
    lines.push(`${pad}<${n.tag} ${attrs}>`)
    for (const c of n.children) walk(c, depth + 1)
    lines.push(`${pad}</${n.tag}>`)
  }
  walk(root, 0)
  return `${lines.join('\n')}\n`
}
