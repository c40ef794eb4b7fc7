/**
 * batterystats + power_profile model (PETrA's method, Di Nucci et al. 2017): `dumpsys
 * batterystats --reset` at the window's start; at its end `dumpsys batterystats --history` gives
 * the component-state timeline (screen and brightness bin, Wi-Fi and mobile radio, GPS, wake
 * locks, CPU running), each state is priced with the device's power_profile.xml currents and
 * multiplied by the battery voltage from the history (`volt=`).
 *
 * Clock: history times are ms since the reset record. The collector reads `/proc/uptime`
 * (CLOCK_BOOTTIME) right before and after the reset and maps history time 0 to the midpoint, so
 * the series is on `boottime` within ± half that round trip (plus the 10 ms step of
 * /proc/uptime and the history's 1 ms resolution).
 *
 * The model is coarse by construction: the history says *that* the CPU ran, not on which cores at
 * which frequency (PETrA reads frequencies from systrace, which this collector does not record),
 * and it cannot tell a radio's active period from its tail. See docs/devices.md, "Collectors".
 */
import { readFile } from 'node:fs/promises'
import {
  DEVICE_PROFILE_PATHS,
  parseProcUptime,
  shell,
  shellScript,
  type AdbDevice,
} from '../../device/index.js'
import {
  historyTimeline,
  parseBatterystatsHistory,
  summarizeBatterystatsCheckin,
  type HistoryTimeline,
  type StateInterval,
} from '../../formats/batterystats/index.js'
import { parsePowerProfile, type PowerProfile } from '../../formats/power-profile/index.js'
import {
  EnergyError,
  isEnergyError,
  type EnergyWarning,
  type PowerSample,
} from '../../model/index.js'
import { CollectorErrors } from '../errors.js'
import type { CollectorContext, PowerCollector, PowerData } from '../types.js'

export interface BatterystatsOptions {
  /**
   * The device's power profile: parsed, its XML text, or a host file path. When absent the
   * collector tries to read a plain-text `power_profile.xml` from the device
   * (`DEVICE_PROFILE_PATHS`); most devices keep it compiled inside framework-res.apk, so pass it
   * (decode it with `apktool d framework-res.apk`). @default read from the device
   */
  readonly profile?: PowerProfile | string
  /** Voltage (V) used when the history carries no `volt=` reading. @default 3.85 */
  readonly nominalVoltageV?: number
  /**
   * Current (mA) charged while the history says `running` (CPU awake and executing). The history
   * does not say which cores ran at which frequency. @default `cpu.active` + cluster 0's
   * `cpu.cluster_power` + one cluster-0 core at its middle speed
   */
  readonly runningCpuMa?: number
}

/** The currents (mA) the model charges for each component state. Exported for documentation and tests. */
export interface BatterystatsModelCurrents {
  /** `cpu.suspend`: always drawn. */
  readonly suspendMa: number
  /** `cpu.idle`: while awake (screen on, a wake lock held, or the CPU running). */
  readonly awakeMa: number
  /** While `running`: see `BatterystatsOptions.runningCpuMa`. */
  readonly runningMa: number
  /** `screen.on`. */
  readonly screenOnMa: number
  /** `screen.full`, scaled by the brightness bin: (bin + 0.5) / 5 as BatteryStats does. */
  readonly screenFullMa: number
  /** `ambient.on`: while `screen_doze` (the always-on display) with the screen off. */
  readonly screenDozeMa: number
  /** `wifi.active`, else `wifi.controller.tx`: while `wifi_radio`. */
  readonly wifiRadioMa: number
  /** `wifi.on`: while `wifi_running`. */
  readonly wifiOnMa: number
  /** `wifi.scan`: while `wifi_scan`. */
  readonly wifiScanMa: number
  /** `radio.active`, else the middle `modem.controller.tx` level: while `mobile_radio`. */
  readonly mobileRadioMa: number
  /** `gps.on`, else `gps.signalqualitybased[0]` (poor signal): while `gps`. */
  readonly gpsMa: number
  /** `gps.on`, else `gps.signalqualitybased[1]`: while `gps` with `gps_signal_quality=good`. */
  readonly gpsGoodSignalMa: number
  /** `bluetooth.controller.idle`, else `bluetooth.on`: while `bluetooth` (switched on). */
  readonly bluetoothOnMa: number
  /** `bluetooth.controller.rx`, else `bluetooth.active`: while `ble_scan` (a scan receives). */
  readonly bleScanMa: number
  /** `audio`, `video`, `camera.avg`, `camera.flashlight`: while the matching flag is on. */
  readonly audioMa: number
  readonly videoMa: number
  readonly cameraMa: number
  readonly flashlightMa: number
}

