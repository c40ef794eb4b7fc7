/**
 * The `energy` Vitest reporter (default export, as Vitest requires of custom reporters):
 *
 *   vitest --reporter=energy                      (with the vitest-energy plugin)
 *   reporters: [['vitest-energy/reporter', { outputFile: 'energy.json', markdown: true }]]
 *
 * It reads each test's `task.meta.energy`, builds the report once per run (no state survives
 * between watch-mode reruns), and renders it. It is also the one writer of the budget file.
 * Output that cannot be produced (a bad path, unreadable meta, a broken baseline) is reported and
 * never stops the other outputs.
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve } from 'node:path'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
import {
  DEFAULT_BUDGETS_FILE,
  budgetFileKey,
  isUpdateRequested,
  readBudgetFile,
  updateBudgets,
  writeBudgetFile,
} from '../src/budgets/index.js'
import type { HierarchyNode } from '../src/classify/index.js'
import { isEnergyError, parseTestEnergyMeta, type EnergyResult } from '../src/model/index.js'
import { parseBaselineReport } from './baseline.js'
import { classifyEntries, type ClassifyReportOptions } from './classification.js'
import { renderJson } from './json.js'
import { renderMarkdown } from './markdown.js'
import {
  budgetObservations,
  buildEnergyReport,
  type EnergyReport,
  type ReportContext,
  type ReportEntry,
} from './report.js'
import { terminalScreen, type Screen } from './screen.js'
import { renderTerminal } from './terminal.js'

export interface EnergyReporterOptions {
  /** Where to write the JSON report; also settable as `--outputFile.energy=<path>`. */
  readonly outputFile?: string
  /**
   * Markdown summary: a path, or `true` for `$GITHUB_STEP_SUMMARY` (skipped when unset).
   * @default false
   */
  readonly markdown?: string | boolean
  /** Methods shown per window in the terminal, and in the run's top-methods list. @default 3 */
  readonly topMethods?: number
  /**
   * Budget file, relative to the project root. @default the plugin's `budgets`, else
   * 'energy-budgets.json'
   */
  readonly budgets?: string
  /** Headroom added to measurements when writing budgets, percent. @default the plugin's, else 10 */
  readonly budgetHeadroomPct?: number
  /**
   * Write budgets from this run's measurements. @default true with `vitest -u` or
   * VITEST_ENERGY_UPDATE=1
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
  /** Injected terminal (tests). @default resolved from NO_COLOR/FORCE_COLOR and the TTY */
  readonly screen?: Screen
  /** Where terminal output goes. @default process.stdout */
  readonly write?: (text: string) => void
}

/** The plugin options the reporter reads from the provided context (plain JSON). */
interface PluginSettings {
  readonly budgets?: string
  readonly budgetHeadroomPct?: number
  readonly classify?: boolean | ClassifyReportOptions
}

export { renderJson }

export default class EnergyReporter implements Reporter {
  private vitest: Vitest | undefined
  private readonly options: EnergyReporterOptions

  constructor(options: EnergyReporterOptions = {}) {
    this.options = options
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    // Everything below is local to this call: a watch-mode rerun starts from nothing.
    const problems: string[] = []
    const root = this.vitest?.config.root ?? process.cwd()
    const entries = collectEntries(testModules, root, problems)
    const report = await this.buildReport(entries, root, problems)
    const write = this.options.write ?? ((text: string) => void process.stdout.write(text))
    write(
      renderTerminal(report.report, this.options.screen ?? terminalScreen(), {
        topMethods: this.options.topMethods ?? 3,
      }),
    )
    await this.writeOutputs(report.report, report.hierarchy, root, problems)
    for (const problem of problems) write(`vitest-energy: ${problem}\n`)
  }

  /** Builds the report with budgets, baseline and classification; file I/O happens here. */
  async buildReport(
    entries: readonly ReportEntry[],
    root: string,
    problems: string[],
  ): Promise<{ report: EnergyReport; hierarchy?: HierarchyNode }> {
    const plugin = pluginSettings(this.vitest)
    const context: {
      budgets?: ReportContext['budgets']
      baseline?: ReportContext['baseline']
      classification?: ReportContext['classification']
    } = {}
    let hierarchy: HierarchyNode | undefined

    const budgetsPath = resolve(
      root,
      this.options.budgets ?? plugin.budgets ?? DEFAULT_BUDGETS_FILE,
    )
    const update =
      this.options.updateBudgets ??
      (isUpdateRequested(process.env) ||
        this.vitest?.config.snapshotOptions.updateSnapshot === 'all')
    try {
      const fileKey = (file: string): string => budgetFileKey(budgetsPath, resolve(root, file))
      const budgets = readBudgetFile(budgetsPath)
      const shownPath = relative(root, budgetsPath).split('\\').join('/')
      const headroomPct = this.options.budgetHeadroomPct ?? plugin.budgetHeadroomPct ?? 10
      const observations = budgetObservations(entries, fileKey)
      if (update && observations.some((o) => o.valueJ !== undefined)) {
        const result = updateBudgets(budgets, observations, headroomPct)
        writeBudgetFile(budgetsPath, result.file)
        context.budgets = {
          file: result.file,
          path: shownPath,
          fileKey,
          update: { added: result.added, changed: result.changed, removed: result.removed },
        }
      } else if (Object.keys(budgets.tests).length > 0) {
        context.budgets = { file: budgets, path: shownPath, fileKey }
      }
    } catch (error) {
      problems.push(isEnergyError(error) ? error.message : String(error))
    }

    if (this.options.baseline !== undefined) {
      const path = resolve(root, this.options.baseline)
      try {
        const text = await readFile(path, 'utf8').catch((error: unknown) => {
          throw new Error(
            `could not read the baseline report ${path}: ${error instanceof Error ? error.message : String(error)}`,
          )
        })
        context.baseline = {
          report: parseBaselineReport(text, path),
          path: relative(root, path).split('\\').join('/'),
          ...(this.options.baselineMaxPct === undefined
            ? {}
            : { maxPct: this.options.baselineMaxPct }),
        }
      } catch (error) {
        problems.push(error instanceof Error ? error.message : String(error))
      }
    }

    const classify = this.options.classify ?? plugin.classify ?? false
    if (classify !== false) {
      try {
        const classified = classifyEntries(entries, classify === true ? {} : classify)
        if (classified) {
          context.classification = classified.classification
          hierarchy = classified.hierarchy
        }
      } catch (error) {
        problems.push(`classifier: ${isEnergyError(error) ? error.message : String(error)}`)
      }
    }
    const report = buildEnergyReport(entries, context)
    return hierarchy === undefined ? { report } : { report, hierarchy }
  }

