// The oldest and the newest Android version the virtual device presents (API 29 and 35): a Vitest
// project drives each phone through Appium's UiAutomator2 driver and measures an energy window,
// reaching the phone as a user reaches a real one (serial and adb port).
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../src/virtual-device/index.js'
import { energyRunArgs, projectEnv } from './_project-env.js'

const root = fileURLToPath(new URL('../fixtures/phone-project/', import.meta.url))
const vitestBin = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))

/**
 * Runs the phone project against `phone` (a standalone virtual phone, reached by serial and adb
 * port as a real one) with its TMPDIR and the energy JSON in `dir`; `app` names the app under test.
 */
async function runOnPhone(
  phone: VirtualDeviceServer,
  dir: string,
  app?: string,
): Promise<{ stdout: string; code: number; out: string }> {
  const out = join(dir, 'energy.json')
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [vitestBin, ...energyRunArgs(dir)],
      {
        cwd: root,
        env: projectEnv(dir, {
          PHONE_SERIAL: phone.serials[0]!,
          PHONE_ADB_PORT: String(phone.port),
          ...(app === undefined ? {} : { PHONE_APP: app }),
        }),
        timeout: 180_000,
      },
    )
    return { stdout, code: 0, out }
  } catch (error) {
    const { stdout, code } = error as { stdout: string; code: number }
    return { stdout, code, out }
  }
}

test.each([
  [29, '10'],
  [35, '15'],
] as const)(
  'API %i (Android %s): UiAutomator2 session and an energy window',
  async (api, release) => {
    const phone = await startVirtualDevice({ androidVersion: api, serialPrefix: `api${api}` })
    const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-api-'))
    try {
      const { stdout, code, out } = await runOnPhone(phone, dir)
      expect(code, stdout).toBe(0)
      const report = JSON.parse(await readFile(out, 'utf8')) as EnergyReport
      const test = report.tests.find((t) => t.name === 'refreshing the feed')
      expect(test?.state, stdout).toBe('passed')
      const measured = test?.results.filter((r) => r.status === 'measured') ?? []
      expect(measured).toHaveLength(1)
      // Android 10 has no PowerStatsService: its rails are found by a short perfetto session, not
      // skipped for the fuel gauge (which reads the USB charger on a plugged-in phone).
      expect(measured[0]?.sources).toMatchObject({ power: 'odpm', execution: 'simpleperf' })
      // The session went through the UiAutomator2 server, started by instrumentation on this phone.
      const { device, phone: sim } = phone.devices[0]!
      expect(device.props.get('ro.build.version.sdk')).toBe(String(api))
      expect(device.props.get('ro.build.version.release')).toBe(release)
      expect(device.commandLog).toContain(
        'am instrument -w -e disableAnalytics true io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner',
      )
      expect(sim.sim.actionLog.some((a) => a.startsWith('tap refresh '))).toBe(true)
    } finally {
      await phone.close()
      await rm(dir, { recursive: true, force: true })
    }
  },
  240_000,
)

test('another app, whose launcher is not .MainActivity: the driver resolves it on the phone', async () => {
  const model = fileURLToPath(new URL('../fixtures/phone-project/notes-app.json', import.meta.url))
  const phone = await startVirtualDevice({ app: model, serialPrefix: 'notes' })
  const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-notes-'))
  try {
    const { stdout, code } = await runOnPhone(phone, dir, 'org.example.notes')
    expect(code, stdout).toBe(0)
    const { device, phone: sim } = phone.devices[0]!
    expect(device.commandLog.join('\n')).toMatch(
      /am start-activity -W -n org\.example\.notes\/\.ui\.SplashActivity/,
    )
    expect(sim.sim.actionLog.some((a) => a.startsWith('tap refresh '))).toBe(true)
  } finally {
    await phone.close()
    await rm(dir, { recursive: true, force: true })
  }
}, 240_000)
