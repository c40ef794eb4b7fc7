// The package manager and the helper apps Appium's UiAutomator2 driver installs, through the shell:
// real APKs from the driver's npm packages, read back as the driver and adb read them.
import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { SERVER_APK, SERVER_TEST_APK, SETTINGS_APK } from '../_driver-apks.js'
import { harness } from './_harness.js'

function push(h: ReturnType<typeof harness>, path: string, file: string): void {
  h.device.fs.writeFile(path, readFileSync(file), 0o644)
}

test('pm install reads the manifest of a real APK; list, path, dumpsys and uninstall agree', async () => {
  const h = harness()
  push(h, '/data/local/tmp/settings.apk', SETTINGS_APK)
  expect(await h.sh("pm 'install' '-g' '/data/local/tmp/settings.apk'")).toMatchObject({
    out: 'Success\n',
    status: 0,
  })
  const listed = await h.sh('cmd package list packages --show-versioncode appium')
  expect(listed.out).toBe('package:io.appium.settings versionCode:191\n')
  expect((await h.sh('pm path io.appium.settings')).out).toMatch(
    /^package:\/data\/app\/~~[\w-]+==\/io\.appium\.settings-[\w-]+==\/base\.apk\n$/,
  )
  const dump = (await h.sh('dumpsys package io.appium.settings')).out
  expect(dump).toContain('    versionCode=191 minSdk=26 targetSdk=35\n')
  expect(dump).toContain('    versionName=8.0.9\n')
  expect(dump).toMatch(/flags=\[ HAS_CODE .*DEBUGGABLE \]/)
  // -g granted every permission the manifest requests.
  expect(dump).toMatch(/android\.permission\.ACCESS_FINE_LOCATION: granted=true/)
  expect(dump).not.toMatch(/granted=false/)
  expect(
    (await h.sh('pm revoke io.appium.settings android.permission.ACCESS_FINE_LOCATION')).status,
  ).toBe(0)
  expect((await h.sh('dumpsys package io.appium.settings')).out).toMatch(
    /ACCESS_FINE_LOCATION: granted=false/,
  )
  expect(await h.sh('pm uninstall io.appium.settings')).toMatchObject({
    out: 'Success\n',
    status: 0,
  })
  expect((await h.sh('pm list packages appium')).out).toBe('')
  expect(await h.sh('pm uninstall io.appium.settings')).toMatchObject({
    out: 'Failure [DELETE_FAILED_INTERNAL_ERROR]\n',
    status: 1,
  })
})

