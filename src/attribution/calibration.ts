/**
 * Calibrating the CPU power model against what the phone measures. A shipped power profile gives
 * the OEM's nominal currents, not this phone's silicon (real parts depart by 10–30% per cluster).
 * Over spans in which the phone's load was known and steady — a busy loop pinned to one core of
 * a cluster, then to all of them, then none (the way `power-calibrate` does it on Linux) — the
 * fuel gauge's energy is fitted as
 *
 *   E_gauge = P_other·Δt + Σ_k s_k·E_k + s_a·E_active
 *
 * where E_k and E_active are the model's nominal energies of cluster k and of `cpu.active` over the
 * span (from the schedule the phone recorded), P_other the rest of the phone (screen, radios,
 * idle), assumed steady over the calibration. Weighted least squares, each span weighted by the
 * gauge's noise over it; a scale's standard error comes from the weights and, when the spans
 * scatter more than the gauge's noise says, from the scatter. A scale the spans cannot tell (its
 * cluster never ran alone, or its error is too large) stays at the profile's value and says so.
 *
 * `cpu.active` is a few percent of a loaded core's current and shows only as the part of a phase's
 * power that does not grow with its cores, so a fast gauge's short phases seldom tell it to 10%.
 * Keeping the profile's value then would throw the measurement away (a scale of 0.6 ± 0.08 was
 * replaced by 1, and every light method was charged ~8% too much), so its column has a prior
 * instead: the profile's value, as far as silicon departs from a profile (`PROFILE_RELATIVE_SD`).
 * The fit weighs the two by their precision; with no measurement it is the profile's value.
 */
import { NS_PER_S } from '../model/units.js'
import type { CpuModelScales } from './cpu-model.js'

/** One steady stretch of the calibration. */
export interface CalibrationSpan {
  /** What ran: `idle`, or the cluster and how many of its cores were loaded. */
  readonly label: string
  readonly durationS: number
  /** The gauge's energy over the span, J. */
  readonly measuredJ: number
  /** Its standard error, J (the gauge's noise over the span's independent readings). */
  readonly measuredSeJ: number
  /** The model's nominal energy per cluster over the span, J. */
  readonly clusterJ: readonly number[]
  /** The model's nominal `cpu.active` energy over the span, J. */
  readonly activeJ: number
}

/** The result of a calibration fit. */
export interface CpuCalibrationFit {
  readonly scales: CpuModelScales
  /** Standard error of each cluster's scale; undefined where the spans could not tell it. */
  readonly clusterSe: readonly (number | undefined)[]
  /** Standard error of the `cpu.active` scale; undefined where it could not be told. */
  readonly activeSe?: number
  /** The rest of the phone's power during the calibration, W. */
  readonly otherPowerW: number
  /** Root mean square of the spans' residuals over their standard errors (≈ 1 when the model fits). */
  readonly residualRatio: number
}

/**
 * How far real silicon departs from its power profile, one standard deviation: 10–30% per cluster
 * and for `cpu.active`, i.e. ±30% at 95%.
 */
export const PROFILE_RELATIVE_SD = 0.3 / 1.96

/** A scale is trusted when its standard error is at most this share of it. */
export const MAX_SCALE_RELATIVE_SE = 0.1
/** A fitted scale outside this range is no calibration but a broken measurement. */
const PLAUSIBLE_SCALE: readonly [number, number] = [0.25, 4]

/**
 * Fits the scales. Clusters whose scale cannot be told (never loaded in a span, an implausible
 * value, a standard error above `MAX_SCALE_RELATIVE_SE`) keep 1 and are fitted again without that
 * column. `cpu.active` is fitted with its prior (1 ± `PROFILE_RELATIVE_SD`), and kept at 1 only
 * when no span drew it or its fit is implausible.
 */
