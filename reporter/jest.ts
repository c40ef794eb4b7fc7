/**
 * The energy reporter for Jest 30 (default export, as Jest loads reporters):
 *
 *   reporters: ['default', ['vitest-energy/jest-reporter', { outputFile: 'energy.json' }]]
 *
 * Tests call `recordEnergy(result)`; workers append to per-process side files in a directory the
 * reporter creates (passed through VITEST_ENERGY_JEST_DIR), and `onRunComplete` merges them and
 * renders the same terminal, JSON and markdown output as the Vitest reporter.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import {
  DEFAULT_BUDGETS_FILE,
  budgetFileKey,
  isUpdateRequested,
  readBudgetFile,
  updateBudgets,
  writeBudgetFile,
} from '../src/budgets/index.js'
import { isEnergyError, type EnergyResult } from '../src/model/index.js'
import { cleanMessage, reportedFailure } from './failures.js'
import { JEST_SIDE_DIR_ENV, readSideFiles } from './jest-side-files.js'
import { renderJson } from './json.js'
import { renderMarkdown } from './markdown.js'
import {
  budgetObservations,
  buildEnergyReport,
  noEnergyReason,
  type ReportContext,
  type ReportEntry,
  type ReportedFailure,
  type ReportedState,
  type ReportedSuiteFailure,
} from './report.js'
import { terminalScreen, type Screen } from './screen.js'
import { renderTerminal } from './terminal.js'

export interface JestEnergyReporterOptions {
  /** JSON report path, relative to Jest's rootDir. */
  readonly outputFile?: string
  /** Markdown summary path. */
  readonly markdown?: string
  /** Budget file, relative to rootDir. @default 'energy-budgets.json' */
  readonly budgets?: string
  /** Headroom when writing budgets, percent. @default 10 */
  readonly budgetHeadroomPct?: number
  /** Write budgets from this run. @default true with `jest -u` or VITEST_ENERGY_UPDATE=1 */
  readonly updateBudgets?: boolean
  /** @default 3 */
  readonly topMethods?: number
  readonly screen?: Screen
  readonly write?: (text: string) => void
}

/** The parts of Jest's globalConfig and AggregatedResult the reporter reads. */
interface JestGlobalConfig {
  readonly rootDir: string
  readonly updateSnapshot?: string
}
interface JestAggregatedResult {
  readonly testResults: ReadonlyArray<{
    readonly testFilePath: string
    /** Set when the file failed to run (a syntax error, a failing import). */
    readonly testExecError?: { readonly message?: string; readonly stack?: string } | null
    readonly testResults: ReadonlyArray<{
      readonly fullName: string
      /** `passed`, `failed`, `skipped`, `pending` (test.skip), `todo`, `disabled`, `focused`. */
      readonly status: string
      readonly failureMessages: readonly string[]
      /** The errors behind `failureMessages`, as they crossed from the worker (message, code). */
      readonly failureDetails?: readonly unknown[]
      /** Declared with `test.failing`. */
      readonly failing?: boolean
    }>
  }>
}

export default class JestEnergyReporter {
  private readonly rootDir: string
  private readonly update: boolean
  private readonly options: JestEnergyReporterOptions
  private readonly dir: string

  constructor(globalConfig: JestGlobalConfig, options: JestEnergyReporterOptions = {}) {
    this.rootDir = globalConfig.rootDir
    this.update =
      options.updateBudgets ??
      (isUpdateRequested(process.env) || globalConfig.updateSnapshot === 'all')
    this.options = options
    this.dir = mkdtempSync(join(tmpdir(), 'vitest-energy-jest-'))
    // Workers are started after reporters are constructed and inherit this.
    process.env[JEST_SIDE_DIR_ENV] = this.dir
  }

