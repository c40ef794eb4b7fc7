/**
 * The phone's overlay manager (src/virtual-device/android/overlays.ts): `cmd overlay list`,
 * `lookup`, `dump` and `dumpsys overlay` as Android 13's OverlayManagerService prints them (read
 * back with src/formats/dumpsys), `lookup` missing before Android 12, the overlay packages in the
 * package manager, and the overlay folders SELinux closes to the shell.
 */
import { describe, expect, test } from 'vitest'
import {
  parseOverlayDump,
  parseOverlayList,
  parseOverlayLookup,
  winningStep,
} from '../../../src/formats/dumpsys/index.js'
import { harness } from './_harness.js'

const RRO = 'android.auto_generated_rro_product__'
const RRO_APK = '/product/overlay/framework-res__oriole__auto_generated_rro_product.apk'
const CUTOUT = 'com.android.internal.display.cutout.emulation.corner'

describe('cmd overlay', () => {
  test('list: the targets, then one [x] / [ ] line per overlay in ascending priority', async () => {
    const h = harness()
    const all = await h.sh('cmd overlay list')
    expect(all).toEqual({ out: `android\n[x] ${RRO}\n[ ] ${CUTOUT}\n\n`, err: '', status: 0 })
    expect((await h.sh('cmd overlay list android')).out).toBe(
      `android\n[x] ${RRO}\n[ ] ${CUTOUT}\n`,
    )
    expect((await h.sh(`cmd overlay list ${RRO}`)).out).toBe(`[x] ${RRO}\n`)
    expect((await h.sh('cmd overlay list com.example.nothing')).out).toBe('')
    expect(parseOverlayList(all.out, 'android').map((e) => e.state)).toEqual([
      'enabled',
      'disabled',
    ])
  })

  test('lookup --verbose: the resolution (framework-res, then the overlay) and the file path', async () => {
    const h = harness()
    const r = await h.sh('cmd overlay lookup --verbose android android:xml/power_profile')
    expect(r.status).toBe(0)
    expect(r.out).toMatch(
      /^Resolution for 0x0117[0-9a-f]{4} android:xml\/power_profile\n\tFor config - en-rUS-\S+\n\tFound initial: \/system\/framework\/framework-res\.apk\n\tOverlaid: \/product\/overlay\/framework-res__oriole__auto_generated_rro_product\.apk\nres\/xml\/power_profile\.xml\n$/,
    )
    const lookup = parseOverlayLookup(r.out)
    expect(winningStep(lookup!)).toEqual({ kind: 'overlaid', apk: RRO_APK })
    expect((await h.sh('cmd overlay lookup android android:xml/power_profile')).out).toBe(
      'res/xml/power_profile.xml\n',
    )
    expect(await h.sh('cmd overlay lookup android android:xml/nothing_here')).toEqual({
      out: '',
      err: 'Error: failed to get the resource android:xml/nothing_here\n',
      status: 1,
    })
  })

  test('before Android 12 there is no lookup', async () => {
    const h = harness()
    h.device.props.set('ro.build.version.sdk', '30')
    expect(await h.sh('cmd overlay lookup --verbose android android:xml/power_profile')).toEqual({
      out: 'Unknown command: lookup\n',
      err: '',
      status: 255,
    })
  })

  test('dump and dumpsys overlay: the settings items; a field of one package', async () => {
    const h = harness()
    const dump = await h.sh('cmd overlay dump')
    expect((await h.sh('dumpsys overlay')).out).toBe(dump.out)
    expect(dump.out).toContain(`${RRO}:0 {\n  mPackageName...........: ${RRO}\n`)
    expect(dump.out).toContain(`  mBaseCodePath..........: ${RRO_APK}\n`)
    const items = parseOverlayDump(dump.out)
    expect(items.map((i) => [i.packageName, i.state, i.isMutable, i.priority])).toEqual([
      [RRO, 'STATE_ENABLED_IMMUTABLE', false, 0],
      [CUTOUT, 'STATE_DISABLED', true, 2147483647],
    ])
    expect((await h.sh(`cmd overlay dump basecodepath ${RRO}`)).out).toBe(`${RRO_APK}\n`)
  })
})

describe('the APKs on the phone', () => {
  test('framework-res.apk and the overlays are files the package manager knows', async () => {
    const h = harness()
    expect((await h.sh('pm path android')).out).toBe(
      'package:/system/framework/framework-res.apk\n',
    )
    expect((await h.sh(`pm path ${RRO}`)).out).toBe(`package:${RRO_APK}\n`)
    const listed = await h.sh('ls -l /product/overlay /system/framework')
    expect(listed.out).toMatch(
      /-rw-r--r-- 1 root root +\d+ 2009-01-01 00:00 framework-res__oriole__auto_generated_rro_product\.apk/,
    )
    expect(listed.out).toMatch(/-rw-r--r-- 1 root root +\d+ 2009-01-01 00:00 framework-res\.apk/)
  })

  test('the overlay folders of /vendor, /odm, /oem and /system_ext are closed to the shell', async () => {
    const h = harness()
    for (const dir of ['/vendor/overlay', '/odm/overlay', '/oem/overlay', '/system_ext/overlay']) {
      expect(await h.sh(`ls ${dir}`)).toEqual({
        out: '',
        err: `ls: ${dir}: Permission denied\n`,
        status: 1,
      })
      expect((await h.sh(`cat ${dir}/x.apk`)).err).toBe(`cat: ${dir}/x.apk: Permission denied\n`)
      expect((await h.sh(`head ${dir}/x.apk`)).err).toBe(`head: ${dir}/x.apk: Permission denied\n`)
    }
    expect((await h.sh('ls /vendor')).out).toContain('overlay\n')
  })
})
