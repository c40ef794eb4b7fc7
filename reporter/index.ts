/**
 * The `energy` Vitest reporter (default export, as Vitest requires of custom reporters):
 *
 *   vitest --reporter=energy                      (with the vitest-energy plugin)
 *   reporters: [['vitest-energy/reporter', { outputFile: 'energy.json', markdown: true }]]
 *
 * It lists every test of the run, with its state, its failure and its energy (from
 * `task.meta.energy`), builds the report once per run (no state survives between watch-mode
 * reruns), and renders it. It is also the one writer of the budget file. Output that cannot be
 * produced (a bad path, unreadable meta, a broken baseline) is reported, fails the run (exit code
 * 1) and never stops the other outputs. A run stopped by Ctrl-C still gets the report of the tests
 * that finished.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join, relative, resolve } from 'node:path'
import type {
  Reporter,
  SerializedError,
  TestCase,
  TestModule,
  TestRunEndReason,
  TestSpecification,
  TestSuite,
  Vitest,
} from 'vitest/node'
import { DefaultReporter, DotReporter } from 'vitest/node'
import {
  BUDGET_WRITER_PROVIDE_KEY,
  DEFAULT_BUDGETS_FILE,
  budgetUpdateMode,
} from '../src/budgets/index.js'
import { parseTestEnergyMeta, type EnergyResult, type LimitCheck } from '../src/model/index.js'
import { PROGRESS_PROVIDE_KEY } from '../src/model/progress.js'
import { LATE_RESULTS_PROVIDE_KEY, readLateResults } from './late-results.js'
import type { ClassifyReportOptions } from './classification.js'
import { cleanMessage, failureMessage, reportedFailure } from './failures.js'
import { renderJson } from './json.js'
import {
  noEnergyReason,
  type ReportContext,
  type ReportEntry,
  type ReportedFailure,
  type ReportedState,
  type ReportedSuiteFailure,
} from './report.js'
import { liveProgress, liveStatusWanted, type LiveStatus } from './progress.js'
import {
  buildRunReport,
  describeProblem,
  optionSettings,
  type OptionSettings,
  writeRunOutputs,
  type RunReport,
} from './run-report.js'
import { terminalScreen, type Screen } from './screen.js'
import { renderTerminal } from './terminal.js'

export interface EnergyReporterOptions {
  /** Where to write the JSON report; also settable as `--outputFile.energy=<path>`. */
  readonly outputFile?: string
  /**
   * Markdown summary: a path, or `true` for `$GITHUB_STEP_SUMMARY` (skipped when unset), or
   * `false` for none. @default true in GitHub Actions (`$GITHUB_STEP_SUMMARY` set), else false
   */
  readonly markdown?: string | boolean
  /** Methods shown per window in the terminal, and in the run's top-methods list. @default 3 */
  readonly topMethods?: number
  /**
   * Terminal: detail every test (methods, rails, battery, each window's warnings), not only those
   * that failed, went over budget or regressed. @default false
   */
  readonly verbose?: boolean
  /**
   * Budget file, relative to the project root. @default the plugin's `budgets`, else
   * 'energy-budgets.json'
   */
  readonly budgets?: string
  /** Headroom added to measurements when writing budgets, percent. @default the plugin's, else 10 */
  readonly budgetHeadroomPct?: number
  /**
   * `true`: write budgets from this run's measurements (as `vitest -u`); `false`: only check them.
   * @default VITEST_ENERGY_UPDATE=1 or Vitest's snapshot update mode: all with `-u`, the missing
   * budgets of tests that asked for one by default, none when `CI` is set (docs/budgets.md)
   */
  readonly updateBudgets?: boolean
  /** A previous JSON report to compare with (per-test delta, regressions). */
  readonly baseline?: string
  /** Smallest increase over the baseline that counts as a regression, percent. @default 5 */
  readonly baselineMaxPct?: number
  /**
   * Run the spectrum classifier over the run's tests: colours for every method, a per-class and
   * per-package summary, and the sunburst JSON beside the JSON report. @default the plugin's
   * `classify`, else false
   */
  readonly classify?: boolean | ClassifyReportOptions
  /**
   * Where to write the sunburst hierarchy (package → class → method with colour).
   * @default `<outputFile without .json>.hierarchy.json` when classifying with an outputFile
   */
  readonly hierarchyFile?: string
  /**
   * The HTML report (one self-contained file): a path, or `false` for none; also settable as
   * `--outputFile.energy-html=<path>`. @default '.vitest-energy/report/index.html'
   */
  readonly html?: string | false
  /** Injected terminal (tests). @default resolved from NO_COLOR/FORCE_COLOR and the TTY */
  readonly screen?: Screen
  /** Where terminal output goes. @default process.stdout */
  readonly write?: (text: string) => void
}

export { renderJson }

