/**
 * Installs the simulated phone into a base device: its shell commands (one file each in this
 * folder) and its sysfs nodes (the fuel gauge under /sys/class/power_supply/battery, the CPU
 * topology under /sys/devices/system/cpu).
 */
import { HelperApps } from '../android/helper-apps.js'
import { OverlayManager, type FrameworkResourcesOptions } from '../android/overlays.js'
import { PackageRegistry } from '../android/packages.js'
import { formatPowerProfile } from '../../formats/power-profile/index.js'
import type { ShellCommand, VirtualDeviceHandle } from '../contract.js'
import { simCpus } from '../sim/cpu-schedule.js'
import { bootNowNs, type SimPhone } from '../sim/phone.js'
import { amCommand, stopApp } from './am.js'
import { appopsCommand } from './appops.js'
import { cmdCommand } from './cmd.js'
import { dumpsysCommand } from './dumpsys.js'
import { inputCommand } from './input.js'
import { perfettoCommand } from './perfetto.js'
import { pmCommand } from './pm.js'
import { settingsCommand } from './settings.js'
import { simpleperfCommand } from './simpleperf.js'
import { uiautomatorCommand } from './uiautomator.js'
import { procInterrupts, psCommand, topCommand } from './top.js'
import { vdevCommand } from './vdev.js'
import { imeCommand, wmCommand } from './wm.js'

export { renderDumpsysBattery } from './dumpsys-battery.js'
export {
  POWER_STATS_HAL_SERVICE,
  renderDumpsysPowerstats,
  renderPowerStatsHalDump,
} from './dumpsys-powerstats.js'
export {
  formatAndroidDuration,
  heldWakeLocks,
  renderDumpsysPower,
  type HeldWakeLock,
} from './dumpsys-power.js'
export { renderHierarchy } from './uiautomator.js'
export { appApkPath } from './pm.js'
export { launchApp, stopApp } from './am.js'

/** The simulated phone's commands by name. */
export function simCommands(
  phone: SimPhone,
  device: VirtualDeviceHandle,
  overlays?: OverlayManager,
): Map<string, ShellCommand> {
  const packages = new PackageRegistry(
    phone,
    () => Number(device.props.get('ro.build.version.sdk') ?? 33),
    overlays?.packages() ?? [],
  )
  const apps = new HelperApps(phone, device, packages)
  const commands = new Map<string, ShellCommand>([
    ['am', amCommand(phone, apps)],
    ['appops', appopsCommand()],
    ['dumpsys', dumpsysCommand(phone, apps, overlays)],
    ['input', inputCommand(phone)],
    ['perfetto', perfettoCommand(phone)],
    ['pm', pmCommand(packages, () => stopApp(phone))],
    ['settings', settingsCommand(phone)],
    ['simpleperf', simpleperfCommand(phone)],
    ['uiautomator', uiautomatorCommand(phone)],
    ['vdev', vdevCommand(phone)],
    ['wm', wmCommand(phone)],
    ['top', topCommand(phone)],
    ['ime', imeCommand()],
  ])
  commands.set('cmd', cmdCommand(phone, commands, overlays))
  return commands
}

/**
 * Registers the phone's commands, sysfs nodes and framework APKs on `device`: framework-res.apk
 * and the overlay holding `framework.profileXml` (by default the profile the phone runs on,
 * written out) where `framework.shipped` says (android/overlays.ts).
 */
