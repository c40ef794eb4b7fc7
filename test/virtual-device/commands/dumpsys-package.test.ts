// `dumpsys package` through adbkit, read back by the product's capability probe.
import { afterAll, beforeAll, expect, test } from 'vitest'
import { connectAdb, probeCapabilities, shell, type AdbDevice } from '../../../src/device/index.js'
import {
  DEMO_APP_MODEL,
  startVirtualDevice,
  type VirtualDeviceServer,
} from '../../../src/virtual-device/index.js'

let server: VirtualDeviceServer
let device: AdbDevice

beforeAll(async () => {
  server = await startVirtualDevice({ devices: 1 })
  device = (await connectAdb({ port: server.port })).device(server.serials[0]!)
})
afterAll(async () => server.close())

test('prints the package section with flags the probe reads', async () => {
  const { stdout } = await shell(device, ['dumpsys', 'package', 'com.example.trails'])
  expect(stdout).toMatch(/^ {2}Package \[com\.example\.trails\] \([0-9a-f]{8}\):$/m)
  expect(stdout).toContain('    versionName=1.4.2')
  expect(stdout).toMatch(/privateFlags=\[ .* \]/)
  expect(stdout).not.toContain('DEBUGGABLE')
  // Real dumps have no name for the profileable bit: a release build reads as 'unknown' (API 29+).
  expect(stdout).not.toContain('PROFILEABLE')
  const capabilities = await probeCapabilities(device, {
    app: 'com.example.trails',
    perfettoRails: false,
  })
  expect(capabilities.app).toMatchObject({
    installed: true,
    debuggable: false,
    profileable: 'unknown',
    versionName: '1.4.2',
  })
})

test('an unknown package prints no package section', async () => {
  const { stdout, exitCode } = await shell(device, ['dumpsys', 'package', 'com.example.missing'])
  expect(exitCode).toBe(0)
  expect(stdout).toContain('Database versions:')
  expect(stdout).not.toContain('Packages:')
  const capabilities = await probeCapabilities(device, {
    app: 'com.example.missing',
    perfettoRails: false,
  })
  expect(capabilities.app?.installed).toBe(false)
})

test('a debuggable, non-profileable build shows DEBUGGABLE only', async () => {
  const debug = await startVirtualDevice({
    app: { ...DEMO_APP_MODEL, debuggable: true, profileable: false },
  })
  try {
    const d = (await connectAdb({ port: debug.port })).device(debug.serials[0]!)
    const { stdout } = await shell(d, ['dumpsys', 'package', 'com.example.trails'])
    expect(stdout).toMatch(/flags=\[ .*DEBUGGABLE.* \]/)
  } finally {
    await debug.close()
  }
})
