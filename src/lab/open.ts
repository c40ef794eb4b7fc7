/** The store a run's `leases` option names, opened once per process. */
import { fileLeaseStore } from './file-store.js'
import { redisLeaseStore } from './redis-store.js'
import type { LeaseStore, LeaseStoreChoice } from './store.js'

export interface StorePlace {
  /** The run's folder on this machine. */
  readonly runDir: string
  /** The run's id, shared by the runners (shards) of one run. */
  readonly run: string
}

const opened = new Map<string, Promise<LeaseStore>>()

/**
 * The store for these options, shared by everything in this process that asks with the same
 * options and place (Vitest makes a test file's worker fixtures again for each file; one
 * connection serves them all).
 */
export function openLeaseStore(leases: LeaseStoreChoice, place: StorePlace): Promise<LeaseStore> {
  const id = JSON.stringify([leases, place])
  let store = opened.get(id)
  if (store === undefined) {
    store =
      leases.store === 'files'
        ? Promise.resolve(
            fileLeaseStore({
              runDir: place.runDir,
              ...(leases.dir === null ? {} : { dir: leases.dir }),
            }),
          )
        : redisLeaseStore({ url: leases.url, ttlMs: leases.ttlMs, run: place.run })
    opened.set(id, store)
    // A store that could not be opened is not kept: the next test asks again.
    store.catch(() => opened.delete(id))
  }
  return store
}

/** Closes every store this process opened (a test process's end, the run's end). */
export async function closeLeaseStores(): Promise<void> {
  const stores = [...opened.values()]
  opened.clear()
  for (const store of stores) await (await store.catch(() => undefined))?.close()
}
