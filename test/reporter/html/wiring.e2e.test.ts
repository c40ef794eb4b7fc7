// Where the energy reporter writes the HTML report: `.vitest-energy/report/index.html` by default,
// `--outputFile.energy-html`, the `html` option (which wins), none with `html: false`; the run
// prints the path, and a path it cannot write is a problem that leaves the other outputs alone.
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startVitest, type TestModule, type Vitest } from 'vitest/node'
import EnergyReporter, { type EnergyReporterOptions } from '../../../reporter/index.js'
import { plainScreen } from '../../../reporter/screen.js'
import { PROJECT } from './_project.js'

describe('the HTML report’s path', () => {
  let dir = ''
  let vitest: Vitest
  let modules: readonly TestModule[] = []
  const configured = (): string => join(dir, 'configured', 'report.html')

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vitest-energy-html-wiring-'))
    vitest = await startVitest('test', [], {
      root: PROJECT,
      watch: false,
      reporters: [{}],
      outputFile: { 'energy-html': configured() },
    })
    modules = vitest.state.getTestModules()
  })
  afterAll(async () => {
    await vitest.close()
    await rm(dir, { recursive: true, force: true })
    await rm(join(PROJECT, '.vitest-energy'), { recursive: true, force: true })
  })

  /** The reporter's output for this run's modules. */
  function report(options: EnergyReporterOptions, on: Vitest = vitest): string {
    let out = ''
    const reporter = new EnergyReporter({
      screen: plainScreen,
      write: (text) => void (out += text),
      // Outside CI the runner's `new` mode would write the project's tests' budgets beside them.
      updateBudgets: false,
      ...options,
    })
    reporter.onInit(on)
    reporter.onTestRunEnd(modules)
    return out
  }

  test('--outputFile.energy-html, and the path is printed', () => {
    const out = report({})
    expect(existsSync(configured())).toBe(true)
    // Relative to the working directory, or absolute when outside it (as here, in TMPDIR).
    const shown = relative(process.cwd(), configured())
    expect(out).toContain(` HTML      ${shown.startsWith('..') ? configured() : shown}\n`)
  })

  test('the html option wins; html: false writes none', async () => {
    await rm(configured(), { force: true })
    const own = join(dir, 'own.html')
    expect(report({ html: own })).toContain('own.html')
    expect(existsSync(own)).toBe(true)
    expect(existsSync(configured())).toBe(false)
    expect(report({ html: false })).not.toContain(' HTML ')
    expect(existsSync(configured())).toBe(false)
  })

  test('a path it cannot write: E_REPORT_OUTPUT_IO, and the JSON report is still written', async () => {
    await writeFile(join(dir, 'a-file'), '')
    const json = join(dir, 'still.json')
    const previous = process.exitCode
    try {
      const out = report({ html: join(dir, 'a-file', 'index.html'), outputFile: json })
      expect(out).toMatch(/vitest-energy: .*could not write the HTML report/)
      expect(out).not.toContain(' HTML      ')
      expect(existsSync(json)).toBe(true)
      expect(process.exitCode).toBe(1)
    } finally {
      process.exitCode = previous
    }
  })

  test('by default: .vitest-energy/report/index.html under the root', async () => {
    const plain = await startVitest('test', [], { root: PROJECT, watch: false, reporters: [{}] })
    try {
      expect(report({}, plain)).toContain('index.html')
      expect(existsSync(join(PROJECT, '.vitest-energy', 'report', 'index.html'))).toBe(true)
    } finally {
      await plain.close()
    }
  })

  test("the plugin's html option: false writes none, { outputFile } moves it; the reporter's own wins", async () => {
    const moved = join(dir, 'from-plugin.html')
    const run = async (html: unknown, options: EnergyReporterOptions = {}): Promise<string> => {
      const plugin = await startVitest('test', [], {
        root: PROJECT,
        watch: false,
        reporters: [{}],
      })
      // What the plugin provides: its resolved options (src/session/options.ts).
      plugin.getRootProject().provide('vitestEnergyOptions', { html } as never)
      try {
        return report(options, plugin)
      } finally {
        await plugin.close()
      }
    }
    await rm(join(PROJECT, '.vitest-energy'), { recursive: true, force: true })
    expect(await run(false)).not.toContain(' HTML ')
    expect(existsSync(join(PROJECT, '.vitest-energy', 'report', 'index.html'))).toBe(false)
    expect(await run({ outputFile: moved })).toContain('from-plugin.html')
    expect(existsSync(moved)).toBe(true)
    const own = join(dir, 'reporter-wins.html')
    expect(await run(false, { html: own })).toContain('reporter-wins.html')
    expect(await run({ outputFile: null })).toContain('index.html')
  })
})
