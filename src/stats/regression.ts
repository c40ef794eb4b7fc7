/**
 * Robust linear regression by iteratively reweighted least squares (IRLS) with Tukey's bisquare,
 * as vLens (Li et al., ISSTA 2013) uses to solve per-path energy across many windows while
 * ignoring GC and thread-switch spikes. Scale: s = 1.4826 · median |rᵢ| (MAD of the residuals about
 * zero, MASS::rlm's default). Bisquare weight: u = r/(c·s), w = (1 − u²)² for |u| < 1, else 0,
 * c = 4.685 (95% efficiency under normal errors). Starts from OLS, then a few Huber steps
 * (k = 1.345) so the non-convex bisquare starts near the robust optimum.
 */
import { EnergyError } from '../model/index.js'
import { StatsErrors } from './errors.js'
import { MAD_TO_SD } from './descriptive.js'
import { invalidArgument } from './samples.js'

export interface RobustRegressionOptions {
  /** Bisquare tuning constant c. @default 4.685 */
  readonly tuning?: number
  /** Maximum IRLS iterations. @default 50 */
  readonly maxIterations?: number
  /** Convergence: max |Δβⱼ| ≤ tolerance · max(1, |βⱼ|). @default 1e-10 */
  readonly tolerance?: number
  /** Names of the columns of X, used in errors (e.g. method or test names). @default `x0`, `x1`, … */
  readonly columnNames?: readonly string[]
}

export interface RobustRegressionResult {
  /** β, one per column of X, in the unit y/x. */
  readonly coefficients: readonly number[]
  /** Final bisquare weight of each row, in [0, 1]. */
  readonly weights: readonly number[]
  /** Rows whose final weight is 0 (|rᵢ| ≥ c·s). */
  readonly outliers: readonly number[]
  /** Robust residual scale s (unit of y). */
  readonly scale: number
  readonly iterations: number
  readonly converged: boolean
  /** Final residuals yᵢ − xᵢ·β. */
  readonly residuals: readonly number[]
}

/** Relative tolerance of the rank test (Gram–Schmidt residual norm / column norm). */
const RANK_TOL = 1e-9

/**
 * Fits y ≈ X·β robustly. X is n × p (rows = observations/windows, columns = regressors; add a
 * column of ones yourself for an intercept).
 * @throws EnergyError `E_STATS_RANK_DEFICIENT` naming the columns that never vary (all zero) or
 *   that are linear combinations of earlier columns; `E_STATS_SHAPE_MISMATCH` on ragged input.
 */
export function robustRegression(
  X: readonly (readonly number[])[],
  y: readonly number[],
  options: RobustRegressionOptions = {},
): RobustRegressionResult {
  const c = options.tuning ?? 4.685
  const maxIterations = options.maxIterations ?? 50
  const tolerance = options.tolerance ?? 1e-10
  if (!(c > 0)) throw invalidArgument(`tuning constant ${c} must be > 0`, 'Use 4.685.')
  const n = y.length
  const p = X[0]?.length ?? 0
  const names = columnNames(p, options.columnNames)
  checkShape(X, y, p)
  if (n < p) {
    throw new EnergyError({
      code: StatsErrors.RANK_DEFICIENT,
      message: `regression has ${p} unknowns but only ${n} observations`,
      hint: 'Measure more windows than there are columns (methods/paths), or merge columns.',
      details: { rows: n, columns: p },
    })
  }
  checkRank(X, names)

  let beta = weightedLeastSquares(X, y, new Array<number>(n).fill(1), names)
  let residuals = residualsOf(X, y, beta)
  let scale = madScale(residuals)
  const yScale = y.reduce((m, v) => Math.max(m, Math.abs(v)), 1)
  let weights = new Array<number>(n).fill(1)
  let iterations = 0
  let converged = false
  const huberSteps = 5
  for (let it = 0; it < maxIterations + huberSteps; it++) {
    if (scale <= 1e-12 * yScale) {
      // Exact fit for at least half of the rows: keep those, drop the rest, refit once.
      weights = residuals.map((r) => (Math.abs(r) <= 1e-9 * yScale ? 1 : 0))
      beta = weightedLeastSquares(X, y, weights, names)
      residuals = residualsOf(X, y, beta)
      scale = madScale(residuals)
      converged = true
      iterations++
      break
    }
    const huber = it < huberSteps
    weights = residuals.map((r) =>
      huber ? huberWeight(r / scale, 1.345) : bisquareWeight(r / (c * scale)),
    )
    const next = weightedLeastSquares(X, y, weights, names)
    const change = Math.max(
      0,
      ...next.map((b, j) => Math.abs(b - (beta[j] ?? 0)) / Math.max(1, Math.abs(b))),
    )
    beta = next
    residuals = residualsOf(X, y, beta)
    scale = madScale(residuals)
    if (!huber) {
      iterations++
      if (change <= tolerance) {
        converged = true
        break
      }
    }
  }
  if (scale > 1e-12 * yScale) weights = residuals.map((r) => bisquareWeight(r / (c * scale)))
  const outliers: number[] = []
  weights.forEach((w, i) => {
    if (w === 0) outliers.push(i)
  })
  return { coefficients: beta, weights, outliers, scale, iterations, converged, residuals }
}

