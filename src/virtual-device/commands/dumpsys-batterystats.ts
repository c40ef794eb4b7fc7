/**
 * `dumpsys batterystats [--reset | --history | -c | --checkin]`, consistent with what happened on
 * the simulated phone since the last reset: history records (screen, brightness, running,
 * wake_lock, gps, mobile_radio, wifi_radio, top app, plug state, battery level) and the checkin
 * power rows (`pws`, `pwi`) computed from the ground truth. Text is produced by the batterystats
 * writers in src/formats/batterystats. A plain `dumpsys batterystats` prints the history section
 * only (the full statistics dump is not simulated).
 */
import {
  formatBatterystatsCheckin,
  formatBatterystatsHistory,
  type CheckinRow,
  type HistoryRecord,
  type HistoryToken,
} from '../../formats/batterystats/index.js'
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

/** The history since the last reset up to `nowNs`. */
export function batteryHistory(phone: SimPhone, nowNs: number): HistoryRecord[] {
  const { sim, battery } = phone
  const from = phone.batterystatsResetNs
  const events = new Map<number, HistoryToken[]>()
  const add = (t: number, token: HistoryToken): void => {
    if (t < from || t > nowNs) return
    const list = events.get(t)
    if (list === undefined) events.set(t, [token])
    else list.push(token)
  }
  const flag = (on: boolean, name: string): HistoryToken => ({ kind: 'flag', on, name })
  const hw = (kinds: readonly HardwareKind[], tail: boolean): [number, number][] =>
    sim.hardware
      .filter((h) => kinds.includes(h.kind))
      .map((h) => [h.startNs, Math.min(nowNs, h.endNs + (tail ? h.tailNs : 0))])
  for (const [t, on] of edges(hw(['cellular'], true))) add(t, flag(on, 'mobile_radio'))
  for (const [t, on] of edges(hw(['wifi'], true))) add(t, flag(on, 'wifi_radio'))
  for (const [t, on] of edges(hw(['gps'], false))) add(t, flag(on, 'gps'))
  for (const [t, on] of edges(hw(['wakelock'], false))) add(t, flag(on, 'wake_lock'))
  for (const [t, on] of edges(sim.slices.map((s) => [s.startNs, s.endNs] as [number, number]))) {
    add(t, flag(on, 'running'))
  }
  let prev: { on: boolean; brightness: number } | undefined
  for (const s of sim.screenStates) {
    const t = Math.max(s.tNs, from)
    if (prev === undefined || prev.on !== s.on) add(t, flag(s.on, 'screen'))
    if (prev === undefined || prev.brightness !== s.brightness) {
      const bin = BRIGHTNESS_BINS[Math.min(4, Math.floor((s.brightness * 5) / 256))] ?? 'dark'
      add(t, { kind: 'value', name: 'brightness', value: bin })
    }
    prev = s
  }
  for (const line of sim.actionLog) {
    const m = /^(launch pid=\d+|force-stop) @(\d+)$/.exec(line)
    if (m === null) continue
    const on = m[1]?.startsWith('launch') ?? false
    add(Number(m[2]), {
      kind: 'tagged',
      prefix: on ? '+' : '-',
      name: 'top',
      uid: appUid(phone),
      tag: phone.app.package,
    })
  }
  const records: HistoryRecord[] = []
  const start = battery.read(from)
  records.push({
    kind: 'record',
    line: 0,
    tNs: 0,
    readInts: 2,
    command: 'reset',
    wallClock: wallClock(phone, from),
    tokens: [],
    details: [],
  })
  records.push({
    kind: 'record',
    line: 0,
    tNs: 0,
    readInts: 2,
    command: 'update',
    batteryLevel: battery.levelPct(from),
    tokens: [
      {
        kind: 'value',
        name: 'status',
        value: start.status === 'Charging' ? 'charging' : 'discharging',
      },
      { kind: 'value', name: 'health', value: 'good' },
      { kind: 'value', name: 'plug', value: battery.framework.usbPowered ? 'usb' : 'none' },
      { kind: 'value', name: 'temp', value: String(battery.temperatureDeciC) },
      { kind: 'value', name: 'volt', value: String(Math.round(start.voltageUv / 1000)) },
    ],
    details: [],
  })
  for (const t of [...events.keys()].sort((a, b) => a - b)) {
    // History times have ms resolution.
    const ms = Math.round((t - from) / 1e6)
    records.push({
      kind: 'record',
      line: 0,
      tNs: ms * 1e6,
      command: 'update',
      batteryLevel: battery.levelPct(t),
      tokens: events.get(t) ?? [],
      details: [],
    })
  }
  return records
}

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
  const records = batteryHistory(phone, now)
  out(
    inv,
    formatBatterystatsHistory({
      header: `Battery History (0% used, ${records.length * 12}B used of 4096KB, 3 strings using 126B):`,
      items: records,
    }),
  )
  return 0
}
