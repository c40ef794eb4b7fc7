/**
 * The virtual device, public entry: `startVirtualDevice(options)` starts an ADB server on loopback
 * with N simulated phones running the app model. Tests, benchmarks and the demo reach the phones
 * only over ADB (adbkit or `adb -P <port>`), like a real phone; `devices[i].phone` is for tests
 * that need the simulator's own view (product code never touches it).
 */
import { readFileSync } from 'node:fs'
import {
  formatPowerProfile,
  parsePowerProfile,
  type PowerProfile,
} from '../formats/power-profile/index.js'
import { EnergyError } from '../model/index.js'
import { startAdbServer } from './adb/index.js'
import {
  ANDROID_API_LEVELS,
  androidVersionProps,
  isAndroidApiLevel,
  type AndroidApiLevel,
} from './android-versions.js'
import { SHIPPED_PROFILES, type ShippedProfile } from './android/overlays.js'
import { fastClock, realTimeClock, type FastClock } from './clock.js'
import { installSimPhone } from './commands/index.js'
import type { DeviceClock, VirtualDeviceHandle } from './contract.js'
import { createDevice } from './device.js'
import { loadAppModel, validateAppModel, type AppModel } from './sim/app-model.js'
import { DEMO_APP_MODEL } from './sim/demo-app.js'
import { SimErrors } from './sim/errors.js'
import { PHYSICS, type Physics } from './sim/other-processes.js'
import { createSimPhone, type SimPhone } from './sim/phone.js'
import { defaultPowerProfileXml } from './sim/power-model.js'
import { CHARGERS, resolveGauge, type Charger, type FuelGaugeOptions } from './sim/sensors.js'
import { SILICON, type Silicon } from './sim/silicon.js'
import type { TracingOverhead } from './sim/simulation.js'

export type { AppModel, HardwareUse, MethodCall, Screen, Widget, Work } from './sim/app-model.js'
export { APP_MODEL_SCHEMA, loadAppModel, parseAppModel, validateAppModel } from './sim/app-model.js'
export { DEMO_APP_MODEL } from './sim/demo-app.js'
export type {
  GroundTruth,
  MethodTruth,
  ProcessTruth,
  SimComponent,
  TracingOverhead,
} from './sim/simulation.js'
export type { Physics } from './sim/other-processes.js'
export { PHYSICS } from './sim/other-processes.js'
export type { ClusterSilicon, Silicon, SiliconReport } from './sim/silicon.js'
export { SILICON } from './sim/silicon.js'

/** The physics a phone runs when `physics` is not given (docs/virtual-device.md, "Physics"). */
export const DEFAULT_PHYSICS: Physics = 'phone'
export type {
  ChargeCounterOptions,
  Charger,
  FuelGaugeOptions,
  GaugeAveraging,
  GaugeCache,
  GaugeModel,
  GaugeProfile,
} from './sim/sensors.js'
export {
  CHARGERS,
  DEFAULT_GAUGE_PROFILE,
  GAUGE_PROFILES,
  GAUGE_PROFILE_MODELS,
  parseGaugeAveraging,
} from './sim/sensors.js'
export type { AndroidApiLevel } from './android-versions.js'
export type { ShippedProfile } from './android/overlays.js'
export { SHIPPED_PROFILES } from './android/overlays.js'
export { ANDROID_API_LEVELS } from './android-versions.js'
export type { SimPhone } from './sim/phone.js'
export { SimErrors } from './sim/errors.js'
export { isLoopback } from './adb/index.js'

