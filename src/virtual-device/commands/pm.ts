/**
 * `pm` over the phone's package registry: `list packages [-f] [-3] [-s] [FILTER]`, `path`,
 * `install [-r] [-g] [-d] [-t] FILE` (what `adb install` runs after pushing the APK),
 * `uninstall`, `grant`/`revoke`, `clear`, `list instrumentation`. Output and exit statuses follow
 * PackageManagerShellCommand (Android 13): `Success`, `Failure [CODE: message]` with status 1.
 */
import { InstallFailure, installedApkPath, type PackageRegistry } from '../android/packages.js'
import type { ShellCommand, ShellInvocation } from '../contract.js'
import type { SimPhone } from '../sim/phone.js'
import { err, javaException, out } from './_util.js'

/** Where the simulated app's APK lives. */
export function appApkPath(phone: SimPhone): string {
  return installedApkPath(phone.app.package, phone.seed)
}

/**
 * `clear` on the simulated app stops it (its data is its state in the simulation: a fresh start
 * is a cold launch), as the package manager kills a package whose data it clears.
 */
export function pmCommand(packages: PackageRegistry, stopSimApp: () => void): ShellCommand {
  return async (inv) => {
    const [, sub, ...args] = inv.argv
    const operands = args.filter((a) => !a.startsWith('-'))
    switch (sub) {
      case 'list':
        return list(packages, inv, args)
      case 'path': {
        const found = packages.get(operands[0] ?? '')
        if (found === undefined) return 1
        out(inv, `package:${found.apkPath}\n`)
        return 0
      }
      case 'install':
        return install(packages, inv, args)
      case 'install-create': {
        const { grantAll, allowDowngrade } = installFlags(args)
        const id = packages.createSession({ grantAll, allowDowngrade })
        out(inv, `Success: created install session [${id}]\n`)
        return 0
      }
      case 'install-write':
        return installWrite(packages, inv, args)
      case 'install-commit':
        return reportInstall(inv, () => packages.commitSession(Number(operands[0])))
      case 'install-abandon':
        if (!packages.abandonSession(Number(operands[0]))) {
          err(inv, `Error: unknown session ${operands[0] ?? ''}\n`)
          return 255
        }
        out(inv, 'Success\n')
        return 0
      case 'resolve-activity': {
        // `--brief [-a ACTION] [-c CATEGORY] PKG`: the launcher activity, as an Intent resolves.
        const name = args
          .filter((a, i) => !a.startsWith('-') && !/^-[acd]$/.test(args[i - 1] ?? ''))
          .at(-1)
        const pkg = packages.get(name ?? '')
        const activity = pkg?.launcherActivity
        if (pkg === undefined || activity === undefined) {
          out(inv, 'No activity found\n')
          return 0
        }
        const short = activity.startsWith(`${pkg.name}.`)
          ? activity.slice(pkg.name.length)
          : activity
        out(
          inv,
          `priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n${pkg.name}/${short}\n`,
        )
        return 0
      }
      case 'uninstall': {
        const name = operands.at(-1) ?? ''
        if (!packages.uninstall(name)) {
          out(inv, 'Failure [DELETE_FAILED_INTERNAL_ERROR]\n')
          return 1
        }
        out(inv, 'Success\n')
        return 0
      }
      case 'grant':
      case 'revoke': {
        const [name = '', permission = ''] = operands
        const pkg = packages.get(name)
        if (pkg === undefined) {
          return javaException(
            inv,
            sub,
            'java.lang.IllegalArgumentException',
            `Unknown package: ${name}`,
            'com.android.server.pm.permission.PermissionManagerServiceImpl.grantRuntimePermissionInternal(PermissionManagerServiceImpl.java:1389)',
          )
        }
        if (sub === 'grant') pkg.grantedPermissions.add(permission)
        else pkg.grantedPermissions.delete(permission)
        return 0
      }
      case 'clear': {
        const name = operands.at(-1) ?? ''
        if (packages.get(name) === undefined) {
          out(inv, 'Failed\n')
          return 1
        }
        if (packages.isSimApp(name)) stopSimApp()
        out(inv, 'Success\n')
        return 0
      }
      default:
        err(inv, `Unknown command: ${sub ?? ''}\n`)
        return 255
    }
  }
}

