/** Reading a previous JSON report for the `baseline` option. */
import { readFileSync } from 'node:fs'
import { EnergyError } from '../src/model/index.js'
import { ReporterErrors } from './errors.js'
import type { BaselineReport } from './report.js'

/**
 * Report versions a baseline may have. Version 1 listed only tests with energy windows, version 3
 * added the matchers' limits, version 4 each window's timeline and call tree; the comparison reads
 * the fields every version has (file, name, netEnergyJ, results).
 */
const READABLE_VERSIONS: readonly unknown[] = [1, 2, 3, 4]

/**
 * Reads and parses the baseline report at `path`; any failure is an E_REPORT_BASELINE_INVALID
 * whose hint names what pointed at it (`option`: the reporter's `baseline`, or a function).
 */
export function readBaselineReport(path: string, option = '`baseline`'): BaselineReport {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw invalid(
      path,
      `cannot be read (${error instanceof Error ? error.message : String(error)})`,
      option,
    )
  }
  return parseBaselineReport(text, path, option)
}

/** Parses a baseline report; checks the version and the shape the comparison reads. */
export function parseBaselineReport(
  text: string,
  source: string,
  option = '`baseline`',
): BaselineReport {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw invalid(
      source,
      `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      option,
    )
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(source, 'expected an energy report object', option)
  const record = value as Record<string, unknown>
  if (!READABLE_VERSIONS.includes(record['schemaVersion'])) {
    throw invalid(
      source,
      `schemaVersion ${JSON.stringify(record['schemaVersion'])} is not supported (this build reads ${READABLE_VERSIONS.join(', ')})`,
      option,
    )
  }
  const tests = record['tests']
  if (!Array.isArray(tests)) throw invalid(source, '`tests` is not an array', option)
  tests.forEach((t: unknown, i) => {
    const x = t as Record<string, unknown> | null
    if (
      typeof x !== 'object' ||
      x === null ||
      typeof x['file'] !== 'string' ||
      typeof x['name'] !== 'string' ||
      typeof x['netEnergyJ'] !== 'number' ||
      !Array.isArray(x['results'])
    )
      throw invalid(source, `tests[${i}] needs file, name, netEnergyJ and results`, option)
  })
  return value as BaselineReport
}

function invalid(source: string, message: string, option: string): EnergyError {
  return new EnergyError({
    code: ReporterErrors.BASELINE_INVALID,
    message: `baseline report: ${message}`,
    hint: `Point ${option} at a JSON report written by the energy reporter (\`--outputFile.energy=<path>\`) of a compatible version.`,
    details: { format: source },
  })
}
