/**
 * The unmodified UiAutomator2 driver from npm drives the virtual device as it drives a phone: a
 * plain `appium server` child process (no vitest-energy code), the Debian `adb` client the driver
 * shells out to, and a WebdriverIO script that knows only the ports (test/fixtures/
 * uiautomator2-check/check.mjs). What the script saw is checked against what the phone received.
 */
import { spawn, execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startVirtualDevice, type VirtualDeviceServer } from '../../../src/virtual-device/index.js'
import { findOnPath, freePort } from '../../../src/session/appium-server.js'

const require = createRequire(import.meta.url)
const adb = findOnPath('adb')
const CHECK = fileURLToPath(new URL('../../fixtures/uiautomator2-check/check.mjs', import.meta.url))

let vd: VirtualDeviceServer
let home: string
let appiumPort: number
let appium: ReturnType<typeof spawn> | undefined
let appiumLog = ''

beforeAll(async () => {
  if (adb === undefined) throw new Error('this test needs the adb client: apt-get install adb')
  vd = await startVirtualDevice({ devices: 1 })
  home = await mkdtemp(join(tmpdir(), 'uia2-independent-'))
  await mkdir(join(home, 'node_modules'), { recursive: true })
  await symlink(
    dirname(require.resolve('appium-uiautomator2-driver/package.json')),
    join(home, 'node_modules', 'appium-uiautomator2-driver'),
  )
  await mkdir(join(home, 'sdk', 'platform-tools'), { recursive: true })
  await symlink(adb, join(home, 'sdk', 'platform-tools', 'adb'))
  appiumPort = await freePort()
  const main = join(dirname(require.resolve('appium/package.json')), 'index.js')
  appium = spawn(
    process.execPath,
    [main, 'server', '--address', '127.0.0.1', '--port', String(appiumPort)],
    {
      env: { ...process.env, APPIUM_HOME: home, ANDROID_HOME: join(home, 'sdk') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  appium.stdout?.on('data', (d: Buffer) => (appiumLog += d.toString()))
  appium.stderr?.on('data', (d: Buffer) => (appiumLog += d.toString()))
  for (let i = 0; ; i++) {
    try {
      const status = await fetch(`http://127.0.0.1:${appiumPort}/status`)
      if (status.ok) break
    } catch {
      // not listening yet
    }
    if (i > 300) throw new Error(`appium did not start:\n${appiumLog}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}, 60_000)

afterAll(async () => {
  appium?.kill('SIGTERM')
  await vd?.close()
  if (home !== undefined) await rm(home, { recursive: true, force: true })
})

test('a plain WebdriverIO script drives the virtual phone through UiAutomator2', async () => {
  const serial = vd.serials[0]!
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [CHECK, String(appiumPort), String(vd.port), serial],
    { timeout: 90_000 },
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\nAppium log:\n${appiumLog.slice(-4000)}`)
  })
  const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>
  expect(result).toMatchObject({
    platformVersion: '13',
    deviceModel: 'Pixel 6 (virtual)',
    activity: '.MainActivity',
    feedListDisplayed: true,
    title: 'Trails',
    titleAfterClick: 'Settings',
    typed: 'ada',
    pageSourceHasUsername: true,
    screenshotPngSignature: '89504e470d0a1a0a',
    missing: false,
  })
  expect(result['serverStatus']).toMatchObject({
    value: { ready: true, message: 'UiAutomator2 Server is ready to accept commands' },
  })
  // One forward, as the adb client prints the server's list (its own newline after the last line).
  expect(String(result['forwards'])).toMatch(new RegExp(`^${serial} tcp:\\d+ tcp:6790\\n\\n$`))
  expect(String(result['pageSourceStart'])).toMatch(/^<\?xml version='1\.0'.*<hierarchy/s)
  expect(Number(result['screenshotBytes'])).toBeGreaterThan(1000)

  // What the phone received: the driver installed its server and started it by instrumentation,
  // launched the app by its launcher activity (resolved on the phone), and the app saw the input.
  const { device, phone } = vd.devices[0]!
  const commands = device.commandLog.join('\n')
  // Debian's adb client installs by pushing the APK and running the package manager on it.
  expect(commands).toContain("pm 'install' '-r' '/data/local/tmp/appium-uiautomator2-server-v")
  expect(commands).toContain(
    'am instrument -w -e disableAnalytics true io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner',
  )
  expect(commands).toMatch(/resolve-activity --brief .*com\.example\.trails/)
  const actions = phone.sim.actionLog.map((a) => a.replace(/ @\d+$/, ''))
  expect(actions).toEqual(
    expect.arrayContaining(['tap feed-list', 'tap settings', 'tap username', 'text "ada"']),
  )
  // The session ended: the server's instrumentation stopped and its port is closed again.
  expect(device.tcpListeners.size).toBe(0)
}, 120_000)
