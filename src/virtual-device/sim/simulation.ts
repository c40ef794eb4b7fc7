/**
 * The simulated phone's physics and app runtime. When a UI action fires, its work is scheduled at
 * once into append-only records — execution slices per thread/core (with thread-CPU time), call
 * records, hardware intervals (radio bursts + tails, GPS, wakelocks, Bluetooth, sensors) and screen
 * state changes. Power is piecewise constant between record boundaries, so any window integrates
 * exactly (`groundTruth`). Deterministic for a seed and a sequence of (action, time) pairs.
 *
 * Scheduler (documented in docs/virtual-device.md): with the simple physics every thread is
 * pinned to one core when it first runs (`main`/`RenderThread` on the UI cluster, other threads
 * round-robin on cluster 0) and runs at its cluster's fixed busy frequency; with the phone physics
 * each root call goes to a core its cpuset allows (`placeThread`: threads migrate between calls)
 * and runs at the frequencies its cluster's governor decides (governor.ts). Each core runs its
 * work FIFO without preemption.
 *
 * With `physics: 'phone'` other processes share the cores (other-processes.ts): their bursts are
 * placed lazily, in time order with the app's periodic ticks, up to the device's now, on an idle
 * core of their cpuset (else the one free first); the app's work queues behind them like behind
 * its own. Threads the shell keeps busy (`yes`, `spin`) are placed the same way, a tick at a
 * time, with either physics.
 */
import { EnergyError } from '../../model/index.js'
import type { AppModel, HardwareUse, MethodCall, Screen, Widget, Work } from './app-model.js'
import { SimErrors } from './errors.js'
import {
  ACTIVITY_COST_MS,
  ANIMATION_MS,
  FRAME_COST_MS,
  INPUT_COST_MS,
  OTHER_THREADS,
  OtherActivity,
  RENDER_METHOD,
  type CpuSet,
  type OtherThread,
  type Physics,
} from './other-processes.js'
import { ClusterGovernor, type FreqPiece } from './governor.js'
import { accrue, fastestKhz, placeTask, settle, taskUtil, utilAt, type Pelt } from './placement.js'
import { DEFAULT_TAIL_MS, maToW, RAILS, type PowerModel } from './power-model.js'

/** A call as it ran (or will run): times on CLOCK_BOOTTIME, ns. */
export interface CallRecord {
  readonly id: number
  readonly method: string
  readonly signature: string
  readonly file: string
  readonly tid: number
  /** Parent call on the same thread, -1 for a root. */
  readonly parentId: number
  readonly depth: number
  readonly enterNs: number
  exitNs: number
  /** Thread-CPU time of the thread at entry/exit, ns since the thread started. */
  readonly enterThreadCpuNs: number
  exitThreadCpuNs: number
  /** Distinct methods on the stack from the root down to this call (inclusive attribution). */
  readonly stack: readonly string[]
  /** Set by force-stop for calls that never got to run. */
  cancelled: boolean
}

/** The GPU rendering one frame (phone physics); frames queue on the one GPU. */
export interface GpuWork {
  readonly startNs: number
  readonly endNs: number
  /** Whose frame: the app's (undefined) or another process's thread (the launcher's). */
  readonly other?: OtherThread
}

/** One stretch of a thread running its own code (self time of one call) on one core. */
export interface ExecSlice {
  /** The app's call whose self time this is; -1 for another process's work (`other`). */
  readonly callId: number
  readonly tid: number
  readonly core: number
  readonly cluster: number
  readonly startNs: number
  endNs: number
  /** The cluster's frequency while the slice ran, kHz. */
  readonly khz: number
  /** Per-core power at that frequency, W. */
  readonly coreW: number
  /** The thread of another process that ran (`callId` -1); undefined for the app's threads. */
  readonly other?: OtherThread
}

/** Where and how one stretch of a thread ran: an `ExecSlice` without its owner. */
type SlicePiece = Pick<ExecSlice, 'core' | 'cluster' | 'startNs' | 'endNs' | 'khz' | 'coreW'>

export type HardwareKind = 'wifi' | 'cellular' | 'gps' | 'wakelock' | 'bluetooth' | 'sensor'

/** Hardware in use, started by a call. `endNs` is Infinity while open (leaks end at force-stop). */
export interface HardwareRecord {
  readonly kind: HardwareKind
  readonly callId: number
  readonly method: string
  readonly startNs: number
  endNs: number
  /** Radios: tail after `endNs`, ns. */
  tailNs: number
  readonly tag?: string
  /** Screen whose exit closes the session (`until-screen-exit`). */
  readonly screenId?: string
}

export interface SimThread {
  readonly tid: number
  readonly name: string
  /** The core it last ran on (with the simple physics, the one it is pinned to). */
  core: number
  cluster: number
  /** Thread-CPU time scheduled so far, ns. */
  cpuNs: number
  /** When the work queued on it so far ends, ns (a thread runs on one core at a time). */
  busyUntilNs: number
  /** Its PELT-like utilisation (phone physics' placement, placement.ts). */
  readonly pelt: Pelt
}

/** A window's ground truth, what `vdev ground-truth` prints. */
export interface GroundTruth {
  readonly fromNs: number
  readonly toNs: number
  readonly durationNs: number
  /** Whole-device energy in the window, J (= Σ components = Σ rails). */
  readonly totalEnergyJ: number
  /** Energy of the suspend floor (always drawn), J. */
  readonly idleFloorEnergyJ: number
  readonly idleFloorPowerW: number
  /** Marginal CPU energy of the app's threads (core + shared cluster/active cost), J. */
  readonly appCpuEnergyJ: number
  /**
   * Marginal CPU energy of other processes (system_server, surfaceflinger, kernel threads,
   * services; `physics: 'phone'`), J: never the app's. 0 with the simple physics.
   */
  readonly otherCpuEnergyJ: number
  /**
   * GPU energy of the app's frames (GPU rail while it renders them, and the memory traffic they
   * cause), J: the app's, but no method's. 0 with the simple physics.
   */
  readonly appGpuEnergyJ: number
  /**
   * Other processes' CPU time and marginal CPU energy, sorted by process name, then pid (shell
   * processes busy on a CPU, `yes`, among them).
   */
  readonly processes: readonly ProcessTruth[]
  readonly components: Readonly<Record<SimComponent, number>>
  readonly rails: Readonly<Record<string, number>>
  /** Per method, sorted by method name. */
  readonly methods: readonly MethodTruth[]
}

export type SimComponent =
  'cpu' | 'gpu' | 'memory' | 'screen' | 'wifi' | 'cellular' | 'gps' | 'bluetooth' | 'other' | 'idle'

/** One other process in a window (`physics: 'phone'`). */
export interface ProcessTruth {
  readonly process: string
  readonly pid: number
  /** CPU time of its threads in the window, ns. */
  readonly cpuNs: number
  /** Its marginal CPU energy (same rule as the app's threads), J. */
  readonly cpuEnergyJ: number
  /** GPU energy of the frames it drew, with the memory traffic they caused, J. */
  readonly gpuEnergyJ: number
}

export interface MethodTruth {
  readonly method: string
  /** Calls entered inside the window. */
  readonly calls: number
  readonly selfCpuNs: number
  readonly inclusiveCpuNs: number
  /** Marginal CPU energy of the method's own execution, J. */
  readonly selfEnergyJ: number
  /** Marginal CPU energy of the method and everything it called on its thread, J. */
  readonly inclusiveEnergyJ: number
  /** Device energy it initiated asynchronously (radio active + tail, GPS, wakelock, BT, sensors), J. */
  readonly asyncEnergyJ: number
}

/**
 * What full ART method tracing costs the traced app: on a release runtime everything is
 * deoptimized (runs slower by `factor`) and every call pays for its enter and exit events.
 */
export interface TracingOverhead {
  /** Multiplier on each call's own CPU time. @default 1.5 */
  readonly factor: number
  /** Extra CPU time per call for the two trace events, ns. @default 1500 */
  readonly perCallNs: number
}

export const DEFAULT_TRACING_OVERHEAD: TracingOverhead = { factor: 1.5, perCallNs: 1500 }