export function installSimPhone(
  device: VirtualDeviceHandle,
  phone: SimPhone,
  framework: Partial<FrameworkResourcesOptions> = {},
): void {
  const overlays = new OverlayManager(device, {
    ...framework,
    profileXml: framework.profileXml ?? formatPowerProfile(phone.powerProfile),
    product: device.props.get('ro.product.name') ?? 'oriole',
  })
  for (const [name, command] of simCommands(phone, device, overlays)) {
    device.commands.set(name, command)
  }
  // `ps -T` lists the simulation's threads; plain `ps` stays the base device's.
  device.commands.set('ps', psCommand(phone, device.commands.get('ps')))
  const encoder = new TextEncoder()
  device.fs.mkdirp('/proc')
  device.fs.defineDynamic('/proc/interrupts', {
    mode: 0o444,
    read: () => encoder.encode(procInterrupts(phone, bootNowNs(phone))),
  })
  const dir = `/sys/class/power_supply/${phone.battery.node}`
  const node = (name: string, read: () => string | number): void => {
    device.fs.defineDynamic(`${dir}/${name}`, {
      mode: 0o444,
      read: () => encoder.encode(`${read()}\n`),
    })
  }
  device.fs.mkdirp(dir)
  const gauge = () => phone.battery.read(bootNowNs(phone))
  node('current_now', () => gauge().currentNow)
  // Gauges with an averaging register expose it (Maxim AvgCurrent, QG's S2 average, bq27xxx).
  if (phone.battery.gauge.currentAvg !== 'none') {
    node('current_avg', () => phone.battery.readCurrentAvg(bootNowNs(phone)) ?? 0)
  }
  node('voltage_now', () => gauge().voltageUv)
  node('charge_counter', () => gauge().chargeCounter)
  node('capacity', () => gauge().capacityPct)
  node('status', () => gauge().status)
  node('present', () => 1)
  node('technology', () => 'Li-ion')
  node('temp', () => phone.battery.temperatureDeciC)
  node('type', () => 'Battery')
  node('charge_full_design', () => phone.sim.power.batteryCapacityMah * 1000)
  // The chargers' own nodes: `usb` (a computer's port or a wall charger on the USB-C port) and
  // `wireless`, each online while it powers the phone.
  for (const [supply, on] of [
    ['usb', () => phone.battery.charger !== 'wireless'],
    ['wireless', () => phone.battery.charger === 'wireless'],
  ] as const) {
    device.fs.mkdirp(`/sys/class/power_supply/${supply}`)
    device.fs.defineDynamic(`/sys/class/power_supply/${supply}/online`, {
      mode: 0o444,
      read: () => encoder.encode(`${phone.battery.charging && on() ? 1 : 0}\n`),
    })
  }
  installCpuTopology(device, phone)
  // CPU-bound shell processes (`yes`) run on the simulation's cores, as its other processes do.
  const cpus = simCpus(phone.sim.power)
  device.cpu = {
    cpus,
    spin: ({ pid, name, comm }, allowed) =>
      phone.sim.spin({ process: name, pid, tid: pid, comm, cpus: 'all' }, allowed),
  }
}

/** `0-3,6`: the kernel's cpulist format (`%*pbl`) of sorted CPU ids. */
function formatCpuList(cpus: readonly number[]): string {
  const ranges: string[] = []
  for (let i = 0; i < cpus.length;) {
    const first = cpus[i] ?? 0
    let last = first
    while (cpus[i + 1] === last + 1) last = cpus[++i] ?? last
    ranges.push(first === last ? `${first}` : `${first}-${last}`)
    i++
  }
  return ranges.join(',')
}

/**
 * The CPUs of the power profile's clusters, where tools look for them: `possible`/`present`/
 * `online` (all cores stay online here) and one cpufreq policy per cluster, named after its first
 * CPU, whose `related_cpus` lists the cluster's CPUs space-separated (cpufreq's show_cpus).
 */
function installCpuTopology(device: VirtualDeviceHandle, phone: SimPhone): void {
  const encoder = new TextEncoder()
  const dir = '/sys/devices/system/cpu'
  const text = (path: string, value: () => string): void => {
    device.fs.defineDynamic(path, { mode: 0o444, read: () => encoder.encode(`${value()}\n`) })
  }
  const all = formatCpuList(simCpus(phone.sim.power))
  for (const name of ['possible', 'present', 'online']) text(`${dir}/${name}`, () => all)
  for (const cluster of phone.sim.power.clusters) {
    const cpus = Array.from({ length: cluster.cores }, (_, i) => cluster.firstCore + i)
    const policy = `${dir}/cpufreq/policy${cluster.firstCore}`
    text(`${policy}/related_cpus`, () => cpus.join(' '))
    // cpufreq's show_available_freqs: each frequency followed by a space.
    text(`${policy}/scaling_available_frequencies`, () =>
      cluster.speedsKhz.map((f) => `${f} `).join(''),
    )
    text(`${policy}/cpuinfo_min_freq`, () => String(Math.min(...cluster.speedsKhz)))
    text(`${policy}/cpuinfo_max_freq`, () => String(Math.max(...cluster.speedsKhz)))
    // The governor's current decision (decisions are placed up to now first).
    text(`${policy}/scaling_cur_freq`, () => {
      const now = bootNowNs(phone)
      phone.sim.materialize(now)
      return String(phone.sim.governors[cluster.index]?.freqAt(now) ?? cluster.busyFreqKhz)
    })
  }
}