export default class EnergyReporter implements Reporter {
  private vitest: Vitest | undefined
  private readonly options: EnergyReporterOptions
  /** The run under way, until onTestRunEnd has reported it. */
  private running: ReadonlyArray<TestSpecification> | undefined
  private readonly onExit = (): void => {
    this.reportInterruptedRun()
    this.removeLateResults()
  }
  /** Where test processes write windows read in the background as they arrive (late-results.ts). */
  private lateResultsDir: string | undefined
  /** The live status line, when this terminal gets one (reporter/progress.ts). */
  private status: LiveStatus | undefined

  constructor(options: EnergyReporterOptions = {}) {
    this.options = options
  }

  async onInit(vitest: Vitest): Promise<void> {
    this.vitest = vitest
    // Ctrl-C in `vitest run`: Vitest's SIGINT handler exits the process without calling
    // onTestRunEnd (watch mode's keypress handler does call it, with reason 'interrupted').
    process.on('exit', this.onExit)
    vitest.onClose(() => void process.off('exit', this.onExit))
    // Test processes read it (src/vitest/fixtures.ts): a missing budget passes in the runner's
    // `new` mode only when this reporter will write it (docs/budgets.md).
    vitest.provide(
      BUDGET_WRITER_PROVIDE_KEY as never,
      (this.options.updateBudgets !== false) as never,
    )
    if (!vitest.config.mergeReports) {
      const dir = mkdtempSync(join(tmpdir(), 'vitest-energy-late-'))
      this.lateResultsDir = dir
      vitest.provide(LATE_RESULTS_PROVIDE_KEY as never, dir as never)
      vitest.onClose(() => this.removeLateResults())
    }
    if (
      !vitest.config.mergeReports &&
      this.options.write === undefined &&
      liveStatusWanted(process.stdout, process.env) &&
      !anotherDrawsInTerminal(vitest.config.reporters)
    ) {
      const live = await liveProgress(this.screen().colors)
      if (live === undefined) return
      // Test processes read it with inject() (src/vitest/fixtures.ts) and send their phases.
      vitest.provide(PROGRESS_PROVIDE_KEY as never, { port: live.server.port } as never)
      this.status = live.status
      vitest.onClose(async () => {
        live.status.stop()
        await live.server.close()
      })
    }
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.running = specifications
    // A watch-mode rerun: the last run's records are the last run's.
    this.clearLateResults()
    this.status?.start()
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError> = [],
    reason: TestRunEndReason = 'passed',
  ): void {
    this.running = undefined
    this.report(testModules, unhandledErrors, reason === 'interrupted')
  }

  /**
   * Watch mode, after a run: Vitest's own reporters say it is waiting and which keys work; alone,
   * the energy reporter says it, or a newcomer sees the report and then nothing.
   */
  onWatcherStart(): void {
    if (this.vitest === undefined || printsWatchHints(this.vitest.config.reporters)) return
    const c = this.screen().colors
    this.print(c.dim(' Watching for file changes · press h to show help, q to quit') + '\n')
  }

  /** Watch mode, a file changed: which one, before the next report (when no other reporter says). */
  onWatcherRerun(files: readonly string[], trigger?: string): void {
    if (this.vitest === undefined || printsWatchHints(this.vitest.config.reporters)) return
    const c = this.screen().colors
    const root = this.vitest.config.root
    // Vitest's trigger is the changed file relative to the root, or a label ('rerun test').
    const what =
      trigger === undefined
        ? `${files.length} test file${files.length === 1 ? '' : 's'}`
        : existsSync(resolve(root, trigger))
          ? `${trigger} changed`
          : trigger
    this.print(`\n ${c.bold(c.cyan('RERUN'))} ${c.dim(what)}\n`)
  }

  /**
   * The process exits during a run (Ctrl-C, SIGTERM): report the tests that finished, with the
   * others as `pending`. Synchronous, as everything in an 'exit' listener must be.
   */
  private reportInterruptedRun(): void {
    const specifications = this.running
    if (specifications === undefined) return
    this.running = undefined
    const modules = specifications.flatMap((s) => (s.testModule ? [s.testModule] : []))
    try {
      this.report(modules, [], true)
    } catch (error) {
      this.print(`vitest-energy: ${describeProblem(error)}\n`)
    }
  }

  /** Empties the late results' folder (test processes were given its path: it stays). */
  private clearLateResults(): void {
    const dir = this.lateResultsDir
    if (dir === undefined) return
    let names: string[] = []
    try {
      names = readdirSync(dir)
    } catch {
      // Removed by someone else: nothing to clear.
    }
    for (const name of names) rmSync(join(dir, name), { force: true })
  }

  private removeLateResults(): void {
    if (this.lateResultsDir !== undefined)
      rmSync(this.lateResultsDir, { recursive: true, force: true })
    this.lateResultsDir = undefined
  }