test('pm install refuses what a phone refuses, with the package manager’s codes', async () => {
  const h = harness()
  h.device.fs.writeFile('/data/local/tmp/not.apk', new TextEncoder().encode('not a zip'), 0o644)
  const notApk = await h.sh('pm install /data/local/tmp/not.apk')
  expect(notApk.status).toBe(1)
  expect(notApk.out).toMatch(
    /^Failure \[INSTALL_PARSE_FAILED_NOT_APK: Failed to parse \/data\/local\/tmp\/not\.apk: /,
  )
  const missing = await h.sh('pm install /data/local/tmp/none.apk')
  expect(missing.status).toBe(1)
  expect(missing.out).toContain('Failure [INSTALL_FAILED_INVALID_APK')
  const none = await h.sh('pm install')
  expect(none.status).toBe(255)
  expect(none.err).toContain('must either specify a package size or an APK file')
  // The simulated app and system packages stay.
  expect((await h.sh('pm uninstall com.example.trails')).status).toBe(1)
  expect((await h.sh('pm uninstall android')).status).toBe(1)
})

test('an older SDK refuses an APK whose minSdk is newer', async () => {
  const h = harness()
  h.device.props.set('ro.build.version.sdk', '25')
  push(h, '/data/local/tmp/settings.apk', SETTINGS_APK)
  const r = await h.sh('pm install /data/local/tmp/settings.apk')
  expect(r).toMatchObject({ status: 1 })
  expect(r.out).toContain(
    'Failure [INSTALL_FAILED_OLDER_SDK: Requires newer sdk version #26 (current version is #25)]',
  )
})

test('resolve-activity finds the launcher; clear stops the simulated app', async () => {
  const h = harness()
  const resolved = await h.sh(
    'cmd package resolve-activity --brief -c android.intent.category.LAUNCHER com.example.trails',
  )
  expect(resolved.out.split('\n').filter(Boolean).at(-1)).toBe('com.example.trails/.MainActivity')
  expect((await h.sh('cmd package resolve-activity --brief com.example.none')).out).toBe(
    'No activity found\n',
  )
  await h.sh('am start -W -n com.example.trails/.MainActivity')
  expect((await h.sh('pidof com.example.trails')).status).toBe(0)
  expect((await h.sh('pm clear com.example.trails')).out).toBe('Success\n')
  expect((await h.sh('pidof com.example.trails')).status).toBe(1)
  expect((await h.sh('pm clear com.example.none')).out).toBe('Failed\n')
})

test('the settings helper runs its foreground service once started; force-stop ends it', async () => {
  const h = harness()
  push(h, '/data/local/tmp/settings.apk', SETTINGS_APK)
  await h.sh('pm install -g /data/local/tmp/settings.apk')
  expect((await h.sh('dumpsys activity services io.appium.settings')).out).toContain('(nothing)')
  const started = await h.sh(
    'am start-activity -n io.appium.settings/.Settings -a android.intent.action.MAIN -c android.intent.category.LAUNCHER',
  )
  expect(started.out).toBe(
    'Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] cmp=io.appium.settings/.Settings }\n',
  )
  const services = (await h.sh('dumpsys activity services io.appium.settings')).out
  expect(services).toContain('io.appium.settings/.ForegroundService}')
  expect(services).toContain('isForeground=true')
  expect((await h.sh('pidof io.appium.settings')).status).toBe(0)
  await h.sh('am force-stop io.appium.settings')
  await new Promise((r) => setTimeout(r, 0))
  expect((await h.sh('dumpsys activity services io.appium.settings')).out).toContain('(nothing)')
  // An activity the APK does not declare.
  const missing = await h.sh('am start-activity -n io.appium.settings/.Nope')
  expect(missing.status).toBe(255)
  expect(missing.err).toContain(
    'Error: Activity class {io.appium.settings/io.appium.settings.Nope} does not exist.',
  )
})

test('am instrument of the UiAutomator2 server listens on port 6790 until stopped', async () => {
  const h = harness()
  const unknown = await h.sh(
    'am instrument -w io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner',
  )
  expect(unknown.status).toBe(1)
  expect(unknown.err).toContain(
    'INSTRUMENTATION_FAILED: io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner',
  )
  const testApk = '/data/local/tmp/appium-uiautomator2-server-debug-androidTest.apk'
  push(h, testApk, SERVER_TEST_APK)
  expect((await h.sh(`pm install -r ${testApk}`)).out).toBe('Success\n')
  const server = readFileSync(SERVER_APK)
  h.device.fs.writeFile('/data/local/tmp/server.apk', server, 0o644)
  expect((await h.sh('pm install -r /data/local/tmp/server.apk')).out).toBe('Success\n')
  expect((await h.sh('pm list instrumentation')).out).toBe(
    'instrumentation:io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner (target=io.appium.uiautomator2.server)\n',
  )
  const running = h.sh(
    'am instrument -w -e disableAnalytics true io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner',
  )
  await new Promise((r) => setTimeout(r, 10))
  expect(h.device.tcpListeners.has(6790)).toBe(true)
  expect((await h.sh('pidof io.appium.uiautomator2.server')).status).toBe(0)
  await h.sh('am force-stop io.appium.uiautomator2.server')
  const ended = await running
  expect(ended.status).toBe(0)
  expect(h.device.tcpListeners.has(6790)).toBe(false)
})

test('wm and ime answer as a Pixel 6 with Gboard', async () => {
  const h = harness()
  expect(await h.sh('wm size')).toMatchObject({ out: 'Physical size: 1080x2400\n', status: 0 })
  expect((await h.sh('wm density')).out).toMatch(/^Physical density: \d+\n$/)
  expect((await h.sh('wm nope')).status).toBe(255)
  const ime = 'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME'
  expect((await h.sh('ime list -s')).out).toBe(`${ime}\n`)
  expect((await h.sh(`ime set ${ime}`)).out).toBe(`Input method ${ime} selected for user #0\n`)
  const unknown = await h.sh('ime set io.appium.settings/.UnicodeIME')
  expect(unknown.status).toBe(255)
  expect(unknown.err).toContain('cannot be selected')
})

test('install sessions: create, write from a file or stdin, commit or abandon', async () => {
  const h = harness()
  push(h, '/data/local/tmp/settings.apk', SETTINGS_APK)
  const created = await h.sh('pm install-create -g -S 3076274')
  const id = /\[(\d+)\]/.exec(created.out)?.[1]
  expect(created.out).toBe(`Success: created install session [${id}]\n`)
  const written = await h.sh(`pm install-write ${id} base.apk /data/local/tmp/settings.apk`)
  expect(written.out).toBe('Success: streamed 3076274 bytes\n')
  expect(await h.sh(`pm install-commit ${id}`)).toMatchObject({ out: 'Success\n', status: 0 })
  expect((await h.sh('pm list packages appium')).out).toBe('package:io.appium.settings\n')
  // The declared size must match what came on stdin.
  const other = /\[(\d+)\]/.exec((await h.sh('pm install-create')).out)?.[1]
  const short = await h.sh(`pm install-write -S 10 ${other} base.apk -`, 'abc')
  expect(short.status).toBe(255)
  expect(short.err).toBe('Error: expected 10 bytes on stdin, got 3\n')
  expect((await h.sh(`pm install-abandon ${other}`)).out).toBe('Success\n')
  expect((await h.sh(`pm install-commit ${other}`)).out).toMatch(
    /^Failure \[INSTALL_FAILED_INTERNAL_ERROR: Unknown session/,
  )
  expect((await h.sh('pm install-write 42 base.apk -')).err).toBe('Error: unknown session 42\n')
})
