/**
 * The energy report as a value: built once from the run's tests (pure), then rendered to the
 * terminal, JSON and markdown. The JSON form is versioned and documented in docs/reporter.md
 * (schema: reporter/energy-report.schema.json).
 */
import {
  describeMethodEnergy,
  ownNetEnergy,
  workWindows,
  type CpuModelRunFit,
  type EnergyResult,
  type EnergyWarning,
  type LimitCheck,
  type MeasuredEnergyResult,
  type MethodColor,
} from '../src/model/index.js'
import {
  decide,
  lookupBudget,
  obsoleteBudgets,
  repetitionGroups,
  testBudgetFigure,
  writesBudget,
  type BudgetFigure,
  type BudgetFile,
  type BudgetObservation,
  type BudgetRef,
  type Verdict,
} from '../src/budgets/index.js'
import { compare } from '../src/stats/index.js'
import type { ReportClassification } from './classification.js'

/**
 * 2: every test the run reported (not only those with energy), with its failure and why it has
 * no energy; `errors` hold whole messages; `suiteFailures`, `unhandledErrors`, `interrupted`;
 * later, a test's `budgetFigure`.
 * 3: a test's `limits`, what its energy matchers checked (a report of version 2 validates
 * against a schema that forbids unknown fields, so a new field bumps the version).
 * 4: each measured window's `timeline` (the sensor's power thinned, method activity lanes,
 * asynchronous energy carried in) and `callTree` (its method energy by callers).
 */
export const REPORT_SCHEMA_VERSION = 4 as const

/**
 * A test's outcome: Vitest's result state, with `todo` told apart from `skipped`. `pending` only
 * in an interrupted run: the test had not finished.
 */
export type ReportedState = 'passed' | 'failed' | 'skipped' | 'todo' | 'pending'

/** Why a test failed or did not run. */
export interface ReportedFailure {
  /** The whole message: every line, without ANSI codes or a stack trace. */
  readonly message: string
  /** The error's code, when it has one (an EnergyError's `E_…`). */
  readonly code?: string
  /**
   * Set when the failure is not the test's own: the full name of the suite that failed around it
   * (its beforeAll), `''` for the file.
   */
  readonly suite?: string
}

/** An error outside any test: a file that failed to load, a failing beforeAll or afterAll. */
export interface ReportedSuiteFailure extends ReportedFailure {
  readonly file: string
  /** Full name of the suite; `''` for the file itself. */
  readonly suite: string
}

/** One test as the reporter received it. */
export interface ReportEntry {
  /** Test file relative to the project root, `/`-separated. */
  readonly file: string
  /** Full name: describe blocks and test name joined by ` > `. */
  readonly name: string
  readonly state: ReportedState
  /** Declared with `test.fails`: it passed because its assertions failed as intended. */
  readonly expectedToFail?: boolean
  /** Every energy window the test measured, in order. */
  readonly results: readonly EnergyResult[]
  /**
   * What the test's energy matchers checked, in call order (`toConsumeLessThan(2.5)` and the
   * others with a limit); absent when none ran in a measured test.
   */
  readonly limits?: readonly LimitCheck[]
  /**
   * The test asked for a budget (`toStayWithinBudget()`, or `checkBudgets`): the runner's `new`
   * mode writes one when it has none. Read from the test's meta; not part of the JSON report.
   */
  readonly budgetRequested?: boolean | 'unknown'
  /** Whole message of each error the test itself threw (no stack trace). */
  readonly errors: readonly string[]
  /** Why it failed, or did not run: its first error, or the error of the suite around it. */
  readonly failure?: ReportedFailure
  /**
   * Why it has no measured window, when the reporter knows more than its state and results tell
   * (a skip note, a missing energy meta); else derived by {@link noEnergyReason}.
   */
  readonly noEnergyReason?: string
}

/** A test's budget and the verdict on its net energy. */
export interface ReportedBudget {
  /** Budget, joules. */
  readonly energyJ: number
  /** Device key the budget was found under (`*` = any device). */
  readonly device: string
  /** The test's budget figure (net energy, repetitions as their mean), joules. */
  readonly valueJ: number
  readonly verdict: Verdict
}

