import { formatPercent, type MeasuredEnergyResult } from '../src/model/index.js'
import { checkLimit, type MatcherContext, type MatcherResult } from './_budget.js'
import { REPEATED_OPTION_RULES, type BudgetOptions } from './_options.js'
import { isUnjudgeable, statistic, type Figure, type Unjudgeable } from './_subject.js'

/**
 * `expect(run).toUseLessThanPercentOfBattery(0.05)`: share of the battery's capacity, in percent;
 * over `energy.repeat()` runs, their mean (or `stat`).
 */
export function toUseLessThanPercentOfBattery(
  this: MatcherContext,
  received: unknown,
  percent: number,
  options?: Pick<BudgetOptions, 'stat' | 'inconclusive'>,
): MatcherResult {
  return checkLimit(this, received, {
    matcherName: 'toUseLessThanPercentOfBattery',
    strict: true,
    limit: percent,
    format: formatPercent,
    unit: '%',
    scope: 'battery',
    optionRules: REPEATED_OPTION_RULES,
    figure: (subject) => {
      if (subject.kind === 'window') return batteryShare(subject.result)
      if (subject.kind === 'repeated') {
        const perRun: Figure[] = []
        for (const r of subject.runs) {
          const share = batteryShare(r)
          if (isUnjudgeable(share)) return share
          perRun.push(share)
        }
        return statistic(
          perRun.map((f) => f.valueJ),
          options?.stat ?? 'mean',
          'of battery capacity',
        )
      }
      return {
        kind: 'unjudgeable',
        reason:
          "toUseLessThanPercentOfBattery judges a window (`await energy.measure(…)`) or repetitions (`await energy.repeat(…)`), not a method's energy",
      }
    },
    ...(options === undefined ? {} : { options }),
  })
}

function batteryShare(result: MeasuredEnergyResult): Figure | Unjudgeable {
  const battery = result.battery
  if (battery === undefined) {
    return {
      kind: 'unjudgeable',
      reason:
        'this window has no battery context (capacity unknown): set `batteryCapacityMah` in the plugin options or use a device whose power profile declares battery.capacity',
    }
  }
  return { valueJ: battery.percentOfCapacity, label: 'of battery capacity', n: 1 }
}
