/**
 * The phone's framework resources and its OverlayManagerService: /system/framework/framework-res.apk
 * holding AOSP's placeholder power_profile.xml (as every framework-res.apk is built with), and a
 * static runtime resource overlay holding the phone's real one — the profile the simulation runs
 * on, as a device tree's `overlay/frameworks/base/core/res/res/xml/power_profile.xml` becomes an
 * auto-generated RRO (build/make/core/generate_enforce_rro.mk: `framework-res__<product>__
 * auto_generated_rro_<partition>.apk`, package `android.auto_generated_rro_<partition>__`,
 * priority 1 on product, 0 on vendor, `isStatic`, linked with `--keep-raw-values`). Both are real
 * APKs, compiled at startup (axml.ts) and zipped with fflate.
 *
 * `cmd overlay list|lookup|dump` and `dumpsys overlay` answer as Android 13's
 * OverlayManagerService does; `lookup` exists from Android 12 (API 31) here, older releases
 * answer `Unknown command`. The overlay folders of /vendor, /odm, /oem and /system_ext are
 * closed to the shell user, as SELinux closes them on a user build.
 */
import { readFileSync } from 'node:fs'
import { zipSync, type Zippable } from 'fflate'
import {
  formatOverlayDump,
  formatOverlayList,
  formatOverlayListLine,
  formatOverlayLookup,
  type OverlaySettingsItem,
  type ResolutionStep,
} from '../../formats/dumpsys/index.js'
import type { ShellInvocation, VirtualDeviceHandle } from '../contract.js'
import { err, out } from '../commands/_util.js'
import { ANDROID_ATTR_IDS, compileXml } from './axml.js'

/**
 * Where the phone's power profile is: `overlay` — an RRO in /product/overlay that adb can read
 * (framework-res.apk keeps AOSP's placeholder); `vendor-overlay` — the RRO in /vendor/overlay,
 * which adb cannot read on a user build; `placeholder` — no overlay, only AOSP's placeholder in
 * framework-res.apk; `none` — no power_profile.xml anywhere.
 */
export type ShippedProfile = 'overlay' | 'vendor-overlay' | 'placeholder' | 'none'

export const SHIPPED_PROFILES: readonly ShippedProfile[] = [
  'overlay',
  'vendor-overlay',
  'placeholder',
  'none',
]

export interface FrameworkResourcesOptions {
  /** The phone's power_profile.xml text (what its overlay holds). */
  readonly profileXml: string
  /** @default 'overlay' */
  readonly shipped?: ShippedProfile
  /** `ro.product.name`, in the overlay's file name. @default 'oriole' */
  readonly product?: string
}

export const FRAMEWORK_RES_APK = '/system/framework/framework-res.apk'
const PROFILE_ENTRY = 'res/xml/power_profile.xml'
const ANDROID_NS = 'http://schemas.android.com/apk/res/android'
/** The id aapt2 gave xml/power_profile in this (virtual) build of framework-res. */
const POWER_PROFILE_RES_ID = '0x01170012'
/** A Pixel 6's configuration as `ResTable_config::toString` prints it (portrait, English). */
const CONFIG =
  'en-rUS-ldltr-sw411dp-w411dp-h842dp-normal-long-notround-lowdr-widecg-port-notnight-420dpi-finger-keysexposed-nokeys-navhidden-nonav'
/** System images date every file 2009-01-01 00:00 UTC (build/make: the fixed image timestamp). */
const IMAGE_MTIME_S = 1_230_768_000
/** Overlay folders SELinux keeps the shell out of (vendor_overlay_file; sepolicy coredomain.te). */
const SHELL_DENIED_OVERLAY_DIRS = [
  '/vendor/overlay',
  '/odm/overlay',
  '/oem/overlay',
  '/system_ext/overlay',
]

/** AOSP's placeholder power_profile.xml (src/virtual-device/profiles/README.md). */
export function aospDefaultProfileXml(): string {
  return readFileSync(
    new URL('../profiles/aosp_default_power_profile.xml', import.meta.url),
    'utf8',
  )
}

interface ShippedOverlay extends OverlaySettingsItem {
  /** Whether the APK holds res/xml/power_profile.xml. */
  readonly holdsProfile: boolean
}

/** A zip as aapt2 writes an APK: deflated entries dated 1980-01-01 00:00. */
function apk(entries: Readonly<Record<string, Uint8Array>>): Uint8Array {
  const mtime = new Date(1980, 0, 1)
  const files: Zippable = {}
  for (const [name, data] of Object.entries(entries)) files[name] = [data, { level: 9, mtime }]
  return zipSync(files)
}

