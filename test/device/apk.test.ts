/**
 * Reading binary XML out of APKs (src/device/apk.ts, over @devicefarmer/adbkit-apkreader): APKs
 * that aapt2 itself compiled and linked from the corpus profiles decode to the same profile as
 * their text; the library's string-index-0 bug is worked around; attribute values as the
 * framework's parser reads them; damaged input is a clear error, never a hang.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { describe, expect, test } from 'vitest'
import {
  apkXmlToText,
  decodeBinaryXml,
  overlayOf,
  readApkEntry,
  readApkXml,
} from '../../src/device/index.js'
import { parsePowerProfile } from '../../src/formats/power-profile/index.js'
import { ANDROID_ATTR_IDS, compileXml } from '../../src/virtual-device/android/axml.js'
import { aapt2Apk, hasAapt2 } from './_aapt2.js'

const CORPUS = join(import.meta.dirname, '..', 'fixtures', 'corpus', '1_power_profile')
const ENTRY = 'res/xml/power_profile.xml'

describe.skipIf(!hasAapt2)('APKs that aapt2 compiled and linked', () => {
  const files = readdirSync(CORPUS).filter((f) => f.endsWith('.xml'))

  test.each(files)('%s decodes to the profile of its text', async (file) => {
    const text = readFileSync(join(CORPUS, file), 'utf8')
    const root = await readApkXml(aapt2Apk(text), ENTRY, file)
    expect(root?.name).toBe('device')
    const decoded = parsePowerProfile(apkXmlToText(root as NonNullable<typeof root>))
    expect(decoded).toEqual(parsePowerProfile(text))
  })
})

describe('attribute and text values, as the framework reads them', () => {
  test("a text at string-pool index 0 (aapt2 sorts '0' first) is read back, not lost", async () => {
    const bytes = Buffer.from(
      compileXml(
        '<device name="Android"><item name="none">0</item><item name="x">5</item></device>',
      ),
    )
    // The pool is sorted: '0' is string 0, the one the library reads as "no data".
    const root = decodeBinaryXml(bytes, 'test')
    expect(apkXmlToText(root)).toBe(
      '<?xml version="1.0" encoding="utf-8"?>\n<device name="Android"><item name="none">0</item><item name="x">5</item></device>\n',
    )
  })

  test('an attribute at index 0, typed attributes (int, float, boolean) and trimmed text', () => {
    const xml =
      '<device name="Android"><item name="">x</item><item name="12">  12  </item><item name="1.5">1</item><item name="true">2</item></device>'
    const root = decodeBinaryXml(Buffer.from(compileXml(xml)), 'test')
    const items = root.children.filter((c) => typeof c !== 'string')
    expect(items.map((i) => i.attributes[0]?.value)).toEqual(['', '12', '1.5', 'true'])
    expect(items.map((i) => i.children[0])).toEqual(['x', ' 12 ', '1', '2'])
  })

  test("an overlay's manifest: package, target, isStatic and priority (with and without raw values)", () => {
    const manifest = `<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="android.auto_generated_rro_product__">
  <overlay android:targetPackage="android" android:priority="1" android:isStatic="true"/>
</manifest>`
    for (const keepRawValues of [false, true]) {
      const root = decodeBinaryXml(
        Buffer.from(
          compileXml(manifest, { utf16: true, attributeIds: ANDROID_ATTR_IDS, keepRawValues }),
        ),
        'AndroidManifest.xml',
      )
      expect(overlayOf(root)).toEqual({
        package: 'android.auto_generated_rro_product__',
        targetPackage: 'android',
        isStatic: true,
        priority: 1,
      })
    }
    const plain = decodeBinaryXml(Buffer.from(compileXml('<manifest package="a.b"/>')), 'm')
    expect(overlayOf(plain)).toBeUndefined()
  })
})

describe('damaged input: a clear error, never a hang', () => {
  const good = Buffer.from(compileXml('<device name="Android"><item name="a">1</item></device>'))

  test('a file that is not a zip: E_APK_UNREADABLE', async () => {
    await expect(
      readApkXml(Buffer.from('PK but not really'), ENTRY, '/x.apk'),
    ).rejects.toMatchObject({
      code: 'E_APK_UNREADABLE',
      details: { path: '/x.apk' },
    })
  })

  test('an APK without the entry: undefined (an overlay that does not replace the profile)', async () => {
    const apk = zipSync({ 'AndroidManifest.xml': good })
    expect(await readApkXml(apk, ENTRY, '/x.apk')).toBeUndefined()
    expect(await readApkEntry(apk, 'AndroidManifest.xml', '/x.apk')).toEqual(good)
  })

  test.each([
    ['a chunk of size 0 (the library would loop on it)', (b: Buffer) => b.writeUInt32LE(0, 12)],
    ['a chunk longer than the file', (b: Buffer) => b.writeUInt32LE(0xffff, 12)],
    ['not binary XML at all', (b: Buffer) => b.write('<device name="Android">', 0)],
    [
      'an element chunk with a huge attribute count',
      (b: Buffer) => b.writeUInt16LE(0xffff, b.indexOf(Buffer.from([0x14, 0, 0x14, 0])) + 4),
    ],
  ])('%s: E_APK_XML_UNDECODABLE', (_name, damage) => {
    const bytes = Buffer.from(good)
    damage(bytes)
    expect(() => decodeBinaryXml(bytes, '/x.apk (res/xml/power_profile.xml)')).toThrow(
      expect.objectContaining({ code: 'E_APK_XML_UNDECODABLE' }),
    )
  })

  test('every truncation of a real file fails cleanly or decodes', () => {
    for (let n = 0; n < good.length; n++) {
      try {
        decodeBinaryXml(good.subarray(0, n), 'cut')
      } catch (error) {
        expect((error as { code?: string }).code).toBe('E_APK_XML_UNDECODABLE')
      }
    }
  })
})
