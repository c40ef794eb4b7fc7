/** Stable codes of the lab's shared lease store. */
import type { EnergyErrorCode } from '../model/index.js'

export const LabErrors = {
  /** The lease store does not answer (at the run's start, or when a lease is taken or checked). */
  STORE_UNREACHABLE: 'E_LEASE_STORE_UNREACHABLE',
  /** `leases` names a Redis server, and the `redis` client package is not installed. */
  STORE_CLIENT_MISSING: 'E_LEASE_STORE_CLIENT_MISSING',
} as const satisfies Record<string, EnergyErrorCode>
