/**
 * Energy curves: a power series or a set of cumulative rail counters turned into one cumulative
 * energy function `C(t)` on the series' clock, so that the energy of any interval is
 * `C(b) − C(a)`. Additivity `E(a,c) = E(a,b) + E(b,c)` holds by construction, and partial samples at
 * window edges are split pro rata (trapezoid: linear interpolation of power; zero-order hold: the
 * last reading held; cumulative counters: linear interpolation of the counter).
 */
import type { ClockName } from '../model/clock.js'
import type { PowerSeries, RailSeries } from '../model/samples.js'
import { NS_PER_S } from '../model/units.js'
import { AttributionErrors, attributionError } from './errors.js'

/**
 * How an instantaneous power series is integrated between readings.
 * - `trapezoid` (default): power varies linearly between readings.
 * - `zero-order-hold`: each reading holds until the next one (what a fuel gauge that updates in
 *   steps really does, and what PETrA's Eq. 3 assumes).
 * - `interval-average`: each reading is the average power since the previous one (sensors that
 *   report an average over their update period, e.g. power derived from an averaged current);
 *   holding such a reading forward would shift the energy one interval late.
 */
export type Integration = 'trapezoid' | 'zero-order-hold' | 'interval-average'

/**
 * What to do when asked about time outside the readings.
 * - `error` (default): throw `E_ATTR_WINDOW_NOT_COVERED`.
 * - `hold`: extend the first/last reading (instant) or the first/last segment's average power
 *   (cumulative) to the requested time.
 */
export type EdgePolicy = 'error' | 'hold'

export interface CurveOptions {
  /** @default 'trapezoid' */
  readonly integration?: Integration
  /** @default 'error' */
  readonly edges?: EdgePolicy
}

/** A cumulative energy function over time, built from one power source. */
export interface EnergyCurve {
  /** Source name from the series, e.g. `fuel-gauge`, `odpm`. */
  readonly source: string
  readonly clock: ClockName
  /** `instant` for a power series, `cumulative` for rail counters. */
  readonly kind: 'instant' | 'cumulative'
  /** First and last reading time (ns); outside this range the edge policy applies. */
  readonly firstNs: number
  readonly lastNs: number
  readonly edges: EdgePolicy
  /** Energy from `firstNs` to `tNs` in J (negative before `firstNs` under `hold`). */
  cumulativeJ(tNs: number): number
  /** Energy between two times in J, `cumulativeJ(toNs) − cumulativeJ(fromNs)`. */
  energyJ(fromNs: number, toNs: number): number
  /** Power in effect at `tNs` in W: interpolated (trapezoid), held (zero-order hold) or the counter's slope. */
  powerAtW(tNs: number): number
  /**
   * Identifier of the sensor reading in effect at `tNs`: readings that repeat the previous value
   * share an identifier (fuel gauges repeat a value between updates), so counting distinct
   * identifiers counts real sensor updates.
   */
  readingIdAt(tNs: number): number
  /** Readings whose time lies in `[fromNs, toNs]`. */
  countReadings(fromNs: number, toNs: number): number
  /** Times of the readings in `[fromNs, toNs]`, ns (for counters: the union of the rails' times). */
  readingTimesIn(fromNs: number, toNs: number): number[]
  /** Readings in `(fromNs, toNs]` whose value differs from the previous reading (real updates). */
  countUpdates(fromNs: number, toNs: number): number
}

/**
 * The window's sensor intervals as boundaries: the window's edges and every reading strictly
 * inside it (interval j is [bounds[j], bounds[j + 1])).
 */
