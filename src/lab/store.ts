/**
 * Where a run's phone leases live, behind one small interface: lock files on this machine (the
 * default: one machine, any number of workers and runs), or a Redis server that every runner of a
 * lab shares (`leases: 'redis://lab-redis:6379'`). Besides the leases, the store holds what every
 * runner measuring on a phone shares: which phone a test process takes, the run's idle baseline of
 * each phone, and what a test left switched on there.
 */
import type { Lease, LeaseHolder, PhoneAddress } from '../device/index.js'

/** Which store a run keeps its leases in (the `leases` option, resolved). */
export type LeaseStoreChoice =
  | { readonly store: 'files'; readonly dir: string | null }
  | { readonly store: 'redis'; readonly url: string; readonly ttlMs: number }

/** What a shared document about a phone holds (device-session.ts writes and reads them). */
export type SharedDocument =
  /** The run's idle baseline, calibration and clock offsets of the phone: once per phone per run. */
  | 'baseline'
  /** What radio or GPS is still on, who switched it on, the radios' idle levels: the phone's now. */
  | 'async'

export interface AcquireOptions {
  /** Shown to waiters: test file and name. */
  readonly owner: string
  /** Called when the caller must wait, and again whenever the holder changes. */
  readonly onWait?: (holder: LeaseHolder | undefined) => void
  /** Give up after this long with `E_LEASE_TIMEOUT`. @default 600_000 */
  readonly timeoutMs?: number
  readonly signal?: AbortSignal
}

export interface LeaseStore {
  /** How messages name the store: `lock files in /tmp/…`, `redis://lab:6379`. */
  readonly description: string
  /** Waits until the phone is free, then takes it (with a fencing token). */
  acquire(phone: PhoneAddress, options: AcquireOptions): Promise<Lease>
  /**
   * Which of the pool's phones a test process measures on: the lock files pin worker N to phone
   * N mod count; the shared store hands out the phone the fewest live test processes use, so the
   * runners of a lab spread over its phones.
   */
  assign(phones: readonly PhoneAddress[], workerId: number): Promise<PhoneAddress>
  /**
   * A port on the phone's adb server host for this process's UiAutomator2 forward to the phone,
   * that no other runner's forward on that host uses (two runners forwarding one port replace
   * each other's forward, and one's session end removes the other's): the shared store hands out
   * 8200–8299 per host; undefined when the store cannot know (lock files: one machine) or none
   * is left. A port `usableHere` says no to (busy on this machine) is passed over.
   */
  reservePort(
    phone: PhoneAddress,
    usableHere?: (port: number) => Promise<boolean>,
  ): Promise<number | undefined>
  readShared(phone: PhoneAddress, document: SharedDocument): Promise<string | undefined>
  writeShared(phone: PhoneAddress, document: SharedDocument, text: string): Promise<void>
  /** Forgets the run's baselines (a watch-mode rerun measures its own, as `vitest run` does). */
  forgetRun(): Promise<void>
  /** Ends the connection; leases still held are released first. Never throws. */
  close(): Promise<void>
}
