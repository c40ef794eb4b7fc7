/**
 * What `energy.measure()` and `energy.repeat()` return in a test. Matchers read them by shape
 * (`energyResult`, `energyRuns`), so they also accept plain results from JSON.
 */
import {
  appMethodsFirst,
  closestName,
  ownNetEnergy,
  type MeasuredEnergyResult,
  type MethodEnergy,
} from '../model/index.js'

/** A method that did not show up in a window: matchers fail on it with this reason, never pass. */
export interface MissingMethod {
  readonly method: string
  readonly missing: true
  readonly reason: string
}

/** One measured window. */
export class EnergyRun {
  constructor(readonly energyResult: MeasuredEnergyResult) {}

  /**
   * Net energy (gross minus idle baseline), J. It includes what a radio or the GPS an earlier
   * test left on drew in this window (`carriedOverJ`); the matchers judge `ownEnergyJ`.
   */
  get netEnergyJ(): number {
    return this.energyResult.netEnergyJ
  }

  /**
   * The test's own net energy, J: `netEnergyJ` without what an earlier test left on drew in this
   * window. What the matchers and budgets judge, and what the report ranks tests by.
   */
  get ownEnergyJ(): number {
    return ownNetEnergy(this.energyResult).valueJ
  }

  /** What a radio or the GPS an earlier test left on drew in this window, J (0 when nothing). */
  get carriedOverJ(): number {
    return this.energyResult.carriedOverJ ?? 0
  }

  get grossEnergyJ(): number {
    return this.energyResult.grossEnergyJ
  }

  get durationS(): number {
    return this.energyResult.durationS
  }

  /**
   * A method's energy in this window, by fully qualified name (`com.example.Foo.bar`) or by a
   * unique `Class.method` suffix. A name that matches nothing gives a `MissingMethod` whose
   * reason lists the closest names, so a typo fails the assertion instead of passing at 0 J.
   */
  method(name: string): MethodEnergy | MissingMethod {
    return findMethod(this.energyResult.methods, name, this.energyResult.label)
  }
}

/** Several windows of the same work (`energy.repeat`). */
export class RepeatedEnergyRun {
  readonly runs: readonly EnergyRun[]

  constructor(results: readonly MeasuredEnergyResult[]) {
    this.runs = results.map((r) => new EnergyRun(r))
  }

  /** The windows, as matchers read them. */
  get energyRuns(): readonly MeasuredEnergyResult[] {
    return this.runs.map((r) => r.energyResult)
  }

  /** Net energy of each repetition, J (with what earlier tests left on: see `ownEnergiesJ`). */
  get netEnergiesJ(): number[] {
    return this.runs.map((r) => r.netEnergyJ)
  }

  /** The test's own net energy of each repetition, J: what the matchers judge. */
  get ownEnergiesJ(): number[] {
    return this.runs.map((r) => r.ownEnergyJ)
  }

  /** The method's energy in each repetition (matchers then judge the repeated figures). */
  method(name: string): { readonly methodRuns: ReadonlyArray<MethodEnergy | MissingMethod> } {
    return { methodRuns: this.runs.map((r) => r.method(name)) }
  }
}

export function findMethod(
  methods: readonly MethodEnergy[],
  name: string,
  label: string,
): MethodEnergy | MissingMethod {
  const exact = methods.find((m) => m.method === name)
  if (exact !== undefined) return exact
  const bySuffix = methods.filter((m) => m.method.endsWith(`.${name}`))
  if (bySuffix.length === 1 && bySuffix[0] !== undefined) return bySuffix[0]
  if (bySuffix.length > 1) {
    return {
      method: name,
      missing: true,
      reason: `'${name}' matches several methods in '${label}': ${bySuffix.map((m) => m.method).join(', ')}; use the fully qualified name`,
    }
  }
  // A typo is told apart from a method that did not run by the closest name seen, compared on
  // `Class.method` (or the method alone, for a bare name): a shared package would make any two
  // fully qualified names look close.
  const segments = Math.min(2, name.split('.').length)
  const tail = (method: string): string => method.split('.').slice(-segments).join('.')
  const near = closestName(
    tail(name),
    methods.map((m) => tail(m.method)),
  )
  const meant = near === undefined ? undefined : methods.find((m) => tail(m.method) === near)
  const known = appMethodsFirst(methods, 8).map((m) => m.method)
  const reason =
    `method '${name}' did not run (or was never sampled) in '${label}'; ` +
    (meant === undefined
      ? `methods seen: ${known.join(', ') || 'none (no execution data)'}`
      : `did you mean '${meant.method}'?`)
  return { method: name, missing: true, reason }
}
