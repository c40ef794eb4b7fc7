/**
 * The power source doctor announces (`autoPowerSource`, src/device) is the one a run's device
 * session picks with `power: 'auto'` (src/session/device-session.ts), on probed virtual phones of
 * each kind; where doctor says the source is unusable, the session's collector fails to start.
 * The session is built with Reflect.construct, as in test/collectors/session-choice.test.ts.
 */
import { afterAll, describe, expect, test } from 'vitest'
import {
  autoPowerSource,
  connectAdb,
  mapDeviceClock,
  probeCapabilities,
  type AdbDevice,
  type Capabilities,
} from '../../src/device/index.js'
import { isEnergyError } from '../../src/model/index.js'
import { fileLeaseStore } from '../../src/lab/index.js'
import { DeviceSession } from '../../src/session/device-session.js'
import { resolveOptions } from '../../src/session/options.js'
import {
  startVirtualDevice,
  type StartVirtualDeviceOptions,
  type VirtualDeviceServer,
} from '../../src/virtual-device/index.js'

const servers: VirtualDeviceServer[] = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
})

async function probed(
  options: StartVirtualDeviceOptions,
): Promise<{ server: VirtualDeviceServer; device: AdbDevice; caps: Capabilities }> {
  const server = await startVirtualDevice({ time: 'fast', ...options })
  servers.push(server)
  const device = (await connectAdb({ port: server.port })).device(server.serials[0] ?? '')
  return { server, device, caps: await probeCapabilities(device) }
}

describe.each([
  ['the default Pixel 6', {}, 'odpm', true],
  ['Android 10 (rails through perfetto)', { androidVersion: 29 }, 'odpm', true],
  ['no rails, on battery', { odpm: false, charger: 'none' }, 'fuel-gauge', true],
  [
    'no rails, flipped gauge',
    { odpm: false, charger: 'none', sensors: { currentSign: 'flipped' } },
    'fuel-gauge',
    true,
  ],
  ['no rails, charging', { odpm: false }, 'fuel-gauge', false],
] as const)('%s', (_name, options, source, usable) => {
  test(`doctor and the session agree: ${source}${usable ? '' : ', which fails to start'}`, async () => {
    const { server, device, caps } = await probed(options)
    expect(autoPowerSource(caps)).toMatchObject({ source, usable })
    const ctor = DeviceSession as unknown as new (...args: unknown[]) => DeviceSession
    const phone = { host: '127.0.0.1', port: server.port, serial: server.serials[0] ?? '' }
    const session = Reflect.construct(ctor, [
      resolveOptions({ app: 'com.example.trails' }),
      { phones: [phone], run: 'doctor-power-choice', virtual: true, runDir: '/nonexistent' },
      phone,
      fileLeaseStore({ runDir: '/nonexistent' }),
      device,
      caps,
      await mapDeviceClock(device, 'boottime', { samples: 2 }),
    ])
    const collector = session.powerCollector()
    expect(collector.name).toBe(source)
    if (!usable) {
      const started: unknown = await collector
        .start({
          device,
          app: 'com.example.trails',
          deviceDir: '/data/local/tmp/vitest-energy',
          windowId: 'w1',
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        )
      expect(isEnergyError(started) && started.code).toBe('E_POWER_SOURCE_UNAVAILABLE')
    }
  })
})
