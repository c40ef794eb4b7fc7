/**
 * The shared body of the "stay under a limit" matchers: resolve the subject, read the figure,
 * decide with its interval, and build the message lazily. Works for Vitest and Jest alike: it only
 * uses `this.isNot` and returns `{ pass, message }` — no `actual`/`expected`: the runners would
 * print them as a raw diff of joules (`- 0.1 / + 1.2528573167873138`) under the message's own
 * Expected/Received lines, in units.
 */
import type { LimitCheck, LimitTarget, LimitUnit, LimitVerdict } from '../src/model/index.js'
import { decide, type Decision } from './_verdict.js'
import {
  biggestCosts,
  describeSource,
  formatInterval,
  subjectName,
  topMethods,
} from './_message.js'
import {
  BUDGET_OPTION_RULES,
  inconclusiveMode,
  optionsMistake,
  type BudgetOptions,
  type OptionRules,
} from './_options.js'
import { recordLimit } from './_record.js'
import {
  isUnjudgeable,
  resolveSubject,
  scopeMistake,
  type Figure,
  type Subject,
  type Unjudgeable,
} from './_subject.js'

export interface MatcherContext {
  readonly isNot: boolean
  /** The test running the `expect` (both runners set them): where the check is recorded. */
  readonly testPath?: string
  readonly currentTestName?: string
}

export interface MatcherResult {
  readonly pass: boolean
  readonly message: () => string
}

export interface LimitSpec {
  readonly matcherName: string
  /** Strict `<` (true) or `≤` (false). */
  readonly strict: boolean
  readonly limit: number
  readonly format: (value: number) => string
  /** Unit of the limit and the figure, as recorded for the reporter. */
  readonly unit: LimitUnit
  /** Which figure of a window (a method's is always `inclusive`), as recorded. @default 'net' */
  readonly scope?: string
  /** Reads the figure to compare, or says why it cannot. */
  readonly figure: (subject: Subject) => Figure | Unjudgeable
  readonly options?: BudgetOptions
  /** The options this matcher takes. @default scope, stat and inconclusive */
  readonly optionRules?: OptionRules
  /** An extra line under `Source:` (e.g. where a budget came from). */
  readonly note?: string
  /** What to do when the figure is over the limit (e.g. how to accept an intended increase). */
  readonly whenOver?: string
}

