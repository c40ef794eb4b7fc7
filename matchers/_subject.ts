/**
 * What a matcher can be given, and which figure it reads. Matchers accept a measured window (an
 * `EnergyResult`, or anything exposing one as `energyResult` — the fixture's runs do), repeated
 * windows (`energyRuns`), a method's `MethodEnergy`, or a method across repetitions (`methodRuns`).
 */
import {
  closestName,
  CommonErrors,
  EnergyError,
  formatJoules,
  ownNetEnergy,
  type Interval,
  type MeasuredEnergyResult,
  type MethodEnergy,
} from '../src/model/index.js'
import {
  bootstrapInterval,
  median,
  tInterval,
  toSamples,
  toSortedSamples,
} from '../src/stats/index.js'

export type Subject =
  | { readonly kind: 'window'; readonly result: MeasuredEnergyResult }
  | { readonly kind: 'method'; readonly method: MethodEnergy }
  | { readonly kind: 'repeated'; readonly runs: readonly MeasuredEnergyResult[] }
  | {
      readonly kind: 'repeated-method'
      readonly name: string
      readonly runs: readonly MethodEnergy[]
    }

/** A subject that cannot be judged: the message says why (failed window, skipped, wrong type). */
export interface Unjudgeable {
  readonly kind: 'unjudgeable'
  readonly reason: string
  /** The method asked for, when the subject is a method that was not found. */
  readonly method?: string
  /** How many repetitions it was looked for in, when asked over `energy.repeat`'s runs. */
  readonly repetitions?: number
}

export function resolveSubject(received: unknown): Subject | Unjudgeable {
  // The commonest newcomer's mistake: `expect(energy.measure(…))` without `await`.
  if (isThenable(received)) {
    // Said here, so the end of the test does not fail it a second time (E_MEASURE_NOT_AWAITED).
    markReportedUnawaited(received)
    return {
      kind: 'unjudgeable',
      reason:
        'received a Promise — did you forget `await` before energy.measure()/repeat()/baseline()?',
    }
  }
  const value = unwrap(received)
  if (isEnergyFixture(value)) return fromFixture(value.results)
  if (typeof value !== 'object' || value === null) {
    return {
      kind: 'unjudgeable',
      reason: `expected an energy result, received ${describe(value)}; ${WHAT_TO_PASS}${typeof value === 'number' ? PLAIN_NUMBER : ''}`,
    }
  }
  const record = value as Record<string, unknown>
  if (Array.isArray(record['energyRuns'])) return repeated(record['energyRuns'] as unknown[])
  if (Array.isArray(record['methodRuns'])) return repeatedMethod(record['methodRuns'] as unknown[])
  if (record['missing'] === true && typeof record['reason'] === 'string') {
    return {
      kind: 'unjudgeable',
      reason: record['reason'],
      ...(typeof record['method'] === 'string' ? { method: record['method'] } : {}),
    }
  }
  if (record['status'] === 'measured')
    return { kind: 'window', result: value as MeasuredEnergyResult }
  if (record['status'] === 'failed') {
    const error = record['error'] as { message?: string } | undefined
    return {
      kind: 'unjudgeable',
      reason: `the energy window failed: ${error?.message ?? 'unknown error'}`,
    }
  }
  if (record['status'] === 'skipped') {
    return {
      kind: 'unjudgeable',
      reason: `the energy window was skipped: ${String(record['reason'])}`,
    }
  }
  if (typeof record['method'] === 'string' && typeof record['inclusiveEnergyJ'] === 'number') {
    return { kind: 'method', method: value as MethodEnergy }
  }
  return {
    kind: 'unjudgeable',
    reason: `expected an energy result or a method's energy, received ${describe(value)}; ${WHAT_TO_PASS}`,
  }
}

/** What a matcher is given, said when it was given something else. */
const WHAT_TO_PASS =
  'pass what `energy.measure()`, `energy.repeat()` or `run.method(name)` returns: `const run = await energy.measure(…)`, then `expect(run)…`'

/** A figure read off a result (`run.netEnergyJ`) is a plain number, for the runner's own matchers. */
const PLAIN_NUMBER =
  '; to compare a plain number of joules, use `toBeLessThan`: `expect(run.netEnergyJ).toBeLessThan(2)`'

