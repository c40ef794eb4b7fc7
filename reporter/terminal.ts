/**
 * The `energy` reporter's terminal output. By default one line per test (net and gross energy,
 * the budget it used, its change from the baseline), with the detail — methods, rails, each
 * window's warnings, the failure — only for tests that failed, went over budget or regressed; the
 * run's warnings once, by code; then the run's summary. `verbose` details every test.
 */
import {
  closestName,
  formatJoules,
  formatJoulesWithInterval,
  formatPercent,
  formatSeconds,
  formatWatts,
  appMethodsFirst,
  methodOrigin,
  ownNetEnergy,
  workWindows,
  type EnergyWarning,
  type MeasuredEnergyResult,
  type MethodColor,
  type MethodEnergy,
  type RailEnergy,
  type SkippedEnergyResult,
  type WarningSeverity,
} from '../src/model/index.js'
import { repetitionGroups } from '../src/budgets/index.js'
import {
  describeCpuModel,
  measuredWindows,
  type EnergyReport,
  type ReportedBudgetFigure,
  type ReportedTest,
} from './report.js'
import { describeLimit, limitVerdictText, primaryLimit } from './limits.js'
import type { Screen } from './screen.js'

export interface TerminalOptions {
  /** Methods shown per window. @default 3 */
  readonly topMethods?: number
  /**
   * Detail every test (methods, rails, battery, each window's warnings), not only those that
   * failed, went over budget or regressed. @default false
   */
  readonly verbose?: boolean
  /** The command that writes budgets, in the budget line's advice. @default 'vitest -u' */
  readonly updateCommand?: string
  /** Whether an HTML report is written (it lists the notes the summary only counts). @default true */
  readonly htmlReport?: boolean
  /**
   * The line for a run in which no test measured energy, in the runner's terms; `''` for none.
   * @default Vitest's: use the `energy` fixture
   */
  readonly noEnergyLine?: string
}

interface RenderContext {
  readonly screen: Screen
  readonly topMethods: number
  readonly verbose: boolean
}

/** A test's windows in its detail: which of their warnings and notes to print. */
interface WindowContext extends RenderContext {
  readonly shows: (w: EnergyWarning) => boolean
}

/**
 * Notes on how precise per-method figures are (`W_UNDERSAMPLED`, `W_LOST_SAMPLES`): they ask for
 * action only where a method's figure is judged.
 */
const METHOD_PRECISION_NOTES = new Set(['W_UNDERSAMPLED', 'W_LOST_SAMPLES'])

/**
 * What a test's detail prints of its windows' warnings: every warning, and every note but those on
 * per-method precision when the test judged no method (a failed limit on the net, a rail or a
 * radio is not explained by them). `verbose` prints them all; the JSON and HTML keep them all.
 */
function shownInDetail(test: ReportedTest, context: RenderContext): (w: EnergyWarning) => boolean {
  const judgesMethod = test.limits?.some(
    (l) => l.target?.kind === 'method' || l.target?.kind === 'method-repetitions',
  )
  if (context.verbose || judgesMethod === true) return () => true
  return (w) => w.severity !== 'info' || !METHOD_PRECISION_NOTES.has(w.code)
}

export function renderTerminal(
  report: EnergyReport,
  screen: Screen,
  options: TerminalOptions = {},
): string {
  const c = screen.colors
  const lines: string[] = [
    '',
    c.bold(c.cyan(' ENERGY ')) + c.dim(` ${describeSources(report)}`),
    '',
  ]
  if (
    report.tests.length === 0 &&
    report.suiteFailures.length === 0 &&
    report.unhandledErrors.length === 0
  ) {
    lines.push(c.dim('  No tests ran.'), '')
    return lines.join('\n')
  }
  const context: RenderContext = {
    screen,
    topMethods: options.topMethods ?? 3,
    verbose: options.verbose ?? false,
  }
  const nameWidth = Math.min(48, Math.max(0, ...report.tests.map((t) => t.name.length)))
  for (const file of filesInOrder(report)) {
    lines.push(` ${c.bold(file)}`)
    // A suite's failure is printed once, before its first test (the file's first of all).
    const failures = report.suiteFailures.filter((f) => f.file === file)
    const printed = new Set<string>()
    const printSuite = (suite: string): void => {
      if (printed.has(suite)) return
      printed.add(suite)
      lines.push(
        `   ${c.red('✗')} ${suite === '' ? c.red('the file failed') : `${suite}  ${c.red('suite failed')}`}`,
      )
      for (const f of failures.filter((x) => x.suite === suite))
        lines.push(...renderMessage(f.message, screen))
    }
    if (failures.some((f) => f.suite === '')) printSuite('')
    for (const test of report.tests.filter((t) => t.file === file)) {
      for (const f of failures) if (test.name.startsWith(`${f.suite} > `)) printSuite(f.suite)
      lines.push(...renderTest(test, context, nameWidth))
    }
    for (const f of failures) printSuite(f.suite)
  }
  if (report.unhandledErrors.length > 0) {
    lines.push(` ${c.bold(c.red('Unhandled errors'))}`)
    for (const e of report.unhandledErrors) lines.push(...renderMessage(e.message, screen))
  }
  lines.push(
    '',
    ...renderStates(report, screen),
    ...renderSummary(report, screen, notesWhere(options), options.noEnergyLine),
    ...renderWarningSummary(report, screen),
    ...renderBudgets(report, screen, options.updateCommand ?? 'vitest -u'),
    ...renderBaseline(report, screen),
    ...renderClassification(report, screen, options.topMethods ?? 3),
    '',
  )
  return lines.join('\n')
}

