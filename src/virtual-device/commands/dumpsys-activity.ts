/**
 * `dumpsys activity services [PACKAGE]`: the running services of installed helper apps, in the
 * layout of ActiveServices.dumpServicesLocked (`* ServiceRecord{… u0 pkg/.Name}` with
 * `isForeground=`, what Appium's settings helper client waits for).
 */
import type { HelperApps } from '../android/helper-apps.js'
import type { ShellInvocation } from '../contract.js'
import { out } from './_util.js'

export function dumpsysActivity(
  apps: HelperApps,
  inv: ShellInvocation,
  args: readonly string[],
): number {
  const [what, filter] = args
  if (what !== 'services') {
    out(
      inv,
      `ACTIVITY MANAGER ${String(what ?? '').toUpperCase()} (dumpsys activity ${what ?? ''})\n  (nothing)\n`,
    )
    return 0
  }
  const services = apps
    .runningServices()
    .filter(
      (s) => filter === undefined || `${s.pkg}/${s.name}`.startsWith(filter) || s.pkg === filter,
    )
  const lines = ['ACTIVITY MANAGER SERVICES (dumpsys activity services)']
  if (services.length === 0) lines.push('  (nothing)')
  else {
    lines.push('  User 0 active services:')
    for (const s of services) {
      lines.push(
        `  * ServiceRecord{${((s.pid * 2654435761) >>> 0).toString(16)} u0 ${s.pkg}/${s.name}}`,
        `    intent={cmp=${s.pkg}/${s.name}}`,
        `    packageName=${s.pkg}`,
        `    processName=${s.pkg}`,
        `    app=ProcessRecord{${((s.pid * 40503) >>> 0).toString(16)} ${s.pid}:${s.pkg}/u0a${s.pid % 1000}}`,
        `    isForeground=${s.foreground} foregroundId=1 types=0x00000000`,
        '    createTime=-1m2s345ms startingBgTimeout=--',
        '    lastActivity=-1m2s345ms restartTime=-1m2s345ms createdFromFg=true',
        '    startRequested=true delayedStop=false stopIfKilled=false callStart=true lastStartId=1',
        '',
      )
    }
  }
  out(inv, `${lines.join('\n')}\n`)
  return 0
}