export function fitCpuScales(
  spans: readonly CalibrationSpan[],
  clusterCount: number,
): CpuCalibrationFit {
  let fitCluster = Array.from({ length: clusterCount }, (_, k) =>
    spans.some((s) => (s.clusterJ[k] ?? 0) > 0),
  )
  let fitActive = spans.some((s) => s.activeJ > 0)
  for (let round = 0; round <= clusterCount + 1; round++) {
    const fit = solve(spans, clusterCount, fitCluster, fitActive)
    if (fit === undefined) {
      // Too few spans for the columns: drop cpu.active first (the least separable), then give up.
      if (fitActive) {
        fitActive = false
        continue
      }
      return nominal(spans, clusterCount)
    }
    const plausible = (scale: number): boolean =>
      scale >= PLAUSIBLE_SCALE[0] && scale <= PLAUSIBLE_SCALE[1]
    const bad = (scale: number, se: number | undefined): boolean =>
      se === undefined || !plausible(scale) || se > MAX_SCALE_RELATIVE_SE * scale
    if (fitActive && (fit.activeSe === undefined || !plausible(fit.scales.active))) {
      fitActive = false
      continue
    }
    const drop = fitCluster.map((on, k) =>
      on ? bad(fit.scales.clusters[k] ?? 1, fit.clusterSe[k]) : false,
    )
    if (!drop.some((d) => d)) return fit
    fitCluster = fitCluster.map((on, k) => on && !drop[k])
  }
  return nominal(spans, clusterCount)
}

function nominal(spans: readonly CalibrationSpan[], clusterCount: number): CpuCalibrationFit {
  const t = spans.reduce((a, s) => a + s.durationS, 0)
  const e = spans.reduce((a, s) => a + s.measuredJ, 0)
  return {
    scales: { clusters: Array.from({ length: clusterCount }, () => 1), active: 1 },
    clusterSe: Array.from({ length: clusterCount }, () => undefined),
    otherPowerW: t > 0 ? e / t : 0,
    residualRatio: Number.NaN,
  }
}

/**
 * Weighted least squares with the chosen columns; columns left out enter at scale 1 (their nominal
 * energy is moved to the left-hand side); `cpu.active` with its prior unless `activePrior` is
 * false (choosing a gauge's time constant compares plain fits). `undefined` when the system is
 * singular or has no degrees of freedom left for the scatter.
 */
function solve(
  spans: readonly CalibrationSpan[],
  clusterCount: number,
  fitCluster: readonly boolean[],
  fitActive: boolean,
  activePrior = true,
): CpuCalibrationFit | undefined {
  const columns: ((s: CalibrationSpan) => number)[] = [(s) => s.durationS]
  const clusterColumn: number[] = []
  for (let k = 0; k < clusterCount; k++) {
    if (!fitCluster[k]) continue
    clusterColumn[k] = columns.length
    columns.push((s) => s.clusterJ[k] ?? 0)
  }
  const activeColumn = fitActive ? columns.length : undefined
  if (fitActive) columns.push((s) => s.activeJ)
  const p = columns.length
  const n = spans.length
  if (n < p) return undefined
  const fixed = (s: CalibrationSpan): number =>
    (fitActive ? 0 : s.activeJ) + s.clusterJ.reduce((a, j, k) => a + (fitCluster[k] ? 0 : j), 0)
  // Normal equations of the weighted problem.
  const xtx = Array.from({ length: p }, () => new Float64Array(p))
  const xty = new Float64Array(p)
  const weight = (s: CalibrationSpan): number => 1 / Math.max(s.measuredSeJ, 1e-9) ** 2
  for (const s of spans) {
    const w = weight(s)
    const x = columns.map((c) => c(s))
    const y = s.measuredJ - fixed(s)
    for (let i = 0; i < p; i++) {
      xty[i] = (xty[i] as number) + w * (x[i] as number) * y
      const row = xtx[i] as Float64Array
      for (let j = 0; j < p; j++)
        row[j] = (row[j] as number) + w * (x[i] as number) * (x[j] as number)
    }
  }
  const dof = n - p
  // Solved with the data's weights divided by `inflate`: spans that scatter more than the gauge's
  // noise says widen every error accordingly — but not the prior's, which is no measurement.
  const solveWith = (
    inflate: number,
  ): { inverse: number[][]; beta: number[]; chi2: number } | undefined => {
    const a = xtx.map((row) => Float64Array.from(row, (v) => v / inflate))
    const b = Float64Array.from(xty, (v) => v / inflate)
    if (activeColumn !== undefined && activePrior) {
      // The prior on cpu.active: one more observation, s_a = 1 with PROFILE_RELATIVE_SD.
      const w = 1 / PROFILE_RELATIVE_SD ** 2
      const row = a[activeColumn] as Float64Array
      row[activeColumn] = (row[activeColumn] as number) + w
      b[activeColumn] = (b[activeColumn] as number) + w
    }
    const inverse = invert(a)
    if (inverse === undefined) return undefined
    const beta = Array.from({ length: p }, (_, i) =>
      (inverse[i] ?? []).reduce((sum, v, j) => sum + v * (b[j] ?? 0), 0),
    )
    let chi2 = 0
    for (const s of spans) {
      const predicted = columns.reduce((sum, c, i) => sum + c(s) * (beta[i] as number), 0)
      chi2 += (s.measuredJ - fixed(s) - predicted) ** 2 * weight(s)
    }
    return { inverse, beta, chi2 }
  }
  const first = solveWith(1)
  if (first === undefined) return undefined
  const inflate = dof > 0 ? Math.max(1, first.chi2 / dof) : 1
  const solved = inflate > 1 ? (solveWith(inflate) ?? first) : first
  const { inverse, beta, chi2 } = solved
  const se = (i: number): number => Math.sqrt(inverse[i]?.[i] ?? Number.NaN)
  return {
    scales: {
      clusters: Array.from({ length: clusterCount }, (_, k) => {
        const c = clusterColumn[k]
        return c === undefined ? 1 : (beta[c] as number)
      }),
      active: activeColumn === undefined ? 1 : (beta[activeColumn] as number),
    },
    clusterSe: Array.from({ length: clusterCount }, (_, k) => {
      const c = clusterColumn[k]
      return c === undefined ? undefined : se(c)
    }),
    ...(activeColumn === undefined ? {} : { activeSe: se(activeColumn) }),
    otherPowerW: beta[0] as number,
    residualRatio: dof > 0 ? Math.sqrt(chi2 / dof) : Number.NaN,
  }
}

