/**
 * Android binary XML as aapt2 writes it (`aapt2 compile` + `aapt2 link`), for the APKs the virtual
 * phone ships (framework-res.apk, its runtime resource overlay): the virtual device writing a real
 * artifact that the device layer — and aapt2 itself — read back.
 *
 * Layout (AOSP tools/aapt2/format/binary/XmlFlattener.cpp, Flatten and the visitor; structures
 * from libs/androidfw/include/androidfw/ResourceTypes.h):
 * - RES_XML_TYPE header (8 bytes), then a string pool — UTF-8 for res/xml files, UTF-16 for
 *   AndroidManifest.xml (Link.cpp flattens the manifest with utf16), no SORTED flag — whose
 *   strings carrying an attribute resource id come first in id order, the rest sorted by their
 *   bytes; then a RES_XML_RESOURCE_MAP chunk, always, empty when no attribute has an id.
 * - START_NAMESPACE before the element that declares it, END_NAMESPACE after its end.
 * - START_ELEMENT: node header 16 bytes (line, comment -1), ns -1 when none, attributeStart and
 *   attributeSize 0x14; attributes sorted (with an id first, by id; then by namespace and name).
 * - Attribute values typed as aapt2's XmlReferenceLinker types them for a TYPE_ANY attribute
 *   (ResourceUtils::TryParseItemForAttribute): `true`/`false` → INT_BOOLEAN, a decimal integer →
 *   INT_DEC, `0x…` → INT_HEX, a float → FLOAT, anything else a STRING; a typed value keeps its
 *   raw string only with `--keep-raw-values` (rawValue -1 otherwise).
 * - Text: trimmed, whitespace-only text dropped, leading and trailing whitespace kept as one
 *   space each; a CDATA chunk whose typed value is left zeroed (size 0, TYPE_NULL). Comments
 *   are not written but split the text around them.
 * - END_ELEMENT carries the start tag's line.
 */
import { EnergyError } from '../../model/errors.js'
import { SimErrors } from '../sim/errors.js'

export interface CompileXmlOptions {
  /** UTF-16 string pool (aapt2 writes AndroidManifest.xml so); UTF-8 otherwise. */
  readonly utf16?: boolean
  /** `--keep-raw-values`: typed attributes keep their text (auto-generated RROs are linked so). */
  readonly keepRawValues?: boolean
  /** Resource ids of attributes, by `namespaceUri:name` (e.g. the android attrs of a manifest). */
  readonly attributeIds?: Readonly<Record<string, number>>
}

/** android.R.attr ids of the manifest attributes the virtual APKs use. */
export const ANDROID_ATTR_IDS: Readonly<Record<string, number>> = {
  'http://schemas.android.com/apk/res/android:sharedUserId': 0x0101000b,
  'http://schemas.android.com/apk/res/android:priority': 0x0101001c,
  'http://schemas.android.com/apk/res/android:targetPackage': 0x01010021,
  'http://schemas.android.com/apk/res/android:isStatic': 0x0101055a,
}

interface Attr {
  readonly ns?: string
  readonly name: string
  readonly value: string
}
interface Element {
  readonly kind: 'element'
  readonly name: string
  readonly line: number
  /** Prefix → URI declared on this element. */
  readonly declares: ReadonlyArray<readonly [string, string]>
  readonly attrs: readonly Attr[]
  readonly children: Node[]
}
interface Text {
  readonly kind: 'text'
  readonly text: string
  readonly line: number
}
type Node = Element | Text

/** Compiles XML text to Android binary XML (see the file comment). */
export function compileXml(xml: string, options: CompileXmlOptions = {}): Uint8Array {
  const root = parseXml(xml)
  return flatten(root, options)
}

// ---- a small XML reader with line numbers (elements, attributes, text, comments, CDATA) ----

const ENTITIES: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16))
    if (ref.startsWith('#')) return String.fromCodePoint(Number(ref.slice(1)))
    return ENTITIES[ref] ?? whole
  })
}

function bad(why: string, line: number): EnergyError {
  return new EnergyError({
    code: SimErrors.BAD_OPTION,
    message: `cannot compile the XML to ship it as binary XML: ${why} (line ${line})`,
    hint: 'Give the virtual device well-formed power_profile.xml text.',
    details: { format: 'XML', line },
  })
}

