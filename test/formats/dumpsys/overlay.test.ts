/**
 * `cmd overlay list|dump|lookup` (src/formats/dumpsys/overlay.ts): parsers and writers, written
 * after OverlayManagerShellCommand, OverlayManagerSettings.dumpSettingsItem and
 * AssetManager2::GetLastResourceResolution.
 */
import { describe, expect, test } from 'vitest'
import {
  formatOverlayDump,
  formatOverlayList,
  formatOverlayLookup,
  parseOverlayDump,
  parseOverlayList,
  parseOverlayLookup,
  winningStep,
  type OverlaySettingsItem,
} from '../../../src/formats/dumpsys/index.js'

describe('cmd overlay list', () => {
  const text = `android
[x] android.auto_generated_rro_vendor__
[x] com.google.android.overlay.googleconfig
[ ] com.android.theme.icon.circle
--- com.example.broken

com.android.systemui
[x] com.android.systemui.overlay

`

  test("one target's overlays, in the order printed (ascending priority)", () => {
    expect(parseOverlayList(text, 'android')).toEqual([
      { state: 'enabled', overlay: 'android.auto_generated_rro_vendor__' },
      { state: 'enabled', overlay: 'com.google.android.overlay.googleconfig' },
      { state: 'disabled', overlay: 'com.android.theme.icon.circle' },
      { state: 'other', overlay: 'com.example.broken' },
    ])
    expect(parseOverlayList(text, 'com.android.systemui')).toHaveLength(1)
    expect(parseOverlayList(text, 'nothing')).toEqual([])
  })

  test('written back byte for byte', () => {
    const targets = ['android', 'com.android.systemui'].map((target) => ({
      target,
      overlays: parseOverlayList(text, target),
    }))
    expect(formatOverlayList(targets, false)).toBe(text)
  })
})

describe('cmd overlay dump', () => {
  const item: OverlaySettingsItem = {
    packageName: 'android.auto_generated_rro_vendor__',
    overlayName: null,
    userId: 0,
    targetPackageName: 'android',
    targetOverlayableName: null,
    baseCodePath: '/vendor/overlay/framework-res__auto_generated_rro_vendor.apk',
    state: 'STATE_ENABLED_IMMUTABLE',
    isEnabled: true,
    isMutable: false,
    priority: 0,
    category: null,
    isFabricated: false,
  }

  test("the settings item's fields, as dumpSettingsItem pads them", () => {
    const text = formatOverlayDump([item])
    expect(text.split('\n').slice(0, 3)).toEqual([
      'android.auto_generated_rro_vendor__:0 {',
      '  mPackageName...........: android.auto_generated_rro_vendor__',
      '  mOverlayName...........: null',
    ])
    expect(text).toContain('  mTargetOverlayableName.: null\n')
    expect(
      parseOverlayDump(`Settings\n${text}IDMAP OF x\n<missing idmap>\nDefault overlays: \n`),
    ).toEqual([item])
  })

  test('items without a path or a target are skipped; nothing recognised is an empty list', () => {
    expect(parseOverlayDump('x:0 {\n  mPackageName...: x\n}\n')).toEqual([])
    expect(parseOverlayDump("Can't find service: overlay\n")).toEqual([])
  })
})

describe('cmd overlay lookup --verbose', () => {
  test('the steps and the value; the winner is the last step that found or overlaid it', () => {
    const text = `Resolution for 0x01170012 android:xml/power_profile
\tFor config - en-rUS-ldltr-sw411dp-w411dp-h842dp-normal-long-notround-lowdr-widecg-port-notnight-420dpi-finger-keysexposed-nokeys-navhidden-nonav-v33
\tFound initial: /system/framework/framework-res.apk
\tOverlaid: /vendor/overlay/framework-res__auto_generated_rro_vendor.apk
\tOverlaid inline: /product/overlay/X.apk - land
res/xml/power_profile.xml
`
    const lookup = parseOverlayLookup(text)
    expect(lookup).toEqual({
      resourceId: '0x01170012',
      resource: 'android:xml/power_profile',
      steps: [
        { kind: 'initial', apk: '/system/framework/framework-res.apk' },
        { kind: 'overlaid', apk: '/vendor/overlay/framework-res__auto_generated_rro_vendor.apk' },
        { kind: 'overlaid-inline', apk: '/product/overlay/X.apk', config: 'land' },
      ],
      value: 'res/xml/power_profile.xml',
    })
    expect(winningStep(lookup!)?.apk).toBe('/product/overlay/X.apk')
    expect(
      formatOverlayLookup(
        lookup!,
        'en-rUS-ldltr-sw411dp-w411dp-h842dp-normal-long-notround-lowdr-widecg-port-notnight-420dpi-finger-keysexposed-nokeys-navhidden-nonav-v33',
      ),
    ).toBe(text)
  })

  test('no resolution (an older release, an error, no --verbose): undefined', () => {
    for (const text of [
      'Unknown command: lookup\n',
      'Error: failed to get the resource a:b/c\n',
      'res/xml/power_profile.xml\n',
      '',
    ]) {
      expect(parseOverlayLookup(text)).toBeUndefined()
    }
  })
})