export interface StartVirtualDeviceOptions {
  /** App model object, or a path to its JSON file. @default the demo app (`com.example.trails`) */
  readonly app?: AppModel | string
  /** Number of simulated phones on the server. @default 1 */
  readonly devices?: number
  /** TCP port on 127.0.0.1; 0 picks a free one. @default 0 */
  readonly port?: number
  /** Seed for everything random (CPU cost jitter, sensor noise); device i uses `seed + i`. @default 1 */
  readonly seed?: number
  /**
   * `real`: device clocks follow the host (Appium, the demo). `fast`: clocks move only when
   * something sleeps, so simulated work completes at once (benchmarks). @default 'real'
   */
  readonly time?: 'real' | 'fast'
  /** power_profile.xml: parsed profile, XML text, or a file path. @default the shipped Pixel 6 profile */
  readonly powerProfile?: PowerProfile | string
  /**
   * Where the phone keeps that profile: `overlay` — compiled into a runtime resource overlay in
   * /product/overlay that adb can read, over AOSP's placeholder in framework-res.apk;
   * `vendor-overlay` — the overlay in /vendor/overlay, which adb cannot read (SELinux, as on a
   * user build); `placeholder` — no overlay, only the placeholder; `none` — no power_profile.xml
   * at all (docs/virtual-device.md, "The power profile on the phone"). @default 'overlay'
   */
  readonly shippedProfile?: ShippedProfile
  /**
   * The fuel gauge: a profile (`typical`, `pixel`, `samsung`, `oplus`, `ti-bq27xxx`,
   * `mediatek-legacy`) and any of its parameters overridden (update period, averaging, quantum,
   * noise, unit and sign quirks, vendor cache, `current_avg`, charge counter steps), plus the
   * battery's charging current, initial charge and sysfs node (docs/virtual-device.md, "Fuel
   * gauge"). @default `{ profile: 'typical' }`
   */
  readonly sensors?: FuelGaugeOptions
  /**
   * What powers the phones when they start: `usb` (a computer's port: `USB powered: true`, sysfs
   * `status` Charging), `ac` (a wall charger), `wireless`, or `none` (on battery and discharging,
   * as with wireless adb). @default 'usb'
   */
  readonly charger?: Charger
  /**
   * Whether the phones have ODPM power rails. `false` is a phone without a power monitor:
   * `dumpsys powerstats` prints nothing, the PowerStats HAL service is missing, perfetto's
   * `android.power` records no rails (battery counters still work). @default true
   */
  readonly odpm?: boolean
  /**
   * The Android release the phones run, as an API level (29–35): `ro.build.version.sdk`, `release`,
   * build id and fingerprint, and the release-dependent outputs (docs/virtual-device.md, "Android
   * versions"). The hardware stays a Pixel 6. @default 33 (Android 13)
   */
  readonly androidVersion?: AndroidApiLevel
  /**
   * Address the ADB server binds: any 127.0.0.0/8 address (several "lab hosts" side by side in
   * tests), or, with `allowNetwork`, a network address. @default '127.0.0.1'
   */
  readonly host?: string
  /** Allow a host that is not loopback: a trusted lab network only. @default false */
  readonly allowNetwork?: boolean
  /** Serial prefix; device i is `<prefix>-<i+1, 4 digits>`. @default 'vdev' */
  readonly serialPrefix?: string
  /** Relative std dev of each call's CPU cost. @default 0.03 */
  readonly cpuJitter?: number
  /**
   * `phone`: other processes (system_server, surfaceflinger, kernel threads, a background
   * service) share the CPUs with the app, frames cost GPU and memory power; `simple`: only the
   * app runs, for tests that need exact arithmetic (docs/virtual-device.md, "Physics").
   * @default DEFAULT_PHYSICS
   */
  readonly physics?: Physics
  /**
   * `deviated`: each phone's CPUs draw their own currents, seeded departures from the profile it
   * ships (±10–30% per cluster and for `cpu.active`, ±2% per frequency step), as real silicon
   * does; `nominal`: exactly the profile's. `vdev silicon` prints them (docs/virtual-device.md,
   * "Silicon"). @default 'deviated' with the phone physics, 'nominal' with the simple one
   */
  readonly silicon?: Silicon
  /**
   * How much a core's power depends on the code it runs at one frequency (σ of a seeded log-normal
   * factor per method and per other process's thread): 0.1 makes compute-bound and memory-bound
   * code differ by ≈ 10–20% as on real cores, which no CPU model or rail split can see. Benchmarks
   * use it to show the figures' sensitivity (docs/virtual-device.md, "Silicon"). @default 0
   */
  readonly codePowerSpread?: number
  /** ART trace buffer, bytes (non-streaming traces beyond it overflow). @default 8 MiB */
  readonly traceBufferBytes?: number
  /** How much full method tracing slows the app. @default { factor: 1.5, perCallNs: 1500 } */
  readonly tracingOverhead?: TracingOverhead
}

