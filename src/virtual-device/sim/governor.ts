/**
 * DVFS of the phone physics: one frequency per cluster (cpufreq policy), chosen by a governor in
 * the spirit of the kernel's schedutil — `freq = 1.25 × max_freq × util / max` resolved to the
 * lowest table frequency at or above it (cpufreq_schedutil.c get_next_freq, CPUFREQ_RELATION_L),
 * with Android's up/down rate limits — from a frequency-invariant utilisation that decays
 * geometrically like PELT's. Documented in docs/virtual-device.md ("DVFS").
 *
 * The simulation places work eagerly (when an action fires), so the governor's decisions are an
 * append-only timeline per cluster: work placed up to the timeline's frontier runs at the
 * frequencies already decided; work that reaches past it extends the timeline, deciding at its
 * wake-up and at every scheduler tick while it runs.
 */
import type { SimCluster } from './power-model.js'

/** Governor tunables: model choices of the right order for an Android phone. */
export const GOVERNOR = {
  /** schedutil's headroom: a CPU busy at `util` asks for 1.25 × util of its maximum capacity. */
  headroom: 1.25,
  /** Minimum time between a change and a raise (Android's schedutil `up_rate_limit_us` 500). */
  upRateLimitNs: 500_000,
  /** Minimum time between a change and a lowering (`down_rate_limit_us` 20 000). */
  downRateLimitNs: 20_000_000,
  /** Scheduler tick (CONFIG_HZ = 250): the governor decides again while a CPU runs. */
  tickNs: 4_000_000,
  /** Utilisation half-life: PELT's 32 ms shortened to 8 ms (Android's PELT multiplier 4). */
  halfLifeNs: 8_000_000,
} as const

/** One stretch of work at one frequency. */
export interface FreqPiece {
  readonly startNs: number
  readonly endNs: number
  readonly khz: number
  /** Index of `khz` in the cluster's speed table (its per-core current). */
  readonly step: number
}

/** A cluster's frequency change, as the `power/cpu_frequency` event shows it. */
export interface FreqChange {
  readonly tNs: number
  readonly khz: number
}

const TAU_NS = GOVERNOR.halfLifeNs / Math.LN2

/** What a run has left to do: CPU work at a reference frequency, or time to stay busy. */
interface Budget {
  /** When the rest would end if it ran at `khz` from `t`, ns (not rounded). */
  endAt(t: number, khz: number): number
  /** It ran [from, to) at `khz`. */
  spend(from: number, to: number, khz: number): void
  /** What is left: ns of work at the reference frequency, or of time. */
  left(): number
}

export class ClusterGovernor {
  /** Decided frequency changes, in time order (the first at the phone's start). */
  readonly changes: FreqChange[]
  private readonly steps: readonly number[]
  private readonly maxKhz: number
  /** Up to when the timeline is decided, ns. */
  private frontierNs: number
  /** Frequency-invariant utilisation at the frontier, 0–1 of the cluster's capacity at max_freq. */
  private util = 0
  private lastChangeNs: number
  private step = 0

  /** `fixed`: the simple physics' one busy frequency, never changed. */
  constructor(
    readonly cluster: SimCluster,
    startNs: number,
    private readonly fixed = false,
  ) {
    this.steps = cluster.speedsKhz.slice(0, Math.max(1, cluster.corePowerMa.length))
    this.maxKhz = Math.max(...this.steps)
    this.step = fixed ? Math.max(0, this.steps.indexOf(cluster.busyFreqKhz)) : 0
    this.changes = [{ tNs: startNs, khz: this.khzOf(this.step) }]
    this.frontierNs = startNs
    this.lastChangeNs = startNs
  }

  /** The frequency at `tNs` (the latest decision at or before it), kHz. */
  freqAt(tNs: number): number {
    return this.changes[this.changeIndexAt(tNs)]?.khz ?? this.khzOf(0)
  }

