/**
 * Leases: one energy window per device at a time, across all Vitest workers (separate processes)
 * and any other vitest-energy run on the host. A lease is a lock file created atomically
 * (`open(path, 'wx')`) in a shared directory. It records who holds it; its mtime is the heartbeat.
 *
 * A lock is taken over when its holder is provably dead (same host, `kill(pid, 0)` → ESRCH) or its
 * heartbeat is older than `staleMs`. Takeover is serialized by a second atomic step (`mkdir` of a
 * `.takeover` guard) and re-checks that the stale lock is still the same one (its token) before
 * removing it, so two waiters cannot both take over, and a fresh lock is never removed.
 */
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { mkdir, open, readFile, rename, rm, rmdir, stat, utimes, writeFile } from 'node:fs/promises'
import { hostname as osHostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { EnergyError } from '../model/index.js'
import { DeviceErrors } from './errors.js'

/** What a lock file holds (JSON). */
export interface LeaseHolder {
  readonly serial: string
  readonly pid: number
  readonly hostname: string
  /** Free-form label: test file and name, worker id. */
  readonly owner: string
  /** Epoch ms when the lease was acquired. */
  readonly acquiredAtMs: number
  /** Random id of this acquisition; takeover checks it to never remove a newer lock. */
  readonly token: string
  /**
   * Start time of the holder process (Linux `/proc/<pid>/stat` field 22, clock ticks since boot),
   * so a pid reused by another process after the holder died is not taken for the holder.
   */
  readonly pidStartTime?: string
  /** The test run the holder belongs to, so the run can remove its locks when it is stopped. */
  readonly run?: string
}

/** Options of {@link acquireLease}. */
export interface LeaseOptions {
  /** Label saved in the lock (shown to waiters). @default `pid <pid>` */
  readonly owner?: string
  /** Id of the test run taking it (see {@link removeRunLeasesSync}). */
  readonly run?: string
  /** Give up after this long with `E_LEASE_TIMEOUT`. @default 600_000 (10 min) */
  readonly timeoutMs?: number
  /** Lock directory shared by all workers. @default `os.tmpdir()/vitest-energy/leases` */
  readonly dir?: string
  /** How often the holder touches its lock, ms. @default 2_000 */
  readonly heartbeatMs?: number
  /** A lock whose heartbeat is older than this is stale, ms. @default 30_000 */
  readonly staleMs?: number
  /** Poll interval while waiting, ms (a random 0–50% is added). @default 100 */
  readonly pollMs?: number
  /** Called when we must wait, and again whenever the holder changes. */
  readonly onWait?: (holder: LeaseHolder | undefined) => void
  /** Where takeovers of stale locks are reported. @default console.warn */
  readonly log?: (message: string) => void
  readonly signal?: AbortSignal
}

/**
 * A held lease. `release()` is idempotent and also runs at process exit. The lock files here are
 * one implementation; the lab's shared store (src/lab/) is another.
 */
export interface Lease {
  /** What is leased: the lease's key (the phone's adb server and serial). */
  readonly serial: string
  /** Where the lease lives: the lock file, or the store's key. */
  readonly path: string
  readonly holder: LeaseHolder
  /**
   * The fencing token of this acquisition: a later holder of the same phone always has another
   * (the store's is a counter that only grows).
   */
  readonly fence: string
  /** True once released (or lost to a takeover seen by the heartbeat). */
  readonly released: boolean
  /**
   * Throws `E_LEASE_LOST` unless this acquisition still holds the phone, asked of where the lease
   * lives (not of memory): checked before a window starts and before its result is accepted.
   */
  assertHeld(doing: string): Promise<void>
  /**
   * Names whom the phone is held for from now on, as waiters see it (`owner`): a lease kept
   * between tests is taken over by the next test of the same process. Only while this acquisition
   * still holds the phone; never throws (a label is not worth failing a test for).
   */
  relabel(owner: string): Promise<void>
  release(): Promise<void>
}

export function defaultLeaseDir(): string {
  return join(tmpdir(), 'vitest-energy', 'leases')
}

/** Lock file name for a serial (`emulator-5554`, `192.168.1.7:5555`, ...) made file-system safe. */
export function leaseFileName(serial: string): string {
  return `${serial.replace(/[^A-Za-z0-9._-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}.lock`
}

/** Waits until the device's lease is free, then takes it. */
export async function acquireLease(serial: string, options: LeaseOptions = {}): Promise<Lease> {
  const dir = options.dir ?? defaultLeaseDir()
  const timeoutMs = options.timeoutMs ?? 600_000
  const staleMs = options.staleMs ?? 30_000
  const heartbeatMs = options.heartbeatMs ?? 2_000
  const pollMs = options.pollMs ?? 100
  const log = options.log ?? ((m: string) => console.warn(m))
  const path = join(dir, leaseFileName(serial))
  try {
    await mkdir(dir, { recursive: true })
  } catch (error) {
    throw leaseIo(dir, error)
  }
  const holder: LeaseHolder = {
    serial,
    pid: process.pid,
    hostname: osHostname(),
    owner: options.owner ?? `pid ${process.pid}`,
    acquiredAtMs: Date.now(),
    token: randomBytes(8).toString('hex'),
    ...withStartTime(process.pid),
    ...(options.run === undefined ? {} : { run: options.run }),
  }
  const deadline = Date.now() + timeoutMs
  let lastSeen: string | undefined
  let waited = false
  for (;;) {
    if (await tryCreate(path, holder)) break
    const current = await readHolder(path)
    if (current === 'missing') continue
    const reason = staleReason(current, path, staleMs)
    if (reason !== undefined && (await takeOver(path, current, reason, log))) continue
    // The owner too: a holder keeps its lease from one test to the next and relabels it.
    const seen = current === 'corrupt' ? 'corrupt' : `${current.token} ${current.owner}`
    if (!waited || seen !== lastSeen) {
      waited = true
      lastSeen = seen
      options.onWait?.(current === 'corrupt' ? undefined : current)
    }
    if (options.signal?.aborted === true) {
      throw new EnergyError({
        code: DeviceErrors.ABORTED,
        message: `waiting for the lease on device ${serial} was aborted`,
        hint: 'The caller cancelled it; nothing to do.',
        details: { serial },
      })
    }
    if (Date.now() >= deadline) {
      const who =
        current === 'corrupt'
          ? 'an unreadable lock'
          : `${current.owner} (pid ${current.pid} on ${current.hostname}, since ${new Date(
              current.acquiredAtMs,
            ).toISOString()})`
      throw new EnergyError({
        code: DeviceErrors.LEASE_TIMEOUT,
        message: `device ${serial} stayed busy for ${timeoutMs} ms, held by ${who}`,
        hint:
          'Another worker or run is measuring on this device: give each worker its own device, ' +
          `run with fewer workers, raise the lease timeout, or delete ${path} if nothing holds it.`,
        details: { serial, path, timeoutMs },
      })
    }
    await sleep(Math.min(pollMs * (1 + Math.random() / 2), Math.max(1, deadline - Date.now())))
  }
  return startLease(serial, path, holder, heartbeatMs, log)
}

async function tryCreate(path: string, holder: LeaseHolder): Promise<boolean> {
  let handle
  try {
    handle = await open(path, 'wx')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw leaseIo(path, error)
  }
  try {
    await handle.writeFile(`${JSON.stringify(holder)}\n`)
  } finally {
    await handle.close()
  }
  return true
}

async function readHolder(path: string): Promise<LeaseHolder | 'missing' | 'corrupt'> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing'
    throw leaseIo(path, error)
  }
  return parseHolder(text)
}

