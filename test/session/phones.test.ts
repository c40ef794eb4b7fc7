// Which phones a run uses when no adb server answers: the virtual device only when nothing was
// configured; otherwise an error whose hint fits what the user configured.
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { isEnergyError } from '../../src/model/index.js'
import { resolveOptions } from '../../src/session/options.js'
import { choosePhones } from '../../src/session/phones.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../src/virtual-device/index.js'

/** A loopback port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

async function refusal(options: object, adbConfigured: boolean) {
  const error: unknown = await choosePhones(
    resolveOptions({ app: 'com.example.trails', ...options }),
    { adbConfigured },
  ).catch((e: unknown) => e)
  if (!isEnergyError(error)) throw new Error(`expected an EnergyError, got ${String(error)}`)
  return error
}

test('auto with no adb option and no server: the virtual device', async () => {
  const port = await deadPort()
  const choice = await choosePhones(resolveOptions({ app: 'com.example.trails', adb: { port } }), {
    adbConfigured: false,
  })
  expect(choice).toMatchObject({ kind: 'virtual', why: 'no phone attached' })
})

test("a serial with no adb server: the hint says how to start adb or use 'auto', not to remove an adb option nobody set", async () => {
  const port = await deadPort()
  const error = await refusal({ device: 'R58M123ABC', adb: { port } }, false)
  expect(error.code).toBe('E_ADB_UNREACHABLE')
  expect(error.message).toContain('device R58M123ABC was configured')
  expect(error.hint).toContain("device: 'auto'")
  expect(error.hint).not.toContain('remove the adb option')
})

test('an adb option that nothing answers: the hint names the option', async () => {
  const port = await deadPort()
  for (const device of ['auto', 'R58M123ABC']) {
    const error = await refusal({ device, adb: { port } }, true)
    expect(error.code).toBe('E_ADB_UNREACHABLE')
    expect(error.hint).toContain('remove the adb option')
  }
})

describe('phones on several adb servers (a lab)', () => {
  let hosts: VirtualDeviceServer[] = []
  beforeAll(async () => {
    hosts = [
      await startVirtualDevice({ host: '127.0.0.2', serialPrefix: 'lab', devices: 2 }),
      await startVirtualDevice({ host: '127.0.0.3', serialPrefix: 'lab', devices: 1 }),
    ]
  })
  afterAll(async () => {
    for (const h of hosts) await h.close()
  })
  const adb = () => hosts.map((h) => ({ host: h.host, port: h.port }))

  test('every ready phone of every server; a server that does not answer is named and skipped', async () => {
    const down = { host: '127.0.0.4', port: await deadPort() }
    const choice = await choosePhones(
      resolveOptions({ app: 'com.example.trails', adb: [...adb(), down] }),
      { adbConfigured: true },
    )
    expect(choice).toEqual({
      kind: 'real',
      phones: [
        { host: '127.0.0.2', port: hosts[0]!.port, serial: 'lab-0001' },
        { host: '127.0.0.2', port: hosts[0]!.port, serial: 'lab-0002' },
        { host: '127.0.0.3', port: hosts[1]!.port, serial: 'lab-0001' },
      ],
      unreachable: [down],
    })
  })

  test('a serial two servers have is ambiguous; its server and serial name one phone', async () => {
    const ambiguous = await refusal({ device: 'lab-0001', adb: adb() }, true)
    expect(ambiguous.code).toBe('E_DEVICE_AMBIGUOUS')
    expect(ambiguous.hint).toContain(`device: '127.0.0.2:${hosts[0]!.port}/lab-0001'`)
    const one = await choosePhones(
      resolveOptions({
        app: 'com.example.trails',
        adb: adb(),
        device: `127.0.0.3:${hosts[1]!.port}/lab-0001`,
      }),
      { adbConfigured: true },
    )
    expect(one).toMatchObject({ kind: 'real', phones: [{ host: '127.0.0.3', serial: 'lab-0001' }] })
  })

  test('no server answers: one error naming them all', async () => {
    const error = await refusal(
      {
        adb: [
          { host: '127.0.0.2', port: await deadPort() },
          { host: '127.0.0.3', port: await deadPort() },
        ],
      },
      true,
    )
    expect(error.code).toBe('E_ADB_UNREACHABLE')
    expect(error.message).toMatch(/no adb server answers on 127\.0\.0\.2:\d+, 127\.0\.0\.3:\d+/)
  })
})
