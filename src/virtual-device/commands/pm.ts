/**
 * `pm list packages [-f] [FILTER]` and `pm path PACKAGE`: the simulated app plus a handful of
 * system packages, with the randomized `/data/app/~~…==/pkg-…==/base.apk` paths of Android 11+.
 */
import type { ShellCommand } from '../contract.js'
import type { SimPhone } from '../sim/phone.js'
import { err, out } from './_util.js'

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

/** Where the simulated app's APK lives. */
export function appApkPath(phone: SimPhone): string {
  const pkg = phone.app.package
  return `/data/app/~~${token(`${pkg}/a`, phone.seed)}/${pkg}-${token(`${pkg}/b`, phone.seed)}/base.apk`
}

function packages(phone: SimPhone): (readonly [string, string])[] {
  return [...SYSTEM_PACKAGES, [phone.app.package, appApkPath(phone)] as const].sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  )
}

export function pmCommand(phone: SimPhone): ShellCommand {
  return (inv) => {
    const [, sub, ...args] = inv.argv
    if (sub === 'list' && (args[0] === 'packages' || args[0] === 'package')) {
      const flags = args.slice(1).filter((a) => a.startsWith('-'))
      const filter = args.slice(1).find((a) => !a.startsWith('-'))
      for (const [name, path] of packages(phone)) {
        if (filter !== undefined && !name.includes(filter)) continue
        if (flags.includes('-3') && name !== phone.app.package) continue
        out(inv, flags.includes('-f') ? `package:${path}=${name}\n` : `package:${name}\n`)
      }
      return 0
    }
    if (sub === 'path') {
      const pkg = args.find((a) => !a.startsWith('-'))
      const found = packages(phone).find(([name]) => name === pkg)
      if (found === undefined) return 1
      out(inv, `package:${found[1]}\n`)
      return 0
    }
    err(inv, `Unknown command: ${sub ?? ''}\n`)
    return 255
  }
}