function parseHolder(text: string): LeaseHolder | 'corrupt' {
  try {
    const value = JSON.parse(text) as Partial<LeaseHolder>
    if (
      typeof value.pid === 'number' &&
      typeof value.hostname === 'string' &&
      typeof value.token === 'string' &&
      typeof value.owner === 'string' &&
      typeof value.acquiredAtMs === 'number' &&
      typeof value.serial === 'string'
    ) {
      return value as LeaseHolder
    }
  } catch {
    // fall through: a half-written lock (holder died between open and write) reads as corrupt
  }
  return 'corrupt'
}

/** Why a lock may be taken over, or undefined if its holder looks alive. */
function staleReason(
  holder: LeaseHolder | 'corrupt',
  path: string,
  staleMs: number,
): string | undefined {
  let ageMs: number
  try {
    ageMs = Date.now() - statSync(path).mtimeMs
  } catch {
    return undefined // vanished: the next tryCreate decides
  }
  if (holder !== 'corrupt' && holder.hostname === osHostname()) {
    if (!isAlive(holder.pid)) return `its holder ${holder.owner} (pid ${holder.pid}) is dead`
    const startTime = processStartTime(holder.pid)
    if (
      holder.pidStartTime !== undefined &&
      startTime !== undefined &&
      startTime !== holder.pidStartTime
    ) {
      return `its holder ${holder.owner} (pid ${holder.pid}) is dead; the pid now belongs to another process`
    }
  }
  if (ageMs > staleMs) {
    return `its heartbeat is ${Math.round(ageMs)} ms old (stale after ${staleMs} ms)`
  }
  return undefined
}

