/**
 * `npx tsx bench/appium-driver.ts`: what a WebdriverIO command costs through Appium and the
 * VirtualDevice driver, against the virtual device (both in this process, as in the demo).
 *   1. Appium start (startAppiumServer) and session creation (includes the app's cold start)
 *   2. median wall time per command over N runs: findElement, getText, click, getPageSource,
 *      takeScreenshot
 *   3. reference: the same `uiautomator dump && cat` over adbkit directly, and the ratio
 *      findElement / raw dump (the driver's + Appium's + HTTP overhead)
 * Prints figures only; nothing here is asserted.
 */
import { remote } from 'webdriverio'
import { connectAdb, shellScript } from '../src/device/index.js'
import { startVirtualDevice } from '../src/virtual-device/index.js'
import { startAppiumServer } from '../src/vitest/appium-server.js'

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
try {
  const startMs = await timeMs(async () => {
    appium = await startAppiumServer({ userAppiumHome: false })
  })
  if (appium === undefined) throw new Error('Appium did not start')
  const port = appium.port
  let browser: WebdriverIO.Browser | undefined
  const sessionMs = await timeMs(async () => {
    browser = await remote({
      hostname: '127.0.0.1',
      port,
      logLevel: 'silent',
      capabilities: {
        platformName: 'Android',
        'appium:automationName': 'VirtualDevice',
        'appium:udid': vd.serials[0],
        'appium:appPackage': 'com.example.trails',
        'appium:appActivity': '.MainActivity',
        'appium:adbPort': vd.port,
      } as WebdriverIO.Capabilities,
    })
  })
  if (browser === undefined) throw new Error('no session')
  const b = browser
  const el = (await b.findElement('accessibility id', 'refresh')) as unknown as Record<
    string,
    string
  >
  const id = el['element-6066-11e4-a52e-4f735466cecf'] ?? ''
  const rows: [string, number][] = [
    [
      'findElement (accessibility id)',
      await medianOf(() => b.findElement('accessibility id', 'refresh')),
    ],
    [
      'findElement (xpath)',
      await medianOf(() => b.findElement('xpath', '//android.widget.Button[@text="Refresh"]')),
    ],
    ['getText', await medianOf(() => b.getElementText(id))],
    ['click', await medianOf(() => b.elementClick(id))],
    ['getPageSource', await medianOf(() => b.getPageSource())],
    ['takeScreenshot (1080x2400 PNG)', await medianOf(() => b.takeScreenshot())],
  ]
  const adb = await connectAdb({ port: vd.port })
  const device = adb.device(vd.serials[0] ?? '')
  const rawMs = await medianOf(() =>
    shellScript(
      device,
      'uiautomator dump /data/local/tmp/d.xml >/dev/null && cat /data/local/tmp/d.xml',
    ),
  )
  await b.deleteSession()
  console.log(`Appium start (in-process, temp APPIUM_HOME): ${startMs.toFixed(0)} ms`)
  console.log(`session creation (incl. am start -W cold start): ${sessionMs.toFixed(0)} ms`)
  console.log(`median of ${N} runs per command:`)
  for (const [name, ms] of rows) console.log(`  ${name.padEnd(34)} ${ms.toFixed(1)} ms`)
  console.log(`reference: raw uiautomator dump + cat over adbkit: ${rawMs.toFixed(1)} ms`)
  const find = rows[0]?.[1] ?? NaN
  console.log(`ratio findElement / raw dump: ${(find / rawMs).toFixed(2)}x`)
} finally {
  await appium?.close()
  await vd.close()
}