  /** Everything below is local to this call: a watch-mode rerun starts from nothing. */
  private report(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    interrupted: boolean,
  ): void {
    // Nothing of the status line may stay in, or come into, the report.
    this.status?.stop()
    const problems: string[] = []
    const root = this.vitest?.config.root ?? process.cwd()
    const late =
      this.lateResultsDir === undefined ? undefined : readLateResults(this.lateResultsDir)
    const { entries, suiteFailures } = collectEntries(testModules, root, problems, late)
    const built = this.buildReport(entries, root, problems, {
      suiteFailures,
      unhandledErrors: unhandledErrors.map((e) => reportedFailure(e)),
      interrupted,
    })
    this.print(
      renderTerminal(built.report, this.screen(), {
        topMethods: this.options.topMethods ?? 3,
        verbose: this.options.verbose ?? false,
        htmlReport: this.htmlSetting() !== false,
      }),
    )
    this.writeOutputs(built, root, problems)
    for (const problem of problems) this.print(`vitest-energy: ${problem}\n`)
    // Vitest sets the exit code for failed tests only; a report that could not be made fails too.
    if (problems.length > 0 && (process.exitCode === undefined || process.exitCode === 0))
      process.exitCode = 1
  }

  private print(text: string): void {
    if (this.options.write) this.options.write(text)
    else process.stdout.write(text)
  }

  /** The report with budgets, baseline and classification (src: run-report.ts). */
  buildReport(
    entries: readonly ReportEntry[],
    root: string,
    problems: string[],
    run: Pick<ReportContext, 'suiteFailures' | 'unhandledErrors' | 'interrupted'> = {},
  ): RunReport {
    const plugin = pluginSettings(this.vitest)
    return buildRunReport(
      entries,
      {
        root,
        budgetsPath: resolve(root, this.options.budgets ?? plugin.budgets ?? DEFAULT_BUDGETS_FILE),
        headroomPct: this.options.budgetHeadroomPct ?? plugin.budgetHeadroomPct ?? 10,
        update: budgetUpdateMode(
          process.env,
          this.vitest?.config.snapshotOptions.updateSnapshot,
          this.options.updateBudgets,
        ),
        ...(this.options.baseline === undefined ? {} : { baseline: this.options.baseline }),
        ...(this.options.baselineMaxPct === undefined
          ? {}
          : { baselineMaxPct: this.options.baselineMaxPct }),
        classify: this.options.classify ?? plugin.classify ?? false,
      },
      problems,
      run,
    )
  }

  private screen(): Screen {
    return this.options.screen ?? terminalScreen()
  }

  /** The HTML report's path, `false`, or undefined for the default path. */
  private htmlSetting(): string | false | undefined {
    return (
      this.options.html ??
      outputFileFromConfig(this.vitest, 'energy-html') ??
      pluginSettings(this.vitest).html
    )
  }

  /** The JSON report, the hierarchy, the markdown summary and the HTML report. */
  private writeOutputs(built: RunReport, root: string, problems: string[]): void {
    const jsonPath = this.options.outputFile ?? outputFileFromConfig(this.vitest, 'energy')
    const html = this.htmlSetting()
    writeRunOutputs(
      built,
      {
        root,
        ...(jsonPath === undefined ? {} : { jsonPath }),
        ...(this.options.hierarchyFile === undefined
          ? {}
          : { hierarchyPath: this.options.hierarchyFile }),
        ...(this.options.markdown === undefined ? {} : { markdown: this.options.markdown }),
        ...(html === undefined ? {} : { html }),
        artifactsDir: resolve(
          root,
          pluginSettings(this.vitest).artifactsDir ?? '.vitest-energy/artifacts',
        ),
      },
      problems,
      (text) => this.print(text),
    )
  }
}

/** Vitest's reporters that draw a window at the bottom of a terminal (unless `summary: false`). */
const WINDOW_REPORTERS: ReadonlySet<string> = new Set(['default', 'verbose', 'tree', 'dot'])

/**
 * Another reporter draws a window at the bottom of the terminal (Vitest's default reporter's
 * summary and its kind, the dot reporter): it takes over stdout and stderr and prints other writes
 * above its window, so a second live line would break it. Beside it, progress stays plain lines,
 * which it prints above its window.
 */
function anotherDrawsInTerminal(reporters: Vitest['config']['reporters']): boolean {
  return reporters.some((r) => {
    if (!Array.isArray(r))
      return (r instanceof DefaultReporter || r instanceof DotReporter) && r.isTTY
    const [name, options] = r as readonly [string, { readonly summary?: unknown } | undefined]
    return WINDOW_REPORTERS.has(name) && (name === 'dot' || options?.summary !== false)
  })
}

/** Vitest's reporters that print "Waiting for file changes…" and the keys in watch mode. */
const WATCH_HINT_REPORTERS: ReadonlySet<string> = new Set([...WINDOW_REPORTERS, 'agent', 'minimal'])

