/**
 * A test's matcher limits as the reporter shows them (terminal, HTML): which one stands in the
 * test's row, and how a check's figure reads. A test's budget, when it has one, takes the row;
 * its matchers' limits are then listed in its detail (docs/reporter.md, "Matcher limits").
 */
import {
  formatJoules,
  formatPercent,
  formatWatts,
  limitUse,
  type LimitCheck,
  type LimitUnit,
} from '../src/model/index.js'

/**
 * The check a test's row shows: the first that did not pass, else the one that used the largest
 * share of its limit, else the first.
 */
export function primaryLimit(limits: readonly LimitCheck[] | undefined): LimitCheck | undefined {
  if (limits === undefined || limits.length === 0) return undefined
  const failed = limits.find((c) => !c.passed)
  if (failed !== undefined) return failed
  return limits.reduce((best, c) =>
    (limitUse(c) ?? -Infinity) > (limitUse(best) ?? -Infinity) ? c : best,
  )
}

/** A figure in the check's unit: `2.50 J`, `1.20 W`, `0.05%`. */
export function formatInUnit(value: number, unit: LimitUnit): string {
  return unit === 'J'
    ? formatJoules(value)
    : unit === 'W'
      ? formatWatts(value)
      : formatPercent(value)
}

/**
 * What a check's figure is, when it is not simply a window's net energy: `gross`, `rail X`,
 * `FeedAdapter.bind`, `mean of 5`, `upper 95% of 5`, `battery`, `increase over the baseline`.
 */
export function limitQualifier(check: LimitCheck): string {
  const parts: string[] = []
  if (check.matcher === 'toNotRegressFrom') parts.push('increase over the baseline')
  else if (check.scope === 'battery') parts.push('of the battery')
  else if (check.scope === 'inclusive')
    parts.push(
      `${shortMethod(check.target?.label ?? 'method')}${check.uncountedAsyncJ === undefined ? '' : ` (without ${formatJoules(check.uncountedAsyncJ)} async it caused)`}`,
    )
  else if (check.scope === 'inclusive+async')
    parts.push(`${shortMethod(check.target?.label ?? 'method')} with async`)
  else if (check.scope.startsWith('rail:')) parts.push(`rail ${check.scope.slice(5)}`)
  else if (check.scope.startsWith('component:')) parts.push(check.scope.slice(10))
  else if (check.scope !== 'net') parts.push(check.scope)
  if (check.unit === 'W') parts.unshift('power')
  if (check.stat !== undefined && check.n >= 2 && check.matcher !== 'toNotRegressFrom') {
    parts.push(check.stat === 'upper95' ? `upper 95% of ${check.n}` : `${check.stat} of ${check.n}`)
  }
  return parts.join(', ')
}

/**
 * `62% of limit 2.50 J`, `power, gross: 1.25 W, 104% of limit 1.20 W`, `of the battery: 0.02%,
 * limit 0.05%`, and `not` before `limit` for `.not`. Without the verdict (the caller colours it).
 */
export function describeLimit(check: LimitCheck): string {
  const qualifier = limitQualifier(check)
  const limit = limitBound(check)
  if (check.unit === '%') {
    const value = check.value === undefined ? '' : `${formatInUnit(check.value, '%')}, `
    return `${qualifier === '' ? '' : `${qualifier}: `}${value}limit ${limit}`
  }
  const use = limitUse(check)
  // The row shows a window's net energy; any other figure is given here.
  const head =
    qualifier === ''
      ? ''
      : `${qualifier}: ${check.value === undefined ? '' : `${formatInUnit(check.value, check.unit)}, `}`
  return `${head}${use === undefined ? '' : `${Math.round(use)}% of `}limit ${limit}`
}

/** The limit with its comparison: `< 2.50 J`, `≤ 1.20 W`, `not < 500 mJ`. */
export function limitBound(check: LimitCheck): string {
  return `${check.negated ? 'not ' : ''}${check.comparison === '<' ? '<' : '≤'} ${formatInUnit(check.limit, check.unit)}`
}

/**
 * A check that did not pass, in words: `over`, `within` (a `.not` that failed), `inconclusive`,
 * `no figure` (unjudgeable: a method not seen, a failed window; the check's reason says which).
 */
export function limitVerdictWord(check: LimitCheck): string {
  return check.verdict === 'unjudgeable' ? 'no figure' : check.verdict
}

/** `✓`, `✗ over`, `✗ within`, `? inconclusive`, `✗ no figure`. */
export function limitVerdictText(check: LimitCheck): string {
  if (check.passed) return '✓'
  if (check.verdict === 'inconclusive') return '? inconclusive'
  return `✗ ${limitVerdictWord(check)}`
}

function shortMethod(method: string): string {
  const parts = method.replace(/\(.*$/, '').split('.')
  return parts.length > 2 ? parts.slice(-2).join('.') : method
}