/** Files in the order the run reported them (a file that failed to load has no tests). */
function filesInOrder(report: EnergyReport): string[] {
  return [
    ...new Set([...report.tests.map((t) => t.file), ...report.suiteFailures.map((f) => f.file)]),
  ]
}

/** A failure's whole message under its row: every non-blank line, the first in red. */
function renderMessage(message: string, screen: Screen): string[] {
  return message
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => `       ${i === 0 ? screen.colors.red(line) : line}`)
}

function stateMark(test: ReportedTest, screen: Screen): string {
  const c = screen.colors
  if (test.state === 'passed') return test.expectedToFail === true ? c.magenta('⚑') : c.green('✓')
  if (test.state === 'failed') return c.red('✗')
  if (test.state === 'todo') return c.dim('✎')
  if (test.state === 'pending') return c.yellow('…')
  return c.dim('↓')
}

/**
 * Whether a test gets its detail without `verbose`: it failed (or failed as `test.fails`
 * expects: the energy bug it catches), went over its budget, regressed, or an energy window of it
 * failed.
 */
export function needsDetail(test: ReportedTest): boolean {
  return (
    test.state === 'failed' ||
    test.expectedToFail === true ||
    test.budget?.verdict === 'over' ||
    test.limits?.some((c) => !c.passed) === true ||
    test.baseline?.verdict === 'worse' ||
    test.results.some((r) => r.status === 'failed')
  )
}

function renderTest(test: ReportedTest, context: RenderContext, nameWidth: number): string[] {
  const c = context.screen.colors
  const lines: string[] = []
  const windows = measuredWindows(test)
  const head = `   ${stateMark(test, context.screen)} ${test.name.padEnd(nameWidth)}`
  if (windows.length === 0) {
    lines.push(`${head}  ${c.dim(`no energy measured: ${test.noEnergyReason ?? 'no window'}`)}`)
  } else if (windows.every((w) => w.idleBaseline === true)) {
    // Only `energy.baseline()`: the idle phone's power, which the test's energy (0 J) leaves out.
    const durationS = windows.reduce((sum, w) => sum + w.durationS, 0)
    const energyJ = windows.reduce((sum, w) => sum + w.grossEnergyJ, 0)
    lines.push(
      `${head}  ${c.dim('·')} idle ${c.bold(formatWatts(energyJ / Math.max(durationS, Number.MIN_VALUE)))} ${c.dim(`over ${formatSeconds(durationS)} (energy.baseline())`)}${limitTag(test, context.screen)}`,
    )
  } else {
    // The headline is the figure the test is judged by, its own energy: its net energy, unless
    // another test left a radio or the GPS on in its windows; then the net energy follows.
    const carriedJ = carriedOverJ(workWindows(test.results))
    const headline = `${c.bold(formatJoules(test.ownEnergyJ).padStart(9))} ${carriedJ > 0 ? 'own' : 'net'}`
    const figures = context.verbose
      ? [
          headline,
          ...(carriedJ > 0 ? [netLeftOn(formatJoules(test.netEnergyJ), carriedJ)] : []),
          formatJoules(test.grossEnergyJ).padStart(9) + ' gross',
          formatWatts(test.grossEnergyJ / Math.max(test.durationS, Number.MIN_VALUE)).padStart(9),
          formatSeconds(test.durationS).padStart(8),
        ].join('  ')
      : `${headline} ${c.dim(`(${carriedJ > 0 ? `${netLeftOn(formatJoules(test.netEnergyJ), carriedJ)}; ` : ''}${formatJoules(test.grossEnergyJ)} gross)`)}${test.netEnergyJ < 0 && belowIdle(windows) ? c.dim(' below idle') : ''}`
    lines.push(
      `${head}  ${c.dim('·')} ${figures}${figureTag(test)}${budgetTag(test, context.screen)}${limitTag(test, context.screen)}${deltaTag(test, context.screen)}`,
    )
  }
  const detailed = context.verbose || needsDetail(test)
  if (detailed) lines.push(...limitLines(test, context.screen))
  if (detailed) {
    const windowContext = { ...context, shows: shownInDetail(test, context) }
    const groups = context.verbose ? windows.map((r) => [r]) : repetitionGroups(windows)
    for (const result of test.results) {
      if (result.status === 'failed') {
        // EnergyError messages start with their own `[CODE] `; the code is printed once.
        const message = (result.error.message.split('\n')[0] ?? '').replace(/^\[[A-Z0-9_]+\] /, '')
        lines.push(
          `       ${c.red(`energy window '${result.label}' failed: ${result.error.code}`)} ${message}`,
        )
        if (result.error.hint !== '') lines.push(`         ${c.dim(result.error.hint)}`)
        continue
      }
      if (result.status === 'skipped') {
        lines.push(...skippedLine(test, result, context.screen))
        continue
      }
      // A group of repetitions is printed once, at its first window.
      const group = groups.find((g) => g[0] === result)
      if (group === undefined) continue
      lines.push(
        ...(group.length === 1
          ? renderWindow(group[0] as MeasuredEnergyResult, windows.length > 1, windowContext)
          : renderRepetitions(group, windowContext)),
      )
    }
  } else {
    // Not detailed: still every failed or skipped window's one line (they say why energy is missing).
    for (const result of test.results) {
      if (result.status === 'skipped' && windows.length === 0)
        lines.push(...skippedLine(test, result, context.screen))
    }
  }
  // The test's own failure; a suite's failure is printed once, on the suite's row, and a window's
  // error that failed the test once, on the window's line.
  if (
    test.failure !== undefined &&
    test.failure.suite === undefined &&
    !(detailed && isWindowError(test, test.failure.message))
  )
    lines.push(...renderMessage(test.failure.message, context.screen))
  return lines
}

