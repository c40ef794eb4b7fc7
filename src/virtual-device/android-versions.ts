/**
 * The Android releases the virtual device can present (`startVirtualDevice({ androidVersion })`):
 * the build properties `getprop` prints for each, and the facts the shell commands that differ
 * between releases look up (`ro.build.version.sdk` is read back from the device's properties, so a
 * `props` override changes them too).
 *
 * The hardware stays a Pixel 6 whatever the release (a real Pixel 6 shipped with Android 12 and
 * never ran 10 or 11): only the software changes. Build ids and security patches are plausible
 * Pixel values, not copied from a factory image.
 */

/** API levels the virtual device can present. */
export const ANDROID_API_LEVELS = [29, 30, 31, 32, 33, 34, 35] as const
export type AndroidApiLevel = (typeof ANDROID_API_LEVELS)[number]

/** The API level a virtual phone presents unless told otherwise (Android 13). */
export const DEFAULT_API_LEVEL: AndroidApiLevel = 33

interface Release {
  /** `ro.build.version.release`. */
  readonly release: string
  /** `ro.build.id`. */
  readonly buildId: string
  /** `ro.build.version.incremental`, the fingerprint's build number. */
  readonly incremental: string
  readonly securityPatch: string
  /**
   * What `perfetto --version` prints: perfetto's own format (`Perfetto <version> (<revision>)`,
   * base/version.cc) with illustrative version numbers and no revision.
   */
  readonly perfetto: string
}

const RELEASES: Readonly<Record<AndroidApiLevel, Release>> = {
  29: {
    release: '10',
    buildId: 'QQ3A.200805.001',
    incremental: '6578210',
    securityPatch: '2020-08-05',
    perfetto: 'Perfetto v0.0 (unknown)',
  },
  30: {
    release: '11',
    buildId: 'RQ3A.211001.001',
    incremental: '7641976',
    securityPatch: '2021-10-05',
    perfetto: 'Perfetto v11.0 (unknown)',
  },
  31: {
    release: '12',
    buildId: 'SQ1D.220205.004',
    incremental: '8151327',
    securityPatch: '2022-02-05',
    perfetto: 'Perfetto v18.0 (unknown)',
  },
  32: {
    release: '12',
    buildId: 'SQ3A.220705.003.A1',
    incremental: '8672226',
    securityPatch: '2022-07-05',
    perfetto: 'Perfetto v22.1 (unknown)',
  },
  33: {
    release: '13',
    buildId: 'TQ2A.230505.002',
    incremental: '9891397',
    securityPatch: '2023-05-05',
    perfetto: 'Perfetto v30.0 (unknown)',
  },
  34: {
    release: '14',
    buildId: 'UQ1A.240205.004',
    incremental: '11269751',
    securityPatch: '2024-02-05',
    perfetto: 'Perfetto v38.0 (unknown)',
  },
  35: {
    release: '15',
    buildId: 'AP3A.241005.015',
    incremental: '12366759',
    securityPatch: '2024-10-05',
    perfetto: 'Perfetto v46.0 (unknown)',
  },
}

export function isAndroidApiLevel(value: unknown): value is AndroidApiLevel {
  return (ANDROID_API_LEVELS as readonly unknown[]).includes(value)
}

/**
 * The build properties of a Pixel 6 on `api`: version, build id, fingerprint, security patch.
 * `persist.traced.enable` is 1, as on every Pixel since Android 9 (other phones on Android 10 ship
 * with perfetto's daemons off).
 */
export function androidVersionProps(api: AndroidApiLevel): Record<string, string> {
  const r = RELEASES[api]
  return {
    'ro.build.version.sdk': String(api),
    'ro.build.version.release': r.release,
    'ro.build.version.incremental': r.incremental,
    'ro.build.version.security_patch': r.securityPatch,
    'ro.build.id': r.buildId,
    'ro.build.fingerprint': `google/oriole/oriole:${r.release}/${r.buildId}/${r.incremental}:user/release-keys`,
    'persist.traced.enable': '1',
  }
}

/** The API level a device's properties say, the default when they do not. */
export function apiLevelOf(props: ReadonlyMap<string, string>): number {
  const sdk = Number(props.get('ro.build.version.sdk'))
  return Number.isInteger(sdk) && sdk > 0 ? sdk : DEFAULT_API_LEVEL
}

/** `perfetto --version` on a device of API level `api` (the nearest known release at or below). */
export function perfettoVersionLine(api: number): string {
  const known = [...ANDROID_API_LEVELS].reverse().find((level) => level <= api) ?? 29
  return RELEASES[known].perfetto
}
