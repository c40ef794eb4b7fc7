/**
 * What both reporters (Vitest's `energy`, and Jest's) do with a run's tests once they have them as
 * report entries: build the report with budgets (checked, written in update mode, the missing ones
 * written in the runner's `new` mode), the
 * comparison with a baseline report and the classifier; then write the JSON report, the sunburst
 * hierarchy, the markdown summary and the HTML report. File I/O happens here; a problem (a bad
 * path, a broken baseline) is collected for the caller to print, and never stops the other
 * outputs.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import {
  addMissingBudgets,
  budgetFileKey,
  readBudgetFile,
  updateBudgets,
  writeBudgetFile,
  type BudgetUpdateMode,
} from '../src/budgets/index.js'
import type { HierarchyNode } from '../src/classify/index.js'
import { EnergyError, isEnergyError } from '../src/model/index.js'
import { readBaselineReport } from './baseline.js'
import { classifyEntries, type ClassifyReportOptions } from './classification.js'
import { ReporterErrors } from './errors.js'
import { failureMessage } from './failures.js'
import { DEFAULT_HTML_REPORT, findArtifacts, renderHtml, type BudgetReview } from './html/index.js'
import { renderJson } from './json.js'
import { renderMarkdown } from './markdown.js'
import {
  budgetObservations,
  buildEnergyReport,
  testsWithoutBudget,
  type EnergyReport,
  type ReportContext,
  type ReportEntry,
} from './report.js'

/** How a run's report is built. */
export interface RunReportSettings {
  /** The project's root: output paths and file names in the report are relative to it. */
  readonly root: string
  /** The budget file (absolute). */
  readonly budgetsPath: string
  /** Headroom added to measurements when writing budgets, percent. */
  readonly headroomPct: number
  /**
   * `all`: write the budgets of the tests that asked for one from this run's measurements (`-u`,
   * VITEST_ENERGY_UPDATE=1); `new`: only the missing ones (the runner's default outside CI);
   * `none`: check only (CI).
   */
  readonly update: BudgetUpdateMode
  /** A previous JSON report to compare with, relative to the root. */
  readonly baseline?: string
  /** Smallest increase over the baseline that counts as a regression, percent. */
  readonly baselineMaxPct?: number
  readonly classify: boolean | ClassifyReportOptions
}

export interface RunReport {
  readonly report: EnergyReport
  readonly hierarchy?: HierarchyNode
  readonly budgetReview?: BudgetReview
}

/**
 * Builds the report with budgets, baseline and classification. An interrupted run checks budgets
 * but never writes them: its measurements are incomplete.
 */