/** A skipped window's line, unless its reason is the row's already (the test's only window). */
function skippedLine(test: ReportedTest, result: SkippedEnergyResult, screen: Screen): string[] {
  if (test.results.length === 1 && test.noEnergyReason === result.reason) return []
  return [
    `       ${screen.colors.dim(`energy window '${result.label}' skipped: ${result.reason}`)}`,
  ]
}

/** Whether `message` is the error of one of the test's failed windows (`[CODE] first line`). */
function isWindowError(test: ReportedTest, message: string): boolean {
  const first = (text: string): string =>
    (text.split('\n')[0] ?? '').replace(/^\[[A-Z0-9_]+\] /, '')
  return test.results.some(
    (r) =>
      r.status === 'failed' &&
      message.startsWith(`[${r.error.code}] `) &&
      first(message) === first(r.error.message),
  )
}

function renderWindow(
  r: MeasuredEnergyResult,
  labelled: boolean,
  context: WindowContext,
): string[] {
  const c = context.screen.colors
  const indent = '       '
  const lines: string[] = []
  if (labelled) {
    lines.push(
      `${indent}${c.dim('window')} ${r.label}: ${windowFigure(r)}, ${formatSeconds(r.durationS)}`,
    )
  } else if (r.netIntervalJ && context.verbose) {
    // The interval of the figure the row leads with.
    const own = ownNetEnergy(r)
    const word = (r.carriedOverJ ?? 0) > 0 ? 'own' : 'net'
    lines.push(
      `${indent}${c.dim(`${word} ${formatJoulesWithInterval(own.valueJ, own.intervalJ)}`)}`,
    )
  }
  lines.push(...methodsLine(r.methods, context), ...railsLine(r.rails, context.screen))
  if (r.battery && context.verbose) {
    lines.push(
      `${indent}${c.dim('battery')} ${formatPercent(r.battery.percentOfCapacity)} of capacity, ${formatPercent(r.battery.percentPerHour)} per hour at this power`,
    )
  }
  for (const w of r.warnings.filter(context.shows))
    lines.push(`${indent}${warningText(w, context.screen)}`)
  return lines
}

/**
 * The repetitions of one `energy.repeat` as one block: their mean and range, the methods and rails
 * of an average repetition, and each warning code once with the number of repetitions that had it.
 */
function renderRepetitions(
  group: readonly MeasuredEnergyResult[],
  context: WindowContext,
): string[] {
  const c = context.screen.colors
  const indent = '       '
  const n = group.length
  const first = group[0] as MeasuredEnergyResult
  const last = group[n - 1] as MeasuredEnergyResult
  // Each repetition's own energy, as the budget figure and matchers judge them.
  const owns = group.map((w) => ownNetEnergy(w).valueJ)
  const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / n
  const carriedJ = carriedOverJ(group) / n
  const range = `${formatJoules(Math.min(...owns))} – ${formatJoules(Math.max(...owns))}`
  const lines = [
    `${indent}${c.dim('window')} ${first.label}–#${/#(\d+)$/.exec(last.label)?.[1] ?? n}: ${formatJoules(mean(owns))} ${carriedJ > 0 ? `own on average (${range}; ${netLeftOn(formatJoules(mean(group.map((w) => w.netEnergyJ))), carriedJ)})` : `net on average (${range})`}, ${formatSeconds(mean(group.map((w) => w.durationS)))} each`,
  ]
  const methods = new Map<string, { inclusive: number; async: number; color?: MethodColor }>()
  for (const w of group) {
    for (const m of w.methods) {
      const sum = methods.get(m.method) ?? { inclusive: 0, async: 0 }
      methods.set(m.method, {
        inclusive: sum.inclusive + m.inclusiveEnergyJ / n,
        async: sum.async + m.asyncEnergyJ / n,
        ...((m.color ?? sum.color) === undefined ? {} : { color: m.color ?? sum.color }),
      })
    }
  }
  const rails = new Map<string, RailEnergy>()
  for (const w of group) {
    for (const r of w.rails) {
      const sum = rails.get(r.rail)
      rails.set(r.rail, { ...r, energyJ: (sum?.energyJ ?? 0) + r.energyJ / n })
    }
  }
  lines.push(
    ...methodsLine(
      [...methods].map(([method, m]) => ({
        method,
        inclusiveEnergyJ: m.inclusive,
        asyncEnergyJ: m.async,
        ...(m.color === undefined ? {} : { color: m.color }),
      })),
      context,
    ),
    ...railsLine([...rails.values()], context.screen),
  )
  const seen = new Map<string, { warning: EnergyWarning; count: number }>()
  for (const w of group) {
    const shown = w.warnings.filter(context.shows)
    for (const code of new Set(shown.map((x) => x.code))) {
      const warning = shown.find((x) => x.code === code) as EnergyWarning
      const entry = seen.get(code)
      seen.set(code, { warning: entry?.warning ?? warning, count: (entry?.count ?? 0) + 1 })
    }
  }
  for (const { warning, count } of seen.values()) {
    lines.push(
      `${indent}${warningText(warning, context.screen)}${c.dim(` (${count === n ? `all ${n}` : `${count} of ${n}`} repetitions)`)}`,
    )
  }
  return lines
}

