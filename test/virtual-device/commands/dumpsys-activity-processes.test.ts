// `dumpsys activity processes [PACKAGE]` in the layout of Android 13's ProcessList /
// ActivityManagerService dump, through the shell and through the real adb client; the pids it
// lists are what Appium's appium-adb reads to decide whether an app runs (`listAppProcessIds`).
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { startVirtualDevice, type VirtualDeviceServer } from '../../../src/virtual-device/index.js'
import { SERVER_APK, SERVER_TEST_APK, SETTINGS_APK } from '../_driver-apks.js'
import { hasAdb, runAdb } from '../adb/_helpers.js'
import { harness } from './_harness.js'

const PKG = 'com.example.trails'

/** appium-adb's `listAppProcessIds` (build/lib/tools/app-commands.js): the pids of `pkg`. */
function appiumPids(dump: string, pkg: string): number[] {
  const escaped = pkg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const pidRegex = new RegExp(`ProcessRecord\\{[\\w]+\\s+(\\d+):${escaped}\\/`)
  const pids = dump
    .split('\n')
    .map((line) => pidRegex.exec(line))
    .filter((m) => m !== null)
    .map((m) => Number(m[1]))
  return [...new Set(pids)]
}

test('the running app is listed in every section, with its uid as u0aNN; gone after force-stop', async () => {
  const h = harness()
  const before = (await h.sh('dumpsys activity processes')).out
  expect(before).toMatch(/^ACTIVITY MANAGER RUNNING PROCESSES \(dumpsys activity processes\)\n/)
  expect(appiumPids(before, PKG)).toEqual([])
  // The framework's own processes, as `ps` shows them.
  expect(before).toMatch(/^ {2}\*PERS\* UID 1000 ProcessRecord\{[0-9a-f]+ 1021:system\/1000\}$/m)
  expect(before).toMatch(
    /^ {2}\*APP\* UID 10120 ProcessRecord\{[0-9a-f]+ 1802:com\.google\.android\.apps\.nexuslauncher\/u0a120\}$/m,
  )

  await h.sh(`am start -W -n ${PKG}/.MainActivity`)
  const pid = h.phone.appProcess?.pid
  expect(pid).toBeTypeOf('number')
  const dump = (await h.sh('dumpsys activity processes')).out
  const lines = dump.split('\n')
  // Section order of ProcessList.dumpProcessesLSP.
  const at = (title: string): number => lines.indexOf(title)
  expect(at('  All known processes:')).toBe(1)
  expect(at('  Raw LRU list (dumpsys activity lru):')).toBeGreaterThan(1)
  expect(at('  Process LRU list (sorted by oom_adj, 4 total, non-act at 2, non-svc at 2):')).toBe(
    at('  Raw LRU list (dumpsys activity lru):') + 8,
  )
  expect(at('  PID mappings:')).toBeGreaterThan(
    at('  Process LRU list (sorted by oom_adj, 4 total, non-act at 2, non-svc at 2):'),
  )
  expect(lines.at(-2)).toBe('  mForceBackgroundCheck=false')

  const record = new RegExp(`ProcessRecord\\{([0-9a-f]+) ${pid}:com\\.example\\.trails/u0a187\\}`)
  const app = lines.findIndex((l) => l.startsWith('  *APP* UID 10187 ') && record.test(l))
  expect(app).toBeGreaterThan(0)
  expect(lines.slice(app + 1, app + 10)).toEqual(
    expect.arrayContaining([
      '    user #0 uid=10187 gids={50187, 20187, 9997, 3003}',
      `    packageList={${PKG}}`,
      `    pid=${pid}`,
      '    oom adj: max=1001 curRaw=0 setRaw=0 cur=0 set=0',
      '    mCurSchedGroup=3 setSchedGroup=3 systemNoUi=false',
    ]),
  )
  // The app is on top: the most recent activity process, at the foreground adj.
  expect(dump).toContain(
    `      # 3: fg     TOP  LCMN ${pid}:${PKG}/u0a187 act:activities|recents\n`,
  )
  expect(dump).toContain(
    `    Proc # 0: fg     T/A/TOP  LCMN  t: 0 ${pid}:${PKG}/u0a187 (top-activity)\n`,
  )
  expect(dump).toContain(
    '    Proc # 1: home   b/ /HOME ----  t: 0 1802:com.google.android.apps.nexuslauncher/u0a120 (home)\n',
  )
  // The same record (identity hash included) in All known processes and PID mappings.
  const hash = record.exec(lines[app] ?? '')?.[1]
  expect(dump).toContain(`    PID #${pid}: ProcessRecord{${hash} ${pid}:${PKG}/u0a187}\n`)
  expect(appiumPids(dump, PKG)).toEqual([pid])

  // HOME: the app stays, as the previous app.
  await h.sh('input keyevent KEYCODE_HOME')
  const home = (await h.sh('dumpsys activity processes')).out
  expect(home).toContain(
    `    Proc # 1: prev   b/ /LAST ----  t: 0 ${pid}:${PKG}/u0a187 (previous)\n`,
  )
  expect(appiumPids(home, PKG)).toEqual([pid])

  await h.sh(`am force-stop ${PKG}`)
  const after = (await h.sh('dumpsys activity processes')).out
  expect(after).not.toContain(PKG)
  expect(appiumPids(after, PKG)).toEqual([])
  expect(after).toContain(
    '  Process LRU list (sorted by oom_adj, 3 total, non-act at 1, non-svc at 1):\n',
  )
})

