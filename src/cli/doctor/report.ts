/**
 * What `vitest-energy doctor` found, as plain JSON-safe data (printed as-is by `--json`; the text
 * output renders the same value). The shape is documented in docs/real-devices.md and versioned
 * by `schemaVersion`.
 */
import type { Evidence } from '../../device/index.js'
import type { AdbAddressSource } from './adb-address.js'

/**
 * `pass`: fine for a run. `warn`: a run works, with less accuracy or detail (a `W_…` in its
 * results). `fail`: a run would fail (`code` says with what). `skip`: not checked (an earlier
 * check failed, or nothing to check, e.g. no `--app`).
 */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip'

/** Checks about the host, run once. */
export type HostCheckId = 'adb-server' | 'devices' | 'appium' | 'uiautomator2-driver'

/** Checks run on each phone a run would use. */
export type PhoneCheckId =
  | 'android-version'
  | 'power-source'
  | 'fuel-gauge'
  | 'charging'
  | 'power-profile'
  | 'app'
  | 'profileable'
  | 'simpleperf'
  | 'perfetto'
  | 'clock'

export interface DoctorCheck<Id extends string = HostCheckId | PhoneCheckId> {
  readonly id: Id
  /** Short name, as the text output prints it. */
  readonly title: string
  readonly status: CheckStatus
  /** What was found, in one sentence. */
  readonly found: string
  /** A remark that matters even when the check passes (what the finding implies). */
  readonly note?: string
  /** The commands run and the output lines the finding comes from. */
  readonly evidence: readonly Evidence[]
  /** What to do about a `warn` or `fail`. */
  readonly fix?: string
  /** The `E_…` code a run fails with, or the `W_…` warning its results carry. */
  readonly code?: string
}

/** One phone a run would measure on, and its checks. */
export interface DoctorPhone {
  readonly serial: string
  /** `ro.product.model`. */
  readonly model?: string
  /** API level (`ro.build.version.sdk`). */
  readonly sdk?: number
  /** `ro.build.version.release`, e.g. `13`. */
  readonly release?: string
  /** The source `power: 'auto'` would use; `none` when there is none. */
  readonly powerSource?: 'odpm' | 'powerstats' | 'fuel-gauge' | 'none'
  readonly checks: readonly DoctorCheck<PhoneCheckId>[]
}

export interface DoctorReport {
  readonly schemaVersion: 1
  /** `fail` when any check failed, else `warn` when any warned, else `pass`. */
  readonly verdict: 'pass' | 'warn' | 'fail'
  /** The adb server checked, and where its address came from. */
  readonly adb: {
    readonly host: string
    readonly port: number
    readonly from: AdbAddressSource
    readonly envVars: readonly string[]
  }
  /** `--app`, when given. */
  readonly app?: string
  /** Host checks: adb server, attached devices, Appium, the UiAutomator2 driver. */
  readonly checks: readonly DoctorCheck<HostCheckId>[]
  /** The phones a run would use (the `--serial` one, or every authorized phone). */
  readonly phones: readonly DoctorPhone[]
}

/** Every check of a report, host checks first. */
export function allChecks(report: Pick<DoctorReport, 'checks' | 'phones'>): DoctorCheck[] {
  return [...report.checks, ...report.phones.flatMap((p) => p.checks)]
}

export function verdictOf(checks: readonly DoctorCheck[]): DoctorReport['verdict'] {
  if (checks.some((c) => c.status === 'fail')) return 'fail'
  if (checks.some((c) => c.status === 'warn')) return 'warn'
  return 'pass'
}