type ShownMethod = Pick<MethodEnergy, 'method' | 'inclusiveEnergyJ' | 'asyncEnergyJ' | 'color'>

/**
 * The methods a reader can act on, most energy first (inclusive + asynchronous): the app's own,
 * without native frames (`__start_thread`, `art_quick_invoke_stub`), the platform's Java frames
 * (`android.os.Looper.loop`) or methods charged nothing — the JSON keeps them all. When no app
 * method drew energy, the platform's Java methods that did.
 */
export function foldMethods<T extends ShownMethod>(methods: readonly T[], count: number): T[] {
  const drew = methods.filter((m) => m.inclusiveEnergyJ + m.asyncEnergyJ > 0)
  const app = drew.filter((m) => methodOrigin(m.method) === 'app')
  const shown = app.length > 0 ? app : drew.filter((m) => methodOrigin(m.method) === 'platform')
  return [...shown]
    .sort(
      (a, b) =>
        b.inclusiveEnergyJ + b.asyncEnergyJ - (a.inclusiveEnergyJ + a.asyncEnergyJ) ||
        a.method.localeCompare(b.method),
    )
    .slice(0, count)
}

/** `1.08 mJ MainActivity.onResume +279 mJ async ●yellow`. */
export function formatMethod(m: ShownMethod, screen: Screen): string {
  const async =
    m.asyncEnergyJ > 0 ? ` ${screen.colors.dim(`+${formatJoules(m.asyncEnergyJ)} async`)}` : ''
  return `${formatJoules(m.inclusiveEnergyJ)} ${shortName(m.method)}${async}${colorTag(m.color, screen)}`
}

function methodsLine(methods: readonly ShownMethod[], context: RenderContext): string[] {
  const shown = foldMethods(methods, context.topMethods)
  if (shown.length === 0) return []
  const c = context.screen.colors
  return [
    `       ${c.dim('methods')} ${shown.map((m) => formatMethod(m, context.screen)).join(c.dim(' · '))}`,
  ]
}

function railsLine(rails: readonly RailEnergy[], screen: Screen): string[] {
  const c = screen.colors
  const drew = rails
    .filter((x) => x.energyJ !== 0)
    .sort((a, b) => b.energyJ - a.energyJ)
    .slice(0, 4)
  if (drew.length === 0) return []
  return [
    `       ${c.dim('rails')}   ${c.dim('gross')} ${drew.map((x) => `${x.subsystem ?? x.rail} ${formatJoules(x.energyJ)}`).join(c.dim(' · '))}`,
  ]
}

function severityTone(severity: WarningSeverity, screen: Screen): (text: string) => string {
  const c = screen.colors
  return severity === 'error' ? c.red : severity === 'warning' ? c.yellow : c.dim
}

/** `⚠ W_CODE message` for a warning; a note (severity `info`, a fact asking for nothing) gets `ℹ`. */
function warningText(w: EnergyWarning, screen: Screen): string {
  const mark = w.severity === 'info' ? 'ℹ' : '⚠'
  return `${severityTone(w.severity, screen)(`${mark} ${w.code}`)} ${w.message}`
}

/** The figure the budget is checked against, beside the budget (and for any repeated test). */
function figureTag(test: ReportedTest): string {
  return test.budgetFigure === undefined
    ? ''
    : `  ${formatBudgetFigure(test.budgetFigure, test.results)}`
}

/**
 * `13.9 mJ ± 600 µJ (mean of 5)`: the value, its 95% interval (`± half-width` when symmetric,
 * else `(95% low – high)`) and, over repetitions, how many.
 */
export function formatBudgetFigure(
  figure: ReportedBudgetFigure,
  results: ReportedTest['results'] = [],
): string {
  const interval = figure.intervalJ === undefined ? undefined : { ...figure.intervalJ, level: 0.95 }
  // Several windows (two repeat() calls, a measure() and a repeat()) are summed, never averaged.
  const parts = repetitionGroups(workWindows(results)).length
  const what =
    parts >= 2
      ? ` (sum of ${parts} windows${figure.n >= 2 ? ', repetitions as their mean' : ''})`
      : figure.n >= 2
        ? ` (mean of ${figure.n})`
        : ''
  return `${formatJoulesWithInterval(figure.valueJ, interval)}${what}`
}

/** `91% of budget 2.20 J ✓`: how much of its budget the test's figure used, and the verdict. */
function budgetTag(test: ReportedTest, screen: Screen): string {
  const b = test.budget
  if (b === undefined) return ''
  const c = screen.colors
  const used = b.energyJ > 0 ? `${Math.round((100 * b.valueJ) / b.energyJ)}% of ` : ''
  const text = `${used}budget ${formatJoules(b.energyJ)}`
  if (b.verdict === 'within') return `  ${c.green(`${text} ✓`)}`
  if (b.verdict === 'over') return `  ${c.red(`${text} ✗ over`)}`
  return `  ${c.yellow(`${text} ? inconclusive`)}`
}

/**
 * Without a budget, the matcher limit the row shows (the first that failed, else the most used)
 * with its verdict, and how many more the test checked: `62% of limit 2.50 J ✓ +1 limit`.
 */
