// A real Vitest run of a fixture project, in this process, with the energy reporter writing its
// terminal output to a string and its JSON report to a temporary folder.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startVitest, type TestModule } from 'vitest/node'
import EnergyReporter, { type EnergyReporterOptions } from '../../reporter/index.js'
import type { EnergyReport } from '../../reporter/report.js'
import { plainScreen } from '../../reporter/screen.js'

export interface ReporterRun {
  /** What the reporter printed. */
  readonly out: string
  readonly report: EnergyReport
  /** The run's modules, to call the reporter's hooks again. */
  readonly modules: readonly TestModule[]
  /** The temporary folder holding `energy.json` (and whatever `options` write there). */
  readonly dir: string
  /** Removes `dir`. */
  readonly cleanup: () => Promise<void>
}

export async function runReporter(
  root: string,
  options: (dir: string) => EnergyReporterOptions = () => ({}),
): Promise<ReporterRun> {
  const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-reporter-'))
  let out = ''
  const vitest = await startVitest('test', [], {
    root,
    watch: false,
    reporters: [
      new EnergyReporter({
        screen: plainScreen,
        write: (text) => void (out += text),
        outputFile: join(dir, 'energy.json'),
        // Budgets the run writes (its tests may ask for one) and the HTML report go to the
        // temporary folder too: nothing of a run is left in the fixture.
        budgets: join(dir, 'energy-budgets.json'),
        html: join(dir, 'index.html'),
        ...options(dir),
      }),
    ],
  })
  const modules = vitest.state.getTestModules()
  await vitest.close()
  const report = JSON.parse(await readFile(join(dir, 'energy.json'), 'utf8')) as EnergyReport
  return { out, report, modules, dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}
