// The lab's shared lease store against a real Redis server: leases with fencing tokens that only
// grow, a holder frozen past its lease's life or killed, the store unreachable at the start and
// restarted mid-run, phones spread over the runners, and what runners share about a phone.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { PhoneAddress } from '../../src/device/index.js'
import { redisLeaseStore, type LeaseStore } from '../../src/lab/index.js'
import { isEnergyError } from '../../src/model/index.js'
import { freePort, hasRedis, startRedis, type RedisServer } from './_redis.js'

const HOLDER = fileURLToPath(new URL('./_holder.ts', import.meta.url))
const TTL_MS = 1_500
const phone = (serial: string, host = '127.0.0.2'): PhoneAddress => ({ host, port: 5037, serial })

let redis: RedisServer
const stores: LeaseStore[] = []
async function store(run = 'run-1', ttlMs = TTL_MS): Promise<LeaseStore> {
  const opened = await redisLeaseStore({ url: redis.url, ttlMs, run, pollMs: 50 })
  stores.push(opened)
  return opened
}

beforeAll(async () => {
  if (hasRedis) redis = await startRedis()
})
afterAll(async () => {
  for (const s of stores) await s.close()
  await redis?.stop()
})

/** Another runner's process holding a phone: its fence, and a way to ask it things. */
async function otherRunner(serial: string): Promise<{
  child: ChildProcessWithoutNullStreams
  fence: number
  ask: (line: string) => Promise<string>
}> {
  const child = spawn(process.execPath, [
    '--import',
    'tsx',
    HOLDER,
    redis.url,
    String(TTL_MS),
    serial,
  ])
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const next = async (): Promise<string> => String((await lines.next()).value ?? '')
  const first = await next()
  expect(first).toMatch(/^fence \d+$/)
  return {
    child,
    fence: Number(first.slice('fence '.length)),
    ask: async (line) => {
      child.stdin.write(`${line}\n`)
      return next()
    },
  }
}