export interface SimulationOptions {
  readonly model: AppModel
  readonly power: PowerModel
  /** Seeds the per-call CPU cost jitter. @default 1 */
  readonly seed?: number
  /** CLOCK_BOOTTIME now, ns. */
  readonly now: () => number
  /** Relative standard deviation of each call's CPU cost. @default 0.03 */
  readonly cpuJitter?: number
  /** Screen brightness at boot, 0–255. @default 102 */
  readonly brightness?: number
  /**
   * `phone`: other processes share the CPUs (docs/virtual-device.md, "Other processes");
   * `simple`: only the app runs, for exact arithmetic. @default 'simple'
   */
  readonly physics?: Physics
  /**
   * How much a core's power depends on the code it runs, at one frequency: each method (and each
   * other process's thread) draws its core's current × a seeded factor e^(σ·z), z standard normal
   * clipped to ±2, σ this value. Real cores draw 10–20% more on compute-bound code than on
   * memory-bound code at one frequency; neither a CPU model nor a cluster rail's split can see it.
   * @default 0 (a core's power depends on its frequency only)
   */
  readonly codePowerSpread?: number
}

interface ScreenState {
  readonly tNs: number
  readonly on: boolean
  readonly brightness: number
  /** Average luminance of what is shown, 0–1 (phone physics; see `DEFAULT_LUMINANCE`). */
  readonly luminance: number
}

/**
 * The average luminance a power profile's `screen.full` stands for, and what a screen that declares
 * none (or the launcher) shows: with it an OLED panel draws exactly the profile's figure.
 */
export const DEFAULT_LUMINANCE = 0.5

interface Periodic {
  nextNs: number
  readonly everyNs: number
  remaining: number
  readonly calls: readonly MethodCall[]
}

const COMPONENTS: readonly SimComponent[] = [
  'cpu',
  'gpu',
  'memory',
  'screen',
  'wifi',
  'cellular',
  'gps',
  'bluetooth',
  'other',
  'idle',
]

/** Slices per block of the index of their starts (`Simulation.visitSlices`). */
const SLICE_BLOCK = 256

/**
 * How far ahead a busy thread's (`spin`) running is placed at a time: one scheduler tick, so the
 * governor decides for it only at its start, which is never after the device's now.
 */
const SPIN_QUANTUM_NS = 4_000_000

/** A thread of another process that is busy all the time (`yes` from the shell). */
interface Spinner {
  readonly thread: OtherThread
  /** The CPUs it may run on now (its affinity). */
  readonly allowed: () => readonly number[]
  /** When its next stretch may start, ns. */
  nextNs: number
  /** When it stopped (killed), ns; Infinity while it runs. */
  stopNs: number
}

/** mulberry32: small, fast, deterministic. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Standard normal from a uniform source (Box–Muller). */
export function gaussian(next: () => number): number {
  const u = Math.max(next(), 1e-12)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next())
}

function simpleClass(method: string): string {
  const parts = method.split('.')
  const cls = parts[parts.length - 2] ?? 'Unknown'
  return cls.split('$')[0] ?? cls
}

export class Simulation {
  readonly model: AppModel
  readonly power: PowerModel
  readonly calls: CallRecord[] = []
  readonly slices: ExecSlice[] = []
  readonly hardware: HardwareRecord[] = []
  readonly screenStates: ScreenState[]
  /**
   * Running maxima of `slices[i].endNs` and `calls[i].enterNs` over i: non-decreasing, so a binary
   * search finds the first record that can reach into a window (records are appended almost in
   * time order; force-stop only shortens them, which keeps these bounds valid).
   */
  readonly sliceEndBound: number[] = []
  readonly callEnterBound: number[] = []
  /**
   * Per block of SLICE_BLOCK slices (by index), their earliest start: a window's reader skips the
   * blocks that start after the window (appended only almost in time order, slices give no index
   * past which all start later).
   */
  private readonly sliceBlockStartNs: number[] = []
  /** Same for hardware (`endNs + tailNs`), ignoring records created open-ended ... */
  readonly hardwareEndBound: number[] = []
  /** ... which are listed here instead and always scanned (leaks: few). */
  readonly openHardware: number[] = []
  /** Frames the GPU rendered (phone physics), in time order. */
  readonly gpuWork: GpuWork[] = []
  /** Every action fired, for test assertions: `tap feed-list @123ns`. */
  readonly actionLog: string[] = []
  /** CLOCK_BOOTTIME now, ns. */
  readonly now: () => number
  private random: () => number
  private readonly jitter: number
  /** Slow-down of full method tracing while `am profile` (non-sampling) runs; see setTracing. */
  private tracing: TracingOverhead | undefined
  private threads = new Map<string, SimThread>()
  /** Every thread any process of the app ever had, by tid (execution slices outlive a relaunch). */
  private readonly threadsByTid = new Map<number, SimThread>()
  private coreBusyUntil = new Map<number, number>()
  private nextLittleCore = 0
  private nextUiCore = 0
  private otherThreads = 0
  private periodics: Periodic[] = []
  private pending: { call: MethodCall; thread: string; readyNs: number }[] = []
  private pidValue: number | undefined
  private screenId: string | undefined
  private history: string[] = []
  private focused: Widget | undefined
  /** What the user typed into text fields since the app started (their `text` on screen). */
  private readonly typed = new Map<Widget, string>()
  private readonly checkpoints: { tNs: number; totalJ: number; rails: Record<string, number> }[] =
    []
  readonly physics: Physics
  /** Other processes' timeline (`physics: 'phone'`). */
  private readonly others: OtherActivity | undefined
  /** Seeds the other processes (and the app's frames), apart from the app's own jitter. */
  private readonly otherRandom: () => number
  /** Per core, when the other processes' work placed so far ends (survives a force-stop). */
  private readonly otherBusyUntil = new Map<number, number>()
  private readonly otherThreadsByTid = new Map<number, OtherThread>()
  /** Per other thread, when its work placed so far ends. */
  private readonly otherThreadBusyUntil = new Map<number, number>()
  /** Per other thread, its utilisation and the core it last ran on (the app's placement sees them). */
  private readonly otherPelt = new Map<number, { readonly pelt: Pelt; core: number }>()
  /** Busy threads started from the shell (`spin`), placed lazily like the other processes. */
  private readonly spinners: Spinner[] = []
  /** The fastest cluster's top frequency, kHz: utilisation is relative to it. */
  private readonly maxKhz: number
  /**
   * Each cluster's frequency decisions (governor.ts): a schedutil-like governor with the phone
   * physics, the one fixed busy frequency with the simple physics.
   */
  readonly governors: readonly ClusterGovernor[]

  constructor(options: SimulationOptions) {
    this.model = options.model
    this.power = options.power
    this.now = options.now
    this.random = prng(options.seed ?? 1)
    this.jitter = options.cpuJitter ?? 0.03
    this.screenStates = [
      { tNs: 0, on: true, brightness: options.brightness ?? 102, luminance: DEFAULT_LUMINANCE },
    ]
    this.physics = options.physics ?? 'simple'
    this.otherRandom = prng(((options.seed ?? 1) * 2654435761) ^ 0x5bd1e995)
    this.others =
      this.physics === 'phone' ? new OtherActivity(this.otherRandom, options.now()) : undefined
    this.governors = this.power.clusters.map(
      (c) => new ClusterGovernor(c, options.now(), this.physics !== 'phone'),
    )
    this.maxKhz = fastestKhz(this.power.clusters)
    this.codeSpread = options.codePowerSpread ?? 0
    this.codeSeed = options.seed ?? 1
  }

  private readonly codeSpread: number
  private readonly codeSeed: number
  private readonly codeFactors = new Map<string, number>()