/** Gauss–Jordan inverse with partial pivoting; undefined when singular (relative to its scale). */
function invert(m: readonly ArrayLike<number>[]): number[][] | undefined {
  const n = m.length
  // Scaled to a unit diagonal first: the columns differ by orders of magnitude.
  const d = Array.from({ length: n }, (_, i) => Math.sqrt(Math.abs(m[i]?.[i] ?? 0)) || 1)
  const a = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => (m[i]?.[j] ?? 0) / ((d[i] ?? 1) * (d[j] ?? 1))),
  )
  const inv = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j): number => (i === j ? 1 : 0)),
  )
  const at = (x: number[][], i: number, j: number): number => x[i]?.[j] ?? 0
  for (let c = 0; c < n; c++) {
    let best = c
    for (let r = c + 1; r < n; r++) if (Math.abs(at(a, r, c)) > Math.abs(at(a, best, c))) best = r
    ;[a[c], a[best]] = [a[best] ?? [], a[c] ?? []]
    ;[inv[c], inv[best]] = [inv[best] ?? [], inv[c] ?? []]
    const pivot = at(a, c, c)
    if (!(Math.abs(pivot) > 1e-10)) return undefined
    const rowA = a[c] ?? []
    const rowI = inv[c] ?? []
    for (let j = 0; j < n; j++) {
      rowA[j] = at(a, c, j) / pivot
      rowI[j] = at(inv, c, j) / pivot
    }
    for (let r = 0; r < n; r++) {
      const f = at(a, r, c)
      if (r === c || f === 0) continue
      const ra = a[r] ?? []
      const ri = inv[r] ?? []
      for (let j = 0; j < n; j++) {
        ra[j] = at(a, r, j) - f * (rowA[j] ?? 0)
        ri[j] = at(inv, r, j) - f * (rowI[j] ?? 0)
      }
    }
  }
  return inv.map((row, i) => row.map((v, j) => v / ((d[i] ?? 1) * (d[j] ?? 1))))
}

/** Time constants tried for a gauge that averages (s); 0 is a plain period average. */
export const GAUGE_TAU_GRID_S: readonly number[] = [0, 0.5, 1, 2, 3, 5, 8, 12, 20, 30]

/** A calibration over a gauge's refreshes: the scales, and how the gauge averages. */
export interface GaugeCalibrationFit extends CpuCalibrationFit {
  /** The time constant that fits the refreshes best, s (0: each reading is its period's average). */
  readonly gaugeTauS: number
  /** The gauge's refresh period, s (median). */
  readonly gaugePeriodS: number
  /** The gauge's noise around the fit, W (one refresh). */
  readonly noiseW: number
  /** Refreshes used. */
  readonly updates: number
}

