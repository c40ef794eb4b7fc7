/**
 * Leases in a Redis server every runner of a lab shares (`leases: 'redis://lab-redis:6379'`).
 *
 * A lease is one key, `vitest-energy:lease:<phone>`, set only if absent, holding `<fence>|<holder
 * JSON>` with a time-to-live that the holder renews every third of it. The fence is a per-phone
 * counter incremented by each acquisition (in the same script, so atomically): a worker that was
 * frozen past its lease's life comes back with an old fence, and the check before a window starts
 * and before its result is accepted (`assertHeld`) refuses it. A runner that dies stops renewing;
 * its leases expire and the phones go back to the pool. Every step that must not interleave with
 * another runner's is one Lua script, which Redis runs atomically.
 */
import { hostname } from 'node:os'
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  DeviceErrors,
  leaseLost,
  phoneKey,
  phoneName,
  type Lease,
  type LeaseHolder,
  type PhoneAddress,
} from '../device/index.js'
import { EnergyError } from '../model/index.js'
import { LabErrors } from './errors.js'
import type { AcquireOptions, LeaseStore, SharedDocument } from './store.js'

export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  readonly url: string
  /** How long a lease lives without renewal, ms. */
  readonly ttlMs: number
  /** The run's id: runners given the same one share each phone's idle baseline. */
  readonly run: string
  /** How long to wait for the server at connection, and for each command, ms. @default 5_000 */
  readonly timeoutMs?: number
  /** Poll interval while waiting for a phone, ms (a random 0–50% is added). @default 200 */
  readonly pollMs?: number
}

const PREFIX = 'vitest-energy:'
/** How long a run's baselines are kept: longer than any run. */
const RUN_STATE_TTL_MS = 24 * 3600_000
/** How long what a phone has switched on is remembered: longer than any radio's tail. */
const PHONE_STATE_TTL_MS = 3600_000

/** `KEYS[1]` lease, `KEYS[2]` fence counter; `ARGV[1]` holder JSON, `ARGV[2]` ttl. */
const ACQUIRE = `
local current = redis.call('GET', KEYS[1])
if current then return {0, current} end
local fence = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], fence .. '|' .. ARGV[1], 'PX', ARGV[2])
return {1, tostring(fence)}`

/** `KEYS[1]` lease; `ARGV[1]` fence, `ARGV[2]` new ttl (0: check only). 1 when still ours. */
const RENEW = `
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, string.len(ARGV[1]) + 1) == ARGV[1] .. '|' then
  if ARGV[2] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
  return 1
end
return 0`

/**
 * `KEYS[1]` lease; `ARGV[1]` fence, `ARGV[2]` holder JSON. Replaces the holder (its time-to-live
 * kept) only if the lease is still ours.
 */
const RELABEL = `
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, string.len(ARGV[1]) + 1) == ARGV[1] .. '|' then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then
    redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[2], 'PX', ttl)
    return 1
  end
end
return 0`

/** `KEYS[1]` lease; `ARGV[1]` fence. Deletes the lease only if it is still ours. */
const RELEASE = `
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, string.len(ARGV[1]) + 1) == ARGV[1] .. '|' then
  return redis.call('DEL', KEYS[1])
end
return 0`

/**
 * `KEYS[1]` the sorted set of live test processes (member `<phone>\\n<process>`, score: when it
 * expires); `ARGV[1]` now, `ARGV[2]` expiry, `ARGV[3]` this process, `ARGV[4]` its preferred
 * phone's index, `ARGV[5…]` the pool. Picks the phone the fewest live processes use (from the
 * preferred one on, so that ties spread), and records this process on it.
 */
const ASSIGN = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local n = #ARGV - 4
for i = 1, n do redis.call('ZREM', KEYS[1], ARGV[4 + i] .. '\\n' .. ARGV[3]) end
local counts = {}
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local phone = string.match(member, '^(.*)\\n')
  if phone then counts[phone] = (counts[phone] or 0) + 1 end
end
local best, fewest = nil, nil
for k = 0, n - 1 do
  local phone = ARGV[4 + ((tonumber(ARGV[4]) + k) % n) + 1]
  local count = counts[phone] or 0
  if fewest == nil or count < fewest then best, fewest = phone, count end
