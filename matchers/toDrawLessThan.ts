import { formatWatts } from '../src/model/index.js'
import { checkLimit, type MatcherContext, type MatcherResult } from './_budget.js'
import type { BudgetOptions } from './_options.js'
import {
  isUnjudgeable,
  statistic,
  windowEnergy,
  type Figure,
  type Unjudgeable,
} from './_subject.js'
import type { MeasuredEnergyResult } from '../src/model/index.js'

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
    unit: 'W',
    scope: options?.scope ?? 'net',
    figure: (subject) => {
      if (subject.kind === 'window') return windowPower(subject.result, options)
      if (subject.kind === 'repeated') {
        const perRun: Figure[] = []
        for (const r of subject.runs) {
          const f = windowPower(r, options)
          if (isUnjudgeable(f)) return f
          perRun.push(f)
        }
        return statistic(
          perRun.map((f) => f.valueJ),
          options?.stat ?? 'mean',
          perRun[0]?.label ?? '',
        )
      }
      return { kind: 'unjudgeable', reason: 'toDrawLessThan needs a measured window, not a method' }
    },
    ...(options === undefined ? {} : { options }),
  })
}

function windowPower(
  result: MeasuredEnergyResult,
  options: BudgetOptions | undefined,
): Figure | Unjudgeable {
  const energy = windowEnergy(result, options?.scope)
  if (isUnjudgeable(energy)) return energy
  const durationS = result.durationS
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
    // `average gross power`, then what the figure leaves out (`, without … another test left on`).
    label: energy.label.replace(/^([\w:.\s-]+?)(,.*)?$/, 'average $1 power$2'),
    n: 1,
  }
}
