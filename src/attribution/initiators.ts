/**
 * Finding who started asynchronous device energy (eprof's question) from measured data alone: on
 * rails whose energy outlives the calls that cause it (radios, GPS, Bluetooth), each burst of
 * activity above the rail's floor is charged to the app method that was executing last before the
 * burst began. The burst's energy above the floor becomes a `TailInvocation` (its measured tail),
 * so `chargeTails` and the per-method figures treat it like a modelled tail — but measured.
 *
 * Bursts already running when the window opens have no initiator in this window; they are
 * returned separately so the caller can charge them to an initiator it saw in an earlier window
 * (a GPS listener leaking from one test into the next).
 */
import type { Component, EnergyWindow } from '../model/energy.js'
import type { CallTrace, RailSeries, StackSampleSet } from '../model/samples.js'
import { componentOfRail } from './components.js'
import type { TailInvocation } from './tails.js'

export interface InitiatorOptions {
  /** Is this frame the app's own code (e.g. starts with the package name)? */
  readonly isAppMethod: (method: string) => boolean
  /** Components whose energy outlives its cause. @default ['wifi', 'cellular', 'gps', 'bluetooth'] */
  readonly components?: readonly Component[]
  /** Power above the rail's floor that counts as active, W. @default 0.005 */
  readonly thresholdW?: number
  /** How far before a burst's first active reading to look for the initiator, ns. @default 1 s */
  readonly lookbackNs?: number
  /**
   * Each rail's idle level, W, when known from earlier windows (a GPS left on for a whole window
   * never shows its idle level inside it). @default the lowest interval power in this window
   */
  readonly floorsW?: ReadonlyMap<string, number>
  /**
   * Components known to be on already when the window opened (left on by an earlier window). A
   * burst in the window's first reading interval is ongoing when its component is listed here;
   * otherwise app code running in that interval started it. @default none
   */
  readonly knownOn?: ReadonlySet<string>
  /**
   * Of those, the power above idle each drew when the window that left it on ended, W: more than
   * that at this window's start (past {@link RISE_MIN_W} and twice it) is this window's, started by
   * app code in its first interval. @default none (the first interval's level is taken as left on)
   */
  readonly knownLevelsW?: ReadonlyMap<string, number>
}

/** A burst already running at the window's start: who started it is not in this window's data. */
export interface OngoingBurst {
  readonly component: Component
  readonly rail: string
  /** Energy above the floor inside the window, J. */
  readonly energyJ: number
  /** When the burst ended inside the window, or the window's end if it outlived it, ns. */
  readonly endNs: number
  readonly stillActiveAtEnd: boolean
  /** Its power above the rail's floor over the window's last reading interval, W. */
  readonly endLevelW: number
}

export interface InitiatedBurst extends TailInvocation {
  readonly rail: string
  /** The burst was still running when the window closed. */
  readonly stillActiveAtEnd: boolean
  /** Its power above the rail's floor over its last reading interval in the window, W. */
  readonly endLevelW: number
}

export interface Initiators {
  readonly invocations: readonly InitiatedBurst[]
  readonly ongoing: readonly OngoingBurst[]
  /** Bursts that began in the window with no app code running before them (another app, the OS). */
  readonly orphans: readonly OngoingBurst[]
  /** Lowest interval power of each asynchronous rail in this window, W (to learn floors from). */
  readonly lowestW: ReadonlyMap<string, number>
}

/** Components that are off when idle and whose tails outlast the code that switched them on. */
export const ASYNC_COMPONENTS: readonly Component[] = ['wifi', 'cellular', 'gps', 'bluetooth']

/**
 * Of those, the radios whose tail is the modem's inactivity timer: it runs out after the app that
 * sent the data has died. A GPS listener or a Bluetooth connection ends with its process.
 */
export const TAILS_OUTLIVE_PROCESS: readonly Component[] = ['wifi', 'cellular']

