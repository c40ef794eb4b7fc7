// A real Vitest run of test/reporter/html/project with the energy reporter writing its JSON and
// HTML reports to a temporary folder: budgets from a copy of project/budgets.json, the baseline
// project/baseline.json, the classifier on, and raw data kept for one test the way the fixture
// keeps it.
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startVitest } from 'vitest/node'
import EnergyReporter from '../../../reporter/index.js'
import type { EnergyReport } from '../../../reporter/report.js'
import { plainScreen } from '../../../reporter/screen.js'
import { writeArtifacts } from '../../../src/session/artifacts.js'

export const PROJECT = fileURLToPath(new URL('./project/', import.meta.url))

export interface ProjectRun {
  readonly report: EnergyReport
  /** The HTML report's path. */
  readonly html: string
  /** What the reporter printed. */
  readonly out: string
  readonly cleanup: () => Promise<void>
}

/** `update`: the run writes budgets (`vitest -u`). */
export async function runProject(update = false): Promise<ProjectRun> {
  const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-html-'))
  // Budget keys are relative to the budget file, so the copy lives in the project (and goes).
  const budgets = `.html-e2e-${process.pid}-${update ? 'u' : 'c'}.energy-budgets.json`
  await copyFile(join(PROJECT, 'budgets.json'), join(PROJECT, budgets))
  const artifactsDir = join(dir, 'artifacts')
  await writeArtifacts(
    [
      { window: 'export loses the phone', name: 'power-rails.pftrace', data: new Uint8Array(2048) },
      { window: 'export loses the phone', name: 'simpleperf.data', data: 'samples' },
    ],
    { dir: artifactsDir, testFile: 'sync.spec.ts', testName: 'sync > export loses the phone' },
  )
  let out = ''
  const html = join(dir, 'report', 'index.html')
  try {
    const vitest = await startVitest('test', [], {
      root: PROJECT,
      watch: false,
      // What the plugin provides to the reporter: where the fixture keeps raw data.
      provide: { vitestEnergyOptions: { artifactsDir } as never },
      reporters: [
        new EnergyReporter({
          screen: plainScreen,
          write: (text) => void (out += text),
          outputFile: join(dir, 'energy.json'),
          html,
          budgets,
          updateBudgets: update,
          baseline: 'baseline.json',
          classify: true,
        }),
      ],
    })
    await vitest.close()
  } finally {
    await rm(join(PROJECT, budgets), { force: true })
  }
  const report = JSON.parse(await readFile(join(dir, 'energy.json'), 'utf8')) as EnergyReport
  return { report, html, out, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** A test's page in the HTML report: its address is its file and name (each percent-encoded). */
export function testHash(t: { readonly file: string; readonly name: string }): string {
  return `#test/${encodeURIComponent(t.file)}/${encodeURIComponent(t.name)}`
}