function repeated(runs: unknown[]): Subject | Unjudgeable {
  const judged = runs.map(resolveSubject)
  const bad = judged.find((s) => s.kind !== 'window')
  if (bad !== undefined) {
    return {
      kind: 'unjudgeable',
      reason: bad.kind === 'unjudgeable' ? bad.reason : 'a repetition is not a window',
    }
  }
  if (judged.length === 0) return { kind: 'unjudgeable', reason: 'no repetitions were measured' }
  return {
    kind: 'repeated',
    runs: judged.map((s) => (s as { result: MeasuredEnergyResult }).result),
  }
}

function repeatedMethod(runs: unknown[]): Subject | Unjudgeable {
  const methods = runs.map(resolveSubject)
  const found = methods.filter(
    (s): s is Extract<Subject, { kind: 'method' }> => s.kind === 'method',
  )
  if (found.length === 0) {
    const first = methods[0]
    return {
      kind: 'unjudgeable',
      reason:
        first?.kind === 'unjudgeable' ? first.reason : 'the method was not seen in any repetition',
      ...(first?.kind === 'unjudgeable' && first.method !== undefined
        ? { method: first.method, repetitions: runs.length }
        : {}),
    }
  }
  const name = found[0]?.method.method ?? ''
  // A method not sampled in one repetition genuinely cost ~0 J there.
  const runsOrZero = methods.map((s) =>
    s.kind === 'method'
      ? s.method
      : {
          method: name,
          attribution: found[0]?.method.attribution ?? 'sampling',
          localEnergyJ: 0,
          nonLocalEnergyJ: 0,
          inclusiveEnergyJ: 0,
          asyncEnergyJ: 0,
        },
  )
  return { kind: 'repeated-method', name, runs: runsOrZero }
}

/** The `energy` fixture itself (`expect(energy)…`): its `results` are the test's windows so far. */
function isEnergyFixture(value: unknown): value is { readonly results: readonly unknown[] } {
  if (typeof value !== 'object' || value === null) return false
  const record = value as Record<string, unknown>
  return (
    Array.isArray(record['results']) &&
    typeof record['measure'] === 'function' &&
    typeof record['repeat'] === 'function'
  )
}

/**
 * The fixture given to a matcher means the test's energy: its one window. With none closed yet
 * (the automatic window closes when the test ends) or several, the reason says what to pass.
 */
function fromFixture(results: readonly unknown[]): Subject | Unjudgeable {
  const windows = results.filter(
    (r) => (r as { idleBaseline?: unknown } | null)?.idleBaseline !== true,
  )
  if (windows.length === 1) return resolveSubject(windows[0])
  const fix =
    'keep what energy.measure() returns and pass that: `const run = await energy.measure(async () => { … })`, then `expect(run)…`'
  return {
    kind: 'unjudgeable',
    reason:
      windows.length === 0
        ? `received the \`energy\` fixture before any window closed (its automatic window closes when the test ends, where \`checkBudgets: true\` checks it); ${fix}`
        : `received the \`energy\` fixture, which holds ${windows.length} windows of this test; ${fix} (or \`expect(runs)\` for energy.repeat()'s runs)`,
  }
}

/** Marks a promise a matcher received (read by the test's end: src/session/test-energy.ts). */
function markReportedUnawaited(value: unknown): void {
  if (typeof value === 'object' && value !== null && Object.isExtensible(value)) {
    Object.defineProperty(value, REPORTED_UNAWAITED, { value: true, configurable: true })
  }
}

/** Shared with src/session/test-energy.ts through the global symbol registry. */
const REPORTED_UNAWAITED = Symbol.for('vitest-energy.reportedUnawaited')

function unwrap(received: unknown): unknown {
  if (typeof received === 'object' && received !== null && 'energyResult' in received) {
    return (received as { energyResult: unknown }).energyResult
  }
  return received
}

function isThenable(value: unknown): boolean {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  )
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value)
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object')
    return `an object with keys ${Object.keys(value).slice(0, 5).join(', ')}`
  return `${typeof value} ${String(value)}`
}

/**
 * Which part of the energy a budget applies to: a window's `net` (above the idle baseline, the
 * default), `gross`, one rail or one component; a method's only figure, `inclusive` (its own and
 * its callees' energy, what a method is judged by without a scope).
 */
export type Scope =
  'net' | 'gross' | `rail:${string}` | `component:${string}` | 'inclusive' | 'inclusive+async'

/**
 * A method's scopes: with what it caused after it ran, and its own and its callees' energy (this
 * order, so that a misspelt `inclusive+async` is not taken for its prefix).
 */
