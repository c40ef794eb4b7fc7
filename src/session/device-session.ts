/**
 * A worker's view of its device: the adb connection, what the device can do (probed once), the
 * host → boottime clock mapping, the collectors to use, and the idle baseline. Leases are taken
 * per test (by Vitest's `phone` fixture, by the Jest environment), so workers sharing a phone
 * alternate whole tests. Runner-neutral: the runner adapters pass in the options and the target.
 */
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { dirname, join } from 'node:path'
import {
  ASYNC_COMPONENTS,
  TAILS_OUTLIVE_PROCESS,
  componentOfRail,
  idleNoise,
  idlePowerW,
  idleRailPowersW,
  type CoreCurrents,
  type IdleNoise,
} from '../attribution/index.js'
import {
  artTracingCollector,
  batteryHistoryReader,
  resetBatterystats,
  type BatteryHistoryReader,
  type BatterystatsAnchor,
  batterystatsCollector,
  externalMeterCollector,
  fuelGaugeCollector,
  odpmCollector,
  powerstatsCollector,
  simpleperfCollector,
  type ExecutionCollector,
  type PowerCollector,
  type PowerData,
  type ReadingOffsets,
  widerOffsets,
} from '../collectors/index.js'
import {
  mappingAgeNs,
  shell,
  connectAdb,
  mapDeviceClock,
  probeCapabilities,
  type AdbDevice,
  type Capabilities,
  type DeviceClockMapping,
  type Lease,
  type LeaseHolder,
  adbServerName,
  isListening,
  oneAdbServer,
  phoneName,
  type PhoneAddress,
} from '../device/index.js'
import { openLeaseStore, phoneFileBase, type LeaseStore } from '../lab/index.js'
import { parseDumpsysPowerWakeLocks, type HeldWakeLock } from '../formats/dumpsys/index.js'
import {
  EnergyError,
  isEnergyError,
  units,
  type CpuModelObservation,
  type EnergyWarning,
  type MeasuredEnergyResult,
} from '../model/index.js'
import { SLOW_STEP_LINE_MS, type Progress } from '../model/progress.js'
import {
  CALIBRATION_FIT_VERSION,
  calibrateCpuModel,
  calibrationPhaseMs,
  fitRunWindows,
  MODEL_VOLTAGE_V,
  nominalCalibration,
  NOT_CALIBRATED_ON_PURPOSE,
  usableKeptCalibration,
  type CpuCalibration,
  type KeptCalibration,
} from './calibration.js'
import {
  batteryCapacityMah,
  phoneCpuModel,
  phonePowerProfileOnce,
  profileCurrents,
  type PhoneCpuModel,
} from './core-currents.js'
import type { TestProgress } from './progress.js'
import { MEASURED_MARKER, type DeviceTarget, type ProvidedEnergyOptions } from './target.js'
import {
  measureWindow,
  openWindow,
  type AsyncOrigin,
  type OpenWindow,
  type RailBaseline,
  type WindowBaseline,
  type WindowOutcome,
  type WindowPlan,
} from './window.js'

/** How old the host → boottime mapping may get before a window maps the clock again. */
const CLOCK_REMAP_NS = 30e9

/** Typical Li-ion nominal voltage, for battery % when the device does not say. */
const NOMINAL_VOLTAGE_V = 3.85

/** Radio, GPS and Bluetooth: off when idle, and their tails outlast the code that ran. */
const RADIOS: ReadonlySet<string> = new Set(ASYNC_COMPONENTS)

/** Radios whose tail outlives the app process that started it (the modem's inactivity timer). */
const OUTLIVE_PROCESS: ReadonlySet<string> = new Set(TAILS_OUTLIVE_PROCESS)

/**
 * What the first window on a phone learns that every worker measuring on that phone shares for
 * the rest of the run: the idle baseline (measured once per phone per run) and the clock offsets
 * Perfetto reported with it. Kept as JSON in the run's folder, written and read under the lease.
 */
/** A window of `measure()`: its claim on the phone, and the window once its collectors record. */
interface InFlightWindow {
  readonly release: () => void
  window: OpenWindow | undefined
}

interface SharedPhoneState {
  /** The CPU model's calibration (phones without rails), measured with the baseline. */
  readonly calibration?: CpuCalibration
  /** Where the battery history reset for this run lies on boottime (phones without rails). */
  readonly historyAnchor?: BatterystatsAnchor
  readonly baselineW: number
  readonly baselineRails?: readonly RailBaseline[]
  readonly baselineNoise?: IdleNoise
  readonly monotonicToBoottimeNs?: number
  readonly readingOffsetsNs?: ReadingOffsets
}

