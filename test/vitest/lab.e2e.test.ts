// A lab shared by two runners: two virtual lab hosts on two loopback addresses (127.0.0.2 and
// 127.0.0.3), two phones each, with the same serials' scheme on both; a real Redis server holds
// the leases. Two Vitest shards of test/fixtures/lab-project run at the same time, each in its
// own temporary folder (two machines share nothing but the store and the adb servers), then
// `--merge-reports` makes one report. Every test is measured, no two windows overlap on a phone
// (on the phone's own clock), each result names its lab host, and each phone's idle baseline was
// measured once for the run (six files: three test processes per shard share the four phones).
// The shards' tests open the app over adb (UiAutomator2 runs one session per phone, and two
// runners' Appium servers do not know of each other's); a second test has two runners drive the
// phones of one lab host through Appium, sessions of both taking turns on each phone.
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'
import type { MeasuredEnergyResult } from '../../src/model/index.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../src/virtual-device/index.js'
import { captured } from '../e2e/captured.js'
import { hasRedis, startRedis, type RedisServer } from '../lab/_redis.js'
import { energyRunArgs, projectEnv } from './_project-env.js'

const root = fileURLToPath(new URL('../fixtures/lab-project/', import.meta.url))
const vitestBin = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))

let redis: RedisServer
let hosts: VirtualDeviceServer[] = []
let dir: string

