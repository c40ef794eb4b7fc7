/**
 * `runsFromReport(path, test)`: a test's measured windows in an earlier run's JSON report, for
 * `expect(runs).toNotRegressFrom(runsFromReport('main.json', 'scrolling the feed'))` — the
 * repetitions of its `energy.repeat()` as the matcher takes them (`energyRuns`), so a regression
 * check compares two runs without parsing reports by hand.
 */
import { EnergyError, type MeasuredEnergyResult } from '../src/model/index.js'
import { closestName } from '../src/model/suggest.js'
import { readBaselineReport } from './baseline.js'
import { ReporterErrors } from './errors.js'

export interface EarlierRuns {
  /** The test's measured windows in the report, in order (its repetitions), baseline windows left out. */
  readonly energyRuns: readonly MeasuredEnergyResult[]
  /** Their net energies, J. */
  readonly netEnergiesJ: readonly number[]
}

export interface RunsFromReportOptions {
  /** The test's file, as the report has it (relative to the root), when names repeat across files. */
  readonly file?: string
  /** Only the windows of this label (an `energy.repeat(…, { label })` call), when a test has several. */
  readonly label?: string
}

/**
 * The windows the test named `name` (its full name, `describe > test` as in the report) measured in
 * the JSON report at `reportPath`. Throws E_REPORT_BASELINE_INVALID for a file that is not such a
 * report, and E_REPORT_TEST_NOT_FOUND when the test is not there or measured nothing.
 */
export function runsFromReport(
  reportPath: string,
  name: string,
  options: RunsFromReportOptions = {},
): EarlierRuns {
  const report = readBaselineReport(reportPath, '`runsFromReport()`')
  const candidates = report.tests.filter(
    (t) => options.file === undefined || t.file === options.file,
  )
  const test = candidates.find((t) => t.name === name)
  if (test === undefined) {
    const near = closestName(
      name,
      candidates.map((t) => t.name),
    )
    throw notFound(
      reportPath,
      `no test named '${name}'${options.file === undefined ? '' : ` in ${options.file}`}`,
      near === undefined
        ? 'Name the test as the report does: its full name, `describe > test`, as in the JSON report’s `tests[].name`.'
        : `Did you mean '${near}'?`,
    )
  }
  const runs = test.results.filter(
    (r): r is MeasuredEnergyResult =>
      r.status === 'measured' &&
      r.idleBaseline !== true &&
      (options.label === undefined || labelOf(r.label) === options.label),
  )
  if (runs.length === 0) {
    throw notFound(
      reportPath,
      `test '${name}' has no measured window${options.label === undefined ? '' : ` labelled '${options.label}'`}`,
      'Compare with a run in which the test measured (its windows were not skipped or failed).',
    )
  }
  return { energyRuns: runs, netEnergiesJ: runs.map((r) => r.netEnergyJ) }
}

/** A repetition's label without its ` #n` (energy.repeat numbers its windows `scroll #1`, …). */
function labelOf(label: string): string {
  return label.replace(/ #\d+$/, '')
}

function notFound(reportPath: string, message: string, hint: string): EnergyError {
  return new EnergyError({
    code: ReporterErrors.TEST_NOT_FOUND,
    message: `${reportPath}: ${message}`,
    hint,
    details: { format: 'energy report' },
  })
}