/**
 * What a budget is checked against (`testBudgetFigure` of src/budgets): the test's net energy
 * with the repetitions of a window (`energy.repeat`, labelled `x #1`, `x #2`, …) counted once, as
 * their mean. Unlike the test's `netEnergyJ` (the sum over every window), it is the figure a
 * repeated test is judged by.
 */
export type ReportedBudgetFigure = Pick<BudgetFigure, 'valueJ' | 'intervalJ' | 'n'>

/** A test compared with the same test in the baseline report. */
export interface ReportedDelta {
  /**
   * The test's own energy in the baseline (its net energy without what another test left on, as
   * `ownEnergyJ`; a report from before `carriedOverJ` has none to leave out), joules.
   */
  readonly baselineNetEnergyJ: number
  /** Current − baseline own energy, joules: which test ran before is not a regression. */
  readonly deltaJ: number
  /** 100 · deltaJ / baseline; null when the baseline is 0. */
  readonly deltaPct: number | null
  /** `mann-whitney` when both sides have ≥ 2 repetitions, else `point` (a threshold on deltaPct). */
  readonly method: 'mann-whitney' | 'point'
  readonly verdict: 'better' | 'worse' | 'same' | 'inconclusive'
  /** Two-sided p-value (mann-whitney only). */
  readonly pValue?: number
}

export interface ReportedTest extends ReportEntry {
  /** Present exactly when the test has no measured window: why (`skipped`, `todo`, …). */
  readonly noEnergyReason?: string
  /**
   * Sum of net energy over the test's measured windows (every repetition included), but the idle
   * reference `energy.baseline()` measured (`idleBaseline`), which is not the test's work.
   */
  readonly netEnergyJ: number
  /**
   * The test's own energy: `netEnergyJ` without what a radio or the GPS another test left on drew
   * in these windows (their `carriedOverJ`), as matchers and budgets judge it; equal to
   * `netEnergyJ` when nothing was carried over. The report ranks tests by it. Added within schema
   * version 4: reports written before it lack it.
   */
  readonly ownEnergyJ: number
  /** The same windows' gross energy and duration. */
  readonly grossEnergyJ: number
  readonly durationS: number
  /**
   * The figure a budget is checked against; present when the test has a budget or repeated
   * windows (`n` ≥ 2).
   */
  readonly budgetFigure?: ReportedBudgetFigure
  /** Present when the budget file has an entry for this test. */
  readonly budget?: ReportedBudget
  /** Present when a baseline report was given and has this test. */
  readonly baseline?: ReportedDelta
}

export interface EnergyReport {
  readonly schemaVersion: typeof REPORT_SCHEMA_VERSION
  /** True when the run was stopped (Ctrl-C) before it ended; unfinished tests are `pending`. */
  readonly interrupted?: true
  /**
   * Every test the run reported, in run order; `noEnergyReason` says why one has no measured
   * window.
   */
  readonly tests: readonly ReportedTest[]
  /** Errors outside tests, in run order: files that failed to load, failing beforeAll/afterAll. */
  readonly suiteFailures: readonly ReportedSuiteFailure[]
  /** Errors Vitest caught outside any test or suite (they fail the run too). */
  readonly unhandledErrors: readonly ReportedFailure[]
  readonly summary: {
    /** Every test in `tests`. */
    readonly tests: number
    /** Tests by state. */
    readonly states: Readonly<Record<ReportedState, number>>
    /** Tests with at least one energy window (measured, skipped or failed). */
    readonly testsWithWindows: number
    readonly windows: number
    readonly measuredWindows: number
    readonly failedWindows: number
    /** Sums over the tests (`netEnergyJ`, `grossEnergyJ`: `energy.baseline()` windows left out). */
    readonly totalNetEnergyJ: number
    readonly totalGrossEnergyJ: number
    /**
     * Highest own energy first (`ownEnergyJ`: what another test left on is not this test's; at
     * most 5; a test below idle, `ownEnergyJ` ≤ 0, is not ranked).
     */
    readonly worst: ReadonlyArray<{
      readonly file: string
      readonly name: string
      readonly netEnergyJ: number
      /** The test's `ownEnergyJ`. Added within schema version 4. */
      readonly ownEnergyJ: number
    }>
    /** Power sources seen across the run (`odpm`, `fuel-gauge`, …). */
    readonly sources: readonly string[]
    /** Where the methods' energy came from, as the windows say (`describeMethodEnergy`). */
    readonly methodEnergy?: readonly string[]
    /**
     * Per phone without rails: its CPU model's calibration and the model's fit over the run's
     * windows on it (as its last window saw them).
     */
    readonly cpuModel?: readonly ReportCpuModel[]
    readonly warnings: number
  }
  /** Budget bookkeeping; present when a budget file exists or was written. */
  readonly budgets?: ReportBudgets
  /** Comparison with a previous report; present with the `baseline` option. */
  readonly baseline?: ReportBaseline
  /** The spectrum classifier's colours; present with the `classify` option. */
  readonly classification?: ReportClassification
}

