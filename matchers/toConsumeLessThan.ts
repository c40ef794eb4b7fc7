import { formatJoules } from '../src/model/index.js'
import { checkLimit, type MatcherContext, type MatcherResult } from './_budget.js'
import type { BudgetOptions } from './_options.js'
import { energyFigure } from './_subject.js'

/** `expect(run).toConsumeLessThan(2.5)`: energy (joules, net by default) strictly below the limit. */
export function toConsumeLessThan(
  this: MatcherContext,
  received: unknown,
  joules: number,
  options?: BudgetOptions,
): MatcherResult {
  return checkLimit(this, received, {
    matcherName: 'toConsumeLessThan',
    strict: true,
    limit: joules,
    format: formatJoules,
    unit: 'J',
    scope: options?.scope ?? 'net',
    figure: (subject) => energyFigure(subject, options?.scope, options?.stat),
    ...(options === undefined ? {} : { options }),
  })
}