end
redis.call('ZADD', KEYS[1], ARGV[2], best .. '\\n' .. ARGV[3])
return best`

/** The UiAutomator2 driver's own range of host ports for its server's forward. */
const FIRST_PORT = 8200
const LAST_PORT = 8299

/**
 * `KEYS[1]` the hash of a host's reserved ports (field: port, value: `<expiry>|<owner>`);
 * `ARGV[1]` now, `ARGV[2]` expiry, `ARGV[3]` owner (this process and the phone), `ARGV[4..5]` the
 * range, `ARGV[6..]` ports the owner cannot use (busy on its own machine). The owner's port if it
 * has one it can use (renewed), else the lowest free or expired one it can use (an unusable port
 * it held is given back); 0 when there is none.
 */
const RESERVE_PORT = `
local now, owner = tonumber(ARGV[1]), ARGV[3]
local unusable = {}
for i = 6, #ARGV do unusable[tonumber(ARGV[i])] = true end
local free = nil
for port = tonumber(ARGV[4]), tonumber(ARGV[5]) do
  local held = redis.call('HGET', KEYS[1], port)
  if held then
    local bar = string.find(held, '|', 1, true)
    local expiry, who = tonumber(string.sub(held, 1, bar - 1)), string.sub(held, bar + 1)
    if who == owner then
      if not unusable[port] then
        redis.call('HSET', KEYS[1], port, ARGV[2] .. '|' .. owner)
        return port
      end
      redis.call('HDEL', KEYS[1], port)
    elseif expiry < now and free == nil and not unusable[port] then
      free = port
    end
  elseif free == nil and not unusable[port] then
    free = port
  end
