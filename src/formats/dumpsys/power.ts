/**
 * `dumpsys power`: the `Wake Locks: size=N` list, each line as AOSP's PowerManagerService
 * WakeLock.toString prints it (frameworks/base/services/core/java/com/android/server/power/
 * PowerManagerService.java): the level name padded to 30 characters, the tag in quotes, flags,
 * `ACQ=<time since acquired>`, ` LONG` after a minute, then `(uid=<uid> pid=<pid> …)`.
 *
 *   Wake Locks: size=1
 *     PARTIAL_WAKE_LOCK              'trails:export' ACQ=-12s345ms (uid=10187 pid=4321)
 *
 * Only that section is read; everything else in the dump is ignored.
 */
import { EnergyError } from '../../model/errors.js'
import { DumpsysErrors } from './errors.js'

export interface HeldWakeLock {
  /** `PARTIAL_WAKE_LOCK`, `SCREEN_BRIGHT_WAKE_LOCK`, … */
  readonly level: string
  readonly tag: string
  readonly uid?: number
  readonly pid?: number
  /** How long ago it was acquired, ms (from `ACQ=-…`), when printed. */
  readonly heldMs?: number
  /** Held for over a minute (`LONG`). */
  readonly long: boolean
}

// `s`: `.` also matches \r and U+2028, so `(.*)$` always reaches the end and the tag's `.*` backs
// off at most once over the line (without it, a U+2028 late in the line made this quadratic)
const LINE = /^\s+([A-Z_]+WAKE_LOCK|DOZE_WAKE_LOCK|DRAW_WAKE_LOCK)\s+'(.*)'(.*)$/s

/** The wake locks listed under `Wake Locks: size=N`. */
export function parseDumpsysPowerWakeLocks(text: string): HeldWakeLock[] {
  const lines = text.split(/\r?\n/)
  const start = lines.findIndex((l) => /^\s*Wake Locks: size=\d+\s*$/.test(l))
  if (start < 0) {
    throw new EnergyError({
      code: DumpsysErrors.POWER_WAKE_LOCKS_NOT_FOUND,
      message: 'no `Wake Locks: size=N` section in the dumpsys power output',
      hint: 'Pass the output of `adb shell dumpsys power` (the whole dump, not one section).',
      details: { format: 'dumpsys power' },
    })
  }
  const size = Number(/size=(\d+)/.exec(lines[start] ?? '')?.[1] ?? '0')
  const locks: HeldWakeLock[] = []
  for (let i = start + 1; i < lines.length && locks.length < size; i++) {
    const match = LINE.exec(lines[i] ?? '')
    if (match === null) {
      throw new EnergyError({
        code: DumpsysErrors.POWER_BAD_WAKE_LOCK,
        message: `expected ${size} wake lock line(s), found ${JSON.stringify((lines[i] ?? '').slice(0, 80))}`,
        hint: 'The dump may be cut short or from an unknown Android version; run `adb shell dumpsys power` to compare.',
        details: { format: 'dumpsys power', line: i + 1 },
      })
    }
    const rest = match[3] ?? ''
    const uid = /\buid=(\d+)/.exec(rest)?.[1]
    const pid = /\bpid=(\d+)/.exec(rest)?.[1]
    const acq = /ACQ=-?([0-9dhms]+)/.exec(rest)?.[1]
    locks.push({
      level: match[1] ?? '',
      tag: match[2] ?? '',
      ...(uid === undefined ? {} : { uid: Number(uid) }),
      ...(pid === undefined ? {} : { pid: Number(pid) }),
      ...(acq === undefined ? {} : { heldMs: durationMs(acq) }),
      long: /\bLONG\b/.test(rest),
    })
  }
  return locks
}

const UNIT_MS: Readonly<Record<string, number>> = {
  d: 86_400_000,
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
}

/**
 * TimeUtils.formatDuration (`1h02m03s004ms`; `0` for no time) to milliseconds, in one pass: a
 * digit run without a unit after it counts for nothing (as before), and no digit is read twice.
 */
function durationMs(text: string): number | undefined {
  if (text === '0') return 0
  let total = 0
  let matched = false
  let i = 0
  while (i < text.length) {
    const start = i
    while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++
    if (i === start) {
      i++ // a unit letter without digits before it
      continue
    }
    const unit = text.startsWith('ms', i) ? 'ms' : text[i]
    const factor = unit === undefined ? undefined : UNIT_MS[unit]
    if (factor === undefined) continue
    total += Number(text.slice(start, i)) * factor
    matched = true
    i += unit?.length ?? 0
  }
  return matched ? total : undefined
}
