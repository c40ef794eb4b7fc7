/**
 * The doctor's host checks with the package and adb-client lookups injected: a project without
 * the UiAutomator2 driver, a machine without an adb client, an SDK root without platform-tools.
 */
import { expect, test } from 'vitest'
import { plainScreen } from '../../reporter/screen.js'
import { resolveAdbAddress } from '../../src/cli/doctor/adb-address.js'
import { runDoctor, type DoctorOptions } from '../../src/cli/doctor/checks.js'
import { renderDoctorText } from '../../src/cli/doctor/render.js'
import type { AdbClientFinder, PackageFinder } from '../../src/cli/doctor/packages.js'
import { deadPort } from './_run.js'

const appiumOnly: PackageFinder = (name) =>
  name === 'appium'
    ? { name, version: '3.8.0', dir: '/p/node_modules/appium', from: 'project' }
    : undefined
const both: PackageFinder = (name) => ({
  name,
  version: '1.0.0',
  dir: `/p/node_modules/${name}`,
  from: 'vitest-energy',
})

async function hostChecks(findPackage: PackageFinder, findAdbClient: AdbClientFinder) {
  const options: DoctorOptions = {
    address: resolveAdbAddress({ port: String(await deadPort()) }, {}),
    cwd: '/p',
    findPackage,
    findAdbClient,
  }
  const report = await runDoctor(options)
  return Object.fromEntries(report.checks.map((c) => [c.id, c]))
}

test('the UiAutomator2 driver missing: warn with the npm install fix', async () => {
  const checks = await hostChecks(appiumOnly, () => ({ path: '/usr/bin/adb', from: 'PATH' }))
  expect(checks['appium']).toMatchObject({
    status: 'pass',
    found: 'appium 3.8.0, from your project',
  })
  expect(checks['uiautomator2-driver']).toMatchObject({
    status: 'warn',
    found: expect.stringMatching(/^appium-uiautomator2-driver is not installed/),
    fix: 'npm install -D appium-uiautomator2-driver',
  })
})

test('the driver present, with the adb client it runs', async () => {
  const checks = await hostChecks(both, () => ({ path: '/usr/bin/adb', from: 'PATH' }))
  expect(checks['uiautomator2-driver']).toMatchObject({
    status: 'pass',
    found:
      "appium-uiautomator2-driver 1.0.0, from vitest-energy's dependencies; it runs the adb client /usr/bin/adb",
  })
  expect(checks['uiautomator2-driver']?.evidence.at(-1)).toEqual({
    command: 'adb client (PATH)',
    line: '/usr/bin/adb',
  })
})

test('no adb client: warn, what breaks, what to install', async () => {
  const none = await hostChecks(both, () => undefined)
  expect(none['uiautomator2-driver']).toMatchObject({
    status: 'warn',
    found: expect.stringContaining('no adb client for it (not on the PATH, no ANDROID_HOME)'),
    fix: expect.stringContaining('apt-get install adb'),
  })
  const sdk = await hostChecks(both, () => ({ missing: '/sdk/platform-tools/adb' }))
  expect(sdk['uiautomator2-driver']?.found).toContain('/sdk/platform-tools/adb is missing')
})

test('an unreachable adb server still gets the host checks, and the verdict fails', async () => {
  const options: DoctorOptions = {
    address: resolveAdbAddress({ port: String(await deadPort()) }, {}),
    cwd: '/p',
    findPackage: both,
    findAdbClient: () => ({ path: '/usr/bin/adb', from: 'PATH' }),
  }
  const report = await runDoctor(options)
  expect(report.verdict).toBe('fail')
  expect(report.checks.map((c) => [c.id, c.status])).toEqual([
    ['adb-server', 'fail'],
    ['devices', 'skip'],
    ['appium', 'pass'],
    ['uiautomator2-driver', 'pass'],
  ])
  expect(report.phones).toEqual([])
})

test("no adb server at adb's default address, none asked for: a warning that a run measures the virtual device, and how to get a phone; not a failure", async () => {
  const options: DoctorOptions = {
    // Where adb looks by default, moved to a port nothing listens on (5037 may be taken here).
    address: { ...resolveAdbAddress({}, {}), port: await deadPort() },
    cwd: '/p',
    findPackage: both,
    findAdbClient: () => ({ path: '/usr/bin/adb', from: 'PATH' }),
  }
  expect(options.address.from).toBe('default')
  const report = await runDoctor(options)
  expect(report.verdict).toBe('warn')
  const server = report.checks.find((c) => c.id === 'adb-server')
  expect(server).toMatchObject({ status: 'warn', fix: expect.stringContaining('adb start-server') })
  expect(server?.note).toContain('uses the virtual device')
  const text = renderDoctorText(report, plainScreen)
  expect(text).toContain('ready for the virtual device only')
  expect(text).not.toContain('not ready')
})
