/**
 * The energy reporter for Jest 30 (default export, as Jest loads reporters):
 *
 *   reporters: ['default', ['vitest-energy/jest-reporter', { outputFile: 'energy.json' }]]
 *
 * The vitest-energy test environment records every test's energy (tests without it call
 * `recordEnergy(result)`); workers append to per-process side files in a directory the reporter
 * creates (passed through VITEST_ENERGY_JEST_DIR), and `onRunComplete` merges them and renders
 * the same terminal, JSON, markdown and HTML output as the Vitest reporter, with budgets, the
 * baseline comparison and the classifier (`run-report.ts`).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import {
  DEFAULT_BUDGETS_FILE,
  budgetUpdateMode,
  type BudgetUpdateMode,
} from '../src/budgets/index.js'
import type { EnergyResult, LimitCheck } from '../src/model/index.js'
import { PROGRESS_PORT_ENV } from '../src/model/progress.js'
import type { ClassifyReportOptions } from './classification.js'
import { cleanMessage, reportedFailure } from './failures.js'
import {
  JEST_SIDE_DIR_ENV,
  JEST_WRITES_BUDGETS_ENV,
  readSideFiles,
  type SideRecord,
} from './jest-side-files.js'
import {
  noEnergyReason,
  type EnergyReport,
  type ReportEntry,
  type ReportedFailure,
  type ReportedState,
  type ReportedSuiteFailure,
} from './report.js'
import { liveProgress, liveStatusWanted, type LiveProgress } from './progress.js'
import {
  buildRunReport,
  optionSettings,
  writeRunOutputs,
  type OptionSettings,
} from './run-report.js'
import { terminalScreen, type Screen } from './screen.js'
import { renderTerminal } from './terminal.js'

export interface JestEnergyReporterOptions {
  /** JSON report path, relative to Jest's rootDir. */
  readonly outputFile?: string
  /**
   * Markdown summary: a path, or `true` for `$GITHUB_STEP_SUMMARY` (skipped when unset), or
   * `false` for none. @default true in GitHub Actions (`$GITHUB_STEP_SUMMARY` set), else false
   */
  readonly markdown?: string | boolean
  /**
   * Budget file, relative to rootDir. @default the test environment's `budgets`, else
   * 'energy-budgets.json'
   */
  readonly budgets?: string
  /** Headroom when writing budgets, percent. @default the test environment's, else 10 */
  readonly budgetHeadroomPct?: number
  /**
   * `true`: write budgets from this run (as `jest -u`); `false`: only check them. @default
   * VITEST_ENERGY_UPDATE=1 or Jest's snapshot update mode: all with `-u`, the missing budgets of
   * tests that asked for one by default, none with `--ci` (Jest's default in CI)
   */
  readonly updateBudgets?: boolean
  /** A previous JSON report to compare with (per-test delta, regressions), relative to rootDir. */
  readonly baseline?: string
  /** Smallest increase over the baseline that counts as a regression, percent. @default 5 */
  readonly baselineMaxPct?: number
  /**
   * Run the spectrum classifier over the run's tests (colours for every method, per-class and
   * per-package summary, the sunburst JSON beside the JSON report). @default the test
   * environment's `classify`, else false
   */
  readonly classify?: boolean | ClassifyReportOptions
  /** @default `<outputFile without .json>.hierarchy.json` when classifying with an outputFile */
  readonly hierarchyFile?: string
  /** The HTML report, relative to rootDir, or `false`. @default '.vitest-energy/report/index.html' */
  readonly html?: string | false
  /** @default 3 */
  readonly topMethods?: number
  /** Terminal: detail every test, not only those that failed or went over budget. @default false */
  readonly verbose?: boolean
  readonly screen?: Screen
  readonly write?: (text: string) => void
}

/** The parts of Jest's globalConfig and AggregatedResult the reporter reads. */
interface JestGlobalConfig {
  readonly rootDir: string
  readonly updateSnapshot?: string
  /** As configured; unset means Jest's default reporter. */
  readonly reporters?: ReadonlyArray<string | readonly [string, unknown]>
}
/** A project of the run: the vitest-energy options in its `testEnvironmentOptions`. */
interface JestTestContext {
  readonly config?: {
    readonly rootDir?: string
    readonly testEnvironmentOptions?: Readonly<Record<string, unknown>>
  }
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
  private readonly update: BudgetUpdateMode
  private readonly options: JestEnergyReporterOptions
  private readonly dir: string
  /** A run that ends without onRunComplete (Ctrl-C) leaves no side files behind. */
  private readonly removeDir = (): void => rmSync(this.dir, { recursive: true, force: true })
  private readonly jestReporters: JestGlobalConfig['reporters']
  /** The live status line and its socket, when this terminal gets one (reporter/progress.ts). */
  private live: LiveProgress | undefined

