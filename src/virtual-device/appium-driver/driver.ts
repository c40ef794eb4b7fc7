/**
 * `VirtualDeviceDriver`: an Appium 3 driver (automationName `VirtualDevice`) that drives an Android
 * device the way Appium's Android drivers do without an on-device server: over ADB, with
 * `uiautomator dump` for the UI, `input` for gestures and text, `am` for activities. It works
 * against any adb server (the virtual device's, or a real one) given `appium:adbHost/adbPort`.
 */
import { randomUUID } from 'node:crypto'
import { BaseDriver, errors } from '@appium/base-driver'
import type {
  ActionSequence,
  DefaultCreateSessionResult,
  Element,
  ExecuteMethodMap,
  W3CDriverCaps,
} from '@appium/types'
// The driver is product code that reaches a phone only through ADB, so it uses the device layer
// like any other ADB client (docs/appium-driver.md; allowed by eslint.config.js); it never
// touches the simulation.
import {
  connectAdb,
  pickDevice,
  quoteShellArg,
  resolveLauncherActivity,
  shell,
  shellScript,
  type AdbDevice,
  type ShellResult,
} from '../../device/index.js'
import { EnergyError, isEnergyError } from '../../model/index.js'
import { AppiumDriverErrors } from './errors.js'
import {
  attributeOf,
  centre,
  isDisplayed,
  nodeAtPath,
  parseHierarchy,
  renderPageSource,
  screenSize,
  swipeLine,
  type Rect,
  type SwipeDirection,
  type UiNode,
} from './hierarchy.js'
import { compileLocator, LOCATOR_STRATEGIES, type Locator } from './locate.js'
import { ELEMENT_KEY, originElementIds, pointerGestures, type PointerAction } from './gestures.js'
import { encodePng, renderScreen } from './png.js'

/** Where the driver asks `uiautomator dump` to write (app-independent, shell-writable). */
const DUMP_PATH = '/data/local/tmp/vitest-energy-window-dump.xml'

/** Poll interval of implicit waits, ms. */
const IMPLICIT_WAIT_POLL_MS = 100

/** KEYCODE_BACK, KEYCODE_MOVE_END, KEYCODE_DEL (android.view.KeyEvent). */
const KEYCODE_BACK = 4
const KEYCODE_MOVE_END = 123
const KEYCODE_DEL = 67

/** Capabilities beyond the base ones (all `appium:`-prefixed on the wire). */
export const VIRTUAL_DEVICE_CAP_CONSTRAINTS = {
  platformName: { presence: true, isString: true, inclusionCaseInsensitive: ['Android'] },
  automationName: { presence: true, isString: true, inclusionCaseInsensitive: ['VirtualDevice'] },
  appPackage: { isString: true },
  appActivity: { isString: true },
  adbHost: { isString: true },
  adbPort: { isNumber: true },
} as const

type Constraints = typeof VIRTUAL_DEVICE_CAP_CONSTRAINTS

/** What the driver remembers about a found element. */
interface ElementRecord {
  /** Child-index path in the hierarchy at the time it was found. */
  readonly path: string
  readonly className: string
  readonly resourceId: string
}

interface Session {
  readonly device: AdbDevice
  readonly appPackage: string | undefined
  readonly appActivity: string | undefined
  readonly noReset: boolean
  readonly elements: Map<string, ElementRecord>
}

