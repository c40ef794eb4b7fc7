// Which phones a run uses when no adb server answers: the virtual device only when nothing was
// configured; otherwise an error whose hint fits what the user configured.
import net from 'node:net'
import { expect, test } from 'vitest'
import { isEnergyError } from '../../src/model/index.js'
import { resolveOptions } from '../../src/session/options.js'
import { choosePhones } from '../../src/session/phones.js'

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
