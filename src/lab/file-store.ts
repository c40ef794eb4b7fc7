/**
 * The default store: lock files in a folder of this machine (src/device/lease.ts) and the shared
 * documents in the run's folder. Test process N measures on phone N mod count, as it always has:
 * one machine's workers are the only ones taking these phones.
 */
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  acquireLease,
  defaultLeaseDir,
  leaseFileName,
  phoneKey,
  type PhoneAddress,
} from '../device/index.js'
import type { LeaseStore, SharedDocument } from './store.js'

export interface FileStoreOptions {
  /** The run's folder (removed at its end): the shared documents. */
  readonly runDir: string
  /** Where the lock files are. @default `os.tmpdir()/vitest-energy/leases` */
  readonly dir?: string
}

export function fileLeaseStore(options: FileStoreOptions): LeaseStore {
  const dir = options.dir ?? defaultLeaseDir()
  const path = (phone: PhoneAddress, document: SharedDocument): string =>
    join(options.runDir, sharedDocumentFile(phone, document))
  return {
    description: `lock files in ${dir}`,
    acquire: (phone, o) =>
      acquireLease(phoneKey(phone), {
        owner: o.owner,
        run: options.runDir,
        dir,
        ...(o.onWait === undefined ? {} : { onWait: o.onWait }),
        ...(o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs }),
        ...(o.signal === undefined ? {} : { signal: o.signal }),
      }),
    assign(phones, workerId) {
      const phone = phones[(Math.max(1, workerId) - 1) % phones.length]
      if (phone === undefined) throw new Error('assign: the pool has no phones')
      return Promise.resolve(phone)
    },
    reservePort: () => Promise.resolve(undefined),
    async readShared(phone, document) {
      return readFile(path(phone, document), 'utf8').catch(() => undefined)
    },
    async writeShared(phone, document, text) {
      // Written whole, then renamed: a reader never sees half of it.
      const partial = `${path(phone, document)}.${process.pid}.tmp`
      await writeFile(partial, text)
      await rename(partial, path(phone, document))
    },
    async forgetRun() {
      for (const name of await readdir(options.runDir).catch(() => [] as string[]))
        if (isSharedDocumentFile(name)) await rm(join(options.runDir, name), { force: true })
    },
    close: () => Promise.resolve(),
  }
}

/** How every file about a phone in the run's folder starts (documents, window observations). */
export function phoneFileBase(phone: PhoneAddress): string {
  return `phone-${leaseFileName(phoneKey(phone))}`
}

/** A shared document's file in the run's folder. */
export function sharedDocumentFile(phone: PhoneAddress, document: SharedDocument): string {
  const base = phoneFileBase(phone)
  return document === 'baseline' ? `${base}.json` : `${base}.${document}.json`
}

/** The run's files about a phone: shared documents and each process's window observations. */
export function isSharedDocumentFile(name: string): boolean {
  return name.startsWith('phone-') && name.endsWith('.json')
}
