/**
 * The VirtualDevice driver end to end: a real Appium 3 server (started in-process by
 * startAppiumServer), real WebdriverIO clients, and two real virtual devices behind an ADB server.
 * Every command the driver claims is exercised and checked on the device side through its
 * commandLog (what reached the phone over ADB) and the simulation's actionLog (what the app saw).
 */
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { remote } from 'webdriverio'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { connectAdb, shell } from '../../../src/device/index.js'
import { isEnergyError } from '../../../src/model/index.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../../src/virtual-device/index.js'
import { startAppiumServer, type AppiumServer } from '../../../src/session/appium-server.js'
import { closeDriver, createDriver } from '../../../src/session/driver.js'

const PKG = 'com.example.trails'
let vd: VirtualDeviceServer
let appium: AppiumServer

beforeAll(async () => {
  vd = await startVirtualDevice({ devices: 2 })
  // In a checkout Appium loads the driver's TypeScript through tsx, whose compile cache would
  // stay behind in $TMPDIR/tsx-<uid>; read when tsx loads, so set before Appium starts.
  vi.stubEnv('TSX_DISABLE_CACHE', '1')
  // Default APPIUM_HOME resolution, as the `appium` command does it from this checkout.
  appium = await startAppiumServer()
  expect(appium.drivers[0]).toBe('virtual-device')
  expect(appium.host).toBe('127.0.0.1')
}, 60_000)

afterAll(async () => {
  await appium?.close()
  await vd?.close()
  vi.unstubAllEnvs()
})

const serial = (i: number): string => vd.serials[i]!
const commandLog = (i: number): string[] => vd.devices[i]!.device.commandLog
const actionLog = (i: number): string[] => vd.devices[i]!.phone.sim.actionLog

function open(i: number, extra: Record<string, unknown> = {}): Promise<WebdriverIO.Browser> {
  return createDriver({
    appiumPort: appium.port,
    serial: serial(i),
    app: PKG,
    appActivity: '.MainActivity',
    automationName: 'VirtualDevice',
    adbPort: vd.port,
    logLevel: 'silent',
    capabilities: extra,
  })
}

