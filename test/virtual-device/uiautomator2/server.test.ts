// The emulated UiAutomator2 server's HTTP API, spoken to directly on the phone's port 6790 (a
// loopback bridge stands in for `adb forward`): the real server's bodies and error shapes.
import { readFileSync } from 'node:fs'
import net from 'node:net'
import { basename } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { SERVER_APK, SERVER_TEST_APK } from '../_driver-apks.js'
import { harness, type Harness } from '../commands/_harness.js'

let h: Harness
let bridge: net.Server
let base: string
let running: Promise<unknown>

beforeAll(async () => {
  h = harness()
  for (const apk of [SERVER_APK, SERVER_TEST_APK]) {
    const path = `/data/local/tmp/${basename(apk)}`
    h.device.fs.writeFile(path, readFileSync(apk), 0o644)
    await h.sh(`pm install -r ${path}`)
  }
  await h.sh('am start -W -n com.example.trails/.MainActivity')
  running = h.sh(
    'am instrument -w io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner',
  )
  await new Promise((r) => setTimeout(r, 10))
  bridge = net.createServer((socket) => {
    const listener = h.device.tcpListeners.get(6790)
    if (listener === undefined) socket.destroy()
    else listener(socket)
  })
  await new Promise<void>((r) => bridge.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(bridge.address() as net.AddressInfo).port}`
})

afterAll(async () => {
  bridge.close()
  await h.sh('am force-stop io.appium.uiautomator2.server')
  await running
})

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    signal: AbortSignal.timeout(5000),
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  })
  return {
    status: response.status,
    // The server's values vary by route; the assertions below say what each must be.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    json: (await response.json()) as { sessionId: string | null; value: any },
  }
}

test('status, a session, finds and their errors in the server’s shapes', async () => {
  const status = await call('GET', '/status')
  expect(status).toMatchObject({
    status: 200,
    json: { value: { ready: true, build: { version: '10.6.6' } } },
  })
  const session = await call('POST', '/session', {
    capabilities: { firstMatch: [{ platformName: 'Android' }] },
  })
  const sid = session.json.sessionId
  expect(sid).toMatch(/^[0-9a-f-]{36}$/)
  expect(session.json.value.capabilities).toEqual({ platformName: 'Android' })

  const found = await call('POST', `/session/${sid}/element`, {
    strategy: 'accessibility id',
    selector: 'refresh',
  })
  const id = found.json.value.ELEMENT as string
  expect(found.json.value['element-6066-11e4-a52e-4f735466cecf']).toBe(id)
  expect(
    (await call('GET', `/session/${sid}/element/${id}/attribute/content-desc`)).json.value,
  ).toBe('refresh')
  expect((await call('GET', `/session/${sid}/element/${id}/rect`)).json.value).toEqual(
    expect.objectContaining({ width: expect.any(Number), height: expect.any(Number) }),
  )
  const none = await call('POST', `/session/${sid}/element`, { strategy: 'id', selector: 'nope' })
  expect(none.status).toBe(404)
  expect(none.json.value).toMatchObject({ error: 'no such element' })
  expect(none.json.value.stacktrace).toMatch(
    /^io\.appium\.uiautomator2\.common\.exceptions\.NoSuchElementException: /,
  )
  const bad = await call('POST', `/session/${sid}/element`, { strategy: 'xpath', selector: '//[' })
  expect(bad).toMatchObject({ status: 400, json: { value: { error: 'invalid selector' } } })
  const strategy = await call('POST', `/session/${sid}/element`, {
    strategy: 'css selector',
    selector: 'a',
  })
  expect(strategy).toMatchObject({ status: 400, json: { value: { error: 'invalid selector' } } })

  // Clicking the settings tab changes the screen: the refresh button's reference goes stale.
  const tab = await call('POST', `/session/${sid}/element`, {
    strategy: 'accessibility id',
    selector: 'settings',
  })
  expect(
    (await call('POST', `/session/${sid}/element/${tab.json.value.ELEMENT}/click`)).status,
  ).toBe(200)
  const stale = await call('GET', `/session/${sid}/element/${id}/text`)
  expect(stale).toMatchObject({
    status: 404,
    json: { value: { error: 'stale element reference' } },
  })
  const unknownElement = await call('GET', `/session/${sid}/element/not-an-id/text`)
  expect(unknownElement).toMatchObject({
    status: 404,
    json: { value: { error: 'no such element' } },
  })

  expect(await call('GET', `/session/${sid}/alert/text`)).toMatchObject({
    status: 404,
    json: { value: { error: 'no such alert' } },
  })
  expect(
    await call('POST', `/session/${sid}/appium/device/press_keycode`, { keycode: 'x' }),
  ).toMatchObject({
    status: 400,
    json: { value: { error: 'invalid argument' } },
  })
  expect(await call('GET', `/session/${sid}/nope`)).toMatchObject({
    status: 404,
    json: { sessionId: sid, value: { error: 'unknown command' } },
  })
  expect(await call('POST', `/session/${sid}/element`, '{not json')).toMatchObject({
    status: 400,
    json: { value: { error: 'invalid argument' } },
  })
  expect((await call('DELETE', `/session/${sid}`)).status).toBe(200)
  expect(await call('GET', `/session/${sid}/source`)).toMatchObject({
    status: 404,
    json: { value: { error: 'invalid session id' } },
  })
})

test('W3C pointer actions: a press and release on an element is a tap on it; an origin that is no element reference is an invalid argument', async () => {
  const sid = (
    await call('POST', '/session', { capabilities: { firstMatch: [{ platformName: 'Android' }] } })
  ).json.sessionId as string
  // The tab bar is on every screen (the test before left the settings screen open).
  const tab = await call('POST', `/session/${sid}/element`, {
    strategy: 'accessibility id',
    selector: 'settings',
  })
  expect(tab.status).toBe(200)
  const taps = (): number =>
    h.phone.sim.actionLog.filter((a) => a.startsWith('tap settings')).length
  const before = taps()
  const tap = await call('POST', `/session/${sid}/actions`, {
    actions: [
      {
        type: 'pointer',
        id: 'finger1',
        parameters: { pointerType: 'touch' },
        actions: [
          {
            type: 'pointerMove',
            duration: 0,
            origin: { 'element-6066-11e4-a52e-4f735466cecf': tab.json.value.ELEMENT },
            x: 0,
            y: 0,
          },
          { type: 'pointerDown', button: 0 },
          { type: 'pause', duration: 50 },
          { type: 'pointerUp', button: 0 },
        ],
      },
    ],
  })
  expect(tap.status).toBe(200)
  expect(taps()).toBe(before + 1)
  const bad = await call('POST', `/session/${sid}/actions`, {
    actions: [{ type: 'pointer', id: 'f', actions: [{ type: 'pointerMove', origin: { id: 7 } }] }],
  })
  expect(bad).toMatchObject({ status: 400, json: { value: { error: 'invalid argument' } } })
  expect((await call('DELETE', `/session/${sid}`)).status).toBe(200)
})

test('mobile: scrollGesture (POST /appium/gestures/scroll) scrolls a list as a swipe the other way does, answers false, and refuses a bad direction', async () => {
  const sid = (
    await call('POST', '/session', { capabilities: { firstMatch: [{ platformName: 'Android' }] } })
  ).json.sessionId as string
  const find = async (selector: string): Promise<string> =>
    (await call('POST', `/session/${sid}/element`, { strategy: 'accessibility id', selector })).json
      .value.ELEMENT as string
  await call('POST', `/session/${sid}/element/${await find('feed')}/click`)
  const list = await find('feed-list')
  const touches = (): number =>
    h.phone.sim.actionLog.filter((a) => a.startsWith('tap feed-list')).length
  const before = touches()
  const origin = { 'element-6066-11e4-a52e-4f735466cecf': list }
  const scroll = await call('POST', `/session/${sid}/appium/gestures/scroll`, {
    origin,
    direction: 'down',
    percent: 0.5,
  })
  expect(scroll).toMatchObject({ status: 200, json: { value: false } })
  expect(touches()).toBe(before + 1)
  const bad = await call('POST', `/session/${sid}/appium/gestures/scroll`, {
    origin,
    direction: 'sideways',
  })
  expect(bad).toMatchObject({ status: 400, json: { value: { error: 'invalid argument' } } })
  expect((await call('DELETE', `/session/${sid}`)).status).toBe(200)
})

test('a request body is bounded: 413 from its declared length, before it is sent', async () => {
  const head = await new Promise<string>((resolve, reject) => {
    const socket = net.connect((bridge.address() as net.AddressInfo).port, '127.0.0.1')
    let got = ''
    socket.on('data', (d: Buffer) => (got += d.toString()))
    socket.on('close', () => resolve(got))
    socket.on('error', reject)
    socket.write(
      'POST /session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9437184\r\n\r\n{',
    )
  })
  expect(head).toMatch(/^HTTP\/1\.1 413 /)
  expect(head).toContain('"error":"invalid argument"')
})