function manifestXml(pkg: string, overlay?: { priority: number; isStatic: boolean }): string {
  const o =
    overlay === undefined
      ? ''
      : `\n    <overlay android:targetPackage="android" android:priority="${overlay.priority}"${overlay.isStatic ? ' android:isStatic="true"' : ''}/>`
  const extra = pkg === 'android' ? ' coreApp="true" android:sharedUserId="android.uid.system"' : ''
  return `<?xml version="1.0" encoding="utf-8"?>\n<manifest xmlns:android="${ANDROID_NS}" package="${pkg}"${extra}>${o}\n</manifest>\n`
}

/** The phone's framework resources and overlays, and the commands that show them. */
export class OverlayManager {
  private readonly overlays: ShippedOverlay[] = []
  private readonly frameworkHoldsProfile: boolean

  constructor(
    private readonly device: VirtualDeviceHandle,
    options: FrameworkResourcesOptions,
  ) {
    const shipped = options.shipped ?? 'overlay'
    const fs = device.fs
    const write = (path: string, bytes: Uint8Array): void => {
      fs.mkdirp(path.slice(0, path.lastIndexOf('/')))
      fs.writeFile(path, bytes, 0o644)
      fs.setMtime(path, IMAGE_MTIME_S)
      fs.setMtime(path.slice(0, path.lastIndexOf('/')), IMAGE_MTIME_S)
    }
    this.frameworkHoldsProfile = shipped !== 'none'
    write(
      FRAMEWORK_RES_APK,
      apk({
        'AndroidManifest.xml': compileXml(manifestXml('android'), {
          utf16: true,
          attributeIds: ANDROID_ATTR_IDS,
        }),
        ...(this.frameworkHoldsProfile
          ? { [PROFILE_ENTRY]: compileXml(aospDefaultProfileXml()) }
          : {}),
      }),
    )
    if (shipped === 'overlay' || shipped === 'vendor-overlay') {
      const partition = shipped === 'overlay' ? 'product' : 'vendor'
      const priority = partition === 'product' ? 1 : 0
      const pkg = `android.auto_generated_rro_${partition}__`
      const path = `/${partition}/overlay/framework-res__${options.product ?? 'oriole'}__auto_generated_rro_${partition}.apk`
      const raw = { keepRawValues: true }
      write(
        path,
        apk({
          'AndroidManifest.xml': compileXml(manifestXml(pkg, { priority, isStatic: true }), {
            ...raw,
            utf16: true,
            attributeIds: ANDROID_ATTR_IDS,
          }),
          [PROFILE_ENTRY]: compileXml(options.profileXml, raw),
        }),
      )
      // The only static overlay: OverlayConfig's index 0 is its priority in the settings.
      this.overlays.push(item(pkg, path, { mutable: false, enabled: true, priority: 0 }, true))
    }
    // A mutable overlay off by default (Settings › Developer options › Display cutout).
    const cutout = 'com.android.internal.display.cutout.emulation.corner'
    const cutoutPath =
      '/product/overlay/DisplayCutoutEmulationCorner/DisplayCutoutEmulationCornerOverlay.apk'
    write(
      cutoutPath,
      apk({
        'AndroidManifest.xml': compileXml(manifestXml(cutout, { priority: 1, isStatic: false }), {
          utf16: true,
          attributeIds: ANDROID_ATTR_IDS,
        }),
      }),
    )
    this.overlays.push(
      item(cutout, cutoutPath, { mutable: true, enabled: false, priority: 2_147_483_647 }, false, {
        category: 'com.android.internal.display_cutout_emulation',
      }),
    )
    for (const dir of SHELL_DENIED_OVERLAY_DIRS) {
      fs.mkdirp(dir)
      fs.denyShell(dir)
    }
  }

  /** The overlay packages, for the package manager (`pm path`, `pm list packages`). */
  packages(): Array<readonly [string, string]> {
    return this.overlays.map((o) => [o.packageName, o.baseCodePath] as const)
  }

  /** `cmd overlay …` (and `dumpsys overlay`, which is `dump`). */
  command(inv: ShellInvocation, args: readonly string[]): number {
    const [sub, ...rest] = args
    const sdk = Number(this.device.props.get('ro.build.version.sdk') ?? 33)
    const operands = withoutOptions(rest)
    switch (sub) {
      case 'list':
        return this.list(inv, operands[0])
      case 'dump':
        return this.dump(inv, operands)
      case 'lookup':
        if (sdk < 31) break
        return this.lookup(inv, operands, rest.includes('--verbose'))
      case 'help':
      case undefined:
        out(inv, 'Overlay manager (overlay) commands:\n  help\n    Print this help text.\n')
        return 0
    }
    out(inv, `Unknown command: ${sub ?? ''}\n`)
    return 255
  }