export interface ReportBudgets {
  /** Budget file path, relative to the project root. */
  readonly file: string
  /**
   * True when this run rewrote budgets (`-u`, VITEST_ENERGY_UPDATE=1). False when it checked them,
   * and wrote only the missing budgets of tests that asked for one (`added`) in the runner's `new`
   * mode.
   */
  readonly updated: boolean
  readonly within: number
  readonly over: number
  readonly inconclusive: number
  /**
   * Tests without a budget that `-u` would write one for (they asked, and measured above their
   * noise: `testsWithoutBudget`), after this run wrote the new ones; 0 when `updated`.
   */
  readonly missing: number
  /** Entries whose test no longer exists in a file that ran (removed when updating). */
  readonly obsolete: readonly BudgetRef[]
  /** New entries this run wrote (update mode, or the missing ones in `new` mode). */
  readonly added: readonly BudgetRef[]
  readonly changed: readonly BudgetRef[]
}

export interface ReportBaseline {
  /** Baseline report path, relative to the project root. */
  readonly file: string
  /** Tests found in both reports. */
  readonly compared: number
  readonly regressions: ReadonlyArray<ReportedRegression>
  readonly improvements: ReadonlyArray<ReportedRegression>
}

export interface ReportedRegression {
  readonly file: string
  readonly name: string
  readonly deltaJ: number
  readonly deltaPct: number | null
}

/** What the reporter knows beyond the tests themselves. All optional; the build stays pure. */
export interface ReportContext {
  readonly budgets?: {
    readonly file: BudgetFile
    /** Path shown in the report. */
    readonly path: string
    /** Maps a report file key (root-relative) to the budget file's key. @default identity */
    readonly fileKey?: (file: string) => string
    /**
     * Set when this run wrote budgets: `all` (default), every measured test's (`file` is the file
     * written); `new`, only `added` (`file` is the file before, which the run checked).
     */
    readonly update?: {
      readonly mode?: 'all' | 'new'
      readonly added: readonly BudgetRef[]
      readonly changed: readonly BudgetRef[]
      readonly removed: readonly BudgetRef[]
    }
  }
  readonly baseline?: {
    readonly report: BaselineReport
    readonly path: string
    /** Smallest increase that counts as a regression, percent. @default 5 */
    readonly maxPct?: number
    /** @default 0.05 */
    readonly alpha?: number
  }
  readonly classification?: ReportClassification
  /** Errors outside tests (see EnergyReport). @default none */
  readonly suiteFailures?: readonly ReportedSuiteFailure[]
  readonly unhandledErrors?: readonly ReportedFailure[]
  /** The run was stopped before it ended. */
  readonly interrupted?: boolean
}

/** What the baseline comparison reads of a previous report (any readable schema version). */
export interface BaselineReport {
  readonly tests: ReadonlyArray<Pick<ReportedTest, 'file' | 'name' | 'netEnergyJ' | 'results'>>
}