/** Runs `fn` and returns what the device received meanwhile. */
async function received<T>(
  i: number,
  fn: () => Promise<T>,
): Promise<{ value: T; commands: string[]; actions: string[] }> {
  const c0 = commandLog(i).length
  const a0 = actionLog(i).length
  const value = await fn()
  // The device layer appends `; echo "<exit marker>$?"` to every command line: strip it.
  const commands = commandLog(i)
    .slice(c0)
    .map((c) => c.replace(/; echo "__VE_E[\s\S]*$/, ''))
  return { value, commands, actions: actionLog(i).slice(a0) }
}

/** The W3C error of a raw WebDriver call. */
async function w3cError(fn: () => Promise<unknown>): Promise<{ name: string; message: string }> {
  let value: unknown
  try {
    value = await fn()
  } catch (error) {
    const e = error as Error
    return { name: e.name, message: e.message }
  }
  // WebdriverIO resolves findElement's `no such element` with the error object instead of throwing.
  const v = value as { error?: unknown; message?: unknown } | null
  if (typeof v?.error === 'string') return { name: v.error, message: String(v.message) }
  throw new Error('expected a WebDriver error')
}

const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf'

const sessionError = async (options: Parameters<typeof createDriver>[0]) => {
  try {
    await createDriver(options)
  } catch (error) {
    return error
  }
  throw new Error('expected createDriver to fail')
}

describe('VirtualDevice driver through Appium and WebdriverIO', () => {
  let browser: WebdriverIO.Browser

  beforeAll(async () => {
    const { value, commands, actions } = await received(0, () => open(0))
    browser = value
    // Session start: the app is launched the way appium-adb does it (stop first, wait for it).
    expect(commands).toContain(`am start -W -S -n ${PKG}/.MainActivity`)
    expect(actions.some((a) => a.startsWith('launch pid='))).toBe(true)
  }, 30_000)

  afterAll(async () => {
    if (browser !== undefined) {
      const { commands } = await received(0, () => closeDriver(browser))
      expect(commands).toContain(`am force-stop ${PKG}`)
    }
  })

  test('capabilities are reported back', async () => {
    const caps = browser.capabilities as Record<string, unknown>
    expect(caps['platformName']).toMatch(/android/i)
    expect(caps['automationName'] ?? caps['appium:automationName']).toBe('VirtualDevice')
  })

  test('find by accessibility id, id (short and full), xpath, class name, UiSelector', async () => {
    const idOf = async (strategy: string, selector: string) => {
      const el = (await browser.findElement(strategy, selector)) as unknown as Record<
        string,
        string
      >
      expect(el[ELEMENT], `${strategy} ${selector}`).toBeTypeOf('string')
      return browser.getElementAttribute(el[ELEMENT]!, 'resource-id')
    }
    const refresh = `${PKG}:id/refresh`
    expect(await idOf('accessibility id', 'refresh')).toBe(refresh)
    expect(await idOf('id', 'refresh')).toBe(refresh)
    expect(await idOf('id', refresh)).toBe(refresh)
    expect(await idOf('xpath', '//android.widget.Button[@text="Refresh"]')).toBe(refresh)
    expect(await idOf('xpath', '//*[contains(@content-desc, "fres")]')).toBe(refresh)
    expect(await idOf('class name', 'android.widget.Button')).toBe(refresh)
    expect(await idOf('-android uiautomator', 'new UiSelector().textContains("Refr")')).toBe(
      refresh,
    )
    // WebdriverIO's selector syntax maps onto the same strategies.
    expect(await browser.$('~refresh').getAttribute('resource-id')).toBe(refresh)
    expect(
      await browser.$('android=new UiSelector().text("Refresh")').getAttribute('resource-id'),
    ).toBe(refresh)
    expect(await browser.$('//*[@resource-id="com.example.trails:id/title"]').getText()).toBe(
      'Trails',
    )
  })

  test('findElements and finds from an element', async () => {
    const tabs = (await browser.findElements(
      'xpath',
      '//*[contains(@resource-id, "nav_")]',
    )) as unknown as Record<string, string>[]
    const descs = await Promise.all(
      tabs.map((t) => browser.getElementAttribute(t[ELEMENT]!, 'content-desc')),
    )
    expect(descs).toEqual(['feed', 'map', 'sync', 'settings', 'export'])
    expect(await browser.findElements('accessibility id', 'no-such-thing')).toEqual([])
    expect(await browser.$$('~refresh').length).toBe(1)
    const content = await browser.$('id=android:id/content')
    expect(await content.$('./android.widget.Button').getText()).toBe('Refresh')
    const inside = await browser.findElementsFromElement(
      await content.elementId,
      'class name',
      'android.widget.TextView',
    )
    expect(inside).toHaveLength(1)
  })

  test('invalid selectors are W3C invalid selector errors', async () => {
    const e1 = await w3cError(() => browser.findElement('xpath', '//*[@text="Sync"'))
    expect(e1.name).toBe('invalid selector')
    expect(e1.message).toContain('E_APPIUM_SELECTOR')
    const e2 = await w3cError(() =>
      browser.findElement('-android uiautomator', 'new UiSelector().fromParent(1)'),
    )
    expect(e2.name).toBe('invalid selector')
    const e3 = await w3cError(() => browser.findElement('css selector', 'button'))
    expect(e3.name).toBe('invalid selector')
  })

  test('element attributes, text, displayed, enabled, rect, tag name', async () => {
    const el = await browser.$('~refresh')
    expect(await el.getText()).toBe('Refresh')
    expect(await el.getTagName()).toBe('android.widget.Button')
    expect(await el.isDisplayed()).toBe(true)
    expect(await el.isEnabled()).toBe(true)
    expect(await browser.getElementRect(await el.elementId)).toEqual({
      x: 780,
      y: 80,
      width: 280,
      height: 150,
    })
    const attrs = Object.fromEntries(
      await Promise.all(
        [
          'text',
          'content-desc',
          'resource-id',
          'class',
          'enabled',
          'checked',
          'clickable',
          'bounds',
          'displayed',
          'package',
        ].map(
          async (name) =>
            [name, await browser.getElementAttribute(await el.elementId, name)] as const,
        ),
      ),
    )
    expect(attrs).toEqual({
      text: 'Refresh',
      'content-desc': 'refresh',
      'resource-id': `${PKG}:id/refresh`,
      class: 'android.widget.Button',
      enabled: 'true',
      checked: 'false',
      clickable: 'true',
      bounds: '[780,80][1060,230]',
      displayed: 'true',
      package: PKG,
    })
    expect(await browser.getElementAttribute(await el.elementId, 'no-such-attribute')).toBeNull()
  })

  test('click taps the centre of the bounds with input tap', async () => {
    const el = await browser.$('~refresh')
    const { commands, actions } = await received(0, () => el.click())
    expect(commands).toContain('input tap 920 155')
    expect(actions.some((a) => a.startsWith('tap refresh @'))).toBe(true)
  })

  test('navigation, setValue (escaped like appium-adb), clear, back, stale elements', async () => {
    const refresh = await browser.findElement('accessibility id', 'refresh')
    await browser.$('~settings').click()
    const username = await browser.$('id=username')
    const typed = await received(0, () => username.setValue("it's a trail"))
    expect(typed.commands).toContain("input text 'it'\\''s%sa%strail'")
    expect(typed.actions.some((a) => a.startsWith('text "it\'s a trail" @'))).toBe(true)
    // The simulated EditText does not keep typed text, so clear taps and deletes nothing here;
    // on a view with text it moves to the end and deletes as many characters as it has.
    const cleared = await received(0, () => username.clearValue())
    expect(cleared.commands).toContain('input tap 540 725')
    const title = await browser.$('id=title')
    const clearedTitle = await received(0, () => title.clearValue())
    expect(clearedTitle.commands).toContain(`input keyevent 123 ${Array(8).fill(67).join(' ')}`)
    // The feed's refresh button is gone from this screen: its reference is stale.
    const stale = await w3cError(() =>
      browser.getElementText((refresh as unknown as Record<string, string>)[ELEMENT]!),
    )
    expect(stale.name).toBe('stale element reference')
    const back = await received(0, () => browser.back())
    expect(back.commands).toContain('input keyevent 4')
    expect(await browser.$('~refresh').isExisting()).toBe(true)
  })

  test('page source in UiAutomator2 layout', async () => {
    const source = await browser.getPageSource()
    expect(source).toMatch(
      /^<\?xml version='1.0' encoding='UTF-8' standalone='yes' \?>\n<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">/,
    )
    expect(source).toContain(
      '<android.widget.Button index="2" text="Refresh" resource-id="com.example.trails:id/refresh" class="android.widget.Button"',
    )
    expect(source).toContain('displayed="true"')
  })

  test('screenshot is a PNG of the screen size; window rect', async () => {
    const png = Buffer.from(await browser.takeScreenshot(), 'base64')
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG')
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1080, 2400])
    expect(await browser.getWindowRect()).toEqual({ x: 0, y: 0, width: 1080, height: 2400 })
  })

  test('mobile: terminateApp / activateApp and their Appium routes', async () => {
    const stop = await received(0, () => browser.execute('mobile: terminateApp', { appId: PKG }))
    expect(stop.value).toBe(true)
    expect(stop.commands).toContain(`am force-stop ${PKG}`)
    expect(await browser.execute('mobile: terminateApp', { appId: PKG })).toBe(false)
    expect(await browser.$$('~refresh')).toHaveLength(0)
    const start = await received(0, () => browser.execute('mobile: activateApp', { appId: PKG }))
    expect(start.commands).toContain(`am start -W -n ${PKG}/.MainActivity`)
    expect(await browser.$('~refresh').isExisting()).toBe(true)
    expect(await browser.queryAppState(PKG)).toBe(4)
    expect(await browser.isAppInstalled(PKG)).toBe(true)
    expect(await browser.execute('mobile: isAppInstalled', { appId: 'com.not.installed' })).toBe(
      false,
    )
    expect(await browser.execute('mobile: queryAppState', { appId: 'com.not.installed' })).toBe(0)
    await browser.execute('mobile: pressKey', { keycode: 3 }) // HOME: the app goes to the background
    expect(await browser.queryAppState(PKG)).toBe(3)
    expect(await browser.terminateApp(PKG)).toBe(true)
    expect(await browser.queryAppState(PKG)).toBe(1)
    await browser.activateApp(PKG)
    expect(await browser.$('~refresh').isExisting()).toBe(true)
  })

  test('gestures: mobile: clickGesture / swipeGesture and W3C pointer actions', async () => {
    const list = await browser.$('~feed-list')
    const listId = await list.elementId
    // feed_list is [0,230][1080,2250]: half its height, centred, finger moving up, 5000 px/s.
    const swipe = await received(0, () =>
      browser.execute('mobile: swipeGesture', { elementId: listId, direction: 'up', percent: 0.5 }),
    )
    expect(swipe.commands).toContain('input swipe 540 1745 540 735 202')
    expect(swipe.actions.some((a) => a.startsWith('tap feed-list @'))).toBe(true)
    const area = await received(0, () =>
      browser.execute('mobile: swipeGesture', {
        left: 0,
        top: 230,
        width: 1080,
        height: 2020,
        direction: 'left',
        percent: 1,
        speed: 1080,
      }),
    )
    expect(area.commands).toContain('input swipe 1080 1240 0 1240 1000')
    const refreshId = await browser.$('~refresh').elementId
    const click = await received(0, () =>
      browser.execute('mobile: clickGesture', { elementId: refreshId }),
    )
    expect(click.commands).toContain('input tap 920 155')
    const tap = await received(0, () =>
      browser
        .action('pointer', { parameters: { pointerType: 'touch' } })
        .move({ x: 920, y: 155 })
        .down()
        .up()
        .perform(),
    )
    expect(tap.commands).toContain('input tap 920 155')
    const drag = await received(0, () =>
      browser
        .action('pointer', { parameters: { pointerType: 'touch' } })
        .move({ x: 540, y: 1800 })
        .down()
        .pause(100)
        .move({ x: 540, y: 600, duration: 200 })
        .up()
        .perform(),
    )
    expect(drag.commands).toContain('input swipe 540 1800 540 600 300')
    const bad = await w3cError(() =>
      browser.execute('mobile: swipeGesture', {
        elementId: listId,
        direction: 'sideways',
        percent: 0.5,
      }),
    )
    expect(bad.name).toBe('invalid argument')
    const keys = await w3cError(() => browser.keys('a'))
    expect(keys.name).toBe('unsupported operation')
  })

  test('device-side failures reach the client with our codes', async () => {
    // Screen off (KEYCODE_POWER toggles it): uiautomator dump has no root node.
    await browser.execute('mobile: pressKey', { keycode: 26 })
    try {
      const off = await w3cError(() => browser.getPageSource())
      expect(off.name).toBe('unknown error')
      expect(off.message).toContain('E_APPIUM_HIERARCHY')
      expect(off.message).toContain('null root node')
    } finally {
      await browser.execute('mobile: pressKey', { keycode: 26 })
    }
    expect(await browser.$('~refresh').isExisting()).toBe(true)
    // Another app's launcher goes through `monkey`, which the virtual device does not have.
    const other = await w3cError(() =>
      browser.execute('mobile: activateApp', { appId: 'com.other.app' }),
    )
    expect(other.name).toBe('unknown error')
    expect(other.message).toContain('E_APPIUM_DEVICE_COMMAND')
  })

  test('unsupported scripts and unknown mobile: methods', async () => {
    const js = await w3cError(() => browser.execute('return 1'))
    expect(js.name).toBe('unsupported operation')
    const mobile = await w3cError(() => browser.execute('mobile: flyToTheMoon', {}))
    expect(mobile.name).toBe('unsupported operation')
    expect(mobile.message).toContain('mobile: activateApp')
  })

  test('commands the driver does not implement, and unknown URLs, fail fast with W3C errors', async () => {
    // A route Appium knows but this driver does not implement: base-driver answers `unknown method`.
    const geo = await w3cError(() => browser.getGeoLocation())
    expect(geo.name).toBe('unknown method')
    // A URL no WebDriver route matches: `unknown command` (HTTP 404).
    const response = await fetch(`${appium.url}/session/${browser.sessionId}/no/such/command`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    })
    expect(response.status).toBe(404)
    const body = (await response.json()) as { value: { error: string } }
    expect(body.value.error).toBe('unknown command')
  })

  test('implicit wait: polls the hierarchy until the timeout, then no such element', async () => {
    await browser.setTimeout({ implicit: 600 })
    try {
      const { value, commands } = await received(0, () =>
        w3cError(() => browser.findElement('accessibility id', 'never-there')),
      )
      expect(value.name).toBe('no such element')
      expect(value.message).toContain('after waiting 600 ms')
      expect(commands.filter((c) => c.startsWith('uiautomator dump')).length).toBeGreaterThan(1)
    } finally {
      await browser.setTimeout({ implicit: 0 })
    }
  })

  test('implicit wait: finds an element that appears while waiting', async () => {
    await browser.setTimeout({ implicit: 20_000 })
    try {
      const adb = await connectAdb({ port: vd.port })
      // Another ADB client opens the sync screen while the driver is waiting for its button.
      const waiting = browser.findElement('accessibility id', 'sync-now')
      const dumpsBefore = commandLog(0).filter((c) => c.startsWith('uiautomator dump')).length
      while (
        commandLog(0).filter((c) => c.startsWith('uiautomator dump')).length <
        dumpsBefore + 2
      ) {
        await new Promise((r) => setTimeout(r, 20))
      }
      await shell(adb.device(serial(0)), ['input', 'tap', '540', '2300'])
      const el = (await waiting) as unknown as Record<string, string>
      expect(await browser.getElementText(el[ELEMENT]!)).toBe('Sync now')
    } finally {
      await browser.setTimeout({ implicit: 0 })
      await browser.back()
    }
  })
})