  /** The power factor of the code a slice runs (`codePowerSpread`), by method or thread name. */
  private codeFactor(slice: ExecSlice): number {
    if (this.codeSpread === 0) return 1
    const key = slice.other?.comm ?? this.calls[slice.callId]?.method ?? ''
    let factor = this.codeFactors.get(key)
    if (factor === undefined) {
      let h = (this.codeSeed * 2654435761) >>> 0
      for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619) >>> 0
      const z = Math.max(-2, Math.min(2, gaussian(prng(h))))
      factor = Math.exp(this.codeSpread * z)
      this.codeFactors.set(key, factor)
    }
    return factor
  }

  // ── app lifecycle ────────────────────────────────────────────────────────────────────────

  /** Pid of the running app process, undefined when stopped. */
  get pid(): number | undefined {
    return this.pidValue
  }

  /** Id of the screen in front, undefined when the launcher (home) is shown. */
  get currentScreenId(): string | undefined {
    return this.screenId
  }

  currentScreen(): Screen | undefined {
    return this.model.screens.find((s) => s.id === this.screenId)
  }

  get screenOn(): boolean {
    return this.lastScreenState().on
  }

  get brightness(): number {
    return this.lastScreenState().brightness
  }

  /** Threads of the running process (main first). */
  threadList(): SimThread[] {
    return [...this.threads.values()].sort((a, b) => a.tid - b.tid)
  }

  /** The thread with this tid, also from an earlier process of the app (the latest if reused). */
  threadByTid(tid: number): SimThread | undefined {
    return this.threadsByTid.get(tid)
  }

  /** The thread name (`comm`) of any thread that ran: the app's, or another process's. */
  commOf(tid: number): string | undefined {
    return this.threadsByTid.get(tid)?.name ?? this.otherThreadsByTid.get(tid)?.comm
  }

  /** Starts the app (cold start) with process id `pid` and shows `screenId` or the initial screen. */
  launch(pid: number, screenId?: string): void {
    const t = this.now()
    this.materialize(t)
    this.pidValue = pid
    this.threads = new Map()
    this.otherThreads = 0
    this.thread('main')
    this.history = []
    this.actionLog.push(`launch pid=${pid} @${t}`)
    this.activityChange(t)
    this.show(screenId ?? this.model.initialScreen ?? this.model.screens[0]?.id, t)
    this.drain()
  }

  /**
   * Work scheduled from now on runs slowed by `overhead` (full method tracing started), or at full
   * speed again (`undefined`: tracing stopped).
   */
  setTracing(overhead: TracingOverhead | undefined): void {
    this.materialize(this.now())
    this.tracing = overhead
  }

  /** When the named thread's core has finished all work queued so far, boottime ns. */
  threadIdleAtNs(name: string): number {
    const thread = this.threads.get(name)
    const busy =
      thread === undefined
        ? 0
        : this.physics === 'phone'
          ? thread.busyUntilNs
          : (this.coreBusyUntil.get(thread.core) ?? 0)
    return Math.max(busy, this.now())
  }

  /** Brings a running app to the front (warm start), showing its last or initial screen. */
  resume(screenId?: string): void {
    const t = this.now()
    this.materialize(t)
    this.actionLog.push(`resume @${t}`)
    this.activityChange(t)
    this.show(
      screenId ?? this.history.pop() ?? this.model.initialScreen ?? this.model.screens[0]?.id,
      t,
    )
    this.drain()
  }

  /** `am force-stop`: ends the process, cancels queued work and closes every open session. */
  forceStop(): void {
    const t = this.now()
    this.materialize(t)
    this.typed.clear()
    this.focused = undefined
    this.actionLog.push(`force-stop @${t}`)
    for (const s of this.slices) {
      if (s.endNs > t && s.callId >= 0) s.endNs = Math.max(s.startNs, t)
    }
    for (const c of this.calls) {
      if (c.enterNs >= t && c.exitNs > c.enterNs) c.cancelled = true
      if (c.exitNs > t) {
        c.exitNs = Math.max(c.enterNs, t)
        c.exitThreadCpuNs = c.enterThreadCpuNs
      }
    }
    for (const h of this.hardware) {
      if (h.endNs > t) h.endNs = Math.max(h.startNs, t)
      if (h.startNs >= t) h.tailNs = 0
    }
    this.coreBusyUntil.clear()
    // Other processes' work already placed still occupies its cores.
    for (const [core, until] of this.otherBusyUntil) {
      if (until > t) this.coreBusyUntil.set(core, until)
    }
    this.tracing = undefined
    this.periodics = []
    this.pending = []
    this.pidValue = undefined
    if (this.screenId !== undefined) this.leaveScreen(t)
    this.screenId = undefined
    this.history = []
    this.focused = undefined
  }

  // ── input ────────────────────────────────────────────────────────────────────────────────

  /** Topmost widget of the current screen containing (x, y), or undefined. */
  hitTest(x: number, y: number): Widget | undefined {
    const widgets = this.currentScreen()?.widgets ?? []
    for (let i = widgets.length - 1; i >= 0; i--) {
      const w = widgets[i]
      if (w === undefined) continue
      const [l, t, r, b] = w.bounds
      if (x >= l && x < r && y >= t && y < b) return w
    }
    return undefined
  }

  /** `input tap x y`: fires the hit widget's tap work. Returns the widget hit, if any. */
  tap(x: number, y: number): Widget | undefined {
    if (!this.screenOn) return undefined
    this.inputEvent(this.now())
    if (this.pidValue === undefined) return undefined
    const widget = this.hitTest(x, y)
    if (widget === undefined) return undefined
    const t = this.now()
    if (widget.clickable === true) this.others?.animate(t, ANIMATION_MS.tap)
    this.actionLog.push(`tap ${widget.contentDesc ?? widget.resourceId ?? '?'} @${t}`)
    if (widget.className === 'android.widget.EditText') this.focused = widget
    const work = widget.actions?.tap
    if (work !== undefined) this.fire(work, t)
    return widget
  }

  /** The text a widget shows now: what was typed into it, else the model's text. */
  textOf(widget: Widget): string {
    return this.typed.get(widget) ?? widget.text ?? ''
  }

  /** Empties the focused text field (UiAutomator's `setText("")`); false when none has focus. */
  clearText(): boolean {
    const widget = this.focused
    if (widget === undefined || this.pidValue === undefined) return false
    this.typed.set(widget, '')
    return true
  }

  /** `input text`: appends to the focused field and fires its text work. */
  typeText(text: string): boolean {
    const widget = this.focused
    if (widget === undefined || this.pidValue === undefined) return false
    const t = this.now()
    this.inputEvent(t)
    this.others?.animate(t, ANIMATION_MS.text)
    this.typed.set(widget, this.textOf(widget) + text)
    this.actionLog.push(`text ${JSON.stringify(text)} @${t}`)
    const work = widget.actions?.text
    if (work !== undefined) this.fire(work, t)
    return true
  }

  /** `input keyevent`: BACK (4), HOME (3), POWER (26), SLEEP (223), WAKEUP (224). */
  keyevent(code: number): void {
    const t = this.now()
    this.materialize(t)
    this.actionLog.push(`keyevent ${code} @${t}`)
    this.inputEvent(t)
    if ((code === 3 || code === 4) && this.screenId !== undefined) this.activityChange(t)
    if (code === 26) this.setScreen(t, !this.screenOn, this.brightness)
    else if (code === 223) this.setScreen(t, false, this.brightness)
    else if (code === 224) this.setScreen(t, true, this.brightness)
    else if (code === 3 && this.screenId !== undefined) {
      this.history.push(this.screenId)
      this.leaveScreen(t)
      this.screenId = undefined
    } else if (code === 4 && this.screenId !== undefined) {
      const back = this.history.pop()
      this.leaveScreen(t)
      this.screenId = undefined
      if (back !== undefined) this.enterScreen(back, t)
      this.drain()
    }
  }

  /** `settings put system screen_brightness N`. */
  setBrightness(value: number): void {
    const t = this.now()
    this.setScreen(t, this.screenOn, Math.max(0, Math.min(255, Math.round(value))))
  }

  // ── scheduling ───────────────────────────────────────────────────────────────────────────

  /** Runs `work` as if a UI action fired now (also what taps and screen entries do). */
  fire(work: Work, t = this.now()): void {
    this.materialize(t)
    if (work.brightness !== undefined) this.setScreen(t, this.screenOn, work.brightness)
    for (const call of work.calls ?? []) this.dispatch(call, 'main', t)
    if (work.periodic !== undefined) {
      this.periodics.push({
        nextNs: t + work.periodic.everyMs * 1e6,
        everyNs: work.periodic.everyMs * 1e6,
        remaining: work.periodic.count ?? Number.POSITIVE_INFINITY,
        calls: work.periodic.calls,
      })
    }
    if (work.navigate !== undefined) {
      this.activityChange(t)
      this.show(work.navigate, t)
    }
    this.drain()
  }

  /** Schedules periodic ticks due at or before `tNs` (called before every action and query). */
  materialize(tNs: number): void {
    // Other processes only up to now: what they do later must not hold up the app's next action.
    const othersUntilNs = Math.min(tNs, this.now())
    for (;;) {
      let next: Periodic | undefined
      for (const p of this.periodics) {
        if (p.remaining > 0 && p.nextNs <= tNs && (next === undefined || p.nextNs < next.nextNs)) {
          next = p
        }
      }
      const otherNs = this.others?.nextNs() ?? Number.POSITIVE_INFINITY
      const spinner = this.nextSpinner(othersUntilNs)
      if (
        spinner !== undefined &&
        spinner.nextNs <= otherNs &&
        (next === undefined || spinner.nextNs <= next.nextNs)
      ) {
        this.runSpinner(spinner)
        continue
      }
      if (otherNs <= othersUntilNs && (next === undefined || otherNs < next.nextNs)) {
        this.runOther()
        continue
      }
      if (next === undefined) break
      for (const call of next.calls) this.dispatch(call, 'main', next.nextNs)
      this.drain()
      next.nextNs += next.everyNs
      next.remaining -= 1
    }
  }

  // ── other processes (physics: 'phone') ───────────────────────────────────────────────────

  /** system_server reads and dispatches an input event. */
  private inputEvent(t: number): void {
    if (this.others === undefined) return
    this.materialize(t)
    this.placeOther(OTHER_THREADS.inputReader, t, INPUT_COST_MS.reader)
    this.placeOther(OTHER_THREADS.inputDispatcher, t, INPUT_COST_MS.dispatcher)
  }

  /** system_server starts, resumes or leaves an activity; the transition animates. */
  private activityChange(t: number): void {
    if (this.others === undefined) return
    this.materialize(t)
    this.placeOther(OTHER_THREADS.binder, t, ACTIVITY_COST_MS.binder)
    this.placeOther(OTHER_THREADS.anim, t, ACTIVITY_COST_MS.anim)
    this.others.animate(t, ANIMATION_MS.activity)
  }

  /** The next event of the other processes' timeline. */
  private runOther(): void {
    const event = this.others?.take()
    if (event === undefined) return
    if (event.kind === 'burst') {
      this.placeOther(event.thread, event.tNs, event.cpuMs)
      return
    }
    if (!this.screenOn) return
    // A frame: the app's RenderThread draws when its screen is in front (the launcher's
    // otherwise), then surfaceflinger composites.
    let drawnNs: number
    const ms = this.others?.jittered(FRAME_COST_MS.renderThread) ?? 0
    if (this.pidValue !== undefined && this.screenId !== undefined) {
      const random = this.random
      this.random = this.otherRandom
      try {
        drawnNs = this.runRoot(
          { method: RENDER_METHOD, selfCpuMs: ms, thread: 'RenderThread' },
          'RenderThread',
          event.tNs,
          true,
        )
      } finally {
        this.random = random
      }
    } else {
      drawnNs = this.placeOther(OTHER_THREADS.launcherRender, event.tNs, ms, false)
    }
    // The GPU renders what the RenderThread recorded (frames queue on the one GPU).
    const gpuStart = Math.max(drawnNs, this.gpuWork.at(-1)?.endNs ?? 0)
    this.gpuWork.push({
      startNs: gpuStart,
      endNs: gpuStart + this.power.gpu.frameMs * 1e6,
      ...(this.pidValue !== undefined && this.screenId !== undefined
        ? {}
        : { other: OTHER_THREADS.launcherRender }),
    })
    this.placeOther(OTHER_THREADS.surfaceflinger, drawnNs, FRAME_COST_MS.surfaceflinger)
  }

  /** The cores a cpuset allows. */
  private coresOf(cpus: CpuSet): number[] {
    const clusters = this.power.clusters.filter(
      (c) =>
        cpus === 'all' ||
        c.index === 0 ||
        (cpus === 'foreground' && c.index === this.power.uiCluster),
    )
    return clusters.flatMap((c) => Array.from({ length: c.cores }, (_, i) => c.firstCore + i))
  }

  /**
   * Runs `cpuMs` (at the reference frequency) of another process's thread from `t` on an idle core
   * of its cpuset (a seeded pick among the idle ones), else on the core that frees first. Returns
   * when it ends, ns.
   */
  private placeOther(thread: OtherThread, readyNs: number, cpuMs: number, jitter = true): number {
    // A thread runs on one core at a time: a burst waits for its thread's previous one.
    const t = Math.max(readyNs, this.otherThreadBusyUntil.get(thread.tid) ?? 0)
    const core = this.pickOtherCore(this.coresOf(thread.cpus), t)
    const ms = jitter ? (this.others?.jittered(cpuMs) ?? cpuMs) : cpuMs
    const start = Math.max(t, this.coreBusyUntil.get(core) ?? 0)
    const work = Math.max(1, ms * 1e6)
    return this.runOtherOn(thread, core, start, (cluster) =>
      cluster.run(start, work, this.power.referenceFreqKhz),
    )
  }

  /** An idle core of `cores` at `t` (a seeded pick among them), else the one that frees first. */
  private pickOtherCore(cores: readonly number[], t: number): number {
    const idle = cores.filter((c) => (this.coreBusyUntil.get(c) ?? 0) <= t)
    if (idle.length > 0) return idle[Math.floor(this.otherRandom() * idle.length)] ?? idle[0] ?? 0
    return cores.reduce((a, b) =>
      (this.coreBusyUntil.get(b) ?? 0) < (this.coreBusyUntil.get(a) ?? 0) ? b : a,
    )
  }

  /**
   * Another process's thread runs on `core` from `start` for the stretches its cluster's governor
   * gives (`pieces`); the core and the thread are busy until their end, which it returns.
   */
  private runOtherOn(
    thread: OtherThread,
    core: number,
    start: number,
    pieces: (governor: ClusterGovernor) => FreqPiece[],
  ): number {
    const cluster = this.clusterOfCore(core)
    this.otherThreadsByTid.set(thread.tid, thread)
    const state = this.otherPelt.get(thread.tid) ?? { pelt: { util: 0, atNs: start, est: 0 }, core }
    state.core = core
    this.otherPelt.set(thread.tid, state)
    const governor = this.governors[cluster]
    const end = this.runPieces(
      core,
      cluster,
      start,
      governor === undefined ? [] : pieces(governor),
      state.pelt,
      (piece) => ({ callId: -1, tid: thread.tid, other: thread, ...piece }),
    )
    this.coreBusyUntil.set(core, end)
    this.otherBusyUntil.set(core, end)
    this.otherThreadBusyUntil.set(thread.tid, end)
    return end
  }

  private clusterOfCore(core: number): number {
    return (
      this.power.clusters.find((c) => core >= c.firstCore && core < c.firstCore + c.cores)?.index ??
      0
    )
  }

  // ── busy threads from the shell (`yes`) ──────────────────────────────────────────────────

  /**
   * Another process's thread that is busy all the time (`yes > /dev/null`) starts now, on one of
   * the cores `allowed()` returns: the core it ran on while that stays allowed (a busy thread is
   * not migrated without a reason), else an idle one (a seeded pick), else the one that frees
   * first. Placed lazily up to the device's now, a scheduler tick at a time, in time order with
   * the other processes; work already queued on its core runs first (FIFO, no preemption).
   * `stop()` ends it at the then-now.
   */
  spin(thread: OtherThread, allowed: () => readonly number[]): { stop(): void } {
    const t = this.now()
    this.materialize(t)
    const spinner: Spinner = { thread, allowed, nextNs: t, stopNs: Number.POSITIVE_INFINITY }
    this.spinners.push(spinner)
    this.otherThreadsByTid.set(thread.tid, thread)
    // Its first stretch at once: from now on its core is busy for the app's placement too.
    this.materialize(t)
    return { stop: () => this.stopSpinner(spinner) }
  }

  /** The spinner due first at or before `untilNs`. */
  private nextSpinner(untilNs: number): Spinner | undefined {
    let first: Spinner | undefined
    for (const s of this.spinners) {
      if (
        s.nextNs <= untilNs &&
        s.nextNs < s.stopNs &&
        (first === undefined || s.nextNs < first.nextNs)
      ) {
        first = s
      }
    }
    return first
  }

  private runSpinner(spinner: Spinner): void {
    const all = this.coresOf('all')
    const allowed = spinner.allowed().filter((c) => all.includes(c))
    const cores = allowed.length > 0 ? allowed : all
    const previous = this.otherPelt.get(spinner.thread.tid)?.core
    const core =
      previous !== undefined && cores.includes(previous)
        ? previous
        : this.pickOtherCore(cores, spinner.nextNs)
    const start = Math.max(spinner.nextNs, this.coreBusyUntil.get(core) ?? 0)
    const end = Math.min(start + SPIN_QUANTUM_NS, spinner.stopNs)
    if (end <= start) {
      spinner.nextNs = Number.POSITIVE_INFINITY
      return
    }
    spinner.nextNs = this.runOtherOn(spinner.thread, core, start, (cluster) =>
      cluster.runUntil(start, end),
    )
  }

  /** Ends a spinner now: what was placed of it past now is cut there, and its core freed. */
  private stopSpinner(spinner: Spinner): void {
    if (Number.isFinite(spinner.stopNs)) return
    const t = this.now()
    this.materialize(t)
    spinner.stopNs = t
    const { tid } = spinner.thread
    let placedUntil = t
    this.visitSlices(t, Number.POSITIVE_INFINITY, (s) => {
      if (s.tid !== tid || s.other === undefined || s.endNs <= t) return
      placedUntil = Math.max(placedUntil, s.endNs)
      s.endNs = Math.max(s.startNs, t)
    })
    const core = this.otherPelt.get(tid)?.core
    for (const busy of [this.coreBusyUntil, this.otherBusyUntil]) {
      if (core !== undefined && busy.get(core) === placedUntil) busy.set(core, t)
    }
    if (this.otherThreadBusyUntil.get(tid) === placedUntil) this.otherThreadBusyUntil.set(tid, t)
    this.spinners.splice(this.spinners.indexOf(spinner), 1)
  }

  /**
   * Runs `workRefNs` (CPU work in ns at the reference frequency) on `core` from `startNs` at the
   * frequencies its cluster's governor decides, one execution slice per frequency, and accrues the
   * running thread's utilisation (`pelt`); returns the end.
   */
  private runOn(
    core: number,
    cluster: number,
    startNs: number,
    workRefNs: number,
    pelt: Pelt,
    slice: (piece: SlicePiece) => ExecSlice,
  ): number {
    const governor = this.governors[cluster]
    const pieces = governor?.run(startNs, workRefNs, this.power.referenceFreqKhz) ?? []
    return this.runPieces(core, cluster, startNs, pieces, pelt, slice)
  }

  /** One execution slice per stretch at one frequency (`pieces`, from `startNs`); returns the end. */
  private runPieces(
    core: number,
    cluster: number,
    startNs: number,
    pieces: readonly FreqPiece[],
    pelt: Pelt,
    slice: (piece: SlicePiece) => ExecSlice,
  ): number {
    const corePowerMa = this.power.clusters[cluster]?.corePowerMa ?? []
    for (const p of pieces) {
      accrue(pelt, p.startNs, p.endNs, p.khz, this.maxKhz)
      this.pushSlice(
        slice({
          core,
          cluster,
          startNs: p.startNs,
          endNs: p.endNs,
          khz: p.khz,
          coreW: maToW(this.power, corePowerMa[p.step] ?? 0),
        }),
      )
    }
    return pieces.at(-1)?.endNs ?? startNs
  }

  private show(id: string | undefined, t: number): void {
    if (id === undefined) return
    if (this.screenId !== undefined) {
      this.history.push(this.screenId)
      this.leaveScreen(t)
    }
    this.enterScreen(id, t)
  }

  private enterScreen(id: string, t: number): void {
    this.screenId = id
    this.focused = undefined
    const screen = this.currentScreen()
    this.setScreen(t, this.screenOn, this.brightness, screen?.luminance ?? DEFAULT_LUMINANCE)
    if (screen?.onEnter !== undefined) {
      const work = screen.onEnter
      for (const call of work.calls ?? []) this.dispatch(call, 'main', t)
      if (work.brightness !== undefined) this.setScreen(t, this.screenOn, work.brightness)
    }
  }

  private leaveScreen(t: number): void {
    // The launcher (home) shows what a screen without a declared luminance shows.
    this.setScreen(t, this.screenOn, this.brightness, DEFAULT_LUMINANCE)
    for (const h of this.hardware) {
      if (h.screenId === this.screenId && h.endNs > t) h.endNs = Math.max(h.startNs, t)
    }
  }

  private setScreen(
    t: number,
    on: boolean,
    brightness: number,
    luminance = this.lastScreenState().luminance,
  ): void {
    const last = this.lastScreenState()
    if (last.on === on && last.brightness === brightness && last.luminance === luminance) return
    const state = { tNs: Math.max(t, last.tNs), on, brightness, luminance }
    // Several changes at one instant (leaving a screen for the next) are one state.
    if (state.tNs === last.tNs && this.screenStates.length > 1) {
      this.screenStates[this.screenStates.length - 1] = state
    } else this.screenStates.push(state)
  }

  private lastScreenState(): ScreenState {
    const s = this.screenStates[this.screenStates.length - 1]
    if (s === undefined) throw new Error('screen state list is never empty')
    return s
  }

  /** Posts a root call to its thread, or each repetition to the next thread of its pool. */
  private dispatch(call: MethodCall, defaultThread: string, readyNs: number): void {
    const pool = call.pool
    if (pool === undefined) {
      this.post(call, call.thread ?? defaultThread, readyNs)
      return
    }
    const { pool: _pool, ...single } = call
    for (let i = 0; i < (call.repeat ?? 1); i++) {
      this.post({ ...single, repeat: 1 }, `${pool.name}-thread-${(i % pool.threads) + 1}`, readyNs)
    }
  }

  private post(call: MethodCall, thread: string, readyNs: number): void {
    if (this.pidValue === undefined) return
    this.pending.push({ call, thread, readyNs })
  }

  /** Runs posted root calls in posting order; each may post more (work for other threads). */
  private drain(): void {
    while (this.pending.length > 0) {
      const next = this.pending.shift()
      if (next === undefined) break
      this.runRoot(next.call, next.thread, next.readyNs)
    }
  }

  /** Runs a root call on its thread's core once the core is free; returns when it ends. */
  private runRoot(call: MethodCall, threadName: string, readyNs: number, native = false): number {
    const thread = this.thread(threadName)
    if (this.physics === 'phone') this.placeThread(thread, Math.max(readyNs, thread.busyUntilNs))
    const start = Math.max(readyNs, this.coreBusyUntil.get(thread.core) ?? 0, thread.busyUntilNs)
    const end = this.runCall(call, thread, start, -1, 0, [], native)
    if (this.physics === 'phone') settle(thread.pelt)
    this.coreBusyUntil.set(thread.core, end)
    thread.busyUntilNs = end
    return end
  }

  /**
   * The phone physics' scheduler picks the core a thread's next piece of work runs on at its
   * wake-up (it may migrate between pieces), EAS-like (placement.ts): from the thread's and each
   * core's utilisation, the idle core where it fits with the lowest energy estimate, the previous
   * core within a margin. The top app's UI threads (`main`, `RenderThread`) search from the UI
   * cluster up. While the app is not in front its cpuset is `background` (little cores).
   */
  private placeThread(thread: SimThread, readyNs: number): void {
    const inFront = this.screenId !== undefined
    const ui = thread.name === 'main' || thread.name === 'RenderThread'
    const pick = placeTask({
      clusters: this.power.clusters,
      allowed: this.power.clusters.filter((c) => inFront || c.index === 0).map((c) => c.index),
      startCluster: ui ? this.power.uiCluster : 0,
      taskUtil: taskUtil(thread.pelt, readyNs),
      coreUtil: this.coreUtils(readyNs, thread),
      freeAtNs: (core) => this.coreBusyUntil.get(core) ?? 0,
      readyNs,
      prevCore: thread.core,
    })
    thread.core = pick.core
    thread.cluster = pick.cluster
  }

  /**
   * Each core's utilisation at `tNs` without `except`: the utilisations of the threads that last
   * ran on it (the kernel's runqueue util_avg keeps a sleeping task's decaying contribution).
   */
  private coreUtils(tNs: number, except: SimThread): number[] {
    const utils: number[] = []
    const add = (core: number, u: number): void => {
      utils[core] = (utils[core] ?? 0) + u
    }
    for (const t of this.threads.values()) if (t !== except) add(t.core, utilAt(t.pelt, tNs))
    for (const o of this.otherPelt.values()) add(o.core, utilAt(o.pelt, tNs))
    return utils
  }

  private thread(name: string): SimThread {
    const existing = this.threads.get(name)
    if (existing !== undefined) return existing
    const pid = this.pidValue ?? 0
    const ui = name === 'main' || name === 'RenderThread'
    const cluster = this.power.clusters[ui ? this.power.uiCluster : 0]
    const clusterIndex = cluster?.index ?? 0
    const cores = cluster?.cores ?? 1
    const offset = ui ? this.nextUiCore++ % cores : this.nextLittleCore++ % cores
    const thread: SimThread = {
      tid: name === 'main' ? pid : pid + ++this.otherThreads,
      name,
      core: (cluster?.firstCore ?? 0) + offset,
      cluster: clusterIndex,
      cpuNs: 0,
      busyUntilNs: 0,
      pelt: { util: 0, atNs: 0, est: 0 },
    }
    this.threads.set(name, thread)
    this.threadsByTid.set(thread.tid, thread)
    return thread
  }

  private runCall(
    call: MethodCall,
    thread: SimThread,
    startNs: number,
    parentId: number,
    depth: number,
    parentStack: readonly string[],
    native = false,
  ): number {
    const cluster = this.power.clusters[thread.cluster]
    const freqKhz = cluster?.busyFreqKhz ?? 1
    const coreW = maToW(this.power, cluster?.busyCoreMa ?? 0)
    const stack = parentStack.includes(call.method) ? parentStack : [...parentStack, call.method]
    let t = startNs
    for (let rep = 0; rep < (call.repeat ?? 1); rep++) {
      const factor = Math.max(0.2, 1 + this.jitter * gaussian(this.random))
      // ART's method tracing slows Java code, not native code (the RenderThread's frames).
      const traced = native ? undefined : this.tracing
      // With the phone physics the work is in ns at the reference frequency (the governor decides
      // how long it takes); with the simple physics in ns at the cluster's fixed busy frequency.
      const selfNs =
        this.physics === 'phone'
          ? call.selfCpuMs * 1e6 * factor * (traced?.factor ?? 1) + (traced?.perCallNs ?? 0)
          : Math.round(
              ((call.selfCpuMs * 1e6 * this.power.referenceFreqKhz) / freqKhz) *
                factor *
                (traced?.factor ?? 1) +
                (traced?.perCallNs ?? 0),
            )
      const record: CallRecord = {
        id: this.calls.length,
        method: call.method,
        signature: call.signature ?? '()V',
        file: call.file ?? `${simpleClass(call.method)}.java`,
        tid: thread.tid,
        parentId,
        depth,
        enterNs: t,
        exitNs: t,
        enterThreadCpuNs: thread.cpuNs,
        exitThreadCpuNs: thread.cpuNs,
        stack,
        cancelled: false,
      }
      this.calls.push(record)
      this.callEnterBound.push(Math.max(this.callEnterBound.at(-1) ?? 0, t))
      for (const use of call.hardware ?? []) this.startHardware(use, record, t)
      const pre = this.physics === 'phone' ? selfNs / 2 : Math.floor(selfNs / 2)
      t = this.slice(record, thread, t, pre, coreW)
      for (const child of call.children ?? []) {
        if (
          child.pool !== undefined ||
          (child.thread !== undefined && child.thread !== thread.name)
        ) {
          this.dispatch(child, thread.name, t)
        } else {
          t = this.runCall(child, thread, t, record.id, depth + 1, stack)
        }
      }
      t = this.slice(record, thread, t, selfNs - pre, coreW)
      record.exitNs = t
      record.exitThreadCpuNs = thread.cpuNs
    }
    return t
  }

  private slice(
    record: CallRecord,
    thread: SimThread,
    t: number,
    ns: number,
    coreW: number,
  ): number {
    if (ns <= 0) return t
    if (this.physics === 'phone') {
      const end = this.runOn(thread.core, thread.cluster, t, ns, thread.pelt, (piece) => ({
        callId: record.id,
        tid: thread.tid,
        ...piece,
      }))
      thread.cpuNs += end - t
      return end
    }
    this.pushSlice({
      callId: record.id,
      tid: thread.tid,
      core: thread.core,
      cluster: thread.cluster,
      startNs: t,
      endNs: t + ns,
      khz: this.power.clusters[thread.cluster]?.busyFreqKhz ?? 1,
      coreW,
    })
    thread.cpuNs += ns
    return t + ns
  }

  /** Appends a slice and keeps the indexes over slices (`sliceEndBound`, the blocks' starts). */
  private pushSlice(given: ExecSlice): void {
    const factor = this.codeFactor(given)
    const slice = factor === 1 ? given : { ...given, coreW: given.coreW * factor }
    const block = Math.floor(this.slices.length / SLICE_BLOCK)
    this.slices.push(slice)
    this.sliceEndBound.push(Math.max(this.sliceEndBound.at(-1) ?? 0, slice.endNs))
    this.sliceBlockStartNs[block] = Math.min(
      this.sliceBlockStartNs[block] ?? Number.POSITIVE_INFINITY,
      slice.startNs,
    )
  }

  private startHardware(use: HardwareUse, record: CallRecord, t: number): void {
    this.pushHardware(use, record, t)
    const h = this.hardware.at(-1)
    const end = h === undefined ? 0 : h.endNs + h.tailNs
    const previous = this.hardwareEndBound.at(-1) ?? 0
    if (Number.isFinite(end)) this.hardwareEndBound.push(Math.max(previous, end))
    else {
      this.hardwareEndBound.push(previous)
      this.openHardware.push(this.hardware.length - 1)
    }
  }

  private pushHardware(use: HardwareUse, record: CallRecord, t: number): void {
    const base = { callId: record.id, method: record.method, startNs: t }
    switch (use.kind) {
      case 'radio':
        this.hardware.push({
          ...base,
          kind: use.radio,
          endNs: t + use.activeMs * 1e6,
          tailNs: (use.tailMs ?? DEFAULT_TAIL_MS[use.radio]) * 1e6,
        })
        break
      case 'gps':
        this.hardware.push({
          ...base,
          kind: 'gps',
          endNs: typeof use.stop === 'number' ? t + use.stop * 1e6 : Number.POSITIVE_INFINITY,
          tailNs: 0,
          ...(use.stop === 'until-screen-exit' && this.screenId !== undefined
            ? { screenId: this.screenId }
            : {}),
        })
        break
      case 'wakelock':
        this.hardware.push({
          ...base,
          kind: 'wakelock',
          tag: use.tag,
          endNs: use.holdMs === 'never' ? Number.POSITIVE_INFINITY : t + use.holdMs * 1e6,
          tailNs: 0,
        })
        break
      case 'bluetooth':
      case 'sensor':
        this.hardware.push({
          ...base,
          kind: use.kind,
          endNs: t + use.durationMs * 1e6,
          tailNs: 0,
          ...(use.name !== undefined ? { tag: use.name } : {}),
        })
        break
    }
  }

  // ── integration ──────────────────────────────────────────────────────────────────────────

  /** Ground truth of [fromNs, toNs] on CLOCK_BOOTTIME. */
  groundTruth(fromNs: number, toNs: number): GroundTruth {
    if (!Number.isFinite(fromNs) || !Number.isFinite(toNs) || fromNs < 0 || toNs < fromNs) {
      throw new EnergyError({
        code: SimErrors.BAD_WINDOW,
        message: `ground-truth window [${fromNs}, ${toNs}] ns is not a window on CLOCK_BOOTTIME`,
        hint: 'Pass --from and --to as boottime nanoseconds with from ≤ to (read them with `vdev now`).',
        details: { fromNs, toNs },
      })
    }
    this.materialize(Math.max(this.now(), toNs))
    return integrate(this, fromNs, toNs)
  }

  /**
   * Energy since boot (t = 0) until `tNs`, total and per rail, J. Integrates from the latest
   * checkpoint at or before `tNs`; a result for a time not after now becomes a checkpoint (nothing
   * can change the past any more).
   */
  energySinceBoot(tNs: number): { totalJ: number; rails: Record<string, number> } {
    const now = this.now()
    this.materialize(Math.max(now, tNs))
    const cps = this.checkpoints
    let lo = 0
    let hi = cps.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((cps[mid]?.tNs ?? 0) <= tNs) lo = mid + 1
      else hi = mid
    }
    const base = cps[lo - 1] ?? { tNs: 0, totalJ: 0, rails: {} }
    const window = integrate(this, base.tNs, tNs, false)
    const rails: Record<string, number> = { ...base.rails }
    for (const [rail, j] of Object.entries(window.rails)) rails[rail] = (rails[rail] ?? 0) + j
    let totalJ = base.totalJ + window.totalEnergyJ
    // Kept in time order, also for a time before the latest checkpoint (Perfetto reads its polls
    // of a whole session at its stop): integrating from a far-back checkpoint each time would be
    // quadratic in the session's length. Sums from another checkpoint may differ in the last bit:
    // clamped between the neighbours, the counters never go backwards.
    const after = cps[lo]
    if (after !== undefined) {
      totalJ = Math.min(totalJ, after.totalJ)
      for (const [rail, j] of Object.entries(rails)) {
        rails[rail] = Math.min(j, after.rails[rail] ?? j)
      }
    }
    const result = { totalJ, rails }
    if (tNs <= now && tNs > base.tNs) cps.splice(lo, 0, { tNs, ...result })
    return result
  }

  /** Average device power over [fromNs, toNs], W. */
  averagePowerW(fromNs: number, toNs: number): number {
    if (toNs <= fromNs) return 0
    this.materialize(Math.max(this.now(), toNs))
    return (integrate(this, fromNs, toNs, false).totalEnergyJ * 1e9) / (toNs - fromNs)
  }

  /**
   * Calls `visit` in index order with the slices that may overlap [fromNs, toNs): every slice that
   * does, and a few that do not (callers still clip). Skips the slices that end by `fromNs` (before
   * `sliceEndBound` passes it) and the blocks that start at or after `toNs`, so a window costs its
   * own slices, not the session's.
   */
  visitSlices(
    fromNs: number,
    toNs: number,
    visit: (slice: ExecSlice, index: number) => void,
  ): void {
    const slices = this.slices
    let i = firstAbove(this.sliceEndBound, fromNs)
    while (i < slices.length) {
      const block = Math.floor(i / SLICE_BLOCK)
      const blockEnd = Math.min(slices.length, (block + 1) * SLICE_BLOCK)
      if ((this.sliceBlockStartNs[block] ?? Number.NEGATIVE_INFINITY) >= toNs) {
        i = blockEnd
        continue
      }
      for (; i < blockEnd; i++) {
        const s = slices[i]
        if (s !== undefined) visit(s, i)
      }
    }
  }

  /** Every rail the model drives, in ODPM channel order (the GPU and memory rails: phone physics). */
  railNames(): string[] {
    const phone = this.physics === 'phone' ? [RAILS.gpu, RAILS.memory] : []
    return [
      ...this.power.clusters.map((c) => c.rail),
      RAILS.system,
      RAILS.display,
      RAILS.modem,
      RAILS.wlanBt,
      RAILS.gnss,
      RAILS.sensors,
      ...phone,
    ]
  }
}

