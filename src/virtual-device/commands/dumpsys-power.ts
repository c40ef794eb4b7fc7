/**
 * `dumpsys power`: the parts tools read, laid out as AOSP PowerManagerService.dumpInternal prints
 * them (Android 13): the `POWER MANAGER (dumpsys power)` banner, a short `Power Manager State:`
 * (wakefulness, plug state, battery level), the `Wake Locks: size=N` list and the
 * `Suspend Blockers: size=N` list. Everything else a phone prints (settings, display power, battery
 * saver, attention, ...) is left out.
 *
 * Held wake locks are the simulation's wakelock intervals that started at or before now and end
 * after now (a leaked one never ends until the app is force-stopped). Each line is
 * PowerManagerService.WakeLock.toString: the level padded to 30 characters, the tag in quotes,
 * `ACQ=` and the (negative) time since acquisition in TimeUtils.formatDuration form, ` LONG` once a
 * partial wake lock has been held for more than a minute (MIN_LONG_WAKE_CHECK_INTERVAL), then
 * `(uid=… pid=…)`.
 */
import type { ShellInvocation } from '../contract.js'
import { bootNowNs, type SimPhone } from '../sim/phone.js'
import { out } from './_util.js'
import { appUidOf } from '../sim/app-model.js'

/** PowerManagerService reports a partial wake lock as long after this much holding, ms. */
export const LONG_WAKE_LOCK_MS = 60_000

/** `getLockLevelString()` for PARTIAL_WAKE_LOCK: the name padded to 30 characters. */
const PARTIAL_LEVEL = 'PARTIAL_WAKE_LOCK'.padEnd(30)

/**
 * android.util.TimeUtils.formatDuration(long, StringBuilder) for a duration in ms: `0`, or a sign
 * and the non-zero leading fields, e.g. `-12s345ms`, `+1m0s5ms`, `-1d2h0m0s0ms`.
 */
export function formatAndroidDuration(durationMs: number): string {
  const ms = Math.trunc(durationMs)
  if (ms === 0) return '0'
  const sign = ms > 0 ? '+' : '-'
  let rest = Math.abs(ms)
  const millis = rest % 1000
  rest = Math.floor(rest / 1000)
  const days = Math.floor(rest / 86_400)
  rest -= days * 86_400
  const hours = Math.floor(rest / 3600)
  rest -= hours * 3600
  const minutes = Math.floor(rest / 60)
  const seconds = rest - minutes * 60
  let text = ''
  // A field is printed when non-zero or when a larger one was printed; seconds' successor (ms)
  // always is.
  for (const [amount, unit] of [
    [days, 'd'],
    [hours, 'h'],
    [minutes, 'm'],
    [seconds, 's'],
  ] as const) {
    if (amount > 0 || text !== '') text += `${amount}${unit}`
  }
  return `${sign}${text}${millis}ms`
}

/** One held wake lock as `dumpsys power` lists it. */
export interface HeldWakeLock {
  readonly tag: string
  /** When it was acquired, boottime ns. */
  readonly acquiredNs: number
  readonly uid: number
  readonly pid: number
}

/** Wake locks the simulated app holds at boottime `tNs`, in acquisition order. */
export function heldWakeLocks(phone: SimPhone, tNs: number): HeldWakeLock[] {
  phone.sim.materialize(tNs)
  const pid = phone.sim.pid
  if (pid === undefined) return []
  const uid = appUidOf(phone.app)
  return phone.sim.hardware
    .filter((h) => h.kind === 'wakelock' && h.startNs <= tNs && h.endNs > tNs)
    .sort((a, b) => a.startNs - b.startNs)
    .map((h) => ({ tag: h.tag ?? '', acquiredNs: h.startNs, uid, pid }))
}

/** The `dumpsys power` text at boottime `tNs`. */
export function renderDumpsysPower(phone: SimPhone, tNs: number): string {
  const fw = phone.battery.framework
  const plugType = (fw.acPowered ? 1 : 0) | (fw.usbPowered ? 2 : 0) | (fw.wirelessPowered ? 4 : 0)
  const screenOn = phone.sim.screenOn
  const locks = heldWakeLocks(phone, tNs)
  const nowMs = Math.floor(tNs / 1e6)
  const lines = [
    'POWER MANAGER (dumpsys power)',
    '',
    'Power Manager State:',
    `  mWakefulness=${screenOn ? 'Awake' : 'Asleep'}`,
    '  mWakefulnessChanging=false',
    `  mIsPowered=${plugType !== 0}`,
    `  mPlugType=${plugType}`,
    `  mBatteryLevel=${phone.battery.levelPct(tNs)}`,
    '',
    `Wake Locks: size=${locks.length}`,
    ...locks.map((l) => {
      const heldMs = nowMs - Math.floor(l.acquiredNs / 1e6)
      const long = heldMs > LONG_WAKE_LOCK_MS ? ' LONG' : ''
      return `  ${PARTIAL_LEVEL} '${l.tag}' ACQ=${formatAndroidDuration(-heldMs)}${long} (uid=${l.uid} pid=${l.pid})`
    }),
    '',
    'Suspend Blockers: size=4',
    `  PowerManagerService.WakeLocks: ref count=${locks.length > 0 || screenOn ? 1 : 0}`,
    `  PowerManagerService.Display: ref count=${screenOn ? 1 : 0}`,
    '  PowerManagerService.Broadcasts: ref count=0',
    '  PowerManagerService.WirelessChargerDetector: ref count=0',
    '',
  ]
  return `${lines.join('\n')}\n`
}

export function dumpsysPower(phone: SimPhone, inv: ShellInvocation): number {
  out(inv, renderDumpsysPower(phone, bootNowNs(phone)))
  return 0
}
