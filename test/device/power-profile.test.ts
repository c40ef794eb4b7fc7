/**
 * `findPowerProfile` (src/device/power-profile.ts) through the real adbkit client against the
 * virtual device's ADB server: the profile read from the overlay the phone names, on Android 13
 * (`cmd overlay lookup`), Android 11 (`cmd overlay dump`) and a phone without an overlay service
 * (the folders the shell can list); an unreadable /vendor/overlay winner, AOSP's placeholder, no
 * profile at all; an overlay that is not a zip and one whose binary XML cannot be decoded (a
 * warning, then the next place); the host cache per build.
 */
import { readFileSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { afterEach, describe, expect, test } from 'vitest'
import {
  apkXmlToText,
  connectAdb,
  findPowerProfile,
  pull,
  readApkXml,
  shell,
  type AdbDevice,
} from '../../src/device/index.js'
import {
  isAospPlaceholder,
  parsePowerProfile,
  type PowerProfile,
} from '../../src/formats/power-profile/index.js'
import { compileXml } from '../../src/virtual-device/android/axml.js'
import { aospDefaultProfileXml } from '../../src/virtual-device/android/overlays.js'
import {
  startVirtualDevice,
  type StartVirtualDeviceOptions,
  type VirtualDeviceServer,
} from '../../src/virtual-device/index.js'
import { defaultPowerProfileXml } from '../../src/virtual-device/sim/power-model.js'

const OVERLAY = '/product/overlay/framework-res__oriole__auto_generated_rro_product.apk'
const VENDOR_OVERLAY = '/vendor/overlay/framework-res__oriole__auto_generated_rro_vendor.apk'
const FRAMEWORK = '/system/framework/framework-res.apk'
const CORPUS = join(import.meta.dirname, '..', 'fixtures', 'corpus', '1_power_profile')

const servers: VirtualDeviceServer[] = []
const dirs: string[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

async function phone(
  options: StartVirtualDeviceOptions = {},
): Promise<{ server: VirtualDeviceServer; device: AdbDevice }> {
  const server = await startVirtualDevice({ time: 'fast', ...options })
  servers.push(server)
  const device = (await connectAdb({ port: server.port })).device(server.serials[0] as string)
  return { server, device }
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 've-profile-cache-'))
  dirs.push(dir)
  return dir
}

/** Items and arrays only: what the file holds, whatever the parser derives from it. */
function tables(p: PowerProfile): unknown {
  return { items: p.items, arrays: p.arrays }
}

describe('the profile the framework uses, read from the phone', () => {
  test('Android 13: cmd overlay lookup names the overlay; its profile is the one the phone runs on', async () => {
    const { device } = await phone()
    const found = await findPowerProfile(device)
    expect(found.problem).toBeUndefined()
    expect(found.warnings).toEqual([])
    expect(found.source).toEqual({
      kind: 'apk',
      apk: OVERLAY,
      entry: 'res/xml/power_profile.xml',
      overlayPackage: 'android.auto_generated_rro_product__',
    })
    expect(found.where).toBe(`${OVERLAY} (res/xml/power_profile.xml)`)
    expect(found.profile).toEqual(parsePowerProfile(defaultPowerProfileXml()))
    expect(found.coverage).toMatchObject({
      cpu: { kind: 'clusters', clusters: [{ cores: 4 }, { cores: 2 }, { cores: 2 }] },
      displays: 1,
      gps: true,
      batteryCapacityMah: 4614,
    })
    expect(found.evidence.map((e) => e.line)).toEqual(
      expect.arrayContaining([
        `Found initial: ${FRAMEWORK}`,
        `Overlaid: ${OVERLAY}`,
        'res/xml/power_profile.xml',
      ]),
    )
  })

  test('the overlay is built from the profile the virtual device was started with', async () => {
    const file = join(CORPUS, 'aosp_pixel4_flame_power_profile.xml')
    const { device } = await phone({ powerProfile: file })
    const found = await findPowerProfile(device)
    expect(tables(found.profile as PowerProfile)).toEqual(
      tables(parsePowerProfile(readFileSync(file, 'utf8'))),
    )
  })

  test('Android 11 (no cmd overlay lookup): the enabled overlays of cmd overlay dump, highest priority first', async () => {
    const { device } = await phone({ androidVersion: 30 })
    const found = await findPowerProfile(device)
    expect(found.where).toBe(`${OVERLAY} (res/xml/power_profile.xml)`)
    expect(found.profile).toEqual(parsePowerProfile(defaultPowerProfileXml()))
    expect(found.evidence[0]).toMatchObject({ line: 'Unknown command: lookup', exitCode: 255 })
    // The disabled, mutable overlay of the same target is not a candidate.
    expect(found.evidence.map((e) => e.line).join('\n')).not.toContain('cutout')
  })

  test('no overlay service: the static overlays in the folders the shell can list', async () => {
    const { server, device } = await phone()
    const vd = server.devices[0]
    vd?.device.commands.set('cmd', (inv) => {
      inv.io.writeErr(`cmd: Can't find service: ${inv.argv[1] ?? ''}\n`)
      return 20
    })
    const found = await findPowerProfile(device)
    expect(found.where).toBe(`${OVERLAY} (res/xml/power_profile.xml)`)
    expect(found.source).toMatchObject({ overlayPackage: 'android.auto_generated_rro_product__' })
    const lines = found.evidence.map((e) => e.line).join('\n')
    expect(lines).toContain('ls: /vendor/overlay: Permission denied')
    expect(lines).toContain(
      'overlay android.auto_generated_rro_product__ → android, static, priority 1',
    )
  })
})

