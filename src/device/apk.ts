/**
 * Reading compiled XML out of an APK pulled from a phone (framework-res.apk, runtime resource
 * overlays), with `@devicefarmer/adbkit-apkreader`: its zip reader finds the entry and its
 * BinaryXmlParser decodes Android's binary XML (ResXMLTree: a string pool, a resource map, then
 * namespace/element/text chunks; AOSP libs/androidfw/include/androidfw/ResourceTypes.h).
 *
 * Two things we add around the library, both documented in docs/formats/power-profile.md:
 * - It reads a string-pool index of 0 as "absent" (`dataRef > 0`, `valueRef > 0`), yet aapt2 sorts
 *   its pool so that index 0 is often a value (`"0"` in a power profile). We run its parser
 *   ourselves to keep its decoded pool and read index 0 back from it.
 * - It trusts chunk sizes: a chunk of size 0 sends it round forever. We walk the chunk headers
 *   first and refuse a file whose chunks do not tile it (`E_APK_XML_UNDECODABLE`).
 *
 * Attribute values follow Java's `XmlBlock.Parser.getAttributeValue`: the raw string when the file
 * keeps one, else the typed value coerced to text (`TypedValue.coerceToString`), because aapt2
 * types a numeric-looking attribute (`name="12"` is TYPE_INT_DEC without a raw string).
 */
import { createRequire } from 'node:module'
import { escapeXml } from '../formats/_xml.js'
import { EnergyError } from '../model/index.js'
import { DeviceErrors } from './errors.js'

/** The Android resources namespace (`xmlns:android`). */
export const ANDROID_NS = 'http://schemas.android.com/apk/res/android'

/** An attribute of a decoded element, its value as the framework's XML parser reads it. */
export interface ApkXmlAttribute {
  readonly name: string
  readonly namespace?: string
  readonly value: string
}

/** An element of a decoded binary XML file; text children are strings. */
export interface ApkXmlElement {
  readonly name: string
  readonly namespace?: string
  readonly attributes: readonly ApkXmlAttribute[]
  readonly children: ReadonlyArray<ApkXmlElement | string>
}

/** What an RRO's manifest declares (`<overlay android:targetPackage … />`). */
export interface OverlayManifest {
  readonly package: string
  readonly targetPackage: string
  /** `android:isStatic` (immutable and enabled at boot when its partition has no config.xml). */
  readonly isStatic: boolean
  /** `android:priority` (0 when absent). */
  readonly priority: number
}

interface RawTyped {
  readonly value: unknown
  readonly type: string
  readonly rawType: number
}
interface RawNode {
  readonly nodeType: number
  readonly nodeName: string
  readonly namespaceURI: string | null
  readonly attributes?: ReadonlyArray<{
    readonly name: string
    readonly namespaceURI: string | null
    readonly value: string | null
    readonly typedValue: RawTyped
  }>
  readonly childNodes?: readonly RawNode[]
  readonly data?: string | null
  readonly typedValue?: RawTyped
}
interface BinaryXmlParser {
  readonly strings: readonly string[]
  parse(): RawNode | null
}
interface ApkReaderModule {
  open(apk: Buffer): PromiseLike<{ readContent(path: string): PromiseLike<Buffer> }>
}

const require = createRequire(import.meta.url)
const ApkReader = require('@devicefarmer/adbkit-apkreader') as ApkReaderModule
const BinaryXml = require('@devicefarmer/adbkit-apkreader/lib/apkreader/parser/binaryxml') as new (
  bytes: Buffer,
) => BinaryXmlParser

/**
 * The bytes of an APK entry, or `undefined` when the APK has no such entry. A file that is not a
 * readable zip is `E_APK_UNREADABLE`. `label` names the APK in messages (its phone path).
 */
export async function readApkEntry(
  apk: Uint8Array,
  entry: string,
  label: string,
): Promise<Buffer | undefined> {
  try {
    const reader = await ApkReader.open(Buffer.from(apk.buffer, apk.byteOffset, apk.byteLength))
    return await reader.readContent(entry)
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause)
    if (/does not contain/.test(message)) return undefined
    throw new EnergyError({
      code: DeviceErrors.APK_UNREADABLE,
      message: `${label} is not a readable APK (zip): ${message}`,
      hint: 'Pull it again (`adb pull`); a file that stays unreadable is damaged or not an APK.',
      details: { format: 'APK', path: label },
      cause,
    })
  }
}