const BRIGHTNESS_BINS = ['dark', 'dim', 'medium', 'light', 'bright'] as const

/** The per-state currents of `profile`. */
export function modelCurrents(
  profile: PowerProfile,
  runningCpuMa?: number,
): BatterystatsModelCurrents {
  const item = (k: string): number | undefined => profile.items[k]
  const array = (k: string): readonly number[] | undefined => profile.arrays[k]
  const middle = (a: readonly number[] | undefined): number | undefined =>
    a === undefined || a.length === 0 ? undefined : a[Math.floor(a.length / 2)]
  const c0 = profile.cpu.clusters[0]
  const running =
    runningCpuMa ??
    profile.cpu.activeMa + (c0?.clusterPowerMa ?? 0) + (middle(c0?.corePowerMa) ?? 0)
  const gpsBySignal = array('gps.signalqualitybased')
  return {
    suspendMa: profile.cpu.suspendMa,
    awakeMa: profile.cpu.idleMa,
    runningMa: running,
    // The built-in display: `screen.on` or, on newer profiles, `screen.on.display0`.
    screenOnMa: profile.displays[0]?.screenOnMa ?? 0,
    screenFullMa: profile.displays[0]?.screenFullMa ?? 0,
    screenDozeMa: profile.displays[0]?.ambientMa ?? 0,
    wifiRadioMa: item('wifi.active') ?? item('wifi.controller.tx') ?? 0,
    wifiOnMa: item('wifi.on') ?? 0,
    wifiScanMa: item('wifi.scan') ?? 0,
    mobileRadioMa:
      item('radio.active') ??
      middle(array('modem.controller.tx')) ??
      item('modem.controller.tx') ??
      0,
    gpsMa: item('gps.on') ?? gpsBySignal?.[0] ?? 0,
    gpsGoodSignalMa: item('gps.on') ?? gpsBySignal?.[1] ?? gpsBySignal?.[0] ?? 0,
    bluetoothOnMa: item('bluetooth.controller.idle') ?? item('bluetooth.on') ?? 0,
    bleScanMa: item('bluetooth.controller.rx') ?? item('bluetooth.active') ?? 0,
    audioMa: item('audio') ?? 0,
    videoMa: item('video') ?? 0,
    cameraMa: item('camera.avg') ?? 0,
    flashlightMa: item('camera.flashlight') ?? 0,
  }
}

/**
 * The screen's brightness bin (0 dark … 4 bright) from the history's `brightness=` value:
 * `dark`…`bright`, or `brightness-0`…`brightness-4` as Android 15 prints them (HyperOS capture in
 * the corpus). No value yet means dark: HistoryPrinter prints a value field only when it differs
 * from the previous record's, starting from 0 after a reset or at the start of a dump
 * (BatteryStats.printBitDescriptions), so a screen whose bin is 0 never shows one. A value of no
 * known shape is the middle bin.
 */
export function brightnessBin(value: string | undefined): number {
  if (value === undefined) return 0
  const named = BRIGHTNESS_BINS.indexOf(value as never)
  if (named >= 0) return named
  const numbered = /^brightness-([0-4])$/.exec(value)
  return numbered === null ? 2 : Number(numbered[1])
}

/** The components the model prices on their own: what a phone without rails reports per component. */
export type ModelledComponent = 'screen' | 'wifi' | 'cellular' | 'gps' | 'bluetooth'

/** The history states each modelled component is priced from. */
export const COMPONENT_STATES: Readonly<Record<ModelledComponent, readonly string[]>> = {
  screen: ['screen', 'screen_doze'],
  wifi: ['wifi_radio', 'wifi_running', 'wifi_scan'],
  cellular: ['mobile_radio'],
  gps: ['gps'],
  bluetooth: ['bluetooth', 'ble_scan'],
}