/** One simulated phone on the server. */
export interface VirtualPhone {
  readonly serial: string
  readonly device: VirtualDeviceHandle
  readonly phone: SimPhone
  readonly clock: DeviceClock
}

export interface VirtualDeviceServer {
  readonly host: string
  readonly port: number
  readonly serials: readonly string[]
  readonly devices: readonly VirtualPhone[]
  /** Stops the server and every phone's app. */
  close(): Promise<void>
}

function resolveApp(app: AppModel | string | undefined): AppModel {
  if (app === undefined) return DEMO_APP_MODEL
  if (typeof app === 'string') return loadAppModel(app)
  return validateAppModel(app)
}

/** The profile and its text (what the phone's overlay is compiled from: the file as given). */
function resolveProfile(profile: PowerProfile | string | undefined): {
  profile: PowerProfile
  xml: string
} {
  if (profile === undefined) {
    const xml = defaultPowerProfileXml()
    return { profile: parsePowerProfile(xml), xml }
  }
  if (typeof profile !== 'string') return { profile, xml: formatPowerProfile(profile) }
  if (profile.trimStart().startsWith('<'))
    return { profile: parsePowerProfile(profile), xml: profile }
  let text: string
  try {
    text = readFileSync(profile, 'utf8')
  } catch (cause) {
    throw new EnergyError({
      code: SimErrors.BAD_OPTION,
      message: `cannot read power profile '${profile}': ${(cause as Error).message}`,
      hint: 'Pass a power_profile.xml path, its XML text, or omit it for the shipped Pixel 6 profile.',
      details: { path: profile },
      cause,
    })
  }
  return { profile: parsePowerProfile(text), xml: text }
}

function checkOptions(options: StartVirtualDeviceOptions): void {
  const bad = (name: string, why: string): never => {
    throw new EnergyError({
      code: SimErrors.BAD_OPTION,
      message: `startVirtualDevice: option '${name}' ${why}`,
      hint: 'See docs/virtual-device.md for the options and their ranges.',
      details: { option: name },
    })
  }
  const { devices, port, seed, time } = options
  if (devices !== undefined && (!Number.isInteger(devices) || devices < 1 || devices > 64)) {
    bad('devices', `must be an integer from 1 to 64, got ${devices}`)
  }
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    bad('port', `must be an integer from 0 to 65535, got ${port}`)
  }
  if (seed !== undefined && !Number.isInteger(seed)) bad('seed', `must be an integer, got ${seed}`)
  if (time !== undefined && time !== 'real' && time !== 'fast') {
    bad('time', `must be 'real' or 'fast', got ${String(time)}`)
  }
  const { charger, odpm, androidVersion } = options
  if (charger !== undefined && !CHARGERS.includes(charger)) {
    bad('charger', `must be one of ${CHARGERS.join(', ')}, got ${String(charger)}`)
  }
  if (odpm !== undefined && typeof odpm !== 'boolean') {
    bad('odpm', `must be true or false, got ${String(odpm)}`)
  }
  if (options.physics !== undefined && !PHYSICS.includes(options.physics)) {
    bad('physics', `must be one of ${PHYSICS.join(', ')}, got ${String(options.physics)}`)
  }
  if (options.shippedProfile !== undefined && !SHIPPED_PROFILES.includes(options.shippedProfile)) {
    bad(
      'shippedProfile',
      `must be one of ${SHIPPED_PROFILES.join(', ')}, got ${String(options.shippedProfile)}`,
    )
  }
  if (
    options.codePowerSpread !== undefined &&
    !(
      Number.isFinite(options.codePowerSpread) &&
      options.codePowerSpread >= 0 &&
      options.codePowerSpread <= 1
    )
  ) {
    bad('codePowerSpread', `must be a number from 0 to 1, got ${String(options.codePowerSpread)}`)
  }
  if (options.silicon !== undefined && !SILICON.includes(options.silicon)) {
    bad('silicon', `must be one of ${SILICON.join(', ')}, got ${String(options.silicon)}`)
  }
  // Throws E_VDEV_BAD_OPTION naming `sensors.<option>`, before any phone or server exists.
  resolveGauge(options.sensors)
  if (androidVersion !== undefined && !isAndroidApiLevel(androidVersion)) {
    bad(
      'androidVersion',
      `must be an API level from ${ANDROID_API_LEVELS.join(', ')}, got ${String(androidVersion)}`,
    )
  }
}