export class DeviceSession {
  private baselineW: number | undefined
  /** How the CPU model's currents are set on this phone (phones without rails). */
  private calibration: CpuCalibration | undefined
  /**
   * The phone's battery history since this run reset it, read a window at a time: the screen,
   * radios and GPS of a phone without rails, modelled (undefined: not reset, or it failed).
   */
  private history: BatteryHistoryReader | undefined
  private historyAnchor: BatterystatsAnchor | undefined
  /** The idle window's level per rail, when the power source has rails. */
  private baselineRails: readonly RailBaseline[] | undefined
  /** How much the idle phone fluctuated in the idle window. */
  private baselineNoise: IdleNoise | undefined
  private monotonicToBoottimeNs: number | undefined
  /** Where perfetto's rail readings have been stamped relative to its poll grid, on this phone. */
  private readingOffsetsNs: ReadingOffsets | undefined
  /** A window's end missed perfetto's predicted poll: map the clock again before the next one. */
  private clockSuspect = false
  /** Components left on by earlier windows on this phone, and who started them. */
  private readonly asyncOrigins = new Map<string, AsyncOrigin>()
  /** Lowest power seen on each asynchronous rail (its idle level), W. */
  private readonly railFloorsW = new Map<string, number>()
  readonly choiceWarnings: EnergyWarning[] = []
  /** Where the collectors' raw data goes while a test runs (set by `TestEnergy`). */
  artifactSink: ((window: string, name: string, data: Uint8Array | string) => void) | undefined
  /** The lease this worker holds right now (a test's, or the driver's start or end). */
  private held: Lease | undefined
  /**
   * Whom `held` is held for now: the test that took it, or the one that took it over parked (the
   * lease itself still names the test that acquired it). Windows are labelled with it.
   */
  private heldFor: string | undefined
  /** Run each time this worker takes the phone, before its test (see `onLease`). */
  private readonly leaseHooks = new Set<() => Promise<void>>()
  /** The window open on this phone now, if any: windows never overlap (E_WINDOW_ALREADY_OPEN). */
  private openLabel: string | undefined
  /** The window `measure()` runs now, so a test that ends without awaiting it can abandon it. */
  private inFlight: InFlightWindow | undefined
  /** Whether this process has left the run's "measured" marker. */
  private markedMeasured = false
  /** The idle baseline being measured, so that concurrent callers share one measurement. */
  private measuring: Promise<void> | undefined
  /** How often the power source updated in the idle window (real updates per second). */
  private idleUpdatesPerS: number | undefined
  /** The phone's asynchronous state being written to the store (awaited before the lease ends). */
  private asyncShare: Promise<void> = Promise.resolve()
  /**
   * Windows ended whose power reading past the end, stop and attribution still run
   * (`OpenWindow.end()`), one after another: settled when the last of them has.
   */
  private behind: Promise<void> = Promise.resolve()
  /** How many windows `behind` still waits for. */
  private behindCount = 0
  /**
   * A lease whose test ended while its window's end was still read in the background: this
   * process keeps it until that is done, and its next test takes it over (`lease()`).
   */
  private parked: Lease | undefined

  private constructor(
    readonly options: ProvidedEnergyOptions,
    readonly target: DeviceTarget,
    /** The phone this test process measures on: its adb server and serial. */
    readonly phone: PhoneAddress,
    /** Where the phone's leases and what runners share about it live. */
    private readonly store: LeaseStore,
    readonly device: AdbDevice,
    readonly capabilities: Capabilities,
    private boottimeMapping: DeviceClockMapping,
    /** Per cluster, the profile's per-core currents (`profileCurrents`), when known. */
    private readonly cpuCoreCurrents?: readonly CoreCurrents[],
    /** The CPU power model of a phone without rails (`phoneCpuModel`), when its profile is known. */
    readonly cpuModel?: PhoneCpuModel,
    /** The battery's capacity, mAh (`batteryCapacityMah`: the option, else the profile's). */
    private readonly batteryCapacityMah?: number,
  ) {}

  /** Host → device boottime, mapped again when it is old (see `freshClock`). */
  get boottime(): DeviceClockMapping {
    return this.boottimeMapping
  }

  /**
   * Connects a test process to its phone, probes it and maps its clock. Which of the pool's phones
   * is the lease store's choice: worker N (1-based, the runner's pool or worker id) takes phone
   * (N − 1) mod count with lock files; a lab's shared store hands out the least used phone.
   */
  static async open(
    options: ProvidedEnergyOptions,
    target: DeviceTarget,
    workerId: number,
  ): Promise<DeviceSession> {
    if (target.phones.length === 0) {
      throw new EnergyError({
        code: 'E_NO_DEVICE',
        message: 'no phones were provided to the worker',
        hint: 'Check `adb devices`.',
      })
    }
    const store = await openLeaseStore(options.leases, { runDir: target.runDir, run: target.run })
    const phone = await store.assign(await answering(target.phones), workerId)
    const client = await connectAdb({ host: phone.host, port: phone.port })
    const device = client.device(phone.serial)
    // A phone without PowerStatsService (Android 10, 11) shows its rails only to a short perfetto
    // session, which the probe runs only when dumpsys powerstats lists none.
    const capabilities = await probeCapabilities(device, { app: options.app })
    const boottime = await mapDeviceClock(device, 'boottime')
    const found = phonePowerProfileOnce(options, device, capabilities)
    const profile = await profileCurrents(options, device, capabilities, undefined, found)
    const modelled = await phoneCpuModel(options, device, capabilities, undefined, found)
    const capacityMah = await batteryCapacityMah(options, found)
    const session = new DeviceSession(
      options,
      target,
      phone,
      store,
      device,
      capabilities,
      boottime,
      profile.currents,
      modelled.cpuModel,
      capacityMah,
    )
    if (profile.warning !== undefined) session.choiceWarnings.push(profile.warning)
    if (modelled.warning !== undefined) session.choiceWarnings.push(modelled.warning)
    return session
  }

  get serial(): string {
    return this.device.serial
  }

  /**
   * A host port for this process's UiAutomator2 forward to the phone that no other runner's uses
   * (the lab's shared store hands them out) and `usableHere` accepts; undefined when the store
   * cannot know.
   */
  reserveForwardPort(usableHere?: (port: number) => Promise<boolean>): Promise<number | undefined> {
    return this.store.reservePort(this.phone, usableHere)
  }

  /** How messages name the phone: its serial, with its adb server when the run has several. */
  get name(): string {
    return phoneName(this.phone, oneAdbServer(this.target.phones))
  }

  /**
   * Runs a command on the phone (each argument quoted for Android's shell) and returns its output;
   * a non-zero exit status is an `E_DEVICE_COMMAND_FAILED` error. For test setup such as
   * `settings put system screen_brightness 102`, not for anything inside an energy window.
   */
  async shell(argv: readonly string[]): Promise<string> {
    const result = await shell(this.device, argv)
    if (result.exitCode !== 0) {
      throw new EnergyError({
        code: 'E_DEVICE_COMMAND_FAILED',
        message: `\`${result.command}\` exited ${result.exitCode}: ${result.stdout.trim().slice(0, 200)}`,
        hint: 'Run the same command with `adb shell` to see what the phone says.',
        details: { serial: this.serial },
      })
    }
    return result.stdout
  }