/**
 * Current (mA) of each modelled component with the states in `on` (interval names, value states →
 * their value). `brightness`: the screen's exact level as a fraction of `screen.full` (0–1) when
 * the caller knows it; otherwise the history's bin, priced (bin + 0.5) / 5 as BatteryStats does.
 */
export function componentCurrentsMa(
  on: ReadonlyMap<string, string | true>,
  c: BatterystatsModelCurrents,
  brightness?: number,
): Record<ModelledComponent, number> {
  const has = (name: string): boolean => on.has(name)
  const value = (name: string): string | undefined => {
    const v = on.get(name)
    return typeof v === 'string' ? v : undefined
  }
  let screen = 0
  if (has('screen')) {
    const fraction =
      brightness ?? (brightnessBin(value('brightness')) + 0.5) / BRIGHTNESS_BINS.length
    screen = c.screenOnMa + c.screenFullMa * fraction
  } else if (has('screen_doze')) screen = c.screenDozeMa
  let wifi = 0
  if (has('wifi_radio')) wifi += c.wifiRadioMa
  if (has('wifi_running')) wifi += c.wifiOnMa
  if (has('wifi_scan')) wifi += c.wifiScanMa
  const gps = !has('gps') ? 0 : value('gps_signal_quality') === 'good' ? c.gpsGoodSignalMa : c.gpsMa
  let bluetooth = 0
  if (has('bluetooth')) bluetooth += c.bluetoothOnMa
  if (has('ble_scan')) bluetooth += c.bleScanMa
  return {
    screen,
    wifi,
    cellular: has('mobile_radio') ? c.mobileRadioMa : 0,
    gps,
    bluetooth,
  }
}

/** Current (mA) with the states in `on` (interval names, `brightness` → its value). */
function currentMa(on: ReadonlyMap<string, string | true>, c: BatterystatsModelCurrents): number {
  const has = (name: string): boolean => on.has(name)
  let ma = c.suspendMa
  if (has('screen') || has('wake_lock') || has('running')) ma += c.awakeMa
  if (has('running')) ma += c.runningMa
  const parts = componentCurrentsMa(on, c)
  ma += parts.screen + parts.wifi + parts.cellular + parts.gps + parts.bluetooth
  if (has('audio')) ma += c.audioMa
  if (has('video')) ma += c.videoMa
  if (has('camera')) ma += c.cameraMa
  if (has('flashlight')) ma += c.flashlightMa
  return ma
}

/** States that open or close a modelled component, or change its price. */
export const COMPONENT_STATE_NAMES: ReadonlySet<string> = new Set([
  ...Object.values(COMPONENT_STATES).flat(),
  'brightness',
  'gps_signal_quality',
])

/** States that open or close something the whole-phone model prices. */
const MODELLED = new Set([
  ...COMPONENT_STATE_NAMES,
  'running',
  'wake_lock',
  'audio',
  'video',
  'camera',
  'flashlight',
])

/** The states of a timeline from one time on: what is on, and the battery voltage then. */
export interface HistoryStateStep {
  /** On the history's axis, ns. */
  readonly tNs: number
  /** Interval names that are on, value states → their value (`brightness` → `dim`). */
  readonly on: ReadonlyMap<string, string | true>
  /** The latest `volt=` reading (the first one before it), V; undefined when the history has none. */
  readonly voltageV: number | undefined
}

/**
 * The times (history axis, ns) in [fromNs, toNs] where a state in `names` opens or closes or the
 * voltage changes, with both ends and `extraNs` (those in range), sorted and distinct.
 */
export function stateChangeTimes(
  timeline: HistoryTimeline,
  names: ReadonlySet<string>,
  fromNs: number,
  toNs: number,
  extraNs: Iterable<number> = [],
): number[] {
  const points = new Set<number>([fromNs, toNs, ...extraNs])
  for (const i of timeline.intervals) {
    if (!names.has(i.name) || !(i.endNs > i.startNs)) continue
    points.add(i.startNs)
    points.add(i.endNs)
  }
  for (const b of timeline.battery) if (b.voltageV !== undefined) points.add(b.tNs)
  return [...points].filter((t) => t >= fromNs && t <= toNs).sort((a, b) => a - b)
}

