/**
 * `uiautomator dump [--compressed] [FILE]`: writes the window hierarchy XML (default
 * `/sdcard/window_dump.xml`) in the exact layout of a real dump (one line, attribute order,
 * `drawing-order` and `hint`, no trailing newline; see test/fixtures/corpus/6_dumpsys_uiautomator)
 * and prints `UI hierchary dumped to: FILE` (sic, the real tool's spelling).
 */
import type { ShellCommand } from '../contract.js'
import type { Widget } from '../sim/app-model.js'
import type { SimPhone } from '../sim/phone.js'
import { err, out } from './_util.js'

const LAUNCHER = 'com.google.android.apps.nexuslauncher'

function escape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
}

interface NodeAttrs {
  readonly index: number
  readonly text: string
  readonly resourceId: string
  readonly className: string
  readonly pkg: string
  readonly contentDesc: string
  readonly clickable: boolean
  readonly focusable: boolean
  readonly focused: boolean
  readonly scrollable: boolean
  readonly bounds: readonly [number, number, number, number]
  readonly drawingOrder: number
}

function open(a: NodeAttrs): string {
  const [l, t, r, b] = a.bounds
  return (
    `<node index="${a.index}" text="${escape(a.text)}" resource-id="${escape(a.resourceId)}" ` +
    `class="${a.className}" package="${a.pkg}" content-desc="${escape(a.contentDesc)}" ` +
    `checkable="false" checked="false" clickable="${a.clickable}" enabled="true" ` +
    `focusable="${a.focusable}" focused="${a.focused}" scrollable="${a.scrollable}" ` +
    `long-clickable="false" password="false" selected="false" bounds="[${l},${t}][${r},${b}]" ` +
    `drawing-order="${a.drawingOrder}" hint=""`
  )
}

function container(
  index: number,
  className: string,
  pkg: string,
  bounds: readonly [number, number, number, number],
  drawingOrder: number,
  resourceId = '',
): NodeAttrs {
  return {
    index,
    text: '',
    resourceId,
    className,
    pkg,
    contentDesc: '',
    clickable: false,
    focusable: false,
    focused: false,
    scrollable: false,
    bounds,
    drawingOrder,
  }
}

function widgetNode(phone: SimPhone, w: Widget, index: number, pkg: string): string {
  const editable = w.className === 'android.widget.EditText'
  return `${open({
    index,
    text: phone.sim.textOf(w),
    resourceId: w.resourceId ?? '',
    className: w.className ?? 'android.widget.TextView',
    pkg,
    contentDesc: w.contentDesc ?? '',
    clickable: w.clickable ?? w.actions?.tap !== undefined,
    focusable: editable || (w.clickable ?? false),
    focused: false,
    scrollable: w.scrollable ?? false,
    bounds: w.bounds,
    drawingOrder: index + 1,
  })} />`
}

/** The hierarchy XML of what is on screen now. */
export function renderHierarchy(phone: SimPhone): string {
  const [width, height] = phone.app.displayPx ?? [1080, 2400]
  const full = [0, 0, width, height] as const
  const screen = phone.sim.currentScreen()
  const head = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
  if (screen === undefined) {
    return `${head}${open(container(0, 'android.widget.FrameLayout', LAUNCHER, full, 0))} /></hierarchy>`
  }
  const pkg = phone.app.package
  const children = screen.widgets.map((w, i) => widgetNode(phone, w, i, pkg)).join('')
  return (
    head +
    `${open(container(0, 'android.widget.FrameLayout', pkg, full, 0))}>` +
    `${open(container(0, 'android.widget.LinearLayout', pkg, full, 1))}>` +
    `${open(container(0, 'android.widget.FrameLayout', pkg, full, 2, 'android:id/content'))}>` +
    children +
    '</node></node></node></hierarchy>'
  )
}

export function uiautomatorCommand(phone: SimPhone): ShellCommand {
  return (inv) => {
    const [, sub, ...rest] = inv.argv
    if (sub !== 'dump') {
      err(
        inv,
        'Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\nruntest: executes UI automation tests\n\ndump: creates an XML dump of current UI hierarchy\n\nevents: prints out accessibility events until terminated\n',
      )
      return 1
    }
    if (!phone.sim.screenOn) {
      err(inv, 'ERROR: null root node returned by UiTestAutomationBridge.\n')
      return 1
    }
    const file = rest.filter((a) => !a.startsWith('--')).at(0) ?? '/sdcard/window_dump.xml'
    const target = file === '/dev/tty' ? undefined : file
    const xml = renderHierarchy(phone)
    if (target === undefined) {
      out(inv, `${xml}\nUI hierchary dumped to: /dev/tty\n`)
      return 0
    }
    inv.device.fs.writeFile(target, new TextEncoder().encode(xml), 0o660)
    out(inv, `UI hierchary dumped to: ${target}\n`)
    return 0
  }
}
