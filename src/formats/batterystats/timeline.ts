/**
 * Derived view of a battery history: how long each component was in each state, which is what a
 * PETrA-style model multiplies by power_profile.xml currents. Pure function of the parsed records.
 *
 * Rules (from HistoryPrinter's encoding; see docs/formats/batterystats.md):
 * - `+flag` opens an interval named `flag`, `-flag` closes it (`running`, `screen`, `wifi_running`,
 *   `wifi_radio`, `mobile_radio`, `gps`, `wake_lock`, `audio`, `camera`, …).
 * - `+wake_lock=uid:"tag"` is the wake_lock state bit with the tag of the lock that set it; a later
 *   `-wake_lock` or `-wake_lock=…` closes it.
 * - Other tagged tokens are events: `+name=uid:"tag"` opens `(name, uid, tag)`, `-name=…` closes the
 *   same triple. Unprefixed `top=`/`fg=` (older releases print the current top app that way) open
 *   an interval and close any other open one of the same name. Other unprefixed tagged tokens
 *   (`conn=`, `stats=`, `wake_reason=`, …) are instants.
 * - `key=value` opens `(key, value)` and closes the previous value of `key` (`brightness`,
 *   `phone_signal_strength`, `data_conn`, `wifi_suppl`, `status`, `plug`, …), except the battery
 *   readings `volt`, `temp`, `charge`, `*RailChargemAh`, which become battery samples.
 * - `START`, `SHUTDOWN` and `RESET` close everything (a reboot clears all state).
 * Intervals still open at the last record end there with `openAtEnd: true`.
 */
import type { BatteryHistory, HistoryRecord } from './history.js'

/** A component (or app event) in one state over a time span of the history. */
export interface StateInterval {
  /** Flag, event or value name as printed: `screen`, `brightness`, `top`, `wake_lock`, `job`. */
  readonly name: string
  /** For value states: the value (`dim`, `great`, `nr`); absent for flags and events. */
  readonly value?: string
  /** For tagged states/events: uid as printed (`u0a123`, `1000`, `-1`). */
  readonly uid?: string
  /** For tagged states/events: the tag (package, wake lock or job name). */
  readonly tag?: string
  /** Start on the history's time axis (ns since the history start). */
  readonly startNs: number
  readonly endNs: number
  /** Still open at the last record: the true end is unknown (it is at least `endNs`). */
  readonly openAtEnd: boolean
}

/** A one-off tagged event (`conn=1:"CONNECTED"`, `wake_reason=0:"…"`). */
export interface InstantEvent {
  readonly tNs: number
  readonly name: string
  readonly uid: string
  readonly tag: string
}

/** Battery readings carried forward to each record that changed one of them. */
export interface BatterySample {
  readonly tNs: number
  /** Battery level, %. */
  readonly levelPercent: number
  /** `volt=` (printed in mV), in V. */
  readonly voltageV?: number
  /** `temp=` (printed in 0.1 °C), in °C. */
  readonly temperatureC?: number
  /** `charge=` (Android 8+: remaining charge, mAh), when printed. */
  readonly chargeMah?: number
}

export interface HistoryTimeline {
  /** First record time, ns. */
  readonly startNs: number
  /** Last record time, or `options.endNs` when given and later, ns. */
  readonly endNs: number
  /** Wall-clock anchors (`RESET:TIME:`/`TIME:`), as printed in the device's time zone. */
  readonly anchors: ReadonlyArray<{ readonly tNs: number; readonly wallClock: string }>
  /** Sorted by `startNs`, then by order of opening. */
  readonly intervals: readonly StateInterval[]
  readonly instants: readonly InstantEvent[]
  readonly battery: readonly BatterySample[]
  /**
   * Records whose time is earlier than the record before (real devices do this: an Android 15
   * capture has `+3h37m37s544ms` followed by `+3h37m37s530ms`). The timeline clamps such records to
   * the previous time so intervals never run backwards; the parsed records keep the printed time.
   */
  readonly timeReversals: number
}

const BATTERY_KEYS = new Set(['volt', 'temp', 'charge', 'modemRailChargemAh', 'wifiRailChargemAh'])
const CURRENT_APP_EVENTS = new Set(['top', 'fg'])

interface Open {
  readonly name: string
  readonly value?: string
  readonly uid?: string
  readonly tag?: string
  readonly startNs: number
  readonly seq: number
}

export interface HistoryTimelineOptions {
  /**
   * When the dump was taken, on the history's axis (ns): intervals still open end here instead of
   * at the last record (the history only records changes, so the last record can be long before
   * the dump; a full dump's `Total run time:` gives this). Ignored when before the last record.
   */
  readonly endNs?: number
}

