/**
 * `vdev ground-truth --from <boottime ns> --to <boottime ns>`: the virtual device's ground truth
 * for a window, as JSON. Only the virtual device has this command; product code never calls it,
 * tests and benchmarks do. `vdev silicon` prints how the phone's true CPU currents depart from the
 * profile it ships (sim/silicon.ts), as JSON. `vdev actions` prints the simulator's action log.
 * `vdev unplug [--after <ms>] [--for <ms>]` takes the phone off the ADB server as a pulled cable
 * would (after 100 ms by default, so the command's own reply gets out), and back after `--for` if
 * given.
 */
import { isEnergyError } from '../../model/index.js'
import type { ShellCommand } from '../contract.js'
import type { SimPhone } from '../sim/phone.js'
import { bootNowNs } from '../sim/phone.js'
import { err, out } from './_util.js'

const USAGE =
  'usage: vdev ground-truth --from <boottime ns> --to <boottime ns>\n       vdev silicon\n       vdev actions\n       vdev now\n       vdev unplug [--after <ms>] [--for <ms>]\n'

export function vdevCommand(phone: SimPhone): ShellCommand {
  return (inv) => {
    const [, sub, ...args] = inv.argv
    if (sub === 'now') {
      out(inv, `${bootNowNs(phone)}\n`)
      return 0
    }
    if (sub === 'silicon') {
      out(inv, `${JSON.stringify(phone.silicon)}\n`)
      return 0
    }
    if (sub === 'actions') {
      out(inv, phone.sim.actionLog.map((line) => `${line}\n`).join(''))
      return 0
    }
    const read = (name: string): number | undefined => {
      const i = args.indexOf(name)
      const v = i >= 0 ? args[i + 1] : undefined
      return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined
    }
    if (sub === 'unplug') {
      const bad = ['--after', '--for'].find((f) => args.includes(f) && read(f) === undefined)
      if (bad !== undefined || phone.unplug === undefined) {
        err(
          inv,
          bad !== undefined
            ? `vdev: ${bad} takes milliseconds (an integer)\n${USAGE}`
            : 'vdev: this phone is not served by an ADB server\n',
        )
        return 1
      }
      phone.unplug(read('--after') ?? 100, read('--for'))
      return 0
    }
    if (sub !== 'ground-truth') {
      err(inv, USAGE)
      return 1
    }
    const from = read('--from')
    const to = read('--to')
    if (from === undefined || to === undefined) {
      err(inv, `vdev: --from and --to take boottime nanoseconds (integers)\n${USAGE}`)
      return 1
    }
    if (to < from) {
      err(inv, `vdev: window ends before it starts (--from ${from} --to ${to})\n`)
      return 1
    }
    try {
      out(inv, `${JSON.stringify(phone.sim.groundTruth(from, to))}\n`)
    } catch (error) {
      if (!isEnergyError(error)) throw error
      err(inv, `vdev: ${error.message}\n`)
      return 1
    }
    return 0
  }
}