  /**
   * Waits for exclusive use of the phone (one energy window per device across all workers). A
   * test's `progress` shows the wait (as a plain line only when it lasts more than a second, naming
   * the holder), then the test as running until the lease is released.
   */
  async lease(owner: string, progress?: TestProgress): Promise<Lease> {
    const parked = this.takeParked()
    if (parked !== undefined) {
      // The phone never left this process since the last test: nothing to wait for or repair.
      progress?.step('running')
      this.held = parked
      this.heldFor = owner
      // Waiters name the test that holds the phone now; not awaited (the lease orders it before
      // its release).
      void parked.relabel(owner)
      return this.releasable(parked, progress)
    }
    let holder: LeaseHolder | undefined
    let lease: Lease
    try {
      lease = await this.store.acquire(this.phone, {
        owner,
        onWait: (current) => {
          holder = current
          progress?.step('waiting for the phone', {
            line: () =>
              `waiting for phone ${this.name}${holder === undefined ? '' : ` (held by ${holder.owner}${holder.hostname === hostname() ? '' : ` on ${holder.hostname}`})`}`,
            lineAfterMs: SLOW_STEP_LINE_MS,
          })
        },
      })
    } catch (error) {
      progress?.done()
      throw error
    }
    progress?.step('running')
    this.held = lease
    this.heldFor = owner
    try {
      // A phone without rails is calibrated (with its idle baseline) by its first test's lease:
      // that takes a minute or more, which must not count against the test's timeout.
      if (this.cpuModel !== undefined && this.calibration === undefined) {
        await this.prepare(progress)
      }
      for (const hook of this.leaseHooks) await hook()
    } catch (error) {
      await lease.release().finally(() => progress?.done())
      throw error
    }
    return this.releasable(lease, progress)
  }

  /**
   * The test's lease: what its windows left on the phone is in the store before another worker
   * takes it; while one of its windows' ends is still read in the background, the lease is
   * parked instead (see `parked`).
   */
  private releasable(lease: Lease, progress: TestProgress | undefined): Lease {
    return releasedWith(
      lease,
      async () => {
        await this.asyncShare
      },
      () => this.releaseOrPark(lease),
      () => progress?.done(),
    )
  }

  private async releaseOrPark(lease: Lease): Promise<void> {
    if (this.behindCount === 0) {
      await lease.release()
      return
    }
    this.parked = lease
    void this.whenCaughtUp().then(async () => {
      // Parked again meanwhile (a later test took it over and ended with its window behind):
      // that park's own wait releases it.
      if (this.parked === lease && this.behindCount === 0) {
        this.parked = undefined
        await lease.release().catch(() => undefined)
      }
    })
  }

  private takeParked(): Lease | undefined {
    const parked = this.parked
    this.parked = undefined
    return parked === undefined || parked.released ? undefined : parked
  }

  /** Settles once no window's end is read in the background any more, and its state is shared. */
  private async whenCaughtUp(): Promise<void> {
    while (this.behindCount > 0) await this.behind
    await this.asyncShare
  }

  /**
   * Waits for the windows whose ends are read in the background, then releases the lease they
   * kept (a test file's end: the next file, or another worker, may take the phone).
   */
  async catchUp(): Promise<void> {
    await this.whenCaughtUp()
    await this.takeParked()
      ?.release()
      .catch(() => undefined)
  }

  /**
   * Refuses to go on unless this worker still holds the phone's lease, asked of the store (the
   * fencing check): before a window starts, and before its result is accepted — a worker frozen
   * past its lease's life, or cut off from the store, must not measure or report.
   */
  private async assertLease(doing: string): Promise<void> {
    const held = this.held
    if (held !== undefined) await held.assertHeld(doing)
  }

  /**
   * Runs `hook` each time this worker takes the phone (before the test that takes it), until the
   * returned function removes it: what another worker did on the phone meanwhile is repaired
   * there, holding the lease (the Appium session another worker's replaced, for one).
   */
  onLease(hook: () => Promise<void>): () => void {
    this.leaseHooks.add(hook)
    return () => this.leaseHooks.delete(hook)
  }

  /**
   * Runs `fn` holding the phone's lease: the one this worker holds already (inside a test), or a
   * lease taken for `fn` alone — so that starting or ending the Appium session (which launches
   * or force-stops the app) never lands inside another worker's test.
   */
  async withLease<T>(owner: string, fn: () => Promise<T>): Promise<T> {
    if (this.held !== undefined && !this.held.released) return fn()
    const lease = await this.lease(owner)
    try {
      return await fn()
    } finally {
      await lease.release()
    }
  }

  /**
   * The power collector: ODPM when the device has rails (through perfetto, else two `dumpsys`
   * meter readings per window), else the fuel gauge; `batterystats` and `external-meter` only
   * when asked for.
   */
  powerCollector(endReading: 'wait' | 'extrapolate' = this.options.endReading): PowerCollector {
    const c = this.capabilities
    const want = this.options.power
    if (want === 'batterystats') {
      const profile = this.options.powerProfile
      return batterystatsCollector(profile === null ? {} : { profile })
    }
    if (want === 'external-meter') {
      const m = this.options.externalMeter
      return externalMeterCollector({
        ...(m?.file == null ? {} : { file: m.file }),
        ...(m?.command == null ? {} : { command: m.command }),
        ...(m?.nominalVoltageV == null ? {} : { nominalVoltageV: m.nominalVoltageV }),
        hostToBoottime: this.boottime,
      })
    }
    const odpm = c.odpm.available && c.perfetto.available
    // Rails listed by `dumpsys powerstats` but no perfetto: two meter dumps per window instead.
    const powerstats = c.odpm.available && !c.perfetto.available
    if (want === 'odpm' || (want === 'auto' && (odpm || powerstats))) {
      if (powerstats) return powerstatsCollector()
      if (!odpm)
        throw unavailable(
          'odpm',
          'this device has no ODPM power rails reachable through perfetto or dumpsys powerstats (Pixel 6 and later have them)',
        )
      return odpmCollector({
        endReading,
        pollPhase: {
          hostToBoottime: this.boottime,
          ...(this.monotonicToBoottimeNs === undefined
            ? {}
            : { monotonicToBoottimeNs: this.monotonicToBoottimeNs }),
          ...(this.readingOffsetsNs === undefined
            ? {}
            : { readingOffsetsNs: this.readingOffsetsNs }),
        },
      })
    }
    if (!c.fuelGauge.available)
      throw unavailable('fuel-gauge', 'the battery fuel gauge is not readable over adb')
    const cpu = this.cpuModel
    return fuelGaugeCollector({
      gauge: c.fuelGauge,
      schedule: cpu !== undefined,
      edges: endReading,
      ...(cpu === undefined || this.history === undefined
        ? {}
        : {
            components: {
              profile: cpu.powerProfile,
              history: this.history,
              voltageV: MODEL_VOLTAGE_V,
            },
          }),
    })
  }

