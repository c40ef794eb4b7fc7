/**
 * One simulated phone's state beyond the base device: the app runtime and physics (`Simulation`),
 * the battery and its sensors, settings, and the profilers that are running. Shell commands in
 * `src/virtual-device/commands/` read and change it.
 */
import type { PowerProfile } from '../../formats/power-profile/index.js'
import type { DeviceClock, VirtualProcess } from '../contract.js'
import type { AppModel } from './app-model.js'
import type { ArtProfileResult } from './art-profile.js'
import { buildPowerModel } from './power-model.js'
import type { Physics } from './other-processes.js'
import { PowerStatsHal, type PollTimingOptions } from './power-stats-hal.js'
import { Battery, type Charger, type FuelGaugeOptions } from './sensors.js'
import { siliconOf, type Silicon, type SiliconReport } from './silicon.js'
import { DEFAULT_TRACING_OVERHEAD, Simulation, type TracingOverhead } from './simulation.js'

/** A running `am profile` session. */
export interface ArtProfileSession {
  readonly startNs: number
  readonly file: string
  /** Sampling interval, µs; undefined = full method tracing. */
  readonly samplingUs: number | undefined
  readonly streaming: boolean
  readonly pid: number
  /** `--clock-type` (Android 15+). @default 'dual' */
  readonly clock: 'dual' | 'wall' | 'thread-cpu'
}

export interface SimPhoneOptions {
  readonly app: AppModel
  readonly powerProfile: PowerProfile
  readonly seed: number
  readonly clock: DeviceClock
  /** The fuel gauge: a profile and overrides (gauge-profiles.ts). @default `{ profile: 'typical' }` */
  readonly sensors?: FuelGaugeOptions
  /** How perfetto's android.power polls and the power-stats HAL are timed (phone physics). */
  readonly pollTiming?: PollTimingOptions
  /** What powers the phone when it starts. @default 'usb' */
  readonly charger?: Charger
  /**
   * Whether the phone has ODPM power rails (a PowerStats HAL with energy meters). Without them
   * `dumpsys powerstats` prints nothing and perfetto's `android.power` records no rails.
   * @default true
   */
  readonly odpm?: boolean
  /** Relative std dev of per-call CPU cost. @default 0.03 */
  readonly cpuJitter?: number
  /**
   * `phone`: other processes share the CPUs, frames cost GPU and memory power; `simple`: only the
   * app runs, for exact arithmetic (docs/virtual-device.md, "Physics"). @default 'simple'
   */
  readonly physics?: Physics
  /**
   * `deviated`: the CPUs draw this phone's own currents, seeded departures from the profile per
   * cluster, per frequency step and for `cpu.active` (sim/silicon.ts); `nominal`: exactly the
   * profile's. The phone ships the nominal profile either way. @default 'deviated' with the phone
   * physics, 'nominal' with the simple one
   */
  readonly silicon?: Silicon
  /** See `SimulationOptions.codePowerSpread`. @default 0 */
  readonly codePowerSpread?: number
  /**
   * ART trace buffer size, bytes: a non-streaming trace whose records do not fit is cut and marked
   * `data-file-overflow=true`, as ART does. @default 8 MiB (ART's default buffer)
   */
  readonly traceBufferBytes?: number
  /** Slow-down of full (non-sampling) method tracing. @default DEFAULT_TRACING_OVERHEAD */
  readonly tracingOverhead?: TracingOverhead
}

export interface SimPhone {
  readonly app: AppModel
  /** The power profile the phone ships (nominal; `sim.power` runs on {@link silicon}'s currents). */
  readonly powerProfile: PowerProfile
  /** How this phone's CPU currents depart from its profile: ground truth, for `vdev silicon`. */
  readonly silicon: SiliconReport
  readonly sim: Simulation
  readonly battery: Battery
  /** The power-stats HAL's timing of ODPM readings (used with `physics: 'phone'`). */
  readonly hal: PowerStatsHal
  /** The phone has ODPM power rails its shell commands show (see {@link SimPhoneOptions.odpm}). */
  readonly odpm: boolean
  readonly clock: DeviceClock
  readonly seed: number
  readonly traceBufferBytes: number
  readonly tracingOverhead: TracingOverhead
  /** `settings` table: `system/screen_brightness` → `102`. */
  readonly settings: Map<string, string>
  /** The app's process while it runs. */
  appProcess: VirtualProcess | undefined
  artProfile: ArtProfileSession | undefined
  /** What the last `am profile stop` wrote: the intended records, for tests. */
  lastArtProfile: ArtProfileResult | undefined
  /** Last `dumpsys batterystats --reset` (or the phone's start), boottime ns. */
  batterystatsResetNs: number
  /** Packages compiled with `cmd package compile -m speed -f`. */
  readonly compiled: Map<string, string>
  /**
   * Takes the phone off its ADB server after `afterMs` (its open connections drop, as when the
   * cable is pulled) and, with `forMs`, brings it back that much later. Set by the server that
   * serves the phone; `vdev unplug` calls it.
   */
  unplug?: (afterMs: number, forMs?: number) => void
}

/** Boottime now, ns. */
export function bootNowNs(phone: SimPhone): number {
  return phone.clock.nowNs('boottime')
}

export function createSimPhone(options: SimPhoneOptions): SimPhone {
  const silicon = options.silicon ?? (options.physics === 'phone' ? 'deviated' : 'nominal')
  const { power, report } = siliconOf(buildPowerModel(options.powerProfile), silicon, options.seed)
  const sim = new Simulation({
    model: options.app,
    power,
    seed: options.seed,
    now: () => options.clock.nowNs('boottime'),
    ...(options.cpuJitter === undefined ? {} : { cpuJitter: options.cpuJitter }),
    ...(options.physics === undefined ? {} : { physics: options.physics }),
    ...(options.codePowerSpread === undefined ? {} : { codePowerSpread: options.codePowerSpread }),
  })
  const battery = new Battery(sim, options.seed, options.sensors, options.charger)
  const hal = new PowerStatsHal(sim, options.seed, options.pollTiming)
  const settings = new Map<string, string>([
    ['system/screen_brightness', String(sim.brightness)],
    ['system/screen_brightness_mode', '0'],
    ['system/screen_off_timeout', '600000'],
    ['global/stay_on_while_plugged_in', '7'],
    ['global/adb_enabled', '1'],
    ['global/airplane_mode_on', '0'],
    ['global/wifi_on', '1'],
    ['secure/location_mode', '3'],
  ])
  return {
    app: options.app,
    powerProfile: options.powerProfile,
    silicon: report,
    sim,
    battery,
    hal,
    odpm: options.odpm ?? true,
    clock: options.clock,
    seed: options.seed,
    traceBufferBytes: options.traceBufferBytes ?? 8 * 1024 * 1024,
    tracingOverhead: options.tracingOverhead ?? DEFAULT_TRACING_OVERHEAD,
    settings,
    appProcess: undefined,
    artProfile: undefined,
    lastArtProfile: undefined,
    compiled: new Map(),
    batterystatsResetNs: options.clock.nowNs('boottime'),
  }
}
