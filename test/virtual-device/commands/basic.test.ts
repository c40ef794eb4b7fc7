import { describe, expect, test } from 'vitest'
import { centerOf, harness } from './_harness.js'

describe('am start / force-stop', () => {
  test('cold start with -W prints the real block and starts the process', async () => {
    const h = harness()
    const r = await h.sh('am start -W -n com.example.trails/.MainActivity')
    expect(r.status).toBe(0)
    expect(r.out).toMatch(
      /^Starting: Intent \{ cmp=com\.example\.trails\/\.MainActivity \}\nStatus: ok\nLaunchState: COLD\nActivity: com\.example\.trails\/\.MainActivity\nTotalTime: \d+\nWaitTime: \d+\nComplete\n$/,
    )
    const pid = h.phone.appProcess?.pid
    expect(pid).toBeDefined()
    expect((await h.sh('pidof com.example.trails')).out.trim()).toBe(String(pid))
    expect(h.phone.sim.currentScreenId).toBe('feed')
    const again = await h.sh('am start -n com.example.trails/.MainActivity')
    expect(again.out).toContain('Warning: Activity not started, intent has been delivered')
    await h.sh('am force-stop com.example.trails')
    expect(h.phone.appProcess).toBeUndefined()
    expect((await h.sh('pidof com.example.trails')).status).not.toBe(0)
  })

  test('-S restarts, an unknown activity gives Error type 3', async () => {
    const h = harness()
    await h.sh('am start -n com.example.trails/.MainActivity')
    const first = h.phone.appProcess?.pid
    await h.sh('am start -S -W -n com.example.trails/.MainActivity')
    expect(h.phone.appProcess?.pid).not.toBe(first)
    const bad = await h.sh('am start -n com.example.trails/.NopeActivity')
    expect(bad.status).toBe(255)
    expect(bad.err).toBe(
      'Error type 3\nError: Activity class {com.example.trails/com.example.trails.NopeActivity} does not exist.\n',
    )
  })

  test('shell may not kill the app; when the system kills it the simulated app stops', async () => {
    const h = harness()
    await h.sh('am start -n com.example.trails/.MainActivity')
    const pid = h.phone.appProcess?.pid
    const denied = await h.sh(`kill -9 ${pid}`)
    expect(denied.err).toMatch(new RegExp(`${pid}.*Operation not permitted\\n$`))
    expect(h.phone.sim.pid).toBe(pid)
    h.phone.appProcess?.kill('KILL')
    await new Promise((r) => setImmediate(r))
    expect(h.phone.appProcess).toBeUndefined()
    expect(h.phone.sim.pid).toBeUndefined()
  })
})