describe('when the phone does not give its profile', () => {
  test('the winner is in /vendor/overlay, which adb cannot read: W_OVERLAY_UNREADABLE, the placeholder not used', async () => {
    const { device } = await phone({ shippedProfile: 'vendor-overlay' })
    // What a user build shows: the folder cannot be listed, the file cannot be read or pulled.
    expect((await shell(device, ['ls', '/vendor/overlay'])).stdout).toBe(
      'ls: /vendor/overlay: Permission denied\n',
    )
    expect((await shell(device, ['cat', VENDOR_OVERLAY])).stdout).toContain('Permission denied')
    await expect(pull(device, VENDOR_OVERLAY)).rejects.toMatchObject({
      code: 'E_DEVICE_FILE_MISSING',
    })
    const found = await findPowerProfile(device)
    expect(found.profile).toBeUndefined()
    expect(found.unreadable).toBe(VENDOR_OVERLAY)
    expect(found.problem?.code).toBe('W_OVERLAY_UNREADABLE')
    expect(found.problem?.message).toContain(VENDOR_OVERLAY)
    expect(found.problem?.message).toContain('powerProfile option')
    expect(found.problem?.message).toContain('adb root')
    expect(found.evidence.at(-1)).toMatchObject({
      command: `ls -l ${VENDOR_OVERLAY}`,
      exitCode: 1,
    })
  })

  test("only framework-res.apk: AOSP's placeholder is detected and not used", async () => {
    const { device } = await phone({ shippedProfile: 'placeholder' })
    const found = await findPowerProfile(device)
    expect(found.profile).toBeUndefined()
    expect(found.placeholder).toEqual({
      kind: 'apk',
      apk: FRAMEWORK,
      entry: 'res/xml/power_profile.xml',
    })
    expect(found.problem?.code).toBe('W_POWER_PROFILE_PLACEHOLDER')
    expect(found.problem?.message).toMatch(/placeholder.*not used/)
  })

  test('no profile anywhere: W_NO_POWER_PROFILE, naming what was tried and what to do', async () => {
    const { device } = await phone({ shippedProfile: 'none' })
    const found = await findPowerProfile(device)
    expect(found.profile).toBeUndefined()
    expect(found.problem?.code).toBe('W_NO_POWER_PROFILE')
    expect(found.problem?.message).toContain('/system/etc/power_profile.xml')
    expect(found.problem?.message).toContain('powerProfile option')
    expect(found.evidence[0]?.line).toBe(
      'Error: failed to get the resource android:xml/power_profile',
    )
  })

  test('an overlay that is not a zip: a warning, then the next place (a plain-text file an OEM ROM reads)', async () => {
    const { server, device } = await phone()
    const fs = server.devices[0]?.device.fs
    fs?.writeFile(OVERLAY, new TextEncoder().encode('not a zip at all'))
    const plain = defaultPowerProfileXml()
    fs?.mkdirp('/odm/etc')
    fs?.writeFile('/odm/etc/power_profile.xml', new TextEncoder().encode(plain))
    const found = await findPowerProfile(device)
    expect(found.warnings).toHaveLength(1)
    expect(found.warnings[0]).toMatchObject({
      code: 'W_POWER_PROFILE_UNDECODABLE',
      severity: 'warning',
    })
    expect(found.warnings[0]?.message).toContain(OVERLAY)
    expect(found.warnings[0]?.message).toContain('E_APK_UNREADABLE')
    // framework-res.apk (the next step of the resolution) holds only the placeholder: skipped too.
    expect(found.where).toBe('/odm/etc/power_profile.xml')
    expect(found.profile).toEqual(parsePowerProfile(plain))
  })

  test('an overlay whose binary XML cannot be decoded: a warning naming it, the placeholder not taken for it', async () => {
    const { server, device } = await phone()
    const good = compileXml('<device name="Android"><item name="screen.on">90</item></device>')
    const broken = Uint8Array.from(good)
    // The first chunk after the header claims size 0: the library would loop on it for ever.
    new DataView(broken.buffer).setUint32(12, 0, true)
    server.devices[0]?.device.fs.writeFile(
      OVERLAY,
      zipSync({ 'AndroidManifest.xml': new Uint8Array(8), 'res/xml/power_profile.xml': broken }),
    )
    const found = await findPowerProfile(device)
    expect(found.warnings[0]?.code).toBe('W_POWER_PROFILE_UNDECODABLE')
    expect(found.warnings[0]?.message).toContain('E_APK_XML_UNDECODABLE')
    expect(found.profile).toBeUndefined()
    expect(found.problem?.code).toBe('W_POWER_PROFILE_PLACEHOLDER')
  })

  test('the powerProfile option wins: the phone is not asked', async () => {
    const { server, device } = await phone({ shippedProfile: 'none' })
    const profile = parsePowerProfile(defaultPowerProfileXml())
    const before = server.devices[0]?.device.commandLog.length
    const found = await findPowerProfile(device, { option: { profile, path: './pp.xml' } })
    expect(found).toMatchObject({
      where: 'powerProfile option (./pp.xml)',
      source: { kind: 'option' },
    })
    expect(server.devices[0]?.device.commandLog.length).toBe(before)
  })
})