function columnNames(p: number, given: readonly string[] | undefined): string[] {
  if (given !== undefined && given.length !== p) {
    throw new EnergyError({
      code: StatsErrors.SHAPE_MISMATCH,
      message: `columnNames has ${given.length} names for ${p} columns`,
      hint: 'Give exactly one name per column of X.',
    })
  }
  return given !== undefined ? [...given] : Array.from({ length: p }, (_, j) => `x${j}`)
}

function checkShape(X: readonly (readonly number[])[], y: readonly number[], p: number): void {
  if (X.length !== y.length || p === 0) {
    throw new EnergyError({
      code: StatsErrors.SHAPE_MISMATCH,
      message: `X has ${X.length} rows of ${p} columns but y has ${y.length} values`,
      hint: 'Give one row of X per observation in y, with at least one column.',
    })
  }
  X.forEach((row, i) => {
    if (row.length !== p || row.some((v) => !Number.isFinite(v)) || !Number.isFinite(y[i])) {
      throw new EnergyError({
        code: StatsErrors.SHAPE_MISMATCH,
        message: `row ${i} of X has ${row.length} columns (expected ${p}) or a non-finite value`,
        hint: 'Every row needs the same number of finite values; drop failed windows first.',
        details: { row: i },
      })
    }
  })
}

/** Modified Gram–Schmidt on the columns; names the all-zero and the linearly dependent ones. */
function checkRank(X: readonly (readonly number[])[], names: readonly string[]): void {
  const n = X.length
  const p = names.length
  const basis: { readonly q: number[]; readonly j: number }[] = []
  const neverVary: string[] = []
  const dependent: string[] = []
  for (let j = 0; j < p; j++) {
    const v = X.map((row) => row[j] ?? 0)
    const norm0 = norm2(v)
    if (norm0 === 0) {
      neverVary.push(names[j] ?? `x${j}`)
      continue
    }
    for (const { q } of basis) {
      let dot = 0
      for (let i = 0; i < n; i++) dot += (q[i] ?? 0) * (v[i] ?? 0)
      for (let i = 0; i < n; i++) v[i] = (v[i] ?? 0) - dot * (q[i] ?? 0)
    }
    const norm = norm2(v)
    if (norm <= RANK_TOL * norm0) {
      dependent.push(names[j] ?? `x${j}`)
      continue
    }
    basis.push({ q: v.map((x) => x / norm), j })
  }
  if (neverVary.length === 0 && dependent.length === 0) return
  const parts: string[] = []
  if (neverVary.length > 0) parts.push(`never used (all zero): ${neverVary.join(', ')}`)
  if (dependent.length > 0) parts.push(`collinear with earlier columns: ${dependent.join(', ')}`)
  throw new EnergyError({
    code: StatsErrors.RANK_DEFICIENT,
    message: `design matrix is rank-deficient; columns ${parts.join('; ')}`,
    hint: 'Drop or merge those columns (methods that always run together cannot be told apart), or add windows where they vary independently.',
    details: {
      neverVary: neverVary.join(','),
      collinear: dependent.join(','),
      rank: basis.length,
      columns: p,
    },
  })
}

/** Euclidean norm without spreading (rows can outnumber the engine's argument limit). */
function norm2(v: readonly number[]): number {
  let scale = 0
  for (const x of v) scale = Math.max(scale, Math.abs(x))
  if (scale === 0) return 0
  let sum = 0
  for (const x of v) sum += (x / scale) ** 2
  return scale * Math.sqrt(sum)
}

