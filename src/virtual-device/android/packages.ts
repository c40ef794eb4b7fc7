/**
 * The phone's package manager: the system packages, the simulated app (from its model) and the
 * APKs installed over adb (`adb install` pushes the file and runs `pm install`). An installed APK's
 * manifest is read from its bytes, as the real package manager does (package, versions,
 * activities, instrumentation, requested permissions); what its code does on the phone is
 * emulated only for the helper apps Appium's UiAutomator2 driver installs (helper-apps.ts).
 */
import { createRequire } from 'node:module'
import { appUidOf, qualifyActivity } from '../sim/app-model.js'
import type { SimPhone } from '../sim/phone.js'

export interface InstalledPackage {
  readonly name: string
  /** `/data/app/~~…==/<pkg>-…==/base.apk` or a system path. */
  readonly apkPath: string
  readonly versionCode: number
  readonly versionName: string
  readonly minSdk: number
  readonly targetSdk: number
  readonly debuggable: boolean
  readonly system: boolean
  /** Fully qualified activity names. */
  readonly activities: readonly string[]
  /** The MAIN/LAUNCHER activity, fully qualified. */
  readonly launcherActivity: string | undefined
  readonly instrumentation: { readonly name: string; readonly targetPackage: string } | undefined
  readonly requestedPermissions: readonly string[]
  readonly grantedPermissions: Set<string>
  readonly uid: number
  /** Wall-clock ms of the first install and of the last update. */
  readonly firstInstallMs: number
  lastUpdateMs: number
}

/** A `pm install` failure in the package manager's words (`Failure [CODE: message]`). */
export class InstallFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

interface ApkManifest {
  package?: string
  versionCode?: number
  versionName?: string | number
  usesSdk?: { minSdkVersion?: number; targetSdkVersion?: number } | null
  usesPermissions?: { name?: string }[]
  instrumentation?: { name?: string; targetPackage?: string } | null
  application?: {
    debuggable?: boolean
    activities?: {
      name?: string
      intentFilters?: { actions?: { name?: string }[]; categories?: { name?: string }[] }[]
    }[]
  } | null
}

interface ApkReaderModule {
  open(apk: Buffer): Promise<{ readManifest(): Promise<ApkManifest> }>
}