  private async writeOutputs(
    report: EnergyReport,
    hierarchy: HierarchyNode | undefined,
    root: string,
    problems: string[],
  ): Promise<void> {
    const jsonPath = this.options.outputFile ?? outputFileFromConfig(this.vitest)
    if (jsonPath !== undefined) {
      await writeSafely(resolve(root, jsonPath), renderJson(report), problems, 'JSON report')
    }
    const hierarchyPath =
      this.options.hierarchyFile ??
      (jsonPath === undefined ? undefined : `${jsonPath.replace(/\.json$/, '')}.hierarchy.json`)
    if (hierarchy !== undefined && hierarchyPath !== undefined) {
      await writeSafely(
        resolve(root, hierarchyPath),
        `${JSON.stringify(hierarchy, null, 2)}\n`,
        problems,
        'sunburst hierarchy',
      )
    }
    const markdown = this.options.markdown ?? false
    const markdownPath =
      markdown === true ? process.env['GITHUB_STEP_SUMMARY'] : markdown || undefined
    if (markdownPath !== undefined) {
      const text = renderMarkdown(report)
      if (markdown === true) {
        await appendFile(markdownPath, text).catch((error: unknown) =>
          problems.push(`could not write the markdown summary: ${String(error)}`),
        )
      } else {
        await writeSafely(resolve(root, markdownPath), text, problems, 'markdown summary')
      }
    }
  }
}

function pluginSettings(vitest: Vitest | undefined): PluginSettings {
  let provided: unknown
  try {
    provided = (
      vitest?.getRootProject().getProvidedContext() as Record<string, unknown> | undefined
    )?.['vitestEnergyOptions']
  } catch {
    return {}
  }
  if (typeof provided !== 'object' || provided === null) return {}
  const o = provided as Record<string, unknown>
  const classify = o['classify']
  return {
    ...(typeof o['budgets'] === 'string' ? { budgets: o['budgets'] } : {}),
    ...(typeof o['budgetHeadroomPct'] === 'number'
      ? { budgetHeadroomPct: o['budgetHeadroomPct'] }
      : {}),
    ...(typeof classify === 'boolean'
      ? { classify }
      : typeof classify === 'object' && classify !== null
        ? { classify: classify as ClassifyReportOptions }
        : {}),
  }
}

function outputFileFromConfig(vitest: Vitest | undefined): string | undefined {
  const outputFile = vitest?.config.outputFile
  if (typeof outputFile === 'object' && outputFile !== null)
    return (outputFile as Record<string, string>)['energy']
  return undefined
}

async function writeSafely(
  path: string,
  text: string,
  problems: string[],
  what: string,
): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, text)
  } catch (error) {
    problems.push(
      `could not write the ${what} to ${path}: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}

export function collectEntries(
  testModules: ReadonlyArray<TestModule>,
  root: string,
  problems: string[],
): ReportEntry[] {
  const entries: ReportEntry[] = []
  for (const module of testModules) {
    const file = (isAbsolute(module.moduleId) ? relative(root, module.moduleId) : module.moduleId)
      .split('\\')
      .join('/')
    for (const test of module.children.allTests()) {
      const raw: unknown = test.meta().energy
      let results: readonly EnergyResult[] = []
      if (raw !== undefined) {
        try {
          results = parseTestEnergyMeta(raw).results
        } catch (error) {
          problems.push(
            `${file} › ${test.fullName}: ${isEnergyError(error) ? error.message : String(error)}`,
          )
        }
      }
      const result = test.result()
      entries.push({
        file,
        name: test.fullName,
        state: result.state,
        ...(test.options.fails === true ? { expectedToFail: true } : {}),
        results,
        errors: (result.errors ?? []).map((e) => (e.message ?? '').split('\n')[0] ?? ''),
      })
    }
  }
  return entries
}