/** Linux: field 22 of `/proc/<pid>/stat` (after the parenthesized command name). */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const value = fields[19] // field 22 overall: fields[0] is field 3 (state)
    return value !== undefined && /^\d+$/.test(value) ? value : undefined
  } catch {
    return undefined // not Linux, or the process is gone
  }
}

function withStartTime(pid: number): { pidStartTime?: string } {
  const pidStartTime = processStartTime(pid)
  return pidStartTime === undefined ? {} : { pidStartTime }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const GUARD_STALE_MS = 10_000

/** Removes a stale lock if it is still the one we judged stale. True when removed. */
async function takeOver(
  path: string,
  judged: LeaseHolder | 'corrupt',
  reason: string,
  log: (message: string) => void,
): Promise<boolean> {
  const guard = `${path}.takeover`
  try {
    await mkdir(guard)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw leaseIo(guard, error)
    // Another waiter is taking over; a guard left by a crashed waiter expires.
    try {
      if (Date.now() - (await stat(guard)).mtimeMs > GUARD_STALE_MS) await rmdir(guard)
    } catch {
      // raced with its owner: fine
    }
    return false
  }
  try {
    const again = await readHolder(path)
    if (again === 'missing') return true
    const same =
      again === 'corrupt'
        ? judged === 'corrupt'
        : judged !== 'corrupt' && again.token === judged.token
    if (!same) return false
    await rm(path, { force: true })
    const who = judged === 'corrupt' ? 'an unreadable lock' : `the lease held by ${judged.owner}`
    log(`vitest-energy: took over ${who} on ${path}: ${reason}`)
    return true
  } finally {
    await rmdir(guard).catch(() => undefined)
  }
}

const held = new Map<string, { token: string; path: string }>()
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => {
    for (const { token, path } of held.values()) releaseSync(path, token)
  })
}

function releaseSync(path: string, token: string): void {
  try {
    const current = parseHolder(readFileSync(path, 'utf8'))
    if (current !== 'corrupt' && current.token === token) rmSync(path, { force: true })
  } catch {
    // already gone
  }
}