/**
 * Warnings on how precisely a window's energy is known: its edges fell inside sensor intervals
 * too long for it (`W_SLOW_SENSOR`). They ask for action (a longer window, repetitions) only where
 * a verdict depends on that energy.
 */
const FIGURE_PRECISION_WARNINGS: ReadonlySet<string> = new Set(['W_SLOW_SENSOR'])

/**
 * A test's windows with the severities of what depends on whether the test is judged:
 * - figure-precision warnings (`W_SLOW_SENSOR`) become notes (severity `info`) in a test that no
 *   matcher or budget judges: a suite of short UI steps measured for the record would otherwise
 *   raise one in nearly every window, for a figure nobody judges;
 * - a net energy below idle (`W_NEGATIVE_NET`, a note) becomes a warning where a budget or a
 *   limit on the net judges it: that verdict was made on a figure the phone's state (a dimmer
 *   screen, a radio off) pushed below idle, and means little.
 */
function asJudged(
  results: readonly EnergyResult[],
  judged: boolean,
  judgesNet: boolean,
): readonly EnergyResult[] {
  const change = (w: EnergyWarning): EnergyWarning | undefined => {
    if (!judged && w.severity === 'warning' && FIGURE_PRECISION_WARNINGS.has(w.code))
      return {
        ...w,
        severity: 'info',
        message: `${w.message} (A note: no matcher or budget judges this test's energy.)`,
      }
    if (judgesNet && w.severity === 'info' && w.code === 'W_NEGATIVE_NET')
      return {
        ...w,
        severity: 'warning',
        message: `${w.message} (A warning here: this test's verdict is on its net energy.)`,
      }
    return undefined
  }
  return results.map((r) =>
    r.status === 'skipped' || !r.warnings.some((w) => change(w) !== undefined)
      ? r
      : { ...r, warnings: r.warnings.map((w) => change(w) ?? w) },
  )
}

export function measuredWindows(test: Pick<ReportEntry, 'results'>): MeasuredEnergyResult[] {
  return test.results.filter((r): r is MeasuredEnergyResult => r.status === 'measured')
}