describe.skipIf(!hasRedis)('leases in Redis', () => {
  test('one holder at a time; the next waits, then takes the phone with a higher fence', async () => {
    const [a, b] = [await store(), await store()]
    const first = await a.acquire(phone('p1'), { owner: 'test A' })
    const waits: (string | undefined)[] = []
    const second = b.acquire(phone('p1'), { owner: 'test B', onWait: (h) => waits.push(h?.owner) })
    await sleep(300)
    expect(waits).toEqual(['test A'])
    await first.assertHeld('still mine')
    await first.release()
    const taken = await second
    expect(Number(taken.fence)).toBeGreaterThan(Number(first.fence))
    expect(taken.holder.owner).toBe('test B')
    // The first holder's token no longer passes the fencing check.
    const stale = await first.assertHeld('late').catch((e: unknown) => e)
    expect(isEnergyError(stale) && stale.code).toBe('E_LEASE_LOST')
    await taken.release()
  })

  test('a relabelled lease names its new owner to waiters, and only while it is held', async () => {
    const [a, b] = [await store(), await store()]
    const first = await a.acquire(phone('p9'), { owner: 'file › first test' })
    const waits: (string | undefined)[] = []
    const second = b.acquire(phone('p9'), { owner: 'test B', onWait: (h) => waits.push(h?.owner) })
    await sleep(200)
    await first.relabel('file › second test')
    await sleep(300)
    expect(waits).toEqual(['file › first test', 'file › second test'])
    await first.release()
    const taken = await second
    // A late relabel of the released lease changes nothing: the waiters of the new holder see it.
    await first.relabel('too late')
    const third = b.acquire(phone('p9'), {
      owner: 'test C',
      timeoutMs: 300,
      onWait: (h) => waits.push(h?.owner),
    })
    expect(isEnergyError(await third.catch((e: unknown) => e))).toBe(true)
    expect(waits.at(-1)).toBe('test B')
    await taken.release()
  })

  test('the same serial on two lab hosts is two phones', async () => {
    const s = await store()
    const one = await s.acquire(phone('emulator-5554', '127.0.0.2'), { owner: 'x' })
    const two = await s.acquire(phone('emulator-5554', '127.0.0.3'), { owner: 'y' })
    expect(one.serial).toBe('127.0.0.2:5037/emulator-5554')
    expect(two.serial).toBe('127.0.0.3:5037/emulator-5554')
    await one.release()
    await two.release()
  })

  test('a lease is renewed while held, far past its time-to-live', async () => {
    const s = await store()
    const lease = await s.acquire(phone('p2'), { owner: 'long test' })
    await sleep(TTL_MS * 2.5)
    await lease.assertHeld('after 2.5 time-to-lives')
    const other = await store()
    const blocked = await other
      .acquire(phone('p2'), { owner: 'other', timeoutMs: 300 })
      .catch((e: unknown) => e)
    expect(isEnergyError(blocked) && blocked.code).toBe('E_LEASE_TIMEOUT')
    expect((blocked as Error).message).toContain('held by long test')
    await lease.release()
  })

  test('a frozen runner loses its lease when it expires: another takes the phone, and the frozen one may not measure', async () => {
    const frozen = await otherRunner('p3')
    frozen.child.kill('SIGSTOP')
    try {
      const s = await store()
      const started = Date.now()
      const lease = await s.acquire(phone('p3'), { owner: 'survivor' })
      expect(Date.now() - started).toBeGreaterThanOrEqual(TTL_MS * 0.5)
      expect(Number(lease.fence)).toBeGreaterThan(frozen.fence)
      frozen.child.kill('SIGCONT')
      expect(await frozen.ask('check')).toBe('E_LEASE_LOST')
      await lease.assertHeld('the survivor still holds it')
      await lease.release()
    } finally {
      frozen.child.kill('SIGKILL')
    }
  })

  test('a killed runner leaves nothing behind: its lease expires and the phone goes back to the pool', async () => {
    const killed = await otherRunner('p4')
    killed.child.kill('SIGKILL')
    const s = await store()
    const lease = await s.acquire(phone('p4'), { owner: 'next runner', timeoutMs: TTL_MS * 4 })
    expect(Number(lease.fence)).toBeGreaterThan(killed.fence)
    await lease.release()
  })

  test('the phones are spread over the runners: the least used first', async () => {
    const pool = ['a', 'b', 'c', 'd'].map((s) => phone(s))
    const runner1 = [await store(), await store()]
    const runner2 = [await store(), await store()]
    const chosen = [
      await runner1[0]!.assign(pool, 1),
      await runner1[1]!.assign(pool, 2),
      await runner2[0]!.assign(pool, 1),
      await runner2[1]!.assign(pool, 2),
    ]
    expect(new Set(chosen.map((p) => p.serial)).size).toBe(4)
    // A process that asks again (its next test file) keeps one place, not two: the only phone
    // with no other process is the one it had.
    expect((await runner1[0]!.assign(pool, 1)).serial).toBe(chosen[0]!.serial)
    // With every phone taken once, the next two processes go to two different phones.
    const fifth = await (await store()).assign(pool, 1)
    const sixth = await (await store()).assign(pool, 1)
    expect(sixth.serial).not.toBe(fifth.serial)
  })

  test('each runner’s process gets its own forward port per phone on a lab host', async () => {
    const [runner1, runner2] = [await store(), await store()]
    const onA = phone('fwd-1', '127.0.0.4')
    const onB = phone('fwd-2', '127.0.0.4')
    const ports = [
      await runner1.reservePort(onA),
      await runner2.reservePort(onA),
      await runner1.reservePort(onB),
    ]
    expect(new Set(ports).size).toBe(3)
    for (const p of ports) expect(p).toBeGreaterThanOrEqual(8200)
    // The same process asking again for the same phone keeps its port (a session reloaded).
    expect(await runner1.reservePort(onA)).toBe(ports[0])
    // Another host's forwards listen elsewhere: its ports start over.
    expect(await runner1.reservePort(phone('fwd-1', '127.0.0.5'))).toBe(8200)
    // A runner that ends gives its ports back.
    await runner2.close()
    expect(await (await store()).reservePort(onB)).toBe(ports[1])
  })

  test('a port busy on the runner’s own machine is passed over, and one that becomes busy is given back', async () => {
    const [runner1, runner2] = [await store(), await store()]
    const onA = phone('fwd-1', '127.0.0.6')
    const busyHere = new Set([8200, 8201])
    const usable = (port: number): Promise<boolean> => Promise.resolve(!busyHere.has(port))
    expect(await runner1.reservePort(onA, usable)).toBe(8202)
    // Another runner, whose machine has 8200 free, takes it: the busy ports were not kept.
    expect(
      await runner2.reservePort(phone('fwd-2', '127.0.0.6'), () => Promise.resolve(true)),
    ).toBe(8200)
    // The port runner1 holds becomes busy on its machine: it moves on, and 8202 is free again.
    busyHere.add(8202)
    expect(await runner1.reservePort(onA, usable)).toBe(8203)
    expect(await (await store()).reservePort(phone('fwd-3', '127.0.0.6'))).toBe(8201)
    expect(await (await store()).reservePort(phone('fwd-4', '127.0.0.6'))).toBe(8202)
    // Nothing usable: undefined, and nothing held.
    const none = await store()
    expect(await none.reservePort(phone('fwd-5', '127.0.0.7'), () => Promise.resolve(false))).toBe(
      undefined,
    )
    expect(await (await store()).reservePort(phone('fwd-6', '127.0.0.7'))).toBe(8200)
  })

  test('the run’s baseline is shared by runners of the same run only; what is switched on is the phone’s', async () => {
    const [shard1, shard2, otherRun] = [
      await store('ci-7'),
      await store('ci-7'),
      await store('ci-8'),
    ]
    await shard1.writeShared(phone('p5'), 'baseline', '{"baselineW":0.5}')
    expect(await shard2.readShared(phone('p5'), 'baseline')).toBe('{"baselineW":0.5}')
    expect(await otherRun.readShared(phone('p5'), 'baseline')).toBeUndefined()
    await shard1.writeShared(phone('p5'), 'async', '{"origins":{}}')
    expect(await otherRun.readShared(phone('p5'), 'async')).toBe('{"origins":{}}')
    await shard2.forgetRun()
    expect(await shard1.readShared(phone('p5'), 'baseline')).toBeUndefined()
    expect(await shard1.readShared(phone('p5'), 'async')).toBe('{"origins":{}}')
  })
})