function residualsOf(
  X: readonly (readonly number[])[],
  y: readonly number[],
  beta: readonly number[],
): number[] {
  return y.map((yi, i) => {
    const row = X[i] ?? []
    let fit = 0
    for (let j = 0; j < beta.length; j++) fit += (row[j] ?? 0) * (beta[j] ?? 0)
    return yi - fit
  })
}

function madScale(residuals: readonly number[]): number {
  const abs = residuals.map(Math.abs).sort((a, b) => a - b)
  const m = abs.length
  const med =
    m % 2 === 1 ? (abs[(m - 1) / 2] ?? 0) : ((abs[m / 2 - 1] ?? 0) + (abs[m / 2] ?? 0)) / 2
  return MAD_TO_SD * med
}

function bisquareWeight(u: number): number {
  return Math.abs(u) < 1 ? (1 - u * u) ** 2 : 0
}

function huberWeight(u: number, k: number): number {
  const a = Math.abs(u)
  return a <= k ? 1 : k / a
}

/**
 * Weighted least squares by Householder QR of √W·X (no normal equations, so conditioning is not
 * squared).
 */
function weightedLeastSquares(
  X: readonly (readonly number[])[],
  y: readonly number[],
  w: readonly number[],
  names: readonly string[],
): number[] {
  const rows: number[][] = []
  const rhs: number[] = []
  X.forEach((row, i) => {
    const s = Math.sqrt(w[i] ?? 0)
    if (s > 0) {
      rows.push(row.map((v) => v * s))
      rhs.push((y[i] ?? 0) * s)
    }
  })
  const p = names.length
  const m = rows.length
  if (m < p) throw weightedRankError(names, `only ${m} rows keep a non-zero weight`)
  const A = rows.map((r) => [...r])
  const b = [...rhs]
  for (let k = 0; k < p; k++) {
    let norm = 0
    for (let i = k; i < m; i++) norm += (A[i]?.[k] ?? 0) ** 2
    norm = Math.sqrt(norm)
    const akk = A[k]?.[k] ?? 0
    if (norm === 0)
      throw weightedRankError(names, `column ${names[k] ?? k} vanishes on the kept rows`)
    const alpha = akk > 0 ? -norm : norm
    const v: number[] = new Array<number>(m).fill(0)
    for (let i = k; i < m; i++) v[i] = A[i]?.[k] ?? 0
    v[k] = (v[k] ?? 0) - alpha
    let vnorm2 = 0
    for (let i = k; i < m; i++) vnorm2 += (v[i] ?? 0) ** 2
    if (vnorm2 === 0) continue
    for (let j = k; j < p; j++) {
      let dot = 0
      for (let i = k; i < m; i++) dot += (v[i] ?? 0) * (A[i]?.[j] ?? 0)
      const f = (2 * dot) / vnorm2
      for (let i = k; i < m; i++) {
        const row = A[i]
        if (row !== undefined) row[j] = (row[j] ?? 0) - f * (v[i] ?? 0)
      }
    }
    let dot = 0
    for (let i = k; i < m; i++) dot += (v[i] ?? 0) * (b[i] ?? 0)
    const f = (2 * dot) / vnorm2
    for (let i = k; i < m; i++) b[i] = (b[i] ?? 0) - f * (v[i] ?? 0)
  }
  const beta = new Array<number>(p).fill(0)
  const diagMax = Math.max(...Array.from({ length: p }, (_, k) => Math.abs(A[k]?.[k] ?? 0)))
  for (let k = p - 1; k >= 0; k--) {
    let s = b[k] ?? 0
    for (let j = k + 1; j < p; j++) s -= (A[k]?.[j] ?? 0) * (beta[j] ?? 0)
    const d = A[k]?.[k] ?? 0
    if (Math.abs(d) <= RANK_TOL * diagMax)
      throw weightedRankError(names, `column ${names[k] ?? k} is collinear on the kept rows`)
    beta[k] = s / d
  }
  return beta
}

function weightedRankError(names: readonly string[], why: string): EnergyError {
  return new EnergyError({
    code: StatsErrors.RANK_DEFICIENT,
    message: `after down-weighting outliers the design is rank-deficient: ${why}`,
    hint:
      'Too many windows were rejected as outliers; measure more windows, or check columns ' +
      names.join(', ') +
      '.',
  })
}
