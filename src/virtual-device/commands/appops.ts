/**
 * `appops set|reset|get`: app-op modes the driver sets for its helper apps (PROJECT_MEDIA,
 * SYSTEM_ALERT_WINDOW…). Nothing simulated depends on them: `set` and `reset` succeed silently,
 * `get` answers `No operations.` as for an app that never used one.
 */
import type { ShellCommand } from '../contract.js'
import { err, out } from './_util.js'

export function appopsCommand(): ShellCommand {
  return (inv) => {
    const [, sub] = inv.argv
    if (sub === 'set' || sub === 'reset') return 0
    if (sub === 'get') {
      out(inv, 'No operations.\n')
      return 0
    }
    err(inv, `Unknown command: ${sub ?? ''}\n`)
    return 255
  }
}