describe.skipIf(!hasRedis)('the store unreachable', () => {
  test('at the start: a clear error naming the store and why, at once (not after the timeout)', async () => {
    const port = await freePort()
    const error = await redisLeaseStore({
      url: `redis://:secret@127.0.0.1:${port}`,
      ttlMs: TTL_MS,
      run: 'r',
      timeoutMs: 60_000,
    }).catch((e: unknown) => e)
    expect(isEnergyError(error) && error.code).toBe('E_LEASE_STORE_UNREACHABLE')
    expect((error as Error).message).toContain(`the lease store redis://:***@127.0.0.1:${port}`)
    expect((error as Error).message).not.toContain('secret')
    // The refused connection itself, not a timeout (the test's own 30 s would end first).
    expect((error as Error).message).toContain('ECONNREFUSED')
  })

  test('restarted mid-run: no check passes while it is down; afterwards a new lease works and the old one is refused', async () => {
    const s = await store('restart', 5_000)
    const lease = await s.acquire(phone('p6'), { owner: 'before the restart' })
    await redis.stop()
    const down = await lease.assertHeld('starting a window').catch((e: unknown) => e)
    expect(isEnergyError(down) && down.code).toBe('E_LEASE_STORE_UNREACHABLE')
    await redis.restart()
    // The client reconnects on its own; the empty store knows no lease: the old one is gone.
    let answer: unknown
    for (let i = 0; i < 50; i++) {
      answer = await lease.assertHeld('after the restart').catch((e: unknown) => e)
      if (isEnergyError(answer) && answer.code === 'E_LEASE_LOST') break
      await sleep(100)
    }
    expect(isEnergyError(answer) && answer.code).toBe('E_LEASE_LOST')
    const fresh = await s.acquire(phone('p6'), { owner: 'after the restart', timeoutMs: 5_000 })
    await fresh.assertHeld('after the restart')
    await fresh.release()
  })
})
