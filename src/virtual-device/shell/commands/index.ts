/** The base commands every virtual device has (the simulation adds `dumpsys`, `am`, ...). */
import type { ShellCommand } from '../../contract.js'
import { cat, ls, mkdir, rm, touch } from './files.js'
import { date, echo, getprop, id, setprop, uname, which } from './misc.js'
import { kill, pidof, ps, sleep } from './proc.js'
import { grep, head, tail, wc } from './text.js'

/** `name → command` for the toybox/mksh base set, in a fresh map. */
export function baseCommands(): Map<string, ShellCommand> {
  return new Map<string, ShellCommand>([
    ['cat', cat],
    ['date', date],
    ['echo', echo],
    ['getprop', getprop],
    ['grep', grep],
    ['head', head],
    ['id', id],
    ['kill', kill],
    ['ls', ls],
    ['mkdir', mkdir],
    ['pidof', pidof],
    ['ps', ps],
    ['rm', rm],
    ['setprop', setprop],
    ['sleep', sleep],
    ['tail', tail],
    ['touch', touch],
    ['uname', uname],
    ['wc', wc],
    ['which', which],
    ['true', () => 0],
    ['false', () => 1],
  ])
}