function limitTag(test: ReportedTest, screen: Screen): string {
  const check = test.budget === undefined ? primaryLimit(test.limits) : undefined
  if (check === undefined) return ''
  const more = (test.limits?.length ?? 1) - 1
  return `  ${limitTone(check, screen)(`${describeLimit(check)} ${limitVerdictText(check)}`)}${more > 0 ? screen.colors.dim(` +${more} limit${more === 1 ? '' : 's'}`) : ''}`
}

function limitTone(check: NonNullable<ReportedTest['limits']>[number], screen: Screen) {
  const c = screen.colors
  return check.passed ? c.green : check.verdict === 'inconclusive' ? c.yellow : c.red
}

/**
 * In a test's detail, every matcher limit it checked, when it checked more than the row shows:
 * `limit   toConsumeLessThan on 'scrolling': 62% of limit < 2.50 J ✓`.
 */
function limitLines(test: ReportedTest, screen: Screen): string[] {
  const limits = test.limits ?? []
  if (limits.length === 0 || (limits.length === 1 && test.budget === undefined)) return []
  const c = screen.colors
  return limits.map((check) => {
    const on =
      check.target === undefined ? '' : ` on '${check.target.window ?? check.target.label}'`
    return `       ${c.dim('limit')}   ${check.matcher}${on}: ${limitTone(check, screen)(`${describeLimit(check)} ${limitVerdictText(check)}`)}${check.reason === undefined ? '' : c.dim(` (${check.reason})`)}`
  })
}

function deltaTag(test: ReportedTest, screen: Screen): string {
  const d = test.baseline
  if (d === undefined) return ''
  const c = screen.colors
  const pct = d.deltaPct === null ? '' : ` ${signed(d.deltaPct, (x) => `${x.toFixed(1)}%`)}`
  const text = `Δ ${signed(d.deltaJ, formatJoules)}${pct}`
  const tone = d.verdict === 'worse' ? c.red : d.verdict === 'better' ? c.green : c.dim
  return `  ${tone(text)}`
}

function signed(value: number, format: (x: number) => string): string {
  return value >= 0 ? `+${format(value)}` : `−${format(-value)}`
}

/** Why `-u` left the budget file as it was. */
export function unchangedBecause(b: { readonly within: number }): string {
  return b.within === 0
    ? 'no budget to write, change or remove'
    : b.within === 1
      ? "this run's 1 budget still fits"
      : `this run's ${b.within} budgets all still fit`
}

function renderBudgets(report: EnergyReport, screen: Screen, updateCommand: string): string[] {
  const b = report.budgets
  if (b === undefined) return []
  const c = screen.colors
  const parts: string[] = []
  if (b.updated) {
    // As `-u` for snapshots: budgets that still fit are kept, and the file is not touched when
    // nothing changed.
    parts.push(
      b.added.length + b.changed.length + b.obsolete.length === 0
        ? `${b.file} unchanged: ${unchangedBecause(b)}`
        : `wrote ${b.file}: ${b.added.length} added, ${b.changed.length} changed, ${b.obsolete.length} obsolete removed`,
    )
  } else {
    // The runner's `new` mode wrote the missing budgets of tests that asked for one.
    if (b.added.length > 0)
      parts.push(c.yellow(`${b.added.length} written (new) — review ${b.file} and commit it`))
    if (b.within > 0 || b.added.length === 0) parts.push(c.green(`${b.within} within`))
    if (b.over > 0) parts.push(c.red(`${b.over} over`))
    if (b.inconclusive > 0) parts.push(c.yellow(`${b.inconclusive} inconclusive`))
    if (b.missing > 0)
      parts.push(c.dim(`${b.missing} without a budget (${updateCommand} writes them)`))
    // A run of tests none of which has a budget or asks for one ('0 within' said nothing) — or
    // none of which measured, so that none could be checked whatever the file holds.
    if (b.within + b.over + b.inconclusive + b.missing + b.added.length === 0)
      parts.splice(
        0,
        parts.length,
        c.dim(
          report.summary.measuredWindows === 0
            ? 'none checked: no test measured energy'
            : `none of this run's tests has one in ${b.file}`,
        ),
      )
  }
  const lines = [` ${c.bold('Budgets')}   ${parts.join(c.dim(' · '))}`]
  if (!b.updated && b.obsolete.length > 0) {
    lines.push(
      `           ${c.yellow(`${b.obsolete.length} obsolete in ${b.file}`)} ${c.dim(`(${updateCommand} removes them)`)}: ` +
        b.obsolete
          .slice(0, 5)
          .map((o) => {
            const near = renamedAs(report, o)
            return `${o.file} › ${o.name}${o.device === '*' ? '' : ` [${o.device}]`}${near === undefined ? '' : c.yellow(` (the test '${near}' ran: a typo or a renamed test? put its name in the file to keep this budget)`)}`
          })
          .join(c.dim(' · ')),
    )
  }
  return lines
}

/**
 * The test of this run an obsolete budget was probably meant for: in the same file, its name one
 * typo away (a name mistyped in the budget file, or a test renamed, whose budget would be lost).
 */