export function checkLimit(
  context: MatcherContext,
  received: unknown,
  spec: LimitSpec,
): MatcherResult {
  const hint = `expect(received)${context.isNot ? '.not' : ''}.${spec.matcherName}(${spec.format(spec.limit)})`
  if (!Number.isFinite(spec.limit) || spec.limit < 0) {
    // A mistake in the test, not a measurement: nothing to show beside the test's energy.
    return failBothWays(
      context,
      () => `${hint}\n\nThe limit must be a finite, non-negative number; got ${spec.limit}.`,
    )
  }
  const wrongOption = optionsMistake(
    spec.options,
    spec.optionRules ?? BUDGET_OPTION_RULES,
    spec.matcherName,
  )
  if (wrongOption !== undefined)
    return failBothWays(context, () => `${hint}\n\n${wrongOption.message}`)
  const subject = resolveSubject(received)
  const record = (
    verdict: LimitVerdict,
    passed: boolean,
    figure?: Figure,
    reason?: string,
  ): void => {
    const judged = isUnjudgeable(subject) ? undefined : subject
    const missing = isUnjudgeable(subject) && subject.method !== undefined ? subject : undefined
    recordLimit(
      context,
      limitCheck(context, spec, judged, { verdict, passed, figure, reason, missing }),
      judged === undefined ? [] : judgedObjects(judged),
    )
  }
  if (isUnjudgeable(subject)) {
    record('unjudgeable', false, undefined, subject.reason)
    return failBothWays(context, () => `${hint}\n\n${subject.reason}`)
  }
  // A scope the subject does not have is a mistake in the test, as a negative limit is.
  const mistake = scopeMistake(spec.options?.scope, subject)
  if (mistake !== undefined) return failBothWays(context, () => `${hint}\n\n${mistake.message}`)
  const figure = spec.figure(subject)
  if (isUnjudgeable(figure)) {
    record('unjudgeable', false, undefined, figure.reason)
    return failBothWays(context, () => `${hint}\n\n${figure.reason}`)
  }

  const belowIdle = belowIdleReason(subject, figure, spec)
  if (belowIdle !== undefined) {
    record('unjudgeable', false, figure, belowIdle)
    return failBothWays(context, () => `${hint}\n\n${belowIdle}`)
  }
  const decision = decide(figure.valueJ, spec.limit, figure.intervalJ, spec.strict, figure.n)
  const comparator = spec.strict ? '<' : '≤'
  const costs = biggestCosts(subject)
  const methods = topMethods(subject)
  // A method's radio tail is not in its default figure: say so where it would change the verdict's meaning.
  const asyncJ = uncountedAsyncJ(subject, spec)
  const uncountedAsync =
    asyncJ > 0
      ? `Async:    ${spec.format(asyncJ)} more after it ran (a radio tail, the GPS it left on), not counted; { scope: 'inclusive+async' } counts it`
      : undefined
  const lines = (verdictLine: string): string =>
    [
      hint,
      '',
      `Expected: ${context.isNot ? 'not ' : ''}${comparator} ${spec.format(spec.limit)} (${figure.label})`,
      `Received: ${spec.format(figure.valueJ)}${formatInterval(figure.intervalJ, spec.format)} for ${subjectName(subject)}`,
      `Source:   ${describeSource(subject)}`,
      ...(spec.note === undefined ? [] : [spec.note]),
      ...(uncountedAsync === undefined ? [] : [uncountedAsync]),
      ...(verdictLine ? ['', verdictLine] : []),
      // What cost the most first (components, what an earlier window left on), then methods.
      ...(costs.length > 0 ? ['', ...costs] : []),
      ...(methods.length > 0 ? ['', ...methods] : []),
    ].join('\n')
  // What the assertion concludes when `pass` says whether the figure is within the limit.
  const outcome = (pass: boolean): boolean => (context.isNot ? !pass : pass)

  if (decision.verdict === 'inconclusive') {
    const message = inconclusiveMessage(decision)
    if (inconclusiveMode(spec.options) === 'fail') {
      record('inconclusive', false, figure)
      return failBothWays(context, () => lines(message))
    }
    console.warn(lines(`${message} (decided by the point estimate because inconclusive: 'warn')`))
    const pass = spec.strict ? figure.valueJ < spec.limit : figure.valueJ <= spec.limit
    record('inconclusive', outcome(pass), figure)
    return { pass, message: () => lines('') }
  }
  const pass = decision.verdict === 'within'
  record(decision.verdict, outcome(pass), figure)
  return { pass, message: () => lines(pass || context.isNot ? '' : (spec.whenOver ?? '')) }
}

/** The check as recorded for the reporter (`LimitCheck`, src/model/limits.ts). */
function limitCheck(
  context: MatcherContext,
  spec: LimitSpec,
  subject: Subject | undefined,
  result: {
    readonly verdict: LimitVerdict
    readonly passed: boolean
    readonly figure: Figure | undefined
    readonly reason: string | undefined
    /** A method asked for and not found (no subject), so that the check still names it. */
    readonly missing?: Unjudgeable | undefined
  },
): LimitCheck {
  const { figure, missing } = result
  const overMethod =
    subject?.kind === 'method' || subject?.kind === 'repeated-method' || missing !== undefined
  const withAsync = spec.scope === 'inclusive+async'
  const asyncJ = subject === undefined ? 0 : uncountedAsyncJ(subject, spec)
  const repeated =
    subject?.kind === 'repeated' ||
    subject?.kind === 'repeated-method' ||
    missing?.repetitions !== undefined
  return {
    matcher: spec.matcherName,
    negated: context.isNot === true,
    comparison: spec.strict ? '<' : '<=',
    limit: spec.limit,
    unit: spec.unit,
    scope: overMethod ? (withAsync ? 'inclusive+async' : 'inclusive') : (spec.scope ?? 'net'),
    ...(asyncJ > 0 ? { uncountedAsyncJ: asyncJ } : {}),
    ...(repeated ? { stat: spec.options?.stat ?? 'mean' } : {}),
    ...(figure === undefined ? {} : { value: figure.valueJ }),
    ...(figure?.intervalJ === undefined
      ? {}
      : { interval: { low: figure.intervalJ.low, high: figure.intervalJ.high } }),
    n:
      figure?.n ??
      (subject?.kind === 'repeated' ? subject.runs.length : (missing?.repetitions ?? 1)),
    verdict: result.verdict,
    passed: result.passed,
    ...(subject !== undefined
      ? { target: limitTarget(subject) }
      : missing?.method !== undefined
        ? {
            target: {
              kind: missing.repetitions === undefined ? 'method' : 'method-repetitions',
              label: missing.method,
            } as const,
          }
        : {}),
    ...(result.reason === undefined ? {} : { reason: result.reason.split('\n')[0] ?? '' }),
  }
}