function list(packages: PackageRegistry, inv: ShellInvocation, args: readonly string[]): number {
  const [what, ...rest] = args
  const flags = rest.filter((a) => a.startsWith('-'))
  const filter = rest.find((a) => !a.startsWith('-'))
  if (what === 'packages' || what === 'package') {
    for (const pkg of packages.list()) {
      if (filter !== undefined && !pkg.name.includes(filter)) continue
      if (flags.includes('-3') && pkg.system) continue
      if (flags.includes('-s') && !pkg.system) continue
      const path = flags.includes('-f') ? `${pkg.apkPath}=` : ''
      const version = flags.includes('--show-versioncode') ? ` versionCode:${pkg.versionCode}` : ''
      out(inv, `package:${path}${pkg.name}${version}\n`)
    }
    return 0
  }
  if (what === 'instrumentation') {
    for (const pkg of packages.list()) {
      const i = pkg.instrumentation
      if (i === undefined) continue
      if (filter !== undefined && i.targetPackage !== filter) continue
      const where = flags.includes('-f') ? `${pkg.apkPath}=` : ''
      out(inv, `instrumentation:${where}${pkg.name}/${i.name} (target=${i.targetPackage})\n`)
    }
    return 0
  }
  err(inv, `Error: unknown list type '${what ?? ''}'\n`)
  return 255
}

/** `-g` (grant every requested permission), `-d` (allow a downgrade) and the operands. */
function installFlags(args: readonly string[]): {
  grantAll: boolean
  allowDowngrade: boolean
  size: number | undefined
  operands: string[]
} {
  let grantAll = false
  let allowDowngrade = false
  let size: number | undefined
  const operands: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? ''
    if (a === '-g') grantAll = true
    else if (a === '-d') allowDowngrade = true
    else if (a === '-S') size = Number(args[++i])
    else if (a === '-i' || a === '--user' || a === '--install-location') i++
    else if (a === '-' || !a.startsWith('-')) operands.push(a)
  }
  return { grantAll, allowDowngrade, size, operands }
}

/**
 * `install-write [-S size] <session> <name> [<path> | -]`: one APK of a session, from a file on
 * the phone or from stdin (what `adb install-multiple` streams).
 */
function installWrite(
  packages: PackageRegistry,
  inv: ShellInvocation,
  args: readonly string[],
): number {
  const { size, operands } = installFlags(args)
  const [session = '', name = '', source = '-'] = operands
  let bytes: Uint8Array
  if (source === '-') {
    bytes = inv.stdin
    if (size !== undefined && bytes.length !== size) {
      err(inv, `Error: expected ${size} bytes on stdin, got ${bytes.length}\n`)
      return 255
    }
  } else {
    const node = inv.device.fs.stat(source)
    if (node === undefined || node.kind !== 'file') {
      err(inv, `Error: Can't open file: ${source}\n`)
      return 255
    }
    bytes = node.data
  }
  if (!packages.writeSession(Number(session), name, bytes)) {
    err(inv, `Error: unknown session ${session}\n`)
    return 255
  }
  out(inv, `Success: streamed ${bytes.length} bytes\n`)
  return 0
}

async function install(
  packages: PackageRegistry,
  inv: ShellInvocation,
  args: readonly string[],
): Promise<number> {
  const { grantAll, allowDowngrade, operands } = installFlags(args)
  const file = operands.at(-1)
  if (file === undefined) {
    err(inv, 'Error: must either specify a package size or an APK file\n')
    return 255
  }
  const path = file.startsWith('/') ? file : `${inv.cwd ?? '/'}/${file}`
  const node = inv.device.fs.stat(path)
  if (node === undefined || node.kind !== 'file') {
    err(inv, `Error: Can't open file: ${file}\nException occurred while executing 'install':\n`)
    out(inv, `Failure [INSTALL_FAILED_INVALID_APK: Can't open file: ${file}]\n`)
    return 1
  }
  return reportInstall(inv, () => packages.install(node.data, path, { grantAll, allowDowngrade }))
}

/** `Success`, or the package manager's `Failure [CODE: message]` with status 1. */
async function reportInstall(
  inv: ShellInvocation,
  install: () => Promise<unknown>,
): Promise<number> {
  try {
    await install()
  } catch (error) {
    if (!(error instanceof InstallFailure)) throw error
    out(inv, `Failure [${error.code}: ${error.message}]\n`)
    return 1
  }
  out(inv, 'Success\n')
  return 0
}