function printsWatchHints(reporters: Vitest['config']['reporters']): boolean {
  return reporters.some((r) =>
    Array.isArray(r)
      ? WATCH_HINT_REPORTERS.has(r[0] as string)
      : r instanceof DefaultReporter || r instanceof DotReporter,
  )
}

/** The plugin's options, from the provided context. */
function pluginSettings(vitest: Vitest | undefined): OptionSettings {
  let provided: unknown
  try {
    provided = (
      vitest?.getRootProject().getProvidedContext() as Record<string, unknown> | undefined
    )?.['vitestEnergyOptions']
  } catch {
    return {}
  }
  if (typeof provided !== 'object' || provided === null) return {}
  return optionSettings(provided as Record<string, unknown>)
}

function outputFileFromConfig(
  vitest: Vitest | undefined,
  key: 'energy' | 'energy-html',
): string | undefined {
  const outputFile = vitest?.config.outputFile
  if (typeof outputFile === 'object' && outputFile !== null)
    return (outputFile as Record<string, string>)[key]
  return undefined
}

/**
 * Every test of the run in order, with its state, failure and energy meta; and the errors of
 * files and suites (a file that failed to load, a failing beforeAll or afterAll).
 */
export function collectEntries(
  testModules: ReadonlyArray<TestModule>,
  root: string,
  problems: string[],
  late: ReadonlyMap<string, unknown> = new Map(),
): { entries: ReportEntry[]; suiteFailures: ReportedSuiteFailure[] } {
  const entries: ReportEntry[] = []
  const suiteFailures: ReportedSuiteFailure[] = []
  for (const module of testModules) {
    const file = (isAbsolute(module.moduleId) ? relative(root, module.moduleId) : module.moduleId)
      .split('\\')
      .join('/')
    // The first error of each file or suite that has any, for the tests it kept from running.
    const failedSuites = new Map<TestModule | TestSuite, ReportedFailure>()
    for (const suite of [module, ...module.children.allSuites()]) {
      const name = suite.type === 'module' ? '' : suite.fullName
      const errors = suite.errors()
      for (const error of errors)
        suiteFailures.push({ file, ...reportedFailure(error), suite: name })
      if (errors.length > 0) failedSuites.set(suite, reportedFailure(errors[0], name))
    }
    // Tests whose windows' ends were read in the background: their energy came with the file,
    // or (a run stopped before the file ended) as it arrived.
    const behind = module.meta().energyBehind ?? {}
    for (const test of module.children.allTests()) {
      const raw: unknown = Object.hasOwn(behind, test.id)
        ? behind[test.id]
        : late.has(test.id)
          ? late.get(test.id)
          : test.meta().energy
      let results: readonly EnergyResult[] = []
      let limits: readonly LimitCheck[] | undefined
      let budgetRequested: boolean | undefined
      if (raw !== undefined) {
        try {
          ;({ results, limits, budgetRequested } = parseTestEnergyMeta(raw))
        } catch (error) {
          problems.push(`${file} › ${test.fullName}: ${describeProblem(error)}`)
        }
      }
      const result = test.result()
      const state: ReportedState =
        result.state === 'skipped' && test.options.mode === 'todo' ? 'todo' : result.state
      const errors = result.errors ?? []
      const note = result.state === 'skipped' ? result.note : undefined
      const failure =
        state === 'failed' && errors[0] !== undefined
          ? reportedFailure(errors[0])
          : state === 'skipped' && note === undefined && test.options.mode !== 'skip'
            ? failureAround(test, failedSuites)
            : undefined
      const entry = {
        file,
        name: test.fullName,
        state,
        ...(test.options.fails === true ? { expectedToFail: true } : {}),
        results,
        ...(limits === undefined ? {} : { limits }),
        ...(budgetRequested === true ? { budgetRequested } : {}),
        errors: errors.map(failureMessage),
        ...(failure === undefined ? {} : { failure }),
      }
      const reason =
        note !== undefined && results.length === 0
          ? `skipped: ${cleanMessage(note)}`
          : noEnergyReason(entry, raw !== undefined)
      entries.push(reason === undefined ? entry : { ...entry, noEnergyReason: reason })
    }
  }
  return { entries, suiteFailures }
}

/** The failure of the nearest suite (or the file) around a test that did not run. */
function failureAround(
  test: TestCase,
  failedSuites: ReadonlyMap<TestModule | TestSuite, ReportedFailure>,
): ReportedFailure | undefined {
  for (let suite: TestModule | TestSuite | undefined = test.parent; suite !== undefined;) {
    const failure = failedSuites.get(suite)
    if (failure !== undefined) return failure
    suite = suite.type === 'module' ? undefined : suite.parent
  }
  return undefined
}
