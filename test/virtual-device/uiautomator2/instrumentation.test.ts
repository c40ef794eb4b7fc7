// A second `am instrument` of the UiAutomator2 server (another Appium server starting a session on
// the phone) replaces the first, as ActivityManager's startInstrumentation does: the running
// server's process is killed and its `am instrument -w` ends; the new server runs in a process of
// its own, which the first one's end leaves alone.
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { expect, test } from 'vitest'
import { SERVER_APK, SERVER_TEST_APK } from '../_driver-apks.js'
import { harness } from '../commands/_harness.js'

const INSTRUMENT =
  'am instrument -w io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner'

test('a second instrumentation kills the first and serves port 6790 alone', async () => {
  const h = harness()
  for (const apk of [SERVER_APK, SERVER_TEST_APK]) {
    const path = `/data/local/tmp/${basename(apk)}`
    h.device.fs.writeFile(path, readFileSync(apk), 0o644)
    await h.sh(`pm install -r ${path}`)
  }
  let firstEnded = false
  const first = h.sh(INSTRUMENT).finally(() => (firstEnded = true))
  await new Promise((r) => setTimeout(r, 10))
  const firstPid = (await h.sh('pidof io.appium.uiautomator2.server')).out.trim()
  const firstListener = h.device.tcpListeners.get(6790)
  expect(firstPid).toMatch(/^\d+$/)

  const second = h.sh(INSTRUMENT)
  expect((await first).out).toContain('INSTRUMENTATION_CODE: 0')
  expect(firstEnded).toBe(true)
  await new Promise((r) => setTimeout(r, 10))
  const secondPid = (await h.sh('pidof io.appium.uiautomator2.server')).out.trim()
  expect(secondPid).toMatch(/^\d+$/)
  expect(secondPid).not.toBe(firstPid)
  // The first one's end did not take the port from the second.
  expect(h.device.tcpListeners.get(6790)).toBeDefined()
  expect(h.device.tcpListeners.get(6790)).not.toBe(firstListener)

  await h.sh('am force-stop io.appium.uiautomator2.server')
  await second
  expect(h.device.tcpListeners.get(6790)).toBeUndefined()
})