  /** The execution collector, falling back (with a warning) when the preferred one is missing. */
  executionCollector(): ExecutionCollector | undefined {
    const want = this.options.execution
    if (want === 'none') return undefined
    const c = this.capabilities
    // 'unknown' (no flag seen): try, and let the tracer's own error say what is wrong.
    const traceable = c.app?.debuggable === true || c.app?.profileable !== 'no'
    if (want === 'simpleperf') {
      if (c.simpleperf.available && traceable)
        return simpleperfCollector({ frequencyHz: this.options.samplingHz })
      if (!traceable) {
        this.note(
          'W_NO_EXECUTION',
          `${this.options.app} is neither debuggable nor profileable: no per-method energy (add <profileable android:shell="true"/>)`,
        )
        return undefined
      }
      this.note(
        'W_EXECUTION_FALLBACK',
        'simpleperf is not available on this device; using ART sampling (am profile --sampling) instead',
      )
      return artTracingCollector()
    }
    if (!traceable) {
      throw new EnergyError({
        code: 'E_NOT_PROFILEABLE',
        message: `${this.options.app} is neither debuggable nor profileable, so it cannot be method-traced`,
        hint: 'add `<profileable android:shell="true"/>` to the manifest or use a debuggable build',
        details: { serial: this.serial },
      })
    }
    return artTracingCollector(
      want === 'art-instrumentation' ? { samplingIntervalUs: 'instrumentation' } : {},
    )
  }

  private note(code: `W_${string}`, message: string): void {
    if (!this.choiceWarnings.some((w) => w.code === code))
      this.choiceWarnings.push({ code, severity: 'warning', message })
  }

  /**
   * The baseline policy. A measured baseline is taken once per phone per run — by the first test
   * on the phone, whichever worker runs it — and shared through the run's folder (the caller
   * holds the lease, so no two workers measure it at once).
   */
  async baseline(progress?: Progress): Promise<WindowBaseline> {
    const b = this.options.baseline
    if (b === 'none') return { kind: 'none' }
    if (typeof b === 'number') return { kind: 'configured', powerW: b }
    if (this.baselineW === undefined) await this.prepare(progress)
    return {
      kind: 'measured',
      powerW: this.baselineW ?? 0,
      ...(this.baselineRails === undefined ? {} : { rails: this.baselineRails }),
      ...(this.baselineNoise === undefined ? {} : { noise: this.baselineNoise }),
    }
  }

  /**
   * What the first window on this phone learns once per run, whichever worker runs it: the idle
   * baseline (when it is measured) and the CPU model's calibration (a phone without rails) —
   * adopted from the run's folder when another worker has learnt them.
   */
  private async prepare(progress?: Progress): Promise<void> {
    this.measuring ??= (async () => {
      const shared = await this.readSharedState()
      if (shared !== undefined) return this.adopt(shared)
      if (this.options.baseline === 'measure') await this.measureBaseline(progress)
      await this.calibrate(progress)
      await this.resetHistory()
      await this.shareState()
    })().finally(() => (this.measuring = undefined))
    await this.measuring
  }

  /**
   * How long the idle window lasts: as configured, else long enough for ten sensor readings —
   * 1 s on ODPM rails (Perfetto polls every 100 ms), 3 s on slower sources (a fuel gauge updates
   * 1–5 times a second; powerstats reads only at the window's edges).
   */
  get idleWindowMs(): number {
    return this.options.baselineMs ?? (this.powerCollector().name === 'odpm' ? 1000 : 3000)
  }

  private async measureBaseline(progress?: Progress): Promise<void> {
    progress?.step('baseline', {
      line: `measuring the idle baseline of ${this.name} (${this.idleWindowMs} ms, once per phone)`,
    })
    await this.assertLease('starting the idle baseline')
    const release = this.claimWindow('idle baseline')
    // Its level is a median over sensor intervals, which needs no reading past the window's end:
    // the idle window stops without waiting for one (a whole poll period on a phone's first trace).
    const idle = await measureWindow(
      this.plan({ kind: 'none' }, undefined, undefined, this.powerCollector('extrapolate')),
      'idle baseline',
      () => sleep(this.idleWindowMs),
    ).finally(release)
    this.learnClocks(idle.power)
    // The median over the window's sensor intervals: start-up work still running at the
    // beginning of the idle window would raise the mean (and make every net figure negative).
    const idlePower = {
      window: idle.result.window,
      power: idle.power.kind === 'series' ? idle.power.series : idle.power.rails,
    }
    this.baselineW = idlePowerW(idlePower)
    this.baselineNoise = idleNoise(idlePower)
    this.idleUpdatesPerS = idle.result.sources.sensorRateHz
    if (idle.power.kind === 'rails') {
      const perRail = idleRailPowersW(idle.power.rails, idle.result.window)
      this.baselineRails = idle.power.rails.map((r) => ({
        rail: r.rail,
        powerW: perRail.get(r.rail) ?? 0,
        radio: RADIOS.has(
          componentOfRail({ rail: r.rail, ...(r.subsystem ? { subsystem: r.subsystem } : {}) }),
        ),
      }))
    }
  }