end
if free == nil then return 0 end
redis.call('HSET', KEYS[1], free, ARGV[2] .. '|' .. owner)
return free`

/** The part of node-redis's client this store uses. */
interface RedisClient {
  connect(): Promise<unknown>
  destroy(): void
  unref(): void
  on(event: 'error', listener: (error: unknown) => void): unknown
  isReady: boolean
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
  get(key: string): Promise<string | null>
  set(key: string, value: string, options: { PX: number }): Promise<unknown>
  del(keys: string | string[]): Promise<number>
  zAdd(key: string, members: { score: number; value: string }, options?: object): Promise<unknown>
  zRem(key: string, member: string): Promise<number>
  hDel(key: string, field: string): Promise<number>
  scanIterator(options: { MATCH: string; COUNT: number }): AsyncIterable<string[] | string>
}

/** Connects to the store; `E_LEASE_STORE_UNREACHABLE` when it does not answer in time. */
export async function redisLeaseStore(options: RedisStoreOptions): Promise<LeaseStore> {
  const timeoutMs = options.timeoutMs ?? 5_000
  const pollMs = options.pollMs ?? 200
  const where = redactedUrl(options.url)
  let createClient: (o: object) => RedisClient
  try {
    ;({ createClient } = (await import('redis')) as unknown as {
      createClient: (o: object) => RedisClient
    })
  } catch (error) {
    throw new EnergyError({
      code: LabErrors.STORE_CLIENT_MISSING,
      message: `leases are kept in ${where}, and the Redis client package is not installed`,
      hint: 'Install it next to vitest-energy: `npm install --save-dev redis`.',
      cause: error,
    })
  }
  let lastError: unknown
  const client = createClient({
    url: options.url,
    // Commands fail at once while the connection is down (a lease check must not wait for a
    // store that is gone); the client keeps reconnecting in the background.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: timeoutMs,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1_000),
    },
  })
  client.on('error', (error) => {
    lastError = error // reported where it matters: the command that failed
  })
  const unreachable = (doing: string, cause: unknown): EnergyError =>
    new EnergyError({
      code: LabErrors.STORE_UNREACHABLE,
      message: `the lease store ${where} does not answer (${doing}): ${reasonOf(cause ?? lastError)}`,
      hint:
        'Start it, or check the address in the `leases` option (or VITEST_ENERGY_LEASES) and that ' +
        'this machine reaches it; without the store no window starts, since another runner may ' +
        'be measuring on the phone.',
      details: { store: where },
      cause,
    })
  try {
    // The client would retry a refused connection for ever: the first error ends the attempt.
    let failed: (error: unknown) => void = () => undefined
    const firstError = new Promise<never>((_, reject) => (failed = reject))
    client.on('error', (error) => failed(error))
    await withTimeout(Promise.race([client.connect(), firstError]), timeoutMs)
    failed = () => undefined
  } catch (error) {
    client.destroy()
    throw unreachable('connecting', error)
  }
  client.unref() // an idle connection must not keep a test process alive
  const command = async <T>(doing: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await withTimeout(run(), timeoutMs)
    } catch (error) {
      throw unreachable(doing, error)
    }
  }
  const key = (...parts: string[]): string => PREFIX + parts.join(':')
  const processId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  const held = new Set<Lease>()
  /** This process's place on its phone (`<phone>\n<process>`), once it has one. */
  let assigned: string | undefined
  /** Ports this process reserved: host → owner (process and phone) → port. */
  const reserved = new Map<string, Map<string, number>>()
  const reserve = (
    host: string,
    owner: string,
    unusable: readonly number[] = [],
  ): Promise<unknown> =>
    client.eval(RESERVE_PORT, {
      keys: [key('ports', host)],
      arguments: [
        String(Date.now()),
        String(Date.now() + 3 * options.ttlMs),
        owner,
        String(FIRST_PORT),
        String(LAST_PORT),
        ...unusable.map(String),
      ],
    })
  const workersKey = key('workers')
  // This process's place on its phone lives while it runs: renewed, and gone soon after it dies.
  const assignmentTimer = setInterval(() => {
    if (assigned !== undefined)
      void client
        .zAdd(workersKey, { score: Date.now() + 3 * options.ttlMs, value: assigned })
        .catch(() => undefined)
    for (const [host, owners] of reserved)
      for (const owner of owners.keys()) void reserve(host, owner).catch(() => undefined)
  }, options.ttlMs / 3)
  assignmentTimer.unref()

  const sharedKey = (phone: PhoneAddress, document: SharedDocument): string =>
    document === 'baseline'
      ? key('run', options.run, 'phone', phoneKey(phone), document)
      : key('phone', phoneKey(phone), document)

  return {
    description: where,
    async acquire(phone, o) {
      const lease = await acquire(phone, o)
      held.add(lease)
      return lease
    },
    async assign(phones, workerId) {
      const preferred = (Math.max(1, workerId) - 1) % phones.length
      const keys = phones.map(phoneKey)
      const chosen = await command('assigning a phone', () =>
        client.eval(ASSIGN, {
          keys: [workersKey],
          arguments: [
            String(Date.now()),
            String(Date.now() + 3 * options.ttlMs),
            processId,
            String(preferred),
            ...keys,
          ],
        }),
      )
      const phone = phones[keys.indexOf(String(chosen))] ?? phones[preferred]
      if (phone === undefined) throw new Error('assign: the pool has no phones')
      assigned = `${phoneKey(phone)}\n${processId}`
      return phone
    },
    async reservePort(phone, usableHere) {
      const owner = `${processId}|${phoneKey(phone)}`
      const owners = reserved.get(phone.host) ?? new Map<string, number>()
      reserved.set(phone.host, owners)
      // Busy ports here are skipped: the driver refuses a forward port something on this machine
      // listens on, though the forward itself listens on the lab host.
      const unusable: number[] = []
      for (;;) {
        const port = Number(
          await command('reserving a port', () => reserve(phone.host, owner, unusable)),
        )
        if (port === 0) {
          owners.delete(owner)
          return undefined // none left: Appium picks one, as without a store
        }
        owners.set(owner, port)
        if (usableHere === undefined || (await usableHere(port))) return port
        unusable.push(port)
      }
    },
    readShared: async (phone, document) =>
      (await command('reading what runners share about a phone', () =>
        client.get(sharedKey(phone, document)),
      )) ?? undefined,
    async writeShared(phone, document, text) {
      await command('writing what runners share about a phone', () =>
        client.set(sharedKey(phone, document), text, {
          PX: document === 'baseline' ? RUN_STATE_TTL_MS : PHONE_STATE_TTL_MS,
        }),
      )
    },
    async forgetRun() {
      const keys: string[] = []
      await command('forgetting the run', async () => {
        for await (const batch of client.scanIterator({
          MATCH: `${key('run', options.run)}:*`,
          COUNT: 100,
        }))
          keys.push(...(Array.isArray(batch) ? batch : [batch]))
      })
      if (keys.length > 0) await command('forgetting the run', () => client.del(keys))
    },
    async close() {
      clearInterval(assignmentTimer)
      for (const lease of held) await lease.release().catch(() => undefined)
      if (assigned !== undefined) await client.zRem(workersKey, assigned).catch(() => undefined)
      for (const [host, owners] of reserved)
        for (const port of owners.values())
          await client.hDel(key('ports', host), String(port)).catch(() => undefined)
      client.destroy()
    },
  }

  async function acquire(phone: PhoneAddress, o: AcquireOptions): Promise<Lease> {
    const name = phoneName(phone, false)
    const leaseKey = key('lease', phoneKey(phone))
    const fenceKey = key('fence', phoneKey(phone))
    const timeout = o.timeoutMs ?? 600_000
    const deadline = Date.now() + timeout
    const holder = {
      serial: phoneKey(phone),
      pid: process.pid,
      hostname: hostname(),
      owner: o.owner,
      acquiredAtMs: Date.now(),
      run: options.run,
    }
    let lastSeen: string | undefined
    for (;;) {
      const answer = (await command(`taking the lease on ${name}`, () =>
        client.eval(ACQUIRE, {
          keys: [leaseKey, fenceKey],
          arguments: [JSON.stringify(holder), String(options.ttlMs)],
        }),
      )) as [number, string]
      if (answer[0] === 1) return startLease(phone, leaseKey, { ...holder, token: answer[1] })
      const current = parseHolder(answer[1])
      // The owner too: a holder keeps its lease from one test to the next and relabels it.
      const seen = current === undefined ? '' : `${current.token} ${current.owner}`
      if (seen !== lastSeen || lastSeen === undefined) {
        lastSeen = seen
        o.onWait?.(current)
      }
      if (o.signal?.aborted === true) {
        throw new EnergyError({
          code: DeviceErrors.ABORTED,
          message: `waiting for the lease on phone ${name} was aborted`,
          hint: 'The caller cancelled it; nothing to do.',
          details: { serial: phoneKey(phone) },
        })
      }
      if (Date.now() >= deadline) {
        const who =
          current === undefined
            ? 'an unreadable lease'
            : `${current.owner} (pid ${current.pid} on ${current.hostname})`
        throw new EnergyError({
          code: DeviceErrors.LEASE_TIMEOUT,
          message: `phone ${name} stayed busy for ${timeout} ms, held by ${who}`,
          hint:
            'Other runners are measuring on this phone: add phones to the pool, run fewer ' +
            `runners, or raise the lease timeout. The lease is the key ${leaseKey} in ${where}.`,
          details: { serial: phoneKey(phone), timeoutMs: timeout },
        })
      }
      await sleep(Math.min(pollMs * (1 + Math.random() / 2), Math.max(1, deadline - Date.now())))
    }
  }

  function startLease(phone: PhoneAddress, leaseKey: string, holder: LeaseHolder): Lease {
    const fence = holder.token
    let released = false
    let lost = false
    let renewedAtMs = Date.now()
    const renew = (ttl: number): Promise<unknown> =>
      client.eval(RENEW, { keys: [leaseKey], arguments: [fence, String(ttl)] })
    const timer = setInterval(() => {
      void withTimeout(renew(options.ttlMs), timeoutMs).then(
        (ours) => {
          if (ours === 1) renewedAtMs = Date.now()
          else lost = true
        },
        () => {
          // The store is unreachable: the lease may have expired there; it surely has once its
          // time-to-live has passed since the last renewal.
          if (Date.now() - renewedAtMs >= options.ttlMs) lost = true
        },
      )
    }, options.ttlMs / 3)
    timer.unref()
    const lease: Lease = {
      serial: phoneKey(phone),
      path: `${where} ${leaseKey}`,
      holder,
      fence,
      get released() {
        return released || lost
      },
      async assertHeld(doing) {
        if (!released && !lost) {
          const ours = await command(`checking the lease on ${phoneName(phone, false)}`, () =>
            renew(options.ttlMs),
          )
          if (ours === 1) {
            renewedAtMs = Date.now()
            return
          }
          lost = true
        }
        throw leaseLost(phoneName(phone, false), `key ${leaseKey} in ${where}`, doing)
      },
      async relabel(owner) {
        if (released || lost) return
        const { token: _, ...stored } = holder
        // One script: it writes only while the lease is still this acquisition's, so a relabel
        // that arrives after the release (or a takeover) changes nothing.
        await withTimeout(
          client.eval(RELABEL, {
            keys: [leaseKey],
            arguments: [fence, JSON.stringify({ ...stored, owner })],
          }),
          timeoutMs,
        ).catch(() => undefined)
      },
      async release() {
        if (released) return
        released = true
        clearInterval(timer)
        held.delete(lease)
        await withTimeout(
          client.eval(RELEASE, { keys: [leaseKey], arguments: [fence] }),
          timeoutMs,
        ).catch(() => undefined) // unreachable: the lease expires on its own
      },
    }
    return lease
  }
}

function parseHolder(value: string): LeaseHolder | undefined {
  const bar = value.indexOf('|')
  try {
    const holder = JSON.parse(value.slice(bar + 1)) as Omit<LeaseHolder, 'token'>
    return { ...holder, token: value.slice(0, bar) }
  } catch {
    return undefined
  }
}

/** The URL without its password, for messages. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password !== '') parsed.password = '***'
    return parsed.toString().replace(/\/$/, '')
  } catch {
    return url
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0])
  return error instanceof Error ? error.message || error.name : String(error)
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  promise.catch(() => undefined) // settled after the timeout: nobody waits for it any more
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}