export function buildRunReport(
  entries: readonly ReportEntry[],
  settings: RunReportSettings,
  problems: string[],
  run: Pick<ReportContext, 'suiteFailures' | 'unhandledErrors' | 'interrupted'> = {},
): RunReport {
  const { root, budgetsPath } = settings
  const context: {
    -readonly [K in keyof ReportContext]: ReportContext[K]
  } = { ...run }
  let hierarchy: HierarchyNode | undefined
  let budgetReview: BudgetReview | undefined

  const update = run.interrupted === true ? 'none' : settings.update
  try {
    const fileKey = (file: string): string => budgetFileKey(budgetsPath, resolve(root, file))
    const budgets = readBudgetFile(budgetsPath)
    const shownPath = relative(root, budgetsPath).split('\\').join('/')
    const observations = budgetObservations(entries, fileKey)
    const updating = update === 'all' || update === 'rewrite'
    const result =
      updating && observations.some((o) => o.valueJ !== undefined)
        ? updateBudgets(budgets, observations, settings.headroomPct, {
            rewrite: update === 'rewrite',
          })
        : update === 'new'
          ? addMissingBudgets(budgets, observations, settings.headroomPct)
          : undefined
    const changes =
      result === undefined ? 0 : result.added.length + result.changed.length + result.removed.length
    // As for snapshots, the file is written only when an entry changed: `-u` with nothing changed
    // leaves it byte for byte, and `new` mode leaves it alone unless a budget is missing.
    if (result !== undefined && (updating || changes > 0)) {
      if (changes > 0) writeBudgetFile(budgetsPath, result.file)
      budgetReview = { before: budgets, after: result.file, fileKey }
      context.budgets = {
        // `new` mode checks the rest against the file as it was: a budget written now is no verdict.
        file: updating ? result.file : budgets,
        path: shownPath,
        fileKey,
        update: {
          mode: updating ? 'all' : 'new',
          added: result.added,
          changed: result.changed,
          removed: result.removed,
        },
      }
    } else if (Object.keys(budgets.tests).length > 0) {
      context.budgets = { file: budgets, path: shownPath, fileKey }
      budgetReview = { before: budgets, fileKey }
    }
  } catch (error) {
    // A test's toStayWithinBudget already failed with the same message: say it once.
    const problem = describeProblem(error)
    const firstLine = problem.split('\n')[0] ?? problem
    const shown = entries.some((e) => e.errors.some((m) => m.includes(firstLine)))
    problems.push(
      shown
        ? `the budgets in ${relative(root, budgetsPath).split('\\').join('/')} were neither checked nor written (the file's problem is in the failed test above)`
        : problem,
    )
  }

  if (settings.baseline !== undefined) {
    const path = resolve(root, settings.baseline)
    try {
      context.baseline = {
        report: readBaselineReport(path),
        path: relative(root, path).split('\\').join('/'),
        ...(settings.baselineMaxPct === undefined ? {} : { maxPct: settings.baselineMaxPct }),
      }
    } catch (error) {
      problems.push(describeProblem(error))
    }
  }

  if (settings.classify !== false) {
    try {
      const classified = classifyEntries(
        entries,
        settings.classify === true ? {} : settings.classify,
      )
      if (classified) {
        context.classification = classified.classification
        hierarchy = classified.hierarchy
      }
    } catch (error) {
      problems.push(`classifier: ${describeProblem(error)}`)
    }
  }
  const report = buildEnergyReport(entries, context)
  if (budgetReview !== undefined && context.budgets !== undefined)
    budgetReview = {
      ...budgetReview,
      withoutBudget: testsWithoutBudget(
        budgetObservations(entries, context.budgets.fileKey),
        context.budgets,
      ),
    }
  return {
    report,
    ...(hierarchy === undefined ? {} : { hierarchy }),
    ...(budgetReview === undefined ? {} : { budgetReview }),
  }
}

/** Where a run's report goes. */
export interface RunOutputSettings {
  readonly root: string
  /** The JSON report, relative to the root. */
  readonly jsonPath?: string
  /** @default `<jsonPath without .json>.hierarchy.json` when classifying with a JSON report */
  readonly hierarchyPath?: string
  /**
   * Markdown summary: a path, or `true` for `$GITHUB_STEP_SUMMARY` (skipped when unset), or
   * `false` for none. @default true in GitHub Actions (`$GITHUB_STEP_SUMMARY` set), else false
   */
  readonly markdown?: string | boolean
  /** The HTML report, relative to the root, or `false`. @default '.vitest-energy/report/index.html' */
  readonly html?: string | false
  /** Where the raw data of failed tests is kept (absolute), for the HTML report's links. */
  readonly artifactsDir: string
}

/**
 * Writes the JSON report, the hierarchy, the markdown and the HTML report; says where each went
 * (the job summary of GitHub Actions excepted: it is the job's page).
 */
export function writeRunOutputs(
  built: RunReport,
  settings: RunOutputSettings,
  problems: string[],
  print: (text: string) => void,
): void {
  const { root, jsonPath } = settings
  const { report, hierarchy } = built
  const said = (label: string, path: string): void =>
    print(` ${label.padEnd(9)} ${shownPath(path)}\n`)
  if (jsonPath !== undefined) {
    const path = resolve(root, jsonPath)
    if (writeSafely(path, renderJson(report), problems, 'JSON report')) said('JSON', path)
  }
  const hierarchyPath =
    settings.hierarchyPath ??
    (jsonPath === undefined ? undefined : `${jsonPath.replace(/\.json$/, '')}.hierarchy.json`)
  if (hierarchy !== undefined && hierarchyPath !== undefined) {
    const path = resolve(root, hierarchyPath)
    const text = `${JSON.stringify(hierarchy, null, 2)}\n`
    if (writeSafely(path, text, problems, 'sunburst hierarchy')) said('Sunburst', path)
  }
  // In GitHub Actions the job summary gets the markdown unless `markdown: false`.
  const markdown = settings.markdown ?? process.env['GITHUB_STEP_SUMMARY'] !== undefined
  const markdownPath =
    markdown === true ? process.env['GITHUB_STEP_SUMMARY'] : markdown || undefined
  if (markdownPath !== undefined) {
    const path = resolve(root, markdownPath)
    const summary = markdown === true
    if (
      writeSafely(path, renderMarkdown(report), problems, 'markdown summary', summary) &&
      !summary
    )
      said('Markdown', path)
  }
  writeHtml(built, settings, problems, print)
}