  /** What the first window on this phone learnt, for the run's other workers. */
  private async shareState(): Promise<void> {
    await this.writeSharedState({
      baselineW: this.baselineW ?? 0,
      ...(this.baselineRails === undefined ? {} : { baselineRails: this.baselineRails }),
      ...(this.baselineNoise === undefined ? {} : { baselineNoise: this.baselineNoise }),
      ...(this.calibration === undefined ? {} : { calibration: this.calibration }),
      ...(this.historyAnchor === undefined ? {} : { historyAnchor: this.historyAnchor }),
      ...(this.monotonicToBoottimeNs === undefined
        ? {}
        : { monotonicToBoottimeNs: this.monotonicToBoottimeNs }),
      ...(this.readingOffsetsNs === undefined ? {} : { readingOffsetsNs: this.readingOffsetsNs }),
    })
  }

  /**
   * Calibrates the CPU model of a phone without rails (once per phone per run, after its idle
   * baseline): kept from an earlier run when `calibration: 'keep'` finds one for this phone model
   * and build, else measured with busy loops; the profile as shipped with `calibration: 'none'`.
   */
  private async calibrate(progress?: Progress): Promise<void> {
    const cpu = this.cpuModel
    if (cpu === undefined) return
    const mode = this.options.calibration
    if (mode === 'none') {
      this.calibration = nominalCalibration(cpu.model, NOT_CALIBRATED_ON_PURPOSE)
      return
    }
    const kept = mode === 'keep' ? await this.keptCalibration() : undefined
    if (kept !== undefined) {
      this.calibration = kept
      return
    }
    const updatePeriodS =
      this.idleUpdatesPerS !== undefined && this.idleUpdatesPerS > 0 ? 1 / this.idleUpdatesPerS : 1
    const release = this.claimWindow('CPU model calibration')
    try {
      this.calibration = await calibrateCpuModel({
        device: this.device,
        model: cpu.model,
        gauge: this.capabilities.fuelGauge,
        boottime: this.boottime,
        phaseMs: calibrationPhaseMs(updatePeriodS),
        ...(progress === undefined ? {} : { progress }),
      })
    } catch (error) {
      // A phone that cannot run the loops still measures: its methods at the profile's currents.
      if (!isEnergyError(error) || error.code !== 'E_CALIBRATION_FAILED') throw error
      this.calibration = nominalCalibration(cpu.model, error.message)
    } finally {
      release()
    }
    if (mode === 'keep' && this.calibration.kind === 'active') await this.keepCalibration()
  }

  /**
   * Resets the battery history of a phone without rails (once per phone per run, with its
   * calibration), so that each window reads only what its own stretch added: the states of the
   * screen, radios and GPS its components are modelled from. A phone that refuses keeps going
   * without modelled components and says so once.
   */
  private async resetHistory(): Promise<void> {
    if (this.cpuModel === undefined) return
    try {
      this.historyAnchor = await resetBatterystats(this.device)
      this.history = batteryHistoryReader(this.historyAnchor)
    } catch (error) {
      if (!isEnergyError(error) || error.code === 'E_DEVICE_DISCONNECTED') throw error
      this.note(
        'W_NO_COMPONENTS',
        `the battery history could not be reset (${error.message.split('\n')[0] ?? ''}): no modelled screen, radio, GPS or Bluetooth energy on ${this.name}`,
      )
    }
  }

  /** Where `calibration: 'keep'` stores this phone's: beside the artifacts, by model and build. */
  private get calibrationFile(): string {
    const name = `${this.capabilities.model}__${this.capabilities.build}`.replace(/[^\w.-]+/g, '_')
    return join(dirname(this.options.artifactsDir), 'calibration', `${name}.json`)
  }

  private async keptCalibration(): Promise<CpuCalibration | undefined> {
    try {
      const kept: unknown = JSON.parse(await readFile(this.calibrationFile, 'utf8'))
      return usableKeptCalibration(kept, this.cpuModel?.model.clusters.length ?? 0)
    } catch {
      return undefined // none kept yet (or unreadable, or an earlier fit's: measured again)
    }
  }

  private async keepCalibration(): Promise<void> {
    if (this.calibration === undefined) return
    const file = this.calibrationFile
    await mkdir(dirname(file), { recursive: true })
    const kept: KeptCalibration = { ...this.calibration, fitVersion: CALIBRATION_FIT_VERSION }
    await writeFile(file, `${JSON.stringify(kept, null, 2)}\n`)
  }

  private adopt(shared: SharedPhoneState): void {
    this.calibration = shared.calibration
    this.historyAnchor = shared.historyAnchor
    this.history =
      shared.historyAnchor === undefined ? undefined : batteryHistoryReader(shared.historyAnchor)
    this.baselineW = shared.baselineW
    this.baselineRails = shared.baselineRails
    this.baselineNoise = shared.baselineNoise
    this.monotonicToBoottimeNs ??= shared.monotonicToBoottimeNs
    this.readingOffsetsNs = widerOffsets(this.readingOffsetsNs, shared.readingOffsetsNs)
  }

  /**
   * What is still on, who started it, and each radio's idle level are the phone's, not this
   * worker's (nor this test file's: Vitest makes the worker's fixtures again for each file): kept
   * in the run's folder beside the shared state, read before a window and written after it (both
   * inside the phone's lease, so workers never race on it).
   */
  private async adoptAsyncState(): Promise<void> {
    // A window whose end is still read in the background will tell it: this process has held the
    // phone since, so nobody else can have changed it, and the store may not say it yet.
    if (this.behindCount > 0) return
    await this.asyncShare
    const text = await this.store.readShared(this.phone, 'async')
    if (text === undefined) return
    try {
      const shared = JSON.parse(text) as SharedAsyncState
      this.asyncOrigins.clear()
      for (const [component, origin] of Object.entries(shared.origins))
        this.asyncOrigins.set(component, origin)
      for (const [rail, w] of Object.entries(shared.floorsW))
        this.railFloorsW.set(rail, Math.min(w, this.railFloorsW.get(rail) ?? w))
    } catch {
      // A torn file cannot happen (written whole, then renamed); anything else: keep our own.
    }
  }

