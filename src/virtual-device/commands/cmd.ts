/**
 * `cmd package compile -m speed -f PACKAGE` (and `cmd activity|package|settings …` forwarding to
 * `am`/`pm`/`settings`), `cmd overlay …` (the overlay manager, android/overlays.ts). Compiling
 * with `speed` is recorded so tests can check it happened.
 */
import type { OverlayManager } from '../android/overlays.js'
import type { ShellCommand } from '../contract.js'
import type { SimPhone } from '../sim/phone.js'
import { err, option, out } from './_util.js'

export function cmdCommand(
  phone: SimPhone,
  forward: ReadonlyMap<string, ShellCommand>,
  overlays?: OverlayManager,
): ShellCommand {
  return (inv) => {
    const [, service, ...args] = inv.argv
    if (service === 'overlay' && overlays !== undefined) return overlays.command(inv, args)
    if (service === 'package' && args[0] === 'compile') {
      const mode = option(args, '-m')
      const pkg = args
        .slice(1)
        .filter((a, i, all) => !a.startsWith('-') && all[i - 1] !== '-m')
        .at(-1)
      if (mode === undefined || pkg === undefined) {
        err(inv, 'Error: no package specified\n')
        return 255
      }
      if (pkg !== phone.app.package) {
        out(inv, `Failure: package ${pkg} could not be compiled\n`)
        return 255
      }
      phone.compiled.set(pkg, mode)
      out(inv, 'Success\n')
      return 0
    }
    if (
      service === 'notification' &&
      /^(dis)?allow_(listener|assistant|dnd)$/.test(args[0] ?? '')
    ) {
      // Appium's settings helper asks to read notifications; nothing simulated depends on it.
      return 0
    }
    const target = service === 'activity' ? 'am' : service === 'package' ? 'pm' : service
    const command = target === undefined ? undefined : forward.get(target)
    if (command === undefined) {
      err(inv, `cmd: Can't find service: ${service ?? ''}\n`)
      return 20
    }
    return command({ ...inv, argv: [target ?? '', ...args] })
  }
}