export function sensorIntervalBounds(
  curve: EnergyCurve,
  window: { readonly startNs: number; readonly endNs: number },
): Float64Array {
  const inside = curve.readingTimesIn(window.startNs, window.endNs)
  // Filled in place (no spread of a 25 k-element array per rail and window).
  const bounds = new Float64Array(inside.length + 2)
  let m = 0
  bounds[m++] = window.startNs
  for (let i = 0; i < inside.length; i++) {
    const t = inside[i] as number
    if (t > window.startNs && t < window.endNs) bounds[m++] = t
  }
  bounds[m++] = window.endNs
  return m === bounds.length ? bounds : bounds.slice(0, m)
}

/** Index of the last element `≤ t` in a sorted array, −1 if none. */
export function lastAtOrBefore(times: Float64Array, t: number): number {
  let lo = 0
  let hi = times.length - 1
  if (hi < 0 || t < (times[0] as number)) return -1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if ((times[mid] as number) <= t) lo = mid
    else hi = mid - 1
  }
  return lo
}

function firstAtOrAfter(times: Float64Array, t: number): number {
  const i = lastAtOrBefore(times, t)
  return i >= 0 && times[i] === t ? i : i + 1
}

type Shape = 'trapezoid' | 'zero-order-hold' | 'interval-average' | 'linear-counter'

/** Shared implementation over breakpoints `t`, values `v` (power or counter) and prefix energy. */
class PiecewiseCurve implements EnergyCurve {
  readonly firstNs: number
  readonly lastNs: number

  constructor(
    readonly source: string,
    readonly clock: ClockName,
    readonly kind: 'instant' | 'cumulative',
    readonly edges: EdgePolicy,
    private readonly shape: Shape,
    private readonly t: Float64Array,
    private readonly v: Float64Array,
    /** Energy from t[0] to t[i], J. */
    private readonly prefix: Float64Array,
    /** Run id of each reading: increments when the value changes. */
    private readonly runId: Int32Array,
  ) {
    this.firstNs = t[0] as number
    this.lastNs = t[t.length - 1] as number
  }

  /** Segment found by the last lookup: sorted queries (the common case) skip the binary search. */
  private hint = 0

  /** Index of the last breakpoint ≤ tNs, −1 if none. */
  private locate(tNs: number): number {
    const t = this.t
    const h = this.hint
    const th = t[h] as number
    if (tNs >= th) {
      const next = t[h + 1]
      if (next === undefined || tNs < next) return h
      const after = t[h + 2]
      if (after === undefined || tNs < after) return (this.hint = h + 1)
    }
    const i = lastAtOrBefore(t, tNs)
    if (i >= 0) this.hint = i
    return i
  }

  private check(tNs: number): void {
    if (!Number.isFinite(tNs)) {
      throw attributionError(
        AttributionErrors.NOT_FINITE,
        `asked for the energy at a non-finite time (${tNs})`,
        'Check the window and the clock mapping that produced these timestamps.',
        { format: this.source },
      )
    }
    if (this.edges === 'error' && (tNs < this.firstNs || tNs > this.lastNs)) {
      throw attributionError(
        AttributionErrors.WINDOW_NOT_COVERED,
        `time ${tNs} ns lies outside the power data (${this.firstNs} → ${this.lastNs} ns on ${this.clock})`,
        'Start the power collector before the window opens and stop it after it closes, or pass `edges: "hold"` to extend the edge readings.',
        { format: this.source, tNs, firstNs: this.firstNs, lastNs: this.lastNs },
      )
    }
  }

  /** Slope (W) of segment i (between t[i] and t[i+1]) for counters; power at t[i] otherwise. */
  private segmentPowerW(i: number): number {
    const n = this.t.length
    if (this.shape !== 'linear-counter') return this.v[Math.max(0, Math.min(i, n - 1))] as number
    if (n < 2) return 0
    const k = Math.max(0, Math.min(i, n - 2))
    const dt = (this.t[k + 1] as number) - (this.t[k] as number)
    return (((this.v[k + 1] as number) - (this.v[k] as number)) * NS_PER_S) / dt
  }

