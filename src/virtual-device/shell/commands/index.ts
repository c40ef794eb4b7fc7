/** The base commands every virtual device has (the simulation adds `dumpsys`, `am`, ...). */
import type { ShellCommand } from '../../contract.js'
import { streamingBody, streamingCommand } from '../streams.js'
import { taskset, yes } from './cpu.js'
import { cat, ls, mkdir, rm, touch } from './files.js'
import { date, echo, getprop, id, setprop, uname, which } from './misc.js'
import { kill, pidof, ps, sleep } from './proc.js'
import { grep, head, tail, wc } from './text.js'

/** A command that never reads stdin: the shell need not collect it before starting it. */
const noStdin = (command: ShellCommand): ShellCommand => streamingCommand((inv) => command(inv))

/** `name → command` for the toybox/mksh base set, in a fresh map. */
export function baseCommands(): Map<string, ShellCommand> {
  const commands = new Map<string, ShellCommand>([
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
    ['taskset', taskset],
    ['touch', touch],
    ['uname', uname],
    ['wc', wc],
    ['which', which],
    ['yes', yes],
    ['true', () => 0],
    ['false', () => 1],
  ])
  for (const [name, command] of commands) {
    if (streamingBody(command) === undefined) commands.set(name, noStdin(command))
  }
  return commands
}
