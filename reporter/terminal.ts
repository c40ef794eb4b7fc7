/** The `energy` reporter's terminal output: per test energy, methods, rails, warnings, summary. */
import {
  formatJoules,
  formatPercent,
  formatSeconds,
  formatWatts,
  appMethodsFirst,
  type MeasuredEnergyResult,
  type MethodColor,
} from '../src/model/index.js'
import {
  measuredWindows,
  type EnergyReport,
  type ReportedBudgetFigure,
  type ReportedTest,
} from './report.js'
import type { Screen } from './screen.js'

export interface TerminalOptions {
  /** Methods shown per window. @default 3 */
  readonly topMethods?: number
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
      lines.push(...renderTest(test, screen, options.topMethods ?? 3, nameWidth))
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
    ...renderSummary(report, screen),
    ...renderBudgets(report, screen),
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

function renderTest(
  test: ReportedTest,
  screen: Screen,
  topMethods: number,
  nameWidth: number,
): string[] {
  const c = screen.colors
  const lines: string[] = []
  const windows = measuredWindows(test)
  const head = `   ${stateMark(test, screen)} ${test.name.padEnd(nameWidth)}`
  if (windows.length === 0) {
    lines.push(`${head}  ${c.dim(`no energy measured: ${test.noEnergyReason ?? 'no window'}`)}`)
  } else {
    const figures = [
      c.bold(formatJoules(test.netEnergyJ).padStart(9)) + ' net',
      formatJoules(test.grossEnergyJ).padStart(9) + ' gross',
      formatWatts(test.grossEnergyJ / Math.max(test.durationS, Number.MIN_VALUE)).padStart(9),
      formatSeconds(test.durationS).padStart(8),
    ].join('  ')
    lines.push(
      `${head}  ${c.dim('·')} ${figures}${figureTag(test)}${budgetTag(test, screen)}${deltaTag(test, screen)}`,
    )
  }
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
      lines.push(`       ${c.dim(`energy window '${result.label}' skipped: ${result.reason}`)}`)
      continue
    }
    lines.push(...renderWindow(result, windows.length > 1, screen, topMethods))
  }
  // The test's own failure; a suite's failure is printed once, on the suite's row.
  if (test.failure !== undefined && test.failure.suite === undefined)
    lines.push(...renderMessage(test.failure.message, screen))
  return lines
}

function renderWindow(
  r: MeasuredEnergyResult,
  labelled: boolean,
  screen: Screen,
  topMethods: number,
): string[] {
  const c = screen.colors
  const indent = '       '
  const lines: string[] = []
  if (labelled) {
    const interval = r.netIntervalJ
      ? ` (95% ${formatJoules(r.netIntervalJ.low)}–${formatJoules(r.netIntervalJ.high)})`
      : ''
    lines.push(
      `${indent}${c.dim('window')} ${r.label}: ${formatJoules(r.netEnergyJ)} net${interval}, ${formatSeconds(r.durationS)}`,
    )
  } else if (r.netIntervalJ) {
    lines.push(
      `${indent}${c.dim(`95% interval ${formatJoules(r.netIntervalJ.low)} – ${formatJoules(r.netIntervalJ.high)}`)}`,
    )
  }
  const methods = appMethodsFirst(r.methods, topMethods)
  if (methods.length > 0) {
    lines.push(
      `${indent}${c.dim('methods')} ` +
        methods
          .map(
            (m) =>
              `${formatJoules(m.inclusiveEnergyJ)} ${shortName(m.method)}${colorTag(m.color, screen)}`,
          )
          .join(c.dim(' · ')),
    )
  }
  if (r.rails.some((x) => x.energyJ !== 0)) {
    const rails = r.rails
      .filter((x) => x.energyJ !== 0)
      .sort((a, b) => b.energyJ - a.energyJ)
      .slice(0, 4)
    lines.push(
      `${indent}${c.dim('rails')}   ${rails.map((x) => `${x.subsystem ?? x.rail} ${formatJoules(x.energyJ)}`).join(c.dim(' · '))}`,
    )
  }
  if (r.battery) {
    lines.push(
      `${indent}${c.dim('battery')} ${formatPercent(r.battery.percentOfCapacity)} of capacity, ${formatPercent(r.battery.percentPerHour)} per hour at this power`,
    )
  }
  for (const w of r.warnings) {
    const tone = w.severity === 'error' ? c.red : w.severity === 'warning' ? c.yellow : c.dim
    lines.push(`${indent}${tone(`⚠ ${w.code}`)} ${w.message}`)
  }
  return lines
}

/** The figure the budget is checked against, beside the budget (and for any repeated test). */
function figureTag(test: ReportedTest): string {
  return test.budgetFigure === undefined ? '' : `  ${formatBudgetFigure(test.budgetFigure)}`
}

/**
 * `13.9 mJ ± 0.6 (mean of 5)`: the value, its 95% interval (as `± half-width` in the value's unit
 * when symmetric, else `(95% low – high)`) and, over repetitions, how many.
 */
