import { formatPercent } from '../src/model/index.js'
import { checkLimit, type MatcherContext, type MatcherResult } from './_budget.js'
import { BUDGET_OPTION_RULES, type BudgetOptions } from './_options.js'

/** `expect(run).toUseLessThanPercentOfBattery(0.05)`: share of the battery's capacity, in percent. */
export function toUseLessThanPercentOfBattery(
  this: MatcherContext,
  received: unknown,
  percent: number,
  options?: Pick<BudgetOptions, 'inconclusive'>,
): MatcherResult {
  return checkLimit(this, received, {
    matcherName: 'toUseLessThanPercentOfBattery',
    strict: true,
    limit: percent,
    format: formatPercent,
    unit: '%',
    scope: 'battery',
    optionRules: { inconclusive: BUDGET_OPTION_RULES['inconclusive'] ?? [] },
    figure: (subject) => {
      if (subject.kind !== 'window') {
        return {
          kind: 'unjudgeable',
          reason: 'toUseLessThanPercentOfBattery needs a measured window',
        }
      }
      const battery = subject.result.battery
      if (battery === undefined) {
        return {
          kind: 'unjudgeable',
          reason:
            'this window has no battery context (capacity unknown): set `batteryCapacityMah` in the plugin options or use a device whose power profile declares battery.capacity',
        }
      }
      return { valueJ: battery.percentOfCapacity, label: 'of battery capacity', n: 1 }
    },
    ...(options === undefined ? {} : { options }),
  })
}
