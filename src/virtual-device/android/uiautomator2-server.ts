/**
 * The UiAutomator2 server (io.appium.uiautomator2.server, what `am instrument` of its test package
 * starts on the phone), emulated: an HTTP server on the phone's port 6790 that Appium's
 * UiAutomator2 driver reaches through `adb forward` and proxies WebDriver commands to. Routes,
 * bodies and error shapes follow the real server (appium-uiautomator2-server's AppiumServlet and
 * its handlers); what it sees and touches is the simulated UI, read as a `uiautomator dump` of
 * the current window and acted on as UiAutomator injects input.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import {
  centre,
  descendants,
  isDisplayed,
  nodeAtPath,
  parseHierarchy,
  renderPageSource,
  screenSize,
  swipeLine,
  type Rect,
  type SwipeDirection,
  type UiNode,
} from '../appium-driver/hierarchy.js'
import { ELEMENT_KEY, pointerGestures } from '../appium-driver/gestures.js'
import { compileLocator } from '../appium-driver/locate.js'
import { encodePng, renderScreen } from '../appium-driver/png.js'
import { injectSwipe } from '../commands/input.js'
import { renderHierarchy } from '../commands/uiautomator.js'
import type { VirtualDeviceHandle } from '../contract.js'
import type { SimPhone } from '../sim/phone.js'

/** The port the real server listens on, on the phone. */
export const UIAUTOMATOR2_SERVER_PORT = 6790
/** The version this emulation answers as (the server APK the driver ships, read at install). */
const KEYCODE_BACK = 4
/** A peer's request body is bounded: screenshots go out, not in. */
const MAX_BODY_BYTES = 8 * 1024 * 1024

/** A WebDriver error as the server sends it: HTTP status, W3C error code, message. */
class ServerError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message)
  }
}

const noSuchElement = (message: string): ServerError =>
  new ServerError(404, 'no such element', message)
const invalidArgument = (message: string): ServerError =>
  new ServerError(400, 'invalid argument', message)

interface ElementRecord {
  readonly path: string
  readonly className: string
  readonly resourceId: string
}

interface Session {
  readonly id: string
  readonly capabilities: Record<string, unknown>
  readonly elements: Map<string, ElementRecord>
  readonly settings: Record<string, unknown>
}

export interface Uiautomator2Server {
  /** Accepts one connection (from `adb forward` or the `tcp:6790` service). */
  accept(connection: Duplex): void
  close(): void
}

