/**
 * Which power collector a DeviceSession picks (src/session/device-session.ts), from a real probe of
 * the virtual device. The session's constructor is private (workers get sessions from
 * `DeviceSession.open()`, which needs the plugin's provide/inject); the test builds one with
 * Reflect.construct from the same parts `open()` uses.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  mapDeviceClock,
  probeCapabilities,
  type AdbDevice,
  type Capabilities,
  type DeviceClockMapping,
} from '../../src/device/index.js'
import { fileLeaseStore } from '../../src/lab/index.js'
import { DeviceSession } from '../../src/session/device-session.js'
import { resolveOptions } from '../../src/session/options.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../src/virtual-device/index.js'
import { adbDevice } from './_vdev.js'

let server: VirtualDeviceServer
let device: AdbDevice
let capabilities: Capabilities
let boottime: DeviceClockMapping

beforeAll(async () => {
  server = await startVirtualDevice({ time: 'fast', seed: 1 })
  device = await adbDevice(server.port, server.serials[0]!)
  capabilities = await probeCapabilities(device, {
    app: 'com.example.trails',
    perfettoRails: false,
  })
  boottime = await mapDeviceClock(device, 'boottime', { samples: 2 })
})
afterAll(async () => {
  await server.close()
})

function session(
  options: Record<string, unknown>,
  caps: Capabilities = capabilities,
): DeviceSession {
  const ctor = DeviceSession as unknown as new (...args: unknown[]) => DeviceSession
  const phone = { host: '127.0.0.1', port: server.port, serial: server.serials[0]! }
  const runDir = '/nonexistent/session-choice'
  return Reflect.construct(ctor, [
    resolveOptions({ app: 'com.example.trails', ...options }),
    { phones: [phone], run: 'session-choice', virtual: true, runDir },
    phone,
    fileLeaseStore({ runDir }),
    device,
    caps,
    boottime,
  ])
}

describe('power collector choice', () => {
  test('the virtual device lists ODPM rails and has perfetto: auto → odpm', () => {
    expect(capabilities.odpm.available).toBe(true)
    expect(capabilities.perfetto.available).toBe(true)
    expect(session({}).powerCollector().name).toBe('odpm')
  })

  test('rails but no perfetto: auto and odpm fall back to powerstats', () => {
    const noPerfetto = { ...capabilities, perfetto: { ...capabilities.perfetto, available: false } }
    expect(session({}, noPerfetto).powerCollector().name).toBe('powerstats')
    expect(session({ power: 'odpm' }, noPerfetto).powerCollector().name).toBe('powerstats')
  })

  test('no rails: odpm is refused, auto takes the fuel gauge', () => {
    const noRails = { ...capabilities, odpm: { ...capabilities.odpm, available: false } }
    expect(() => session({ power: 'odpm' }, noRails).powerCollector()).toThrow(
      /E_POWER_SOURCE_UNAVAILABLE|not available/,
    )
    expect(session({}, noRails).powerCollector().name).toBe('fuel-gauge')
  })

  test('batterystats and external-meter only when asked for', () => {
    expect(session({ power: 'batterystats', powerProfile: 'pp.xml' }).powerCollector().name).toBe(
      'batterystats',
    )
    expect(
      session({ power: 'external-meter', externalMeter: { file: 'm.txt' } }).powerCollector().name,
    ).toBe('external-meter')
  })
})
