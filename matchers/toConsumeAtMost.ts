import { formatJoules } from '../src/model/index.js'
import { checkLimit, type MatcherContext, type MatcherResult } from './_budget.js'
import type { BudgetOptions } from './_options.js'
import { energyFigure } from './_subject.js'

/** `expect(run).toConsumeAtMost(2.5)`: energy (joules, net by default) at or below the limit. */
export function toConsumeAtMost(
  this: MatcherContext,
  received: unknown,
  joules: number,
  options?: BudgetOptions,
): MatcherResult {
  return checkLimit(this, received, {
    matcherName: 'toConsumeAtMost',
    strict: false,
    limit: joules,
    format: formatJoules,
    unit: 'J',
    scope: options?.scope ?? 'net',
    figure: (subject) => energyFigure(subject, options?.scope, options?.stat),
    ...(options === undefined ? {} : { options }),
  })
}
