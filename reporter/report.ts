/**
 * The energy report as a value: built once from the run's tests (pure), then rendered to the
 * terminal, JSON and markdown. The JSON form is versioned and documented in docs/reporter.md
 * (schema: reporter/energy-report.schema.json).
 */
import type { EnergyResult, EnergyWarning, MeasuredEnergyResult } from '../src/model/index.js'

export const REPORT_SCHEMA_VERSION = 1 as const

/** One test as the reporter received it. */
export interface ReportEntry {
  /** Test file relative to the project root, `/`-separated. */
  readonly file: string
  /** Full name: describe blocks and test name joined by ` > `. */
  readonly name: string
  readonly state: 'passed' | 'failed' | 'skipped' | 'pending'
  /** Every energy window the test measured, in order. */
  readonly results: readonly EnergyResult[]
  /** First line of each failure, for the summary. */
  readonly errors: readonly string[]
}

export interface ReportedTest extends ReportEntry {
  /** Sum of net energy over the test's measured windows. */
  readonly netEnergyJ: number
  readonly grossEnergyJ: number
  readonly durationS: number
}

export interface EnergyReport {
  readonly schemaVersion: typeof REPORT_SCHEMA_VERSION
  /** Tests with at least one energy window, in run order. */
  readonly tests: readonly ReportedTest[]
  readonly summary: {
    readonly tests: number
    readonly windows: number
    readonly measuredWindows: number
    readonly failedWindows: number
    readonly totalNetEnergyJ: number
    readonly totalGrossEnergyJ: number
    /** Highest net energy first (at most 5). */
    readonly worst: ReadonlyArray<{
      readonly file: string
      readonly name: string
      readonly netEnergyJ: number
    }>
    /** Power sources seen across the run (`odpm`, `fuel-gauge`, …). */
    readonly sources: readonly string[]
    readonly warnings: number
  }
}

export function measuredWindows(test: ReportEntry): MeasuredEnergyResult[] {
  return test.results.filter((r): r is MeasuredEnergyResult => r.status === 'measured')
}

export function buildEnergyReport(entries: readonly ReportEntry[]): EnergyReport {
  const tests: ReportedTest[] = entries
    .filter((e) => e.results.length > 0)
    .map((e) => {
      const windows = measuredWindows(e)
      return {
        ...e,
        netEnergyJ: sum(windows.map((w) => w.netEnergyJ)),
        grossEnergyJ: sum(windows.map((w) => w.grossEnergyJ)),
        durationS: sum(windows.map((w) => w.durationS)),
      }
    })
  const all = tests.flatMap((t) => t.results)
  const measured = all.filter((r): r is MeasuredEnergyResult => r.status === 'measured')
  const warnings: EnergyWarning[] = all.flatMap((r) => (r.status === 'skipped' ? [] : r.warnings))
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    tests,
    summary: {
      tests: tests.length,
      windows: all.length,
      measuredWindows: measured.length,
      failedWindows: all.filter((r) => r.status === 'failed').length,
      totalNetEnergyJ: sum(measured.map((r) => r.netEnergyJ)),
      totalGrossEnergyJ: sum(measured.map((r) => r.grossEnergyJ)),
      worst: [...tests]
        .filter((t) => measuredWindows(t).length > 0)
        .sort((a, b) => b.netEnergyJ - a.netEnergyJ)
        .slice(0, 5)
        .map((t) => ({ file: t.file, name: t.name, netEnergyJ: t.netEnergyJ })),
      sources: [...new Set(measured.map((r) => r.sources.power))].sort(),
      warnings: warnings.length,
    },
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0)
}