/** Starts the ADB server with `devices` simulated phones. */
export async function startVirtualDevice(
  options: StartVirtualDeviceOptions = {},
): Promise<VirtualDeviceServer> {
  checkOptions(options)
  const app = resolveApp(options.app)
  const { profile, xml: profileXml } = resolveProfile(options.powerProfile)
  const count = options.devices ?? 1
  const seed = options.seed ?? 1
  const prefix = options.serialPrefix ?? 'vdev'
  const phones: VirtualPhone[] = []
  for (let i = 0; i < count; i++) {
    const clock: DeviceClock | FastClock = options.time === 'fast' ? fastClock() : realTimeClock()
    const serial = `${prefix}-${String(i + 1).padStart(4, '0')}`
    const device = createDevice({
      serial,
      clock,
      ...(options.androidVersion === undefined
        ? {}
        : { props: androidVersionProps(options.androidVersion) }),
    })
    const phone = createSimPhone({
      app,
      powerProfile: profile,
      seed: seed + i,
      clock,
      ...(options.sensors === undefined ? {} : { sensors: options.sensors }),
      ...(options.charger === undefined ? {} : { charger: options.charger }),
      ...(options.odpm === undefined ? {} : { odpm: options.odpm }),
      ...(options.cpuJitter === undefined ? {} : { cpuJitter: options.cpuJitter }),
      physics: options.physics ?? DEFAULT_PHYSICS,
      ...(options.silicon === undefined ? {} : { silicon: options.silicon }),
      ...(options.codePowerSpread === undefined
        ? {}
        : { codePowerSpread: options.codePowerSpread }),
      ...(options.traceBufferBytes === undefined
        ? {}
        : { traceBufferBytes: options.traceBufferBytes }),
      ...(options.tracingOverhead === undefined
        ? {}
        : { tracingOverhead: options.tracingOverhead }),
    })
    installSimPhone(device, phone, {
      profileXml,
      ...(options.shippedProfile === undefined ? {} : { shipped: options.shippedProfile }),
    })
    phones.push({ serial, device, phone, clock })
  }
  const server = await startAdbServer({
    host: options.host ?? '127.0.0.1',
    ...(options.allowNetwork === true ? { allowNetwork: true } : {}),
    port: options.port ?? 0,
    devices: phones.map((p) => p.device),
  })
  const timers = new Set<NodeJS.Timeout>()
  const later = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t)
      fn()
    }, ms)
    timers.add(t)
  }
  for (const p of phones) {
    p.phone.unplug = (afterMs, forMs) => {
      later(afterMs, () => {
        server.removeDevice(p.serial)
        if (forMs !== undefined) later(forMs, () => server.addDevice(p.device))
      })
    }
  }
  return {
    host: server.host,
    port: server.port,
    serials: phones.map((p) => p.serial),
    devices: phones,
    async close() {
      for (const t of timers) clearTimeout(t)
      for (const p of phones) p.phone.appProcess?.kill('KILL')
      await server.close()
    },
  }
}