/** Detects bursts on asynchronous rails inside `window` and names their initiators. */
export function findInitiators(
  rails: readonly RailSeries[],
  execution: StackSampleSet | CallTrace | undefined,
  window: EnergyWindow,
  options: InitiatorOptions,
): Initiators {
  const components = new Set(options.components ?? ASYNC_COMPONENTS)
  const thresholdW = options.thresholdW ?? 0.005
  const lookbackNs = options.lookbackNs ?? 1e9
  const activity = appActivity(execution, options.isAppMethod)
  const invocations: InitiatedBurst[] = []
  const ongoing: OngoingBurst[] = []
  const orphans: OngoingBurst[] = []
  const lowestW = new Map<string, number>()
  for (const rail of rails) {
    const component = componentOfRail({
      rail: rail.rail,
      ...(rail.subsystem ? { subsystem: rail.subsystem } : {}),
    })
    if (!components.has(component)) continue
    const segments = railSegments(rail, window)
    if (segments.length === 0) continue
    const lowest = Math.min(...segments.map((x) => x.powerW))
    lowestW.set(rail.rail, lowest)
    const floorW = Math.min(lowest, options.floorsW?.get(rail.rail) ?? lowest)
    for (const burst of bursts(segments, floorW, thresholdW)) {
      const base = {
        component,
        rail: rail.rail,
        energyJ: burst.energyJ,
        endNs: burst.endNs,
        stillActiveAtEnd: burst.open,
        endLevelW: burst.endLevelW,
      }
      const method = initiatorOf(
        activity,
        burst.startNs,
        burst.causeByNs,
        burst.startNs - lookbackNs,
      )
      // The first interval starts with the window, so "active from the start" can also mean
      // "started in the first moments": app code there is the cause unless we know better.
      if (
        burst.fromWindowStart &&
        (options.knownOn?.has(component) === true || method === undefined)
      ) {
        // What was left on draws its own level; app code of this window can start more on the
        // same rail (Wi-Fi over a Bluetooth link on WLAN-BT): that rise is this window's.
        let carriedJ = burst.energyJ
        const knownW = options.knownLevelsW?.get(component)
        for (const rise of risesOnTop(segments, burst, floorW, knownW)) {
          const by = initiatorOf(activity, rise.startNs, rise.causeByNs, rise.startNs - lookbackNs)
          if (by === undefined) continue
          carriedJ -= rise.energyJ
          invocations.push({
            method: by,
            component,
            rail: rail.rail,
            startNs: rise.startNs,
            endNs: rise.startNs,
            tailEnergyJ: rise.energyJ,
            tailDurationNs: Math.max(1, rise.endNs - rise.startNs),
            stillActiveAtEnd: rise.open,
            endLevelW: rise.endLevelW,
            onTop: true,
          })
        }
        ongoing.push({ ...base, energyJ: carriedJ })
        continue
      }
      if (method === undefined) {
        orphans.push(base)
        continue
      }
      invocations.push({
        method,
        component,
        rail: rail.rail,
        startNs: burst.startNs,
        endNs: burst.startNs,
        tailEnergyJ: burst.energyJ,
        tailDurationNs: Math.max(1, burst.endNs - burst.startNs),
        stillActiveAtEnd: burst.open,
        endLevelW: burst.endLevelW,
      })
    }
  }
  return { invocations, ongoing, orphans, lowestW }
}

interface Burst {
  readonly startNs: number
  /** End of the burst's first active reading interval: the cause ran before it. */
  readonly causeByNs: number
  readonly endNs: number
  readonly energyJ: number
  readonly fromWindowStart: boolean
  readonly open: boolean
  /** Power above the floor over its last interval, W. */
  readonly endLevelW: number
}

interface Segment {
  readonly startNs: number
  readonly endNs: number
  readonly powerW: number
}

/**
 * A rise counts as new activity on top of what was left on when the rail's power above its floor
 * more than doubles the level it was left at, and by at least this much, W: a radio or GPS left on
 * holds its state's power or decays from it (a cellular tail), it does not climb.
 */
const RISE_MIN_W = 0.05

/**
 * Runs inside `burst` (already on when the window opened) where the rail rose far above the level
 * it was left at: `knownW` when the window that left it on said (a rise may then come in the first
 * interval), else the level of the window's first interval. With that level as their floor, so
 * their energy is what came on top of it.
 */
