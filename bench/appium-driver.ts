/**
 * `npx tsx bench/appium-driver.ts`: what a WebdriverIO command costs through Appium against the
 * virtual device (both in this process, as in the demo), with Appium's UiAutomator2 driver (the
 * default: adb client → forwarded port → the phone's emulated UiAutomator2 server) next to the
 * project's VirtualDevice driver (a `uiautomator dump` over adb per lookup), in one run:
 *   1. Appium start (startAppiumServer) and session creation, first and second session (the first
 *      UiAutomator2 session installs the driver's server APKs and settings helper)
 *   2. median wall time per command over N runs: findElement, find + click, getText, click,
 *      getPageSource, takeScreenshot
 *   3. reference: the same `uiautomator dump && cat` over adbkit directly
 * Prints figures only; nothing here is asserted.
 */
import { remote } from 'webdriverio'
import { connectAdb, shellScript } from '../src/device/index.js'
import { startVirtualDevice } from '../src/virtual-device/index.js'
import { startAppiumServer } from '../src/session/appium-server.js'

const N = Number(process.env['APPIUM_BENCH_RUNS'] ?? 40)

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2
}

async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - t0) / 1e6
}

async function medianOf(fn: () => Promise<unknown>): Promise<number> {
  await fn() // warm-up
  const times: number[] = []
  for (let i = 0; i < N; i++) times.push(await timeMs(fn))
  return median(times)
}

const vd = await startVirtualDevice({ devices: 1 })
let appium: Awaited<ReturnType<typeof startAppiumServer>> | undefined

async function session(port: number, automationName: string): Promise<WebdriverIO.Browser> {
  return remote({
    hostname: '127.0.0.1',
    port,
    logLevel: 'silent',
    capabilities: {
      platformName: 'Android',
      'appium:automationName': automationName,
      'appium:udid': vd.serials[0],
      'appium:appPackage': 'com.example.trails',
      'appium:appActivity': '.MainActivity',
      'appium:adbPort': vd.port,
      'appium:skipLogcatCapture': true,
    } as WebdriverIO.Capabilities,
  })
}

/** Session creations (first and second) and command medians with one driver. */
async function measure(port: number, automationName: string): Promise<[string, number][]> {
  let first: WebdriverIO.Browser | undefined
  const firstMs = await timeMs(async () => {
    first = await session(port, automationName)
  })
  await first?.deleteSession()
  let browser: WebdriverIO.Browser | undefined
  const secondMs = await timeMs(async () => {
    browser = await session(port, automationName)
  })
  if (browser === undefined) throw new Error('no session')
  const b = browser
  const el = (await b.findElement('accessibility id', 'refresh')) as unknown as Record<
    string,
    string
  >
  const id = el['element-6066-11e4-a52e-4f735466cecf'] ?? ''
  const rows: [string, number][] = [
    ['session creation, first', firstMs],
    ['session creation, second', secondMs],
    [
      'findElement (accessibility id)',
      await medianOf(() => b.findElement('accessibility id', 'refresh')),
    ],
    [
      'findElement (xpath)',
      await medianOf(() => b.findElement('xpath', '//android.widget.Button[@text="Refresh"]')),
    ],
    [
      'find + click (accessibility id)',
      await medianOf(async () => {
        const found = (await b.findElement('accessibility id', 'refresh')) as unknown as Record<
          string,
          string
        >
        await b.elementClick(found['element-6066-11e4-a52e-4f735466cecf'] ?? '')
      }),
    ],
    ['getText', await medianOf(() => b.getElementText(id))],
    ['click', await medianOf(() => b.elementClick(id))],
    ['getPageSource', await medianOf(() => b.getPageSource())],
    ['takeScreenshot (1080x2400 PNG)', await medianOf(() => b.takeScreenshot())],
  ]
  await b.deleteSession()
  return rows
}

try {
  const startMs = await timeMs(async () => {
    appium = await startAppiumServer({ userAppiumHome: false })
  })
  if (appium === undefined) throw new Error('Appium did not start')
  const uia2 = await measure(appium.port, 'UiAutomator2')
  const virtual = await measure(appium.port, 'VirtualDevice')
  const adb = await connectAdb({ port: vd.port })
  const device = adb.device(vd.serials[0] ?? '')
  const rawMs = await medianOf(() =>
    shellScript(
      device,
      'uiautomator dump /data/local/tmp/d.xml >/dev/null && cat /data/local/tmp/d.xml',
    ),
  )
  console.log(`Appium start (in-process, temp APPIUM_HOME): ${startMs.toFixed(0)} ms`)
  console.log(`median of ${N} runs per command (session creations: one each):`)
  console.log(
    `  ${'figure'.padEnd(34)} ${'UiAutomator2'.padStart(14)} ${'VirtualDevice'.padStart(14)}`,
  )
  uia2.forEach(([name, ms], i) => {
    const other = virtual[i]?.[1] ?? NaN
    console.log(
      `  ${name.padEnd(34)} ${`${ms.toFixed(1)} ms`.padStart(14)} ${`${other.toFixed(1)} ms`.padStart(14)}`,
    )
  })
  console.log(`reference: raw uiautomator dump + cat over adbkit: ${rawMs.toFixed(1)} ms`)
} finally {
  await appium?.close()
  await vd.close()
}