describe('the host cache, per build fingerprint', () => {
  const build = 'google/oriole/oriole:13/TQ2A.230505.002/9891397:user/release-keys'

  test('read once per build: the next worker reads the cached profile without pulling', async () => {
    const { server, device } = await phone()
    const cacheDir = await tempDir()
    const log = server.devices[0]?.device.commandLog ?? []
    const first = await findPowerProfile(device, { cacheDir, build })
    expect(first.cached).toBe(false)
    expect(await readdir(cacheDir)).toHaveLength(1)
    const pulled = log.length
    const second = await findPowerProfile(device, { cacheDir, build })
    expect(second.cached).toBe(true)
    expect(second.profile).toEqual(first.profile)
    expect(second.where).toBe(first.where)
    // Only the two commands that check nothing changed (the resolution, `ls -l` of its APKs).
    expect(log.slice(pulled).map((c) => c.replace(/; echo .*$/, ''))).toEqual([
      'cmd overlay lookup --verbose android android:xml/power_profile 2>&1',
      `ls -l ${FRAMEWORK} ${OVERLAY} 2>&1`,
    ])
  })

  test('workers starting together: one reads the phone, the others wait for its answer', async () => {
    const { device } = await phone()
    const cacheDir = await tempDir()
    const all = await Promise.all(
      [1, 2, 3].map(() => findPowerProfile(device, { cacheDir, build })),
    )
    expect(all.filter((f) => !f.cached)).toHaveLength(1)
    expect(new Set(all.map((f) => f.where))).toEqual(
      new Set([`${OVERLAY} (res/xml/power_profile.xml)`]),
    )
  })

  test('the same build with other overlays (a rooted phone given another one): read again', async () => {
    const { device } = await phone()
    const cacheDir = await tempDir()
    await findPowerProfile(device, { cacheDir, build })
    const other = await phone({ shippedProfile: 'placeholder', port: 0 })
    const again = await findPowerProfile(other.device, { cacheDir, build })
    expect(again.cached).toBe(false)
    expect(again.problem?.code).toBe('W_POWER_PROFILE_PLACEHOLDER')
  })

  test('no fingerprint, no cache', async () => {
    const { device } = await phone()
    const cacheDir = await tempDir()
    await findPowerProfile(device, { cacheDir, build: '' })
    expect(await readdir(cacheDir)).toEqual([])
  })
})

test("the virtual framework-res.apk holds AOSP's placeholder, as shipped in src/virtual-device/profiles", async () => {
  const { device } = await phone({ shippedProfile: 'placeholder' })
  const root = await readApkXml(
    await pull(device, FRAMEWORK),
    'res/xml/power_profile.xml',
    FRAMEWORK,
  )
  const decoded = parsePowerProfile(apkXmlToText(root as NonNullable<typeof root>))
  expect(tables(decoded)).toEqual(tables(parsePowerProfile(aospDefaultProfileXml())))
  expect(isAospPlaceholder(decoded)).toBe(true)
})
