/**
 * `dumpsys battery [unplug | set ac|usb|wireless|level N | reset]`: BatteryService's dump, in the
 * Android 12 layout a Pixel 6 prints (frameworks/base services/core/java/com/android/server/
 * BatteryService.java, dumpInternal). `unplug`/`set` freeze the framework's view until `reset`.
 */
import type { ShellInvocation } from '../contract.js'
import { bootNowNs, type SimPhone } from '../sim/phone.js'
import { err, intArg, out } from './_util.js'

const STATUS_CODE = { Charging: 2, Discharging: 3, 'Not charging': 4, Full: 5 } as const

export function renderDumpsysBattery(phone: SimPhone, tNs: number): string {
  const fw = phone.battery.framework
  const gauge = phone.battery.read(tNs)
  const powered = fw.acPowered || fw.usbPowered || fw.wirelessPowered
  const lines = ['Current Battery Service state:']
  if (fw.updatesStopped) lines.push("  (UPDATES STOPPED -- use 'reset' to restart)")
  lines.push(
    `  AC powered: ${fw.acPowered}`,
    `  USB powered: ${fw.usbPowered}`,
    `  Wireless powered: ${fw.wirelessPowered}`,
    '  Dock powered: false',
    `  Max charging current: ${powered ? 500000 : 0}`,
    `  Max charging voltage: ${powered ? 5000000 : 0}`,
    `  Charge counter: ${gauge.chargeCounter}`,
    `  status: ${STATUS_CODE[gauge.status]}`,
    '  health: 2',
    '  present: true',
    `  level: ${phone.battery.levelPct(tNs)}`,
    '  scale: 100',
    `  voltage: ${Math.round(gauge.voltageUv / 1000)}`,
    `  temperature: ${phone.battery.temperatureDeciC}`,
    '  technology: Li-ion',
  )
  return `${lines.join('\n')}\n`
}

export function dumpsysBattery(
  phone: SimPhone,
  inv: ShellInvocation,
  args: readonly string[],
): number {
  const t = bootNowNs(phone)
  const [verb, key, value] = args
  if (verb === undefined || verb === '-a') {
    out(inv, renderDumpsysBattery(phone, t))
    return 0
  }
  if (verb === 'unplug') {
    phone.battery.unplug(t)
    return 0
  }
  if (verb === 'reset') {
    phone.battery.reset(t)
    return 0
  }
  if (verb === 'set') {
    const n = intArg(value)
    if (key === undefined || n === undefined) {
      err(inv, 'Bad value: ' + String(value) + '\n')
      return 255
    }
    if (!phone.battery.set(key, n, t)) {
      out(inv, `Unknown set option: ${key}\n`)
      return 255
    }
    return 0
  }
  out(inv, `Unknown option: ${verb}\n`)
  return 255
}
