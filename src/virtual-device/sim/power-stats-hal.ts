/**
 * When a phone's power readings are really taken (`physics: 'phone'`): traced_probes' android.power
 * poll runs a little after its due time (its thread wakes late, shares the instant with the ftrace
 * drain, now and then stalls under load and skips a poll), and the Pixel power-stats HAL stamps each
 * energy meter's reading with the ODPM driver's own refresh time, not the poll's. The driver
 * refreshes at most every 50 ms and otherwise returns its cached reading, stamp included.
 * docs/virtual-device.md, "Sensor timing", has the sources; the figures marked as assumptions are
 * of the right order, not measurements.
 */
import { prng, type Simulation } from './simulation.js'

/** The ODPM driver re-reads the PMIC at most this often; a read sooner gets the cached values. */
export const ODPM_MIN_REFRESH_NS = 50e6

/** How traced_probes' poll and the HAL's reads are timed. */
export interface PollTimingOptions {
  /**
   * Probability that a poll stalls (its thread preempted for tens of ms) at full CPU load; scaled
   * by the share of CPU time busy in the period before. Assumption. @default 0.05
   */
  readonly stallPerLoad?: number
  /** Mean length of a stall (exponential), ms. Assumption. @default 40 */
  readonly stallMeanMs?: number
}

/** One energy meter's reading as the HAL returns it. */
export interface MeterReading {
  /** The driver's refresh time, whole ms of CLOCK_BOOTTIME (what `timestamp_ms` carries), ns. */
  readonly stampNs: number
  /** Each rail's cumulative energy, µWs (= µJ), integer: the integral up to `energyAtNs`. */
  readonly energyUws: ReadonlyMap<string, number>
  /** When the PMIC's accumulators were latched (a little after the stamp), CLOCK_BOOTTIME ns. */
  readonly energyAtNs: number
  /** True when the driver returned its cached reading (refreshed < 50 ms before). */
  readonly cached: boolean
}

/** One run of traced_probes' android.power Tick. */
export interface PowerPoll {
  /** When the Tick ran (the battery packet's CLOCK_BOOTTIME stamp), ns. */
  readonly tickNs: number
  /** Per energy meter (PMIC), in the order the HAL reads them. */
  readonly meters: readonly MeterReading[]
}

/** One refresh of the meters by the driver: when it began, and what each meter read. */
interface Refresh {
  readonly atNs: number
  readonly readings: readonly MeterReading[]
}

/** Cheap seeded uniform for a key (a poll's due ms, a refresh), reproducible in any order. */
function uniform(seed: number, key: number, salt: number): number {
  return prng((seed * 2654435761 + key * 40503 + salt * 0x9e3779b9) >>> 0)()
}

/**
 * The phone's power-stats HAL over its ODPM energy meters: Pixel 6 has two PMICs, the main one
 * (s2mpg10, rails named `…M_…`) and the sub one (s2mpg11, the others; the external VSYS channels
 * are taken to be on it), read one after the other. Refreshes are remembered across perfetto
 * sessions, as the driver's cache is.
 */
export class PowerStatsHal {
  private readonly meters: readonly (readonly string[])[]
  /** Every refresh so far, in time order (the driver's cache outlives a perfetto session). */
  private readonly refreshes: Refresh[] = []

  constructor(
    private readonly sim: Simulation,
    private readonly seed: number,
    private readonly options: PollTimingOptions = {},
  ) {
    const rails = sim.railNames()
    const main = rails.filter((r) => /^S\d+M_/.test(r))
    const sub = rails.filter((r) => !main.includes(r))
    this.meters = [main, sub].filter((m) => m.length > 0)
  }

  /**
   * The polls of one android.power session over [startNs, stopNs]: the first at the start (the data
   * source's Start() reads at once), then each Tick at its due time (`nextDueNs` of when the
   * previous one ran: traced_probes posts the next Tick from the time it runs) plus its lateness.
   * A Tick late beyond the next due time skips that one; one due before the stop but running after
   * it never runs.
   */
  polls(
    startNs: number,
    stopNs: number,
    nextDueNs: (ranNs: number) => number,
    drainDue: (dueNs: number) => boolean,
  ): PowerPoll[] {
    this.sim.materialize(stopNs)
    const polls: PowerPoll[] = []
    let ranNs = startNs
    for (;;) {
      polls.push({ tickNs: ranNs, meters: this.readAll(ranNs) })
      const dueNs = nextDueNs(ranNs)
      if (dueNs > stopNs) return polls
      ranNs = dueNs + this.latenessNs(dueNs, drainDue(dueNs))
      if (ranNs > stopNs) return polls
    }
  }

