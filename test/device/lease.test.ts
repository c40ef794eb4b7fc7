import { spawn, type ChildProcess } from 'node:child_process'
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import {
  acquireLease,
  leaseFileName,
  readLeaseHolderSync,
  type LeaseHolder,
} from '../../src/device/lease.js'
import { isEnergyError } from '../../src/model/index.js'

const WORKER = join(import.meta.dirname, '_helpers', 'lease-worker.ts')

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 've-lease-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

function startWorker(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', WORKER, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    // tsx would keep its compile cache in $TMPDIR/tsx-<uid> after the run.
    env: { ...process.env, TSX_DISABLE_CACHE: '1' },
  })
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString()
      const nl = buffer.indexOf('\n')
      if (nl >= 0) resolve(buffer.slice(0, nl))
    })
    child.once('exit', (code) => reject(new Error(`worker exited ${code} before printing`)))
  })
}

describe('acquireLease across processes', () => {
  test('windows of contending worker processes never overlap', async () => {
    const out = join(dir, 'intervals.txt')
    const workers = [0, 1, 2].map(() => startWorker(['pixel-7', dir, out, '4', '40']))
    await Promise.all(workers.map(firstLine)) // all three are loaded and waiting at the barrier
    writeFileSync(join(dir, 'go'), '')
    const codes = await Promise.all(workers.map(exited))
    expect(codes).toEqual([0, 0, 0])
    const intervals = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const [pid, start, end, waits] = line.split(' ')
        return { pid: Number(pid), start: BigInt(start!), end: BigInt(end!), waits: Number(waits) }
      })
      .sort((a, b) => (a.start < b.start ? -1 : 1))
    expect(intervals).toHaveLength(12)
    expect(new Set(intervals.map((i) => i.pid)).size).toBe(3)
    // The barrier makes them contend: someone must have waited, or this test proved nothing.
    expect(
      intervals.reduce((n, i) => n + i.waits, 0),
      'workers that had to wait',
    ).toBeGreaterThan(0)
    for (let i = 1; i < intervals.length; i++) {
      expect(
        intervals[i]!.start >= intervals[i - 1]!.end,
        `window ${i} starts before ${i - 1} ends`,
      ).toBe(true)
    }
    expect(existsSync(join(dir, leaseFileName('pixel-7'))), 'lock removed at the end').toBe(false)
  })

  test('a worker killed with SIGKILL while holding the lease does not block others', async () => {
    const holder = startWorker(['pixel-7', dir, '', '1', '0', 'hold-forever'])
    expect(await firstLine(holder)).toMatch(/^held /)
    const held = readLeaseHolderSync('pixel-7', dir)
    expect(held?.pid).toBe(holder.pid)
    holder.kill('SIGKILL')
    await exited(holder)
    const logs: string[] = []
    // staleMs is long: only the dead-pid check can free the lock in time.
    const lease = await acquireLease('pixel-7', {
      dir,
      owner: 'survivor',
      timeoutMs: 20_000,
      staleMs: 600_000,
      pollMs: 10,
      log: (m) => logs.push(m),
    })
    expect(lease.holder.owner).toBe('survivor')
    expect(logs.join('\n')).toMatch(new RegExp(`pid ${holder.pid}\\) is dead`))
    await lease.release()
  })

  test('the exit hook releases a lease the process forgot to release', async () => {
    const child = startWorker(['pixel-7', dir, '', '1', '0', 'exit-without-release'])
    expect(await firstLine(child)).toMatch(/^held /)
    expect(await exited(child)).toBe(0)
    expect(existsSync(join(dir, leaseFileName('pixel-7')))).toBe(false)
  })
})