export function formatBudgetFigure(figure: ReportedBudgetFigure): string {
  const value = formatJoules(figure.valueJ)
  const i = figure.intervalJ
  let interval = ''
  if (i !== undefined) {
    const half = (i.high - i.low) / 2
    const skew = Math.abs((i.high + i.low) / 2 - figure.valueJ)
    interval =
      skew <= 1e-9 * Math.max(Math.abs(figure.valueJ), half, Number.MIN_VALUE)
        ? ` ± ${inUnitOf(value, half)}`
        : ` (95% ${formatJoules(i.low)} – ${formatJoules(i.high)})`
  }
  return `${value}${interval}${figure.n >= 2 ? ` (mean of ${figure.n})` : ''}`
}

/** `amount` in the unit and decimals of `shown` (`13.9 mJ`, 0.0006 → `0.6`); one digit at least. */
function inUnitOf(shown: string, amount: number): string {
  const unit = shown.slice(shown.lastIndexOf(' ') + 1)
  const scale = { J: 1, mJ: 1e-3, µJ: 1e-6, nJ: 1e-9 }[unit] ?? 1
  const decimals = /\.(\d+) /.exec(shown)?.[1]?.length ?? 0
  const scaled = amount / scale
  // Too small for the value's decimals: as many as its first significant digit needs (≤ 20).
  const needed = scaled > 0 ? Math.min(20, -Math.floor(Math.log10(scaled))) : 0
  return scaled.toFixed(Math.max(decimals, needed))
}

function budgetTag(test: ReportedTest, screen: Screen): string {
  const b = test.budget
  if (b === undefined) return ''
  const c = screen.colors
  const text = `budget ${formatJoules(b.energyJ)}`
  if (b.verdict === 'within') return `  ${c.green(`${text} ✓`)}`
  if (b.verdict === 'over') return `  ${c.red(`${text} ✗ over`)}`
  return `  ${c.yellow(`${text} ? inconclusive`)}`
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

function renderBudgets(report: EnergyReport, screen: Screen): string[] {
  const b = report.budgets
  if (b === undefined) return []
  const c = screen.colors
  const parts: string[] = []
  if (b.updated) {
    parts.push(
      `wrote ${b.file}: ${b.added.length} added, ${b.changed.length} changed, ${b.obsolete.length} obsolete removed`,
    )
  } else {
    parts.push(c.green(`${b.within} within`))
    if (b.over > 0) parts.push(c.red(`${b.over} over`))
    if (b.inconclusive > 0) parts.push(c.yellow(`${b.inconclusive} inconclusive`))
    if (b.missing > 0) parts.push(c.dim(`${b.missing} without a budget (vitest -u writes them)`))
  }
  const lines = [` ${c.bold('Budgets')}   ${parts.join(c.dim(' · '))}`]
  if (!b.updated && b.obsolete.length > 0) {
    lines.push(
      `           ${c.yellow(`${b.obsolete.length} obsolete in ${b.file}`)} ${c.dim('(vitest -u removes them)')}: ` +
        b.obsolete
          .slice(0, 5)
          .map((o) => `${o.file} › ${o.name}${o.device === '*' ? '' : ` [${o.device}]`}`)
          .join(c.dim(' · ')),
    )
  }
  return lines
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
  // The app's own code first: platform frames (Looper.loop) are on every stack and cannot be changed.
  const first = <T extends { readonly name: string }>(items: readonly T[], n: number): T[] =>
    appMethodsFirst(
      items.map((item) => ({ item, method: item.name })),
      n,
    ).map((x) => x.item)
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
  const parts = [
    s.failed > 0 ? c.red(`${s.failed} failed`) : '',
    s.passed > 0 ? c.green(`${s.passed} passed`) : '',
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

function renderSummary(report: EnergyReport, screen: Screen): string[] {
  const c = screen.colors
  const s = report.summary
  if (s.windows === 0) {
    return [c.dim(' No test measured energy. Use the `energy` fixture (see the README).')]
  }
  const lines = [
    ` ${c.bold('Energy')}  ${formatJoules(s.totalNetEnergyJ)} net, ${formatJoules(s.totalGrossEnergyJ)} gross over ${s.measuredWindows} window${s.measuredWindows === 1 ? '' : 's'} in ${s.testsWithWindows} test${s.testsWithWindows === 1 ? '' : 's'}` +
      (s.failedWindows > 0 ? c.red(` · ${s.failedWindows} failed`) : '') +
      (s.warnings > 0 ? c.yellow(` · ${s.warnings} warning${s.warnings === 1 ? '' : 's'}`) : ''),
  ]
  if (s.worst.length > 0) {
    lines.push(
      ` ${c.bold('Hungriest')} ${s.worst
        .slice(0, 3)
        .map((w) => `${w.name} ${c.dim(`(${formatJoules(w.netEnergyJ)})`)}`)
        .join(c.dim(' · '))}`,
    )
  }
  return lines
}

function describeSources(report: EnergyReport): string {
  const sources = report.summary.sources
  return sources.length > 0 ? `power: ${sources.join(', ')}` : ''
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