function renamedAs(
  report: EnergyReport,
  obsolete: { readonly file: string; readonly name: string },
): string | undefined {
  // Compared by the last part of the name, among tests of the same describe blocks: a shared
  // `suite > ` prefix would make any two short names look alike.
  const split = (name: string): [string, string] => {
    const at = name.lastIndexOf(' > ')
    return at < 0 ? ['', name] : [name.slice(0, at), name.slice(at + 3)]
  }
  const [suite, own] = split(obsolete.name)
  const siblings = report.tests
    .filter((t) => t.file === obsolete.file || t.file.endsWith(`/${obsolete.file}`))
    .map((t) => split(t.name))
    .filter(([s]) => s === suite)
    .map(([, n]) => n)
  const near = closestName(own, siblings)
  return near === undefined || near === own ? undefined : suite === '' ? near : `${suite} > ${near}`
}

function renderBaseline(report: EnergyReport, screen: Screen): string[] {
  const b = report.baseline
  if (b === undefined) return []
  const c = screen.colors
  const head = ` ${c.bold('Baseline')}  ${b.compared} test${b.compared === 1 ? '' : 's'} compared with ${b.file}: `
  if (b.regressions.length === 0)
    return [
      `${head}${c.green('no regressions')}${b.improvements.length > 0 ? c.dim(`, ${b.improvements.length} improved`) : ''}`,
    ]
  return [
    `${head}${c.red(`${b.regressions.length} regression${b.regressions.length === 1 ? '' : 's'}`)}`,
    ...b.regressions
      .slice(0, 5)
      .map(
        (r) =>
          `           ${c.red('▲')} ${r.name} ${c.dim(`(${r.file})`)} ${signed(r.deltaJ, formatJoules)}${r.deltaPct === null ? '' : ` ${signed(r.deltaPct, (x) => `${x.toFixed(1)}%`)}`}`,
      ),
  ]
}

function renderClassification(report: EnergyReport, screen: Screen, topMethods: number): string[] {
  const k = report.classification
  if (k === undefined) return []
  const c = screen.colors
  // The app's own code only (platform frames such as Looper.loop are on every stack and cannot
  // be changed; the JSON keeps them); the platform's when the run saw no app code.
  const first = <T extends { readonly name: string }>(items: readonly T[], n: number): T[] => {
    const ordered = appMethodsFirst(
      items.map((item) => ({ item, method: item.name })),
      items.length,
    )
    const app = ordered.filter((x) => methodOrigin(x.method) === 'app')
    return (app.length > 0 ? app : ordered).slice(0, n).map((x) => x.item)
  }
  const lines = [
    ` ${c.bold('Methods')}   ${first(k.methods, Math.max(topMethods, 5))
      .map(
        (m) =>
          `${m.energyJ === null ? '' : `${formatJoules(m.energyJ)} `}${shortName(m.name)}${colorTag(m.color, screen)}`,
      )
      .join(c.dim(' · '))}`,
    ` ${c.bold('Classes')}   ${first(k.classes, 5)
      .map(
        (x) =>
          `${x.name.slice(x.name.lastIndexOf('.') + 1)} ${formatJoules(x.energyJ)}${colorTag(x.color, screen)}`,
      )
      .join(c.dim(' · '))}`,
    ` ${c.bold('Packages')}  ${first(k.packages, 5)
      .map((x) => `${x.name || '(default)'} ${formatJoules(x.energyJ)}${colorTag(x.color, screen)}`)
      .join(c.dim(' · '))}` +
      c.dim(
        `  (${k.preset}, ${k.excessive.length} energy-greedy test${k.excessive.length === 1 ? '' : 's'})`,
      ),
  ]
  return lines
}

/** The tests by state, and what failed outside them; the line an interrupted run starts with. */
function renderStates(report: EnergyReport, screen: Screen): string[] {
  const c = screen.colors
  const s = report.summary.states
  const outside = report.suiteFailures.length + report.unhandledErrors.length
  // `test.fails` tests that failed as declared count as passed; they are named apart.
  const asExpected = report.tests.filter((t) => t.state === 'passed' && t.expectedToFail).length
  const passed = s.passed - asExpected
  const parts = [
    s.failed > 0 ? c.red(`${s.failed} failed`) : '',
    passed > 0 ? c.green(`${passed} passed`) : '',
    asExpected > 0 ? c.magenta(`${asExpected} failed as expected`) : '',
    s.skipped > 0 ? c.dim(`${s.skipped} skipped`) : '',
    s.todo > 0 ? c.dim(`${s.todo} todo`) : '',
    s.pending > 0 ? c.yellow(`${s.pending} unfinished`) : '',
    outside > 0 ? c.red(`${outside} error${outside === 1 ? '' : 's'} outside tests`) : '',
  ].filter((p) => p !== '')
  return [
    ...(report.interrupted === true
      ? [` ${c.bold(c.yellow('Interrupted'))} the run was stopped before it ended`]
      : []),
    ` ${c.bold('Tests')}     ${parts.length > 0 ? parts.join(c.dim(' · ')) : c.dim('none')}`,
  ]
}