export function buildEnergyReport(
  entries: readonly ReportEntry[],
  context: ReportContext = {},
): EnergyReport {
  const colors = context.classification
    ? new Map(context.classification.methods.map((m) => [m.name, m.color]))
    : undefined
  const baselineTests = context.baseline
    ? new Map(context.baseline.report.tests.map((t) => [`${t.file}\u0000${t.name}`, t]))
    : undefined
  let within = 0
  let over = 0
  let inconclusive = 0
  const observed = context.budgets
    ? budgetObservations(entries, context.budgets.fileKey ?? identity)
    : []
  const tests: ReportedTest[] = entries.map((e) => {
    const results = colors ? e.results.map((r) => recolor(r, colors)) : e.results
    const windows = measuredWindows({ results })
    // energy.baseline()'s window is listed, but the idle reference is not the test's work.
    const work = workWindows(results)
    const netEnergyJ = sum(work.map((w) => w.netEnergyJ))
    const { noEnergyReason: given, budgetRequested: _, ...entry } = e
    const reason = windows.length > 0 ? undefined : (given ?? noEnergyReason(e))
    const test: ReportedTest = {
      ...entry,
      ...(reason === undefined ? {} : { noEnergyReason: reason }),
      results,
      netEnergyJ,
      ownEnergyJ: ownEnergyOf({ results }),
      grossEnergyJ: sum(work.map((w) => w.grossEnergyJ)),
      durationS: sum(work.map((w) => w.durationS)),
    }
    let budget: ReportedBudget | undefined
    const figure = testBudgetFigure(results)
    if (context.budgets && figure) {
      const found = lookupBudget(context.budgets.file, {
        file: (context.budgets.fileKey ?? identity)(e.file),
        name: e.name,
        ...(figure.device === undefined ? {} : { device: figure.device }),
      })
      if (found !== undefined) {
        const { verdict } = decide(
          figure.valueJ,
          found.entry.energyJ,
          figure.intervalJ,
          false,
          figure.n,
        )
        if (verdict === 'within') within++
        else if (verdict === 'over') over++
        else inconclusive++
        budget = {
          energyJ: found.entry.energyJ,
          device: found.device,
          valueJ: figure.valueJ,
          verdict,
        }
      }
    }
    const base = baselineTests?.get(`${e.file}\u0000${e.name}`)
    const delta =
      base && windows.length > 0 && measuredWindows(base).length > 0 && context.baseline
        ? compareWithBaseline(
            test,
            base,
            context.baseline.maxPct ?? 5,
            context.baseline.alpha ?? 0.05,
          )
        : undefined
    const shownFigure =
      figure !== undefined && (budget !== undefined || figure.n >= 2)
        ? {
            valueJ: figure.valueJ,
            ...(figure.intervalJ === undefined ? {} : { intervalJ: figure.intervalJ }),
            n: figure.n,
          }
        : undefined
    const budgeted = budget !== undefined || e.budgetRequested === true
    const judged = budgeted || (e.limits ?? []).length > 0
    const judgesNet = budgeted || (e.limits ?? []).some((l) => l.scope === 'net')
    return {
      ...test,
      results: asJudged(test.results, judged, judgesNet),
      ...(shownFigure === undefined ? {} : { budgetFigure: shownFigure }),
      ...(budget === undefined ? {} : { budget }),
      ...(delta === undefined ? {} : { baseline: delta }),
    }
  })
  const all = tests.flatMap((t) => t.results)
  const measured = all.filter((r): r is MeasuredEnergyResult => r.status === 'measured')
  const work = workWindows(all)
  const warnings: EnergyWarning[] = all.flatMap((r) => (r.status === 'skipped' ? [] : r.warnings))
  const states: Record<ReportedState, number> = {
    passed: 0,
    failed: 0,
    skipped: 0,
    todo: 0,
    pending: 0,
  }
  for (const t of tests) states[t.state]++
  const report: EnergyReport = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    ...(context.interrupted === true ? { interrupted: true as const } : {}),
    tests,
    suiteFailures: context.suiteFailures ?? [],
    unhandledErrors: context.unhandledErrors ?? [],
    summary: {
      tests: tests.length,
      states,
      testsWithWindows: tests.filter((t) => t.results.length > 0).length,
      windows: all.length,
      measuredWindows: measured.length,
      failedWindows: all.filter((r) => r.status === 'failed').length,
      totalNetEnergyJ: sum(work.map((r) => r.netEnergyJ)),
      totalGrossEnergyJ: sum(work.map((r) => r.grossEnergyJ)),
      worst: [...tests]
        // A test that only measured the idle phone (energy.baseline()) did no work to rank.
        .filter((t) => workWindows(t.results).length > 0)
        // Below idle is no energy spent, whatever the sign says: nothing to rank (W_NEGATIVE_NET).
        .filter((t) => t.ownEnergyJ > 0)
        // By what the test is judged by: a radio another test left on is not its own energy.
        .sort((a, b) => b.ownEnergyJ - a.ownEnergyJ)
        .slice(0, 5)
        .map((t) => ({
          file: t.file,
          name: t.name,
          netEnergyJ: t.netEnergyJ,
          ownEnergyJ: t.ownEnergyJ,
        })),
      sources: [...new Set(measured.map((r) => r.sources.power))].sort(),
      ...methodEnergyOf(measured),
      ...cpuModelOf(measured),
      warnings: warnings.length,
    },
  }
  const extra: {
    budgets?: ReportBudgets
    baseline?: ReportBaseline
    classification?: ReportClassification
  } = {}
  if (context.budgets) {
    const update = context.budgets.update
    const updated = update !== undefined && update.mode !== 'new'
    extra.budgets = {
      file: context.budgets.path,
      updated,
      within,
      over,
      inconclusive,
      missing: testsWithoutBudget(observed, context.budgets).length,
      obsolete: updated ? update.removed : obsoleteBudgets(context.budgets.file, observed),
      added: update?.added ?? [],
      changed: update?.changed ?? [],
    }
  }
  if (context.baseline) {
    const compared = tests.filter((t) => t.baseline !== undefined)
    const ref = (t: ReportedTest): ReportedRegression => ({
      file: t.file,
      name: t.name,
      deltaJ: t.baseline?.deltaJ ?? 0,
      deltaPct: t.baseline?.deltaPct ?? null,
    })
    extra.baseline = {
      file: context.baseline.path,
      compared: compared.length,
      regressions: compared
        .filter((t) => t.baseline?.verdict === 'worse')
        .sort((a, b) => (b.baseline?.deltaJ ?? 0) - (a.baseline?.deltaJ ?? 0))
        .map(ref),
      improvements: compared.filter((t) => t.baseline?.verdict === 'better').map(ref),
    }
  }
  if (context.classification) extra.classification = context.classification
  return { ...report, ...extra }
}

