/**
 * `dumpsys <service> [args]` for the services the tool reads: battery, batterystats, power,
 * powerstats, the PowerStats HAL (`android.hardware.power.stats.IPowerStats/default`), package,
 * overlay.
 * Other services answer like a real phone whose service is missing.
 */
import type { HelperApps } from '../android/helper-apps.js'
import type { OverlayManager } from '../android/overlays.js'
import type { ShellCommand } from '../contract.js'
import type { SimPhone } from '../sim/phone.js'
import { err, out } from './_util.js'
import { dumpsysActivity } from './dumpsys-activity.js'
import { dumpsysBattery } from './dumpsys-battery.js'
import { dumpsysBatterystats } from './dumpsys-batterystats.js'
import { dumpsysPackage } from './dumpsys-package.js'
import { dumpsysPower } from './dumpsys-power.js'
import { dumpsysWindow } from './dumpsys-window.js'
import {
  dumpsysPowerStatsHal,
  dumpsysPowerstats,
  POWER_STATS_HAL_SERVICE,
  powerStatsServices,
} from './dumpsys-powerstats.js'

const SERVICES = [
  'activity',
  POWER_STATS_HAL_SERVICE,
  'battery',
  'batterystats',
  'deviceidle',
  'overlay',
  'package',
  'power',
  'powerstats',
  'window',
]

export function dumpsysCommand(
  phone: SimPhone,
  apps: HelperApps,
  overlays?: OverlayManager,
): ShellCommand {
  return (inv) => {
    const [, service, ...args] = inv.argv
    // Services this phone lacks (its Android release, no ODPM) answer like any missing service.
    const present = powerStatsServices(phone, inv.device)
    const missing = new Set([
      ...(overlays === undefined ? ['overlay'] : []),
      ...(present.framework ? [] : ['powerstats']),
      ...(present.hal ? [] : [POWER_STATS_HAL_SERVICE]),
    ])
    if (service !== undefined && missing.has(service)) {
      err(inv, `Can't find service: ${service}\n`)
      return 0
    }
    switch (service) {
      case 'battery':
        return dumpsysBattery(phone, inv, args)
      case 'batterystats':
        return dumpsysBatterystats(phone, inv, args)
      case 'power':
        return dumpsysPower(phone, inv)
      case 'powerstats':
        return dumpsysPowerstats(phone, inv, args)
      case POWER_STATS_HAL_SERVICE:
        return dumpsysPowerStatsHal(phone, inv, args)
      case 'package':
        return dumpsysPackage(apps.packages, inv, args)
      case 'overlay':
        return overlays?.command(inv, ['dump', ...args]) ?? 0
      case 'activity':
        return dumpsysActivity(phone, apps, inv, args)
      case 'window':
        return dumpsysWindow(phone, inv)
      case 'deviceidle':
        // `whitelist +PKG` (Appium keeps its helper apps out of Doze); nothing simulated dozes.
        if (args[0] === 'whitelist' && args[1]?.startsWith('+') === true) {
          out(inv, `Added: ${args[1].slice(1)}\n`)
        }
        return 0
      case '-l':
        out(
          inv,
          `Currently running services:\n${SERVICES.filter((s) => !missing.has(s))
            .map((s) => `  ${s}\n`)
            .join('')}`,
        )
        return 0
      case undefined:
        out(inv, 'Currently running services:\n')
        return 0
      default:
        err(inv, `Can't find service: ${service}\n`)
        return 0
    }
  }
}
