/**
 * Regression attribution (vLens §3.2.2): regress window energies on per-method CPU time across many
 * windows and repetitions with robust regression (IRLS, Tukey bisquare, MAD scale; `src/stats`).
 * Each coefficient is the method's power while it runs (J per CPU-second = W). Windows the fit
 * gives zero weight are GC- or thread-switch-like spikes: they are flagged and their excess energy
 * is reported separately. A design that cannot identify every method is refused, naming the
 * methods and the tests to repeat.
 */
import type { MethodEnergy } from '../model/energy.js'
import { methodEnergy } from '../model/build.js'
import { isEnergyError } from '../model/errors.js'
import { robustRegression } from '../stats/index.js'
import { AttributionErrors, attributionError } from './errors.js'

export interface RegressionWindow {
  /** Test the window came from (with repetition), e.g. `feed scroll #3`; named in errors. */
  readonly label: string
  /** Net energy of the window (gross − baseline), J. */
  readonly energyJ: number
  /** CPU time of each method in the window (exclusive / local time), s. */
  readonly cpuTimeS: Readonly<Record<string, number>>
}

export interface RegressionOptions {
  /** Add a constant column (energy per window not explained by CPU time). @default false */
  readonly intercept?: boolean
  /** Bisquare tuning constant, in units of the robust scale. @default 4.685 (stats default) */
  readonly tuning?: number
}

export interface RegressionCoefficient {
  readonly method: string
  /** Energy per CPU-second of the method, W. */
  readonly powerW: number
}

export interface RegressionWindowResult {
  readonly label: string
  readonly energyJ: number
  /** Σ coefficient × CPU time, J (plus the intercept when fitted). */
  readonly predictedJ: number
  /** `energyJ − predictedJ`, J. */
  readonly residualJ: number
  /** Final bisquare weight in [0, 1]. */
  readonly weight: number
  /** Weight 0: a GC- / thread-switch-like spike; its residual is reported as `outlierEnergyJ`. */
  readonly outlier: boolean
  /** Excess energy of an outlier window (its residual), 0 otherwise, J. */
  readonly outlierEnergyJ: number
  /** Per-method energy in this window (`attribution: 'regression'`, local only). */
  readonly methods: readonly MethodEnergy[]
}

export interface RegressionAttribution {
  readonly coefficients: readonly RegressionCoefficient[]
  /** Fitted constant energy per window, J (0 without `intercept`). */
  readonly interceptJ: number
  readonly windows: readonly RegressionWindowResult[]
  /** Robust residual scale, J. */
  readonly scaleJ: number
  readonly converged: boolean
}

const INTERCEPT = '(constant)'

export function attributeRegression(
  windows: readonly RegressionWindow[],
  options: RegressionOptions = {},
): RegressionAttribution {
  const methodSet = new Set<string>()
  windows.forEach((w, index) => {
    if (!Number.isFinite(w.energyJ)) {
      throw attributionError(
        AttributionErrors.NOT_FINITE,
        `regression window ${index} (${w.label}) has a non-finite energy (${w.energyJ})`,
        'Drop windows whose energy could not be measured.',
        { index },
      )
    }
    for (const [m, t] of Object.entries(w.cpuTimeS)) {
      if (!Number.isFinite(t) || t < 0) {
        throw attributionError(
          AttributionErrors.NOT_FINITE,
          `regression window ${index} (${w.label}): CPU time of ${m} is ${t}`,
          'CPU times must be finite and ≥ 0 s.',
          { index },
        )
      }
      if (t > 0) methodSet.add(m)
    }
  })
  const methods = [...methodSet].sort()
  const columns = options.intercept === true ? [...methods, INTERCEPT] : methods
  if (windows.length < columns.length || columns.length === 0) {
    throw attributionError(
      AttributionErrors.RANK_DEFICIENT,
      `regression needs at least as many windows as methods: ${windows.length} windows, ${columns.length} unknowns`,
      `Repeat the tests (${testsOf(windows).join(', ') || 'none measured'}) until there are more windows than methods, or use sampling/interval attribution.`,
      { windows: windows.length, columns: columns.length },
    )
  }
  const X = windows.map((w) => columns.map((m) => (m === INTERCEPT ? 1 : (w.cpuTimeS[m] ?? 0))))
  const y = windows.map((w) => w.energyJ)
  let fit: ReturnType<typeof robustRegression>
  try {
    fit = robustRegression(X, y, {
      columnNames: columns,
      ...(options.tuning === undefined ? {} : { tuning: options.tuning }),
    })
  } catch (error) {
    if (isEnergyError(error) && error.code === 'E_STATS_RANK_DEFICIENT') {
      const named = [
        ...String(error.details['neverVary'] ?? '').split(','),
        ...String(error.details['collinear'] ?? '').split(','),
      ].filter((s) => s.length > 0)
      const involved = windows.filter((w) => named.some((m) => (w.cpuTimeS[m] ?? 0) > 0))
      const tests = testsOf(involved.length > 0 ? involved : windows)
      throw attributionError(
        AttributionErrors.RANK_DEFICIENT,
        `regression cannot tell these methods apart: ${named.join(', ') || 'see cause'} (their CPU times move together across the windows)`,
        `Repeat the tests that run them with varied inputs so their CPU times vary independently: ${tests.join(', ')}; or use sampling/interval attribution.`,
        { methods: named.join(','), tests: tests.join(',') },
        error,
      )
    }
    throw error
  }
  const coefficients = methods.map((method, j) => ({ method, powerW: fit.coefficients[j] ?? 0 }))
  const interceptJ = options.intercept === true ? (fit.coefficients[methods.length] ?? 0) : 0
  const outliers = new Set(fit.outliers)
  const results = windows.map((w, i): RegressionWindowResult => {
    const perMethod: MethodEnergy[] = []
    let predictedJ = interceptJ
    for (const c of coefficients) {
      const t = w.cpuTimeS[c.method] ?? 0
      if (t <= 0) continue
      const e = c.powerW * t
      predictedJ += e
      perMethod.push(
        methodEnergy({
          method: c.method,
          attribution: 'regression',
          localEnergyJ: e,
          nonLocalEnergyJ: 0,
          localTimeS: t,
        }),
      )
    }
    const residualJ = w.energyJ - predictedJ
    const outlier = outliers.has(i)
    return {
      label: w.label,
      energyJ: w.energyJ,
      predictedJ,
      residualJ,
      weight: fit.weights[i] ?? 0,
      outlier,
      outlierEnergyJ: outlier ? residualJ : 0,
      methods: perMethod,
    }
  })
  return {
    coefficients,
    interceptJ,
    windows: results,
    scaleJ: fit.scale,
    converged: fit.converged,
  }
}

/** Test names from window labels, repetition suffix (` #3`) removed, in first-seen order. */
function testsOf(windows: readonly RegressionWindow[]): string[] {
  return [...new Set(windows.map((w) => w.label.replace(/\s*#\d+$/, '')))]
}

/**
 * A regression window from one window's per-method figures: the methods' local time (CPU time
 * from sampling, wall time inside the call from interval attribution) as the regressors.
 */
export function regressionWindowOf(
  label: string,
  netEnergyJ: number,
  methods: readonly Pick<MethodEnergy, 'method' | 'localTimeS'>[],
): RegressionWindow {
  const cpuTimeS: Record<string, number> = {}
  for (const m of methods) {
    if (m.localTimeS !== undefined && m.localTimeS > 0) {
      cpuTimeS[m.method] = (cpuTimeS[m.method] ?? 0) + m.localTimeS
    }
  }
  return { label, energyJ: netEnergyJ, cpuTimeS }
}
