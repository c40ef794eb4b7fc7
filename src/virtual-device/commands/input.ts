/**
 * `input tap X Y`, `input text TEXT`, `input keyevent CODE|KEYCODE_NAME…`, `input swipe X1 Y1 X2 Y2
 * [ms]` (treated as a tap at the start point when it lands on a scrollable widget). Hit-testing
 * uses the current screen's widget bounds; a hit fires the widget's action in the simulation.
 */
import type { ShellCommand } from '../contract.js'
import type { SimPhone } from '../sim/phone.js'
import { err } from './_util.js'

const KEYCODES: Readonly<Record<string, number>> = {
  KEYCODE_HOME: 3,
  KEYCODE_BACK: 4,
  KEYCODE_POWER: 26,
  KEYCODE_ENTER: 66,
  KEYCODE_MENU: 82,
  KEYCODE_APP_SWITCH: 187,
  KEYCODE_SLEEP: 223,
  KEYCODE_WAKEUP: 224,
}

const USAGE = `Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
`

function invalid(command: string): string {
  return `Error: Invalid arguments for command: ${command}\n${USAGE}`
}

const isNumber = (v: string | undefined): v is string =>
  v !== undefined && /^-?\d+(\.\d+)?$/.test(v)

/** `%s` is a space in `input text`, as on a phone. */
function decodeText(text: string): string {
  return text.replace(/%s/g, ' ')
}

/**
 * A finger swipe from (x1, y1) to (x2, y2): on a scrollable widget it scrolls it, which the app
 * model treats as the widget's action; elsewhere it does nothing. Shared with the UiAutomator2
 * server, which injects the same events.
 */
export function injectSwipe(
  phone: SimPhone,
  x1: number,
  y1: number,
  _x2: number,
  _y2: number,
): void {
  const widget = phone.sim.hitTest(x1, y1)
  if (widget?.scrollable === true) phone.sim.tap(x1, y1)
}

export function inputCommand(phone: SimPhone): ShellCommand {
  return (inv) => {
    const args = inv.argv.slice(1).filter((a) => a !== 'touchscreen' && a !== 'keyboard')
    const [command, ...rest] = args
    const { sim } = phone
    switch (command) {
      case 'tap': {
        const [x, y] = rest
        if (rest.length !== 2 || !isNumber(x) || !isNumber(y)) {
          err(inv, invalid('tap'))
          return 1
        }
        sim.tap(Number(x), Number(y))
        return 0
      }
      case 'swipe': {
        const [x1, y1, x2, y2] = rest
        if (rest.length < 4 || ![x1, y1, x2, y2].every(isNumber)) {
          err(inv, invalid('swipe'))
          return 1
        }
        injectSwipe(phone, Number(x1), Number(y1), Number(x2), Number(y2))
        return 0
      }
      case 'text': {
        if (rest.length === 0) {
          err(inv, invalid('text'))
          return 1
        }
        sim.typeText(decodeText(rest.join(' ')))
        return 0
      }
      case 'keyevent': {
        const codes = rest.filter((a) => !a.startsWith('--'))
        if (codes.length === 0) {
          err(inv, invalid('keyevent'))
          return 1
        }
        for (const code of codes) {
          const n = /^\d+$/.test(code) ? Number(code) : KEYCODES[code]
          if (n === undefined) {
            err(inv, `Error: Unknown keycode: ${code}\n`)
            return 1
          }
          sim.keyevent(n)
        }
        return 0
      }
      default:
        err(inv, command === undefined ? USAGE : `Error: Unknown command: ${command}\n${USAGE}`)
        return 1
    }
  }
}