interface Item {
  readonly start: number
  readonly end: number
  /** 0 slice, 1 wifi, 2 wifi tail, 3 cell, 4 cell tail, 5 gps, 6 wakelock, 7 bt, 8 sensor, 9 gpu */
  readonly type: number
  readonly index: number
}

const HW_TYPE: Record<HardwareKind, number> = {
  wifi: 1,
  cellular: 3,
  gps: 5,
  wakelock: 6,
  bluetooth: 7,
  sensor: 8,
}

interface MethodAcc {
  calls: number
  selfCpuNs: number
  inclusiveCpuNs: number
  selfEnergyJ: number
  inclusiveEnergyJ: number
  asyncEnergyJ: number
}

/**
 * Lowest index i with `bound[i] > x` (or `>= x` when `inclusive`); bound is non-decreasing;
 * `bound.length` when none.
 */
function firstAbove(bound: readonly number[], x: number, inclusive = false): number {
  let lo = 0
  let hi = bound.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const b = bound[mid] ?? 0
    if (b > x || (inclusive && b === x)) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** First GPU frame ending after `x` (frames are in time order, ends non-decreasing). */
function firstGpu(work: readonly GpuWork[], x: number): number {
  let lo = 0
  let hi = work.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((work[mid]?.endNs ?? 0) > x) hi = mid
    else lo = mid + 1
  }
  return lo
}

