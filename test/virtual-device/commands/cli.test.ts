import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { runCommand } from '../../../src/cli/index.js'
import { DEMO_APP_MODEL } from '../../../src/virtual-device/sim/demo-app.js'

function io(signal: AbortSignal) {
  let out = ''
  let err = ''
  return {
    io: {
      out: (t: string) => {
        out += t
      },
      err: (t: string) => {
        err += t
      },
      cwd: process.cwd(),
      signal,
    },
    get out() {
      return out
    },
    get err() {
      return err
    },
  }
}

describe('vitest-energy virtual-device', () => {
  test('the shipped JSON fixture is the demo model', () => {
    const json = JSON.parse(
      readFileSync('test/fixtures/virtual-device/trails-app.json', 'utf8'),
    ) as unknown
    expect(json).toEqual(JSON.parse(JSON.stringify(DEMO_APP_MODEL)))
  })

  test('prints port and serials, runs until the signal aborts', async () => {
    const controller = new AbortController()
    const cap = io(controller.signal)
    const running = runCommand(
      [
        'virtual-device',
        '--app',
        'test/fixtures/virtual-device/trails-app.json',
        '--devices',
        '3',
        '--seed',
        '4',
        '--time',
        'fast',
      ],
      cap.io,
    )
    for (let i = 0; i < 200 && !cap.out.includes('serials:'); i++)
      await new Promise((r) => setTimeout(r, 10))
    expect(cap.out).toMatch(/port: \d+\nserials: vdev-0001 vdev-0002 vdev-0003\n/)
    controller.abort()
    expect(await running).toBe(0)
    expect(cap.out).toContain('virtual device stopped\n')
  })

  test('bad options are usage errors; a bad model names the field', async () => {
    const controller = new AbortController()
    const a = io(controller.signal)
    expect(await runCommand(['virtual-device', '--time', 'slow'], a.io)).toBe(2)
    expect(a.err).toContain("--time takes 'real' or 'fast'")
    const b = io(controller.signal)
    expect(await runCommand(['virtual-device', '--devices', 'x'], b.io)).toBe(2)
    const c = io(controller.signal)
    expect(
      await runCommand(
        ['virtual-device', '--app', 'test/fixtures/virtual-device/bad-app.json'],
        c.io,
      ),
    ).toBe(1)
    expect(c.err).toContain('$.screens[0].widgets[0].bounds')
    const d = io(controller.signal)
    expect(await runCommand(['virtual-device', '--devices', '0'], d.io)).toBe(1)
    expect(d.err).toContain("option 'devices' must be an integer from 1 to 64")
  })
})