  cumulativeJ(tNs: number): number {
    this.check(tNs)
    const t = this.t
    const n = t.length
    const i = this.locate(tNs)
    if (i < 0) {
      // Before the first reading (hold): extend the first reading / first segment backwards.
      return -((this.firstNs - tNs) * this.segmentPowerW(0)) / NS_PER_S
    }
    const base = this.prefix[i] as number
    const dt = tNs - (t[i] as number)
    if (dt === 0) return base
    if (i >= n - 1) {
      return base + (dt * this.segmentPowerW(n - 1)) / NS_PER_S
    }
    const span = (t[i + 1] as number) - (t[i] as number)
    const v0 = this.v[i] as number
    const v1 = this.v[i + 1] as number
    switch (this.shape) {
      case 'zero-order-hold':
        return base + (v0 * dt) / NS_PER_S
      case 'interval-average':
        return base + (v1 * dt) / NS_PER_S
      case 'trapezoid': {
        const slope = (v1 - v0) / span
        return base + (v0 * dt + (slope * dt * dt) / 2) / NS_PER_S
      }
      case 'linear-counter':
        return base + ((v1 - v0) * dt) / span
    }
  }

  energyJ(fromNs: number, toNs: number): number {
    return this.cumulativeJ(toNs) - this.cumulativeJ(fromNs)
  }

  powerAtW(tNs: number): number {
    this.check(tNs)
    const t = this.t
    const n = t.length
    const i = this.locate(tNs)
    if (i < 0) return this.segmentPowerW(0)
    if (this.shape === 'linear-counter') return this.segmentPowerW(i)
    if (this.shape === 'zero-order-hold' || i >= n - 1) return this.v[i] as number
    if (this.shape === 'interval-average') return this.v[tNs === t[i] ? i : i + 1] as number
    const v0 = this.v[i] as number
    const v1 = this.v[i + 1] as number
    const t0 = t[i] as number
    return v0 + ((v1 - v0) * (tNs - t0)) / ((t[i + 1] as number) - t0)
  }

  readingIdAt(tNs: number): number {
    const i = this.locate(tNs)
    if (this.shape === 'linear-counter') {
      // A counter segment is one reading interval: id = segment index.
      return Math.max(0, Math.min(i, this.t.length - 2))
    }
    if (this.shape === 'interval-average' && i >= 0 && i < this.t.length - 1 && tNs !== this.t[i]) {
      return this.runId[i + 1] as number
    }
    return this.runId[Math.max(0, i)] as number
  }

  countReadings(fromNs: number, toNs: number): number {
    if (toNs < fromNs) return 0
    return lastAtOrBefore(this.t, toNs) - firstAtOrAfter(this.t, fromNs) + 1
  }

  readingTimesIn(fromNs: number, toNs: number): number[] {
    if (toNs < fromNs) return []
    return Array.from(
      this.t.subarray(firstAtOrAfter(this.t, fromNs), lastAtOrBefore(this.t, toNs) + 1),
    )
  }

  countUpdates(fromNs: number, toNs: number): number {
    if (toNs <= fromNs) return 0
    const last = lastAtOrBefore(this.t, toNs)
    let first = firstAtOrAfter(this.t, fromNs)
    if (first < this.t.length && this.t[first] === fromNs) first++
    let updates = 0
    for (let i = Math.max(first, 1); i <= last; i++) {
      // Power: a new value; counter: it moved (a counter that was not refreshed repeats itself).
      if (this.v[i] !== this.v[i - 1]) updates++
    }
    return updates
  }
}

