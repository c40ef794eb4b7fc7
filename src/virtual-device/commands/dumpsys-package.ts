/**
 * `dumpsys package <pkg>`: the `Packages:` section for one installed package, in the layout of
 * AOSP's Settings.dumpPackageLPr (what the capability probe and Appium's adb layer read:
 * `versionCode=`, `versionName=`, `flags=[ … ]` with DEBUGGABLE, the permission sections,
 * `firstInstallTime=`). Unknown packages print the header sections only, as a real phone does.
 */
import type { InstalledPackage, PackageRegistry } from '../android/packages.js'
import type { ShellInvocation } from '../contract.js'
import { out } from './_util.js'

/** `2026-11-24 04:26:10`: the package manager's timestamp format (device local time, UTC here). */
function timestamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ')
}

function packageSection(pkg: InstalledPackage, sdk: string): string[] {
  const flags = [
    ...(pkg.system ? ['SYSTEM'] : []),
    'HAS_CODE',
    'ALLOW_CLEAR_USER_DATA',
    'ALLOW_BACKUP',
    ...(pkg.debuggable ? ['DEBUGGABLE'] : []),
  ]
  // AOSP's privateFlags dump spec has no name for PRIVATE_FLAG_PROFILEABLE_BY_SHELL, so a
  // profileable release build looks like any other here (tools learn it from `am profile`).
  const privateFlags = [
    'PRIVATE_FLAG_ACTIVITIES_RESIZE_MODE_RESIZEABLE_VIA_SDK_VERSION',
    'ALLOW_AUDIO_PLAYBACK_CAPTURE',
    'PRIVATE_FLAG_ALLOW_NATIVE_HEAP_POINTER_TAGGING',
  ]
  const codePath = pkg.apkPath.replace(/\/base\.apk$/, '')
  const lines = [
    `  Package [${pkg.name}] (${hash(pkg.name)}):`,
    `    userId=${pkg.uid}`,
    `    pkg=Package{${hash(`${pkg.name}/pkg`)} ${pkg.name}}`,
    `    codePath=${codePath}`,
    `    resourcePath=${codePath}`,
    '    primaryCpuAbi=arm64-v8a',
    '    secondaryCpuAbi=null',
    `    versionCode=${pkg.versionCode} minSdk=${pkg.minSdk} targetSdk=${pkg.targetSdk || sdk}`,
    `    versionName=${pkg.versionName}`,
    '    splits=[base]',
    `    flags=[ ${flags.join(' ')} ]`,
    `    privateFlags=[ ${privateFlags.join(' ')} ]`,
    `    dataDir=/data/user/0/${pkg.name}`,
    `    timeStamp=${timestamp(pkg.lastUpdateMs)}`,
    `    firstInstallTime=${timestamp(pkg.firstInstallMs)}`,
    `    lastUpdateTime=${timestamp(pkg.lastUpdateMs)}`,
  ]
  if (pkg.requestedPermissions.length > 0) {
    lines.push('    requested permissions:')
    for (const p of pkg.requestedPermissions) lines.push(`      ${p}`)
  }
  lines.push(
    `    User 0: ceDataInode=${parseInt(hash(`${pkg.name}/inode`).slice(0, 6), 16)} installed=true hidden=false suspended=false distractionFlags=0 stopped=false notLaunched=false enabled=0 instant=false virtual=false`,
  )
  if (pkg.requestedPermissions.length > 0) {
    lines.push('      runtime permissions:')
    for (const p of pkg.requestedPermissions) {
      lines.push(`        ${p}: granted=${pkg.grantedPermissions.has(p)}, flags=[ ]`)
    }
  }
  lines.push('')
  return lines
}

export function dumpsysPackage(
  packages: PackageRegistry,
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
  const pkg = name === undefined ? undefined : packages.get(name)
  if (pkg !== undefined) lines.push('Packages:', ...packageSection(pkg, sdk))
  out(inv, `${lines.join('\n')}\n`)
  return 0
}

/** A stable short hex id, like the identity hash codes real dumps print. */
function hash(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h.toString(16).padStart(8, '0')
}
