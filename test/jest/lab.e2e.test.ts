// Jest shards on a shared lab: the Jest flavour of the demo's UI tests (example-app-tests/jest/),
// its config pointed at one virtual lab host (127.0.0.2, two phones) with the leases in a real
// Redis server, run as two Jest shards at once (`--shard=1/2`, `--shard=2/2`). Jest has no merge
// of reports: each shard writes its own, and together they hold every test, measured on the lab
// host's phones, with no two windows overlapping on a phone's own clock.
import { existsSync } from 'node:fs'
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'
import type { MeasuredEnergyResult } from '../../src/model/index.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../src/virtual-device/index.js'
import { hasRedis, startRedis, type RedisServer } from '../lab/_redis.js'
import { jestBin, repo, runJest } from './_jest.js'

const hasBuild =
  existsSync(join(repo, 'dist/src/public/jest-environment.js')) && existsSync(jestBin)

const scratch = join(repo, 'test/.scratch/jest-lab')
const project = join(scratch, 'project')

const CONFIG = `export default {
  testEnvironment: 'vitest-energy/jest-environment',
  testEnvironmentOptions: {
    app: 'com.example.trails',
    adb: JSON.parse(process.env['LAB_ADB']),
    baselineMs: 1000,
    batteryCapacityMah: 4614,
  },
  globalSetup: 'vitest-energy/jest-global-setup',
  globalTeardown: 'vitest-energy/jest-global-teardown',
  reporters: ['default', ['vitest-energy/jest-reporter', { outputFile: process.env['LAB_REPORT'] }]],
  maxWorkers: 2,
  transform: {},
}
`

let redis: RedisServer
let host: VirtualDeviceServer

beforeAll(async () => {
  if (!hasBuild || !hasRedis) return
  await rm(scratch, { recursive: true, force: true })
  await cp(join(repo, 'example-app-tests/jest'), project, { recursive: true })
  await writeFile(join(project, 'jest.config.js'), CONFIG)
  redis = await startRedis()
  host = await startVirtualDevice({ host: '127.0.0.2', serialPrefix: 'lab', devices: 2 })
})

afterAll(async () => {
  await host?.close()
  await redis?.stop()
  await rm(scratch, { recursive: true, force: true })
})

test.skipIf(!hasBuild || !hasRedis)(
  'two Jest shards share the lab’s phones: every test measured once, no overlapping windows',
  async () => {
    const shard = async (i: number) => {
      const tmp = join(scratch, `tmp-${i}`)
      await mkdir(tmp, { recursive: true })
      return runJest([`--shard=${i}/2`], {
        cwd: project,
        env: {
          TMPDIR: tmp,
          CI: '1',
          LAB_ADB: JSON.stringify([{ host: host.host, port: host.port }]),
          LAB_REPORT: join(scratch, `energy-${i}.json`),
          VITEST_ENERGY_LEASES: redis.url,
          VITEST_ENERGY_RUN_ID: 'jest-lab',
        },
        timeoutMs: 240_000,
      })
    }
    const shards = await Promise.all([shard(1), shard(2)])
    for (const s of shards) expect(s.code, s.stdout + s.stderr).toBe(0)
    const reports = await Promise.all(
      [1, 2].map(
        async (i) =>
          JSON.parse(await readFile(join(scratch, `energy-${i}.json`), 'utf8')) as EnergyReport,
      ),
    )
    const tests = reports.flatMap((r) => r.tests)
    expect(tests.map((t) => t.name).sort()).toEqual([
      'a dim screen draws less than a bright one',
      'an idle phone draws less than 2 W',
      'opening the feed stays within its budget',
      'opening the map',
      'refreshing the feed draws less than 3 W on average',
      'the GPS is off after leaving the map (fails: leaking GPS listener)',
    ])
    const windows = tests.flatMap((t) =>
      t.results.filter((r): r is MeasuredEnergyResult => r.status === 'measured'),
    )
    expect(windows.length).toBe(tests.flatMap((t) => t.results).length)
    const byPhone = new Map<string, MeasuredEnergyResult[]>()
    for (const w of windows) {
      expect(w.device?.adbServer).toBe(`${host.host}:${host.port}`)
      const phone = w.device?.serial ?? ''
      byPhone.set(phone, [...(byPhone.get(phone) ?? []), w])
    }
    for (const [phone, list] of byPhone) {
      const sorted = [...list].sort((a, b) => a.window.startNs - b.window.startNs)
      for (let i = 1; i < sorted.length; i++)
        expect(sorted[i]!.window.startNs, phone).toBeGreaterThanOrEqual(sorted[i - 1]!.window.endNs)
    }
  },
  300_000,
)