/** What the budget update needs to know about each test of the run. */
export function budgetObservations(
  entries: readonly ReportEntry[],
  fileKey: (file: string) => string = identity,
): BudgetObservation[] {
  return entries.map((e) => {
    const figure = testBudgetFigure(e.results)
    return {
      file: fileKey(e.file),
      name: e.name,
      ...(figure === undefined ? {} : { valueJ: figure.valueJ }),
      ...(figure?.intervalJ === undefined
        ? {}
        : { lowJ: figure.intervalJ.low, highJ: figure.intervalJ.high }),
      ...(figure?.device === undefined ? {} : { device: figure.device }),
      ...(e.budgetRequested === undefined || e.budgetRequested === false
        ? {}
        : { requested: e.budgetRequested }),
    }
  })
}

/**
 * The tests a run checking budgets counts as without one (`ReportBudgets.missing`): exactly those
 * `-u` would write a budget for — they asked for one (or sent their results with Jest's
 * `recordEnergy()`, which cannot say) and measured above their noise (`writesBudget`) — that have
 * none for their device and did not get one from this run (`new` mode). None after `-u`. Indices
 * into `observations` (`budgetObservations` of the run's entries, in report order).
 */
export function testsWithoutBudget(
  observations: readonly BudgetObservation[],
  budgets: NonNullable<ReportContext['budgets']>,
): number[] {
  const update = budgets.update
  if (update !== undefined && update.mode !== 'new') return []
  const written = new Set(update?.added.map((r) => `${r.file}\u0000${r.name}`))
  return observations.flatMap((o, i) =>
    writesBudget(o) &&
    !written.has(`${o.file}\u0000${o.name}`) &&
    lookupBudget(budgets.file, {
      file: o.file,
      name: o.name,
      ...(o.device === undefined ? {} : { device: o.device }),
    }) === undefined
      ? [i]
      : [],
  )
}

/**
 * Own energies of the repetitions of one `energy.repeat` call, when the test has only those (≥ 2):
 * their net energy without what another test left on, as `toNotRegressFrom` judges them.
 */
function repetitionsOf(test: Pick<ReportEntry, 'results'>): number[] | undefined {
  const windows = workWindows(test.results)
  if (windows.length < 2) return undefined
  return repetitionGroups(windows).length === 1
    ? windows.map((w) => ownNetEnergy(w).valueJ)
    : undefined
}

/** A test's own energy over its work windows. */
function ownEnergyOf(test: Pick<ReportEntry, 'results'>): number {
  return sum(workWindows(test.results).map((w) => ownNetEnergy(w).valueJ))
}

/**
 * A baseline test's own energy: its net energy without what its windows' `carriedOverJ` says
 * another test left on (a baseline report may predate `ownEnergyJ`).
 */
function baselineOwnEnergyJ(test: BaselineReport['tests'][number]): number {
  return test.netEnergyJ - sum(workWindows(test.results).map((w) => w.carriedOverJ ?? 0))
}