/**
 * The decoded binary XML of an APK entry (`res/xml/power_profile.xml`, `AndroidManifest.xml`),
 * or `undefined` when the APK has no such entry. Throws `E_APK_UNREADABLE` (not a zip) or
 * `E_APK_XML_UNDECODABLE` (the entry is not binary XML that can be decoded).
 */
export async function readApkXml(
  apk: Uint8Array,
  entry: string,
  label: string,
): Promise<ApkXmlElement | undefined> {
  const bytes = await readApkEntry(apk, entry, label)
  return bytes === undefined ? undefined : decodeBinaryXml(bytes, `${label} (${entry})`)
}

/** Decodes Android binary XML (see the file comment). Throws `E_APK_XML_UNDECODABLE`. */
export function decodeBinaryXml(bytes: Buffer, label: string): ApkXmlElement {
  checkChunks(bytes, label)
  const parser = new BinaryXml(bytes)
  let root: RawNode | null
  try {
    root = parser.parse()
  } catch (cause) {
    throw undecodable(label, cause instanceof Error ? cause.message : String(cause), cause)
  }
  if (root === null) throw undecodable(label, 'it holds no element')
  return toElement(root, parser.strings)
}

/** The text of a decoded element as XML (what aapt2 compiled it from, less comments and layout). */
export function apkXmlToText(root: ApkXmlElement): string {
  const prefixes = new Map<string, string>()
  const collect = (e: ApkXmlElement): void => {
    for (const a of e.attributes) {
      if (a.namespace !== undefined && !prefixes.has(a.namespace)) {
        prefixes.set(a.namespace, a.namespace === ANDROID_NS ? 'android' : `ns${prefixes.size}`)
      }
    }
    for (const c of e.children) if (typeof c !== 'string') collect(c)
  }
  collect(root)
  const declarations = [...prefixes].map(([uri, p]) => ` xmlns:${p}="${escapeXml(uri)}"`).join('')
  const write = (e: ApkXmlElement, declare: string): string => {
    const attrs = e.attributes
      .map((a) => {
        const name = a.namespace === undefined ? a.name : `${prefixes.get(a.namespace)}:${a.name}`
        return ` ${name}="${escapeXml(a.value)}"`
      })
      .join('')
    const inner = e.children
      .map((c) => (typeof c === 'string' ? escapeXml(c) : write(c, '')))
      .join('')
    return `<${e.name}${declare}${attrs}>${inner}</${e.name}>`
  }
  return `<?xml version="1.0" encoding="utf-8"?>\n${write(root, declarations)}\n`
}

/** The `<overlay>` of a decoded AndroidManifest.xml, when the APK is a runtime resource overlay. */
export function overlayOf(manifest: ApkXmlElement): OverlayManifest | undefined {
  const overlay = manifest.children.find(
    (c): c is ApkXmlElement => typeof c !== 'string' && c.name === 'overlay',
  )
  const pkg = manifest.attributes.find((a) => a.name === 'package' && a.namespace === undefined)
  const attr = (name: string): string | undefined =>
    overlay?.attributes.find((a) => a.name === name && a.namespace === ANDROID_NS)?.value
  const target = attr('targetPackage')
  if (overlay === undefined || pkg === undefined || target === undefined) return undefined
  const priority = Number(attr('priority') ?? '0')
  return {
    package: pkg.value,
    targetPackage: target,
    isStatic: attr('isStatic') === 'true',
    priority: Number.isInteger(priority) ? priority : 0,
  }
}

/**
 * Walks the chunk headers: the file is one RES_XML_TYPE (0x0003) chunk whose children each have
 * a header of at least 8 bytes and a size that keeps them inside the file.
 */
