/**
 * The two dumps a Pixel 6 on Android 13 gives about its ODPM rails:
 *
 * - `dumpsys powerstats` (framework PowerStatsService.dump, Android 12/13): three sections,
 *   `PowerStatsService dumpsys: available PowerEntities` / `Channels` / `EnergyConsumers`, items
 *   printed flush left by a plain PrintWriter (later releases indent them). It lists channels and
 *   never prints readings.
 * - `dumpsys android.hardware.power.stats.IPowerStats/default [delta]` (the PowerStats HAL's own
 *   dump, hardware/google/pixel powerstats): the energy-meter table with each rail's cumulative
 *   energy since boot, in mWs from a float32, as src/formats/dumpsys writes it. With `delta`, the
 *   elapsed time and each rail's change since the previous `delta` dump (the first one prints 0).
 *
 * Power entities (state residency) are not simulated: that section is printed empty. The HAL dump
 * prints only the energy-meter table, not its state-residency and energy-consumer tables.
 *
 * Releases and phones differ (`powerStatsServices`): before Android 12 neither service exists
 * (`dumpsys` answers `Can't find service`; the rails of a Pixel 4/5 are read through perfetto);
 * Android 12 and 13 print the channel items flush left, later releases indent them
 * (IndentingPrintWriter); a phone without ODPM has no PowerStats HAL, so PowerStatsService prints
 * nothing (it only logs "PowerStats HAL is not initialized") and the HAL service is missing.
 */
import {
  formatDumpsysPowerstats,
  formatPowerStatsMeter,
  meterReadingFromUws,
  type PowerStatsEnergyConsumer,
} from '../../formats/dumpsys/index.js'
import { apiLevelOf } from '../android-versions.js'
import type { ShellInvocation, VirtualDeviceHandle } from '../contract.js'
import { RAIL_SUBSYSTEMS } from '../sim/power-model.js'
import { bootNowNs, type SimPhone } from '../sim/phone.js'
import { readRails } from '../sim/sensors.js'
import { out } from './_util.js'

/** The HAL service name `dumpsys` knows the PowerStats HAL by. */
export const POWER_STATS_HAL_SERVICE = 'android.hardware.power.stats.IPowerStats/default'

/**
 * Energy consumers a Pixel 6 HAL declares for the rails the simulation has (name, EnergyConsumerType
 * code, ordinal): CPU clusters (2), display (3), GNSS (4), mobile radio (5), Wi-Fi (6).
 */
const CONSUMERS: Readonly<Record<string, readonly [string, number, number]>> = {
  S4M_VDD_CPUCL0: ['CPUCL0', 2, 0],
  S3M_VDD_CPUCL1: ['CPUCL1', 2, 1],
  S2M_VDD_CPUCL2: ['CPUCL2', 2, 2],
  VSYS_PWR_DISPLAY: ['DISPLAY', 3, 0],
  L9S_GNSS_CORE: ['GPS', 4, 0],
  VSYS_PWR_MODEM: ['MODEM', 5, 0],
  VSYS_PWR_WLAN_BT: ['WIFI', 6, 0],
}

function subsystemOf(rail: string): string {
  return RAIL_SUBSYSTEMS[rail] ?? 'Other'
}

/** Which of the two services `dumpsys` finds on this phone. */
export function powerStatsServices(
  phone: SimPhone,
  device: VirtualDeviceHandle,
): { readonly framework: boolean; readonly hal: boolean } {
  const api = apiLevelOf(device.props)
  return { framework: api >= 31, hal: api >= 31 && phone.odpm }
}

/**
 * `dumpsys powerstats` (no readings): Android 12/13 items flush left, later releases indented
 * (`api`, default 33); nothing at all on a phone without ODPM.
 */
export function renderDumpsysPowerstats(phone: SimPhone, api = 33): string {
  if (!phone.odpm) return ''
  const names = phone.sim.railNames()
  const consumers: PowerStatsEnergyConsumer[] = []
  for (const rail of names) {
    const c = CONSUMERS[rail]
    if (c !== undefined) {
      consumers.push({ id: consumers.length, ordinal: c[2], type: c[1], name: c[0] })
    }
  }
  return formatDumpsysPowerstats(
    {
      entities: [],
      channels: names.map((name, id) => ({ id, name, subsystem: subsystemOf(name) })),
      consumers,
    },
    { layout: api >= 34 ? 'indented' : 'android12' },
  )
}

/** Counters of the previous `delta` dump, kept per phone like the HAL's static variables. */
export interface HalDeltaState {
  /** BOOTTIME of the previous `delta` dump, ns. */
  readonly tNs: number
  /** Each rail's counter then, µWs. */
  readonly energyUws: ReadonlyMap<string, number>
}

const previousDelta = new WeakMap<SimPhone, HalDeltaState>()

/**
 * The PowerStats HAL dump at boottime `tNs`: the energy-meter table, with `delta` also the
 * elapsed ms and per-rail change since the previous `delta` dump on this phone (which it updates).
 */
export function renderPowerStatsHalDump(phone: SimPhone, tNs: number, delta: boolean): string {
  const snapshot = readRails(phone.sim, tNs)
  const names = phone.sim.railNames()
  const uwsOf = (rail: string): number => snapshot.energyUws.get(rail) ?? 0
  if (!delta) {
    return formatPowerStatsMeter({
      readings: names.map((rail) => meterReadingFromUws(rail, subsystemOf(rail), uwsOf(rail))),
    })
  }
  const previous = previousDelta.get(phone)
  previousDelta.set(phone, { tNs, energyUws: snapshot.energyUws })
  return formatPowerStatsMeter({
    // The HAL truncates the elapsed BOOTTIME to ms (std::chrono::duration_cast).
    elapsedMs: previous === undefined ? 0 : Math.floor((tNs - previous.tNs) / 1e6),
    readings: names.map((rail) =>
      meterReadingFromUws(
        rail,
        subsystemOf(rail),
        uwsOf(rail),
        previous?.energyUws.get(rail) ?? uwsOf(rail),
      ),
    ),
  })
}

/**
 * `dumpsys powerstats [args]`: with no argument the three sections; any argument selects
 * PowerStatsService's proto/log outputs, which are not simulated (nothing is printed, as a phone
 * prints nothing for an argument it does not know).
 */
export function dumpsysPowerstats(
  phone: SimPhone,
  inv: ShellInvocation,
  args: readonly string[],
): number {
  if (args.length === 0) out(inv, renderDumpsysPowerstats(phone, apiLevelOf(inv.device.props)))
  return 0
}

/** `dumpsys android.hardware.power.stats.IPowerStats/default [delta]`. */
export function dumpsysPowerStatsHal(
  phone: SimPhone,
  inv: ShellInvocation,
  args: readonly string[],
): number {
  out(
    inv,
    renderPowerStatsHalDump(phone, bootNowNs(phone), args.length === 1 && args[0] === 'delta'),
  )
  return 0
}