function startLease(
  serial: string,
  path: string,
  holder: LeaseHolder,
  heartbeatMs: number,
  log: (message: string) => void,
): Lease {
  installExitHook()
  held.set(holder.token, { token: holder.token, path })
  let released = false
  // Relabels and the release run one after the other: a relabel that wrote after the release
  // removed the lock would bring it back.
  let relabelled: Promise<void> = Promise.resolve()
  const timer = setInterval(() => {
    void (async () => {
      const current = await readHolder(path).catch(() => 'missing' as const)
      if (current === 'missing' || current === 'corrupt' || current.token !== holder.token) {
        // Someone judged us stale (e.g. the process was paused for longer than staleMs).
        clearInterval(timer)
        held.delete(holder.token)
        if (!released) log(`vitest-energy: the lease on ${path} was taken over while held`)
        released = true
        return
      }
      const now = new Date()
      await utimes(path, now, now).catch(() => undefined)
    })()
  }, heartbeatMs)
  timer.unref()
  return {
    serial,
    path,
    holder,
    fence: holder.token,
    get released() {
      return released
    },
    async assertHeld(doing) {
      const current = released ? 'missing' : await readHolder(path).catch(() => 'missing' as const)
      if (current !== 'missing' && current !== 'corrupt' && current.token === holder.token) return
      throw leaseLost(serial, path, doing)
    },
    relabel(owner) {
      relabelled = relabelled
        .then(async () => {
          if (released) return
          const current = await readHolder(path).catch(() => 'missing' as const)
          if (current === 'missing' || current === 'corrupt' || current.token !== holder.token)
            return
          // Written whole, then renamed over the lock: a waiter never reads half of it.
          const partial = `${path}.${holder.token}.tmp`
          await writeFile(partial, `${JSON.stringify({ ...current, owner })}\n`)
          await rename(partial, path)
        })
        .catch(() => undefined)
      return relabelled
    },
    async release() {
      if (released) return
      released = true
      clearInterval(timer)
      held.delete(holder.token)
      await relabelled
      const current = await readHolder(path).catch(() => 'missing' as const)
      if (current !== 'missing' && current !== 'corrupt' && current.token === holder.token) {
        await rm(path, { force: true })
      }
    },
  }
}

/** The lease is no longer this worker's: it must not measure, and a result it took is not used. */
export function leaseLost(key: string, where: string, doing: string): EnergyError {
  return new EnergyError({
    code: DeviceErrors.LEASE_LOST,
    message: `the lease on phone ${key} is no longer held by this worker (${doing}): it expired or was taken over (${where})`,
    hint:
      'The worker was paused or cut off from the lease store for longer than the lease lives ' +
      '(a frozen process, a network split, a machine under heavy load), or the store was ' +
      'restarted and forgot its leases; another worker may be measuring on the phone now. Rerun ' +
      'the test; if it happens often, give the lease a longer time-to-live ' +
      '(leases: { store, ttlMs }) or the machine fewer workers.',
    details: { phone: key },
  })
}

function leaseIo(path: string, cause: unknown): EnergyError {
  return new EnergyError({
    code: DeviceErrors.LEASE_IO,
    message: `cannot use the lease lock ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
    hint: 'Make the lease directory writable by every worker, or set another one (`leaseDir`).',
    details: { path },
    cause,
  })
}

/**
 * Runs `fn` while holding the device's lease and releases it however `fn` ends (a device that
 * vanishes mid-window rejects `fn` with E_DEVICE_DISCONNECTED; the next worker still gets the lease).
 */
export async function withLease<T>(
  serial: string,
  options: LeaseOptions,
  fn: (lease: Lease) => Promise<T>,
): Promise<T> {
  const lease = await acquireLease(serial, options)
  try {
    return await fn(lease)
  } finally {
    await lease.release()
  }
}

/**
 * Removes the locks held by a run's processes, synchronously (it runs on the main process's exit,
 * after Ctrl-C): workers killed mid-test cannot remove their own. Locks of other runs stay.
 */
export function removeRunLeasesSync(run: string, dir = defaultLeaseDir()): void {
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.lock'))
  } catch {
    return // no lease was ever taken on this host
  }
  for (const name of names) {
    const path = join(dir, name)
    try {
      const holder = parseHolder(readFileSync(path, 'utf8'))
      if (holder !== 'corrupt' && holder.run === run) rmSync(path, { force: true })
    } catch {
      // gone meanwhile
    }
  }
}

/** For tests and tools: the current holder of a device's lease, if any. */
export function readLeaseHolderSync(
  serial: string,
  dir = defaultLeaseDir(),
): LeaseHolder | undefined {
  try {
    const parsed = parseHolder(readFileSync(join(dir, leaseFileName(serial)), 'utf8'))
    return parsed === 'corrupt' ? undefined : parsed
  } catch {
    return undefined
  }
}
