// Faults in a lab, each with real processes: a real Redis server holds the leases, virtual lab
// hosts serve the phones on their own loopback addresses, and Vitest runs test/fixtures/lab-faults
// (three windows per file; each leaves a mark saying which runner and phone it is on, so that the
// fault lands while a window is open). Nothing of the surviving side may be lost.
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { createClient } from 'redis'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'
import type { MeasuredEnergyResult } from '../../src/model/index.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../src/virtual-device/index.js'
import { hasRedis, startRedis, type RedisServer } from '../lab/_redis.js'
import { energyRunArgs, projectEnv } from './_project-env.js'

const root = fileURLToPath(new URL('../fixtures/lab-faults/', import.meta.url))
const vitestBin = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))
const TTL_MS = 3_000

interface Mark {
  readonly runner: string
  readonly server: string
  readonly serial: string
  readonly test: string
}

let redis: RedisServer
let dir: string
const hosts: VirtualDeviceServer[] = []

beforeAll(async () => {
  if (!hasRedis) return
  redis = await startRedis()
})
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close().catch(() => undefined)
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})
afterAll(async () => {
  await redis?.stop()
})

/** The test's own folder, with the folder the windows leave their marks in. */
async function freshDir(): Promise<void> {
  dir = await mkdtemp(join(tmpdir(), 'vitest-energy-faults-'))
  await mkdir(join(dir, 'marks'))
}

async function labHost(address: string, devices = 1): Promise<VirtualDeviceServer> {
  const host = await startVirtualDevice({ host: address, serialPrefix: 'lab', devices })
  hosts.push(host)
  return host
}

/** A Vitest run of the fixture in its own process group (so that it can be killed whole). */
async function runner(name: string, args: string[], env: Record<string, string>) {
  const out = join(dir, name)
  await mkdir(out, { recursive: true })
  const child = spawn(process.execPath, [vitestBin, ...energyRunArgs(out), ...args], {
    cwd: root,
    env: projectEnv(out, {
      LAB_REDIS: redis.url,
      LAB_TTL_MS: String(TTL_MS),
      LAB_MARKS: join(dir, 'marks'),
      LAB_RUNNER: name,
      ...env,
    }),
    detached: true,
  })
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)))
  return {
    exited,
    output: () => output,
    kill: () => process.kill(-(child.pid ?? 0), 'SIGKILL'),
    report: async () =>
      JSON.parse(await readFile(join(out, 'energy.json'), 'utf8')) as EnergyReport,
  }
}

/** The marks left so far, oldest first. */
async function marks(): Promise<Mark[]> {
  const names = (await readdir(join(dir, 'marks')).catch(() => [] as string[])).sort()
  return Promise.all(
    names.map(async (n) => JSON.parse(await readFile(join(dir, 'marks', n), 'utf8')) as Mark),
  )
}

async function waitForMark(
  match: (m: Mark) => boolean,
  output: () => string,
  timeoutMs = 120_000,
): Promise<Mark> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const found = (await marks()).find(match)
    if (found !== undefined) return found
    await sleep(50)
  }
  throw new Error(`no such window started in time:\n${output()}`)
}

/** The lease keys left in the store. */
async function leftLeases(): Promise<string[]> {
  const client = createClient({ url: redis.url })
  await client.connect()
  try {
    return await client.keys('vitest-energy:lease:*')
  } finally {
    client.destroy()
  }
}

function measured(report: EnergyReport): MeasuredEnergyResult[] {
  return report.tests.flatMap((t) =>
    t.results.filter((r): r is MeasuredEnergyResult => r.status === 'measured'),
  )
}

describe.skipIf(!hasRedis)('faults in a lab', () => {
  test('a lab host stops mid-window: its tests fail naming it, the other host’s all pass, no lease is left', async () => {
    await freshDir()
    const [a, b] = [await labHost('127.0.0.2'), await labHost('127.0.0.3')]
    const serverB = `${b.host}:${b.port}`
    const run = await runner('one', [], {
      LAB_ADB: JSON.stringify([a, b].map((h) => ({ host: h.host, port: h.port }))),
    })
    await waitForMark((m) => m.server === serverB, run.output)
    await b.close()
    const code = await run.exited
    expect(code, run.output()).toBe(1)
    const report = await run.report()
    expect(report.tests).toHaveLength(12)
    for (const t of report.tests) {
      if (t.state === 'passed') continue
      // Every failure is host B's, and says so.
      expect(t.errors.join('\n'), t.name).toContain('E_ADB_UNREACHABLE')
      expect(t.errors.join('\n'), t.name).toContain(`no adb server on ${serverB}`)
    }
    const onA = measured(report)
    expect(onA.length).toBeGreaterThanOrEqual(6)
    for (const r of onA) expect(r.device?.adbServer).toBe(`${a.host}:${a.port}`)
    // Every test that ran on host A passed: the failures are exactly the tests that were on B.
    const failed = report.tests.filter((t) => t.state !== 'passed').length
    expect(failed + onA.length).toBe(12)
    expect(await leftLeases()).toEqual([])
  }, 240_000)

  test('a runner killed mid-window: its lease expires, the other runner takes the phone and loses nothing', async () => {
    await freshDir()
    const host = await labHost('127.0.0.2')
    const env = { LAB_ADB: JSON.stringify([{ host: host.host, port: host.port }]) }
    const killed = await runner('killed', ['--shard=1/2'], env)
    const survivor = await runner('survivor', ['--shard=2/2'], env)
    const mark = await waitForMark((m) => m.runner === 'killed', killed.output)
    killed.kill()
    await killed.exited
    const code = await survivor.exited
    expect(code, survivor.output()).toBe(0)
    const report = await survivor.report()
    expect(report.tests).toHaveLength(6)
    expect(measured(report)).toHaveLength(6)
    // It waited for the killed runner's lease (one phone), and took the phone once it expired.
    expect(survivor.output()).toMatch(new RegExp(`held by [a-d]\\.test\\.ts › ${mark.test}\\)`))
    expect(await leftLeases()).toEqual([])
  }, 240_000)

  test('the store restarted mid-window: that window is refused, every later test measures', async () => {
    await freshDir()
    const host = await labHost('127.0.0.2')
    const run = await runner('one', [], {
      LAB_ADB: JSON.stringify([{ host: host.host, port: host.port }]),
    })
    await waitForMark((m) => m.test === 'b 2' || m.test === 'c 2', run.output)
    await redis.stop()
    await sleep(500)
    await redis.restart()
    const code = await run.exited
    expect(code, run.output()).toBe(1)
    const report = await run.report()
    expect(report.tests).toHaveLength(12)
    const failed = report.tests.filter((t) => t.state !== 'passed')
    expect(failed.length, run.output()).toBeGreaterThanOrEqual(1)
    expect(failed.length, run.output()).toBeLessThanOrEqual(3)
    for (const t of failed)
      expect(t.errors.join('\n'), t.name).toMatch(/E_LEASE_LOST|E_LEASE_STORE_UNREACHABLE/)
    expect(measured(report)).toHaveLength(12 - failed.length)
    expect(await leftLeases()).toEqual([])
  }, 240_000)
})