function renderSummary(
  report: EnergyReport,
  screen: Screen,
  notesWhere: string,
  noEnergyLine = 'No test measured energy. Use the `energy` fixture (see the README).',
): string[] {
  const c = screen.colors
  const s = report.summary
  if (s.windows === 0) {
    // Tests that failed with vitest-energy's own error before their window opened did use the
    // fixture: pointing them to it would send the user the wrong way.
    const failed = report.tests.filter((t) => t.failure?.code?.startsWith('E_') === true)
    if (failed.length > 0) {
      const codes = [...new Set(failed.map((t) => t.failure?.code ?? ''))].join(', ')
      return [
        ` ${c.bold('Energy')}    none measured: ${failed.length} test${failed.length === 1 ? '' : 's'} failed before ${failed.length === 1 ? 'its' : 'their'} window opened (${codes}: see ${failed.length === 1 ? 'its message' : 'each message'} above)`,
      ]
    }
    return noEnergyLine === '' ? [] : [c.dim(` ${noEnergyLine}`)]
  }
  if (s.measuredWindows === 0) {
    // Tests used the fixture, but every window failed or was abandoned: each row says why.
    return [
      ` ${c.bold('Energy')}    none measured: ${s.windows} energy window${s.windows === 1 ? '' : 's'} opened in ${s.testsWithWindows} test${s.testsWithWindows === 1 ? '' : 's'}, none completed` +
        (s.failedWindows > 0 ? c.red(` · ${s.failedWindows} failed`) : ''),
    ]
  }
  const lines = [
    ` ${c.bold('Energy')}    ${formatJoules(s.totalNetEnergyJ)} net, ${formatJoules(s.totalGrossEnergyJ)} gross over ${s.measuredWindows} window${s.measuredWindows === 1 ? '' : 's'} in ${s.testsWithWindows} test${s.testsWithWindows === 1 ? '' : 's'}` +
      (s.failedWindows > 0 ? c.red(` · ${s.failedWindows} failed`) : '') +
      warningCountText(report, screen, notesWhere),
  ]
  if (s.worst.length > 0) {
    lines.push(
      ` ${c.bold('Hungriest')} ${s.worst
        .slice(0, 3)
        .map((w) => `${w.name} ${c.dim(`(${formatJoules(w.ownEnergyJ)})`)}`)
        .join(c.dim(' · '))}`,
    )
  }
  for (const phone of s.cpuModel ?? [])
    lines.push(` ${c.bold('CPU model')} ${describeCpuModel(phone)}`)
  return lines
}

/**
 * What to do about each warning code, in one sentence, for the run's summary (each window's own
 * message, with its figures, is in the JSON report and in the detail of the tests shown in detail).
 * A code not listed here is summarised by its first message's first sentence.
 */
export const WARNING_ADVICE: Readonly<Record<string, string>> = {
  W_UNDERSAMPLED:
    "too few stack samples for per-method figures: raise the `samplingHz` option (simpleperf's rate, default 1000) or repeat the window with `energy.repeat` and judge the mean.",
  W_CPU_UNDERSAMPLED:
    "the stack samples cover under half of the app's CPU time: check for lost samples and threads the profiler missed.",
  W_INVISIBLE_ENERGY:
    'the CPU, radios or GPS drew energy above idle while no app code ran: look for a held wake lock (`adb shell dumpsys power`), a radio or GPS left on, or background work.',
  W_SLOW_SENSOR:
    'the power sensor updates too rarely for windows this short: lengthen them, or repeat them with `energy.repeat` and judge the mean.',
  W_NEGATIVE_NET:
    "the phone drew less than its idle baseline (the screen off or dimmer, a radio off): judge such windows with `scope: 'gross'` or a rail.",
  W_CHARGING:
    'the phone was charging, so the battery-side sensor missed the load: unplug USB power (or `adb shell dumpsys battery unplug`) and measure again.',
  W_DEBUGGABLE:
    'a debuggable build runs slower and hotter than release: test a release build with `<profileable android:shell="true"/>`.',
  W_FULL_TRACING:
    "full method tracing inflates time and energy: use `execution: 'simpleperf'` or `'art-sampling'` for energy figures.",
  W_INSTRUMENTATION:
    "full method tracing inflates time and energy: use `execution: 'simpleperf'` or `'art-sampling'` for energy figures.",
  W_TRACE_OVERFLOW:
    "the method trace buffer overflowed and the window's last calls are missing: shorten the window or use `execution: 'simpleperf'`.",
  W_LOST_SAMPLES: 'the profiler lost samples, so per-method times are underestimated.',
  W_SAMPLES_LOST: 'simpleperf lost samples, so per-method figures undercount.',
  W_WAKELOCK_HELD:
    'the app still held a wake lock when the window closed, so the CPU could not suspend: release it when its work is done.',
  W_ASYNC_UNKNOWN_ORIGIN:
    'a radio, GPS or Bluetooth was already on when the window opened (switched on by a `beforeEach`, code outside any window, or another app): its energy is counted but charged to no method; do that work inside the window to see which method did it.',
  W_ASYNC_CARRIED_OVER:
    "a radio or GPS an app method switched on in an earlier window was still drawing power: it is charged to that method (and left out of the test's own energy, which matchers and budgets judge, when another test switched it on); switch it off where it was started (an `afterEach`) to keep later windows quiet.",
  W_MODELS_OVER_MEASURED:
    "methods were charged more than the fuel gauge measured above idle, part of it a radio or GPS modelled from the battery history at the power profile's currents: read their async figures as upper bounds and judge the test by its measured net.",
  W_EXECUTION_FAILED:
    "the method profiler failed, so these windows have no per-method energy: see the window's message.",
}

/** A window drew less than the idle phone, beyond its noise (W_NEGATIVE_NET): a fact, not a fault. */
function belowIdle(windows: readonly MeasuredEnergyResult[]): boolean {
  return windows.some((w) => w.warnings.some((x) => x.code === 'W_NEGATIVE_NET'))
}

/**
 * Each warning code once, with how many windows raised it and what to do about it. Informational
 * notes (severity `info`: a fact such as "below idle", a repaired trace) are not warnings a user
 * acts on: they stay in the details, the JSON and the HTML.
 */
