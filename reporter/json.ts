import type { EnergyReport } from './report.js'

/**
 * The JSON report as written to `outputFile` (validates against energy-report.schema.json).
 * Compact: a 10,000-test report (20 methods a window) is ~50 MB this way, ~87 MB indented.
 */
export function renderJson(report: EnergyReport): string {
  return `${JSON.stringify(report)}\n`
}