export const METHOD_SCOPES = ['inclusive+async', 'inclusive'] as const

/**
 * Why `scope` cannot be read of `subject`, as `E_INVALID_OPTION` naming the subject's scopes and
 * the closest one; undefined when it can (or none was given). A misspelt scope would otherwise
 * read as a component of no name (`'gros'`) or, of a method, be ignored. A rail or component the
 * window does not have is not a mistake in the scope: `windowEnergy` names the window's.
 */
export function scopeMistake(scope: unknown, subject: Subject): EnergyError | undefined {
  if (scope === undefined) return undefined
  const said = typeof scope === 'string' ? `'${scope}'` : describe(scope)
  if (subject.kind === 'method' || subject.kind === 'repeated-method') {
    if ((METHOD_SCOPES as readonly unknown[]).includes(scope)) return undefined
    const near = typeof scope === 'string' ? closestName(scope, METHOD_SCOPES) : undefined
    return new EnergyError({
      code: CommonErrors.INVALID_OPTION,
      message: `scope ${said} does not apply to a method's energy: its scopes are 'inclusive' (the method and what it calls, the default) and 'inclusive+async' (also what it caused after it ran: a radio tail, the GPS it left on)${near === undefined ? '' : `; did you mean '${near}'?`}`,
      hint: "Leave `scope` out for a method, or give 'inclusive+async'. To judge the window in another scope, pass the run itself: `expect(run).toConsumeLessThan(…, { scope: 'gross' })`.",
      details: { scope: typeof scope === 'string' ? scope : said },
    })
  }
  if (scope === 'net' || scope === 'gross') return undefined
  if (typeof scope === 'string' && /^(rail|component):\S/.test(scope)) return undefined
  const result = subject.kind === 'window' ? subject.result : subject.runs[0]
  const rails = result?.rails.map((r) => r.rail) ?? []
  const components: readonly string[] = result?.components.map((c) => c.component) ?? []
  const near =
    typeof scope !== 'string'
      ? undefined
      : components.includes(scope)
        ? `component:${scope}` // a component's bare name: `cpu`
        : rails.includes(scope)
          ? `rail:${scope}`
          : closestName(scope, [
              'net',
              'gross',
              ...rails.map((r) => `rail:${r}`),
              ...components.map((c) => `component:${c}`),
            ])
  const methodScope = (METHOD_SCOPES as readonly unknown[]).includes(scope)
  const names = (kind: string, list: readonly string[]): string =>
    list.length === 0 ? `this window has no ${kind}` : `this window's: ${list.join(', ')}`
  return new EnergyError({
    code: CommonErrors.INVALID_OPTION,
    message: `scope ${said} is not a scope of a window's energy (net, gross, rail:<name>, component:<name>)${methodScope ? `: '${scope}' is a method's` : ''}${near === undefined ? '' : `; did you mean '${near}'?`}`,
    hint: `Use 'net' (the default: above the idle baseline), 'gross' (the whole phone), 'rail:<name>' (${names('rails', rails)}) or 'component:<name>' (${names('components', components)})${methodScope ? "; for a method's, pass `run.method(name)`" : ''}.`,
    details: { scope: typeof scope === 'string' ? scope : said },
  })
}

/** Which statistic of repeated windows a budget applies to. */
export type Stat = 'mean' | 'median' | 'upper95'

export interface Figure {
  readonly valueJ: number
  readonly intervalJ?: Interval
  /** What the figure is, for messages: `net`, `rail S4M_VDD_CPUCL0`, `inclusive`, `mean of 5`. */
  readonly label: string
  /** Repetitions behind the figure (1 for a single window). */
  readonly n: number
}

/**
 * A window's energy in the given scope. Net and gross leave out what a radio or the GPS another
 * test left on drew here (`carriedOverJ`): the verdict is the test's own, whatever ran before it
 * on the phone. Components and rails are the phone's, whole.
 */