  /**
   * How late a Tick due at `dueNs` runs, ns: the task runner's poll() timeout is whole ms (up to
   * 1 ms late) plus the wake-up; when a linux.ftrace drain is due at the same instant (`drain`:
   * both align to multiples of their periods, 100 ms by default), it runs first on the one thread,
   * for a time that grows with the sched_switch events it reads; now and then a stall under load.
   */
  latenessNs(dueNs: number, drain: boolean): number {
    const key = Math.floor(dueNs / 1e6)
    let late = uniform(this.seed, key, 1) * 1e6 + 20e3 + uniform(this.seed, key, 2) * 80e3
    const { busyShare, switches } = this.load(dueNs - 100e6, dueNs)
    // Assumption: 0.3 ms per drain plus 1 µs per event read.
    if (drain) late += 0.3e6 + switches * 1e3
    const stallP = (this.options.stallPerLoad ?? 0.05) * busyShare
    if (uniform(this.seed, key, 3) < stallP) {
      late +=
        -Math.log(Math.max(uniform(this.seed, key, 4), 1e-9)) *
        (this.options.stallMeanMs ?? 40) *
        1e6
    }
    return Math.round(late)
  }

  /**
   * The HAL's readEnergyMeter at `tNs`: a binder hop, then each meter in turn. The driver stamps a
   * refresh when it starts and latches the PMIC's accumulators during it, which takes 1–2 ms on
   * average (odpm.c), so the energy runs a little past the stamp; the second PMIC is refreshed after
   * the first. Both carry the first refresh's stamp (a simplification: a Pixel's two IIO devices
   * stamp their own refreshes, a ms or two apart).
   */
  private readAll(tNs: number): MeterReading[] {
    const key = Math.floor(tNs / 1e3)
    // Assumption: 0.2–0.6 ms from the Tick to the driver (binder call into the HAL, sysfs open).
    const t = tNs + 0.2e6 + uniform(this.seed, key, 5) * 0.4e6
    const last = latestAtOrBefore(this.refreshes, t)
    if (last !== undefined && t - last.atNs < ODPM_MIN_REFRESH_NS) {
      return last.readings.map((r) => ({ ...r, cached: true }))
    }
    const stampNs = Math.floor(t / 1e6) * 1e6
    let refreshNs = t
    // Sessions work out their polls when they stop, so a session that overlapped another one (a
    // window's end read in the background while the next window starts) can ask for a moment
    // just before a refresh the other one made: this refresh must not latch past that one, or a
    // counter would run backwards, which a real driver's never does.
    const next =
      this.refreshes[countAtOrBelow(this.refreshes.length, (i) => this.refreshes[i]?.atNs ?? 0, t)]
    const readings = this.meters.map((rails, m): MeterReading => {
      // Latched at some point of this PMIC's refresh, which takes 1–2 ms.
      const takesNs = 1e6 + uniform(this.seed, key, 6 + m) * 1e6
      const latchedNs = Math.min(
        refreshNs + uniform(this.seed, key, 8 + m) * takesNs,
        next?.readings[m]?.energyAtNs ?? Infinity,
      )
      refreshNs += takesNs
      const { rails: energy } = this.sim.energySinceBoot(latchedNs)
      const energyUws = new Map<string, number>()
      for (const r of rails) energyUws.set(r, Math.floor((energy[r] ?? 0) * 1e6))
      return { stampNs, energyUws, energyAtNs: latchedNs, cached: false }
    })
    insertRefresh(this.refreshes, { atNs: t, readings })
    return readings
  }

  /** Share of CPU time busy and the number of slices that began (≈ sched_switch events) in [a, b). */
  private load(a: number, b: number): { busyShare: number; switches: number } {
    const sim = this.sim
    const lo = countAtOrBelow(sim.sliceEndBound.length, (i) => sim.sliceEndBound[i] ?? 0, a)
    let busyNs = 0
    let switches = 0
    for (let i = lo; i < sim.slices.length; i++) {
      const s = sim.slices[i]
      if (s === undefined) continue
      // Slices are appended almost in time order: far past the interval, stop looking.
      if (s.startNs > b + 2e9) break
      const overlap = Math.min(b, s.endNs) - Math.max(a, s.startNs)
      if (overlap > 0) busyNs += overlap
      if (s.startNs >= a && s.startNs < b) switches += 2
    }
    const cpus = sim.power.clusters.reduce((n, c) => n + c.cores, 0)
    return { busyShare: Math.min(1, busyNs / ((b - a) * Math.max(1, cpus))), switches }
  }
}

function latestAtOrBefore(log: readonly Refresh[], tNs: number): Refresh | undefined {
  return log[countAtOrBelow(log.length, (i) => log[i]?.atNs ?? 0, tNs) - 1]
}

/** How many of n non-decreasing values (`at(i)`) are ≤ t (binary search). */
function countAtOrBelow(n: number, at: (i: number) => number, t: number): number {
  let lo = 0
  let hi = n
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (at(mid) <= t) lo = mid + 1
    else hi = mid
  }
  return lo
}

function insertRefresh(log: Refresh[], refresh: Refresh): void {
  let i = log.length
  while (i > 0 && (log[i - 1]?.atNs ?? 0) > refresh.atNs) i--
  log.splice(i, 0, refresh)
}
