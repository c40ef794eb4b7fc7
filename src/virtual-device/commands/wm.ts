/**
 * `wm size` and `wm density` (what Appium's drivers read for the screen), and `ime list -s` /
 * `ime enable|set` (the keyboards it may switch to): the Pixel 6's panel and Gboard.
 */
import type { ShellCommand } from '../contract.js'
import type { SimPhone } from '../sim/phone.js'
import { err, out } from './_util.js'

export const DEFAULT_IME =
  'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME'

export function wmCommand(phone: SimPhone): ShellCommand {
  return (inv) => {
    const [, sub] = inv.argv
    const [width, height] = phone.app.displayPx ?? [1080, 2400]
    if (sub === 'size') {
      out(inv, `Physical size: ${width}x${height}\n`)
      return 0
    }
    if (sub === 'density') {
      out(inv, `Physical density: ${inv.device.props.get('ro.sf.lcd_density') ?? '420'}\n`)
      return 0
    }
    if (sub === 'dismiss-keyguard') return 0
    err(inv, `Error: unknown command '${sub ?? ''}'\n`)
    return 255
  }
}

export function imeCommand(): ShellCommand {
  return (inv) => {
    const [, sub, ...args] = inv.argv
    if (sub === 'list') {
      out(inv, args.includes('-s') ? `${DEFAULT_IME}\n` : `${DEFAULT_IME}:\n  mId=${DEFAULT_IME}\n`)
      return 0
    }
    if (sub === 'enable' || sub === 'set') {
      const id = args.at(-1) ?? ''
      if (id !== DEFAULT_IME) {
        err(
          inv,
          `Unknown input method ${id} cannot be ${sub === 'set' ? 'selected' : 'enabled'} for user #0\n`,
        )
        return 255
      }
      out(
        inv,
        sub === 'set'
          ? `Input method ${id} selected for user #0\n`
          : `Input method ${id}: already enabled for user #0\n`,
      )
      return 0
    }
    err(inv, `Unknown command: ${sub ?? ''}\n`)
    return 255
  }
}