export function windowEnergy(r: MeasuredEnergyResult, scope: Scope = 'net'): Figure | Unjudgeable {
  const carriedJ = r.carriedOverJ ?? 0
  const without = carriedJ > 0 ? `, without ${formatJoules(carriedJ)} another test left on` : ''
  if (scope === 'net') return { ...ownNetEnergy(r), label: `net${without}`, n: 1 }
  if (scope === 'gross')
    return { valueJ: r.grossEnergyJ - carriedJ, label: `gross${without}`, n: 1 }
  if (scope.startsWith('rail:')) {
    const name = scope.slice('rail:'.length)
    const rail = r.rails.find((x) => x.rail === name)
    if (rail === undefined) {
      const known = r.rails.map((x) => x.rail).join(', ') || 'none (the power source has no rails)'
      return {
        kind: 'unjudgeable',
        reason: `no rail named '${name}' in this window${didYouMean(
          name,
          r.rails.map((x) => x.rail),
        )}; rails: ${known}`,
      }
    }
    return { valueJ: rail.energyJ, label: `rail ${name}`, n: 1 }
  }
  if (!scope.startsWith('component:')) {
    // What `scopeMistake` refuses first; said here too for a caller that did not ask it.
    return {
      kind: 'unjudgeable',
      reason: scopeMistake(scope, { kind: 'window', result: r })?.message ?? scope,
    }
  }
  const name = scope.slice('component:'.length)
  const component = r.components.find((x) => x.component === name)
  if (component === undefined) {
    const known = r.components.map((x) => x.component).join(', ') || 'none'
    return {
      kind: 'unjudgeable',
      reason: `no component '${name}' in this window${didYouMean(
        name,
        r.components.map((x) => x.component),
      )}; components: ${known}`,
    }
  }
  return { valueJ: component.energyJ, label: `component ${name}`, n: 1 }
}

function didYouMean(name: string, known: readonly string[]): string {
  const near = closestName(name, known)
  return near === undefined ? '' : ` (did you mean '${near}'?)`
}

function methodEnergyFigure(m: MethodEnergy, scope: Scope | undefined): Figure {
  // The asynchronous energy has no interval of its own: the inclusive one moves by it.
  const asyncJ = scope === 'inclusive+async' ? m.asyncEnergyJ : 0
  const interval = m.inclusiveIntervalJ
  return {
    valueJ: m.inclusiveEnergyJ + asyncJ,
    ...(interval === undefined
      ? {}
      : { intervalJ: { ...interval, low: interval.low + asyncJ, high: interval.high + asyncJ } }),
    label: `inclusive${scope === 'inclusive+async' ? ' and async' : ''}, ${m.attribution}`,
    n: 1,
  }
}

/** The figure a budget applies to: one window's, or a statistic over repetitions. */
export function energyFigure(
  subject: Subject,
  scope: Scope = 'net',
  stat: Stat = 'mean',
): Figure | Unjudgeable {
  if (subject.kind === 'method') return methodEnergyFigure(subject.method, scope)
  if (subject.kind === 'window') return windowEnergy(subject.result, scope)
  const perRun: Figure[] = []
  for (const run of subject.kind === 'repeated'
    ? subject.runs.map((r) => windowEnergy(r, scope))
    : subject.runs.map((m) => methodEnergyFigure(m, scope))) {
    if ('kind' in run) return run
    perRun.push(run)
  }
  return statistic(
    perRun.map((f) => f.valueJ),
    stat,
    perRun[0]?.label ?? '',
  )
}

/** Mean with a t interval; median with a seeded bootstrap interval; or the t interval's upper bound. */
export function statistic(
  values: readonly number[],
  stat: Stat,
  label: string,
): Figure | Unjudgeable {
  const n = values.length
  if (n === 1 && values[0] !== undefined) {
    if (stat === 'upper95')
      return {
        kind: 'unjudgeable',
        reason: 'upper95 needs at least 2 repetitions; use energy.repeat(n, …)',
      }
    return { valueJ: values[0], label, n }
  }
  const samples = toSamples(values, 'repetitions')
  const t = tInterval(samples)
  if (stat === 'upper95')
    return { valueJ: t.upper, label: `${label}, upper 95% bound of the mean of ${n}`, n }
  if (stat === 'median') {
    const b = bootstrapInterval(samples, {}, (s) => median(toSortedSamples(s, 'resample')))
    return {
      valueJ: median(toSortedSamples(values, 'repetitions')),
      intervalJ: { low: b.lower, high: b.upper, level: b.confidence },
      label: `${label}, median of ${n}`,
      n,
    }
  }
  return {
    valueJ: t.estimate,
    intervalJ: { low: t.lower, high: t.upper, level: t.confidence },
    label: `${label}, mean of ${n}`,
    n,
  }
}

export function isUnjudgeable(value: unknown): value is Unjudgeable {
  return (
    typeof value === 'object' && value !== null && (value as Unjudgeable).kind === 'unjudgeable'
  )
}
