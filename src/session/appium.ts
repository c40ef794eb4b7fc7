/**
 * The test process's WebdriverIO session on its phone, through the run's Appium server. Started
 * and ended holding the phone's lease: a session's start launches the app and its end force-stops
 * it, which must never happen inside another worker's test on the same phone.
 *
 * UiAutomator2 allows one session per phone: a worker that starts its session on a phone ends the
 * session of any other worker there (the driver terminates it), and a session idle past Appium's
 * new-command timeout ends too (a worker that waited long for the phone). So each time a worker
 * takes the phone for a test, its session is checked and, when gone, started again in place
 * (WebdriverIO's reloadSession: the `driver` object the tests hold stays valid).
 */
import { connect } from 'node:net'
import { EnergyError } from '../model/index.js'
import { defaultAutomationName } from './appium-server.js'
import { closeDriver, createDriver } from './driver.js'
import type { DeviceSession } from './device-session.js'

export async function startDriver(device: DeviceSession): Promise<WebdriverIO.Browser> {
  const appium = device.target.appium
  const options = device.options.appium
  if (appium === undefined || options === false) {
    throw new EnergyError({
      code: 'E_APPIUM_DISABLED',
      message:
        'the driver fixture needs an Appium server, and this run started none (appium: false)',
      hint: 'Remove `appium: false` from the vitest-energy plugin options.',
    })
  }
  const systemPort = await systemPortOf(device)
  const browser = await device.withLease('starting the Appium session', () =>
    createDriver({
      appiumHost: appium.host,
      appiumPort: appium.port,
      serial: device.serial,
      app: device.options.app,
      ...(options.appActivity === null ? {} : { appActivity: options.appActivity }),
      automationName: options.automationName ?? defaultAutomationName(device.target.virtual),
      adbHost: device.phone.host,
      adbPort: device.phone.port,
      capabilities: { ...systemPort, ...options.capabilities },
    }),
  )
  const url = `http://${appium.host}:${appium.port}`
  sessions.set(
    browser,
    device.onLease(async () => {
      if (await sessionAlive(url, browser.sessionId)) return
      await browser.reloadSession()
    }),
  )
  return browser
}

/** The UiAutomator2 server's ports on the host side: the driver's own range. */
const SYSTEM_PORT_FIRST = 8200

/**
 * On a lab host's adb server, the UiAutomator2 driver's port forward listens on that host, where
 * Appium cannot see which ports another runner's sessions use (it checks this machine's): two
 * runners forwarding one port replace each other's forward, and one's session end removes the
 * other's. So a lab's shared store hands each runner's process a port of its own on that host,
 * one free on this machine too (the driver checks it here).
 * Without a store (one machine's runs), a phone there gets 8200 + its place among its server's
 * phones.
 */
async function systemPortOf(device: DeviceSession): Promise<Record<string, number>> {
  const { host, port } = device.phone
  if (host === '127.0.0.1' || host === 'localhost' || host === '::1') return {}
  const reserved = await device.reserveForwardPort(nothingListensHere)
  if (reserved !== undefined) return { 'appium:systemPort': reserved }
  const onServer = device.target.phones
    .filter((p) => p.host === host && p.port === port)
    .map((p) => p.serial)
    .sort()
  return { 'appium:systemPort': SYSTEM_PORT_FIRST + onServer.indexOf(device.phone.serial) }
}

/**
 * Whether nothing on this machine accepts connections on 127.0.0.1:`port`: the driver checks this
 * before it forwards (a local Appium session of another project may be using the port).
 */
function nothingListensHere(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.setTimeout(1000)
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', () => resolve(true))
    socket.once('timeout', () => {
      socket.destroy()
      resolve(true)
    })
  })
}

const sessions = new WeakMap<WebdriverIO.Browser, () => void>()

/** Whether Appium still has the session (`GET /session/:id` answers 200). */
async function sessionAlive(url: string, sessionId: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/session/${sessionId}`, {
      signal: AbortSignal.timeout(10_000),
    })
    await response.arrayBuffer()
    return response.ok
  } catch {
    return false
  }
}

export async function endDriver(
  device: DeviceSession,
  browser: WebdriverIO.Browser,
): Promise<void> {
  sessions.get(browser)?.()
  sessions.delete(browser)
  await device.withLease('ending the Appium session', () => closeDriver(browser))
}