  /**
   * Runs `workRefNs` of CPU work (ns at `refKhz`) on one core of the cluster from `startNs` (the
   * core is free then); returns the stretches at each frequency, in order.
   */
  run(startNs: number, workRefNs: number, refKhz: number): FreqPiece[] {
    let remaining = workRefNs
    return this.advance(startNs, {
      endAt: (t, khz) => t + (remaining * refKhz) / khz,
      spend: (from, to, khz) => {
        remaining -= ((to - from) * khz) / refKhz
      },
      left: () => remaining,
    })
  }

  /**
   * Runs a core of the cluster busy from `startNs` to `endNs` (a thread that never waits, `yes`),
   * whatever the frequency; returns the stretches at each frequency, in order.
   */
  runUntil(startNs: number, endNs: number): FreqPiece[] {
    let t = startNs
    return this.advance(startNs, {
      endAt: () => endNs,
      spend: (_from, to) => {
        t = to
      },
      left: () => endNs - t,
    })
  }

  /** Runs from `startNs` until `budget` is spent: decided stretches first, then deciding anew. */
  private advance(startNs: number, budget: Budget): FreqPiece[] {
    const pieces: FreqPiece[] = []
    let t = startNs
    const push = (from: number, to: number, khz: number): void => {
      if (!(to > from)) return
      const last = pieces.at(-1)
      // Ticks that change nothing are not stretches of their own.
      if (last !== undefined && last.khz === khz && last.endNs === from) {
        pieces[pieces.length - 1] = { ...last, endNs: to }
      } else pieces.push({ startNs: from, endNs: to, khz, step: this.stepOf(khz) })
    }
    // The part already decided.
    let i = this.changeIndexAt(t)
    while (budget.left() > 0 && t < this.frontierNs) {
      const khz = this.changes[i]?.khz ?? this.khzOf(0)
      const until = Math.min(this.changes[i + 1]?.tNs ?? Infinity, this.frontierNs)
      const end = budget.endAt(t, khz)
      if (end <= until) {
        // Whole ns, like the kernel's clock.
        push(t, Math.round(end), khz)
        return pieces
      }
      push(t, until, khz)
      budget.spend(t, until, khz)
      t = until
      i++
    }
    if (budget.left() <= 0) return pieces
    // Beyond the frontier: an idle gap (utilisation decays), then a decision at the wake-up and
    // at every tick while the work runs.
    if (t > this.frontierNs) this.util *= Math.exp(-(t - this.frontierNs) / TAU_NS)
    this.frontierNs = t
    for (;;) {
      this.decide(t)
      const khz = this.khzOf(this.step)
      const tick = t + GOVERNOR.tickNs
      const end = Math.min(Math.round(budget.endAt(t, khz)), tick)
      push(t, end, khz)
      const decay = Math.exp(-(end - t) / TAU_NS)
      this.util = this.util * decay + (khz / this.maxKhz) * (1 - decay)
      budget.spend(t, end, khz)
      t = end
      this.frontierNs = t
      if (end < tick || budget.left() <= 0.5) return pieces
    }
  }

  /** The governor's decision at `tNs` (at the frontier): the next frequency, rate-limited. */
  private decide(tNs: number): void {
    if (this.fixed) return
    const target = GOVERNOR.headroom * this.maxKhz * this.util
    let next = this.steps.findIndex((khz) => khz >= target)
    if (next < 0) next = this.steps.length - 1
    if (next === this.step) return
    const since = tNs - this.lastChangeNs
    if (next > this.step ? since < GOVERNOR.upRateLimitNs : since < GOVERNOR.downRateLimitNs) return
    this.step = next
    this.lastChangeNs = tNs
    const last = this.changes.at(-1)
    if (last !== undefined && last.tNs === tNs)
      this.changes[this.changes.length - 1] = { tNs, khz: this.khzOf(next) }
    else this.changes.push({ tNs, khz: this.khzOf(next) })
  }

  private khzOf(step: number): number {
    return this.steps[step] ?? this.steps[0] ?? 1
  }

  private stepOf(khz: number): number {
    return Math.max(0, this.steps.indexOf(khz))
  }

  private changeIndexAt(tNs: number): number {
    let lo = 0
    let hi = this.changes.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.changes[mid]?.tNs ?? 0) <= tNs) lo = mid + 1
      else hi = mid
    }
    return Math.max(0, lo - 1)
  }
}
