/**
 * What the phone's sensors report about the simulated power: a fuel gauge (sysfs
 * `/sys/class/power_supply/battery/*`) that updates at a fixed rate, holds its value between
 * updates, quantizes, adds seeded noise and can carry vendor quirks; and ODPM rails as cumulative
 * µWs counters. The battery framework state (`dumpsys battery`) lives here too.
 */
import { gaussian, prng, type Simulation } from './simulation.js'

/** Fuel gauge options. */
export interface FuelGaugeOptions {
  /** Register update rate, Hz; the value is held between updates. @default 5 */
  readonly updateHz?: number
  /** Current quantum, µA (MAX1720x with a 10 mΩ sense resistor: 156.25 µA). @default 156.25 */
  readonly currentStepUa?: number
  /** Standard deviation of the seeded current noise, µA. @default 2000 */
  readonly noiseUa?: number
  /** `kernel`: positive = charging (the ABI); `flipped`: positive = discharging. @default 'kernel' */
  readonly currentSign?: 'kernel' | 'flipped'
  /** `uA` (the ABI) or `mA` (a vendor quirk: current_now in mA). @default 'uA' */
  readonly currentUnit?: 'uA' | 'mA'
  /** Charge current while powered, µA. @default 450000 */
  readonly chargeCurrentUa?: number
  /** State of charge at start, 0–1. @default 0.87 */
  readonly initialSoc?: number
  /**
   * A real phone keeps charging in hardware after `dumpsys battery unplug` (only the framework's
   * view changes). Set true to reproduce that; by default unplug stops the simulated charging.
   * @default false
   */
  readonly chargesWhenUnplugged?: boolean
  /** Directory name under /sys/class/power_supply (vendors differ: `max170xx_battery`, …). @default 'battery' */
  readonly node?: string
  /**
   * With `physics: 'phone'`: how far the gauge's own timebase runs off the phone's clock, relative
   * (its update period is `1/updateHz × (1 + drift)`, the first update at a seeded phase), so its
   * updates drift against any poll on the phone's clock. Assumption. @default seeded, within ±0.5%
   */
  readonly clockDrift?: number
}

/**
 * What powers the phone: a USB port (a computer: `USB powered`), a wall charger (`AC powered`),
 * a wireless pad, or nothing (on battery, as with wireless adb or a hub that cuts VBUS).
 */
export type Charger = 'usb' | 'ac' | 'wireless' | 'none'

export const CHARGERS: readonly Charger[] = ['usb', 'ac', 'wireless', 'none']

/** The framework's view of the battery, as `dumpsys battery` prints and `set`/`unplug` change. */
export interface BatteryFrameworkState {
  acPowered: boolean
  usbPowered: boolean
  wirelessPowered: boolean
  /** `set level N` override, undefined = follow the gauge. */
  levelOverride: number | undefined
  /** True after unplug/set until reset: "(UPDATES STOPPED -- use 'reset' to restart)". */
  updatesStopped: boolean
}

/** One fuel gauge register update. */
export interface GaugeReading {
  /** Boottime of the update, ns. */
  readonly tNs: number
  /** Current as the node reports it (sign/unit quirks applied). */
  readonly currentNow: number
  /** True battery current, µA, kernel sign (positive = charging), before quirks. */
  readonly currentUa: number
  readonly voltageUv: number
  readonly chargeCounterUah: number
  readonly capacityPct: number
  readonly status: 'Charging' | 'Discharging' | 'Full' | 'Not charging'
}

const TEMPERATURE_DECI_C = 290

/** Open-circuit voltage model: 3.4 V empty → 4.2 V full, linear; µV. */
function ocvUv(soc: number): number {
  return Math.round((3.4 + 0.8 * Math.max(0, Math.min(1, soc))) * 1000) * 1000
}

/** `dumpsys battery`'s power flags for a charger. */
function poweredBy(
  charger: Charger,
): Pick<BatteryFrameworkState, 'acPowered' | 'usbPowered' | 'wirelessPowered'> {
  return {
    acPowered: charger === 'ac',
    usbPowered: charger === 'usb',
    wirelessPowered: charger === 'wireless',
  }
}

