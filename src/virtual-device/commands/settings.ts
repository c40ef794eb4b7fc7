/**
 * `settings get|put|delete|list system|secure|global KEY [VALUE]`. Writing
 * `system screen_brightness` changes the simulated screen's brightness (and its power).
 */
import type { ShellCommand } from '../contract.js'
import type { SimPhone } from '../sim/phone.js'
import { err, out } from './_util.js'

const NAMESPACES = new Set(['system', 'secure', 'global'])

export function settingsCommand(phone: SimPhone): ShellCommand {
  return (inv) => {
    const [, verb, namespace, key, value] = inv.argv
    if (namespace === undefined || !NAMESPACES.has(namespace)) {
      err(inv, `Invalid namespace '${namespace ?? ''}'\n`)
      return 255
    }
    const id = `${namespace}/${key ?? ''}`
    switch (verb) {
      case 'get':
        if (key === undefined) break
        if (id === 'system/screen_brightness') {
          out(inv, `${phone.sim.brightness}\n`)
          return 0
        }
        out(inv, `${phone.settings.get(id) ?? 'null'}\n`)
        return 0
      case 'put':
        if (key === undefined || value === undefined) break
        phone.settings.set(id, value)
        if (id === 'system/screen_brightness' && /^\d+$/.test(value)) {
          phone.sim.setBrightness(Number(value))
        }
        return 0
      case 'delete':
        if (key === undefined) break
        out(inv, phone.settings.delete(id) ? 'Deleted 1 rows\n' : 'Deleted 0 rows\n')
        return 0
      case 'list':
        for (const [k, v] of [...phone.settings].sort(([a], [b]) => (a < b ? -1 : 1))) {
          if (k.startsWith(`${namespace}/`)) out(inv, `${k.slice(namespace.length + 1)}=${v}\n`)
        }
        return 0
    }
    err(
      inv,
      'usage:  settings [--user <USER_ID> | current] get namespace key\n        settings [--user <USER_ID> | current] put namespace key value\n',
    )
    return 255
  }
}
