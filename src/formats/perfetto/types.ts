/** Power data decoded from a Perfetto trace, in SI units, each series on a named clock. */
import type { ClockName } from '../../model/clock.js'
import type { CpuSchedule, RailSeries } from '../../model/samples.js'
import type { AndroidPowerConfig } from './config.js'

/** `PowerRails.RailDescriptor`: one ODPM channel as the device describes it. */
export interface PerfettoRailDescriptor {
  /** Index that `EnergyData.index` refers to. */
  readonly index: number
  /** Rail name, e.g. `S4M_VDD_CPUCL0`. */
  readonly railName: string
  /** Subsystem, e.g. `CPU(LITTLE)`, `Display`; `''` when the device left it empty. */
  readonly subsystem: string
  /** Hardware sampling rate in Hz, when reported. */
  readonly samplingRateHz?: number
}

/**
 * One `BatteryCounters` packet. Fields are present only when the device reported them.
 * Sign convention of Perfetto's proto: positive current = drawn from the battery (discharging),
 * negative = charging; vendors break this (see docs/formats/perfetto.md).
 */
export interface BatteryCounterReading {
  /** Packet timestamp on `BatteryCounterSeries.clock`. */
  readonly tNs: number
  /** Coulomb counter (`charge_counter_uah` µAh → C). */
  readonly chargeC?: number
  /** Remaining capacity, percent of full (`capacity_percent`). */
  readonly capacityPercent?: number
  /** Instantaneous current (`current_ua` µA → A). */
  readonly currentA?: number
  /** Average current over the gauge's window (`current_avg_ua` µA → A). */
  readonly currentAvgA?: number
  /** Energy counter (`energy_counter_uwh` µWh → J). */
  readonly energyJ?: number
  /** Battery voltage (`voltage_uv` µV → V). */
  readonly voltageV?: number
}

/** Battery counters of one battery (the trace names batteries only when there are several). */
export interface BatteryCounterSeries {
  /** `BatteryCounters.name`; absent for the (single) default battery. */
  readonly name?: string
  readonly clock: ClockName
  /** In trace order, which is time order for one producer. */
  readonly readings: readonly BatteryCounterReading[]
}

/** One clock in a `ClockSnapshot` packet. */
export interface PerfettoClockReading {
  /** Perfetto clock id (1 realtime, 3 monotonic, 5 monotonic_raw, 6 boottime, ...). */
  readonly clockId: number
  /** The model's name for it, when there is one. */
  readonly clock?: ClockName
  /** Exact decimal timestamp (realtime values exceed 2^53). */
  readonly timestamp: string
  /** The same as a number, only when it is a safe integer. */
  readonly timestampNs?: number
}

/** What a decoded trace holds for energy purposes. */
export interface PerfettoPowerTrace {
  /** Number of top-level `TracePacket`s (after expanding compressed packets). */
  readonly packetCount: number
  /**
   * Packets by what they carry: `power_rails`, `battery`, `clock_snapshot`, `trace_config`,
   * `ftrace_events`, `other`.
   */
  readonly packetKinds: Readonly<Record<string, number>>
  /** Cumulative energy per rail, J on `boottime` (ODPM `energy_data`). */
  readonly rails: readonly RailSeries[]
  readonly railDescriptors: readonly PerfettoRailDescriptor[]
  readonly battery: readonly BatteryCounterSeries[]
  readonly clockSnapshots: ReadonlyArray<readonly PerfettoClockReading[]>
  /** `true` when there is at least one rail reading or battery reading. */
  readonly hasPowerData: boolean
  /** Data source names of the session's echoed `trace_config` (e.g. `linux.ftrace`, `android.power`). */
  readonly configuredDataSources: readonly string[]
  /** The `android.power` config echoed in `trace_config`, when the session had one. */
  readonly androidPowerConfig?: AndroidPowerConfig
  /**
   * What ran on each CPU, from ftrace `sched_switch` events (plain or `compact_sched`), on boottime
   * (`source: 'perfetto.sched_switch'`). Present when the trace has sched_switch data or its echoed
   * config asked `linux.ftrace` for it (then possibly with no slices). A CPU's last slice ends at the
   * latest boottime timestamp in the trace; see docs/formats/perfetto.md.
   */
  readonly schedule?: CpuSchedule
  /** Things that are odd but not fatal (counter going backwards, data for an undescribed rail). */
  readonly warnings: readonly string[]
}