/** The launcher activity resolved on the phone; throws `E_APPIUM_DEVICE_COMMAND` when there is none. */
async function launcherActivity(device: AdbDevice, pkg: string): Promise<string> {
  const { component, result } = await resolveLauncherActivity(device, pkg)
  if (component !== undefined) return component.slice(pkg.length + 1)
  const last = result.stdout.trim().split('\n').at(-1)?.trim() ?? ''
  throw new EnergyError({
    code: AppiumDriverErrors.DEVICE_COMMAND,
    message: `no launcher activity for ${pkg}: ${last.slice(0, 200) || 'no answer'}`,
    hint: 'Check that the app is installed (`adb shell pm path <package>`), or give appium:appActivity.',
    details: { serial: device.serial },
  })
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** `input text` escaping as appium-adb does it: spaces travel as `%s`; the shell word is quoted. */
export function inputTextArgument(text: string): string {
  return text.replace(/ /g, '%s')
}

/** Wraps errors that are not W3C errors so the client sees the device's explanation. */
function asProtocolError(error: unknown): Error {
  // base-driver's ProtocolError is not exported; its instances carry the W3C status and error name.
  if (error instanceof Error && 'w3cStatus' in error && 'jsonwpCode' in error) return error
  if (isEnergyError(error)) {
    if (error.code === AppiumDriverErrors.SELECTOR)
      return new errors.InvalidSelectorError(error.message)
    return new errors.UnknownError(error.message, error as Error)
  }
  const cause = error instanceof Error ? error : undefined
  return new errors.UnknownError(cause?.message ?? String(error), cause)
}

export class VirtualDeviceDriver extends BaseDriver<Constraints> {
  /** `mobile:` execute methods (the names UiAutomator2 uses). */
  static executeMethodMap = {
    'mobile: activateApp': { command: 'activateApp', params: { required: ['appId'] } },
    'mobile: terminateApp': { command: 'terminateApp', params: { required: ['appId'] } },
    'mobile: pressKey': { command: 'pressKeyCode', params: { required: ['keycode'] } },
    'mobile: isAppInstalled': { command: 'isAppInstalled', params: { required: ['appId'] } },
    'mobile: queryAppState': { command: 'queryAppState', params: { required: ['appId'] } },
    'mobile: clickGesture': {
      command: 'clickGesture',
      params: { optional: ['elementId', 'x', 'y'] },
    },
    'mobile: swipeGesture': {
      command: 'swipeGesture',
      params: {
        required: ['direction', 'percent'],
        optional: ['elementId', 'left', 'top', 'width', 'height', 'speed'],
      },
    },
  } as const satisfies ExecuteMethodMap<VirtualDeviceDriver>

  private session: Session | undefined

  constructor(opts = {} as ConstructorParameters<typeof BaseDriver>[0], shouldValidateCaps = true) {
    super(opts, shouldValidateCaps)
    this.desiredCapConstraints = VIRTUAL_DEVICE_CAP_CONSTRAINTS
    this.locatorStrategies = [...LOCATOR_STRATEGIES]
  }

  override async createSession(
    w3cCapabilities: W3CDriverCaps<Constraints>,
  ): Promise<DefaultCreateSessionResult<Constraints>> {
    const result = await super.createSession(w3cCapabilities)
    try {
      const caps = this.caps
      const client = await connectAdb({
        host: caps.adbHost ?? '127.0.0.1',
        port: caps.adbPort ?? 5037,
      })
      const device = await pickDevice(client, caps.udid === undefined ? {} : { serial: caps.udid })
      // Without appActivity, the package's launcher activity, resolved on the phone (as
      // UiAutomator2 does).
      const appActivity =
        caps.appActivity ??
        (caps.appPackage === undefined
          ? undefined
          : await launcherActivity(device, caps.appPackage))
      this.session = {
        device,
        appPackage: caps.appPackage,
        appActivity,
        noReset: caps.noReset ?? false,
        elements: new Map(),
      }
      if (caps.appPackage !== undefined && appActivity !== undefined) {
        await this.startActivity(caps.appPackage, appActivity, !(caps.noReset ?? false))
      }
    } catch (error) {
      this.session = undefined
      await super.deleteSession()
      throw new errors.SessionNotCreatedError(
        error instanceof Error ? error.message : String(error),
      )
    }
    return result
  }

  override async deleteSession(sessionId?: string | null): Promise<void> {
    const session = this.session
    this.session = undefined
    try {
      if (session !== undefined && !session.noReset && session.appPackage !== undefined) {
        await shell(session.device, ['am', 'force-stop', session.appPackage])
      }
    } finally {
      await super.deleteSession(sessionId)
    }
  }

  // ── device plumbing ──────────────────────────────────────────────────────────────────────

  private requireSession(): Session {
    if (this.session === undefined) throw new errors.NoSuchDriverError()
    return this.session
  }

  /** Runs argv on the device; a non-zero exit is `E_APPIUM_DEVICE_COMMAND` with the output. */
  private async run(argv: readonly string[]): Promise<ShellResult> {
    const { device } = this.requireSession()
    const result = await shell(device, argv)
    if (result.exitCode !== 0) {
      throw new EnergyError({
        code: AppiumDriverErrors.DEVICE_COMMAND,
        message: `\`${result.command}\` exited with ${result.exitCode}: ${result.stdout.trim().slice(0, 300)}`,
        hint: `Run \`adb -s ${device.serial} shell ${result.command}\` to see the device's answer.`,
        details: { serial: device.serial },
      })
    }
    return result
  }

  private async startActivity(pkg: string, activity: string, stopFirst: boolean): Promise<void> {
    const component = `${pkg}/${activity}`
    const result = await this.run([
      'am',
      'start',
      '-W',
      ...(stopFirst ? ['-S'] : []),
      '-n',
      component,
    ])
    if (/^Error/m.test(result.stdout)) {
      throw new EnergyError({
        code: AppiumDriverErrors.DEVICE_COMMAND,
        message: `cannot start ${component}: ${result.stdout.trim().slice(0, 300)}`,
        hint: 'Check appium:appPackage and appium:appActivity against `adb shell pm dump <package>`.',
        details: { serial: this.requireSession().device.serial },
      })
    }
  }

  /** Dumps and parses the current window hierarchy. */
  private async hierarchy(): Promise<UiNode> {
    const { device } = this.requireSession()
    const dump = quoteShellArg(DUMP_PATH)
    // Removed once read: nothing of a run may stay on the phone.
    const result = await shellScript(
      device,
      `uiautomator dump ${dump} >/dev/null && cat ${dump} && rm -f ${dump}`,
    )
    if (result.exitCode !== 0) {
      throw new EnergyError({
        code: AppiumDriverErrors.HIERARCHY,
        message: `uiautomator dump failed: ${result.stdout.trim().slice(0, 300)}`,
        hint: 'Wake and unlock the screen (`adb shell input keyevent KEYCODE_WAKEUP`), then retry.',
        details: { serial: device.serial, format: 'uiautomator dump' },
      })
    }
    return parseHierarchy(result.stdout)
  }

  private wrap(node: UiNode): Element {
    const { elements } = this.requireSession()
    const id = randomUUID()
    elements.set(id, {
      path: node.path,
      className: node.attrs['class'] ?? '',
      resourceId: node.attrs['resource-id'] ?? '',
    })
    return { [ELEMENT_KEY]: id, ELEMENT: id }
  }

  /** The element's node in a fresh dump; stale when the screen no longer has it. */
  private async resolve(elementId: string): Promise<{ node: UiNode; root: UiNode }> {
    const record = this.requireSession().elements.get(elementId)
    if (record === undefined) {
      throw new errors.NoSuchElementError(
        `no element with id ${elementId} was found in this session`,
      )
    }
    const root = await this.hierarchy()
    const node = nodeAtPath(root, record.path)
    if (
      node === undefined ||
      (node.attrs['class'] ?? '') !== record.className ||
      (node.attrs['resource-id'] ?? '') !== record.resourceId
    ) {
      throw new errors.StaleElementReferenceError(
        `element ${elementId} (${record.className}${record.resourceId ? ` ${record.resourceId}` : ''}) is no longer on screen`,
      )
    }
    return { node, root }
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (error) {
      throw asProtocolError(error)
    }
  }

  // ── find ─────────────────────────────────────────────────────────────────────────────────

  override async findElOrEls(
    strategy: string,
    selector: string,
    mult: true,
    context?: string,
  ): Promise<Element[]>
  override async findElOrEls(
    strategy: string,
    selector: string,
    mult: false,
    context?: string,
  ): Promise<Element>
  override async findElOrEls(
    strategy: string,
    selector: string,
    mult: boolean,
    context?: string,
  ): Promise<Element | Element[]> {
    let locator: Locator
    try {
      locator = compileLocator(strategy, selector)
    } catch (error) {
      throw asProtocolError(error)
    }
    const started = Date.now()
    for (;;) {
      const found = await this.guard(async () => {
        if (context === undefined) {
          const root = await this.hierarchy()
          return locator(root, root)
        }
        const { node, root } = await this.resolve(context)
        return locator(root, node)
      })
      const elapsed = Date.now() - started
      if (found.length > 0 || elapsed >= this.implicitWaitMs) {
        if (mult) return found.map((n) => this.wrap(n))
        const first = found[0]
        if (first === undefined) {
          throw new errors.NoSuchElementError(
            `no element matches ${strategy} ${JSON.stringify(selector)}` +
              (this.implicitWaitMs > 0 ? ` after waiting ${this.implicitWaitMs} ms` : ''),
          )
        }
        return this.wrap(first)
      }
      await sleep(Math.min(IMPLICIT_WAIT_POLL_MS, this.implicitWaitMs - elapsed))
    }
  }

  override async getPageSource(): Promise<string> {
    return this.guard(async () => renderPageSource(await this.hierarchy()))
  }

  // ── elements ─────────────────────────────────────────────────────────────────────────────

  async click(elementId: string): Promise<void> {
    await this.guard(async () => {
      const { node, root } = await this.resolve(elementId)
      if (node.rect === undefined || !isDisplayed(node, screenSize(root))) {
        throw new errors.ElementNotInteractableError(`element ${elementId} has no visible bounds`)
      }
      const [x, y] = centre(node.rect)
      await this.run(['input', 'tap', String(x), String(y)])
    })
  }

  async setValue(text: string | string[], elementId: string): Promise<void> {
    const value = Array.isArray(text) ? text.join('') : String(text)
    await this.click(elementId)
    if (value === '') return
    await this.guard(() => this.run(['input', 'text', inputTextArgument(value)]))
  }

  async clear(elementId: string): Promise<void> {
    await this.guard(async () => {
      const { node } = await this.resolve(elementId)
      const length = (node.attrs['text'] ?? '').length
      await this.click(elementId)
      if (length === 0) return
      const dels = Array.from({ length }, () => String(KEYCODE_DEL))
      await this.run(['input', 'keyevent', String(KEYCODE_MOVE_END), ...dels])
    })
  }

  async getText(elementId: string): Promise<string> {
    return this.guard(async () => (await this.resolve(elementId)).node.attrs['text'] ?? '')
  }

  async getName(elementId: string): Promise<string> {
    return this.guard(async () => (await this.resolve(elementId)).node.tag)
  }

  async getAttribute(name: string, elementId: string): Promise<string | null> {
    return this.guard(async () => {
      const { node, root } = await this.resolve(elementId)
      return attributeOf(node, name, screenSize(root))
    })
  }

  async elementDisplayed(elementId: string): Promise<boolean> {
    return this.guard(async () => {
      const { node, root } = await this.resolve(elementId)
      return isDisplayed(node, screenSize(root))
    })
  }

  async elementEnabled(elementId: string): Promise<boolean> {
    return this.guard(async () => (await this.resolve(elementId)).node.attrs['enabled'] === 'true')
  }

  async getElementRect(elementId: string): Promise<Rect> {
    return this.guard(async () => {
      const { node } = await this.resolve(elementId)
      return node.rect ?? { x: 0, y: 0, width: 0, height: 0 }
    })
  }

  // ── device ───────────────────────────────────────────────────────────────────────────────

  async back(): Promise<void> {
    await this.guard(() => this.run(['input', 'keyevent', String(KEYCODE_BACK)]))
  }

  async pressKeyCode(keycode: number | string): Promise<void> {
    await this.guard(() => this.run(['input', 'keyevent', String(keycode)]))
  }

  async getWindowRect(): Promise<Rect> {
    return this.guard(async () => ({ x: 0, y: 0, ...screenSize(await this.hierarchy()) }))
  }

  async getScreenshot(): Promise<string> {
    return this.guard(async () =>
      encodePng(renderScreen(await this.hierarchy())).toString('base64'),
    )
  }

  /** Brings `appId` to the front: its session activity, else its launcher (`monkey`). */
  async activateApp(appId: string): Promise<void> {
    await this.guard(async () => {
      const { appPackage, appActivity } = this.requireSession()
      if (appId === appPackage && appActivity !== undefined) {
        await this.startActivity(appId, appActivity, false)
        return
      }
      await this.run(['monkey', '-p', appId, '-c', 'android.intent.category.LAUNCHER', '1'])
    })
  }

  /** `am force-stop`; true when the app was running (UiAutomator2's answer). */
  async terminateApp(appId: string): Promise<boolean> {
    return this.guard(async () => {
      const { device } = this.requireSession()
      const running = (await shell(device, ['pidof', appId])).exitCode === 0
      await this.run(['am', 'force-stop', appId])
      return running
    })
  }

  /** `pm path <appId>` succeeds. */
  async isAppInstalled(appId: string): Promise<boolean> {
    return this.guard(async () => {
      const result = await shell(this.requireSession().device, ['pm', 'path', appId])
      return result.exitCode === 0 && result.stdout.includes('package:')
    })
  }

  /**
   * Appium's app states: 0 not installed, 1 not running, 3 running in the background, 4 running
   * in the foreground (its views are in the window hierarchy).
   */
  async queryAppState(appId: string): Promise<0 | 1 | 3 | 4> {
    return this.guard(async () => {
      if (!(await this.isAppInstalled(appId))) return 0
      const { device } = this.requireSession()
      if ((await shell(device, ['pidof', appId])).exitCode !== 0) return 1
      let root: UiNode
      try {
        root = await this.hierarchy()
      } catch {
        return 3 // screen off: nothing is in the foreground
      }
      return root.children.some((n) => n.attrs['package'] === appId) ? 4 : 3
    })
  }

  /** UiAutomator2's `mobile: clickGesture`: tap an element's centre, or x/y (relative to it). */
  async clickGesture(elementId?: string, x?: number, y?: number): Promise<void> {
    await this.guard(async () => {
      let [px, py] = [x ?? 0, y ?? 0]
      if (elementId !== undefined) {
        const { node } = await this.resolve(elementId)
        const rect = node.rect ?? { x: 0, y: 0, width: 0, height: 0 }
        ;[px, py] = x === undefined || y === undefined ? centre(rect) : [rect.x + x, rect.y + y]
      } else if (x === undefined || y === undefined) {
        throw new errors.InvalidArgumentError('mobile: clickGesture needs elementId or x and y')
      }
      await this.run(['input', 'tap', String(Math.round(px)), String(Math.round(py))])
    })
  }

  /**
   * UiAutomator2's `mobile: swipeGesture`: a finger swipe in `direction` over `percent` of the
   * element's (or left/top/width/height) area, at `speed` px/s (default 5000), as `input swipe`.
   */
  async swipeGesture(
    direction: string,
    percent: number,
    elementId?: string,
    left?: number,
    top?: number,
    width?: number,
    height?: number,
    speed?: number,
  ): Promise<void> {
    await this.guard(async () => {
      if (!['up', 'down', 'left', 'right'].includes(String(direction).toLowerCase())) {
        throw new errors.InvalidArgumentError(
          `direction must be up, down, left or right, got '${direction}'`,
        )
      }
      if (!(percent > 0 && percent <= 1)) {
        throw new errors.InvalidArgumentError(`percent must be in (0, 1], got ${percent}`)
      }
      let area: Rect
      if (elementId !== undefined) {
        area = (await this.resolve(elementId)).node.rect ?? { x: 0, y: 0, width: 0, height: 0 }
      } else if ([left, top, width, height].every((v) => typeof v === 'number')) {
        area = { x: left ?? 0, y: top ?? 0, width: width ?? 0, height: height ?? 0 }
      } else {
        throw new errors.InvalidArgumentError(
          'mobile: swipeGesture needs elementId or left, top, width and height',
        )
      }
      const [x1, y1, x2, y2] = swipeLine(
        area,
        String(direction).toLowerCase() as SwipeDirection,
        percent,
      )
      const lengthPx = Math.abs(x2 - x1) + Math.abs(y2 - y1)
      const durationMs = Math.max(50, Math.round((lengthPx / (speed ?? 5000)) * 1000))
      await this.run(['input', 'swipe', ...[x1, y1, x2, y2, durationMs].map(String)])
    })
  }

  /**
   * W3C actions for one touch or mouse pointer: down/up without movement is `input tap`, with
   * movement `input swipe` from the down to the up position (pauses add to the duration).
   * Key, wheel and multi-touch sequences are `unsupported operation`.
   */
  async performActions(actions: ActionSequence[]): Promise<void> {
    await this.guard(async () => {
      const pointers = actions.filter((a) => a.type === 'pointer')
      const unsupported = actions.filter(
        (a) =>
          a.type !== 'pointer' &&
          !(a.type === 'none' && a.actions.every((x) => x.type === 'pause')),
      )
      if (pointers.length !== 1 || unsupported.length > 0) {
        throw new errors.UnsupportedOperationError(
          'only one pointer (touch or mouse) action sequence is supported: taps and swipes',
        )
      }
      const steps = (pointers[0]?.actions ?? []) as unknown as PointerAction[]
      // Element origins are looked up before the first gesture (over adb, not per action).
      const centres = new Map<string, readonly [number, number]>()
      for (const id of originElementIds(steps)) {
        centres.set(
          id,
          centre((await this.resolve(id)).node.rect ?? { x: 0, y: 0, width: 0, height: 0 }),
        )
      }
      const gestures = pointerGestures(
        steps,
        (id) => centres.get(id) ?? [0, 0],
        (message) => new errors.InvalidArgumentError(message),
      )
      for (const g of gestures) {
        await this.run(
          g.kind === 'swipe'
            ? ['input', 'swipe', ...[...g.from, ...g.to, Math.max(50, g.pressedMs)].map(String)]
            : ['input', 'tap', String(g.x), String(g.y)],
        )
      }
    })
  }

  /** Nothing is held between performActions calls. */
  async releaseActions(): Promise<void> {}

  /** `mobile:` methods only; JavaScript cannot run on an Android native context. */
  async execute(script: string, args: unknown[]): Promise<unknown> {
    const match = /^mobile:\s*(\w+)$/.exec(script.trim())
    if (match === null) {
      throw new errors.UnsupportedOperationError(
        `only 'mobile:' execute methods are supported in a native context, got ${JSON.stringify(script.slice(0, 60))}`,
      )
    }
    return this.executeMethod(`mobile: ${match[1] ?? ''}`, args as [Record<string, unknown>])
  }
}
