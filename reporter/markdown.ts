/** A GitHub step-summary table. Everything printed from test data is escaped. */
import { formatJoules, formatSeconds, formatWatts } from '../src/model/index.js'
import { measuredWindows, type EnergyReport } from './report.js'
import { shortName } from './terminal.js'

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
  const lines = [
    '## Energy',
    '',
    `${formatJoules(s.totalNetEnergyJ)} net over ${s.measuredWindows} window(s) in ${s.tests} test(s)` +
      (s.failedWindows > 0 ? `, **${s.failedWindows} failed**` : '') +
      (s.warnings > 0 ? `, ${s.warnings} warning(s)` : '') +
      '.',
    '',
    '| | test | net | gross | avg power | duration | top method |',
    '|---|---|---:|---:|---:|---:|---|',
  ]
  for (const t of report.tests) {
    const mark = t.state === 'passed' ? '✅' : t.state === 'failed' ? '❌' : '⏭️'
    const windows = measuredWindows(t)
    const top = windows
      .flatMap((w) => w.methods)
      .sort((a, b) => b.inclusiveEnergyJ - a.inclusiveEnergyJ)[0]
    const cells =
      windows.length === 0
        ? [
            '–',
            '–',
            '–',
            '–',
            t.results.map((r) => (r.status === 'failed' ? r.error.code : r.status)).join(', '),
          ]
        : [
            formatJoules(t.netEnergyJ),
            formatJoules(t.grossEnergyJ),
            formatWatts(t.durationS > 0 ? t.grossEnergyJ / t.durationS : 0),
            formatSeconds(t.durationS),
            top
              ? `${shortName(top.method)} (${formatJoules(top.inclusiveEnergyJ)})${top.color ? ` ${top.color}` : ''}`
              : '',
          ]
    lines.push(
      `| ${mark} | ${escapeMarkdownCell(`${t.file} › ${t.name}`)} | ${cells.map(escapeMarkdownCell).join(' | ')} |`,
    )
  }
  lines.push('')
  return lines.join('\n')
}
