/**
 * What the phone's sensors report about the simulated power: a fuel gauge (sysfs
 * `/sys/class/power_supply/battery/*`) that behaves like a real gauge family — a current register
 * updated on the chip's own period, averaged over a window, quantized, with seeded noise, vendor
 * unit/sign quirks, a vendor cache, and a charge counter that steps (profiles in
 * gauge-profiles.ts) — and ODPM rails as cumulative µWs counters. The battery framework state
 * (`dumpsys battery`) lives here too.
 */
import {
  resolveGauge,
  type FuelGaugeOptions,
  type GaugeAveraging,
  type GaugeModel,
} from './gauge-profiles.js'
import { gaussian, prng, type Simulation } from './simulation.js'

export {
  DEFAULT_GAUGE_PROFILE,
  GAUGE_PROFILES,
  GAUGE_PROFILE_MODELS,
  parseGaugeAveraging,
  resolveGauge,
} from './gauge-profiles.js'
export type {
  ChargeCounterOptions,
  FuelGaugeOptions,
  GaugeAveraging,
  GaugeCache,
  GaugeModel,
  GaugeProfile,
} from './gauge-profiles.js'

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

/** What the gauge's nodes show at one instant. */
export interface GaugeReading {
  /**
   * Boottime at which the values `current_now` and `voltage_now` show were taken, ns: the current
   * register's update, or with a vendor cache the cache's refresh.
   */
  readonly tNs: number
  /** Boottime of the current register's update the values come from, ns. */
  readonly updateNs: number
  /** `current_now` as the node reports it (quantum, noise, sign and unit quirks applied). */
  readonly currentNow: number
  /** The true battery current the register averages, µA, kernel sign (+ = charging), before quirks. */
  readonly currentUa: number
  readonly voltageUv: number
  /** `charge_counter` as the node reports it: µAh, or the state of charge in % (legacy MediaTek). */
  readonly chargeCounter: number
  /** Boottime of the refresh `charge_counter` and `capacity` come from, ns. */
  readonly chargeNs: number
  readonly capacityPct: number
  readonly status: 'Charging' | 'Discharging' | 'Full' | 'Not charging'
}

const TEMPERATURE_DECI_C = 290
/** A `kind: 'instant'` register holds the load of this last stretch before its update. */
const INSTANT_NS = 1000
/** The IIR sums periods until their weight falls under this share. */
const IIR_TAIL = 1e-6
/**
 * The energy drawn, behind the state of charge, is the simulation's at the last whole minute (one
 * checkpoint it keeps per minute of device time read), plus each whole second's energy since,
 * summed in order and memoized, plus the energy since the last whole second: neither a checkpoint
 * nor a long integration per update.
 */
const ENERGY_ANCHOR_S = 60
const ENERGY_STEP_NS = 1e9

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

/** The last instant of the grid `phaseNs + i × periodNs` at or before `tNs`. */
function lastTickNs(tNs: number, periodNs: number, phaseNs: number): number {
  return Math.round(phaseNs + Math.floor((tNs - phaseNs) / periodNs) * periodNs)
}

/**
 * A memo of values that are pure functions of their numeric key, holding at most `limit` of them
 * (the oldest computed goes first), so reading the gauge for hours keeps its memory flat.
 */
class Memo<V> {
  private readonly map = new Map<number, V>()
  constructor(private readonly limit: number) {}

  get(key: number, make: () => V): V {
    const hit = this.map.get(key)
    if (hit !== undefined) return hit
    const value = make()
    this.set(key, value)
    return value
  }

  peek(key: number): V | undefined {
    return this.map.get(key)
  }

  set(key: number, value: V): void {
    this.map.set(key, value)
    if (this.map.size > this.limit) {
      const oldest = this.map.keys().next()
      if (oldest.done !== true) this.map.delete(oldest.value)
    }
  }
}

/** The load over a window: the device's mean power and the charger's mean current into the battery. */
interface Load {
  readonly powerW: number
  readonly chargeUa: number
}

/** How one register (`current_now` or `current_avg`) turns the load into its value at update k. */
interface Filter {
  /** The load the register holds at update `k`. */
  load(k: number): Load
  /** Its noise σ relative to one conversion's: an average over n periods has 1/√n of it. */
  readonly noiseScale: number
}

/** One update of the current registers. */
interface Register {
  readonly k: number
  readonly tNs: number
  readonly voltageUv: number
  readonly currentUa: number
  readonly currentNow: number
  /** `current_avg`, computed when first read (its window may be long). */
  currentAvg?: number
}

/** One refresh of the state of charge behind `charge_counter` and `capacity`. */
interface ChargeState {
  readonly tNs: number
  readonly soc: number
  readonly chargeCounter: number
  readonly capacityPct: number
}