  private shareAsyncState(): void {
    const state: SharedAsyncState = {
      origins: Object.fromEntries(this.asyncOrigins),
      floorsW: Object.fromEntries(this.railFloorsW),
    }
    const text = JSON.stringify(state)
    this.asyncShare = this.asyncShare.then(() =>
      // The run's folder is gone (the run is ending), or the store is down (the next window's
      // lease check says so): nothing left to share with.
      this.store.writeShared(this.phone, 'async', text).catch(() => undefined),
    )
  }

  private async readSharedState(): Promise<SharedPhoneState | undefined> {
    const text = await this.store.readShared(this.phone, 'baseline')
    try {
      return text === undefined ? undefined : (JSON.parse(text) as SharedPhoneState)
    } catch {
      return undefined // not measured yet on this phone in this run
    }
  }

  private async writeSharedState(state: SharedPhoneState): Promise<void> {
    await this.store.writeShared(this.phone, 'baseline', JSON.stringify(state))
  }

  /**
   * Runs one window with fresh collectors; remembers clock offsets the power source reported.
   * Once `signal` is aborted (its test ended with the measurement still running) the window is
   * abandoned, not attributed, and the measurement rejects with the signal's reason.
   */
  async measure<T>(
    label: string,
    baseline: WindowBaseline,
    body: () => Promise<T>,
    progress?: Progress,
    options: { readonly execution?: boolean; readonly signal?: AbortSignal } = {},
  ): Promise<WindowOutcome<T>> {
    const { signal } = options
    signal?.throwIfAborted()
    const flight: InFlightWindow = { release: this.claimWindow(label), window: undefined }
    this.inFlight = flight
    try {
      await this.freshClock()
      const plan = await this.withAppProcess(
        this.plan(
          baseline,
          options.execution === false ? undefined : this.executionCollector(),
          progress,
        ),
      )
      signal?.throwIfAborted()
      await this.assertLease(`starting window '${label}'`)
      const window = await openWindow(plan, label)
      flight.window = window
      // The test ended (while the recorders started, or the body ran): abandon, never attribute.
      const abandonIfEnded = async (): Promise<void> => {
        if (signal?.aborted !== true) return
        await window.abort()
        signal.throwIfAborted()
      }
      await abandonIfEnded()
      let value: T
      progress?.step('recording')
      try {
        value = await body()
      } catch (error) {
        await window.abort()
        throw error
      } finally {
        progress?.step('stopping')
      }
      await abandonIfEnded()
      const closed = await window.closeWithData()
      await this.assertLease(`accepting window '${label}'`)
      this.learnClocks(closed.power)
      return { ...closed, value, result: this.finish(closed.result) }
    } finally {
      if (this.inFlight === flight) this.inFlight = undefined
      flight.release()
      progress?.step('running')
    }
  }

  /**
   * Abandons the window `measure()` has open now, if any — its test ended while its body still
   * runs — and frees the phone for the next window. The body, which cannot be stopped, finds its
   * window gone when it ends.
   */
  async abandonWindow(): Promise<void> {
    const flight = this.inFlight
    this.inFlight = undefined
    await flight?.window?.abort().catch(() => undefined)
    flight?.release()
  }

  /**
   * Marks a window open on this phone until the returned function is called. Two windows at once
   * (`Promise.all` over `energy.measure()`) would each count the other's work and stop each
   * other's recorders, so the second is refused rather than queued: queuing would measure
   * something other than what the test's code says.
   */
  private claimWindow(label: string): () => void {
    const open = this.openLabel
    if (open !== undefined) {
      throw new EnergyError({
        code: 'E_WINDOW_ALREADY_OPEN',
        message: `window '${label}' was started while window '${open}' is still open on ${this.name}`,
        hint: 'A phone measures one window at a time: await each energy.measure()/repeat()/baseline() before starting the next (no Promise.all over them).',
        details: { serial: this.serial },
      })
    }
    this.openLabel = label
    let released = false
    return () => {
      if (released) return
      released = true
      this.openLabel = undefined
    }
  }

  /**
   * Remembers boottime − monotonic when a window's power data recorded it: later windows use it
   * for CLOCK_MONOTONIC method traces and to know when perfetto polls next. A window whose end
   * missed perfetto's predicted poll has the clock mapped again before the next one.
   */
  private learnClocks(power: PowerData): void {
    this.monotonicToBoottimeNs = power.monotonicToBoottimeNs ?? this.monotonicToBoottimeNs
    if (power.kind === 'rails') {
      this.readingOffsetsNs = widerOffsets(this.readingOffsetsNs, power.readingOffsetsNs)
    }
    if (power.warnings.some((w) => w.code === 'W_ODPM_END_UNCOVERED')) this.clockSuspect = true
  }

  /**
   * Maps host → boottime again when the mapping is older than 30 s or a window's end missed its
   * poll: a phone's crystal and the host's drift apart by up to ~100 ppm (3 ms in 30 s), which
   * would shift window edges and the predicted poll over a long run. ~10 round trips.
   */
  private async freshClock(): Promise<void> {
    if (!this.clockSuspect && mappingAgeNs(this.boottimeMapping) < CLOCK_REMAP_NS) return
    this.clockSuspect = false
    this.boottimeMapping = await mapDeviceClock(this.device, 'boottime')
  }

  /**
   * Adds the collector-choice warnings to a window's result, and tells the run's end (once per
   * process) that energy was measured.
   */
  private finish(result: MeasuredEnergyResult): MeasuredEnergyResult {
    if (!this.markedMeasured) {
      this.markedMeasured = true
      try {
        writeFileSync(join(this.target.runDir, MEASURED_MARKER), '')
      } catch {
        // The run's folder is gone (the run is ending): nothing left to tell.
      }
    }
    const fitted = this.withRunFit(result)
    const extra = this.choiceWarnings.filter((w) => !fitted.warnings.some((x) => x.code === w.code))
    return extra.length === 0 ? fitted : { ...fitted, warnings: [...extra, ...fitted.warnings] }
  }

