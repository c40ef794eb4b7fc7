/**
 * The `energy` Vitest reporter (default export, as Vitest requires of custom reporters):
 *
 *   vitest --reporter=energy                      (with the vitest-energy plugin)
 *   reporters: [['vitest-energy/reporter', { outputFile: 'energy.json', markdown: true }]]
 *
 * It reads each test's `task.meta.energy`, builds the report once, and renders it. Output that
 * cannot be produced (a bad path, unreadable meta) is reported and never stops the other outputs.
 */
import { mkdir, appendFile, writeFile } from 'node:fs/promises'
import { dirname, relative, resolve } from 'node:path'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
import { isEnergyError, parseTestEnergyMeta, type EnergyResult } from '../src/model/index.js'
import { renderMarkdown } from './markdown.js'
import { buildEnergyReport, type EnergyReport, type ReportEntry } from './report.js'
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
  /** Methods shown per window in the terminal. @default 3 */
  readonly topMethods?: number
  /** Injected terminal (tests). @default resolved from NO_COLOR/FORCE_COLOR and the TTY */
  readonly screen?: Screen
  /** Where terminal output goes. @default process.stdout */
  readonly write?: (text: string) => void
}

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
    const problems: string[] = []
    const root = this.vitest?.config.root ?? process.cwd()
    const report = buildEnergyReport(collectEntries(testModules, root, problems))
    const write = this.options.write ?? ((text: string) => void process.stdout.write(text))
    write(
      renderTerminal(report, this.options.screen ?? terminalScreen(), {
        topMethods: this.options.topMethods ?? 3,
      }),
    )
    await this.writeOutputs(report, root, problems)
    for (const problem of problems) write(`vitest-energy: ${problem}\n`)
  }

  private async writeOutputs(
    report: EnergyReport,
    root: string,
    problems: string[],
  ): Promise<void> {
    const jsonPath = this.options.outputFile ?? outputFileFromConfig(this.vitest)
    if (jsonPath !== undefined) {
      await writeSafely(
        resolve(root, jsonPath),
        `${JSON.stringify(report, null, 2)}\n`,
        problems,
        'JSON report',
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
    const file = relative(root, module.moduleId).split('\\').join('/')
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
        results,
        errors: (result.errors ?? []).map((e) => (e.message ?? '').split('\n')[0] ?? ''),
      })
    }
  }
  return entries
}
