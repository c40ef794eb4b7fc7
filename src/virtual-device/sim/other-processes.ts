/**
 * The phone's other processes (`physics: 'phone'`): what runs on the CPUs besides the app, as a
 * Perfetto trace of an idle-ish Pixel shows it — `system_server` handling input and activity
 * changes, `surfaceflinger` compositing each frame while the UI changes, kernel threads (short,
 * frequent) and a Google Play services process waking on its own schedule. Each is a thread with
 * its own pid/tid/comm; the simulation places its bursts on the same cores as the app's threads
 * (docs/virtual-device.md, "Other processes").
 *
 * The figures below are model assumptions of the right order for a Pixel 6, not measurements:
 * their point is that the CPU rails carry work the app did not do, and that the app's own
 * `sched_switch` view is what lets attribution leave it out.
 */

/** Which physics a phone runs: phone-like (other processes, GPU, memory) or the simple one. */
export type Physics = 'phone' | 'simple'

export const PHYSICS: readonly Physics[] = ['phone', 'simple']

/**
 * Which CPUs a thread may run on, as Android's cpusets place it: `background` is the little
 * cluster (cpuset `background`), `foreground` the little and UI clusters, `all` any CPU.
 */
export type CpuSet = 'all' | 'foreground' | 'background'

/** A thread of another process. */
export interface OtherThread {
  /** Process name as `ps -A` prints it. */
  readonly process: string
  readonly pid: number
  readonly tid: number
  /** Thread name as `sched_switch` shows it (≤ 15 characters). */
  readonly comm: string
  readonly cpus: CpuSet
}

/** The other processes' threads; pids match the virtual device's `ps -A` table. */
export const OTHER_THREADS = {
  inputReader: {
    process: 'system_server',
    pid: 1021,
    tid: 1268,
    comm: 'InputReader',
    cpus: 'foreground',
  },
  inputDispatcher: {
    process: 'system_server',
    pid: 1021,
    tid: 1267,
    comm: 'InputDispatcher',
    cpus: 'foreground',
  },
  binder: {
    process: 'system_server',
    pid: 1021,
    tid: 1104,
    comm: 'binder:1021_3',
    cpus: 'foreground',
  },
  anim: {
    process: 'system_server',
    pid: 1021,
    tid: 1093,
    comm: 'android.anim',
    cpus: 'foreground',
  },
  surfaceflinger: {
    process: 'surfaceflinger',
    pid: 566,
    tid: 566,
    comm: 'surfaceflinger',
    cpus: 'foreground',
  },
  launcherRender: {
    process: 'com.google.android.apps.nexuslauncher',
    pid: 1802,
    tid: 1851,
    comm: 'RenderThread',
    cpus: 'foreground',
  },
  // ART names a thread after the last 15 characters of a long process name.
  gms: {
    process: 'com.google.android.gms.persistent',
    pid: 1874,
    tid: 1874,
    comm: '.gms.persistent',
    cpus: 'background',
  },
  kworker: { process: 'kworker/u16:2', pid: 95, tid: 95, comm: 'kworker/u16:2', cpus: 'all' },
  rcu: { process: 'rcu_preempt', pid: 13, tid: 13, comm: 'rcu_preempt', cpus: 'all' },
  usbIrq: { process: 'irq/317-dwc3', pid: 417, tid: 417, comm: 'irq/317-dwc3', cpus: 'all' },
} as const satisfies Record<string, OtherThread>

/** Work of one burst: CPU time at the reference frequency, ms (like `selfCpuMs`). */
interface BurstCost {
  readonly minMs: number
  readonly maxMs: number
}

/** A thread that wakes on its own (Poisson arrivals at `ratePerS`). */
interface Source extends BurstCost {
  readonly thread: OtherThread
  readonly ratePerS: number
}

/** Kernel threads, a threaded interrupt handler and a background service. */
const SOURCES: readonly Source[] = [
  { thread: OTHER_THREADS.kworker, ratePerS: 30, minMs: 0.02, maxMs: 0.12 },
  { thread: OTHER_THREADS.rcu, ratePerS: 15, minMs: 0.005, maxMs: 0.025 },
  { thread: OTHER_THREADS.usbIrq, ratePerS: 8, minMs: 0.01, maxMs: 0.04 },
  { thread: OTHER_THREADS.gms, ratePerS: 0.05, minMs: 15, maxMs: 80 },
]