  /**
   * On a phone without rails: keeps the window's observation in the run's folder (one file per
   * process, so workers sharing the phone see each other's) and attaches the model's fit over the
   * phone's windows so far. When the busy loops could not calibrate the phone and the windows can
   * tell every cluster's scale, later windows use the fit (a passive calibration).
   */
  private withRunFit(result: MeasuredEnergyResult): MeasuredEnergyResult {
    const source = result.sources.methodEnergy
    const observation = source?.observation
    const cpu = this.cpuModel
    if (source === undefined || observation === undefined || cpu === undefined) return result
    let observations: CpuModelObservation[]
    try {
      appendFileSync(this.observationsPath(process.pid), `${JSON.stringify(observation)}\n`)
      observations = this.readObservations()
    } catch {
      return result // the run's folder is gone (the run is ending)
    }
    const runFit = fitRunWindows(observations, cpu.model.clusters.length, this.calibration)
    const calibration = this.calibration
    if (
      calibration?.kind === 'nominal' &&
      calibration.why !== NOT_CALIBRATED_ON_PURPOSE &&
      runFit.clusterScales.every((s) => s !== null)
    ) {
      this.calibration = {
        kind: 'passive',
        scales: { clusters: runFit.clusterScales.map((s) => s ?? 1), active: 1 },
        clusterSe: runFit.clusterSe,
        why: `fitted over ${runFit.windows} windows of this run (${calibration.why ?? 'no active calibration'})`,
      }
    }
    return { ...result, sources: { ...result.sources, methodEnergy: { ...source, runFit } } }
  }

  /** This process's file of window observations for the phone, in the run's folder. */
  private observationsPath(pid: number): string {
    return join(this.target.runDir, `${this.observationsPrefix}${pid}.windows.json`)
  }

  private get observationsPrefix(): string {
    return `${phoneFileBase(this.phone)}.`
  }

  /** Every process's observations of this phone in this run. */
  private readObservations(): CpuModelObservation[] {
    const prefix = this.observationsPrefix
    const files = readdirSync(this.target.runDir).filter(
      (name) => name.startsWith(prefix) && name.endsWith('.windows.json'),
    )
    return files.flatMap((name) =>
      readFileSync(join(this.target.runDir, name), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as CpuModelObservation]
          } catch {
            return [] // a line another process is writing
          }
        }),
    )
  }

  /**
   * Wake locks the app still holds when the window closes (`dumpsys power`): energy its own
   * samples cannot show, since no app code runs while the CPU is merely kept awake.
   */
  private async wakeLockWarnings(appPid: string): Promise<EnergyWarning[]> {
    const dump = await shell(this.device, ['dumpsys', 'power']).catch(() => undefined)
    if (dump === undefined || dump.exitCode !== 0) return []
    let locks: HeldWakeLock[]
    try {
      locks = parseDumpsysPowerWakeLocks(dump.stdout)
    } catch {
      return [] // an unknown layout: say nothing rather than guess
    }
    return heldWakeLockWarnings(this.options.app, appPid, locks)
  }

  /** Opens a window that stays open until `close()` (the fixture's automatic window). */
  async open(label: string, baseline: WindowBaseline, progress?: Progress): Promise<OpenWindow> {
    const release = this.claimWindow(label)
    try {
      await this.freshClock()
      const plan = await this.withAppProcess(
        this.plan(baseline, this.executionCollector(), progress),
      )
      await this.assertLease(`starting window '${label}'`)
      const window = await openWindow(plan, label)
      progress?.step('recording')
      const done = (): void => {
        release()
        progress?.step('running')
      }
      const accepted = async (closed: {
        readonly result: MeasuredEnergyResult
        readonly power: PowerData
      }): Promise<MeasuredEnergyResult> => {
        await this.assertLease(`accepting window '${label}'`)
        this.learnClocks(closed.power)
        return this.finish(closed.result)
      }
      return {
        abort: () => window.abort().finally(done),
        close: async () => {
          progress?.step('stopping')
          try {
            return await accepted(await window.closeWithData())
          } finally {
            done()
          }
        },
        end: async () => {
          progress?.step('stopping')
          let data: Promise<{ readonly result: MeasuredEnergyResult; readonly power: PowerData }>
          try {
            ;({ data } = await window.endWithData())
          } finally {
            done()
          }
          return { result: this.readBehind(data.then(accepted)) }
        },
      }
    } catch (error) {
      release()
      throw error
    }
  }

  /**
   * Counts `result` among the windows whose ends are read in the background until it settles:
   * a window opened meanwhile is attributed after it (`latestAsyncState`), and the test's lease
   * is kept for this process until then (`releaseOrPark`).
   */
  private readBehind(result: Promise<MeasuredEnergyResult>): Promise<MeasuredEnergyResult> {
    this.behindCount++
    const settled = result.then(
      () => undefined,
      () => undefined,
    )
    this.behind = Promise.all([this.behind, settled]).then(() => {
      this.behindCount--
    })
    return result
  }

  /**
   * Adds the app's current pid, and drops remembered asynchronous origins of a process that has
   * died since (Android released what it held: listeners, wake locks, sockets). The pid is asked
   * while the recorders start: it matters only at the window's end and attribution.
   */
  private async withAppProcess(plan: WindowPlan): Promise<WindowPlan> {
    const pidOf = shell(this.device, ['pidof', this.options.app]).then(
      (result) =>
        result.exitCode === 0 ? result.stdout.trim().split(/\s+/)[0] || undefined : undefined,
      () => undefined,
    )
    await this.adoptAsyncState()
    // The windows whose ends are read in the background now tell the state before this one.
    const earlier = this.behind
    return {
      ...plan,
      carriedOver: new Map(this.asyncOrigins),
      railFloorsW: new Map(this.railFloorsW),
      latestAsyncState: async () => {
        const [pid] = await Promise.all([pidOf, earlier])
        for (const [component, origin] of this.asyncOrigins) {
          if (origin.pid !== undefined && origin.pid !== pid && !OUTLIVE_PROCESS.has(component))
            this.asyncOrigins.delete(component)
        }
        return {
          carriedOver: new Map(this.asyncOrigins),
          railFloorsW: new Map(this.railFloorsW),
          ...(pid === undefined ? {} : { appPid: pid }),
        }
      },
      atEnd: async () => {
        const pid = await pidOf
        return pid === undefined ? [] : this.wakeLockWarnings(pid)
      },
    }
  }

  /** Everything a window needs, with fresh collector instances. */
  plan(
    baseline: WindowBaseline,
    execution: ExecutionCollector | undefined,
    progress?: Progress,
    power: PowerCollector = this.powerCollector(),
  ): WindowPlan {
    const capacityMah = this.batteryCapacityMah
    return {
      device: this.device,
      deviceModel: this.capabilities.model,
      adbServer: adbServerName(this.phone),
      app: this.options.app,
      power,
      ...(execution === undefined ? {} : { execution }),
      boottime: this.boottime,
      ...(this.monotonicToBoottimeNs === undefined
        ? {}
        : { monotonicToBoottimeNs: this.monotonicToBoottimeNs }),
      baseline,
      ...(capacityMah === undefined
        ? {}
        : { batteryCapacityJ: units.mAhToJ(capacityMah, NOMINAL_VOLTAGE_V) }),
      charging: this.capabilities.charging.powered,
      debuggable: this.capabilities.app?.debuggable === true,
      ...(progress === undefined ? {} : { progress }),
      ...(this.artifactSink === undefined ? {} : { onArtifact: this.artifactSink }),
      carriedOver: new Map(this.asyncOrigins),
      railFloorsW: new Map(this.railFloorsW),
      cpuClusters: this.capabilities.cpuClusters,
      ...(this.cpuCoreCurrents === undefined ? {} : { cpuCoreCurrents: this.cpuCoreCurrents }),
      ...(this.cpuModel === undefined
        ? {}
        : {
            cpuModel: {
              ...this.cpuModel,
              calibration:
                this.calibration ??
                nominalCalibration(this.cpuModel.model, 'the phone has not been calibrated yet'),
            },
          }),
      ...(this.held === undefined || this.held.released || this.heldFor === undefined
        ? {}
        : { test: this.heldFor }),
      onAsyncState: (stillOn, ended, lowestW) => {
        for (const component of ended) this.asyncOrigins.delete(component)
        for (const [component, origin] of stillOn) this.asyncOrigins.set(component, origin)
        for (const [rail, w] of lowestW)
          this.railFloorsW.set(rail, Math.min(w, this.railFloorsW.get(rail) ?? w))
        this.shareAsyncState()
      },
    }
  }
}