function checkTimes(
  source: string,
  times: ArrayLike<number>,
  values: ArrayLike<number>,
  what: string,
): void {
  for (let i = 0; i < times.length; i++) {
    const t = times[i] as number
    const v = values[i] as number
    if (!Number.isFinite(t) || !Number.isFinite(v)) {
      throw attributionError(
        AttributionErrors.NOT_FINITE,
        `reading ${i} has a non-finite ${Number.isFinite(t) ? what : 'time'} (${Number.isFinite(t) ? v : t})`,
        'Drop or repair the reading in the collector; attribution never guesses missing values.',
        { format: source, index: i },
      )
    }
    if (i > 0 && !(t > (times[i - 1] as number))) {
      throw attributionError(
        AttributionErrors.UNSORTED,
        `reading ${i} at ${t} ns is not after reading ${i - 1} at ${times[i - 1]} ns`,
        'Sort the readings by time and drop duplicates before attribution.',
        { format: source, index: i },
      )
    }
  }
}

function runIds(values: Float64Array): Int32Array {
  const ids = new Int32Array(values.length)
  let id = 0
  for (let i = 1; i < values.length; i++) {
    if (values[i] !== values[i - 1]) id++
    ids[i] = id
  }
  return ids
}

/** Builds the cumulative energy curve of an instantaneous power series. */
export function powerCurve(series: PowerSeries, options: CurveOptions = {}): EnergyCurve {
  const integration = options.integration ?? 'trapezoid'
  const edges = options.edges ?? 'error'
  if (
    integration !== 'trapezoid' &&
    integration !== 'zero-order-hold' &&
    integration !== 'interval-average'
  ) {
    throw attributionError(
      AttributionErrors.INVALID_OPTION,
      `unknown integration "${String(integration)}"`,
      'Use "trapezoid", "zero-order-hold" or "interval-average".',
    )
  }
  const n = series.samples.length
  if (n < 1) {
    throw attributionError(
      AttributionErrors.TOO_FEW_SAMPLES,
      `the power series has no readings`,
      'Check that the power collector ran during the window.',
      { format: series.source },
    )
  }
  const t = new Float64Array(n)
  const v = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const s = series.samples[i]
    t[i] = s?.tNs ?? NaN
    v[i] = s?.powerW ?? NaN
  }
  checkTimes(series.source, t, v, 'power')
  const prefix = new Float64Array(n)
  for (let i = 1; i < n; i++) {
    const dt = (t[i] as number) - (t[i - 1] as number)
    const e =
      integration === 'trapezoid'
        ? ((((v[i - 1] as number) + (v[i] as number)) / 2) * dt) / NS_PER_S
        : integration === 'interval-average'
          ? ((v[i] as number) * dt) / NS_PER_S
          : ((v[i - 1] as number) * dt) / NS_PER_S
    prefix[i] = (prefix[i - 1] as number) + e
  }
  return new PiecewiseCurve(
    series.source,
    series.clock,
    'instant',
    edges,
    integration,
    t,
    v,
    prefix,
    runIds(v),
  )
}

/** Builds the curve of one cumulative rail counter (energy by difference, linear at the edges). */
export function railCurve(
  rail: RailSeries,
  options: Pick<CurveOptions, 'edges'> = {},
): EnergyCurve {
  return counterCurve(rail.source, rail.clock, [rail], options.edges ?? 'error', rail.rail)
}

/**
 * Builds one curve for the sum of several rails. The sum of piecewise-linear counters is
 * piecewise linear on the union of their reading times, so the total is exact, not resampled.
 */
export function railsCurve(
  rails: readonly RailSeries[],
  options: Pick<CurveOptions, 'edges'> = {},
): EnergyCurve {
  const first = rails[0]
  if (first === undefined) {
    throw attributionError(
      AttributionErrors.TOO_FEW_SAMPLES,
      'no power rails were given',
      'Pass at least one rail series, or use a power series instead.',
    )
  }
  for (const r of rails) {
    if (r.clock !== first.clock) {
      throw attributionError(
        AttributionErrors.CLOCK_MISMATCH,
        `rail ${r.rail} is on clock ${r.clock} but rail ${first.rail} is on ${first.clock}`,
        'Map every rail onto one clock before attribution.',
        { format: r.source },
      )
    }
  }
  return counterCurve(first.source, first.clock, rails, options.edges ?? 'error', 'rails')
}

