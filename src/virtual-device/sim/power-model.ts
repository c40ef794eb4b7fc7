/**
 * The simulated phone's power model, built from a real `power_profile.xml`. Everything is a
 * current in mA taken from the profile (with the fallbacks listed in `POWER_KEYS`), turned into
 * watts at a fixed nominal battery voltage. The structure is the framework's own (PowerProfile /
 * BatteryStats power calculators): suspend floor, awake-idle, per-core speed current + per-cluster
 * cost + "any core active" cost, screen on + brightness × full, radios with active and tail states,
 * GPS, Bluetooth.
 */
import { readFileSync } from 'node:fs'
import { parsePowerProfile, type PowerProfile } from '../../formats/power-profile/index.js'
import { EnergyError } from '../../model/index.js'
import { SimErrors } from './errors.js'

/** One CPU cluster as the scheduler uses it. */
export interface SimCluster {
  readonly index: number
  readonly cores: number
  /** First global core number of the cluster (cpu0, cpu4, ...). */
  readonly firstCore: number
  readonly speedsKhz: readonly number[]
  readonly corePowerMa: readonly number[]
  readonly clusterPowerMa: number
  /** Frequency the governor runs this cluster at while a thread is on it, kHz. */
  readonly busyFreqKhz: number
  /** Per-core current at `busyFreqKhz`, mA. */
  readonly busyCoreMa: number
  /** ODPM rail that carries this cluster. */
  readonly rail: string
}

/** Currents (mA) and constants the physics uses; see docs/virtual-device.md "Physics". */
export interface PowerModel {
  /** Nominal battery voltage used to turn mA into W. @default 3.85 V */
  readonly voltageV: number
  readonly clusters: readonly SimCluster[]
  /** Cluster that runs the UI threads (`main`, `RenderThread`). */
  readonly uiCluster: number
  /** CPU reference frequency for `selfCpuMs` in the app model, kHz (the UI cluster's busy freq). */
  readonly referenceFreqKhz: number
  readonly suspendMa: number
  /** Extra current while awake (screen on, wakelock held or a thread running). */
  readonly awakeMa: number
  /** Extra current while at least one core runs. */
  readonly cpuActiveMa: number
  readonly screenOnMa: number
  readonly screenFullMa: number
  readonly wifiActiveMa: number
  readonly wifiTailMa: number
  readonly cellularActiveMa: number
  readonly cellularTailMa: number
  readonly gpsMa: number
  readonly bluetoothMa: number
  /** Sensor hub current while an app sensor listener is registered (no profile key exists). */
  readonly sensorMa: number
  readonly batteryCapacityMah: number
  /**
   * The GPU and memory model of the phone physics (no power_profile.xml key exists for either):
   * GPU current while it renders a frame, and how long a frame keeps it busy.
   */
  readonly gpu: { readonly activeMa: number; readonly frameMs: number }
  /**
   * Memory/interconnect (`S1M_VDD_MIF`): current while the phone is awake, per running core as a
   * fraction of that core's current (memory traffic follows CPU throughput), and while the GPU
   * renders.
   */
  readonly memory: {
    readonly awakeMa: number
    readonly perCoreFraction: number
    readonly gpuMa: number
  }
}

/** GPU and memory currents of the phone physics: model assumptions for a Pixel 6 (Mali-G78, LPDDR5). */
export const GPU_MEMORY_MODEL = {
  gpu: { activeMa: 120, frameMs: 2 },
  memory: { awakeMa: 12, perCoreFraction: 0.08, gpuMa: 25 },
} as const

/** ODPM rail names (Pixel 6 naming) the simulation drives. */
export const RAILS = {
  cpu: ['S4M_VDD_CPUCL0', 'S3M_VDD_CPUCL1', 'S2M_VDD_CPUCL2'],
  system: 'S5M_VDD_INT',
  display: 'VSYS_PWR_DISPLAY',
  modem: 'VSYS_PWR_MODEM',
  wlanBt: 'VSYS_PWR_WLAN_BT',
  gnss: 'L9S_GNSS_CORE',
  sensors: 'L2S_VDD_AOC_RET',
  /** Phone physics only. */
  gpu: 'S2S_VDD_G3D',
  memory: 'S1M_VDD_MIF',
} as const

/** Subsystem name per rail, as `dumpsys powerstats` prints it. */
export const RAIL_SUBSYSTEMS: Readonly<Record<string, string>> = {
  S4M_VDD_CPUCL0: 'CPU(LITTLE)',
  S3M_VDD_CPUCL1: 'CPU(MID)',
  S2M_VDD_CPUCL2: 'CPU(BIG)',
  S5M_VDD_INT: 'System',
  VSYS_PWR_DISPLAY: 'Display',
  VSYS_PWR_MODEM: 'Modem',
  VSYS_PWR_WLAN_BT: 'WLAN-BT',
  L9S_GNSS_CORE: 'GPS',
  L2S_VDD_AOC_RET: 'AOC',
  S2S_VDD_G3D: 'GPU',
  S1M_VDD_MIF: 'Memory',
}