export class Battery {
  readonly framework: BatteryFrameworkState
  /** What powers the phone in hardware (until `dumpsys battery` changes the framework's view). */
  readonly charger: Charger
  /** The gauge this battery models: its profile with the options applied. */
  readonly gauge: GaugeModel
  /** sysfs directory name of the gauge. */
  readonly node: string
  private readonly sim: Simulation
  private readonly seed: number
  private readonly sign: 1 | -1
  private readonly unitDiv: number
  private readonly chargeUa: number
  private readonly initialSoc: number
  private readonly chargesWhenUnplugged: boolean
  private readonly capacityUah: number
  /** Times at which hardware charging switched, with the new state. */
  private readonly chargeChanges: { tNs: number; charging: boolean }[] = []
  /** When the battery (and its initial state of charge) was set up, boottime ns. */
  private readonly t0Ns: number
  private readonly e0J: number
  /** Current register period on the phone's clock, ns; the first update at `phaseNs` (0 and exact: simple physics). */
  private readonly periodNs: number
  private readonly phaseNs: number
  /** The vendor cache's and the charge counter's refresh grids (kernel timers, the phone's clock). */
  private readonly cacheNs: number | undefined
  private readonly cachePhaseNs: number
  private readonly chargeRefreshNs: number
  private readonly chargePhaseNs: number
  private readonly nowFilter: Filter
  private readonly avgFilter: Filter | undefined
  /** Each register period's load, shared by the filters (an IIR reads many). */
  private readonly periods: Memo<Load>
  private readonly registers = new Memo<Register>(16)
  private readonly charges = new Memo<ChargeState>(16)
  /** Energy since boot at whole seconds of boottime, J, by second. */
  private readonly energies = new Memo<number>(64)