function risesOnTop(
  segments: readonly Segment[],
  burst: Burst,
  floorW: number,
  knownW: number | undefined,
): Burst[] {
  const inside = segments.filter((s) => s.startNs >= burst.startNs && s.endNs <= burst.endNs)
  const first = inside[0]
  if (first === undefined) return []
  const firstW = Math.max(0, first.powerW - floorW)
  const leftW = knownW === undefined ? firstW : Math.min(firstW, Math.max(0, knownW))
  return bursts(inside, floorW + leftW, Math.max(leftW, RISE_MIN_W))
    .filter((b) => knownW !== undefined || !b.fromWindowStart)
    .map((b) => ({ ...b, endLevelW: b.endLevelW + leftW }))
}

/** The lowest average power over the rail's counter intervals inside the window, W (its idle level there). */
export function lowestRailPowerW(rail: RailSeries, window: EnergyWindow): number | undefined {
  const segments = railSegments(rail, window)
  return segments.length === 0 ? undefined : Math.min(...segments.map((x) => x.powerW))
}

/** The rail's counter intervals clipped to the window, with their average power. */
function railSegments(rail: RailSeries, window: EnergyWindow): Segment[] {
  const segments: Segment[] = []
  const r = rail.readings
  for (let i = 1; i < r.length; i++) {
    const a = r[i - 1]
    const b = r[i]
    if (a === undefined || b === undefined || !(b.tNs > a.tNs)) continue
    const startNs = Math.max(a.tNs, window.startNs)
    const endNs = Math.min(b.tNs, window.endNs)
    if (!(endNs > startNs)) continue
    segments.push({ startNs, endNs, powerW: ((b.energyJ - a.energyJ) * 1e9) / (b.tNs - a.tNs) })
  }
  return segments
}

/** Runs of intervals whose average power is above the floor by more than the threshold. */
function bursts(segments: readonly Segment[], floorW: number, thresholdW: number): Burst[] {
  const found: Burst[] = []
  let current: { -readonly [K in keyof Burst]: Burst[K] } | undefined
  segments.forEach((s, index) => {
    const above = s.powerW - floorW
    if (above > thresholdW) {
      const energyJ = (above * (s.endNs - s.startNs)) / 1e9
      if (current === undefined)
        current = {
          startNs: s.startNs,
          causeByNs: s.endNs,
          endNs: s.endNs,
          energyJ,
          fromWindowStart: index === 0,
          open: false,
          endLevelW: above,
        }
      else {
        current.endNs = s.endNs
        current.energyJ += energyJ
        current.endLevelW = above
      }
    } else if (current !== undefined) {
      found.push(current)
      current = undefined
    }
  })
  if (current !== undefined) found.push({ ...(current as Burst), open: true })
  return found
}

/** App methods seen running, as (time, innermost app frame), sorted by time. */
function appActivity(
  execution: StackSampleSet | CallTrace | undefined,
  isApp: (method: string) => boolean,
): Array<{ tNs: number; method: string }> {
  if (execution === undefined) return []
  const points: Array<{ tNs: number; method: string }> = []
  if ('samples' in execution) {
    for (const s of execution.samples) {
      const method = s.frames.find(isApp) // frames are leaf first: the innermost app frame
      // A sample closes the period of CPU time it stands for: code that woke a radio in its first
      // moments is sampled up to a period after the reading that saw the radio wake.
      if (method !== undefined) points.push({ tNs: s.tNs - (s.periodNs ?? 0), method })
    }
  } else {
    for (const c of execution.calls) {
      if (isApp(c.method))
        points.push({ tNs: c.endNs, method: c.method }, { tNs: c.startNs, method: c.method })
    }
  }
  return points.sort((a, b) => a.tNs - b.tNs)
}

/**
 * Who started a burst whose first active reading interval is [startNs, causeByNs]: the first app
 * work inside that interval (it ran before the component woke, the rest came after), else the
 * newest app work before it, back to `notBeforeNs`. Rail readings are 10–1000 ms apart, so this
 * names the code running when the component woke, not necessarily the API call itself.
 */
function initiatorOf(
  activity: ReadonlyArray<{ tNs: number; method: string }>,
  startNs: number,
  causeByNs: number,
  notBeforeNs: number,
): string | undefined {
  let before: string | undefined
  for (const a of activity) {
    if (a.tNs > causeByNs) break
    if (a.tNs >= startNs) return a.method
    if (a.tNs >= notBeforeNs) before = a.method
  }
  return before
}