describe('sessions', () => {
  test('two sessions on two virtual devices in parallel stay on their own phone', async () => {
    const work = async (i: number, tab: string, button: string) => {
      const b = await open(i)
      try {
        await b.$(`~${tab}`).click()
        await b.$(`~${button}`).click()
        return await b.$(`~${button}`).getText()
      } finally {
        await closeDriver(b)
      }
    }
    const a0 = actionLog(0).length
    const a1 = actionLog(1).length
    const [t0, t1] = await Promise.all([
      work(0, 'map', 'start-tracking'),
      work(1, 'export', 'export-gpx'),
    ])
    expect([t0, t1]).toEqual(['Start tracking', 'Export GPX'])
    const taps0 = actionLog(0)
      .slice(a0)
      .filter((a) => a.startsWith('tap '))
    const taps1 = actionLog(1)
      .slice(a1)
      .filter((a) => a.startsWith('tap '))
    expect(taps0.map((a) => a.split(' ')[1])).toEqual(['map', 'start-tracking'])
    expect(taps1.map((a) => a.split(' ')[1])).toEqual(['export', 'export-gpx'])
  }, 30_000)

  test('noReset keeps the running app: no stop on start or end', async () => {
    const { value: b, commands } = await received(1, () => open(1, { 'appium:noReset': true }))
    expect(commands).toContain(`am start -W -n ${PKG}/.MainActivity`)
    expect(commands.some((c) => c.includes('-S'))).toBe(false)
    const end = await received(1, () => closeDriver(b))
    expect(end.commands.some((c) => c.startsWith('am force-stop'))).toBe(false)
    await closeDriver(b) // ending an ended session is harmless
  })

  test('a raw WebdriverIO remote() with appium:adbHost/adbPort capabilities', async () => {
    const b = await remote({
      hostname: '127.0.0.1',
      port: appium.port,
      logLevel: 'silent',
      capabilities: {
        platformName: 'Android',
        'appium:automationName': 'VirtualDevice',
        'appium:udid': serial(1),
        'appium:adbHost': '127.0.0.1',
        'appium:adbPort': vd.port,
      } as WebdriverIO.Capabilities,
    })
    try {
      // Without appPackage/appActivity the driver launches nothing and reads whatever is on screen.
      expect(await b.getPageSource()).toContain('<hierarchy')
    } finally {
      await b.deleteSession()
    }
  })

  test('refused sessions are E_APPIUM_SESSION with Appium’s reason', async () => {
    const base = {
      appiumPort: appium.port,
      app: PKG,
      automationName: 'VirtualDevice',
      adbPort: vd.port,
      logLevel: 'silent' as const,
    }
    // Two phones on the server and no udid: the driver will not guess.
    const ambiguous = await sessionError({
      ...base,
      serial: serial(0),
      capabilities: { 'appium:udid': undefined },
    })
    expect(isEnergyError(ambiguous) && ambiguous.code).toBe('E_APPIUM_SESSION')
    expect(String((ambiguous as Error).message)).toContain('2 devices are attached')
    const missing = await sessionError({ ...base, serial: 'no-such-serial' })
    expect(isEnergyError(missing) && missing.code).toBe('E_APPIUM_SESSION')
    expect(String((missing as Error).message)).toMatch(/no-such-serial/)
    const driver = await sessionError({
      ...base,
      serial: serial(0),
      automationName: 'NoSuchDriver',
    })
    expect(isEnergyError(driver) && driver.code).toBe('E_APPIUM_SESSION')
    const activity = await sessionError({
      ...base,
      serial: serial(0),
      appActivity: '.NoSuchActivity',
    })
    expect(isEnergyError(activity) && activity.code).toBe('E_APPIUM_SESSION')
    expect(String((activity as Error).message)).toContain('does not exist')
  })

  test('bad createDriver options are E_APPIUM_DRIVER_OPTIONS', async () => {
    const ok = { appiumPort: appium.port, serial: serial(0), app: PKG }
    for (const bad of [
      { ...ok, appiumPort: 0 },
      { ...ok, serial: '' },
      { ...ok, app: 'not a package' },
      { ...ok, adbPort: 70000 },
    ]) {
      const error = await sessionError(bad)
      expect(isEnergyError(error) && error.code).toBe('E_APPIUM_DRIVER_OPTIONS')
    }
  })
})