  constructor(
    sim: Simulation,
    seed: number,
    options: FuelGaugeOptions = {},
    charger: Charger = 'usb',
  ) {
    const gauge = resolveGauge(options)
    this.gauge = gauge
    this.charger = charger
    this.framework = { ...poweredBy(charger), levelOverride: undefined, updatesStopped: false }
    this.sim = sim
    this.seed = seed
    this.sign = gauge.currentSign === 'flipped' ? -1 : 1
    this.unitDiv = gauge.currentUnit === 'mA' ? 1000 : 1
    this.chargeUa = options.chargeCurrentUa ?? 450_000
    this.initialSoc = options.initialSoc ?? 0.87
    this.chargesWhenUnplugged = options.chargesWhenUnplugged ?? false
    this.capacityUah = sim.power.batteryCapacityMah * 1000
    this.node = options.node ?? 'battery'
    // The gauge converts on its own oscillator (Maxim parts store Current every 175.8 ms of their
    // timebase), not on the SoC's clock: with phone physics its updates drift against the poll.
    // The vendor cache and the charge counter's refresh run on kernel timers (the phone's clock).
    const phone = sim.physics === 'phone'
    const random = prng((seed * 2654435761) ^ 0x27d4eb2f)
    const drift = phone ? (options.clockDrift ?? (random() - 0.5) * 0.01) : 0
    this.periodNs = gauge.periodMs * 1e6 * (1 + drift)
    this.phaseNs = phone ? random() * this.periodNs : 0
    const kernelPhase = phone ? random() : 0
    this.cacheNs = gauge.cache === 'none' ? undefined : gauge.cache.periodMs * 1e6
    this.cachePhaseNs = kernelPhase * (this.cacheNs ?? 0)
    this.chargeRefreshNs = gauge.chargeCounter.refreshMs * 1e6
    this.chargePhaseNs = kernelPhase * this.chargeRefreshNs
    const iirPeriods = (a: GaugeAveraging | 'none'): number =>
      a !== 'none' && a.kind === 'iir' ? this.iirLength(a.tauMs) : 1
    this.periods = new Memo<Load>(
      2 * Math.max(iirPeriods(gauge.averaging), iirPeriods(gauge.currentAvg)) + 16,
    )
    this.nowFilter = this.filter(gauge.averaging)
    this.avgFilter = gauge.currentAvg === 'none' ? undefined : this.filter(gauge.currentAvg)
    this.t0Ns = sim.now()
    this.e0J = this.energyJ(this.t0Ns)
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

  /**
   * Charge put in by the charger over [0, tNs], µAh. The charger the phone starts on was there
   * before (a gauge window reaching back before the phone's start sees it too).
   */
  private chargedUah(tNs: number): number {
    let total = 0
    for (let i = 0; i < this.chargeChanges.length; i++) {
      const c = this.chargeChanges[i]
      const from = i === 0 ? 0 : (c?.tNs ?? tNs)
      if (c === undefined || from >= tNs) break
      const end = Math.min(tNs, this.chargeChanges[i + 1]?.tNs ?? tNs)
      if (c.charging) total += (this.chargeUa * (end - from)) / 3.6e12
    }
    return total
  }

  private chargingAt(tNs: number): boolean {
    let charging = this.chargeChanges[0]?.charging ?? false
    for (const c of this.chargeChanges) if (c.tNs <= tNs) charging = c.charging
    return charging
  }

  /** The device's energy since boot at `tNs`, J (see ENERGY_ANCHOR_S). */
  private energyJ(tNs: number): number {
    const second = Math.floor(tNs / ENERGY_STEP_NS)
    const c = second * ENERGY_STEP_NS
    return this.secondEnergyJ(second) + (this.sim.averagePowerW(c, tNs) * (tNs - c)) / 1e9
  }

  /**
   * The device's energy since boot at the whole second `second` of boottime, J: the simulation's at
   * the minute's start plus each second's since, always summed from there in the same order, so
   * the value does not depend on which seconds were asked for before (memoized ones are reused).
   */
  private secondEnergyJ(second: number): number {
    const anchor = Math.floor(second / ENERGY_ANCHOR_S) * ENERGY_ANCHOR_S
    let from = second
    while (from > anchor && this.energies.peek(from) === undefined) from--
    let energyJ = this.energies.get(
      from,
      () => this.sim.energySinceBoot(anchor * ENERGY_STEP_NS).totalJ,
    )
    for (let s = from + 1; s <= second; s++) {
      const s0 = (s - 1) * ENERGY_STEP_NS
      energyJ += (this.sim.averagePowerW(s0, s0 + ENERGY_STEP_NS) * ENERGY_STEP_NS) / 1e9
      this.energies.set(s, energyJ)
    }
    return energyJ
  }

  /** State of charge (0–1) at `tNs`, from the energy drawn and the charge put in. */
  soc(tNs: number): number {
    const t = Math.max(tNs, this.t0Ns)
    const drawnJ = this.energyJ(t) - this.e0J
    const drawnUah = (drawnJ / 3.6 / this.sim.power.voltageV) * 1000
    const chargedUah = this.chargedUah(t) - this.chargedUah(this.t0Ns)
    const soc = this.initialSoc + (chargedUah - drawnUah) / this.capacityUah
    return Math.max(0, Math.min(1, soc))
  }

  /** Boottime of the current register's update `k`, ns. */
  private updateNs(k: number): number {
    return Math.round(this.phaseNs + k * this.periodNs)
  }

  /** The index of the last current register update at or before `tNs`. */
  private updateIndex(tNs: number): number {
    const k = Math.floor((tNs - this.phaseNs) / this.periodNs)
    return this.updateNs(k) > tNs ? k - 1 : k
  }

  /** The load over [fromNs, toNs]: mean power, and the charger's mean current into the battery. */
  private load(fromNs: number, toNs: number): Load {
    const a = Math.max(0, fromNs)
    const b = Math.max(a, toNs)
    if (b === a) return { powerW: 0, chargeUa: 0 }
    return {
      powerW: this.sim.averagePowerW(a, b),
      chargeUa: ((this.chargedUah(b) - this.chargedUah(a)) * 3.6e12) / (b - a),
    }
  }

  /** The load over the register period that ends with update `k`. */
  private periodLoad(k: number): Load {
    return this.periods.get(k, () => this.load(this.updateNs(k - 1), this.updateNs(k)))
  }

  /** Periods an IIR of time constant `tauMs` sums (until their weight is under IIR_TAIL). */
  private iirLength(tauMs: number): number {
    const decay = Math.exp(-this.periodNs / (tauMs * 1e6))
    return decay <= 0 ? 1 : Math.max(1, Math.ceil(Math.log(IIR_TAIL) / Math.log(decay)))
  }

  private filter(averaging: GaugeAveraging): Filter {
    switch (averaging.kind) {
      case 'period':
        return { noiseScale: 1, load: (k) => this.periodLoad(k) }
      case 'instant':
        return {
          noiseScale: 1,
          load: (k) => {
            const t = this.updateNs(k)
            return this.load(t - INSTANT_NS, t)
          },
        }
      case 'boxcar': {
        const windowNs = averaging.windowMs * 1e6
        return {
          noiseScale: Math.sqrt(Math.min(1, this.periodNs / windowNs)),
          load: (k) => {
            const t = this.updateNs(k)
            return this.load(t - windowNs, t)
          },
        }
      }
      case 'iir': {
        // y_k = (1 − d) Σ d^i x_(k−i) over the periods' loads, cut where d^i < IIR_TAIL and
        // renormalized, so a constant load reads exactly that load. Summed afresh in a fixed order
        // at each update: the value depends on k only, not on which reads came before.
        const decay = Math.exp(-this.periodNs / (averaging.tauMs * 1e6))
        const n = this.iirLength(averaging.tauMs)
        const weights = new Float64Array(n)
        let total = 0
        for (let i = 0; i < n; i++) {
          weights[i] = decay ** i
          total += decay ** i
        }
        for (let i = 0; i < n; i++) weights[i] = (weights[i] ?? 0) / total
        const alpha = 1 - decay
        return {
          noiseScale: Math.sqrt(alpha / (2 - alpha)),
          load: (k) => {
            let powerW = 0
            let chargeUa = 0
            for (let i = 0; i < n; i++) {
              const w = weights[i] ?? 0
              const p = this.periodLoad(k - i)
              powerW += w * p.powerW
              chargeUa += w * p.chargeUa
            }
            return { powerW, chargeUa }
          },
        }
      }
    }
  }

  /** A current in µA (kernel sign) as the node reports it: quantum, then sign and unit. */
  private report(ua: number): number {
    const step = this.gauge.currentStepUa
    const quantized = step > 0 ? Math.round(ua / step) * step : Math.round(ua)
    return Math.trunc((this.sign * quantized) / this.unitDiv) || 0
  }

  /** A register's current in µA (kernel sign) for `load` at its voltage. */
  private static currentOf(load: Load, voltageUv: number): number {
    return load.chargeUa - (load.powerW / voltageUv) * 1e12
  }

  /** The current registers' update `k`. */
  private register(k: number): Register {
    return this.registers.get(k, () => {
      const tNs = this.updateNs(k)
      const voltageUv = ocvUv(this.soc(tNs))
      const currentUa = Battery.currentOf(this.nowFilter.load(k), voltageUv)
      const noise = gaussian(prng((this.seed * 2654435761 + k) >>> 0)) * this.gauge.noiseUa
      return {
        k,
        tNs,
        voltageUv,
        currentUa,
        currentNow: this.report(currentUa + noise * this.nowFilter.noiseScale),
      }
    })
  }

  /** The register update whose values the nodes show at `tNs` (through a vendor cache). */
  private shown(tNs: number, charging: boolean): { register: Register; cachedNs?: number } {
    const cache = this.gauge.cache
    if (this.cacheNs === undefined || cache === 'none') {
      return { register: this.register(this.updateIndex(tNs)) }
    }
    if (charging && cache.bypassWhileCharging === true) {
      return { register: this.register(this.updateIndex(tNs)) }
    }
    const cachedNs = lastTickNs(tNs, this.cacheNs, this.cachePhaseNs)
    return { register: this.register(this.updateIndex(cachedNs)), cachedNs }
  }

  /** The state of charge refreshed at `tNs`, with `charge_counter` and `capacity` from it. */
  private chargeState(tNs: number): ChargeState {
    return this.charges.get(tNs, () => {
      const soc = this.soc(tNs)
      const cc = this.gauge.chargeCounter
      const capacityPct = Math.round(soc * 100)
      let chargeCounter = capacityPct
      if (cc.unit === 'uAh') {
        const stepUah = cc.stepUah ?? (this.capacityUah * (cc.stepPercent ?? 0)) / 100
        const uah = soc * this.capacityUah
        chargeCounter = Math.round(stepUah > 0 ? Math.round(uah / stepUah) * stepUah : uah)
      }
      return { tNs, soc, chargeCounter, capacityPct }
    })
  }

  /** What the gauge's nodes show at `tNs`. */
  read(tNs: number): GaugeReading {
    const charging = this.chargingAt(tNs)
    const { register: reg, cachedNs } = this.shown(tNs, charging)
    const state = this.chargeState(
      this.chargeRefreshNs > 0
        ? lastTickNs(tNs, this.chargeRefreshNs, this.chargePhaseNs)
        : reg.tNs,
    )
    return {
      tNs: cachedNs ?? reg.tNs,
      updateNs: reg.tNs,
      currentNow: reg.currentNow,
      currentUa: reg.currentUa,
      voltageUv: reg.voltageUv,
      chargeCounter: state.chargeCounter,
      chargeNs: state.tNs,
      capacityPct: state.capacityPct,
      status: state.soc >= 1 ? 'Full' : charging && this.chargeUa > 0 ? 'Charging' : 'Discharging',
    }
  }

  /**
   * `current_avg` as the node reports it at `tNs` (updated with `current_now`, through the same
   * cache); undefined when the gauge has no such node.
   */
  readCurrentAvg(tNs: number): number | undefined {
    const avg = this.avgFilter
    if (avg === undefined) return undefined
    const reg = this.shown(tNs, this.chargingAt(tNs)).register
    if (reg.currentAvg === undefined) {
      const noise = gaussian(prng(((this.seed * 2654435761 + reg.k) ^ 0x5bd1e995) >>> 0))
      const ua = Battery.currentOf(avg.load(reg.k), reg.voltageUv)
      reg.currentAvg = this.report(ua + noise * this.gauge.noiseUa * avg.noiseScale)
    }
    return reg.currentAvg
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
