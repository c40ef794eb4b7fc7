// Appium's drivers put their temporary folders under APPIUM_TMP_DIR: inside the server's temporary
// APPIUM_HOME, so a run stopped mid-command (Ctrl-C while a session starts) leaves none in the OS
// temp dir; a folder the user chose stays theirs.
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test, vi } from 'vitest'
import { startAppiumServer } from '../../src/session/appium-server.js'

afterEach(() => {
  vi.unstubAllEnvs()
})

test('APPIUM_TMP_DIR is a folder of the temporary APPIUM_HOME while the server runs', async () => {
  vi.stubEnv('APPIUM_TMP_DIR', undefined)
  const server = await startAppiumServer({ userAppiumHome: false })
  try {
    expect(process.env['APPIUM_TMP_DIR']).toBe(join(server.appiumHome, 'tmp'))
    expect(existsSync(join(server.appiumHome, 'tmp'))).toBe(true)
  } finally {
    await server.close()
  }
  expect(process.env['APPIUM_TMP_DIR']).toBeUndefined()
  expect(existsSync(server.appiumHome)).toBe(false)
}, 60_000)

test('an APPIUM_TMP_DIR the user set is left as it is', async () => {
  const own = await mkdtemp(join(tmpdir(), 'vitest-energy-own-appium-tmp-'))
  vi.stubEnv('APPIUM_TMP_DIR', own)
  try {
    const server = await startAppiumServer({ userAppiumHome: false })
    try {
      expect(process.env['APPIUM_TMP_DIR']).toBe(own)
    } finally {
      await server.close()
    }
    expect(process.env['APPIUM_TMP_DIR']).toBe(own)
    expect(existsSync(own)).toBe(true)
  } finally {
    await rm(own, { recursive: true, force: true })
  }
}, 60_000)