describe('startAppiumServer', () => {
  test('a second server in the same process also finds the user’s installed drivers', async () => {
    const home = await mkdtemp(join(tmpdir(), 'vitest-energy-user-appium-'))
    const pkg = join(home, 'node_modules', 'appium-fake-user-driver')
    await mkdir(pkg, { recursive: true })
    await writeFile(
      join(pkg, 'package.json'),
      JSON.stringify({
        name: 'appium-fake-user-driver',
        version: '1.0.0',
        main: 'index.js',
        appium: {
          driverName: 'fakeuser',
          automationName: 'FakeUser',
          platformNames: ['Android'],
          mainClass: 'FakeUserDriver',
        },
      }),
    )
    await writeFile(join(pkg, 'index.js'), 'exports.FakeUserDriver = undefined\n')
    const second = await startAppiumServer({ userAppiumHome: home })
    try {
      expect(second.port).not.toBe(appium.port)
      // The bundled UiAutomator2 driver comes after the user's own.
      expect(second.drivers).toEqual(['virtual-device', 'fakeuser', 'uiautomator2'])
      // Appium matched the automationName to the user's driver and tried to load its class.
      const error = await sessionError({
        appiumPort: second.port,
        serial: serial(0),
        app: PKG,
        automationName: 'FakeUser',
        logLevel: 'silent',
      })
      expect(isEnergyError(error) && error.code).toBe('E_APPIUM_SESSION')
      expect(String((error as Error).message)).toMatch(/FakeUserDriver|fakeuser/)
    } finally {
      await second.close()
      await rm(home, { recursive: true, force: true })
    }
    await expect(fetch(`${second.url}/status`)).rejects.toThrow()
    expect(existsSync(second.appiumHome), 'temporary APPIUM_HOME removed').toBe(false)
  }, 30_000)

  test('a busy port is E_APPIUM_SERVER_START (Appium itself would exit the process)', async () => {
    await expect(startAppiumServer({ port: appium.port })).rejects.toMatchObject({
      code: 'E_APPIUM_SERVER_START',
    })
  })

  test('an invalid port is E_INVALID_OPTION', async () => {
    await expect(startAppiumServer({ port: -1 })).rejects.toMatchObject({
      code: 'E_INVALID_OPTION',
    })
  })
})
