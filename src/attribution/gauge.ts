/**
 * A fuel gauge's readings as energy. A gauge refreshes `current_now` every 0.2–10 s and the poll
 * loop reads the same value until it does; each refresh is the average current over the period
 * before it (Qualcomm's and MediaTek's gauges, TI's AverageCurrent, a Maxim gauge's conversion) —
 * or, on some phones, an exponential moving average of it. So the energy a reading stands for lies
 * *before* it, over its own period: holding a reading forward (what a trapezoid over the polls
 * does) puts every interval's energy one period late, which over a 1 s period moves a test's
 * opening burst out of its window and the quiet after it in.
 *
 * `gaugeCurve` keeps one reading per refresh, undoes a moving average when the gauge has one
 * (`averaging`), and gives each refresh its period's energy. Inside a period it spreads that energy
 * as `shape` says — a power model of the phone (the CPU's, from the schedule) above a floor for
 * what the model does not see — instead of evenly: a window that cuts a period gets the part the
 * model puts on its side of the cut. Every period's energy is the gauge's own, so the total over
 * whole periods does not depend on the model.
 */
import type { PowerSample, PowerSeries } from '../model/samples.js'
import { NS_PER_S } from '../model/units.js'
import { powerCurve, type EdgePolicy, type EnergyCurve } from './curve.js'

/** How a gauge's reading relates to the power before it. */
export type GaugeAveraging =
  /** The average over the period since the previous refresh. */
  | { readonly kind: 'period' }
  /** An exponential moving average with time constant `tauS`, refreshed every period. */
  | { readonly kind: 'iir'; readonly tauS: number }

/**
 * The gauge's refreshes: the first reading of each new value, and the very first reading. A
 * refresh that repeats the previous value (a quantized reading of a steady phone) shows no change
 * in the polls; left out, the next change would stand for both periods and spread one period's
 * burst over two. So where the time between two changes is close to a whole number of periods,
 * the missing refreshes are put back on that grid with the value they repeated, and before the
 * first change back to the first reading. `periodNs`: the gauge's period when known (a
 * calibration measured it), else the median time between changes.
 */
export function gaugeUpdates(series: PowerSeries, periodNs?: number): PowerSeries {
  const changes: PowerSample[] = []
  let last: number | undefined
  for (const s of series.samples) {
    if (s.powerW === last) continue
    changes.push(s)
    last = s.powerW
  }
  const period = periodNs ?? medianGapNs(changes)
  if (period === undefined || !(period > 0) || changes.length < 2)
    return { ...series, samples: changes }
  const first = changes[0] as PowerSample
  const samples: PowerSample[] = [first]
  // Before the first change: the first reading's value, refreshed on the period's grid.
  const firstChange = changes[1] as PowerSample
  const before = Math.floor((firstChange.tNs - first.tNs) / period - 0.5)
  for (let j = before; j >= 1; j--) {
    samples.push({ tNs: firstChange.tNs - j * period, powerW: first.powerW })
  }
  for (let i = 1; i < changes.length; i++) {
    const c = changes[i] as PowerSample
    const prev = changes[i - 1] as PowerSample
    if (i > 1) {
      const m = Math.round((c.tNs - prev.tNs) / period)
      for (let j = 1; j < m; j++) {
        samples.push({ tNs: prev.tNs + ((c.tNs - prev.tNs) * j) / m, powerW: prev.powerW })
      }
    }
    samples.push(c)
  }
  return { ...series, samples }
}

/** The median time between changes after the first (which is to the loop's first poll), ns. */
function medianGapNs(changes: readonly PowerSample[]): number | undefined {
  const gaps: number[] = []
  for (let i = 2; i < changes.length; i++) {
    gaps.push((changes[i] as PowerSample).tNs - (changes[i - 1] as PowerSample).tNs)
  }
  if (gaps.length === 0) return undefined
  gaps.sort((a, b) => a - b)
  return gaps[gaps.length >> 1]
}

/** The median time between refreshes, ns; undefined with fewer than two refreshes. */
export function gaugeUpdatePeriodNs(updates: PowerSeries): number | undefined {
  return medianGapNs(updates.samples)
}

/**
 * Each refresh's average power over its own period: the reading itself for a `period` gauge; for
 * an `iir` gauge, r_k = α·r_{k−1} + (1 − α)·p_k with α = e^(−Δt/τ) solved for p_k (the first
 * reading taken as steady).
 */
export function periodAverages(updates: PowerSeries, averaging: GaugeAveraging): PowerSeries {
  if (averaging.kind === 'period' || !(averaging.tauS > 0)) return updates
  const tauNs = averaging.tauS * NS_PER_S
  const samples = updates.samples.map((s, i) => {
    const prev = updates.samples[i - 1]
    if (prev === undefined) return s
    const alpha = Math.exp(-(s.tNs - prev.tNs) / tauNs)
    return { tNs: s.tNs, powerW: (s.powerW - alpha * prev.powerW) / (1 - alpha) }
  })
  return { ...updates, samples }
}

