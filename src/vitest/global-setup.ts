/**
 * Runs once in the main process before any test file: starts the run (`src/session/run-setup.ts`:
 * the phone(s) or the virtual device, the app's presence, the Appium server, the run's folder) and
 * tells the workers where it is. Setup mistakes are printed without a stack.
 */
import type { TestProject } from 'vitest/node'
import { EnergyError } from '../model/index.js'
import { startRun } from '../session/run-setup.js'
import { setupFailure } from '../session/setup-failure.js'
import { BUDGET_WRITER_KEY, OPTIONS_KEY, TARGET_KEY } from './context.js'

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const options = project.getProvidedContext()[OPTIONS_KEY]
  if (options === undefined) {
    throw setupFailure(
      new EnergyError({
        code: 'E_PLUGIN_MISSING',
        message: 'the vitest-energy global setup ran without the plugin’s options',
        hint: "Add the plugin: plugins: [energy({ app: 'com.example.app' })] in vitest.config.ts.",
      }),
    )
  }
  try {
    // Ctrl-C: Vitest exits the process a millisecond after the signal, without this teardown;
    // the run removes what it has on disk on exit.
    const run = await startRun(options)
    project.provide(TARGET_KEY, run.target)
    // Watch mode: each rerun measures the idle baseline again, as a new `vitest run` would.
    project.onTestsRerun(() => run.startOver())
    return async () => {
      // Without the energy reporter (which provides this key) the measurements go nowhere.
      if (run.measured() && project.getProvidedContext()[BUDGET_WRITER_KEY] === undefined) {
        process.stderr.write(
          "vitest-energy: energy was measured but no energy reporter ran, so it was not shown and no budget was written: run with --reporter=energy (and --reporter=default for Vitest's own output), or add 'energy' to `reporters` in vitest.config.ts.\n",
        )
      }
      await run.close()
    }
  } catch (error) {
    throw setupFailure(error)
  }
}