/** Default tails, ms: Wi-Fi PSM timeout and LTE RRC inactivity timer as commonly measured. */
export const DEFAULT_TAIL_MS = { wifi: 200, cellular: 10_000 } as const

/** Which profile keys feed each current, first found wins. */
export const POWER_KEYS = {
  wifiActive: ['wifi.active', 'wifi.controller.tx'],
  wifiTail: ['wifi.controller.rx', 'wifi.on'],
  cellularActive: ['modem.controller.tx[2]', 'radio.active'],
  cellularTail: ['modem.controller.rx', 'radio.scanning'],
  gps: ['gps.on', 'gps.signalqualitybased[0]'],
  bluetooth: ['bluetooth.active', 'bluetooth.controller.rx'],
} as const

const SENSOR_MA = 0.8
const DEFAULT_VOLTAGE_V = 3.85
const DEFAULT_CAPACITY_MAH = 4000

function lookup(profile: PowerProfile, keys: readonly string[]): number {
  for (const key of keys) {
    const m = /^(.*)\[(\d+)\]$/.exec(key)
    if (m !== null) {
      const arr = profile.arrays[m[1] ?? '']
      const v = arr?.[Number(m[2])] ?? arr?.at(-1)
      if (v !== undefined) return v
    } else {
      const v = profile.items[key] ?? profile.arrays[key]?.[0]
      if (v !== undefined) return v
    }
  }
  return 0
}

/** Builds the physics' model from a parsed profile. */
export function buildPowerModel(profile: PowerProfile, voltageV = DEFAULT_VOLTAGE_V): PowerModel {
  const raw = profile.cpu.clusters
  if (raw.length === 0 || raw.some((c) => c.speedsKhz.length === 0 || c.corePowerMa.length === 0)) {
    throw new EnergyError({
      code: SimErrors.POWER_PROFILE_UNUSABLE,
      message: 'power profile has no CPU cluster with speeds and per-speed current',
      hint: 'Use a profile with cpu.core_speeds.clusterN and cpu.core_power.clusterN (or cpu.speeds/cpu.active), e.g. the shipped Pixel 6 profile.',
      details: { format: 'power_profile.xml', clusters: raw.length },
    })
  }
  const uiCluster = raw.length >= 3 ? raw.length - 2 : raw.length - 1
  let firstCore = 0
  const clusters = raw.map((c, index): SimCluster => {
    // Governor: a fixed busy step per cluster — 70 % up the table for the UI cluster, 50 % elsewhere.
    const frac = index === uiCluster ? 0.7 : 0.5
    const step = Math.min(Math.ceil(frac * (c.speedsKhz.length - 1)), c.corePowerMa.length - 1)
    const cluster: SimCluster = {
      index,
      cores: Math.max(1, c.cores),
      firstCore,
      speedsKhz: c.speedsKhz,
      corePowerMa: c.corePowerMa,
      clusterPowerMa: c.clusterPowerMa,
      busyFreqKhz: c.speedsKhz[step] ?? c.speedsKhz[0] ?? 1,
      busyCoreMa: c.corePowerMa[step] ?? 0,
      rail: RAILS.cpu[index] ?? `VDD_CPUCL${index}`,
    }
    firstCore += cluster.cores
    return cluster
  })
  const ui = clusters[uiCluster]
  return {
    voltageV,
    clusters,
    uiCluster,
    referenceFreqKhz: ui?.busyFreqKhz ?? 1,
    suspendMa: profile.cpu.suspendMa,
    awakeMa: profile.cpu.idleMa,
    cpuActiveMa: profile.cpu.activeMa,
    // The built-in display: `screen.on` or, on newer profiles, `screen.on.display0`.
    screenOnMa: profile.displays[0]?.screenOnMa ?? 0,
    screenFullMa: profile.displays[0]?.screenFullMa ?? 0,
    wifiActiveMa: lookup(profile, POWER_KEYS.wifiActive),
    wifiTailMa: lookup(profile, POWER_KEYS.wifiTail),
    cellularActiveMa: lookup(profile, POWER_KEYS.cellularActive),
    cellularTailMa: lookup(profile, POWER_KEYS.cellularTail),
    gpsMa: lookup(profile, POWER_KEYS.gps),
    bluetoothMa: lookup(profile, POWER_KEYS.bluetooth),
    sensorMa: SENSOR_MA,
    batteryCapacityMah: profile.batteryCapacityMah ?? DEFAULT_CAPACITY_MAH,
    ...GPU_MEMORY_MODEL,
  }
}

/** mA at the model's voltage → W. */
export function maToW(model: PowerModel, ma: number): number {
  return (ma / 1000) * model.voltageV
}

/** The shipped Pixel 6 profile's text. */
export function defaultPowerProfileXml(): string {
  return readFileSync(
    new URL('../profiles/pixel6_oriole_power_profile.xml', import.meta.url),
    'utf8',
  )
}

/** Parses the shipped Pixel 6 profile. */
export function defaultPowerProfile(): PowerProfile {
  return parsePowerProfile(defaultPowerProfileXml())
}