/** A phone's asynchronous state, shared by the workers and files of a run (`adoptAsyncState`). */
interface SharedAsyncState {
  readonly origins: Readonly<Record<string, AsyncOrigin>>
  readonly floorsW: Readonly<Record<string, number>>
}

/**
 * The phones whose adb server answers now, when the pool spans several: a lab host that went
 * down mid-run gets no new test file (its running ones fail naming it). All of them when none
 * answers, so that the connection's own error says what is wrong.
 */
async function answering(phones: readonly PhoneAddress[]): Promise<readonly PhoneAddress[]> {
  if (oneAdbServer(phones)) return phones
  const servers = [...new Set(phones.map(adbServerName))]
  const up = await Promise.all(
    servers.map((name) => {
      const phone = phones.find((p) => adbServerName(p) === name) as PhoneAddress
      return isListening(phone.host, phone.port, 500)
    }),
  )
  const live = phones.filter((p) => up[servers.indexOf(adbServerName(p))] === true)
  return live.length > 0 ? live : phones
}

/**
 * `lease`, whose release first runs `before` (what the phone's state must say before another
 * worker takes it), then `release` (the lease's own, or parking it), then `then` (the test leaves
 * the progress line), once.
 */
function releasedWith(
  lease: Lease,
  before: () => Promise<void>,
  release: () => Promise<void>,
  then: () => void,
): Lease {
  let releasing: Promise<void> | undefined
  return {
    serial: lease.serial,
    path: lease.path,
    holder: lease.holder,
    fence: lease.fence,
    get released() {
      return lease.released
    },
    assertHeld: (doing) => lease.assertHeld(doing),
    relabel: (owner) => lease.relabel(owner),
    release: () =>
      (releasing ??= before()
        .catch(() => undefined)
        .then(release)
        .finally(then)),
  }
}

function unavailable(source: string, why: string): EnergyError {
  return new EnergyError({
    code: 'E_POWER_SOURCE_UNAVAILABLE',
    message: `power source '${source}' is not available: ${why}`,
    hint: "Set power: 'auto' to use the best source the device has, or use the virtual device.",
  })
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * `W_WAKELOCK_HELD` for the locks `appPid` holds: one warning per kind of lock (level and tag), so
 * the same tag acquired twice and never released reads as the one bug it is.
 */
export function heldWakeLockWarnings(
  app: string,
  appPid: string,
  locks: readonly HeldWakeLock[],
): EnergyWarning[] {
  const byLock = new Map<string, HeldWakeLock[]>()
  for (const l of locks) {
    if (String(l.pid) !== appPid) continue
    const key = `${l.level}\u0000${l.tag}`
    byLock.set(key, [...(byLock.get(key) ?? []), l])
  }
  return [...byLock.values()].map((held) => {
    const first = held[0] as HeldWakeLock
    const ages = held.flatMap((l) => (l.heldMs === undefined ? [] : [l.heldMs / 1000]))
    const count = held.length === 1 ? '' : `${held.length} × `
    const acquired =
      ages.length === 0 ? '' : ` (acquired ${ages.map((a) => a.toFixed(1)).join(' s, ')} s ago)`
    return {
      code: 'W_WAKELOCK_HELD',
      severity: 'warning',
      message: `${app} still holds ${count}${first.level} '${first.tag}'${acquired}: the CPU cannot suspend until it is released`,
    }
  })
}
