/** A GitHub step-summary table. Everything printed from test data is escaped. */
import { formatJoules, formatSeconds, formatWatts, workWindows } from '../src/model/index.js'
import { measuredWindows, type EnergyReport, type ReportedTest } from './report.js'
import { describeLimit, limitVerdictWord, primaryLimit } from './limits.js'
import {
  carriedOverJ,
  foldMethods,
  formatBudgetFigure,
  leftOnText,
  shortName,
  unchangedBecause,
  warningTally,
} from './terminal.js'

/** Escapes text for a markdown table cell (pipes, HTML, backticks, newlines). */
export function escapeMarkdownCell(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/`/g, '\\`')
    .replace(/\*/g, '\\*')
    .replace(/_/g, '\\_')
    .replace(/\[/g, '\\[')
    .replace(/\r?\n/g, ' ')
}

export function renderMarkdown(report: EnergyReport): string {
  const s = report.summary
  // Counted as the terminal lists them: warnings apart from the notes (severity `info`).
  const tally = warningTally(report)
  const lines = [
    '## Energy',
    '',
    `${formatJoules(s.totalNetEnergyJ)} net over ${s.measuredWindows} window(s) in ${s.tests} test(s)` +
      (s.failedWindows > 0 ? `, **${s.failedWindows} failed**` : '') +
      (tally.warnings > 0 ? `, ${tally.warnings} warning(s)` : '') +
      (tally.notes > 0 ? `, ${tally.notes} note(s)` : '') +
      '.',
    '',
    '| | test | net | gross | avg power | duration | budget figure | budget / limit | Δ baseline | top method |',
    '|---|---|---:|---:|---:|---:|---:|---|---:|---|',
  ]
  for (const t of report.tests) {
    const mark = MARK[t.state]
    const windows = measuredWindows(t)
    // The app's own top method (native and framework frames folded, as in the terminal).
    const top = foldMethods(
      windows.flatMap((w) => w.methods),
      1,
    )[0]
    const cells =
      windows.length === 0
        ? [
            '–',
            '–',
            '–',
            '–',
            '–',
            '–',
            '–',
            [
              `no energy measured: ${t.noEnergyReason ?? 'no window'}`,
              ...t.results.map((r) => (r.status === 'failed' ? r.error.code : r.status)),
            ].join(', '),
          ]
        : [
            netCell(t),
            formatJoules(t.grossEnergyJ),
            formatWatts(t.durationS > 0 ? t.grossEnergyJ / t.durationS : 0),
            formatSeconds(t.durationS),
            t.budgetFigure === undefined ? '–' : formatBudgetFigure(t.budgetFigure, t.results),
            budgetCell(t),
            deltaCell(t),
            top
              ? `${shortName(top.method)} (${formatJoules(top.inclusiveEnergyJ)}${top.asyncEnergyJ > 0 ? ` + ${formatJoules(top.asyncEnergyJ)} async` : ''})${top.color ? ` ${top.color}` : ''}`
              : '',
          ]
    lines.push(
      `| ${mark} | ${escapeMarkdownCell(`${t.file} › ${t.name}`)} | ${cells.map(escapeMarkdownCell).join(' | ')} |`,
    )
  }
  lines.push('')
  for (const f of report.suiteFailures) {
    const where = f.suite === '' ? f.file : `${f.file} › ${f.suite}`
    lines.push(`- ❌ ${escapeMarkdownCell(`${where}: ${f.message.split('\n')[0] ?? ''}`)}`)
  }
  if (report.suiteFailures.length > 0) lines.push('')
  const b = report.budgets
  if (b !== undefined) {
    lines.push(
      b.updated
        ? b.added.length + b.changed.length + b.obsolete.length === 0
          ? `Budgets: \`${b.file}\` unchanged: ${unchangedBecause(b)}.`
          : `Budgets written to \`${b.file}\`: ${b.added.length} added, ${b.changed.length} changed, ${b.obsolete.length} obsolete removed.`
        : `Budgets (\`${b.file}\`): ${b.added.length > 0 ? `**${b.added.length} written (new)**: review and commit the file; ` : ''}${b.within} within, ${b.over} over, ${b.inconclusive} inconclusive, ${b.missing} without a budget, ${b.obsolete.length} obsolete.`,
      '',
    )
  }
  const base = report.baseline
  if (base !== undefined) {
    lines.push(
      `Compared with \`${escapeMarkdownCell(base.file)}\`: ${base.compared} test(s), **${base.regressions.length} regression(s)**, ${base.improvements.length} improvement(s).`,
      '',
    )
    for (const r of base.regressions)
      lines.push(`- ${escapeMarkdownCell(`${r.file} › ${r.name}`)}: +${formatJoules(r.deltaJ)}`)
    if (base.regressions.length > 0) lines.push('')
  }
  const k = report.classification
  if (k !== undefined) {
    lines.push('| method | class | energy | colour |', '|---|---|---:|---|')
    for (const m of k.methods.slice(0, 10)) {
      lines.push(
        `| ${escapeMarkdownCell(m.name)} | ${escapeMarkdownCell(m.class)} | ${m.energyJ === null ? '–' : formatJoules(m.energyJ)} | ${COLOR_MARK[m.color]} |`,
      )
    }
    lines.push('', '| class / package | energy | colour |', '|---|---:|---|')
    for (const g of [
      ...k.packages.map((p) => ({ ...p, kind: 'package' })),
      ...k.classes.map((c) => ({ ...c, kind: 'class' })),
    ].slice(0, 20)) {
      lines.push(
        `| ${g.kind} ${escapeMarkdownCell(g.name || '(default)')} | ${formatJoules(g.energyJ)} | ${COLOR_MARK[g.color]} |`,
      )
    }
    lines.push('')
  }
  return lines.join('\n')
}

const MARK = {
  passed: '✅',
  failed: '❌',
  skipped: '⏭️',
  todo: '📝',
  pending: '⏸️',
} as const

const COLOR_MARK = {
  red: '🔴 red',
  yellow: '🟡 yellow',
  green: '🟢 green',
  uncolored: '⚪ –',
} as const

/** The budget, else the matcher limit the terminal's row shows (reporter/limits.ts chooses). */
function budgetCell(t: ReportedTest): string {
  const b = t.budget
  if (b === undefined) {
    const check = primaryLimit(t.limits)
    if (check === undefined) return '–'
    const mark = check.passed
      ? '✅'
      : check.verdict === 'inconclusive'
        ? '❔ inconclusive'
        : `❌ ${limitVerdictWord(check)}`
    const more = (t.limits?.length ?? 1) - 1
    return `${describeLimit(check)} ${mark}${more > 0 ? ` (+${more} limit${more === 1 ? '' : 's'})` : ''}`
  }
  const mark = b.verdict === 'within' ? '✅' : b.verdict === 'over' ? '❌ over' : '❔ inconclusive'
  return `${formatJoules(b.energyJ)} ${mark}`
}

/**
 * The net energy; when another test left a radio or the GPS on in the test's windows, with that
 * part and the test's own energy, which matchers and budgets judge:
 * `1.62 J incl. 1.58 J another test left on (44.0 mJ own)`.
 */
function netCell(t: ReportedTest): string {
  const carriedJ = carriedOverJ(workWindows(t.results))
  const net = formatJoules(t.netEnergyJ)
  return carriedJ > 0 ? `${net} ${leftOnText(carriedJ)} (${formatJoules(t.ownEnergyJ)} own)` : net
}

function deltaCell(t: ReportedTest): string {
  const d = t.baseline
  if (d === undefined) return '–'
  const sign = d.deltaJ >= 0 ? '+' : '−'
  const pct =
    d.deltaPct === null
      ? ''
      : ` (${d.deltaPct >= 0 ? '+' : '−'}${Math.abs(d.deltaPct).toFixed(1)}%)`
  return `${sign}${formatJoules(Math.abs(d.deltaJ))}${pct}${d.verdict === 'worse' ? ' ▲' : ''}`
}