export class Battery {
  readonly framework: BatteryFrameworkState
  /** What powers the phone in hardware (until `dumpsys battery` changes the framework's view). */
  readonly charger: Charger
  private readonly sim: Simulation
  private readonly seed: number
  private readonly hz: number
  private readonly stepUa: number
  private readonly noiseUa: number
  private readonly sign: 1 | -1
  private readonly unitDiv: number
  private readonly chargeUa: number
  private readonly initialSoc: number
  private readonly chargesWhenUnplugged: boolean
  private readonly capacityUah: number
  /** sysfs directory name of the gauge. */
  readonly node: string
  /** Times at which hardware charging switched, with the new state. */
  private readonly chargeChanges: { tNs: number; charging: boolean }[] = []
  /** When the battery (and its initial state of charge) was set up, boottime ns. */
  private readonly t0Ns: number
  private readonly e0J: number
  private lastReading: GaugeReading | undefined
  private lastIndex = Number.NaN
  /** Update period on the phone's clock, ns; the first update at `phaseNs` (0 and exact: simple physics). */
  private readonly periodNs: number
  private readonly phaseNs: number

  constructor(
    sim: Simulation,
    seed: number,
    options: FuelGaugeOptions = {},
    charger: Charger = 'usb',
  ) {
    this.charger = charger
    this.framework = { ...poweredBy(charger), levelOverride: undefined, updatesStopped: false }
    this.sim = sim
    this.seed = seed
    this.hz = options.updateHz ?? 5
    this.stepUa = options.currentStepUa ?? 156.25
    this.noiseUa = options.noiseUa ?? 2000
    this.sign = options.currentSign === 'flipped' ? -1 : 1
    this.unitDiv = options.currentUnit === 'mA' ? 1000 : 1
    this.chargeUa = options.chargeCurrentUa ?? 450_000
    this.initialSoc = options.initialSoc ?? 0.87
    this.chargesWhenUnplugged = options.chargesWhenUnplugged ?? false
    this.capacityUah = sim.power.batteryCapacityMah * 1000
    this.node = options.node ?? 'battery'
    // The gauge converts on its own oscillator (Maxim parts store Current every 175.8 ms of their
    // timebase), not on the SoC's clock: with phone physics its updates drift against the poll.
    const random = prng((seed * 2654435761) ^ 0x27d4eb2f)
    const drift = sim.physics === 'phone' ? (options.clockDrift ?? (random() - 0.5) * 0.01) : 0
    this.periodNs = (1e9 / this.hz) * (1 + drift)
    this.phaseNs = sim.physics === 'phone' ? random() * this.periodNs : 0
    this.t0Ns = sim.now()
    this.e0J = sim.energySinceBoot(this.t0Ns).totalJ
    this.chargeChanges.push({ tNs: this.t0Ns, charging: charger !== 'none' })
  }

  /** Whether the hardware is charging now. */
  get charging(): boolean {
    return this.chargeChanges[this.chargeChanges.length - 1]?.charging ?? false
  }

  /** Re-evaluates hardware charging after a framework change (unplug, set usb 0, reset). */
  private sync(tNs: number): void {
    const fw = this.framework
    const powered = fw.acPowered || fw.usbPowered || fw.wirelessPowered
    // A phone on battery has no charger to keep charging after `unplug`.
    const charging = powered || (this.chargesWhenUnplugged && this.charger !== 'none')
    if (charging !== this.charging) this.chargeChanges.push({ tNs, charging })
  }

  /** `dumpsys battery unplug`. */
  unplug(tNs: number): void {
    this.framework.acPowered = false
    this.framework.usbPowered = false
    this.framework.wirelessPowered = false
    this.framework.updatesStopped = true
    this.sync(tNs)
  }

  /** `dumpsys battery set ac|usb|wireless|level N`. Returns false for an unknown key. */
  set(key: string, value: number, tNs: number): boolean {
    const fw = this.framework
    if (key === 'ac') fw.acPowered = value !== 0
    else if (key === 'usb') fw.usbPowered = value !== 0
    else if (key === 'wireless') fw.wirelessPowered = value !== 0
    else if (key === 'level') fw.levelOverride = value
    else return false
    fw.updatesStopped = true
    this.sync(tNs)
    return true
  }

