// Two workers on one phone, each with its Appium session (UiAutomator2 allows one per phone): a
// worker whose session the other's replaced gets a new one when it next takes the phone, in place.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { endDriver, startDriver } from '../../src/session/appium.js'
import { DeviceSession } from '../../src/session/device-session.js'
import { resolveOptions } from '../../src/session/options.js'
import type { DeviceTarget } from '../../src/session/target.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../src/virtual-device/index.js'
import { startAppiumServer, type AppiumServer } from '../../src/session/appium-server.js'

let vd: VirtualDeviceServer
let appium: AppiumServer
let runDir: string

beforeAll(async () => {
  vi.stubEnv('TSX_DISABLE_CACHE', '1')
  vd = await startVirtualDevice({ devices: 1 })
  appium = await startAppiumServer({ userAppiumHome: false })
  runDir = await mkdtemp(join(tmpdir(), 'vitest-energy-run-'))
}, 60_000)

afterAll(async () => {
  await appium?.close()
  await vd?.close()
  await rm(runDir, { recursive: true, force: true })
  vi.unstubAllEnvs()
})

test('a replaced session is started again when its worker next takes the phone', async () => {
  const target: DeviceTarget = {
    phones: vd.serials.map((serial) => ({ host: '127.0.0.1', port: vd.port, serial })),
    run: 'appium-sessions',
    virtual: true,
    appium: { host: appium.host, port: appium.port },
    runDir,
  }
  const options = { ...resolveOptions({ app: 'com.example.trails' }), adbConfigured: false }
  const first = await DeviceSession.open(options, target, 1)
  const second = await DeviceSession.open(options, target, 2)
  const a = await startDriver(first)
  const aId = a.sessionId
  const b = await startDriver(second)
  // Starting b's session on the same phone ended a's (the UiAutomator2 driver's own rule).
  const aGone = await fetch(`${appium.url}/session/${aId}`)
  expect(aGone.status).toBe(404)

  const actions = (): string[] =>
    vd.devices[0]!.phone.sim.actionLog.map((x) => x.replace(/ @\d+$/, ''))
  const leaseA = await first.lease('worker 1 › test')
  try {
    expect(a.sessionId).not.toBe(aId)
    await a.$('~refresh').click()
  } finally {
    await leaseA.release()
  }
  expect(actions().at(-1)).toBe('tap refresh')
  const bId = b.sessionId
  const leaseB = await second.lease('worker 2 › test')
  try {
    expect(b.sessionId).not.toBe(bId)
    await b.$('~feed-list').click()
  } finally {
    await leaseB.release()
  }
  expect(actions().at(-1)).toBe('tap feed-list')
  // A session still alive is kept as it is.
  const kept = b.sessionId
  const again = await second.lease('worker 2 › next test')
  await again.release()
  expect(b.sessionId).toBe(kept)
  await endDriver(first, a)
  await endDriver(second, b)
}, 120_000)