/**
 * Sweep-line integration of every record overlapping [from, to]. Without `perOwner` only the
 * components and rails are summed (the sensors' reads need no more), in the same order, so they
 * are the same to the bit; methods and processes are left empty.
 */
function integrate(sim: Simulation, from: number, to: number, perOwner = true): GroundTruth {
  const p = sim.power
  const w = (ma: number): number => maToW(p, ma)
  const components = Object.fromEntries(COMPONENTS.map((c) => [c, 0])) as Record<
    SimComponent,
    number
  >
  const rails: Record<string, number> = Object.fromEntries(sim.railNames().map((r) => [r, 0]))
  const methods = new Map<string, MethodAcc>()
  const acc = (method: string): MethodAcc => {
    let m = methods.get(method)
    if (m === undefined) {
      m = {
        calls: 0,
        selfCpuNs: 0,
        inclusiveCpuNs: 0,
        selfEnergyJ: 0,
        inclusiveEnergyJ: 0,
        asyncEnergyJ: 0,
      }
      methods.set(method, m)
    }
    return m
  }
  const phone = sim.physics === 'phone'
  let appGpuEnergyJ = 0
  type ProcessAcc = {
    process: string
    pid: number
    cpuNs: number
    cpuEnergyJ: number
    gpuEnergyJ: number
  }
  // By process and pid: two `yes` the shell started are two processes.
  const processes = new Map<string, ProcessAcc>()
  const processAcc = (thread: OtherThread): ProcessAcc => {
    const key = `${thread.process}\0${thread.pid}`
    let a = processes.get(key)
    if (a === undefined) {
      a = { process: thread.process, pid: thread.pid, cpuNs: 0, cpuEnergyJ: 0, gpuEnergyJ: 0 }
      processes.set(key, a)
    }
    return a
  }
  const duration = Math.max(0, to - from)
  if (duration === 0) return finish()

  const items: Item[] = []
  const add = (start: number, end: number, type: number, index: number): void => {
    const s = Math.max(start, from)
    const e = Math.min(end, to)
    if (e > s) items.push({ start: s, end: e, type, index })
  }
  sim.visitSlices(from, to, (s, i) => add(s.startNs, s.endNs, 0, i))
  const addHardware = (i: number): void => {
    const h = sim.hardware[i]
    if (h === undefined) return
    const type = HW_TYPE[h.kind]
    add(h.startNs, h.endNs, type, i)
    if ((type === 1 || type === 3) && h.tailNs > 0) add(h.endNs, h.endNs + h.tailNs, type + 1, i)
  }
  const firstHw = firstAbove(sim.hardwareEndBound, from)
  for (let i = firstHw; i < sim.hardware.length; i++) {
    if (!sim.openHardware.includes(i)) addHardware(i)
  }
  for (const i of sim.openHardware) addHardware(i)
  // GPU frames are appended in time order with non-decreasing ends.
  for (let i = firstGpu(sim.gpuWork, from); i < sim.gpuWork.length; i++) {
    const g = sim.gpuWork[i]
    if (g === undefined || g.startNs >= to) break
    add(g.startNs, g.endNs, 9, i)
  }
  for (let i = firstAbove(sim.callEnterBound, from, true); perOwner && i < sim.calls.length; i++) {
    const c = sim.calls[i]
    if (c !== undefined && !c.cancelled && c.enterNs >= from && c.enterNs < to) {
      acc(c.method).calls += 1
    }
  }

  const times = new Set<number>([from, to])
  for (const it of items) {
    times.add(it.start)
    times.add(it.end)
  }
  for (const s of sim.screenStates) if (s.tNs > from && s.tNs < to) times.add(s.tNs)
  const sorted = [...times].sort((a, b) => a - b)
  const starts = [...items].sort((a, b) => a.start - b.start)
  const active: Set<Item>[] = Array.from({ length: 10 }, () => new Set<Item>())
  let next = 0
  let screenIdx = 0
  const clusterCount = new Map<number, number>()

  // Per elementary interval: its length, and helpers that book energy for it.
  let dtS = 0
  const put = (component: SimComponent, rail: string, watts: number): number => {
    const j = watts * dtS
    components[component] += j
    rails[rail] = (rails[rail] ?? 0) + j
    return j
  }
  function shared(type: number, component: SimComponent, rail: string, ma: number): void {
    const set = active[type]
    if (set === undefined || set.size === 0) return
    const j = put(component, rail, w(ma))
    if (!perOwner) return
    for (const it of set) {
      const h = sim.hardware[it.index]
      if (h !== undefined) acc(h.method).asyncEnergyJ += j / set.size
    }
  }
  function radio(type: number, component: SimComponent, rail: string, aMa: number, tMa: number) {
    const bursts = active[type]
    if (bursts !== undefined && bursts.size > 0) {
      shared(type, component, rail, aMa)
      return
    }
    const tails = active[type + 1]
    if (tails === undefined || tails.size === 0) return
    if (!perOwner) {
      put(component, rail, w(tMa))
      return
    }
    // The radio's tail belongs to the burst that ended last.
    let owner: HardwareRecord | undefined
    for (const it of tails) {
      const h = sim.hardware[it.index]
      if (h !== undefined && (owner === undefined || h.endNs >= owner.endNs)) owner = h
    }
    const j = put(component, rail, w(tMa))
    if (owner !== undefined) acc(owner.method).asyncEnergyJ += j
  }

  for (let k = 0; k + 1 < sorted.length; k++) {
    const t0 = sorted[k] ?? from
    const t1 = sorted[k + 1] ?? to
    for (const set of active) for (const it of set) if (it.end <= t0) set.delete(it)
    while (next < starts.length && (starts[next]?.start ?? to) <= t0) {
      const it = starts[next++]
      if (it !== undefined && it.end > t0) active[it.type]?.add(it)
    }
    while (
      screenIdx + 1 < sim.screenStates.length &&
      (sim.screenStates[screenIdx + 1]?.tNs ?? to) <= t0
    ) {
      screenIdx++
    }
    const screen = sim.screenStates[screenIdx]
    dtS = (t1 - t0) / 1e9
    const dtNs = t1 - t0
    put('idle', RAILS.system, w(p.suspendMa))

    const slices = active[0] ?? new Set<Item>()
    const wakelocks = active[6] ?? new Set<Item>()
    const screenOn = screen?.on ?? false
    if (screenOn || slices.size > 0 || wakelocks.size > 0) {
      const j =
        put('cpu', RAILS.system, w(p.awakeMa)) +
        (phone ? put('memory', RAILS.memory, w(p.memory.awakeMa)) : 0)
      if (perOwner && !screenOn && slices.size === 0) {
        for (const it of wakelocks) {
          const h = sim.hardware[it.index]
          if (h !== undefined) acc(h.method).asyncEnergyJ += j / wakelocks.size
        }
      }
    }
    if (slices.size > 0) {
      clusterCount.clear()
      for (const it of slices) {
        const s = sim.slices[it.index]
        if (s !== undefined) clusterCount.set(s.cluster, (clusterCount.get(s.cluster) ?? 0) + 1)
      }
      const activeShareW = w(p.cpuActiveMa) / slices.size
      for (const it of slices) {
        const s = sim.slices[it.index]
        if (s === undefined) continue
        const cluster = p.clusters[s.cluster]
        const clusterW = w(cluster?.clusterPowerMa ?? 0) / (clusterCount.get(s.cluster) ?? 1)
        const j =
          put('cpu', cluster?.rail ?? RAILS.system, s.coreW + clusterW) +
          put('cpu', RAILS.system, activeShareW) +
          (phone ? put('memory', RAILS.memory, s.coreW * p.memory.perCoreFraction) : 0)
        if (!perOwner) continue
        if (s.other !== undefined) {
          const proc = processAcc(s.other)
          proc.cpuNs += dtNs
          proc.cpuEnergyJ += j
          continue
        }
        const call = sim.calls[s.callId]
        if (call === undefined) continue
        const self = acc(call.method)
        self.selfEnergyJ += j
        self.selfCpuNs += dtNs
        for (const m of call.stack) {
          const a = acc(m)
          a.inclusiveEnergyJ += j
          a.inclusiveCpuNs += dtNs
        }
      }
    }
    for (const it of active[9] ?? []) {
      const g = sim.gpuWork[it.index]
      const j =
        put('gpu', RAILS.gpu, w(p.gpu.activeMa)) + put('memory', RAILS.memory, w(p.memory.gpuMa))
      if (!perOwner) continue
      if (g?.other === undefined) appGpuEnergyJ += j
      else processAcc(g.other).gpuEnergyJ += j
    }
    if (screenOn && screen !== undefined) {
      // An OLED panel's light, and the power above `screen.on`, scales with what it shows.
      const content = phone ? screen.luminance / DEFAULT_LUMINANCE : 1
      put(
        'screen',
        RAILS.display,
        w(p.screenOnMa + (p.screenFullMa * screen.brightness * content) / 255),
      )
    }
    radio(1, 'wifi', RAILS.wlanBt, p.wifiActiveMa, p.wifiTailMa)
    radio(3, 'cellular', RAILS.modem, p.cellularActiveMa, p.cellularTailMa)
    shared(5, 'gps', RAILS.gnss, p.gpsMa)
    shared(7, 'bluetooth', RAILS.wlanBt, p.bluetoothMa)
    shared(8, 'other', RAILS.sensors, p.sensorMa)
  }
  return finish()

  function finish(): GroundTruth {
    const totalEnergyJ = COMPONENTS.reduce((sum, c) => sum + components[c], 0)
    let appCpuEnergyJ = 0
    const list: MethodTruth[] = [...methods.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([method, m]) => {
        appCpuEnergyJ += m.selfEnergyJ
        return { method, ...m }
      })
    let otherCpuEnergyJ = 0
    const processList: ProcessTruth[] = [...processes.values()]
      .sort((a, b) => (a.process < b.process ? -1 : a.process > b.process ? 1 : a.pid - b.pid))
      .map((a) => {
        otherCpuEnergyJ += a.cpuEnergyJ
        return { ...a }
      })
    return {
      fromNs: from,
      toNs: to,
      durationNs: duration,
      totalEnergyJ,
      idleFloorEnergyJ: components.idle,
      idleFloorPowerW: w(p.suspendMa),
      appCpuEnergyJ,
      otherCpuEnergyJ,
      appGpuEnergyJ,
      processes: processList,
      components,
      rails,
      methods: list,
    }
  }
}