  constructor(globalConfig: JestGlobalConfig, options: JestEnergyReporterOptions = {}) {
    this.rootDir = globalConfig.rootDir
    this.jestReporters = globalConfig.reporters
    this.update = budgetUpdateMode(process.env, globalConfig.updateSnapshot, options.updateBudgets)
    this.options = options
    this.dir = mkdtempSync(join(tmpdir(), 'vitest-energy-jest-'))
    // Workers are started after reporters are constructed and inherit these. With
    // `updateBudgets: false` their toStayWithinBudget() fails a missing budget, as in CI.
    process.env[JEST_SIDE_DIR_ENV] = this.dir
    process.env[JEST_WRITES_BUDGETS_ENV] = options.updateBudgets === false ? '0' : '1'
    process.once('exit', this.removeDir)
  }

  /**
   * Before Jest starts its workers: in a terminal where no other reporter draws (Jest's default
   * reporter draws its status at the bottom), listen for the tests' progress and hand the port to
   * the workers through the environment they inherit.
   */
  async onRunStart(): Promise<void> {
    if (
      this.live !== undefined ||
      this.options.write !== undefined ||
      !liveStatusWanted(process.stdout, process.env) ||
      drawsStatus(this.jestReporters)
    )
      return
    const live = await liveProgress((this.options.screen ?? terminalScreen()).colors)
    if (live === undefined) return
    process.env[PROGRESS_PORT_ENV] = String(live.server.port)
    this.live = live
    live.status.start()
  }

  async onRunComplete(
    contexts: ReadonlySet<JestTestContext> | undefined,
    aggregated: JestAggregatedResult,
  ): Promise<void> {
    await this.endLiveStatus()
    const problems: string[] = []
    const write = this.options.write ?? ((text: string) => void process.stdout.write(text))
    try {
      const entries = this.entries(aggregated, problems)
      const env = environmentSettings(contexts)
      const root = this.rootDir
      const o = this.options
      const built = buildRunReport(
        entries,
        {
          root,
          budgetsPath: resolve(root, o.budgets ?? env.budgets ?? DEFAULT_BUDGETS_FILE),
          headroomPct: o.budgetHeadroomPct ?? env.budgetHeadroomPct ?? 10,
          update: this.update,
          ...(o.baseline === undefined ? {} : { baseline: o.baseline }),
          ...(o.baselineMaxPct === undefined ? {} : { baselineMaxPct: o.baselineMaxPct }),
          classify: o.classify ?? env.classify ?? false,
        },
        problems,
        { suiteFailures: suiteFailures(aggregated, root) },
      )
      write(
        renderTerminal(built.report, o.screen ?? terminalScreen(), {
          topMethods: o.topMethods ?? 3,
          verbose: o.verbose ?? false,
          updateCommand: 'jest -u',
          htmlReport: (o.html ?? env.html) !== false,
          noEnergyLine: jestNoEnergyLine(built.report),
        }),
      )
      writeRunOutputs(
        built,
        {
          root,
          ...(o.outputFile === undefined ? {} : { jsonPath: o.outputFile }),
          ...(o.hierarchyFile === undefined ? {} : { hierarchyPath: o.hierarchyFile }),
          ...(o.markdown === undefined ? {} : { markdown: o.markdown }),
          ...(o.html === undefined
            ? env.html === undefined
              ? {}
              : { html: env.html }
            : { html: o.html }),
          artifactsDir: resolve(root, env.artifactsDir ?? '.vitest-energy/artifacts'),
        },
        problems,
        write,
      )
    } finally {
      process.off('exit', this.removeDir)
      this.removeDir()
    }
    for (const problem of problems) write(`vitest-energy: ${problem}\n`)
    // Jest sets the exit code for failed tests only; a report that could not be made fails too.
    if (problems.length > 0 && (process.exitCode === undefined || process.exitCode === 0))
      process.exitCode = 1
  }

  /** Erases the status line (nothing of it may stay in, or come into, the report). */
  private async endLiveStatus(): Promise<void> {
    const live = this.live
    if (live === undefined) return
    this.live = undefined
    live.status.stop()
    Reflect.deleteProperty(process.env, PROGRESS_PORT_ENV)
    await live.server.close()
  }

