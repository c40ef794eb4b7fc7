/**
 * The shared body of the "stay under a limit" matchers: resolve the subject, read the figure,
 * decide with its interval, and build the message lazily. Works for Vitest and Jest alike: it only
 * uses `this.isNot` and returns `{ pass, message, actual, expected }`.
 */
import { decide, type Decision } from './_verdict.js'
import { describeSource, formatInterval, subjectName, topMethods } from './_message.js'
import { inconclusiveMode, type BudgetOptions } from './_options.js'
import {
  isUnjudgeable,
  resolveSubject,
  type Figure,
  type Subject,
  type Unjudgeable,
} from './_subject.js'

export interface MatcherContext {
  readonly isNot: boolean
}

export interface MatcherResult {
  readonly pass: boolean
  readonly message: () => string
  readonly actual?: unknown
  readonly expected?: unknown
}

export interface LimitSpec {
  readonly matcherName: string
  /** Strict `<` (true) or `≤` (false). */
  readonly strict: boolean
  readonly limit: number
  readonly format: (value: number) => string
  /** Reads the figure to compare, or says why it cannot. */
  readonly figure: (subject: Subject) => Figure | Unjudgeable
  readonly options?: BudgetOptions
  /** An extra line under `Source:` (e.g. where a budget came from). */
  readonly note?: string
}

export function checkLimit(
  context: MatcherContext,
  received: unknown,
  spec: LimitSpec,
): MatcherResult {
  const hint = `expect(received)${context.isNot ? '.not' : ''}.${spec.matcherName}(${spec.format(spec.limit)})`
  if (!Number.isFinite(spec.limit) || spec.limit < 0) {
    return failBothWays(
      context,
      () => `${hint}\n\nThe limit must be a finite, non-negative number; got ${spec.limit}.`,
    )
  }
  const subject = resolveSubject(received)
  if (isUnjudgeable(subject)) return failBothWays(context, () => `${hint}\n\n${subject.reason}`)
  const figure = spec.figure(subject)
  if (isUnjudgeable(figure)) return failBothWays(context, () => `${hint}\n\n${figure.reason}`)

  const decision = decide(figure.valueJ, spec.limit, figure.intervalJ, spec.strict, figure.n)
  const comparator = spec.strict ? '<' : '≤'
  const lines = (verdictLine: string): string =>
    [
      hint,
      '',
      `Expected: ${context.isNot ? 'not ' : ''}${comparator} ${spec.format(spec.limit)} (${figure.label})`,
      `Received: ${spec.format(figure.valueJ)}${formatInterval(figure.intervalJ, spec.format)} for ${subjectName(subject)}`,
      `Source:   ${describeSource(subject)}`,
      ...(spec.note === undefined ? [] : [spec.note]),
      ...(verdictLine ? ['', verdictLine] : []),
      ...(topMethods(subject).length > 0 ? ['', ...topMethods(subject)] : []),
    ].join('\n')

  if (decision.verdict === 'inconclusive') {
    const message = inconclusiveMessage(decision)
    if (inconclusiveMode(spec.options) === 'fail')
      return failBothWays(context, () => lines(message))
    console.warn(lines(`${message} (decided by the point estimate because inconclusive: 'warn')`))
    const pass = spec.strict ? figure.valueJ < spec.limit : figure.valueJ <= spec.limit
    return { pass, message: () => lines(''), actual: figure.valueJ, expected: spec.limit }
  }
  return {
    pass: decision.verdict === 'within',
    message: () => lines(''),
    actual: figure.valueJ,
    expected: spec.limit,
  }
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