  /** `dumpsys battery reset`: back to what the hardware says (the charger the phone started on). */
  reset(tNs: number): void {
    Object.assign(this.framework, {
      ...poweredBy(this.charger),
      levelOverride: undefined,
      updatesStopped: false,
    })
    this.sync(tNs)
  }

  /** Charge put in by the charger over [0, tNs], µAh. */
  private chargedUah(tNs: number): number {
    let total = 0
    for (let i = 0; i < this.chargeChanges.length; i++) {
      const c = this.chargeChanges[i]
      if (c === undefined || c.tNs >= tNs) break
      const end = Math.min(tNs, this.chargeChanges[i + 1]?.tNs ?? tNs)
      if (c.charging) total += (this.chargeUa * (end - c.tNs)) / 3.6e12
    }
    return total
  }

  private chargingAt(tNs: number): boolean {
    let charging = this.chargeChanges[0]?.charging ?? false
    for (const c of this.chargeChanges) if (c.tNs <= tNs) charging = c.charging
    return charging
  }

  /** State of charge (0–1) at `tNs`, from the energy drawn and the charge put in. */
  soc(tNs: number): number {
    const drawnJ = this.sim.energySinceBoot(Math.max(tNs, this.t0Ns)).totalJ - this.e0J
    const drawnUah = (drawnJ / 3.6 / this.sim.power.voltageV) * 1000
    const soc = this.initialSoc + (this.chargedUah(tNs) - drawnUah) / this.capacityUah
    return Math.max(0, Math.min(1, soc))
  }

  /** The register contents at `tNs` (the last update at or before it). */
  read(tNs: number): GaugeReading {
    const periodNs = this.periodNs
    const index = Math.floor((tNs - this.phaseNs) / periodNs)
    if (index === this.lastIndex && this.lastReading !== undefined) return this.lastReading
    const tk = Math.round(this.phaseNs + index * periodNs)
    // The gauge reports the average over its last period (its averaging register).
    const powerW = this.sim.averagePowerW(tk - periodNs, tk)
    const soc = this.soc(tk)
    const voltageUv = ocvUv(soc)
    const chargeUa = this.chargingAt(tk) ? this.chargeUa : 0
    const trueUa = chargeUa - (powerW / (voltageUv / 1e6)) * 1e6
    const noise = gaussian(prng((this.seed * 2654435761 + index) >>> 0)) * this.noiseUa
    const quantized = Math.round((trueUa + noise) / this.stepUa) * this.stepUa
    const reported = Math.trunc((this.sign * quantized) / this.unitDiv)
    const reading: GaugeReading = {
      tNs: tk,
      currentNow: reported,
      currentUa: trueUa,
      voltageUv,
      chargeCounterUah: Math.round(soc * this.capacityUah),
      capacityPct: Math.round(soc * 100),
      status: soc >= 1 ? 'Full' : chargeUa > 0 ? 'Charging' : 'Discharging',
    }
    this.lastIndex = index
    this.lastReading = reading
    return reading
  }

  /** Battery level as the framework reports it. */
  levelPct(tNs: number): number {
    return this.framework.levelOverride ?? this.read(tNs).capacityPct
  }

  /** `temperature` in 0.1 °C. */
  get temperatureDeciC(): number {
    return TEMPERATURE_DECI_C
  }
}

/** One ODPM reading: cumulative energy per rail since boot. */
export interface RailSnapshot {
  /** CLOCK_BOOTTIME, ms. */
  readonly timestampMs: number
  /** Rail → cumulative µWs (= µJ), integer. */
  readonly energyUws: ReadonlyMap<string, number>
}

/** Reads the ODPM counters at `tNs` (exact integrals of the simulated power, floored to µWs). */
export function readRails(sim: Simulation, tNs: number): RailSnapshot {
  const { rails } = sim.energySinceBoot(tNs)
  const energyUws = new Map<string, number>()
  for (const name of sim.railNames()) energyUws.set(name, Math.floor((rails[name] ?? 0) * 1e6))
  return { timestampMs: Math.floor(tNs / 1e6), energyUws }
}