/** Reads an APK's binary AndroidManifest.xml. Throws InstallFailure for a file that is not an APK. */
export async function readApkManifest(bytes: Uint8Array, path: string): Promise<ApkManifest> {
  const reader = createRequire(import.meta.url)('@devicefarmer/adbkit-apkreader') as ApkReaderModule
  try {
    return await (await reader.open(Buffer.from(bytes))).readManifest()
  } catch (cause) {
    throw new InstallFailure(
      'INSTALL_PARSE_FAILED_NOT_APK',
      `Failed to parse ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
    )
  }
}

const SYSTEM_PACKAGES: readonly (readonly [string, string])[] = [
  ['android', '/system/framework/framework-res.apk'],
  ['com.android.settings', '/system_ext/priv-app/SettingsGoogle/SettingsGoogle.apk'],
  ['com.android.shell', '/system/priv-app/Shell/Shell.apk'],
  ['com.android.systemui', '/system_ext/priv-app/SystemUIGoogle/SystemUIGoogle.apk'],
  [
    'com.google.android.apps.nexuslauncher',
    '/system_ext/priv-app/NexusLauncherRelease/NexusLauncherRelease.apk',
  ],
  ['com.google.android.gms', '/product/priv-app/PrebuiltGmsCore/PrebuiltGmsCore.apk'],
]

/** A stable base64url-ish token from a string and the seed (install dirs look random but are fixed). */
function token(text: string, seed: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  let h = (2166136261 ^ seed) >>> 0
  let s = ''
  for (let i = 0; i < 22; i++) {
    for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0
    h = Math.imul(h ^ i, 2654435761) >>> 0
    s += alphabet[h % 64] ?? 'A'
  }
  return `${s}==`
}

/** Where an app installed on this phone keeps its APK (Android 11+ randomized directories). */
export function installedApkPath(pkg: string, seed: number): string {
  return `/data/app/~~${token(`${pkg}/a`, seed)}/${pkg}-${token(`${pkg}/b`, seed)}/base.apk`
}

/** `1.4.2` → 10402: the simulated app declares only a version name. */
function versionCodeOf(versionName: string | undefined): number {
  const [major = 1, minor = 0, patch = 0] = (versionName ?? '1.0')
    .split('.')
    .map((p) => Number(p) || 0)
  return major * 10000 + minor * 100 + patch
}

export class PackageRegistry {
  private readonly installed = new Map<string, InstalledPackage>()
  private readonly sessions = new Map<
    number,
    {
      readonly options: { grantAll: boolean; allowDowngrade: boolean }
      readonly apks: Map<string, Uint8Array>
    }
  >()
  private nextUid = 10200
  private nextSession = 1_318_406_001

  constructor(
    private readonly phone: SimPhone,
    private readonly sdk: () => number,
    /** More system packages (`[name, apk path]`): the runtime resource overlays the phone ships. */
    systemPackages: ReadonlyArray<readonly [string, string]> = [],
  ) {
    const bootMs = Date.now() - 86_400_000
    for (const [name, apkPath] of [...SYSTEM_PACKAGES, ...systemPackages]) {
      this.installed.set(name, {
        name,
        apkPath,
        versionCode: sdk(),
        versionName: String(sdk()),
        minSdk: sdk(),
        targetSdk: sdk(),
        debuggable: false,
        system: true,
        activities: [],
        launcherActivity: undefined,
        instrumentation: undefined,
        requestedPermissions: [],
        grantedPermissions: new Set(),
        uid: name === 'com.android.shell' ? 2000 : 1000,
        firstInstallMs: bootMs,
        lastUpdateMs: bootMs,
      })
    }
    const app = phone.app
    const activities = [
      ...new Set(
        [app.launcherActivity, ...app.screens.map((s) => s.activity)].map((a) =>
          qualifyActivity(app.package, a),
        ),
      ),
    ]
    this.installed.set(app.package, {
      name: app.package,
      apkPath: installedApkPath(app.package, phone.seed),
      versionCode: versionCodeOf(app.versionName),
      versionName: app.versionName ?? '1.0',
      minSdk: 26,
      targetSdk: sdk(),
      debuggable: app.debuggable,
      system: false,
      activities,
      launcherActivity: qualifyActivity(app.package, app.launcherActivity),
      instrumentation: undefined,
      requestedPermissions: [],
      grantedPermissions: new Set(),
      uid: appUidOf(app),
      firstInstallMs: bootMs,
      lastUpdateMs: bootMs,
    })
  }

  /** Installed packages sorted by name. */
  list(): InstalledPackage[] {
    return [...this.installed.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )
  }

  get(name: string): InstalledPackage | undefined {
    return this.installed.get(name)
  }

  /** The simulated app from the model (the one with a simulated UI and physics). */
  isSimApp(name: string): boolean {
    return name === this.phone.app.package
  }

  /**
   * `pm install [-r] [-g] [-d] [-t] <apk bytes>`: the package's manifest decides its name and
   * version; a second install of the same package needs `-r` on old Android only (modern `pm`
   * replaces), a lower version needs `-d`.
   */
  async install(
    bytes: Uint8Array,
    path: string,
    options: { grantAll: boolean; allowDowngrade: boolean },
  ): Promise<InstalledPackage> {
    const manifest = await readApkManifest(bytes, path)
    const name = manifest.package
    if (typeof name !== 'string' || name === '') {
      throw new InstallFailure('INSTALL_PARSE_FAILED_BAD_MANIFEST', `${path}: no package name`)
    }
    const minSdk = manifest.usesSdk?.minSdkVersion ?? 1
    if (minSdk > this.sdk()) {
      throw new InstallFailure(
        'INSTALL_FAILED_OLDER_SDK',
        `Requires newer sdk version #${minSdk} (current version is #${this.sdk()})`,
      )
    }
    const debuggable = manifest.application?.debuggable === true
    const versionCode = manifest.versionCode ?? 0
    const previous = this.installed.get(name)
    if (previous?.system === true) {
      throw new InstallFailure(
        'INSTALL_FAILED_UPDATE_INCOMPATIBLE',
        `Package ${name} signatures do not match previously installed version; ignoring!`,
      )
    }
    if (previous !== undefined && versionCode < previous.versionCode && !options.allowDowngrade) {
      throw new InstallFailure(
        'INSTALL_FAILED_VERSION_DOWNGRADE',
        `Downgrade detected: Update version code ${versionCode} is older than current ${previous.versionCode}`,
      )
    }
    const activities = (manifest.application?.activities ?? [])
      .map((a) => a.name)
      .filter((a): a is string => typeof a === 'string')
      .map((a) => qualifyActivity(name, a))
    const launcher = (manifest.application?.activities ?? []).find((a) =>
      (a.intentFilters ?? []).some(
        (f) =>
          (f.actions ?? []).some((x) => x.name === 'android.intent.action.MAIN') &&
          (f.categories ?? []).some((x) => x.name === 'android.intent.category.LAUNCHER'),
      ),
    )?.name
    const requested = (manifest.usesPermissions ?? [])
      .map((p) => p.name)
      .filter((p): p is string => typeof p === 'string')
    const instrumentation = manifest.instrumentation
    const now = Date.now()
    const pkg: InstalledPackage = {
      name,
      apkPath: previous?.apkPath ?? installedApkPath(name, this.phone.seed),
      versionCode,
      versionName: manifest.versionName === undefined ? '' : String(manifest.versionName),
      minSdk,
      targetSdk: manifest.usesSdk?.targetSdkVersion ?? minSdk,
      debuggable,
      system: false,
      activities,
      launcherActivity: launcher === undefined ? undefined : qualifyActivity(name, launcher),
      instrumentation:
        instrumentation?.name === undefined
          ? undefined
          : {
              name: qualifyActivity(name, instrumentation.name),
              targetPackage: instrumentation.targetPackage ?? name,
            },
      requestedPermissions: requested,
      grantedPermissions: new Set(options.grantAll ? requested : []),
      uid: previous?.uid ?? this.nextUid++,
      firstInstallMs: previous?.firstInstallMs ?? now,
      lastUpdateMs: now,
    }
    this.installed.set(name, pkg)
    return pkg
  }

  /** `pm install-create`: a session that collects an app's APKs (base and splits). */
  createSession(options: { grantAll: boolean; allowDowngrade: boolean }): number {
    const id = this.nextSession++
    this.sessions.set(id, { options, apks: new Map() })
    return id
  }

  /** `pm install-write <session> <name>`: false for an unknown session. */
  writeSession(id: number, name: string, bytes: Uint8Array): boolean {
    const session = this.sessions.get(id)
    if (session === undefined) return false
    session.apks.set(name, bytes)
    return true
  }

  /**
   * `pm install-commit`: installs the session's base APK (the one whose manifest has no split
   * name; splits carry code and resources the simulation does not use). Throws InstallFailure.
   */
  async commitSession(id: number): Promise<InstalledPackage> {
    const session = this.sessions.get(id)
    this.sessions.delete(id)
    if (session === undefined) {
      throw new InstallFailure('INSTALL_FAILED_INTERNAL_ERROR', `Unknown session ${id}`)
    }
    const [first] = session.apks
    if (first === undefined) {
      throw new InstallFailure('INSTALL_FAILED_INVALID_APK', 'No APKs in session')
    }
    const base = [...session.apks].find(([name]) => /(^|\/)base(\.apk)?$/.test(name)) ?? first
    return this.install(base[1], base[0], session.options)
  }

  /** `pm install-abandon`: false for an unknown session. */
  abandonSession(id: number): boolean {
    return this.sessions.delete(id)
  }

  /** `pm uninstall`: false for an unknown or system package (`Failure [DELETE_FAILED_INTERNAL_ERROR]`). */
  uninstall(name: string): boolean {
    const pkg = this.installed.get(name)
    if (pkg === undefined || pkg.system || this.isSimApp(name)) return false
    this.installed.delete(name)
    return true
  }
}