/** Builds the component-state timeline of a parsed history. */
export function historyTimeline(
  history: BatteryHistory,
  options: HistoryTimelineOptions = {},
): HistoryTimeline {
  const records = history.items.filter((i): i is HistoryRecord => i.kind === 'record')
  const intervals: Array<StateInterval & { seq: number }> = []
  const instants: InstantEvent[] = []
  const battery: BatterySample[] = []
  const anchors: Array<{ tNs: number; wallClock: string }> = []
  const open = new Map<string, Open>()
  let seq = 0
  let level: number | undefined
  let volt: number | undefined
  let temp: number | undefined
  let charge: number | undefined

  const close = (key: string, tNs: number, openAtEnd = false): void => {
    const o = open.get(key)
    if (o === undefined) return
    open.delete(key)
    intervals.push({ ...o, endNs: tNs, openAtEnd })
  }
  const openState = (key: string, o: Omit<Open, 'seq'>): void => {
    if (open.has(key)) return
    open.set(key, { ...o, seq: seq++ })
  }

  let timeReversals = 0
  let lastT = Number.NEGATIVE_INFINITY
  let prevPrintedNs = Number.NEGATIVE_INFINITY
  for (const r of records) {
    if (r.tNs < prevPrintedNs) timeReversals++
    prevPrintedNs = r.tNs
    const t = Math.max(r.tNs, lastT)
    lastT = t
    if (r.command === 'reset' || r.command === 'start' || r.command === 'shutdown') {
      for (const key of [...open.keys()]) close(key, t)
    }
    if (r.wallClock !== undefined) anchors.push({ tNs: t, wallClock: r.wallClock })
    if (r.command !== 'update') continue
    let batteryChanged = r.batteryLevel !== level
    level = r.batteryLevel
    for (const tok of r.tokens) {
      if (tok.kind === 'flag') {
        const key = `f:${tok.name}`
        if (tok.on) openState(key, { name: tok.name, startNs: t })
        else close(key, t)
      } else if (tok.kind === 'tagged') {
        if (tok.name === 'wake_lock') {
          const key = 'f:wake_lock'
          if (tok.prefix === '+')
            openState(key, { name: 'wake_lock', uid: tok.uid, tag: tok.tag, startNs: t })
          else if (tok.prefix === '-') close(key, t)
          continue
        }
        const key = `e:${tok.name}\u0000${tok.uid}\u0000${tok.tag}`
        if (tok.prefix === '+')
          openState(key, { name: tok.name, uid: tok.uid, tag: tok.tag, startNs: t })
        else if (tok.prefix === '-') close(key, t)
        else if (CURRENT_APP_EVENTS.has(tok.name)) {
          for (const k of [...open.keys()])
            if (k.startsWith(`e:${tok.name}\u0000`) && k !== key) close(k, t)
          openState(key, { name: tok.name, uid: tok.uid, tag: tok.tag, startNs: t })
        } else instants.push({ tNs: t, name: tok.name, uid: tok.uid, tag: tok.tag })
      } else if (tok.kind === 'value') {
        if (BATTERY_KEYS.has(tok.name)) {
          const n = Number(tok.value)
          if (!Number.isFinite(n)) continue
          if (tok.name === 'volt') volt = n / 1000
          else if (tok.name === 'temp') temp = n / 10
          else if (tok.name === 'charge') charge = n
          else continue
          batteryChanged = true
          continue
        }
        const key = `v:${tok.name}`
        const cur = open.get(key)
        if (cur?.value === tok.value) continue
        close(key, t)
        openState(key, { name: tok.name, value: tok.value, startNs: t })
      }
    }
    if (batteryChanged && level !== undefined) {
      battery.push({
        tNs: t,
        levelPercent: level,
        ...(volt === undefined ? {} : { voltageV: volt }),
        ...(temp === undefined ? {} : { temperatureC: temp }),
        ...(charge === undefined ? {} : { chargeMah: charge }),
      })
    }
  }
  const startNs = records[0]?.tNs ?? 0
  const lastRecordNs = records.length === 0 ? 0 : lastT
  const endNs = Math.max(lastRecordNs, options.endNs ?? lastRecordNs)
  for (const key of [...open.keys()]) close(key, endNs, true)
  intervals.sort((a, b) => a.startNs - b.startNs || a.seq - b.seq)
  return {
    startNs,
    endNs,
    anchors,
    intervals: intervals.map(({ seq: _seq, ...rest }) => rest),
    instants,
    battery,
    timeReversals,
  }
}

/** Total time (ns) the named state was on (optionally only with `value`), overlapping intervals merged. */
export function stateDurationNs(timeline: HistoryTimeline, name: string, value?: string): number {
  const spans = timeline.intervals
    .filter((i) => i.name === name && (value === undefined || i.value === value))
    .map((i) => [i.startNs, i.endNs] as const)
    .sort((a, b) => a[0] - b[0])
  let total = 0
  let curStart = Number.NaN
  let curEnd = Number.NaN
  for (const [s, e] of spans) {
    if (Number.isNaN(curStart) || s > curEnd) {
      if (!Number.isNaN(curStart)) total += curEnd - curStart
      curStart = s
      curEnd = e
    } else curEnd = Math.max(curEnd, e)
  }
  if (!Number.isNaN(curStart)) total += curEnd - curStart
  return total
}

/**
 * Time the device was not `plugged` between the timeline's start and end, ns: what the dump calls
 * "Time on battery" when the timeline ends at the dump time (`endNs` = `Total run time:`).
 */
export function timeOnBatteryNs(timeline: HistoryTimeline): number {
  return timeline.endNs - timeline.startNs - stateDurationNs(timeline, 'plugged')
}