  private list(inv: ShellInvocation, pkg: string | undefined): number {
    const state = (o: ShippedOverlay) =>
      o.state === 'STATE_ENABLED' || o.state === 'STATE_ENABLED_IMMUTABLE'
        ? ('enabled' as const)
        : o.state === 'STATE_DISABLED'
          ? ('disabled' as const)
          : ('other' as const)
    const entries = this.overlays.map((o) => ({ state: state(o), overlay: o.packageName }))
    if (pkg === undefined) {
      out(inv, formatOverlayList([{ target: 'android', overlays: entries }], false))
    } else if (pkg === 'android') {
      out(inv, formatOverlayList([{ target: 'android', overlays: entries }], true))
    } else {
      const one = entries.find((e) => e.overlay === pkg)
      if (one !== undefined) out(inv, formatOverlayListLine(one))
    }
    return 0
  }

  private dump(inv: ShellInvocation, operands: readonly string[]): number {
    const [a, b] = operands
    const field = b === undefined ? undefined : a
    const pkg = b ?? a
    const items = this.overlays.filter(
      (o) => pkg === undefined || o.packageName === pkg.split(':')[0],
    )
    if (field !== undefined) {
      const key = FIELDS[field.toLowerCase()]
      for (const o of items) if (key !== undefined) out(inv, `${String(o[key])}\n`)
      return 0
    }
    out(inv, formatOverlayDump(items))
    if (pkg === undefined) out(inv, 'Default overlays: \n')
    return 0
  }

  private lookup(inv: ShellInvocation, operands: readonly string[], verbose: boolean): number {
    const [pkg, resource] = operands
    if (pkg === undefined || resource === undefined) {
      err(inv, 'Error: Argument expected after "lookup"\n')
      return 255
    }
    if (!/^(.*?):(.*?)\/(.*?)$/.test(resource)) {
      err(inv, "Error: bad resource name, doesn't match package:type/name\n")
      return 1
    }
    const steps: ResolutionStep[] = []
    if (resource === 'android:xml/power_profile') {
      if (this.frameworkHoldsProfile) steps.push({ kind: 'initial', apk: FRAMEWORK_RES_APK })
      for (const o of this.overlays) {
        if (o.isEnabled && o.holdsProfile) {
          steps.push({ kind: steps.length === 0 ? 'initial' : 'overlaid', apk: o.baseCodePath })
        }
      }
    }
    if (steps.length === 0) {
      err(inv, `Error: failed to get the resource ${resource}\n`)
      return 1
    }
    const text = formatOverlayLookup(
      {
        resourceId: POWER_PROFILE_RES_ID,
        resource,
        steps,
        value: PROFILE_ENTRY,
      },
      CONFIG,
    )
    out(inv, verbose ? text : `${PROFILE_ENTRY}\n`)
    return 0
  }
}

const FIELDS: Readonly<Record<string, keyof OverlaySettingsItem>> = {
  packagename: 'packageName',
  overlayname: 'overlayName',
  userid: 'userId',
  targetpackagename: 'targetPackageName',
  targetoverlayablename: 'targetOverlayableName',
  basecodepath: 'baseCodePath',
  state: 'state',
  isenabled: 'isEnabled',
  ismutable: 'isMutable',
  priority: 'priority',
  category: 'category',
}

/** Operands after the options (`--user N`, `--verbose`). */
function withoutOptions(args: readonly string[]): string[] {
  const operands: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string
    if (a === '--user') i++
    else if (!a.startsWith('--')) operands.push(a)
  }
  return operands
}

function item(
  pkg: string,
  path: string,
  how: { mutable: boolean; enabled: boolean; priority: number },
  holdsProfile: boolean,
  extra: { category?: string } = {},
): ShippedOverlay {
  return {
    packageName: pkg,
    overlayName: null,
    userId: 0,
    targetPackageName: 'android',
    targetOverlayableName: null,
    baseCodePath: path,
    state: how.enabled
      ? how.mutable
        ? 'STATE_ENABLED'
        : 'STATE_ENABLED_IMMUTABLE'
      : 'STATE_DISABLED',
    isEnabled: how.enabled,
    isMutable: how.mutable,
    priority: how.priority,
    category: extra.category ?? null,
    isFabricated: false,
    holdsProfile,
  }
}
