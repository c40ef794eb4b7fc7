/** Plain-text table of a classification, for `vitest-energy classify --format table` (pure). */
import type { ClassificationResult, ClassifiedGroup } from './classify.js'

const fmt = (v: number | null, digits = 3): string => (v === null ? '∞' : v.toFixed(digits))

export function renderClassificationTable(result: ClassificationResult): string {
  const lines: string[] = []
  const threshold =
    result.threshold === null ? '' : `, threshold ${(result.threshold * 1000).toFixed(4)} mW`
  lines.push(`preset ${result.preset}, error vector ${result.errorVector}${threshold}`)
  if (result.knowledgeBase !== undefined) {
    const kb = result.knowledgeBase
    lines.push(
      `knowledge base: ${kb.size} earlier tests, mean ${(kb.meanPowerW * 1000).toFixed(4)} mW, ${kb.hash.slice(0, 19)}`,
    )
  }
  lines.push(
    `excessive: ${result.excessive.length} of ${result.tests} tests${result.excessive.length > 0 ? ` (${result.excessive.join(', ')})` : ''}`,
  )
  lines.push('')
  const header = ['color', 'n11', 'n10', 'p', 'ochiai', 'tarantula', 'jaccard', 'dstar', 'method']
  const rows = result.methods.map((m) => [
    m.color,
    String(m.n11),
    String(m.n10),
    fmt(m.p),
    fmt(m.ochiai),
    fmt(m.tarantula),
    fmt(m.jaccard),
    fmt(m.dstar),
    m.name,
  ])
  lines.push(...table([header, ...rows]))
  lines.push('', 'classes:')
  lines.push(...groups(result.classes))
  lines.push('', 'packages:')
  lines.push(...groups(result.packages))
  lines.push('', `project: ${result.project}`, '')
  return lines.join('\n')
}

function groups(list: readonly ClassifiedGroup[]): string[] {
  return table(
    list.map((g) => [g.color, String(g.members), g.name === '' ? '(default)' : g.name]),
  ).map((l) => `  ${l}`)
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = []
  for (const row of rows)
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)))
  return rows.map((row) =>
    row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '),
  )
}