function parseXml(xml: string): Element {
  let at = 0
  let line = 1
  const advance = (to: number): void => {
    for (let i = at; i < to; i++) if (xml.charCodeAt(i) === 10) line++
    at = to
  }
  const stack: Element[] = []
  let root: Element | undefined
  let pending: { text: string; line: number } | undefined
  const flush = (): void => {
    const parent = stack.at(-1)
    if (pending !== undefined && parent !== undefined) {
      parent.children.push({ kind: 'text', text: pending.text, line: pending.line })
    }
    pending = undefined
  }
  const addText = (text: string): void => {
    if (stack.length === 0) return
    if (pending === undefined) pending = { text, line }
    else pending.text += text
  }
  while (at < xml.length) {
    const lt = xml.indexOf('<', at)
    if (lt < 0) {
      addText(decodeEntities(xml.slice(at)))
      advance(xml.length)
      break
    }
    if (lt > at) {
      const startLine = line
      const text = decodeEntities(xml.slice(at, lt))
      if (pending === undefined && stack.length > 0) pending = { text: '', line: startLine }
      addText(text)
      advance(lt)
    }
    if (xml.startsWith('<!--', at)) {
      const end = xml.indexOf('-->', at + 4)
      if (end < 0) throw bad('unterminated comment', line)
      flush()
      advance(end + 3)
    } else if (xml.startsWith('<![CDATA[', at)) {
      const end = xml.indexOf(']]>', at + 9)
      if (end < 0) throw bad('unterminated CDATA section', line)
      addText(xml.slice(at + 9, end))
      advance(end + 3)
    } else if (xml.startsWith('<?', at) || xml.startsWith('<!', at)) {
      const end = xml.indexOf('>', at)
      if (end < 0) throw bad('unterminated declaration', line)
      advance(end + 1)
    } else if (xml.startsWith('</', at)) {
      const end = xml.indexOf('>', at)
      const name = xml.slice(at + 2, end).trim()
      flush()
      const open = stack.pop()
      if (end < 0 || open === undefined || open.name !== name) {
        throw bad(`unexpected </${name}>`, line)
      }
      advance(end + 1)
    } else {
      flush()
      const startLine = line
      const m = /^<([^\s/>]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/.exec(
        xml.slice(at),
      )
      if (m === null) throw bad('malformed start tag', line)
      const declares: Array<readonly [string, string]> = []
      const rawAttrs: Array<{ qname: string; value: string }> = []
      for (const a of (m[2] ?? '').matchAll(/([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
        const qname = a[1] as string
        const value = decodeEntities(a[2] ?? a[3] ?? '')
        if (qname === 'xmlns') declares.push(['', value])
        else if (qname.startsWith('xmlns:')) declares.push([qname.slice(6), value])
        else rawAttrs.push({ qname, value })
      }
      const scope = (prefix: string): string | undefined => {
        for (const d of declares) if (d[0] === prefix) return d[1]
        for (let i = stack.length - 1; i >= 0; i--) {
          for (const d of stack[i]?.declares ?? []) if (d[0] === prefix) return d[1]
        }
        return undefined
      }
      const attrs = rawAttrs.map(({ qname, value }) => {
        const colon = qname.indexOf(':')
        if (colon < 0) return { name: qname, value }
        const ns = scope(qname.slice(0, colon))
        if (ns === undefined) throw bad(`undeclared prefix in ${qname}`, startLine)
        return { ns, name: qname.slice(colon + 1), value }
      })
      const element: Element = {
        kind: 'element',
        name: m[1] as string,
        line: startLine,
        declares,
        attrs,
        children: [],
      }
      const parent = stack.at(-1)
      if (parent !== undefined) parent.children.push(element)
      else if (root === undefined) root = element
      else throw bad('a second root element', startLine)
      advance(at + m[0].length)
      if (m[3] !== '/') stack.push(element)
    }
  }
  if (root === undefined || stack.length > 0) throw bad('no complete root element', line)
  return root
}

// ---- the flattener ----

const RES_STRING_POOL_TYPE = 0x0001
const RES_XML_TYPE = 0x0003
const RES_XML_START_NAMESPACE_TYPE = 0x0100
const RES_XML_END_NAMESPACE_TYPE = 0x0101
const RES_XML_START_ELEMENT_TYPE = 0x0102
const RES_XML_END_ELEMENT_TYPE = 0x0103
const RES_XML_CDATA_TYPE = 0x0104
const RES_XML_RESOURCE_MAP_TYPE = 0x0180
const TYPE_STRING = 0x03
const TYPE_FLOAT = 0x04
const TYPE_INT_DEC = 0x10
const TYPE_INT_HEX = 0x11
const TYPE_INT_BOOLEAN = 0x12
const UTF8_FLAG = 1 << 8

/** A typed attribute value as aapt2 parses it for a TYPE_ANY attribute. */
function typeValue(text: string): { type: number; data: number } | undefined {
  const t = text.trim()
  if (t === 'true' || t === 'false') return { type: TYPE_INT_BOOLEAN, data: t === 'true' ? -1 : 0 }
  if (/^[-+]?\d+$/.test(t)) {
    const n = Number(t)
    if (n >= -2147483648 && n <= 2147483647) return { type: TYPE_INT_DEC, data: n }
  }
  if (/^0[xX][0-9a-fA-F]{1,8}$/.test(t)) return { type: TYPE_INT_HEX, data: Number(t) | 0 }
  if (
    /^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$/.test(t) &&
    Number.isFinite(Math.fround(Number(t)))
  ) {
    const view = new DataView(new ArrayBuffer(4))
    view.setFloat32(0, Number(t), true)
    return { type: TYPE_FLOAT, data: view.getInt32(0, true) }
  }
  return undefined
}

/** Text as XmlFlattener writes it: trimmed, with one space kept for each trimmed side. */
function flatText(text: string): string | undefined {
  const trimmed = text.trim()
  if (trimmed === '') return undefined
  const lead = /^\s/.test(text) ? ' ' : ''
  const trail = /\s$/.test(text) ? ' ' : ''
  return `${lead}${trimmed}${trail}`
}

class Pool {
  private readonly entries = new Map<string, { value: string; id?: number }>()
  add(value: string, id?: number): void {
    const key = `${id ?? ''}\u0000${value}`
    if (!this.entries.has(key)) this.entries.set(key, id === undefined ? { value } : { value, id })
  }
  /** The sorted pool: strings with an attribute id first (by id), then by UTF-8 bytes. */
  sorted(): Array<{ value: string; id?: number }> {
    return [...this.entries.values()].sort((a, b) => {
      if (a.id !== undefined || b.id !== undefined) {
        if (a.id === undefined) return 1
        if (b.id === undefined) return -1
        if (a.id !== b.id) return a.id - b.id
      }
      return Buffer.compare(Buffer.from(a.value), Buffer.from(b.value))
    })
  }
}

class Writer {
  private readonly chunks: Buffer[] = []
  push(b: Buffer): void {
    this.chunks.push(b)
  }
  concat(): Buffer {
    return Buffer.concat(this.chunks)
  }
}

function lengthUtf8(n: number): Buffer {
  return n < 0x80 ? Buffer.from([n]) : Buffer.from([0x80 | (n >> 8), n & 0xff])
}

function encodeString(value: string, utf16: boolean): Buffer {
  if (utf16) {
    const units = value.length
    const len =
      units < 0x8000
        ? Buffer.from([units & 0xff, units >> 8])
        : Buffer.from([
            (units >> 16) & 0xff,
            0x80 | (units >> 24),
            units & 0xff,
            (units >> 8) & 0xff,
          ])
    return Buffer.concat([len, Buffer.from(value, 'utf16le'), Buffer.alloc(2)])
  }
  const bytes = Buffer.from(value, 'utf8')
  return Buffer.concat([lengthUtf8(value.length), lengthUtf8(bytes.length), bytes, Buffer.alloc(1)])
}

function stringPool(strings: readonly string[], utf16: boolean): Buffer {
  const encoded = strings.map((s) => encodeString(s, utf16))
  const offsets = Buffer.alloc(4 * strings.length)
  let at = 0
  encoded.forEach((e, i) => {
    offsets.writeUInt32LE(at, 4 * i)
    at += e.length
  })
  const data = Buffer.concat(encoded)
  const padded = Buffer.concat([data, Buffer.alloc((4 - (data.length % 4)) % 4)])
  const header = Buffer.alloc(28)
  const stringsStart = 28 + offsets.length
  header.writeUInt16LE(RES_STRING_POOL_TYPE, 0)
  header.writeUInt16LE(28, 2)
  header.writeUInt32LE(stringsStart + padded.length, 4)
  header.writeUInt32LE(strings.length, 8)
  header.writeUInt32LE(0, 12) // styles
  header.writeUInt32LE(utf16 ? 0 : UTF8_FLAG, 16)
  header.writeUInt32LE(stringsStart, 20)
  header.writeUInt32LE(0, 24)
  return Buffer.concat([header, offsets, padded])
}

function flatten(root: Element, options: CompileXmlOptions): Uint8Array {
  const ids = options.attributeIds ?? {}
  const idOf = (a: Attr): number | undefined =>
    a.ns === undefined ? undefined : ids[`${a.ns}:${a.name}`]
  const pool = new Pool()
  const collect = (e: Element): void => {
    pool.add(e.name)
    for (const [prefix, uri] of e.declares) {
      pool.add(prefix)
      pool.add(uri)
    }
    for (const a of e.attrs) {
      pool.add(a.name, idOf(a))
      if (a.ns !== undefined) pool.add(a.ns)
      const typed = typeValue(a.value)
      if (typed === undefined || options.keepRawValues === true) pool.add(a.value)
    }
    for (const c of e.children) {
      if (c.kind === 'element') collect(c)
      else {
        const t = flatText(c.text)
        if (t !== undefined) pool.add(t)
      }
    }
  }
  collect(root)
  const sorted = pool.sorted()
  const index = new Map(sorted.map((s, i) => [`${s.id ?? ''}\u0000${s.value}`, i]))
  const ref = (value: string, id?: number): number => {
    const i = index.get(`${id ?? ''}\u0000${value}`)
    if (i === undefined) throw new Error(`string not pooled: ${value}`)
    return i
  }
  const body = new Writer()
  const node = (type: number, size: number, line: number): Buffer => {
    const b = Buffer.alloc(size)
    b.writeUInt16LE(type, 0)
    b.writeUInt16LE(16, 2)
    b.writeUInt32LE(size, 4)
    b.writeUInt32LE(line, 8)
    b.writeInt32LE(-1, 12) // comment
    return b
  }
  const namespace = (type: number, e: Element): void => {
    for (const [prefix, uri] of e.declares) {
      const b = node(type, 24, e.line)
      b.writeInt32LE(ref(prefix), 16)
      b.writeInt32LE(ref(uri), 20)
      body.push(b)
    }
  }
  const write = (e: Element): void => {
    namespace(RES_XML_START_NAMESPACE_TYPE, e)
    const attrs = [...e.attrs].sort((a, b) => {
      const ia = idOf(a)
      const ib = idOf(b)
      if (ia !== undefined || ib !== undefined) {
        if (ia === undefined) return 1
        if (ib === undefined) return -1
        return ia - ib
      }
      const na = a.ns ?? ''
      const nb = b.ns ?? ''
      return na !== nb ? (na < nb ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0
    })
    const start = node(RES_XML_START_ELEMENT_TYPE, 36 + 20 * attrs.length, e.line)
    start.writeInt32LE(-1, 16) // element namespace
    start.writeInt32LE(ref(e.name), 20)
    start.writeUInt16LE(0x14, 24) // attributeStart
    start.writeUInt16LE(0x14, 26) // attributeSize
    start.writeUInt16LE(attrs.length, 28)
    const indexOf = (name: string): number =>
      attrs.findIndex((a) => a.ns === undefined && a.name === name) + 1
    start.writeUInt16LE(0, 30) // idIndex
    start.writeUInt16LE(indexOf('class'), 32)
    start.writeUInt16LE(indexOf('style'), 34)
    attrs.forEach((a, i) => {
      const at = 36 + 20 * i
      const typed = typeValue(a.value)
      start.writeInt32LE(a.ns === undefined ? -1 : ref(a.ns), at)
      start.writeInt32LE(ref(a.name, idOf(a)), at + 4)
      const raw = typed === undefined || options.keepRawValues === true ? ref(a.value) : -1
      start.writeInt32LE(raw, at + 8)
      start.writeUInt16LE(8, at + 12)
      start.writeUInt8(0, at + 14)
      start.writeUInt8(typed?.type ?? TYPE_STRING, at + 15)
      start.writeInt32LE(typed?.data ?? ref(a.value), at + 16)
    })
    body.push(start)
    for (const c of e.children) {
      if (c.kind === 'element') write(c)
      else {
        const t = flatText(c.text)
        if (t === undefined) continue
        const cdata = node(RES_XML_CDATA_TYPE, 28, c.line)
        cdata.writeInt32LE(ref(t), 16)
        // typedData stays zeroed: size 0, TYPE_NULL (aapt2 never assigns it).
        body.push(cdata)
      }
    }
    const end = node(RES_XML_END_ELEMENT_TYPE, 24, e.line)
    end.writeInt32LE(-1, 16)
    end.writeInt32LE(ref(e.name), 20)
    body.push(end)
    namespace(RES_XML_END_NAMESPACE_TYPE, e)
  }
  write(root)
  const strings = stringPool(
    sorted.map((s) => s.value),
    options.utf16 === true,
  )
  const withIds = sorted.filter((s) => s.id !== undefined)
  const map = Buffer.alloc(8 + 4 * withIds.length)
  map.writeUInt16LE(RES_XML_RESOURCE_MAP_TYPE, 0)
  map.writeUInt16LE(8, 2)
  map.writeUInt32LE(map.length, 4)
  withIds.forEach((s, i) => map.writeUInt32LE(s.id as number, 8 + 4 * i))
  const nodes = body.concat()
  const header = Buffer.alloc(8)
  header.writeUInt16LE(RES_XML_TYPE, 0)
  header.writeUInt16LE(8, 2)
  header.writeUInt32LE(8 + strings.length + map.length + nodes.length, 4)
  return new Uint8Array(Buffer.concat([header, strings, map, nodes]))
}