function renderWarningSummary(report: EnergyReport, screen: Screen): string[] {
  const c = screen.colors
  const codes = new Map<string, { first: EnergyWarning; windows: number }>()
  for (const t of report.tests) {
    for (const r of t.results) {
      if (r.status === 'skipped') continue
      for (const code of new Set(
        r.warnings.filter((w) => w.severity !== 'info').map((w) => w.code),
      )) {
        const entry = codes.get(code)
        const first = entry?.first ?? (r.warnings.find((w) => w.code === code) as EnergyWarning)
        codes.set(code, { first, windows: (entry?.windows ?? 0) + 1 })
      }
    }
  }
  if (codes.size === 0) return []
  const rank = { error: 0, warning: 1, info: 2 } as const
  const sorted = [...codes].sort(
    ([a, x], [b, y]) =>
      rank[x.first.severity] - rank[y.first.severity] ||
      y.windows - x.windows ||
      a.localeCompare(b),
  )
  return [
    ` ${c.bold('Warnings')}  ${c.dim('by code, in how many windows; each window’s own in the JSON report')}`,
    ...sorted.map(
      ([code, { first, windows }]) =>
        `   ${severityTone(first.severity, screen)(`⚠ ${code}`)} ×${windows}  ${WARNING_ADVICE[code] ?? firstSentence(first.message)}`,
    ),
  ]
}

/**
 * What the run's warnings add up to, counted as the Warnings lines list them: each code once per
 * window. Notes (severity `info`) are not listed there, so they are counted apart.
 */
export function warningTally(report: EnergyReport): { warnings: number; notes: number } {
  let warnings = 0
  let notes = 0
  for (const t of report.tests) {
    for (const r of t.results) {
      if (r.status === 'skipped') continue
      const codes = new Map(r.warnings.map((w) => [w.code, w.severity]))
      for (const severity of codes.values()) {
        if (severity === 'info') notes++
        else warnings++
      }
    }
  }
  return { warnings, notes }
}

/** Where the notes the summary counts are listed: the terminal lists only the warnings. */
function notesWhere(options: TerminalOptions): string {
  if (options.verbose === true) return 'facts, in each window above'
  if (options.htmlReport === false) return 'facts; `verbose: true` lists them'
  return "facts, in the HTML report's Warnings"
}

/** ` · 2 warnings · 15 notes (facts, …)`: the warnings listed below, and where the notes are. */
function warningCountText(report: EnergyReport, screen: Screen, notesWhere: string): string {
  const { warnings, notes } = warningTally(report)
  const c = screen.colors
  return (
    (warnings > 0 ? c.yellow(` · ${warnings} warning${warnings === 1 ? '' : 's'}`) : '') +
    (notes > 0 ? c.dim(` · ${notes} note${notes === 1 ? '' : 's'} (${notesWhere})`) : '')
  )
}

/** The message up to its first sentence's end (`. `, `; `, `: `), or all of it. */
function firstSentence(message: string): string {
  const end = /[.;:](\s|$)/.exec(message)
  return end === null ? message : `${message.slice(0, end.index)}.`
}

function describeSources(report: EnergyReport): string {
  const sources = report.summary.sources
  const methods = report.summary.methodEnergy ?? []
  return [
    ...(sources.length > 0 ? [`power: ${sources.join(', ')}`] : []),
    ...(methods.length > 0 ? [`methods: ${methods.join('; ')}`] : []),
  ].join(' · ')
}

/** `com.example.trails.FeedAdapter.bind` → `FeedAdapter.bind` (class and method are what people scan for). */
export function shortName(method: string): string {
  const parts = method.split('.')
  return parts.length > 2 ? parts.slice(-2).join('.') : method
}

function colorTag(color: MethodColor | undefined, screen: Screen): string {
  const c = screen.colors
  if (color === 'red') return ' ' + c.red('●red')
  if (color === 'yellow') return ' ' + c.yellow('●yellow')
  if (color === 'green') return ' ' + c.green('●green')
  return ''
}

/** What a radio or the GPS another test left on drew in these windows (`carriedOverJ`), joules. */
export function carriedOverJ(windows: readonly MeasuredEnergyResult[]): number {
  return windows.reduce((sum, w) => sum + (w.carriedOverJ ?? 0), 0)
}

/**
 * `incl. 1.58 J another test left on`: the part of a net energy that matchers and budgets leave
 * out of the test's own.
 */
export function leftOnText(carriedJ: number): string {
  return `incl. ${formatJoules(carriedJ)} another test left on`
}

/** `1.62 J net incl. 1.58 J another test left on`, beside the own energy a test is judged by. */
function netLeftOn(net: string, carriedJ: number): string {
  return `${net} net ${leftOnText(carriedJ)}`
}

/**
 * A window's energy as it is judged (its own), with its 95% interval when it has one:
 * `1.62 J ± 3.0 mJ net`, or, when another test left a radio or the GPS on in it,
 * `44.0 mJ ± 3.0 mJ own (1.62 J net incl. 1.58 J another test left on)`.
 */
function windowFigure(r: MeasuredEnergyResult): string {
  const carriedJ = r.carriedOverJ ?? 0
  const own = ownNetEnergy(r)
  const figure = formatJoulesWithInterval(own.valueJ, own.intervalJ)
  return carriedJ > 0
    ? `${figure} own (${netLeftOn(formatJoules(r.netEnergyJ), carriedJ)})`
    : `${figure} net`
}
