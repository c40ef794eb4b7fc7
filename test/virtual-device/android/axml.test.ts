/**
 * The virtual device's binary XML writer (src/virtual-device/android/axml.ts) against aapt2, the
 * tool it follows: byte for byte the file `aapt2 compile` + `aapt2 link` write for every corpus
 * profile; `aapt2 dump xmltree` of the APKs the virtual phone ships (pulled over adb) shows the
 * items and values the writer was given. The layout is also checked by hand, without aapt2.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { connectAdb, pull, readApkEntry, type AdbDevice } from '../../../src/device/index.js'
import { parsePowerProfile } from '../../../src/formats/power-profile/index.js'
import { compileXml } from '../../../src/virtual-device/android/axml.js'
import { aospDefaultProfileXml } from '../../../src/virtual-device/android/overlays.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../../src/virtual-device/index.js'
import { defaultPowerProfileXml } from '../../../src/virtual-device/sim/power-model.js'
import { aapt2Apk, aapt2XmlTree, entriesOfXmlTree, hasAapt2 } from '../../device/_aapt2.js'
import { sharedCorpus } from '../../formats/_shared-corpus.js'

const CORPUS = join(import.meta.dirname, '..', '..', 'fixtures', 'corpus', '1_power_profile')
const ENTRY = 'res/xml/power_profile.xml'
const OVERLAY = '/product/overlay/framework-res__oriole__auto_generated_rro_product.apk'
const FRAMEWORK = '/system/framework/framework-res.apk'

describe.skipIf(!hasAapt2)('byte for byte what aapt2 writes', () => {
  const shared = sharedCorpus('1_power_profile')
  const files = [
    ...readdirSync(CORPUS)
      .filter((f) => f.endsWith('.xml'))
      .map((f) => join(CORPUS, f)),
    ...(shared?.files.filter((f) => f.endsWith('.xml')).map((f) => join(shared.dir, f)) ?? []),
  ]

  test.each(files)('%s', async (file) => {
    const text = readFileSync(file, 'utf8')
    const theirs = await readApkEntry(aapt2Apk(text), ENTRY, file)
    expect(Buffer.from(compileXml(text)).equals(theirs as Buffer)).toBe(true)
  })
})

/** A profile's entries from its text, as names and value strings, in the parser's tables. */
function expectedEntries(xml: string): Map<string, string[]> {
  const p = parsePowerProfile(xml)
  return new Map<string, string[]>([
    ...Object.entries(p.items).map(([k, v]): [string, string[]] => [k, [String(v)]]),
    ...Object.entries(p.arrays).map(([k, v]): [string, string[]] => [k, v.map(String)]),
  ])
}

/** The same from `aapt2 dump xmltree` (the last definition of a name wins, as in the parser). */
function dumpedEntries(tree: string): Map<string, string[]> {
  return new Map(
    entriesOfXmlTree(tree).map((e) => [e.name, e.values.map((v) => String(Number(v)))] as const),
  )
}

describe.skipIf(!hasAapt2)('aapt2 reads the APKs the virtual phone ships', () => {
  let server: VirtualDeviceServer
  let device: AdbDevice
  beforeAll(async () => {
    server = await startVirtualDevice({ time: 'fast' })
    device = (await connectAdb({ port: server.port })).device(server.serials[0] as string)
  })
  afterAll(async () => {
    await server.close()
  })

  test("the overlay's power_profile.xml holds the items and values of the phone's profile", async () => {
    const tree = aapt2XmlTree(await pull(device, OVERLAY), ENTRY)
    expect(tree).toMatch(/^E: device \(line=\d+\)\n {2}A: name="Android"/)
    expect(dumpedEntries(tree)).toEqual(expectedEntries(defaultPowerProfileXml()))
  })

  test("framework-res.apk's is AOSP's placeholder", async () => {
    const tree = aapt2XmlTree(await pull(device, FRAMEWORK), ENTRY)
    expect(dumpedEntries(tree)).toEqual(expectedEntries(aospDefaultProfileXml()))
  })

  test("the overlay's manifest: a static RRO of android, typed as aapt2 types them", async () => {
    const tree = aapt2XmlTree(await pull(device, OVERLAY), 'AndroidManifest.xml')
    expect(tree).toContain('A: package="android.auto_generated_rro_product__"')
    expect(tree).toContain(
      'A: http://schemas.android.com/apk/res/android:targetPackage(0x01010021)="android"',
    )
    expect(tree).toMatch(/android:isStatic\(0x0101055a\)=true/)
    expect(tree).toMatch(/android:priority\(0x0101001c\)=1/)
  })
})

describe('the layout, by hand', () => {
  test('header, UTF-8 pool sorted by bytes, empty resource map, element, text, end', () => {
    const b = Buffer.from(
      compileXml('<device name="Android">\n  <item name="a">  1 </item>\n</device>\n'),
    )
    expect(b.readUInt16LE(0)).toBe(0x0003)
    expect(b.readUInt32LE(4)).toBe(b.length)
    // string pool: 28-byte header, UTF8_FLAG, strings ' 1 ', 'Android', 'a', 'device', 'item', 'name'
    expect([b.readUInt16LE(8), b.readUInt16LE(10)]).toEqual([0x0001, 28])
    expect(b.readUInt32LE(16)).toBe(6)
    expect(b.readUInt32LE(24)).toBe(0x100)
    const poolEnd = 8 + b.readUInt32LE(12)
    expect([b.readUInt16LE(poolEnd), b.readUInt32LE(poolEnd + 4)]).toEqual([0x0180, 8])
    const device = poolEnd + 8
    expect([
      b.readUInt16LE(device),
      b.readUInt32LE(device + 4),
      b.readUInt32LE(device + 8),
    ]).toEqual([0x0102, 56, 1])
    const item = device + 56
    const text = item + 56
    expect([b.readUInt16LE(text), b.readUInt32LE(text + 4), b.readUInt32LE(text + 8)]).toEqual([
      0x0104, 28, 2,
    ])
    expect(b.readInt32LE(text + 16)).toBe(0) // ' 1 ': the trimmed text, one space kept each side
    expect(b.subarray(text + 20, text + 28).equals(Buffer.alloc(8))).toBe(true) // typedData zeroed
    expect(b.readUInt16LE(text + 28)).toBe(0x0103)
  })
})