test('a package argument keeps only its processes, as getPkgList().containsKey does', async () => {
  const h = harness()
  await h.sh(`am start -W -n ${PKG}/.MainActivity`)
  const pid = h.phone.appProcess?.pid
  const filtered = (await h.sh(`dumpsys activity p ${PKG}`)).out
  expect(filtered.split('\n').filter((l) => /ProcessRecord\{/.test(l))).toEqual([
    expect.stringMatching(new RegExp(`^ {2}\\*APP\\* UID 10187 ProcessRecord\\{[0-9a-f]+ ${pid}:`)),
    expect.stringMatching(new RegExp(`^ {4}PID #${pid}: ProcessRecord\\{`)),
  ])
  expect(filtered).not.toContain('system/1000')
  // The LRU header still counts every process; the global counters are left out.
  expect(filtered).toContain(
    '  Process LRU list (sorted by oom_adj, 4 total, non-act at 2, non-svc at 2):\n',
  )
  expect(filtered).not.toContain('Total persistent processes')
  expect(filtered.endsWith('\n  mForceBackgroundCheck=false\n')).toBe(true)
  // A package GMS's persistent process carries.
  expect((await h.sh('dumpsys activity processes com.google.android.gms')).out).toMatch(
    /\*PERS\* UID 10146 ProcessRecord\{[0-9a-f]+ 1874:com\.google\.android\.gms\.persistent\/u0a146\}/,
  )
  // A package with no process: the header and the closing flag only, around the LRU header.
  expect((await h.sh('dumpsys activity processes com.example.none')).out).toBe(
    'ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)\n' +
      '  Process LRU list (sorted by oom_adj, 4 total, non-act at 2, non-svc at 2):\n' +
      '  mForceBackgroundCheck=false\n',
  )
})

test('helper apps: the UiAutomator2 server and the settings service, same records as services and ps', async () => {
  const h = harness()
  const push = (path: string, file: string): void =>
    h.device.fs.writeFile(path, readFileSync(file), 0o644)
  push('/data/local/tmp/settings.apk', SETTINGS_APK)
  push('/data/local/tmp/test.apk', SERVER_TEST_APK)
  push('/data/local/tmp/server.apk', SERVER_APK)
  for (const apk of ['settings', 'test', 'server']) {
    expect((await h.sh(`pm install -g /data/local/tmp/${apk}.apk`)).out).toBe('Success\n')
  }
  await h.sh('am start-activity -n io.appium.settings/.Settings')
  const instrumented = h.sh(
    'am instrument -w -e disableAnalytics true io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner',
  )
  // The instrumentation's process starts as the command runs: wait until ps shows it.
  const ps = await vi.waitFor(async () => {
    const out = (await h.sh('ps -A -o USER,PID,NAME')).out
    if (!/ io\.appium\.uiautomator2\.server$/m.test(out)) throw new Error('not started yet')
    return out
  })
  const psOf = (name: string): { user: string; pid: number } => {
    const row = ps.split('\n').find((l) => l.trim().endsWith(` ${name}`)) ?? ''
    const [user = '', pid = ''] = row.trim().split(/\s+/)
    return { user, pid: Number(pid) }
  }
  const dump = (await h.sh('dumpsys activity processes')).out
  const short: Record<string, string> = {}
  for (const name of ['io.appium.settings', 'io.appium.uiautomator2.server']) {
    const { user, pid } = psOf(name)
    const uid = 10_000 + Number(/^u0_a(\d+)$/.exec(user)?.[1])
    short[name] = `${pid}:${name}/u0a${uid - 10_000}`
    expect(dump).toMatch(
      new RegExp(
        `^ {2}\\*APP\\* UID ${uid} ProcessRecord\\{[0-9a-f]+ ${pid}:${name.replace(/\./g, '\\.')}/u0a${uid - 10_000}\\}$`,
        'm',
      ),
    )
    expect(appiumPids(dump, name)).toEqual([pid])
  }
  expect(dump).toContain(
    ` fg     F/ /FGS  ---N  t: 0 ${short['io.appium.uiautomator2.server']} (instrumentation)\n`,
  )
  expect(dump).toContain(
    ` prcp   F/S/FGS  ---N  t: 0 ${short['io.appium.settings']} (fg-service)\n`,
  )
  // `dumpsys activity services` prints the settings process's record exactly as `processes` does.
  const services = (await h.sh('dumpsys activity services io.appium.settings')).out
  const app = /^ {4}app=(ProcessRecord\{.*\})$/m.exec(services)?.[1]
  expect(app).toMatch(/^ProcessRecord\{[0-9a-f]+ \d+:io\.appium\.settings\/u0a\d+\}$/)
  expect(dump).toContain(`: ${app}\n`)

  await h.sh('am force-stop io.appium.uiautomator2.server')
  await instrumented
  await h.sh('am force-stop io.appium.settings')
  await vi.waitFor(async () => {
    expect((await h.sh('dumpsys activity processes')).out).not.toContain('io.appium.')
  })
})

describe.skipIf(!hasAdb)('over the real adb client', () => {
  let vd: VirtualDeviceServer
  beforeAll(async () => {
    vd = await startVirtualDevice({ devices: 1, time: 'fast', seed: 3 })
  })
  afterAll(async () => {
    await vd?.close()
  })

  test('adb shell dumpsys activity processes lists the app while it runs', async () => {
    const serial = vd.serials[0]!
    const sh = async (command: string): Promise<string> => {
      const r = await runAdb(vd.port, ['-s', serial, 'shell', command])
      expect(r.code).toBe(0)
      return r.stdout.toString()
    }
    expect(appiumPids(await sh('dumpsys activity processes'), PKG)).toEqual([])
    await sh(`am start -W -n ${PKG}/.MainActivity`)
    const pid = Number((await sh(`pidof ${PKG}`)).trim())
    const dump = await sh('dumpsys activity processes')
    expect(
      dump.startsWith('ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)\n'),
    ).toBe(true)
    expect(dump).toMatch(
      new RegExp(
        `^ {2}\\*APP\\* UID 10187 ProcessRecord\\{[0-9a-f]+ ${pid}:com\\.example\\.trails/u0a187\\}$`,
        'm',
      ),
    )
    expect(appiumPids(dump, PKG)).toEqual([pid])
    expect(appiumPids(await sh(`dumpsys activity processes ${PKG}`), PKG)).toEqual([pid])
    await sh(`am force-stop ${PKG}`)
    expect(appiumPids(await sh('dumpsys activity processes'), PKG)).toEqual([])
  })
})
