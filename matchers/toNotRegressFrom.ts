/**
 * `expect(current).toNotRegressFrom(baseline, { maxPct: 5, alpha: 0.05 })` on repeated windows:
 * fails when current uses significantly more energy (Mann–Whitney by default) by at least maxPct.
 * When the repetitions cannot tell, it says how many more would decide.
 */
import { formatJoules, type MeasuredEnergyResult } from '../src/model/index.js'
import { compare, requiredRepetitions } from '../src/stats/index.js'
import type { LimitCheck } from '../src/model/index.js'
import { limitTarget, type MatcherContext, type MatcherResult } from './_budget.js'
import {
  INCONCLUSIVE_MODES,
  inconclusiveMode,
  optionsMistake,
  type OptionRules,
} from './_options.js'
import { recordLimit } from './_record.js'
import {
  isUnjudgeable,
  resolveSubject,
  scopeMistake,
  windowEnergy,
  type Scope,
  type Unjudgeable,
} from './_subject.js'

export interface RegressionOptions {
  /** Smallest increase, in % of the baseline mean, that counts as a regression. @default 5 */
  readonly maxPct?: number
  /** Significance level. @default 0.05 */
  readonly alpha?: number
  /** @default 'mann-whitney' */
  readonly test?: 'mann-whitney' | 'welch'
  /** @default 'net' */
  readonly scope?: Scope
  /** @default 'fail' */
  readonly inconclusive?: 'fail' | 'warn'
}

const REGRESSION_OPTION_RULES: OptionRules = {
  maxPct: 'number',
  alpha: 'number',
  test: ['mann-whitney', 'welch'],
  scope: 'scope',
  inconclusive: INCONCLUSIVE_MODES,
}

export function toNotRegressFrom(
  this: MatcherContext,
  received: unknown,
  baseline: unknown,
  options: RegressionOptions = {},
): MatcherResult {
  const hint = `expect(current)${this.isNot ? '.not' : ''}.toNotRegressFrom(baseline)`
  const wrongOption = optionsMistake(options, REGRESSION_OPTION_RULES, 'toNotRegressFrom')
  if (wrongOption !== undefined)
    return { pass: this.isNot, message: () => `${hint}\n\n${wrongOption.message}` }
  const judged = resolveSubject(received)
  const mistake =
    !isUnjudgeable(judged) && judged.kind === 'repeated'
      ? scopeMistake(options.scope, judged)
      : undefined
  if (mistake !== undefined)
    return { pass: this.isNot, message: () => `${hint}\n\n${mistake.message}` }
  const current = runsOf(received, options.scope, 'current')
  const base = runsOf(baseline, options.scope, 'baseline')
  const maxPct = options.maxPct ?? 5
  // Recorded for the reporter: the increase over the baseline's mean against maxPct.
  const subject = judged
  const record = (check: Pick<LimitCheck, 'verdict' | 'passed' | 'value' | 'n' | 'reason'>) =>
    recordLimit(this, {
      matcher: 'toNotRegressFrom',
      negated: this.isNot === true,
      comparison: '<',
      limit: maxPct,
      unit: '%',
      scope: options.scope ?? 'net',
      ...(isUnjudgeable(subject) ? {} : { target: limitTarget(subject) }),
      ...check,
    })
  for (const side of [current, base]) {
    if (isUnjudgeable(side)) {
      record({ verdict: 'unjudgeable', passed: false, n: 0, reason: side.reason })
      return { pass: this.isNot, message: () => `${hint}\n\n${side.reason}` }
    }
  }
  const currentJ = current as number[]
  const baseJ = base as number[]
  const compareOptions = {
    minEffectPct: maxPct,
    alpha: options.alpha ?? 0.05,
    test: options.test ?? 'mann-whitney',
  } as const
  const c = compare(baseJ, currentJ, compareOptions)
  const figures = {
    ...(Number.isFinite(c.deltaPct) ? { value: c.deltaPct } : {}),
    n: c.currentN,
  }
  const lines = (extra: string): string =>
    [
      hint,
      '',
      `Expected: no increase of ${maxPct}% or more (α = ${c.alpha}, ${c.test})`,
      `Received: ${signed(c.deltaJ)} (${c.deltaPct >= 0 ? '+' : ''}${c.deltaPct.toFixed(1)}%), 95% ${formatJoules(c.interval.lower)} – ${formatJoules(c.interval.upper)}, p = ${c.pValue.toPrecision(3)}`,
      `Runs:     baseline ${c.baselineN} × mean ${formatJoules(mean(baseJ))}, current ${c.currentN} × mean ${formatJoules(mean(currentJ))}`,
      `Verdict:  ${c.verdict}`,
      ...(extra ? ['', extra] : []),
    ].join('\n')
  if (c.verdict === 'inconclusive') {
    const more = requiredRepetitions(baseJ, currentJ, compareOptions)
    const extra =
      more === undefined
        ? 'inconclusive: no number of repetitions would decide (the runs do not vary)'
        : `inconclusive: ${more.additionalRuns} more repetition${more.additionalRuns === 1 ? '' : 's'} per build would decide`
    if (inconclusiveMode(options) === 'fail') {
      record({ verdict: 'inconclusive', passed: false, ...figures })
      return { pass: this.isNot, message: () => lines(extra) }
    }
    console.warn(lines(`${extra} (passed because inconclusive: 'warn')`))
  }
  const pass = c.verdict !== 'worse'
  record({
    verdict: c.verdict === 'inconclusive' ? 'inconclusive' : pass ? 'within' : 'over',
    passed: this.isNot ? !pass : pass,
    ...figures,
  })
  return {
    pass,
    message: () => lines(''),
  }
}

function runsOf(value: unknown, scope: Scope | undefined, what: string): number[] | Unjudgeable {
  if (Array.isArray(value) && value.every((v) => typeof v === 'number')) return value as number[]
  const subject = resolveSubject(value)
  if (isUnjudgeable(subject)) return { kind: 'unjudgeable', reason: `${what}: ${subject.reason}` }
  if (subject.kind !== 'repeated') {
    return {
      kind: 'unjudgeable',
      reason: `${what}: a regression check needs repeated windows (energy.repeat(n, …)) or an array of joules, not a single ${subject.kind}`,
    }
  }
  const values: number[] = []
  for (const r of subject.runs as readonly MeasuredEnergyResult[]) {
    const f = windowEnergy(r, scope)
    if (isUnjudgeable(f)) return f
    values.push(f.valueJ)
  }
  if (values.length < 2)
    return {
      kind: 'unjudgeable',
      reason: `${what}: needs at least 2 repetitions, got ${values.length}`,
    }
  return values
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length
}

function signed(j: number): string {
  return `${j >= 0 ? '+' : ''}${formatJoules(j)}`
}