  /** Every test Jest reported, in run order, with the energy it recorded. */
  private entries(aggregated: JestAggregatedResult, problems: string[]): ReportEntry[] {
    const energy = new Map<string, EnergyResult[]>()
    const limits = new Map<string, LimitCheck[]>()
    const requested = new Set<string>()
    // Tests whose energy only recordEnergy() sent (its records carry no attempt): whether they
    // check a budget cannot be told.
    const byHand = new Set<string>()
    const fromEnvironment = new Set<string>()
    // A retried test (jest.retryTimes) reports the energy of its last attempt only.
    const lastAttempt = new Map<string, number>()
    const records = readSideFiles(this.dir, problems)
    const keyOf = (r: SideRecord): string => `${r.testPath}\u0000${r.name}`
    for (const r of records)
      if (r.attempt !== undefined)
        lastAttempt.set(keyOf(r), Math.max(r.attempt, lastAttempt.get(keyOf(r)) ?? 0))
    for (const record of records) {
      const key = keyOf(record)
      if (record.attempt !== undefined && record.attempt !== lastAttempt.get(key)) continue
      energy.set(key, [...(energy.get(key) ?? []), ...record.meta.results])
      if (record.meta.limits !== undefined)
        limits.set(key, [...(limits.get(key) ?? []), ...record.meta.limits])
      if (record.meta.budgetRequested === true) requested.add(key)
      ;(record.attempt === undefined ? byHand : fromEnvironment).add(key)
    }
    const budgetRequest = (key: string): Pick<ReportEntry, 'budgetRequested'> =>
      requested.has(key)
        ? { budgetRequested: true }
        : byHand.has(key) && !fromEnvironment.has(key)
          ? { budgetRequested: 'unknown' }
          : {}
    const entries: ReportEntry[] = []
    for (const file of aggregated.testResults) {
      for (const t of file.testResults) {
        const recorded = energy.get(`${file.testFilePath}\u0000${t.fullName}`)
        const checked = limits.get(`${file.testFilePath}\u0000${t.fullName}`)
        const results = recorded ?? []
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
          ...(checked === undefined ? {} : { limits: checked }),
          ...budgetRequest(`${file.testFilePath}\u0000${t.fullName}`),
          errors: failures.map((f) => f.message),
          ...(state === 'failed' && first !== undefined ? { failure: first } : {}),
        }
        const reason = jestNoEnergyReason(entry, recorded !== undefined)
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
 * Why a Jest test has no energy. A test nothing recorded for — neither the vitest-energy test
 * environment nor `recordEnergy()` — says so; the rest reads as in Vitest.
 */
function jestNoEnergyReason(
  entry: Pick<ReportEntry, 'state' | 'results' | 'failure'>,
  recorded: boolean,
): string | undefined {
  if (!recorded && entry.state === 'passed') return 'the test did not call recordEnergy()'
  if (!recorded && entry.state === 'failed') return 'the test failed before it recorded energy'
  return noEnergyReason(entry, recorded)
}

/**
 * The terminal report's line for a run in which no test measured energy, in Jest's terms: under
 * Jest a test measures in the vitest-energy test environment, or sends its energy with
 * `recordEnergy()` (Jest has no `energy` fixture). None when no test ran because the files failed
 * to run (a config error: a wrong option, no `globalSetup`): the failures printed above say what
 * to fix, and a line about measuring would point away from them.
 */
export function jestNoEnergyLine(report: EnergyReport): string {
  if (report.tests.length === 0 && report.suiteFailures.length > 0) return ''
  return "No test measured energy. In Jest a test measures in the vitest-energy test environment (testEnvironment: 'vitest-energy/jest-environment', with its globalSetup): its automatic window or the `energy` global; or it sends its energy with `recordEnergy()` (see docs/jest.md)."
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

/**
 * The vitest-energy options in `testEnvironmentOptions` (the test environment's; the first project
 * that has any), read defensively: they were validated where the environment ran.
 */
function environmentSettings(contexts: ReadonlySet<JestTestContext> | undefined): OptionSettings {
  for (const context of contexts ?? []) {
    const o = context.config?.testEnvironmentOptions
    if (o === undefined || typeof o['app'] !== 'string') continue
    return optionSettings(o)
  }
  return {}
}

/**
 * Jest's default reporter (and the agent reporter, its kind) draws its status at the bottom of an
 * interactive terminal and is used when no reporters are configured: beside it, progress stays
 * plain lines, which it prints above its status.
 */
function drawsStatus(reporters: JestGlobalConfig['reporters']): boolean {
  if (reporters === undefined) return true
  return reporters.some((r) => {
    const name = typeof r === 'string' ? r : r[0]
    return name === 'default' || name === 'agent'
  })
}