describe('input and uiautomator', () => {
  test('input tap hits widgets and fires their work; navigation changes the dump', async () => {
    const h = harness()
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    const before = h.phone.sim.calls.length
    await h.sh(`input tap ${centerOf(h.phone, 'feed-list')}`)
    expect(h.phone.sim.calls.slice(before).some((c) => c.method.endsWith('FeedAdapter.bind'))).toBe(
      true,
    )
    await h.sh(`input tap ${centerOf(h.phone, 'map')}`)
    expect(h.phone.sim.currentScreenId).toBe('map')
    const dump = await h.sh('uiautomator dump')
    expect(dump.out).toBe('UI hierchary dumped to: /sdcard/window_dump.xml\n')
    const xml = (await h.sh('cat /sdcard/window_dump.xml')).out
    expect(xml).toContain('content-desc="start-tracking"')
    expect(xml).toContain('resource-id="com.example.trails:id/start_tracking"')
    await h.sh('input keyevent KEYCODE_BACK')
    expect(h.phone.sim.currentScreenId).toBe('feed')
  })

  test('the dump has the layout of a real uiautomator dump', async () => {
    const h = harness()
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    await h.sh('uiautomator dump /data/local/tmp/ui.xml')
    const xml = (await h.sh('cat /data/local/tmp/ui.xml')).out
    expect(
      xml.startsWith(
        '<?xml version=\'1.0\' encoding=\'UTF-8\' standalone=\'yes\' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.trails"',
      ),
    ).toBe(true)
    expect(xml.endsWith('</node></node></node></hierarchy>')).toBe(true)
    // Same attribute order as the real corpus dump.
    const attrs = (s: string) =>
      [...(/<node ([^>]*?) ?\/?>/.exec(s)?.[1] ?? '').matchAll(/([\w-]+)="/g)].map((m) => m[1])
    const { readFileSync } = await import('node:fs')
    const real = readFileSync(
      'test/fixtures/corpus/6_dumpsys_uiautomator/nora_window_dump2.xml',
      'utf8',
    )
    expect(attrs(xml)).toEqual(attrs(real))
    const { XMLValidator } = await import('fast-xml-parser')
    expect(XMLValidator.validate(xml)).toBe(true)
  })

  test('HOME then am start is a warm start back to the last screen; swipe scrolls; text reaches the focused field', async () => {
    const h = harness()
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    await h.sh(`input tap ${centerOf(h.phone, 'settings')}`)
    await h.sh('input keyevent KEYCODE_HOME')
    expect(h.phone.sim.currentScreenId).toBeUndefined()
    const dump = await h.sh('uiautomator dump /data/local/tmp/home.xml')
    expect(dump.status).toBe(0)
    expect((await h.sh('cat /data/local/tmp/home.xml')).out).toContain(
      'package="com.google.android.apps.nexuslauncher"',
    )
    const warm = await h.sh('am start -W -n com.example.trails/.MainActivity')
    expect(warm.out).toContain('LaunchState: WARM')
    expect(h.phone.sim.currentScreenId).toBe('settings')
    const before = h.phone.sim.calls.length
    await h.sh(`input tap ${centerOf(h.phone, 'username')}`)
    await h.sh('input text trail%srunner')
    expect(h.phone.sim.actionLog.at(-1)).toMatch(/^text "trail runner" @\d+$/)
    expect(h.phone.sim.calls.slice(before).map((c) => c.method)).toEqual([
      'com.example.trails.SettingsStore.saveUsername',
    ])
    await h.sh(`input tap ${centerOf(h.phone, 'feed')}`)
    const n = h.phone.sim.calls.length
    await h.sh('input swipe 540 1800 540 600 300')
    expect(h.phone.sim.calls.slice(n).some((c) => c.method.endsWith('FeedAdapter.bind'))).toBe(true)
  })

  test('bad input arguments fail like the real input tool', async () => {
    const h = harness()
    const r = await h.sh('input tap 12')
    expect(r.status).toBe(1)
    expect(r.err).toMatch(/^Error: Invalid arguments for command: tap\n/)
    expect((await h.sh('input keyevent KEYCODE_NOPE')).err).toBe(
      'Error: Unknown keycode: KEYCODE_NOPE\n',
    )
  })

  test('screen off: POWER toggles, uiautomator fails', async () => {
    const h = harness()
    await h.sh('input keyevent 26')
    expect(h.phone.sim.screenOn).toBe(false)
    const r = await h.sh('uiautomator dump')
    expect(r.status).toBe(1)
    expect(r.err).toContain('null root node')
  })
})

describe('pm, cmd, settings', () => {
  test('pm list packages / pm path', async () => {
    const h = harness()
    const list = (await h.sh('pm list packages')).out.split('\n')
    expect(list).toContain('package:com.example.trails')
    expect(list).toContain('package:android')
    expect((await h.sh('pm list packages trails')).out).toBe('package:com.example.trails\n')
    const path = await h.sh('pm path com.example.trails')
    expect(path.out).toMatch(
      /^package:\/data\/app\/~~[\w-]{22}==\/com\.example\.trails-[\w-]{22}==\/base\.apk\n$/,
    )
    expect((await h.sh('pm path com.nope')).status).toBe(1)
  })

  test('cmd package compile -m speed -f', async () => {
    const h = harness()
    const r = await h.sh('cmd package compile -m speed -f com.example.trails')
    expect(r).toMatchObject({ out: 'Success\n', status: 0 })
    expect(h.phone.compiled.get('com.example.trails')).toBe('speed')
    expect((await h.sh('cmd package compile -m speed -f com.nope')).status).toBe(255)
  })

  test('settings put system screen_brightness changes screen power', async () => {
    const h = harness()
    expect((await h.sh('settings get system screen_brightness')).out).toBe('102\n')
    const t0 = h.clock.nowNs('boottime')
    await h.sh('sleep 1')
    await h.sh('settings put system screen_brightness 255')
    await h.sh('sleep 1')
    const t1 = h.clock.nowNs('boottime')
    expect((await h.sh('settings get system screen_brightness')).out).toBe('255\n')
    const gt = h.phone.sim.groundTruth(t0, t1)
    const v = h.phone.sim.power.voltageV
    const expected = ((98 + (470 * 102) / 255) / 1000) * v + ((98 + 470) / 1000) * v
    expect(gt.components.screen).toBeCloseTo(expected, 9)
    expect((await h.sh('settings get global nope')).out).toBe('null\n')
    expect((await h.sh('settings get bogus x')).status).toBe(255)
  })
})
