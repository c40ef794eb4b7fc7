/**
 * `dumpsys batterystats [--reset | --history | --history-start <t> | -c | --checkin]`, consistent
 * with what happened on the simulated phone since the last reset: history records (screen,
 * brightness, running, wake_lock, sensor, gps, mobile_radio, wifi_radio, plugged, charging,
 * ble_scan, top app, battery level) and the checkin power rows (`pws`, `pwi`) computed from the
 * ground truth. Text is produced by the batterystats writers in src/formats/batterystats. A plain
 * `dumpsys batterystats` prints the history section only (the full statistics dump is not
 * simulated).
 *
 * The history is printed the way Android 13 prints it (BatteryStats.dumpHistoryLocked and
 * HistoryPrinter; see src/collectors/power/battery-history.ts for the AOSP references): every
 * record keeps the whole state after it, and the printer writes what differs from the record it
 * printed before, starting from an all-off state (so a first record lists every flag that is on,
 * and a value such as `brightness=` only when it is not its first value, `dark`). Record times are
 * the history's own clock, boottime in whole ms (the history's base time is 0 after a reset),
 * printed relative to the first record (Android 15: MonotonicClock, `MONOTONIC_SHIFT_MS` ahead of
 * boottime). `--history-start <t>` prints the records from history time
 * `t` on, the first as a full state after a `TIME:` line (or its `RESET:` line), then
 * `  NEXT: <last record's time + 1>`.
 */
import {
  formatBatterystatsCheckin,
  formatBatterystatsHistory,
  type CheckinRow,
  type HistoryRecord,
  type HistoryToken,
} from '../../formats/batterystats/index.js'
import { apiLevelOf } from '../android-versions.js'
import type { ShellInvocation } from '../contract.js'
import { bootNowNs, type SimPhone } from '../sim/phone.js'
import type { HardwareKind } from '../sim/simulation.js'
import { out } from './_util.js'
import { appUidOf } from '../sim/app-model.js'

const BRIGHTNESS_BINS = ['dark', 'dim', 'medium', 'light', 'bright'] as const