/** The HTML report (unless `html: false`), with links to the raw data kept for each test. */
function writeHtml(
  built: RunReport,
  settings: RunOutputSettings,
  problems: string[],
  print: (text: string) => void,
): void {
  if (settings.html === false) return
  const path = resolve(settings.root, settings.html ?? DEFAULT_HTML_REPORT)
  let html: string
  try {
    html = renderHtml(built.report, {
      ...(built.budgetReview === undefined ? {} : { budgetReview: built.budgetReview }),
      artifacts: findArtifacts(built.report.tests, settings.artifactsDir, dirname(path)),
      createdAt: new Date().toISOString(),
    })
  } catch (error) {
    problems.push(`HTML report: ${describeProblem(error)}`)
    return
  }
  if (writeSafely(path, html, problems, 'HTML report')) print(` HTML      ${shownPath(path)}\n`)
}

/** A written file as the summary names it: relative to the current directory when under it. */
function shownPath(path: string): string {
  const shown = relative(process.cwd(), path)
  return shown.startsWith('..') ? path : shown
}

/**
 * The vitest-energy options the reporter reads from the run's configuration (the Vitest plugin's
 * provided context, the Jest environment's `testEnvironmentOptions`): plain JSON, read
 * defensively (they were validated where the tests ran).
 */
export interface OptionSettings {
  readonly budgets?: string
  readonly budgetHeadroomPct?: number
  readonly classify?: boolean | ClassifyReportOptions
  /** The plugin resolves it against the root; Jest's as written. */
  readonly artifactsDir?: string
  /** The `html` option: `false`, or the report's path. */
  readonly html?: string | false
}

export function optionSettings(o: Record<string, unknown>): OptionSettings {
  const classify = o['classify']
  return {
    ...(typeof o['budgets'] === 'string' ? { budgets: o['budgets'] } : {}),
    ...(typeof o['budgetHeadroomPct'] === 'number'
      ? { budgetHeadroomPct: o['budgetHeadroomPct'] }
      : {}),
    ...(typeof o['artifactsDir'] === 'string' ? { artifactsDir: o['artifactsDir'] } : {}),
    ...htmlSetting(o['html']),
    ...(typeof classify === 'boolean'
      ? { classify }
      : typeof classify === 'object' && classify !== null
        ? { classify: classify as ClassifyReportOptions }
        : {}),
  }
}

/** The `html` option of the plugin or the Jest environment, as the reporter takes it. */
function htmlSetting(value: unknown): { html?: string | false } {
  if (value === false) return { html: false }
  const outputFile = (value as { outputFile?: unknown } | null | undefined)?.outputFile
  return typeof value === 'object' && typeof outputFile === 'string' ? { html: outputFile } : {}
}

/** Writes (or appends) an output; a failure becomes an E_REPORT_OUTPUT_IO problem. */
function writeSafely(
  path: string,
  text: string,
  problems: string[],
  what: string,
  append = false,
): boolean {
  try {
    mkdirSync(dirname(path), { recursive: true })
    if (append) appendFileSync(path, text)
    else writeFileSync(path, text)
    return true
  } catch (error) {
    problems.push(
      describeProblem(
        new EnergyError({
          code: ReporterErrors.OUTPUT_IO,
          message: `could not write the ${what} to ${path}: ${error instanceof Error ? error.message : String(error)}`,
          hint: 'Point the option at a writable path (missing folders are created).',
          details: { path },
        }),
      ),
    )
    return false
  }
}

/** A problem as printed after `vitest-energy: `: the code and message, never a stack trace. */
export function describeProblem(error: unknown): string {
  return isEnergyError(error) ? error.message : failureMessage(error)
}