/** What a check applied to: a window by its label, repetitions by their base label, a method. */
export function limitTarget(subject: Subject): LimitTarget {
  switch (subject.kind) {
    case 'window':
      return { kind: 'window', label: subject.result.label }
    case 'repeated':
      return { kind: 'repetitions', label: (subject.runs[0]?.label ?? '').replace(/ #\d+$/, '') }
    case 'method':
      return { kind: 'method', label: subject.method.method }
    case 'repeated-method':
      return { kind: 'method-repetitions', label: subject.name }
  }
}

/** The objects a check read that the test can find in its results (methods, to name their window). */
export function judgedObjects(subject: Subject): readonly object[] {
  if (subject.kind === 'method') return [subject.method]
  if (subject.kind === 'repeated-method') return subject.runs
  return []
}

function inconclusiveMessage(decision: Decision): string {
  const more = decision.moreRepetitions ?? Number.POSITIVE_INFINITY
  return Number.isFinite(more)
    ? `inconclusive: the limit lies inside the 95% interval; ${more} more repetition${more === 1 ? '' : 's'} would decide`
    : 'inconclusive: the estimate sits exactly on the limit; no number of repetitions would decide'
}

/** A result that fails whether or not the assertion is negated (bad input, inconclusive). */
function failBothWays(context: MatcherContext, message: () => string): MatcherResult {
  return { pass: context.isNot, message }
}

/** A method's energy after it ran that its figure leaves out (judged `inclusive`), J; else 0. */
function uncountedAsyncJ(subject: Subject, spec: LimitSpec): number {
  return subject.kind === 'method' && spec.scope !== 'inclusive+async'
    ? subject.method.asyncEnergyJ
    : 0
}

/** Below idle by less than this share of what the phone drew, a figure is ≈ 0 and judged as such. */
const MATERIAL_BELOW_IDLE = 0.05

/**
 * Why a window's net or gross figure cannot be judged: it is below 0 beyond its noise (its whole
 * 95% interval) and by more than 5% of what the phone drew, so the idle baseline subtracted from
 * it does not fit the window. Any limit would pass it, meaning nothing. (A window of an idle pause
 * a few mJ below its baseline is ≈ 0, and judged.)
 */
function belowIdleReason(subject: Subject, figure: Figure, spec: LimitSpec): string | undefined {
  if (subject.kind !== 'window' && subject.kind !== 'repeated') return undefined
  const scope = spec.options?.scope ?? 'net'
  if ((scope !== 'net' && scope !== 'gross') || spec.unit === '%') return undefined
  const high = figure.intervalJ?.high ?? figure.valueJ
  if (!(high < 0)) return undefined
  const runs = subject.kind === 'window' ? [subject.result] : subject.runs
  const grossPerRun = (r: (typeof runs)[number]): number =>
    spec.unit === 'W' ? (r.durationS > 0 ? r.grossEnergyJ / r.durationS : 0) : r.grossEnergyJ
  const gross = runs.reduce((a, r) => a + grossPerRun(r), 0) / runs.length
  if (!(-figure.valueJ > MATERIAL_BELOW_IDLE * gross)) return undefined
  return [
    `below idle: the figure is ${spec.format(figure.valueJ)}${formatInterval(figure.intervalJ, spec.format)} (${figure.label}): this test drew less than the idle phone, so the idle baseline does not fit its window and any limit would pass it.`,
    'A setting changed since the baseline was measured (the screen or its brightness, a radio), or what another test left on was counted out.',
    "Measure the baseline in the window's state (`await energy.baseline()` first), or judge `scope: 'gross'` or a rail (`'rail:<name>'`).",
  ].join('\n')
}
