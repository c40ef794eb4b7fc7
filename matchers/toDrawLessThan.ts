import { formatWatts } from '../src/model/index.js'
import { checkLimit, type MatcherContext, type MatcherResult } from './_budget.js'
import type { BudgetOptions } from './_options.js'
import { energyFigure, isUnjudgeable } from './_subject.js'

/**
 * `expect(run).toDrawLessThan(1.2)`: average power (watts) over the window strictly below the
 * limit; net power (net energy / duration) by default, `scope: 'gross'` for the whole device.
 */
export function toDrawLessThan(
  this: MatcherContext,
  received: unknown,
  watts: number,
  options?: BudgetOptions,
): MatcherResult {
  return checkLimit(this, received, {
    matcherName: 'toDrawLessThan',
    strict: true,
    limit: watts,
    format: formatWatts,
    figure: (subject) => {
      if (subject.kind !== 'window') {
        return {
          kind: 'unjudgeable',
          reason: 'toDrawLessThan needs a measured window, not a method',
        }
      }
      const energy = energyFigure(subject, options?.scope)
      if (isUnjudgeable(energy)) return energy
      const durationS = subject.result.durationS
      if (!(durationS > 0)) return { kind: 'unjudgeable', reason: 'the window has zero duration' }
      const interval = energy.intervalJ
      return {
        valueJ: energy.valueJ / durationS,
        ...(interval === undefined
          ? {}
          : {
              intervalJ: {
                low: interval.low / durationS,
                high: interval.high / durationS,
                level: interval.level,
              },
            }),
        label: `average ${energy.label} power`,
      }
    },
    ...(options === undefined ? {} : { options }),
  })
}