/**
 * Sweeps `timeline` over `times` (ascending): at each, the states of `names` on from then (until the
 * next time) and the battery voltage. Intervals are half-open, so one that ends at a time is off
 * there. Linear in the intervals after sorting them once.
 */
export function* sweepStates(
  timeline: HistoryTimeline,
  names: ReadonlySet<string>,
  times: readonly number[],
): Generator<HistoryStateStep> {
  const intervals = timeline.intervals.filter((i) => names.has(i.name) && i.endNs > i.startNs)
  // Ends before starts at a tie: intervals are half-open.
  const starts = [...intervals].sort((a, b) => a.startNs - b.startNs)
  const ends = [...intervals].sort((a, b) => a.endNs - b.endNs)
  const volts = timeline.battery.filter((b) => b.voltageV !== undefined)
  const open = new Map<string, { count: number; value: string | true }>()
  // Intervals that were opened: one that ended before the first time never was.
  const opened = new Set<StateInterval>()
  let si = 0
  let ei = 0
  let vi = 0
  // Before the first reading: the first reading there is.
  let voltageV = volts[0]?.voltageV
  for (const t of times) {
    for (; ei < ends.length && (ends[ei]?.endNs ?? Infinity) <= t; ei++) {
      const i = ends[ei]
      if (i === undefined || !opened.delete(i)) continue
      const o = open.get(i.name)
      if (o !== undefined && --o.count === 0) open.delete(i.name)
    }
    for (; si < starts.length && (starts[si]?.startNs ?? Infinity) <= t; si++) {
      const i = starts[si]
      if (i === undefined || i.endNs <= t) continue
      opened.add(i)
      const o = open.get(i.name)
      if (o === undefined) open.set(i.name, { count: 1, value: i.value ?? true })
      else {
        o.count++
        o.value = i.value ?? true
      }
    }
    for (; vi < volts.length && (volts[vi]?.tNs ?? Infinity) <= t; vi++)
      voltageV = volts[vi]?.voltageV
    const on = new Map<string, string | true>()
    for (const [name, o] of open) on.set(name, o.value)
    yield { tNs: t, on, voltageV }
  }
}

export interface ModelSeriesOptions {
  /** Added to history time to get the series clock (boottime of the reset record), ns. */
  readonly offsetNs: number
  /** @default 3.85 */
  readonly nominalVoltageV?: number
  readonly runningCpuMa?: number
}

/**
 * Prices a history timeline: power is piecewise constant between state changes. Each step is
 * written as two readings 1 ns apart (old power, then new power) so that trapezoid and
 * zero-order-hold integration give the same, exact energy. Covers `[timeline.startNs,
 * timeline.endNs]` mapped by `offsetNs`.
 */
export function batterystatsPowerSeries(
  timeline: HistoryTimeline,
  profile: PowerProfile,
  options: ModelSeriesOptions,
): { samples: PowerSample[]; usedNominalVoltage: boolean } {
  const currents = modelCurrents(profile, options.runningCpuMa)
  const nominal = options.nominalVoltageV ?? 3.85
  const times = stateChangeTimes(timeline, MODELLED, timeline.startNs, timeline.endNs)
  const usedNominalVoltage = !timeline.battery.some((b) => b.voltageV !== undefined)
  const samples: PowerSample[] = []
  let prevW: number | undefined
  for (const step of sweepStates(timeline, MODELLED, times)) {
    const powerW = (currentMa(step.on, currents) / 1000) * (step.voltageV ?? nominal)
    const tNs = step.tNs + options.offsetNs
    const last = samples[samples.length - 1]
    if (prevW !== undefined && powerW !== prevW && last !== undefined && tNs - 1 > last.tNs) {
      samples.push({ tNs: tNs - 1, powerW: prevW })
    }
    samples.push({ tNs, powerW })
    prevW = powerW
  }
  return { samples, usedNominalVoltage }
}