/** system_server's work per input event (InputReader reads it, InputDispatcher delivers it). */
export const INPUT_COST_MS = { reader: 0.12, dispatcher: 0.2 } as const
/** system_server's work per activity change (a binder call into ActivityTaskManager, the transition). */
export const ACTIVITY_COST_MS = { binder: 6, anim: 2 } as const
/** Per frame: the app's RenderThread draws, surfaceflinger composites. */
export const FRAME_COST_MS = { renderThread: 1.2, surfaceflinger: 0.7 } as const
/** Display refresh: 60 Hz. */
export const VSYNC_NS = 16_666_667
/** How long the UI animates after: a tap on a clickable widget (ripple), typed text, an activity change. */
export const ANIMATION_MS = { tap: 250, text: 100, activity: 350 } as const
/** The native method the app's RenderThread runs for each frame (libhwui). */
export const RENDER_METHOD = 'android::uirenderer::renderthread::DrawFrameTask::run()'

/** The next thing other processes do. */
export type OtherEvent =
  | {
      readonly kind: 'burst'
      readonly tNs: number
      readonly thread: OtherThread
      readonly cpuMs: number
    }
  | { readonly kind: 'frame'; readonly tNs: number }

/**
 * The seeded timeline of the other processes' own work (kernel threads, the background service)
 * and of frames while the UI animates. Events come out in time order, lazily.
 */
export class OtherActivity {
  private readonly next: number[]
  private animateUntilNs = 0
  private nextFrameNs = Number.POSITIVE_INFINITY

  /** `startNs`: when the phone starts (the simulation's creation); nothing runs before. */
  constructor(
    private readonly random: () => number,
    startNs: number,
  ) {
    this.next = SOURCES.map((s) => this.arrival(s, startNs))
  }

  /** A burst's cost with ±10% seeded jitter (never below a fifth). */
  jittered(ms: number): number {
    return ms * Math.max(0.2, 1 + 0.1 * gaussianOf(this.random))
  }

  /** Time of the next event, ns (Infinity when none). */
  nextNs(): number {
    let t = this.nextFrameNs
    for (const n of this.next) t = Math.min(t, n)
    return t
  }

  /** Takes the next event (the one at `nextNs()`). */
  take(): OtherEvent | undefined {
    const t = this.nextNs()
    if (!Number.isFinite(t)) return undefined
    if (t === this.nextFrameNs) {
      const following = t + VSYNC_NS
      this.nextFrameNs = following < this.animateUntilNs ? following : Number.POSITIVE_INFINITY
      return { kind: 'frame', tNs: t }
    }
    const i = this.next.indexOf(t)
    const source = SOURCES[i]
    if (source === undefined) return undefined
    this.next[i] = this.arrival(source, t)
    const cpuMs = source.minMs + (source.maxMs - source.minMs) * this.random()
    return { kind: 'burst', tNs: t, thread: source.thread, cpuMs }
  }

  /** The UI animates over [tNs, tNs + ms]: one frame per vsync from the first vsync after tNs. */
  animate(tNs: number, ms: number): void {
    this.animateUntilNs = Math.max(this.animateUntilNs, tNs + ms * 1e6)
    if (Number.isFinite(this.nextFrameNs) && this.nextFrameNs > tNs) return
    const vsync = Math.floor(tNs / VSYNC_NS + 1) * VSYNC_NS
    this.nextFrameNs = vsync < this.animateUntilNs ? vsync : Number.POSITIVE_INFINITY
  }

  private arrival(source: Source, afterNs: number): number {
    const u = Math.max(this.random(), 1e-12)
    return afterNs + Math.round((-Math.log(u) / source.ratePerS) * 1e9)
  }
}

function gaussianOf(next: () => number): number {
  const u = Math.max(next(), 1e-12)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next())
}