describe('acquireLease in one process', () => {
  test('release() is idempotent and frees the device', async () => {
    const a = await acquireLease('s1', { dir, owner: 'a' })
    await a.release()
    await a.release()
    expect(a.released).toBe(true)
    const b = await acquireLease('s1', { dir, owner: 'b', timeoutMs: 1_000 })
    expect(readLeaseHolderSync('s1', dir)?.owner).toBe('b')
    await b.release()
  })

  test('the fencing check: a lease taken over while held fails assertHeld with E_LEASE_LOST', async () => {
    const a = await acquireLease('s-fence', { dir, owner: 'a' })
    await a.assertHeld('starting a window')
    // Another worker judged it stale and took the phone (the lock file is replaced).
    rmSync(join(dir, leaseFileName('s-fence')))
    const b = await acquireLease('s-fence', { dir, owner: 'b', timeoutMs: 1_000 })
    expect(b.fence).not.toBe(a.fence)
    const lost = await a.assertHeld('accepting a window').catch((e: unknown) => e)
    expect(isEnergyError(lost) && lost.code).toBe('E_LEASE_LOST')
    expect((lost as Error).message).toContain(
      'is no longer held by this worker (accepting a window)',
    )
    await b.assertHeld('still b')
    await b.release()
    const released = await b.assertHeld('after release').catch((e: unknown) => e)
    expect(isEnergyError(released) && released.code).toBe('E_LEASE_LOST')
  })

  test('a live holder makes others wait, then time out with E_LEASE_TIMEOUT naming the holder', async () => {
    const a = await acquireLease('s2', { dir, owner: 'test A' })
    const waits: Array<LeaseHolder | undefined> = []
    const error = await acquireLease('s2', {
      dir,
      owner: 'test B',
      timeoutMs: 150,
      pollMs: 10,
      onWait: (h) => waits.push(h),
    }).catch((e: unknown) => e)
    expect(isEnergyError(error) && error.code).toBe('E_LEASE_TIMEOUT')
    expect((error as Error).message).toContain('test A')
    expect(waits.map((w) => w?.owner)).toEqual(['test A'])
    await a.release()
  })

  test('a relabelled lease names its new owner to waiters; a relabel never outlives the release', async () => {
    const a = await acquireLease('s9', { dir, owner: 'file › first test' })
    const waits: Array<string | undefined> = []
    const waiting = acquireLease('s9', {
      dir,
      owner: 'other worker',
      timeoutMs: 5_000,
      pollMs: 10,
      onWait: (h) => waits.push(h?.owner),
    })
    while (waits.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    await a.relabel('file › second test')
    while (waits.length < 2) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(waits).toEqual(['file › first test', 'file › second test'])
    const path = join(dir, leaseFileName('s9'))
    const holder = (): LeaseHolder | undefined => readLeaseHolderSync('s9', dir)
    expect(holder()).toMatchObject({
      owner: 'file › second test',
      token: a.holder.token,
    })
    // Not awaited, then released at once: the lock must not come back after the release.
    void a.relabel('file › third test')
    await a.release()
    const b = await waiting
    expect(holder()).toMatchObject({ owner: 'other worker' })
    await a.relabel('too late')
    expect(holder()).toMatchObject({ owner: 'other worker' })
    await b.release()
    expect(existsSync(path)).toBe(false)
  })

  test('an aborted wait → E_ABORTED', async () => {
    const a = await acquireLease('s7', { dir, owner: 'a' })
    const controller = new AbortController()
    controller.abort()
    const error = await acquireLease('s7', { dir, signal: controller.signal }).catch(
      (e: unknown) => e,
    )
    expect(isEnergyError(error) && error.code).toBe('E_ABORTED')
    await a.release()
  })

  test('a lock from another host with a stale heartbeat is taken over, and logged', async () => {
    const path = join(dir, leaseFileName('s3'))
    const foreign: LeaseHolder = {
      serial: 's3',
      pid: process.pid, // alive here, but on another host the pid means nothing
      hostname: 'some-other-host',
      owner: 'ci shard 2',
      acquiredAtMs: Date.now() - 120_000,
      token: 'deadbeef',
    }
    writeFileSync(path, JSON.stringify(foreign))
    const old = new Date(Date.now() - 60_000)
    utimesSync(path, old, old)
    const logs: string[] = []
    const lease = await acquireLease('s3', {
      dir,
      staleMs: 30_000,
      timeoutMs: 2_000,
      log: (m) => logs.push(m),
    })
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatch(/ci shard 2.*heartbeat is \d+ ms old/)
    await lease.release()
  })

  test('a lock whose pid now belongs to another process (pid reuse) is taken over', async () => {
    const path = join(dir, leaseFileName('s8'))
    const held = readFileSync('/proc/self/stat', 'utf8')
    expect(held).toMatch(/^\d+ \(/) // Linux
    writeFileSync(
      path,
      JSON.stringify({
        serial: 's8',
        pid: process.pid, // alive, but started at another time than the holder did
        hostname: hostname(),
        owner: 'old worker',
        acquiredAtMs: Date.now(),
        token: 'f00d',
        pidStartTime: '1',
      }),
    )
    const logs: string[] = []
    const lease = await acquireLease('s8', { dir, timeoutMs: 2_000, log: (m) => logs.push(m) })
    expect(logs[0]).toMatch(/pid now belongs to another process/)
    expect(lease.holder.pidStartTime).toMatch(/^\d+$/)
    await lease.release()
  })

  test('a fresh lock from another host is not taken over', async () => {
    const path = join(dir, leaseFileName('s4'))
    writeFileSync(
      path,
      JSON.stringify({
        serial: 's4',
        pid: 999_999_999,
        hostname: 'some-other-host',
        owner: 'remote',
        acquiredAtMs: Date.now(),
        token: 'cafe',
      }),
    )
    const error = await acquireLease('s4', { dir, timeoutMs: 100, pollMs: 10 }).catch(
      (e: unknown) => e,
    )
    expect(isEnergyError(error) && error.code).toBe('E_LEASE_TIMEOUT')
    expect(JSON.parse(readFileSync(path, 'utf8')).token).toBe('cafe')
  })

  test('the heartbeat keeps a held lock fresh', async () => {
    const lease = await acquireLease('s5', { dir, heartbeatMs: 20 })
    const path = join(dir, leaseFileName('s5'))
    const old = new Date(Date.now() - 60_000)
    utimesSync(path, old, old)
    await expect
      .poll(() => Date.now() - statSync(path).mtimeMs, { timeout: 5_000 })
      .toBeLessThan(30_000)
    await lease.release()
  })

  test('serials that are not file names (host:port) get distinct, safe lock names', () => {
    expect(leaseFileName('192.168.1.7:5555')).toBe('192.168.1.7%3a5555.lock')
    expect(leaseFileName('a/b')).not.toContain('/')
    expect(leaseFileName('a/b')).not.toBe(leaseFileName('a_b'))
  })

  test('an unwritable lease directory gives E_LEASE_IO', async () => {
    const file = join(dir, 'not-a-dir')
    writeFileSync(file, '')
    const error = await acquireLease('s6', { dir: join(file, 'leases') }).catch((e: unknown) => e)
    expect(isEnergyError(error) && error.code).toBe('E_LEASE_IO')
    expect((error as { hint: string }).hint).toMatch(/writable/)
  })
})