export function batterystatsCollector(options: BatterystatsOptions = {}): PowerCollector {
  let resetBootNs: number | undefined
  let resolved: PowerProfile | undefined

  return {
    name: 'batterystats',
    async start(context) {
      resetBootNs = undefined
      // Before the reset, so a missing profile fails the window before the test body runs.
      resolved ??= await resolveProfile(options.profile, context)
      resetBootNs = (await resetBatterystatsAt(context.device)).bootNs
    },
    async stop(context): Promise<PowerData> {
      const offsetNs = resetBootNs
      resetBootNs = undefined
      if (offsetNs === undefined) throw notStarted()
      const out = await shellScript(
        context.device,
        'dumpsys batterystats --history; cat /proc/uptime',
      )
      const lines = out.stdout.trimEnd().split('\n')
      const uptime = parseProcUptime(`${lines.pop() ?? ''}\n`)
      if (out.exitCode !== 0 || uptime === undefined) {
        throw new EnergyError({
          code: CollectorErrors.RECORDER_FAILED,
          message: `\`dumpsys batterystats --history\` failed (exit ${out.exitCode})`,
          hint: 'Run `adb shell dumpsys batterystats --history` by hand to see what the phone says.',
          details: { serial: context.device.serial },
        })
      }
      const history = parseBatterystatsHistory(lines.join('\n'))
      const timeline = historyTimeline(history, { endNs: uptime.deviceNs - offsetNs })
      if (!history.items.some((i) => i.kind === 'record')) {
        throw new EnergyError({
          code: CollectorErrors.NO_POWER_DATA,
          message: 'the batterystats history since the reset has no records',
          hint: 'The device may not keep a battery history while charging over USB on some releases; unplug (`adb shell dumpsys battery unplug`) or use another power source.',
          details: { serial: context.device.serial },
        })
      }
      const profile = resolved ?? (await resolveProfile(options.profile, context))
      const { samples, usedNominalVoltage } = batterystatsPowerSeries(timeline, profile, {
        offsetNs,
        ...(options.nominalVoltageV === undefined
          ? {}
          : { nominalVoltageV: options.nominalVoltageV }),
        ...(options.runningCpuMa === undefined ? {} : { runningCpuMa: options.runningCpuMa }),
      })
      const warnings: EnergyWarning[] = [
        {
          code: 'W_BATTERYSTATS_MODEL',
          severity: 'info',
          message:
            'power is modelled from component states × power_profile.xml currents (PETrA), not measured; expect tens of percent error',
        },
      ]
      if (usedNominalVoltage) {
        warnings.push({
          code: 'W_BATTERYSTATS_NO_VOLTAGE',
          severity: 'warning',
          message: `the battery history has no volt= reading; assumed ${options.nominalVoltageV ?? 3.85} V`,
        })
      }
      if (timeline.timeReversals > 0) {
        warnings.push({
          code: 'W_BATTERYSTATS_TIME_REVERSAL',
          severity: 'info',
          message: `${timeline.timeReversals} history record(s) ran backwards in time and were clamped`,
        })
      }
      const checkin = await frameworkEstimate(context)
      if (checkin !== undefined) warnings.push(checkin)
      return {
        kind: 'series',
        series: { kind: 'instant', source: 'batterystats-model', clock: 'boottime', samples },
        warnings,
      }
    },
    async abort() {
      resetBootNs = undefined
    },
  }
}

/** /proc/uptime prints boottime in hundredths of a second. */
export const UPTIME_TICK_NS = 10e6

/**
 * `dumpsys batterystats --reset` between two reads of `/proc/uptime` (CLOCK_BOOTTIME): when the
 * reset happened (the midpoint, ns) and how well that is known (± half the time the three commands
 * took, plus /proc/uptime's 10 ms tick). Throws `E_COLLECTOR_RECORDER_FAILED` when the phone
 * refuses the reset.
 */
export async function resetBatterystatsAt(
  device: AdbDevice,
): Promise<{ readonly bootNs: number; readonly uncertaintyNs: number }> {
  const out = await shellScript(
    device,
    'cat /proc/uptime; dumpsys batterystats --reset; cat /proc/uptime',
  )
  const [before, , after] = splitUptime(out.stdout)
  if (out.exitCode !== 0 || before === undefined || after === undefined) {
    throw new EnergyError({
      code: CollectorErrors.RECORDER_FAILED,
      message: `\`dumpsys batterystats --reset\` failed (exit ${out.exitCode}): ${out.stdout.trim().slice(0, 200) || 'no output'}`,
      hint: 'Run `adb shell dumpsys batterystats --reset` by hand to see what the phone says.',
      details: { serial: device.serial },
    })
  }
  return {
    bootNs: Math.round((before + after) / 2),
    uncertaintyNs: Math.round((after - before) / 2) + UPTIME_TICK_NS,
  }
}