function wallClock(phone: SimPhone, bootNs: number): string {
  const wallMs = (phone.clock.nowNs('realtime') - (bootNowNs(phone) - bootNs)) / 1e6
  const d = new Date(wallMs)
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}-${p(d.getUTCHours())}-${p(d.getUTCMinutes())}-${p(d.getUTCSeconds())}`
}

/** Merges intervals into on/off edges. */
function edges(intervals: readonly (readonly [number, number])[]): [number, boolean][] {
  const sorted = [...intervals].filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0])
  const outEdges: [number, boolean][] = []
  let cur: [number, number] | undefined
  for (const [s, e] of sorted) {
    if (cur !== undefined && s <= cur[1]) cur[1] = Math.max(cur[1], e)
    else {
      if (cur !== undefined) outEdges.push([cur[0], true], [cur[1], false])
      cur = [s, e]
    }
  }
  if (cur !== undefined) outEdges.push([cur[0], true], [cur[1], false])
  return outEdges
}

function appUid(phone: SimPhone): string {
  return `u0a${appUidOf(phone.app) - 10000}`
}

/**
 * The state fields the simulated history has, in HistoryPrinter's order (HISTORY_STATE_DESCRIPTIONS,
 * then HISTORY_STATE2_DESCRIPTIONS); value fields with the value that is never printed first.
 */
const FIELDS: ReadonlyArray<{ readonly name: string; readonly zero?: string }> = [
  { name: 'running' },
  { name: 'wake_lock' },
  { name: 'sensor' },
  { name: 'gps' },
  { name: 'wifi_radio' },
  { name: 'mobile_radio' },
  { name: 'screen' },
  { name: 'plugged' },
  { name: 'brightness', zero: 'dark' },
  { name: 'charging' },
  { name: 'ble_scan' },
]

/** One history record as BatteryStats keeps it: the whole state after it (its HistoryItem). */
interface SimRecord {
  /** History time: boottime in whole ms. */
  readonly ms: number
  readonly command: 'reset' | 'update'
  readonly level: number
  /** Flags that are on, and value fields → value. */
  readonly state: ReadonlyMap<string, string | true>
  /** An event of this record (`+top=…`), at most one as in a HistoryItem. */
  readonly event?: HistoryToken
}

/** The history since the last reset up to `nowNs`, as records that each hold the whole state. */
function historyRecords(phone: SimPhone, nowNs: number, shiftMs: number): SimRecord[] {
  const { sim, battery } = phone
  const from = phone.batterystatsResetNs
  const changes: Array<{ t: number; name: string; value: string | boolean }> = []
  const hw = (kinds: readonly HardwareKind[], tail: boolean): [number, number][] =>
    sim.hardware
      .filter((h) => kinds.includes(h.kind))
      .map((h) => [h.startNs, h.endNs + (tail ? h.tailNs : 0)])
  const flag = (name: string, intervals: [number, number][]): void => {
    for (const [t, on] of edges(intervals)) changes.push({ t, name, value: on })
  }
  flag('mobile_radio', hw(['cellular'], true))
  flag('wifi_radio', hw(['wifi'], true))
  flag('gps', hw(['gps'], false))
  flag('wake_lock', hw(['wakelock'], false))
  flag('sensor', hw(['sensor'], false))
  flag('ble_scan', hw(['bluetooth'], false))
  flag(
    'running',
    sim.slices.map((s) => [s.startNs, s.endNs]),
  )
  for (const s of sim.screenStates) {
    changes.push({ t: s.tNs, name: 'screen', value: s.on })
    const bin = BRIGHTNESS_BINS[Math.min(4, Math.floor((s.brightness * 5) / 256))] ?? 'dark'
    changes.push({ t: s.tNs, name: 'brightness', value: bin })
  }
  const events: Array<{ t: number; token: HistoryToken }> = []
  for (const line of sim.actionLog) {
    const m = /^(launch pid=\d+|force-stop) @(\d+)$/.exec(line)
    if (m === null) continue
    const on = m[1]?.startsWith('launch') ?? false
    events.push({
      t: Number(m[2]),
      token: {
        kind: 'tagged',
        prefix: on ? '+' : '-',
        name: 'top',
        uid: appUid(phone),
        tag: phone.app.package,
      },
    })
  }
  // What is still on now (a GPS left on, a radio's tail) has no off record yet.
  const upToNow = <T extends { t: number }>(list: T[]): T[] =>
    list.filter((x) => x.t <= nowNs).sort((a, b) => a.t - b.t)
  const changed = upToNow(changes)
  const happened = upToNow(events)
  const state = new Map<string, string | true>()
  const apply = (c: { name: string; value: string | boolean }): void => {
    if (c.value === false) state.delete(c.name)
    else state.set(c.name, c.value)
  }
  // The state at the reset: every change before it (one at its instant came after: the reset ran
  // first), and the charger.
  for (const c of changed) if (c.t < from) apply(c)
  if (battery.framework.usbPowered) state.set('plugged', true)
  if (battery.read(from).status === 'Charging') state.set('charging', true)
  const msOf = (t: number): number => Math.floor(t / 1e6) + shiftMs
  const resetMs = msOf(from)
  const records: SimRecord[] = [
    { ms: resetMs, command: 'reset', level: battery.levelPct(from), state: new Map(state) },
    { ms: resetMs, command: 'update', level: battery.levelPct(from), state: new Map(state) },
  ]
  // What happened in each ms since: one record with its changes and its first event, one more
  // for each other event (a HistoryItem has one).
  const byMs = new Map<number, { t: number; changes: typeof changed; events: HistoryToken[] }>()
  const at = (t: number) => {
    const ms = msOf(t)
    const group = byMs.get(ms) ?? { t, changes: [], events: [] }
    byMs.set(ms, group)
    return group
  }
  for (const c of changed) if (c.t >= from) at(c.t).changes.push(c)
  for (const e of happened) if (e.t >= from) at(e.t).events.push(e.token)
  for (const [ms, group] of [...byMs].sort((a, b) => a[0] - b[0])) {
    const before = new Map(state)
    for (const c of group.changes) apply(c)
    const differs =
      before.size !== state.size || [...state].some(([name, value]) => before.get(name) !== value)
    const level = battery.levelPct(group.t)
    if (differs && group.events.length === 0)
      records.push({ ms, command: 'update', level, state: new Map(state) })
    for (const event of group.events)
      records.push({ ms, command: 'update', level, state: new Map(state), event })
  }
  return records
}

/**
 * Prints records as HistoryPrinter does (non-checkin): from history time `start` on when given
 * (`--history-start`), the first printed record as a full state. Returns the printed records and,
 * with `start`, the `NEXT:` value.
 */
function printHistory(
  phone: SimPhone,
  records: readonly SimRecord[],
  start?: number,
): { items: HistoryRecord[]; next?: number } {
  const baseMs = records[0]?.ms ?? 0
  const resetWallClock = wallClock(phone, phone.batterystatsResetNs)
  const status = phone.battery.read(phone.batterystatsResetNs).status
  const battery: HistoryToken[] = [
    { kind: 'value', name: 'status', value: status === 'Charging' ? 'charging' : 'discharging' },
    { kind: 'value', name: 'health', value: 'good' },
    { kind: 'value', name: 'plug', value: phone.battery.framework.usbPowered ? 'usb' : 'none' },
    { kind: 'value', name: 'temp', value: String(phone.battery.temperatureDeciC) },
    {
      kind: 'value',
      name: 'volt',
      value: String(Math.round(phone.battery.read(phone.batterystatsResetNs).voltageUv / 1000)),
    },
  ]
  const items: HistoryRecord[] = []
  // The printer's previous state: all off, battery fields not printed yet (HistoryPrinter.reset()).
  let old = new Map<string, string | true>()
  let batteryPrinted = false
  const line = (r: SimRecord, body: Partial<HistoryRecord>): HistoryRecord => ({
    kind: 'record',
    line: 0,
    tNs: (r.ms - baseMs) * 1e6,
    readInts: 2,
    command: 'update',
    tokens: [],
    details: [],
    ...body,
  })
  const update = (r: SimRecord): HistoryRecord => {
    const tokens: HistoryToken[] = batteryPrinted ? [] : [...battery]
    batteryPrinted = true
    for (const f of FIELDS) {
      const now = r.state.get(f.name)
      const was = old.get(f.name)
      if (f.zero === undefined) {
        if ((now !== undefined) !== (was !== undefined))
          tokens.push({ kind: 'flag', on: now !== undefined, name: f.name })
      } else if ((now ?? f.zero) !== (was ?? f.zero)) {
        tokens.push({ kind: 'value', name: f.name, value: String(now ?? f.zero) })
      }
    }
    if (r.event !== undefined) tokens.push(r.event)
    old = new Map(r.state)
    return line(r, { batteryLevel: r.level, tokens })
  }
  let printed = false
  for (const r of records) {
    if (start !== undefined && r.ms < start) continue
    if (r.command === 'reset') {
      old = new Map()
      batteryPrinted = false
      items.push(line(r, { command: 'reset', wallClock: resetWallClock }))
      // dumpHistoryLocked prints a --history-start dump's first record again as an update.
      if (start !== undefined && !printed) items.push(update(r))
    } else {
      // A --history-start dump's first record follows a TIME: line with the record's current time
      // (the iterator keeps the last one read: the reset's).
      if (start !== undefined && !printed)
        items.push(line(r, { command: 'time', wallClock: resetWallClock }))
      items.push(update(r))
    }
    printed = true
  }
  const last = records.at(-1)
  return start === undefined || last === undefined ? { items } : { items, next: last.ms + 1 }
}

/**
 * Android 15 stamps history records with MonotonicClock: elapsedRealtime plus an offset carried
 * over from earlier boots (BatteryStatsHistory, `mMonotonicClock.monotonicTime()`). This phone has
 * booted before: its offset is 3 days, 12.345 s. Earlier releases use elapsedRealtime itself after
 * a reset (the history's base time is 0).
 */
const MONOTONIC_SHIFT_MS = 3 * 86_400_000 + 12_345

/** The help `dumpsys batterystats` prints for an option it cannot read (BatteryStatsService.dumpHelp, abridged). */
const HELP = [
  'Battery stats (batterystats) dump options:',
  '  [--checkin] [--proto] [--history] [--history-start] [--charged] [-c]',
  '  [--daily] [--reset] [--write] [--new-daily] [--read-daily] [-h] [<package.name>]',
  '  --history: show only history data.',
  '  --history-start <num>: show only history data starting at given time offset.',
  '  --reset: reset the stats, clearing all current data.',
  '',
].join('\n')

const mAh = (phone: SimPhone, joules: number): number =>
  Math.round((joules / 3.6 / phone.sim.power.voltageV) * 1e4) / 1e4

/** Checkin rows since the last reset, from the ground truth. */
export function checkinRows(phone: SimPhone, nowNs: number, build: string): CheckinRow[] {
  const gt = phone.sim.groundTruth(phone.batterystatsResetNs, nowNs)
  const uid = appUidOf(phone.app)
  const appJ = gt.appCpuEnergyJ + gt.components.gps + gt.components.other
  const items: [number, string, number][] = [
    [uid, 'uid', appJ],
    [0, 'scrn', gt.components.screen],
    [0, 'wifi', gt.components.wifi],
    [0, 'cell', gt.components.cellular],
    [0, 'blue', gt.components.bluetooth],
    // Other processes, the GPU and memory (phone physics) fall under idle, as the rest of the SoC.
    [
      0,
      'idle',
      gt.components.idle +
        gt.components.cpu +
        gt.components.gpu +
        gt.components.memory -
        gt.appCpuEnergyJ,
    ],
  ]
  const computed = items.reduce((a, [, , j]) => a + j, 0)
  const capacity = phone.sim.power.batteryCapacityMah
  const drop = Math.max(
    0,
    phone.battery.levelPct(phone.batterystatsResetNs) - phone.battery.levelPct(nowNs),
  )
  const base = { line: 0, checkinVersion: 9, category: 'l' } as const
  const rows: CheckinRow[] = [
    {
      ...base,
      category: 'i',
      type: 'vers',
      uid: 0,
      statsVersion: 36,
      parcelVersion: 214,
      startPlatformVersion: build,
      endPlatformVersion: build,
    },
    { ...base, category: 'i', type: 'uid', uid: 0, appUid: uid, packageName: phone.app.package },
    {
      ...base,
      type: 'pws',
      uid: 0,
      capacityMah: capacity,
      computedPowerMah: mAh(phone, computed),
      minDrainedMah: Math.max(0, (drop - 1) * capacity) / 100,
      maxDrainedMah: ((drop + 1) * capacity) / 100,
    },
  ]
  for (const [owner, label, joules] of items) {
    rows.push({
      ...base,
      type: 'pwi',
      uid: owner,
      label,
      totalMah: mAh(phone, joules),
      isSystem: owner < 10000,
      screenMah: 0,
      proportionalSmearMah: 0,
    })
  }
  return rows
}

export function dumpsysBatterystats(
  phone: SimPhone,
  inv: ShellInvocation,
  args: readonly string[],
): number {
  const now = bootNowNs(phone)
  if (args.includes('--reset')) {
    phone.batterystatsResetNs = now
    out(inv, 'Battery stats reset.\n')
    return 0
  }
  if (args.includes('-c') || args.includes('--checkin')) {
    const build = inv.device.props.get('ro.build.id') ?? 'TQ3A.230805.001'
    out(inv, formatBatterystatsCheckin(checkinRows(phone, now, build)))
    return 0
  }
  let start: number | undefined
  const at = args.indexOf('--history-start')
  if (at >= 0) {
    const value = args[at + 1]
    if (value === undefined) {
      out(inv, `Missing time argument for --history-since\n${HELP}`)
      return 0
    }
    // ParseUtils.parseLong(value, 0): what is not a number is 0.
    start = /^-?\d+$/.test(value) ? Number(value) : 0
  }
  const shiftMs = apiLevelOf(inv.device.props) >= 35 ? MONOTONIC_SHIFT_MS : 0
  const records = historyRecords(phone, now, shiftMs)
  const printed = printHistory(phone, records, start)
  out(
    inv,
    `${formatBatterystatsHistory({
      header: `Battery History (0% used, ${records.length * 12}B used of 4096KB, 3 strings using 126B):`,
      items: printed.items,
      ...(printed.next === undefined ? {} : { next: printed.next }),
    })}\n`,
  )
  return 0
}
