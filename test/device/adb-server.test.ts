/**
 * The client against the real Debian `adb` server (v41) on a private port: version, an empty device
 * list, `auto` with no device. The server is started and killed by this test only.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { connectAdb, isListening } from '../../src/device/client.js'
import { listDevices, pickDevice } from '../../src/device/discovery.js'
import { isEnergyError } from '../../src/model/index.js'

const ADB = '/usr/bin/adb'
const hasAdb = existsSync(ADB)
if (!hasAdb)
  console.warn('[device] /usr/bin/adb not found: real adb server tests skipped (CI installs it)')

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      )
    })
  })
}

describe('connectAdb never starts a daemon by surprise', () => {
  test('a closed port gives E_ADB_UNREACHABLE and leaves the port closed', async () => {
    const port = await freePort()
    const error = await connectAdb({ port }).catch((e: unknown) => e)
    expect(isEnergyError(error) && error.code).toBe('E_ADB_UNREACHABLE')
    expect((error as Error).message).toContain(`no adb server on 127.0.0.1:${port}`)
    expect((error as { hint: string }).hint).toMatch(/adb start-server/)
    expect(await isListening('127.0.0.1', port, 500)).toBe(false)
  })

  test('an invalid port is an option error', async () => {
    const error = await connectAdb({ port: 70_000 }).catch((e: unknown) => e)
    expect(isEnergyError(error) && error.code).toBe('E_INVALID_OPTION')
  })
})

describe.skipIf(!hasAdb)('against the real adb server', () => {
  let port = 0
  // The server writes its log to $TMPDIR/adb.<uid>.log: give it a folder of its own, removed after.
  const tmp = mkdtempSync(join(tmpdir(), 've-adb-'))
  const env = { ...process.env, TMPDIR: tmp }
  beforeAll(async () => {
    port = await freePort()
    // No devices can attach to it: USB is not visible here and we connect nothing.
    execFileSync(ADB, ['-P', String(port), 'start-server'], {
      stdio: 'ignore',
      timeout: 20_000,
      env,
    })
  })
  afterAll(() => {
    try {
      if (port !== 0)
        execFileSync(ADB, ['-P', String(port), 'kill-server'], { stdio: 'ignore', env })
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })

  test('version is 41 and the device list is empty', async () => {
    const adb = await connectAdb({ port })
    expect(await adb.version()).toBe(41)
    expect(await listDevices(adb)).toEqual([])
  })

  test('auto with no device gives E_NO_DEVICE; a serial that is not there too', async () => {
    const adb = await connectAdb({ port })
    const none = await pickDevice(adb).catch((e: unknown) => e)
    expect(isEnergyError(none) && none.code).toBe('E_NO_DEVICE')
    const named = await pickDevice(adb, { serial: 'R5CT1234567' }).catch((e: unknown) => e)
    expect(isEnergyError(named) && named.code).toBe('E_NO_DEVICE')
    expect((named as Error).message).toContain('R5CT1234567')
  })

  test("the server's FAIL for an unknown serial maps to E_NO_DEVICE", async () => {
    const adb = await connectAdb({ port })
    const { shell } = await import('../../src/device/shell.js')
    const error = await shell(adb.device('no-such-serial'), ['true']).catch((e: unknown) => e)
    expect(isEnergyError(error) && error.code).toBe('E_NO_DEVICE')
  })
})
