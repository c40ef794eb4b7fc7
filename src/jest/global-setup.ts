/**
 * `vitest-energy/jest-global-setup` (Jest's `globalSetup`, once per run in Jest's main process):
 * validates the options in `testEnvironmentOptions`, starts the run — the phone(s) or the virtual
 * device, the app's presence, the Appium server, the run's folder where workers share what they
 * learn about a phone (its idle baseline, measured once per phone) and their leases — and hands
 * its target to the test processes through the environment. `jest-global-teardown` ends it; an
 * interrupted run (Ctrl-C, SIGTERM) removes what it has on disk and exits, and the simulated
 * phones and Appium, which live in this process, end with it.
 */
import { startRun, type StartedRun } from '../session/run-setup.js'
import { setupFailure } from '../session/setup-failure.js'
import { jestEnergyOptions, RUN_ENV, type JestProjectConfig } from './options.js'

/** The parts of Jest's global config read here. */
export interface JestGlobalConfig {
  readonly maxWorkers: number
}

/** The run this process started, for the global teardown (both run in Jest's main process). */
const ACTIVE = Symbol.for('vitest-energy.jest.run')

interface ActiveRun {
  readonly run: StartedRun
  readonly onSignal: (signal: NodeJS.Signals) => void
}

type WithActiveRun = typeof globalThis & { [ACTIVE]?: ActiveRun }

export default async function globalSetup(
  globalConfig: JestGlobalConfig,
  projectConfig: JestProjectConfig,
): Promise<void> {
  // In a terminal Jest leaves "Determining test suites to run..." on the line without a newline:
  // what the run prints (the virtual device's notice) starts on a line of its own.
  if (process.stdout.isTTY && process.env['CI'] === undefined && process.env['TERM'] !== 'dumb')
    process.stdout.write('\n')
  let run: StartedRun
  try {
    run = await startRun(jestEnergyOptions(projectConfig))
  } catch (error) {
    throw setupFailure(error)
  }
  // Jest sets no handler of its own: without this one, Ctrl-C would end the process without
  // its 'exit' listeners, leaving the run's folder and the killed workers' phone locks behind.
  const onSignal = (signal: NodeJS.Signals): void => {
    run.closeSync()
    if (process.listenerCount(signal) === 0) process.exit(signal === 'SIGINT' ? 130 : 143)
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  process.env[RUN_ENV] = JSON.stringify(run.target)
  ;(globalThis as WithActiveRun)[ACTIVE] = { run, onSignal }
  const phones = run.target.phones.length
  if (globalConfig.maxWorkers > phones) {
    // Jest's globalSetup cannot lower maxWorkers: workers take turns, one test per phone.
    process.stdout.write(
      `vitest-energy: ${globalConfig.maxWorkers} Jest workers share ${phones} phone${phones === 1 ? '' : 's'}: their tests take turns (waiting does not count against a test's timeout); maxWorkers: ${phones} avoids the wait\n`,
    )
  }
}

/** Ends the run the global setup started (the global teardown's body). */
export async function endRun(): Promise<void> {
  const holder = globalThis as WithActiveRun
  const active = holder[ACTIVE]
  if (active === undefined) return
  holder[ACTIVE] = undefined
  process.off('SIGINT', active.onSignal)
  process.off('SIGTERM', active.onSignal)
  Reflect.deleteProperty(process.env, RUN_ENV)
  await active.run.close()
}