/**
 * Fits the scales over every refresh of the gauge during a calibration: reading k ≈
 * P_other + Σ s_c·x_c(k) + s_a·x_a(k), where x is the model's average power over refresh k's period
 * — passed through the gauge's moving average when it has one: for each time constant of
 * `GAUGE_TAU_GRID_S` the regressors are filtered as the gauge would filter power
 * (z_k = α·z_{k−1} + (1 − α)·x_k, α = e^(−Δt/τ)), and the one whose fit leaves the least residual
 * wins. Using every refresh, transitions included (the schedule says when each loop started), a
 * gauge that averages over several seconds still calibrates from phases of a few refreshes.
 * Errors come from the residuals' scatter. `modelAt` gives the model's cumulative nominal energies
 * at the refreshes' times.
 */
export function fitGaugeCalibration(
  refreshTimesNs: readonly number[],
  readingsW: readonly number[],
  energies: { readonly clusters: readonly ArrayLike<number>[]; readonly active: ArrayLike<number> },
  clusterCount: number,
): GaugeCalibrationFit | undefined {
  const n = refreshTimesNs.length
  if (n < clusterCount + 4) return undefined
  const dtS: number[] = []
  const x: { clusters: number[]; active: number }[] = []
  for (let k = 1; k < n; k++) {
    const d = ((refreshTimesNs[k] as number) - (refreshTimesNs[k - 1] as number)) / NS_PER_S
    dtS.push(d)
    x.push({
      clusters: Array.from(
        { length: clusterCount },
        (_, c) =>
          (((energies.clusters[c]?.[k] as number) ?? 0) -
            ((energies.clusters[c]?.[k - 1] as number) ?? 0)) /
          d,
      ),
      active:
        (((energies.active[k] as number) ?? 0) - ((energies.active[k - 1] as number) ?? 0)) / d,
    })
  }
  const spansFor = (tauS: number, seW: number): CalibrationSpan[] => {
    let z = x[0] as { clusters: number[]; active: number }
    return x.map((xk, i) => {
      const alpha = tauS > 0 ? Math.exp(-(dtS[i] as number) / tauS) : 0
      z = {
        clusters: xk.clusters.map((v, c) => alpha * (z.clusters[c] as number) + (1 - alpha) * v),
        active: alpha * z.active + (1 - alpha) * xk.active,
      }
      return {
        label: `refresh ${i + 1}`,
        durationS: 1,
        measuredJ: readingsW[i + 1] as number,
        measuredSeJ: seW,
        clusterJ: z.clusters,
        activeJ: z.active,
      }
    })
  }
  let best: { tauS: number; rss: number } | undefined
  for (const tauS of GAUGE_TAU_GRID_S) {
    const spans = spansFor(tauS, 1)
    const loaded = Array.from({ length: clusterCount }, (_, c) =>
      spans.some((s) => (s.clusterJ[c] ?? 0) > 0),
    )
    const fit =
      solve(spans, clusterCount, loaded, true, false) ?? solve(spans, clusterCount, loaded, false)
    if (fit === undefined) continue
    const rss = residualSumOfSquares(spans, fit)
    if (best === undefined || rss < best.rss) best = { tauS, rss }
  }
  if (best === undefined) return undefined
  const p = clusterCount + 2
  const noiseW = Math.sqrt(best.rss / Math.max(1, x.length - p))
  const fit = fitCpuScales(spansFor(best.tauS, Math.max(noiseW, 1e-6)), clusterCount)
  const sorted = [...dtS].sort((a, b) => a - b)
  return {
    ...fit,
    gaugeTauS: best.tauS,
    gaugePeriodS: sorted[sorted.length >> 1] ?? 0,
    noiseW,
    updates: x.length,
  }
}

function residualSumOfSquares(spans: readonly CalibrationSpan[], fit: CpuCalibrationFit): number {
  let rss = 0
  for (const s of spans) {
    const predicted =
      fit.otherPowerW * s.durationS +
      s.clusterJ.reduce((a, j, c) => a + j * (fit.scales.clusters[c] ?? 1), 0) +
      s.activeJ * fit.scales.active
    rss += (s.measuredJ - predicted) ** 2
  }
  return rss
}