/** Starts the server's HTTP handling; the caller registers `accept` on the phone's port. */
export function createUiautomator2Server(
  phone: SimPhone,
  device: VirtualDeviceHandle,
  version: string,
): Uiautomator2Server {
  let session: Session | undefined

  const hierarchy = (): UiNode => parseHierarchy(renderHierarchy(phone))

  const requireSession = (id: string): Session => {
    if (session === undefined || session.id !== id) {
      throw new ServerError(
        404,
        'invalid session id',
        `A session is either terminated or not started`,
      )
    }
    return session
  }

  const wrap = (s: Session, node: UiNode): Record<string, string> => {
    const id = randomUUID()
    s.elements.set(id, {
      path: node.path,
      className: node.attrs['class'] ?? '',
      resourceId: node.attrs['resource-id'] ?? '',
    })
    return { ELEMENT: id, [ELEMENT_KEY]: id }
  }

  const resolve = (s: Session, id: string): { node: UiNode; root: UiNode } => {
    const record = s.elements.get(id)
    if (record === undefined) {
      throw new ServerError(
        404,
        'no such element',
        `The element identified by '${id}' is not present in the cache or has expired. Try to find it again`,
      )
    }
    const root = hierarchy()
    const node = nodeAtPath(root, record.path)
    if (
      node === undefined ||
      (node.attrs['class'] ?? '') !== record.className ||
      (node.attrs['resource-id'] ?? '') !== record.resourceId
    ) {
      throw new ServerError(
        404,
        'stale element reference',
        `The element '${record.className}' does not exist in DOM anymore`,
      )
    }
    return { node, root }
  }

  const find = (s: Session, body: Record<string, unknown>, multiple: boolean, context?: string) => {
    const strategy = String(body['strategy'] ?? body['using'] ?? '')
    const selector = String(body['selector'] ?? body['value'] ?? '')
    let locator
    try {
      locator = compileLocator(strategy, selector)
    } catch (error) {
      throw new ServerError(
        400,
        'invalid selector',
        error instanceof Error ? error.message : String(error),
      )
    }
    const contextId = context ?? (typeof body['context'] === 'string' ? body['context'] : '')
    let found: UiNode[]
    if (contextId !== '' && contextId !== undefined) {
      const { node, root } = resolve(s, contextId)
      found = locator(root, node)
    } else {
      const root = hierarchy()
      found = locator(root, root)
    }
    if (multiple) return found.map((n) => wrap(s, n))
    const first = found[0]
    if (first === undefined) {
      throw noSuchElement(
        `An element could not be located on the page using the given search parameters`,
      )
    }
    return wrap(s, first)
  }

  const rectOf = (node: UiNode): Rect => node.rect ?? { x: 0, y: 0, width: 0, height: 0 }

  const attribute = (node: UiNode, root: UiNode, name: string): string | null => {
    const key = name === 'contentDescription' || name === 'content-desc' ? 'content-desc' : name
    if (key === 'displayed') return String(isDisplayed(node, screenSize(root)))
    if (key === 'resourceId' || key === 'resource-id') return node.attrs['resource-id'] ?? null
    if (key === 'className') return node.attrs['class'] ?? null
    if (key === 'bounds') return node.attrs['bounds'] ?? null
    return node.attrs[key] ?? null
  }

  /** W3C actions of one pointer: down/up in place is a tap, with movement a swipe. */
  const performActions = (s: Session, actions: unknown): void => {
    if (!Array.isArray(actions)) throw invalidArgument("'actions' must be an array")
    for (const sequence of actions as { type?: string; actions?: Record<string, unknown>[] }[]) {
      if (sequence.type === 'key') {
        const text = (sequence.actions ?? [])
          .filter((a) => a['type'] === 'keyDown' && typeof a['value'] === 'string')
          .map((a) => String(a['value']))
          .join('')
        if (text !== '') phone.sim.typeText(text)
        continue
      }
      if (sequence.type !== 'pointer') continue
      const gestures = pointerGestures(
        sequence.actions ?? [],
        (id) => centre(rectOf(resolve(s, id).node)),
        invalidArgument,
      )
      for (const g of gestures) {
        if (g.kind === 'tap') phone.sim.tap(g.x, g.y)
        else injectSwipe(phone, ...g.from, ...g.to)
      }
    }
  }

  const deviceInfo = (): Record<string, unknown> => {
    const [width, height] = phone.app.displayPx ?? [1080, 2400]
    const prop = (name: string): string => device.props.get(name) ?? ''
    return {
      androidId: prop('ro.serialno').toLowerCase(),
      manufacturer: prop('ro.product.manufacturer'),
      model: prop('ro.product.model'),
      brand: prop('ro.product.brand'),
      apiVersion: prop('ro.build.version.sdk'),
      platformVersion: prop('ro.build.version.release'),
      carrierName: '',
      realDisplaySize: `${width}x${height}`,
      displayDensity: Number(prop('ro.sf.lcd_density') || 420),
      networks: [],
      locale: 'en_US',
      timeZone: prop('persist.sys.timezone') || 'UTC',
      bluetooth: { state: 'OFF' },
    }
  }

  type Handler = (params: string[], body: Record<string, unknown>) => unknown
  const routes: [string, RegExp, Handler][] = []
  const route = (method: string, pattern: string, handler: Handler): void => {
    const source = pattern.replace(/:[a-z]+/g, '([^/]+)')
    routes.push([method, new RegExp(`^${source}/?$`), handler])
  }
  const S = '/session/:sid'
  const E = `${S}/element/:eid`

  route('GET', '/status', () => ({
    ready: true,
    message: 'UiAutomator2 Server is ready to accept commands',
    build: { version, versionCode: 0 },
  }))
  route('POST', '/session', (_p, body) => {
    const w3c = body['capabilities'] as
      { alwaysMatch?: Record<string, unknown>; firstMatch?: Record<string, unknown>[] } | undefined
    const caps = {
      ...(body['desiredCapabilities'] as Record<string, unknown> | undefined),
      ...w3c?.alwaysMatch,
      ...w3c?.firstMatch?.[0],
    }
    session = { id: randomUUID(), capabilities: caps, elements: new Map(), settings: {} }
    return { sessionId: session.id, capabilities: caps }
  })
  route('GET', '/sessions', () =>
    session === undefined ? [] : [{ id: session.id, capabilities: session.capabilities }],
  )
  route('GET', S, ([sid]) => requireSession(sid ?? '').capabilities)
  route('DELETE', S, ([sid]) => {
    requireSession(sid ?? '')
    session = undefined
    return null
  })
  route('POST', `${S}/element`, ([sid], body) => find(requireSession(sid ?? ''), body, false))
  route('POST', `${S}/elements`, ([sid], body) => find(requireSession(sid ?? ''), body, true))
  route('POST', `${E}/element`, ([sid, eid], body) =>
    find(requireSession(sid ?? ''), body, false, eid),
  )
  route('POST', `${E}/elements`, ([sid, eid], body) =>
    find(requireSession(sid ?? ''), body, true, eid),
  )
  route('POST', `${E}/click`, ([sid, eid]) => {
    const [x, y] = centre(rectOf(resolve(requireSession(sid ?? ''), eid ?? '').node))
    phone.sim.tap(x, y)
    return null
  })
  route('POST', `${E}/value`, ([sid, eid], body) => {
    const { node } = resolve(requireSession(sid ?? ''), eid ?? '')
    const [x, y] = centre(rectOf(node))
    phone.sim.tap(x, y)
    const text = Array.isArray(body['value'])
      ? (body['value'] as unknown[]).join('')
      : String(body['text'] ?? body['value'] ?? '')
    phone.sim.typeText(text)
    return null
  })
  route('POST', `${E}/clear`, ([sid, eid]) => {
    const { node } = resolve(requireSession(sid ?? ''), eid ?? '')
    const [x, y] = centre(rectOf(node))
    phone.sim.tap(x, y)
    phone.sim.clearText()
    return null
  })
  route('GET', `${E}/text`, ([sid, eid]) => {
    const { node } = resolve(requireSession(sid ?? ''), eid ?? '')
    return node.attrs['text'] ?? ''
  })
  route('GET', `${E}/name`, ([sid, eid]) => {
    const { node } = resolve(requireSession(sid ?? ''), eid ?? '')
    return node.attrs['class'] ?? ''
  })
  route('GET', `${E}/attribute/:name`, ([sid, eid, name]) => {
    const { node, root } = resolve(requireSession(sid ?? ''), eid ?? '')
    return attribute(node, root, decodeURIComponent(name ?? ''))
  })
  route('GET', `${E}/rect`, ([sid, eid]) =>
    rectOf(resolve(requireSession(sid ?? ''), eid ?? '').node),
  )
  route('GET', `${E}/location`, ([sid, eid]) => {
    const r = rectOf(resolve(requireSession(sid ?? ''), eid ?? '').node)
    return { x: r.x, y: r.y }
  })
  route('GET', `${E}/size`, ([sid, eid]) => {
    const r = rectOf(resolve(requireSession(sid ?? ''), eid ?? '').node)
    return { width: r.width, height: r.height }
  })
  route('GET', `${E}/screenshot`, ([sid, eid]) => {
    resolve(requireSession(sid ?? ''), eid ?? '')
    return encodePng(renderScreen(hierarchy())).toString('base64')
  })
  route('GET', `${S}/source`, ([sid]) => {
    requireSession(sid ?? '')
    return renderPageSource(hierarchy())
  })
  route('GET', `${S}/screenshot`, ([sid]) => {
    requireSession(sid ?? '')
    return encodePng(renderScreen(hierarchy())).toString('base64')
  })
  route('POST', `${S}/actions`, ([sid], body) => {
    performActions(requireSession(sid ?? ''), body['actions'])
    return null
  })
  route('DELETE', `${S}/actions`, ([sid]) => {
    requireSession(sid ?? '')
    return null
  })
  route('POST', `${S}/back`, ([sid]) => {
    requireSession(sid ?? '')
    phone.sim.keyevent(KEYCODE_BACK)
    return null
  })
  route('POST', `${S}/appium/device/press_keycode`, ([sid], body) => {
    requireSession(sid ?? '')
    const code = Number(body['keycode'])
    if (!Number.isInteger(code)) throw invalidArgument("'keycode' must be an integer")
    phone.sim.keyevent(code)
    return null
  })
  route('POST', `${S}/appium/device/long_press_keycode`, ([sid], body) => {
    requireSession(sid ?? '')
    phone.sim.keyevent(Number(body['keycode']))
    return null
  })
  route('GET', `${S}/appium/device/info`, ([sid]) => {
    requireSession(sid ?? '')
    return deviceInfo()
  })
  route(
    'GET',
    `${S}/appium/device/pixel_ratio`,
    () => Number(device.props.get('ro.sf.lcd_density') || 420) / 160,
  )
  route('GET', `${S}/appium/device/system_bars`, () => {
    const [width] = phone.app.displayPx ?? [1080, 2400]
    return { statusBar: { visible: true, x: 0, y: 0, width, height: 63 } }
  })
  route('GET', `${S}/appium/device/display_density`, () =>
    Number(device.props.get('ro.sf.lcd_density') || 420),
  )
  route('GET', `${S}/window/:handle/size`, ([sid]) => {
    requireSession(sid ?? '')
    return screenSize(hierarchy())
  })
  route('GET', `${S}/window/rect`, ([sid]) => {
    requireSession(sid ?? '')
    return { x: 0, y: 0, ...screenSize(hierarchy()) }
  })
  route('GET', `${S}/orientation`, () => 'PORTRAIT')
  route('GET', `${S}/rotation`, () => ({ x: 0, y: 0, z: 0 }))
  route('GET', `${S}/alert/text`, () => {
    throw new ServerError(
      404,
      'no such alert',
      'An attempt was made to operate on a modal dialog when one was not open',
    )
  })
  route('GET', `${S}/appium/settings`, ([sid]) => requireSession(sid ?? '').settings)
  route('POST', `${S}/appium/settings`, ([sid], body) => {
    const s = requireSession(sid ?? '')
    Object.assign(s.settings, (body['settings'] as Record<string, unknown> | undefined) ?? {})
    return null
  })
  route('POST', `${S}/appium/gestures/click`, ([sid], body) => {
    const s = requireSession(sid ?? '')
    const origin = body['origin'] as Record<string, unknown> | undefined
    const id = origin?.[ELEMENT_KEY] ?? origin?.['ELEMENT'] ?? body['elementId']
    const offset = body['offset'] as { x?: number; y?: number } | undefined
    if (typeof id === 'string') {
      const r = rectOf(resolve(s, id).node)
      const [x, y] =
        offset?.x === undefined ? centre(r) : [r.x + (offset.x ?? 0), r.y + (offset.y ?? 0)]
      phone.sim.tap(Math.round(x), Math.round(y))
    } else if (offset?.x !== undefined && offset.y !== undefined) {
      phone.sim.tap(Math.round(offset.x), Math.round(offset.y))
    } else throw invalidArgument('Either element id or offset must be provided')
    return null
  })
  /** The element (`origin`) or `area` a gesture acts on, and its direction. */
  const gestureTarget = (
    sid: string | undefined,
    body: Readonly<Record<string, unknown>>,
    what: string,
  ): { r: Rect; direction: SwipeDirection; percent: number } => {
    const s = requireSession(sid ?? '')
    const origin = body['origin'] as Record<string, unknown> | undefined
    const id = origin?.[ELEMENT_KEY] ?? origin?.['ELEMENT']
    const area = body['area'] as Rect | { left: number; top: number; width: number; height: number }
    const r: Rect =
      typeof id === 'string'
        ? rectOf(resolve(s, id).node)
        : 'left' in (area ?? {})
          ? {
              x: (area as { left: number }).left,
              y: (area as { top: number }).top,
              width: area.width,
              height: area.height,
            }
          : (area as Rect)
    const direction = String(body['direction'] ?? '').toLowerCase()
    if (!['up', 'down', 'left', 'right'].includes(direction)) {
      throw invalidArgument(`${what} direction must be one of: up, down, left, right`)
    }
    return { r, direction: direction as SwipeDirection, percent: Number(body['percent'] ?? 1) }
  }
  route('POST', `${S}/appium/gestures/swipe`, ([sid], body) => {
    const { r, direction, percent } = gestureTarget(sid, body, 'Swipe')
    injectSwipe(phone, ...swipeLine(r, direction, percent))
    return null
  })
  // `mobile: scrollGesture`: scrolling down moves the content up, as a swipe up does. The answer is
  // whether more is left to scroll; the simulated lists have no end to reach, and `false` keeps a
  // client's `while (scroll)` loop from running forever.
  const opposite = { up: 'down', down: 'up', left: 'right', right: 'left' } as const
  route('POST', `${S}/appium/gestures/scroll`, ([sid], body) => {
    const { r, direction, percent } = gestureTarget(sid, body, 'Scroll')
    injectSwipe(phone, ...swipeLine(r, opposite[direction], percent))
    return false
  })
  route('GET', `${S}/appium/element/:eid/first_visible`, ([sid, eid]) => {
    const s = requireSession(sid ?? '')
    const { node, root } = resolve(s, eid ?? '')
    const first = descendants(node).find((n) => n !== node && isDisplayed(n, screenSize(root)))
    if (first === undefined) throw noSuchElement('Could not find a visible child')
    return wrap(s, first)
  })

  const reply = (res: ServerResponse, status: number, sid: string | null, value: unknown) => {
    const text = JSON.stringify({ sessionId: sid, value })
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
    })
    res.end(text)
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = []
    let size = 0
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
      res.setHeader('Connection', 'close')
      reply(res, 413, null, { error: 'invalid argument', message: 'request body too large' })
      return
    }
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        res.setHeader('Connection', 'close')
        reply(res, 413, null, { error: 'invalid argument', message: 'request body too large' })
        return
      }
      chunks.push(chunk)
    }
    const path = (req.url ?? '/').split('?')[0]?.replace(/^\/wd\/hub/, '') || '/'
    const method = req.method ?? 'GET'
    let body: Record<string, unknown> = {}
    if (size > 0) {
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>
      } catch {
        reply(res, 400, null, {
          error: 'invalid argument',
          message: 'The request body is not valid JSON',
        })
        return
      }
    }
    const sidMatch = /^\/session\/([^/]+)/.exec(path)
    const sid = sidMatch?.[1] ?? null
    for (const [m, pattern, handler] of routes) {
      if (m !== method) continue
      const match = pattern.exec(path)
      if (match === null) continue
      try {
        const value = handler(match.slice(1), body)
        const resultSid = path === '/session' && method === 'POST' ? (session?.id ?? null) : sid
        reply(res, 200, resultSid, value ?? null)
      } catch (error) {
        if (error instanceof ServerError) {
          reply(res, error.status, sid, {
            error: error.error,
            message: error.message,
            stacktrace: `io.appium.uiautomator2.common.exceptions.${error.error.replace(/(^| )(\w)/g, (_m, _s, c: string) => c.toUpperCase())}Exception: ${error.message}`,
          })
        } else {
          const message = error instanceof Error ? error.message : String(error)
          reply(res, 500, sid, { error: 'unknown error', message, stacktrace: message })
        }
      }
      return
    }
    reply(res, 404, sid, {
      error: 'unknown command',
      message:
        'The requested resource could not be found, or a request was received using an HTTP method that is not supported by the mapped resource',
      stacktrace: `${method} ${path}`,
    })
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        reply(res, 500, null, { error: 'unknown error', message: String(error) })
    })
  })
  http.keepAliveTimeout = 5000
  return {
    accept(connection) {
      http.emit('connection', connection)
    },
    close() {
      session = undefined
      http.closeAllConnections()
    },
  }
}
