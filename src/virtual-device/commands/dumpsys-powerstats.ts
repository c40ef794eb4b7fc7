/**
 * `dumpsys powerstats`: the PowerStats HAL's ODPM channels and their cumulative energy (µWs).
 * Channel lines follow PowerStatsService's dump (`ChannelId: 0, ChannelName: S4M_VDD_CPUCL0,
 * ChannelSubsystem: CPU(LITTLE)`); the energy lines give each channel's counter at dump time.
 */
import type { ShellInvocation } from '../contract.js'
import { RAIL_SUBSYSTEMS } from '../sim/power-model.js'
import { bootNowNs, type SimPhone } from '../sim/phone.js'
import { readRails } from '../sim/sensors.js'
import { out } from './_util.js'

export function renderDumpsysPowerstats(phone: SimPhone, tNs: number): string {
  const snapshot = readRails(phone.sim, tNs)
  const names = phone.sim.railNames()
  const lines = ['PowerStatsService dumpsys: available Channels']
  names.forEach((name, id) => {
    lines.push(
      `ChannelId: ${id}, ChannelName: ${name}, ChannelSubsystem: ${RAIL_SUBSYSTEMS[name] ?? 'Other'}`,
    )
  })
  lines.push('PowerStatsService dumpsys: last energy measurements')
  names.forEach((name, id) => {
    const uws = snapshot.energyUws.get(name) ?? 0
    lines.push(
      `ChannelId: ${id}, Timestamp (ms): ${snapshot.timestampMs}, Duration (ms): ${snapshot.timestampMs}, Energy (uWs): ${uws}`,
    )
  })
  return `${lines.join('\n')}\n`
}

export function dumpsysPowerstats(phone: SimPhone, inv: ShellInvocation): number {
  out(inv, renderDumpsysPowerstats(phone, bootNowNs(phone)))
  return 0
}
