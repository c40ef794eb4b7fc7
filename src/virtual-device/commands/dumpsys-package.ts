/**
 * `dumpsys package <pkg>`: the `Packages:` section for one installed package, in the layout of
 * AOSP's Settings.dumpPackageLPr (what the capability probe reads: `flags=[ … ]` with DEBUGGABLE,
 * `privateFlags=[ … ]`). Unknown packages print the
 * header sections only, as a real phone does.
 */
import type { ShellInvocation } from '../contract.js'
import type { SimPhone } from '../sim/phone.js'
import { out } from './_util.js'

export function dumpsysPackage(
  phone: SimPhone,
  inv: ShellInvocation,
  args: readonly string[],
): number {
  const name = args.find((a) => !a.startsWith('-'))
  const sdk = inv.device.props.get('ro.build.version.sdk') ?? '34'
  const fingerprint = inv.device.props.get('ro.build.fingerprint') ?? ''
  const lines = [
    'Database versions:',
    '  Internal:',
    `    sdkVersion=${sdk} databaseVersion=3`,
    `    fingerprint=${fingerprint}`,
    '',
  ]
  const app = phone.app
  if (name === app.package) {
    const flags = [
      'HAS_CODE',
      'ALLOW_CLEAR_USER_DATA',
      'ALLOW_BACKUP',
      ...(app.debuggable ? ['DEBUGGABLE'] : []),
    ]
    // AOSP's privateFlags dump spec has no name for PRIVATE_FLAG_PROFILEABLE_BY_SHELL, so a
    // profileable release build looks like any other here (tools learn it from `am profile`).
    const privateFlags = [
      'PRIVATE_FLAG_ACTIVITIES_RESIZE_MODE_RESIZEABLE_VIA_SDK_VERSION',
      'ALLOW_AUDIO_PLAYBACK_CAPTURE',
      'PRIVATE_FLAG_ALLOW_NATIVE_HEAP_POINTER_TAGGING',
    ]
    lines.push(
      'Packages:',
      `  Package [${app.package}] (${hash(app.package)}):`,
      `    userId=${app.uid ?? 10123}`,
      `    pkg=Package{${hash(`${app.package}/pkg`)} ${app.package}}`,
      `    codePath=/data/app/~~${hash(app.package)}==/${app.package}-1`,
      `    resourcePath=/data/app/~~${hash(app.package)}==/${app.package}-1`,
      '    primaryCpuAbi=arm64-v8a',
      '    secondaryCpuAbi=null',
      `    versionCode=${versionCode(app.versionName)} minSdk=26 targetSdk=${sdk}`,
      `    versionName=${app.versionName ?? '1.0'}`,
      '    splits=[base]',
      `    flags=[ ${flags.join(' ')} ]`,
      `    privateFlags=[ ${privateFlags.join(' ')} ]`,
      `    dataDir=/data/user/0/${app.package}`,
      '',
    )
  }
  out(inv, `${lines.join('\n')}\n`)
  return 0
}

/** A stable short hex id, like the identity hash codes real dumps print. */
function hash(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h.toString(16).padStart(8, '0')
}

function versionCode(versionName: string | undefined): number {
  const [major = 1, minor = 0, patch = 0] = (versionName ?? '1.0')
    .split('.')
    .map((p) => Number(p) || 0)
  return major * 10000 + minor * 100 + patch
}