/** `/proc/uptime` lines of a `cat; cmd; cat` script: [first, middle text, last]. */
function splitUptime(stdout: string): [number | undefined, string, number | undefined] {
  const lines = stdout.trimEnd().split('\n')
  const first = parseProcUptime(`${lines[0] ?? ''}\n`)?.deviceNs
  const last = parseProcUptime(`${lines[lines.length - 1] ?? ''}\n`)?.deviceNs
  return [first, lines.slice(1, -1).join('\n'), last]
}

/** The framework's own estimate since the reset (`-c` checkin `pws` row), as an info warning. */
async function frameworkEstimate(context: CollectorContext): Promise<EnergyWarning | undefined> {
  const out = await shell(context.device, ['dumpsys', 'batterystats', '-c']).catch(() => undefined)
  if (out === undefined || out.exitCode !== 0) return undefined
  try {
    const pws = summarizeBatterystatsCheckin(out.stdout).powerSummary[0]
    if (pws === undefined) return undefined
    return {
      code: 'W_BATTERYSTATS_FRAMEWORK_ESTIMATE',
      severity: 'info',
      message: `batterystats' own estimate since the reset: ${pws.computedPowerMah} mAh computed, ${pws.minDrainedMah}–${pws.maxDrainedMah} mAh drained`,
    }
  } catch (error) {
    if (isEnergyError(error)) return undefined
    throw error
  }
}

async function resolveProfile(
  profile: PowerProfile | string | undefined,
  context: CollectorContext,
): Promise<PowerProfile> {
  const found = await readPowerProfile(profile, context.device)
  if (found !== undefined) return found
  throw new EnergyError({
    code: CollectorErrors.PROFILE_UNAVAILABLE,
    message: `the device exposes no plain-text power_profile.xml (tried ${DEVICE_PROFILE_PATHS.join(', ')})`,
    hint: 'Pass batterystats: { profile: "<path to power_profile.xml>" }; decode it from the device with `adb pull /system/framework/framework-res.apk` and `apktool d`.',
    details: { serial: context.device.serial },
  })
}

/**
 * A power profile: `profile` when given (parsed, XML text, or a host path — a path that cannot be
 * read is `E_COLLECTOR_PROFILE_UNAVAILABLE`), else the device's plain-text power_profile.xml
 * (`DEVICE_PROFILE_PATHS`), else `undefined` (most devices keep it inside framework-res.apk).
 */
export async function readPowerProfile(
  profile: PowerProfile | string | undefined,
  device: AdbDevice,
): Promise<PowerProfile | undefined> {
  if (profile !== undefined && typeof profile !== 'string') return profile
  if (profile !== undefined) {
    if (profile.trimStart().startsWith('<')) return parsePowerProfile(profile)
    let text: string
    try {
      text = await readFile(profile, 'utf8')
    } catch (cause) {
      throw new EnergyError({
        code: CollectorErrors.PROFILE_UNAVAILABLE,
        message: `cannot read the power profile '${profile}': ${(cause as Error).message}`,
        hint: 'Pass the path of a decoded power_profile.xml (apktool d framework-res.apk → res/xml/power_profile.xml).',
        details: { path: profile },
        cause,
      })
    }
    return parsePowerProfile(text)
  }
  for (const path of DEVICE_PROFILE_PATHS) {
    const out = await shell(device, ['cat', path]).catch(() => undefined)
    if (out?.exitCode === 0 && out.stdout.trimStart().startsWith('<')) {
      return parsePowerProfile(out.stdout)
    }
  }
  return undefined
}

function notStarted(): EnergyError {
  return new EnergyError({
    code: CollectorErrors.NOT_STARTED,
    message: 'the batterystats collector was stopped before it was started',
    hint: 'This is a bug in vitest-energy; please report it.',
  })
}