function counterCurve(
  source: string,
  clock: ClockName,
  rails: readonly RailSeries[],
  edges: EdgePolicy,
  label: string,
): EnergyCurve {
  const perRail = rails.map((rail) => {
    const n = rail.readings.length
    const name = `rail ${rail.rail}`
    if (n < 2) {
      throw attributionError(
        AttributionErrors.TOO_FEW_SAMPLES,
        `${name}: a cumulative counter needs at least 2 readings, got ${n}`,
        'Read the rail counters at least once before and once after the window.',
        { format: source, rail: rail.rail },
      )
    }
    const t = new Float64Array(n)
    const c = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      const r = rail.readings[i]
      t[i] = r?.tNs ?? NaN
      c[i] = r?.energyJ ?? NaN
    }
    checkTimes(`${source} rail ${rail.rail}`, t, c, 'energy')
    for (let i = 1; i < n; i++) {
      if ((c[i] as number) < (c[i - 1] as number)) {
        throw attributionError(
          AttributionErrors.COUNTER_RESET,
          `${name}: counter went backwards at reading ${i} (${c[i - 1]} → ${c[i]} J)`,
          'The counter was reset or wrapped during the window; discard this window and measure again.',
          { format: source, rail: rail.rail, index: i },
        )
      }
    }
    return { t, c }
  })
  // Union of breakpoints inside the common coverage of every rail.
  const lo = Math.max(...perRail.map((r) => r.t[0] as number))
  const hi = Math.min(...perRail.map((r) => r.t[r.t.length - 1] as number))
  if (!(hi > lo)) {
    throw attributionError(
      AttributionErrors.WINDOW_NOT_COVERED,
      `the rails' readings do not overlap in time (${label})`,
      'Read all rails in the same polling loop so their readings cover the same span.',
      { format: source },
    )
  }
  // Indexed loops, not for…of over typed arrays: these run over every reading of every rail.
  let count = 0
  for (const r of perRail) {
    for (let i = 0; i < r.t.length; i++) {
      const x = r.t[i] as number
      if (x >= lo && x <= hi) count++
    }
  }
  const all = new Float64Array(count)
  count = 0
  for (const r of perRail) {
    for (let i = 0; i < r.t.length; i++) {
      const x = r.t[i] as number
      if (x >= lo && x <= hi) all[count++] = x
    }
  }
  // Numeric order (the times are checked finite); each time once.
  all.sort()
  let m = 0
  for (let i = 0; i < all.length; i++) {
    const x = all[i] as number
    if (m === 0 || x !== all[m - 1]) all[m++] = x
  }
  const t = all.slice(0, m)
  const total = new Float64Array(t.length)
  for (const r of perRail) {
    const c0 = interpolate(r.t, r.c, lo)
    let k = 0
    for (let i = 0; i < t.length; i++) {
      const x = t[i] as number
      while (k + 1 < r.t.length - 1 && (r.t[k + 1] as number) <= x) k++
      const ta = r.t[k] as number
      const tb = r.t[k + 1] as number
      const ca = r.c[k] as number
      const cb = r.c[k + 1] as number
      total[i] = (total[i] as number) + ca + ((cb - ca) * (x - ta)) / (tb - ta) - c0
    }
  }
  // For counters, prefix energy = counter value relative to the first breakpoint.
  return new PiecewiseCurve(
    source,
    clock,
    'cumulative',
    edges,
    'linear-counter',
    t,
    total,
    total,
    new Int32Array(t.length),
  )
}

function interpolate(t: Float64Array, c: Float64Array, x: number): number {
  const i = Math.max(0, Math.min(lastAtOrBefore(t, x), t.length - 2))
  const ta = t[i] as number
  const tb = t[i + 1] as number
  return (c[i] as number) + (((c[i + 1] as number) - (c[i] as number)) * (x - ta)) / (tb - ta)
}