function compareWithBaseline(
  current: ReportedTest,
  base: BaselineReport['tests'][number],
  maxPct: number,
  alpha: number,
): ReportedDelta {
  // Own energies on both sides: which test ran before (and left a radio on) is not a regression.
  const baseJ = baselineOwnEnergyJ(base)
  const deltaJ = current.ownEnergyJ - baseJ
  const deltaPct = baseJ === 0 ? null : (100 * deltaJ) / Math.abs(baseJ)
  const currentRuns = repetitionsOf(current)
  const baseRuns = repetitionsOf(base)
  if (currentRuns && baseRuns) {
    const c = compare(baseRuns, currentRuns, { minEffectPct: maxPct, alpha })
    return {
      baselineNetEnergyJ: baseJ,
      deltaJ: c.deltaJ,
      deltaPct: Number.isFinite(c.deltaPct) ? c.deltaPct : null,
      method: 'mann-whitney',
      verdict: c.verdict,
      pValue: c.pValue,
    }
  }
  const verdict =
    deltaPct === null
      ? deltaJ > 0
        ? 'worse'
        : 'same'
      : deltaPct >= maxPct
        ? 'worse'
        : deltaPct <= -maxPct
          ? 'better'
          : 'same'
  return { baselineNetEnergyJ: baseJ, deltaJ, deltaPct, method: 'point', verdict }
}

function recolor(result: EnergyResult, colors: ReadonlyMap<string, MethodColor>): EnergyResult {
  if (result.status !== 'measured') return result
  return {
    ...result,
    methods: result.methods.map((m) => {
      const color = colors.get(m.method.replace(/\(.*$/, ''))
      return color === undefined ? m : { ...m, color }
    }),
  }
}

/**
 * Why a test has no measured window, from what the report knows of it. `hasMeta`: the test wrote
 * energy meta (it used the `energy` fixture); assumed when it has windows.
 */
export function noEnergyReason(
  test: Pick<ReportEntry, 'state' | 'results' | 'failure'>,
  hasMeta = test.results.length > 0,
): string | undefined {
  const { results } = test
  if (results.some((r) => r.status === 'measured')) return undefined
  const failed = results.filter((r) => r.status === 'failed').length
  if (failed > 0) {
    const of = failed === results.length ? '' : ` (${results.length - failed} skipped)`
    return failed === 1
      ? `its energy window failed${of}`
      : `its ${failed} energy windows failed${of}`
  }
  if (results.length > 0) {
    // One skipped window says why itself: e.g. the test failed inside energy.measure().
    const [only] = results
    if (results.length === 1 && only?.status === 'skipped' && only.reason !== '') return only.reason
    return results.length === 1
      ? 'its energy window was skipped'
      : `its ${results.length} energy windows were skipped`
  }
  if (test.state === 'todo') return 'todo'
  if (test.state === 'pending') return 'did not finish: the run was interrupted'
  const suite = test.failure?.suite
  if (suite !== undefined) return `not run: ${suite === '' ? 'the file' : `'${suite}'`} failed`
  if (test.state === 'skipped') return 'skipped'
  if (test.state === 'failed') return 'the test failed before an energy window opened'
  return hasMeta ? 'no energy window was opened' : 'the test does not use the energy fixture'
}

function identity(file: string): string {
  return file
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0)
}

/** The distinct descriptions of where the windows' methods' energy came from. */
function methodEnergyOf(measured: readonly MeasuredEnergyResult[]): {
  methodEnergy?: readonly string[]
} {
  const described = new Set<string>()
  for (const r of measured) {
    if (r.sources.methodEnergy !== undefined)
      described.add(describeMethodEnergy(r.sources.methodEnergy))
  }
  return described.size === 0 ? {} : { methodEnergy: [...described].sort() }
}

/** A phone without rails in the report's summary (`summary.cpuModel`). */
export interface ReportCpuModel {
  /** `model (serial)`, or the serial. */
  readonly device: string
  readonly calibration: 'active' | 'passive' | 'nominal'
  readonly clusterScales: readonly number[]
  /** The calibrated scale on `cpu.active`; absent when the profile's current was kept. */
  readonly activeScale?: number
  readonly runFit?: CpuModelRunFit
}