function checkChunks(bytes: Buffer, label: string): void {
  if (bytes.length < 8 || bytes.readUInt16LE(0) !== 0x0003) {
    throw undecodable(
      label,
      'it does not start with a binary XML header (RES_XML_TYPE 0x0003)',
      undefined,
      0,
    )
  }
  // The tree's header is a bare chunk header (ResXMLTree_header): the reader takes its chunks from
  // byte 8 on whatever the header says, so a header that says otherwise would walk it elsewhere.
  if (bytes.readUInt16LE(2) !== 8) {
    throw undecodable(
      label,
      `its header size is ${bytes.readUInt16LE(2)}, not 8 (ResXMLTree_header)`,
      undefined,
      2,
    )
  }
  let at = 8
  while (at < bytes.length) {
    if (at + 8 > bytes.length) throw undecodable(label, 'a chunk header is cut off', undefined, at)
    const headerSize = bytes.readUInt16LE(at + 2)
    const size = bytes.readUInt32LE(at + 4)
    if (headerSize < 8 || size < headerSize || at + size > bytes.length) {
      throw undecodable(
        label,
        `the chunk at byte ${at} has header size ${headerSize} and size ${size} in a ${bytes.length}-byte file`,
        undefined,
        at,
      )
    }
    at += size
  }
}

function undecodable(label: string, why: string, cause?: unknown, offset?: number): EnergyError {
  return new EnergyError({
    code: DeviceErrors.APK_XML_UNDECODABLE,
    message: `${label} cannot be decoded as Android binary XML: ${why}`,
    hint: 'Check the file with `aapt2 dump xmltree --file <entry> <apk>`; a file that aapt2 cannot read either is damaged.',
    details: { format: 'binary XML', path: label, ...(offset === undefined ? {} : { offset }) },
    ...(cause === undefined ? {} : { cause }),
  })
}

function toElement(node: RawNode, strings: readonly string[]): ApkXmlElement {
  const attributes: ApkXmlAttribute[] = []
  for (const a of node.attributes ?? []) {
    // The library drops a raw string at pool index 0 and reads a TYPE_STRING index 0 as ''.
    const value =
      a.value ??
      (a.typedValue.type === 'string' && a.typedValue.value === ''
        ? (strings[0] ?? '')
        : coerce(a.typedValue))
    if (value === undefined) continue
    attributes.push({
      name: a.name,
      ...(a.namespaceURI === null ? {} : { namespace: a.namespaceURI }),
      value,
    })
  }
  const children: Array<ApkXmlElement | string> = []
  for (const c of node.childNodes ?? []) {
    if (c.nodeType === 1) children.push(toElement(c, strings))
    else if (c.nodeType === 4) {
      // aapt2 leaves a text's typed value TYPE_NULL: a null `data` is the pool's index 0.
      const typed = c.typedValue === undefined ? undefined : coerce(c.typedValue)
      children.push(c.data ?? typed ?? strings[0] ?? '')
    }
  }
  return {
    name: node.nodeName,
    ...(node.namespaceURI === null ? {} : { namespace: node.namespaceURI }),
    attributes,
    children,
  }
}

/** `TypedValue.coerceToString` for the types aapt2 writes into XML; `undefined` for TYPE_NULL. */
function coerce(typed: RawTyped): string | undefined {
  const { value } = typed
  switch (typed.type) {
    case 'null':
      return undefined
    case 'string':
      return typeof value === 'string' ? value : ''
    case 'boolean':
      return value === true ? 'true' : 'false'
    case 'int_dec':
      return String(value)
    case 'int_hex':
      return `0x${((value as number) >>> 0).toString(16)}`
    case 'reference':
      return `@${Number.parseInt(String(value).replace(/^resourceId:/, ''), 16)}`
    case 'rgb8':
    case 'rgb4':
    case 'argb8':
    case 'argb4':
      return `#${String(value)}`
    default:
      if (typed.rawType === 0x04 && typeof value === 'number') {
        // TYPE_FLOAT, which the library does not know: the u32 is the float's bits.
        const view = new DataView(new ArrayBuffer(4))
        view.setUint32(0, value >>> 0)
        return float32Text(view.getFloat32(0))
      }
      return typeof value === 'object' && value !== null && 'value' in value
        ? String((value as { value: unknown }).value)
        : String(value)
  }
}

/** The shortest decimal that reads back as the same float32, as Java's Float.toString aims for. */
function float32Text(f: number): string {
  for (let digits = 1; digits < 10; digits++) {
    const text = Number(f.toPrecision(digits))
    if (Math.fround(text) === f) return String(text)
  }
  return String(f)
}