export interface GaugeCurveOptions {
  /** @default { kind: 'period' } */
  readonly averaging?: GaugeAveraging
  /**
   * How power is spread inside each period: the energy of a model of the phone's power (e.g. the
   * CPU model's), whose cumulative energy between two instants weighs where a period's energy
   * went; only over [shape.firstNs, shape.lastNs], flat elsewhere.
   */
  readonly shape?: EnergyCurve
  /** Power the shape does not see but the phone draws evenly, W (what keeps a quiet stretch from getting nothing). @default 0 */
  readonly floorW?: number
  /** @default 'error' */
  readonly edges?: EdgePolicy
  /** The gauge's refresh period, ns, when known (see `gaugeUpdates`). */
  readonly periodNs?: number
}

/** The energy curve of a fuel gauge's readings (see the module's comment). */
export function gaugeCurve(series: PowerSeries, options: GaugeCurveOptions = {}): EnergyCurve {
  const averages = periodAverages(
    gaugeUpdates(series, options.periodNs),
    options.averaging ?? { kind: 'period' },
  )
  const base = powerCurve(averages, {
    integration: 'interval-average',
    edges: options.edges ?? 'error',
  })
  const shape = options.shape
  if (shape === undefined) return base
  return new ShapedCurve(base, averages.samples, shape, options.floorW ?? 0)
}

/** A period-average curve whose energy inside each period follows a shape. */
class ShapedCurve implements EnergyCurve {
  readonly source: string
  readonly clock: EnergyCurve['clock']
  readonly kind = 'instant' as const
  readonly firstNs: number
  readonly lastNs: number
  readonly edges: EdgePolicy
  private readonly times: Float64Array

  constructor(
    private readonly base: EnergyCurve,
    samples: readonly PowerSample[],
    private readonly shape: EnergyCurve,
    private readonly floorW: number,
  ) {
    this.source = base.source
    this.clock = base.clock
    this.firstNs = base.firstNs
    this.lastNs = base.lastNs
    this.edges = base.edges
    this.times = Float64Array.from(samples, (s) => s.tNs)
  }

  /** The shape's cumulative weight at `t`: its energy (within its span) plus the floor's. */
  private weight(tNs: number): number {
    const s = this.shape
    const inside = Math.min(Math.max(tNs, s.firstNs), s.lastNs)
    return s.cumulativeJ(inside) + (this.floorW * tNs) / NS_PER_S
  }

  /** The period holding `tNs`: its start and end, or undefined outside the refreshes. */
  private period(tNs: number): readonly [number, number] | undefined {
    const t = this.times
    let lo = 0
    let hi = t.length - 1
    if (hi < 1 || !(tNs > (t[0] as number)) || tNs > (t[hi] as number)) return undefined
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1
      if ((t[mid] as number) < tNs) lo = mid
      else hi = mid
    }
    return [t[lo] as number, t[hi] as number]
  }

  cumulativeJ(tNs: number): number {
    const p = this.period(tNs)
    if (p === undefined) return this.base.cumulativeJ(tNs)
    const [a, b] = p
    const whole = this.base.energyJ(a, b)
    const span = this.weight(b) - this.weight(a)
    if (!(span > 0)) return this.base.cumulativeJ(tNs)
    return this.base.cumulativeJ(a) + (whole * (this.weight(tNs) - this.weight(a))) / span
  }

  energyJ(fromNs: number, toNs: number): number {
    return this.cumulativeJ(toNs) - this.cumulativeJ(fromNs)
  }

  powerAtW(tNs: number): number {
    const p = this.period(tNs)
    if (p === undefined) return this.base.powerAtW(tNs)
    const [a, b] = p
    const span = this.weight(b) - this.weight(a)
    if (!(span > 0)) return this.base.powerAtW(tNs)
    const s = this.shape
    const shapeW = tNs >= s.firstNs && tNs <= s.lastNs ? s.powerAtW(tNs) : 0
    return (this.base.energyJ(a, b) * (shapeW + this.floorW)) / span
  }

  readingIdAt(tNs: number): number {
    return this.base.readingIdAt(tNs)
  }

  countReadings(fromNs: number, toNs: number): number {
    return this.base.countReadings(fromNs, toNs)
  }

  readingTimesIn(fromNs: number, toNs: number): number[] {
    return this.base.readingTimesIn(fromNs, toNs)
  }

  countUpdates(fromNs: number, toNs: number): number {
    return this.base.countUpdates(fromNs, toNs)
  }
}