/**
 * How reports name the phone of a window: `Pixel 6 (serial)`, with its adb server when that is
 * another machine's (a lab host), since lab hosts can each have a phone with the same serial.
 */
export function deviceLabel(device: NonNullable<MeasuredEnergyResult['device']>): string {
  const server = device.adbServer
  const local = server === undefined || /^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(server)
  return `${device.model} (${device.serial}${local ? '' : ` on ${server}`})`
}

/** Each phone's CPU model as its last window (by its end) reported it. */
function cpuModelOf(measured: readonly MeasuredEnergyResult[]): {
  cpuModel?: readonly ReportCpuModel[]
} {
  const last = new Map<string, MeasuredEnergyResult>()
  for (const r of measured) {
    if (r.sources.methodEnergy?.kind !== 'cpu-model') continue
    const device = r.device === undefined ? '?' : deviceLabel(r.device)
    const seen = last.get(device)
    if (seen === undefined || seen.window.endNs < r.window.endNs) last.set(device, r)
  }
  if (last.size === 0) return {}
  return {
    cpuModel: [...last]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([device, r]) => {
        const m = r.sources.methodEnergy
        return {
          device,
          calibration: m?.calibration ?? 'nominal',
          clusterScales: m?.clusterScales ?? [],
          ...(m?.activeScale === undefined ? {} : { activeScale: m.activeScale }),
          ...(m?.runFit === undefined ? {} : { runFit: m.runFit }),
        }
      }),
  }
}

/** How phones name their clusters, little first, by how many they have. */
const CLUSTER_NAMES: Readonly<Record<number, readonly string[]>> = {
  2: ['little', 'big'],
  3: ['little', 'mid', 'big'],
}

/** Per-cluster figures, little first, named as phones name their clusters: `little 1.34×, …`. */
function labelled(figures: readonly string[]): string {
  if (figures.length === 1) return figures[0] ?? ''
  const names = CLUSTER_NAMES[figures.length]
  return figures.map((f, k) => `${names?.[k] ?? `cluster ${k}`} ${f}`).join(', ')
}

/**
 * A phone without rails in one line: how its CPU model was calibrated, and what the run's windows
 * say of it (they seldom tell: the screen and radios draw most of the energy).
 */
export function describeCpuModel(phone: ReportCpuModel): string {
  const active =
    phone.activeScale === undefined
      ? "cpu.active as the profile's"
      : `cpu.active ${phone.activeScale.toFixed(2)}×`
  const scales = `${labelled(phone.clusterScales.map((x) => `${x.toFixed(2)}×`))} the profile's currents; ${active}`
  const how =
    phone.calibration === 'active'
      ? `calibrated with busy loops (${scales})`
      : phone.calibration === 'passive'
        ? `calibrated over the run's windows (${scales})`
        : "at the profile's currents as shipped"
  const fit = phone.runFit
  // Fewer windows than unknowns could never tell: nothing worth saying about them yet.
  const told = fit?.clusterScales.some((x) => x !== null) === true
  if (fit === undefined || (!told && fit.windows < fit.clusterScales.length + 3)) {
    return `${phone.device}: ${how}`
  }
  const share = `${(fit.cpuShare * 100).toFixed(1)}% of their energy`
  const windows = `the run's ${fit.windows} window${fit.windows === 1 ? '' : 's'}`
  const fitted = labelled(fit.clusterScales.map((x) => (x === null ? '?' : `${x.toFixed(2)}×`)))
  const says = !told
    ? `${windows} cannot tell its scales (the CPU is ${share})`
    : fit.agreesWithCalibration === false
      ? `${windows} disagree (${fitted}): the phone may have changed since it was calibrated (heat, another build); calibrate again`
      : fit.agreesWithCalibration === true
        ? `${windows} agree (the CPU is ${share})`
        : `${windows} fit ${fitted}`
  return `${phone.device}: ${how}; ${says}`
}