  async onRunComplete(_contexts: unknown, aggregated: JestAggregatedResult): Promise<void> {
    const problems: string[] = []
    const write = this.options.write ?? ((text: string) => void process.stdout.write(text))
    try {
      const entries = this.entries(aggregated, problems)
      const context: { budgets?: ReportContext['budgets'] } = {}
      const budgetsPath = resolve(this.rootDir, this.options.budgets ?? DEFAULT_BUDGETS_FILE)
      try {
        const file = readBudgetFile(budgetsPath)
        const path = relative(this.rootDir, budgetsPath).split('\\').join('/')
        const fileKey = (f: string): string => budgetFileKey(budgetsPath, resolve(this.rootDir, f))
        const observations = budgetObservations(entries, fileKey)
        if (this.update && observations.some((o) => o.valueJ !== undefined)) {
          const result = updateBudgets(file, observations, this.options.budgetHeadroomPct ?? 10)
          writeBudgetFile(budgetsPath, result.file)
          context.budgets = {
            file: result.file,
            path,
            fileKey,
            update: { added: result.added, changed: result.changed, removed: result.removed },
          }
        } else if (Object.keys(file.tests).length > 0) {
          context.budgets = { file, path, fileKey }
        }
      } catch (error) {
        problems.push(isEnergyError(error) ? error.message : String(error))
      }
      const report = buildEnergyReport(entries, {
        ...context,
        suiteFailures: suiteFailures(aggregated, this.rootDir),
      })
      write(
        renderTerminal(report, this.options.screen ?? terminalScreen(), {
          topMethods: this.options.topMethods ?? 3,
        }),
      )
      const outputs: Array<[string | undefined, () => string, string]> = [
        [this.options.outputFile, () => renderJson(report), 'JSON report'],
        [this.options.markdown, () => renderMarkdown(report), 'markdown summary'],
      ]
      for (const [path, render, what] of outputs) {
        if (path === undefined) continue
        const target = resolve(this.rootDir, path)
        try {
          await mkdir(dirname(target), { recursive: true })
          await writeFile(target, render())
        } catch (error) {
          problems.push(`could not write the ${what} to ${target}: ${String(error)}`)
        }
      }
    } finally {
      rmSync(this.dir, { recursive: true, force: true })
    }
    for (const problem of problems) write(`vitest-energy: ${problem}\n`)
  }

  /** Every test Jest reported, in run order, with the energy it recorded. */
  private entries(aggregated: JestAggregatedResult, problems: string[]): ReportEntry[] {
    const energy = new Map<string, EnergyResult[]>()
    for (const record of readSideFiles(this.dir, problems)) {
      const key = `${record.testPath}\u0000${record.name}`
      energy.set(key, [...(energy.get(key) ?? []), ...record.meta.results])
    }
    const entries: ReportEntry[] = []
    for (const file of aggregated.testResults) {
      for (const t of file.testResults) {
        const results = energy.get(`${file.testFilePath}\u0000${t.fullName}`) ?? []
        const state: ReportedState =
          t.status === 'passed' || t.status === 'failed' || t.status === 'todo'
            ? t.status
            : 'skipped'
        const failures = t.failureMessages.map((message, i) =>
          jestFailure(message, t.failureDetails?.[i]),
        )
        const first = failures[0]
        const entry = {
          file: relative(this.rootDir, file.testFilePath).split('\\').join('/'),
          name: t.fullName,
          state,
          ...(t.failing === true ? { expectedToFail: true } : {}),
          results,
          errors: failures.map((f) => f.message),
          ...(state === 'failed' && first !== undefined ? { failure: first } : {}),
        }
        const reason = jestNoEnergyReason(entry)
        entries.push(reason === undefined ? entry : { ...entry, noEnergyReason: reason })
      }
    }
    return entries
  }
}

/**
 * A Jest failure as the report shows it: from the error object when it crossed from the worker
 * with its message (so an EnergyError keeps its code), else from Jest's formatted message.
 */
function jestFailure(formatted: string, detail: unknown): ReportedFailure {
  const message: unknown =
    typeof detail === 'object' && detail !== null ? Reflect.get(detail, 'message') : undefined
  return typeof message === 'string' && message !== ''
    ? reportedFailure(detail)
    : { message: cleanMessage(formatted).replace(/^Error: /, '') }
}

/**
 * Why a Jest test has no energy: Jest has no energy fixture, so a test that ran without
 * `recordEnergy()` says that; skipped, todo and recorded-but-unmeasured windows read as in Vitest.
 */
function jestNoEnergyReason(
  entry: Pick<ReportEntry, 'state' | 'results' | 'failure'>,
): string | undefined {
  if (entry.results.length === 0 && entry.state === 'passed')
    return 'the test did not call recordEnergy()'
  if (entry.results.length === 0 && entry.state === 'failed')
    return 'the test failed before it recorded energy'
  return noEnergyReason(entry)
}

/** Files Jest could not run, as the report's failures outside tests. */
function suiteFailures(aggregated: JestAggregatedResult, rootDir: string): ReportedSuiteFailure[] {
  return aggregated.testResults.flatMap((file) =>
    file.testExecError
      ? [
          {
            file: relative(rootDir, file.testFilePath).split('\\').join('/'),
            suite: '',
            ...reportedFailure(file.testExecError),
          },
        ]
      : [],
  )
}
