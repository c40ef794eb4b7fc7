/** Reading a previous JSON report for the `baseline` option. */
import { EnergyError } from '../src/model/index.js'
import { ReporterErrors } from './errors.js'
import { REPORT_SCHEMA_VERSION, type EnergyReport } from './report.js'

/** Parses a baseline report; checks the version and the shape the comparison reads. */
export function parseBaselineReport(text: string, source: string): Pick<EnergyReport, 'tests'> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw invalid(
      source,
      `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    )
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(source, 'expected an energy report object')
  const record = value as Record<string, unknown>
  if (record['schemaVersion'] !== REPORT_SCHEMA_VERSION) {
    throw invalid(
      source,
      `schemaVersion ${JSON.stringify(record['schemaVersion'])} is not supported (this build reads ${REPORT_SCHEMA_VERSION})`,
    )
  }
  const tests = record['tests']
  if (!Array.isArray(tests)) throw invalid(source, '`tests` is not an array')
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
      throw invalid(source, `tests[${i}] needs file, name, netEnergyJ and results`)
  })
  return value as Pick<EnergyReport, 'tests'>
}

function invalid(source: string, message: string): EnergyError {
  return new EnergyError({
    code: ReporterErrors.BASELINE_INVALID,
    message: `baseline report: ${message}`,
    hint: 'Point `baseline` at a JSON report written by the energy reporter (`outputFile`) of a compatible version.',
    details: { format: source },
  })
}