beforeAll(async () => {
  if (!hasRedis) return
  dir = await mkdtemp(join(tmpdir(), 'vitest-energy-lab-'))
  redis = await startRedis()
  hosts = [
    await startVirtualDevice({ host: '127.0.0.2', serialPrefix: 'lab', devices: 2, seed: 3 }),
    await startVirtualDevice({ host: '127.0.0.3', serialPrefix: 'lab', devices: 2, seed: 7 }),
  ]
})
afterAll(async () => {
  for (const host of hosts) await host.close()
  await redis?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

function shardEnv(name: string, run: string): NodeJS.ProcessEnv {
  return projectEnv(join(dir, name), {
    LAB_ADB: JSON.stringify(hosts.map((h) => ({ host: h.host, port: h.port }))),
    VITEST_ENERGY_LEASES: redis.url,
    VITEST_ENERGY_RUN_ID: run,
  })
}

describe.skipIf(!hasRedis)('two shards on a shared lab', () => {
  test('every test measured once, no overlapping windows on a phone, each named by its host', async () => {
    const run = `lab-${randomBytes(4).toString('hex')}`
    const blobs = join(dir, 'blobs')
    await mkdir(blobs, { recursive: true })
    const shard = async (i: number) => {
      await mkdir(join(dir, `shard-${i}`), { recursive: true })
      return captured(
        process.execPath,
        [
          vitestBin,
          'run',
          `--shard=${i}/2`,
          '--reporter=blob',
          `--outputFile.blob=${join(blobs, `blob-${i}.json`)}`,
        ],
        { cwd: root, env: shardEnv(`shard-${i}`, run), timeoutMs: 240_000 },
      )
    }
    const [one, two] = await Promise.all([shard(1), shard(2)])
    expect(one.code, one.output).toBe(0)
    expect(two.code, two.output).toBe(0)
    for (const output of [one.output, two.output])
      expect(output).toContain(`leases in ${redis.url} (run ${run}); a pool of 4 phones`)

    await mkdir(join(dir, 'merged'), { recursive: true })
    const merged = await captured(
      process.execPath,
      [
        vitestBin,
        'run',
        `--merge-reports=${blobs}`,
        '--reporter=energy',
        `--outputFile.energy=${join(dir, 'energy.json')}`,
        `--outputFile.energy-html=${join(dir, 'report.html')}`,
      ],
      { cwd: root, env: shardEnv('merged', run), timeoutMs: 120_000 },
    )
    expect(merged.code, merged.output).toBe(0)
    const report = JSON.parse(await readFile(join(dir, 'energy.json'), 'utf8')) as EnergyReport

    // Every test of both shards, once.
    const names = ['feed', 'map', 'profile', 'search', 'settings', 'sync'].flatMap((f) => [
      `${f}.test.ts › ${f}: first`,
      `${f}.test.ts › ${f}: second`,
    ])
    names.push('budget.test.ts › the home screen within its budget')
    expect(report.tests.map((t) => `${t.file} › ${t.name}`).sort()).toEqual(names.sort())
    // The committed budget was checked once, in the shard that ran its test.
    const budgeted = report.tests.find((t) => t.file === 'budget.test.ts')
    expect(budgeted?.limits?.filter((l) => l.matcher === 'toStayWithinBudget')).toMatchObject([
      { passed: true },
    ])
    const results = report.tests.flatMap((t) =>
      t.results.filter((r): r is MeasuredEnergyResult => r.status === 'measured'),
    )
    expect(results).toHaveLength(13)

    // Each result names its lab host; the serials alone (lab-0001, lab-0002 on both) would not.
    const servers = new Set(hosts.map((h) => `${h.host}:${h.port}`))
    for (const r of results) expect(servers.has(r.device?.adbServer ?? '')).toBe(true)
    const byPhone = new Map<string, MeasuredEnergyResult[]>()
    for (const r of results) {
      const phone = `${r.device?.adbServer}/${r.device?.serial}`
      byPhone.set(phone, [...(byPhone.get(phone) ?? []), r])
    }
    // Both shards drew from the whole pool: more than one host's phones measured.
    expect(new Set(results.map((r) => r.device?.adbServer)).size).toBe(2)

    for (const [phone, windows] of byPhone) {
      // No two windows on one phone overlap, on the phone's own boottime clock.
      const sorted = [...windows].sort((a, b) => a.window.startNs - b.window.startNs)
      for (let i = 1; i < sorted.length; i++)
        expect(sorted[i]!.window.startNs, phone).toBeGreaterThanOrEqual(sorted[i - 1]!.window.endNs)
      // One idle baseline per phone for the run, whichever shard measured first: the same value,
      // measured once in both shards together (6 test processes share the 4 phones).
      expect(new Set(windows.map((w) => w.baselinePowerW)).size, phone).toBe(1)
      const [server, serial] = [windows[0]!.device!.adbServer!, windows[0]!.device!.serial]
      const measuring = `measuring the idle baseline of ${serial} on ${server} `
      expect((one.output + two.output).split(measuring).length - 1, phone).toBe(1)
    }

    // The HTML report names the host of a phone the serial alone would not tell apart.
    const html = await readFile(join(dir, 'report.html'), 'utf8')
    expect(html).toContain(`(lab-0001 on ${hosts[1]!.host}:${hosts[1]!.port})`)
  }, 300_000)

  test('two runners drive shared lab phones through Appium: each its own forward port on the host', async () => {
    const host = hosts[0]!
    const run = `appium-${randomBytes(4).toString('hex')}`
    const shard = async (i: number) => {
      const out = join(dir, `appium-${i}`)
      await mkdir(out, { recursive: true })
      return captured(process.execPath, [vitestBin, ...energyRunArgs(out), `--shard=${i}/2`], {
        cwd: root,
        env: {
          ...shardEnv(`appium-${i}`, run),
          LAB_ADB: JSON.stringify([{ host: host.host, port: host.port }]),
          LAB_INCLUDE: 'driver',
        },
        timeoutMs: 240_000,
      })
    }
    // Two shards of two files each: four test processes, each with its Appium session, on two
    // phones — sessions of both runners take turns on each phone.
    const results = await Promise.all([shard(1), shard(2)])
    for (const [i, r] of results.entries()) {
      expect(r.code, r.output).toBe(0)
      const report = JSON.parse(
        await readFile(join(dir, `appium-${i + 1}`, 'energy.json'), 'utf8'),
      ) as EnergyReport
      expect(report.tests).toHaveLength(6)
      for (const t of report.tests) {
        const [result] = t.results
        expect(result?.status, t.name).toBe('measured')
        expect((result as MeasuredEnergyResult).device?.adbServer).toBe(`${host.host}:${host.port}`)
      }
    }
  }, 300_000)
})
