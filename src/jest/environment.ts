/**
 * `vitest-energy/jest-environment`: a Jest test environment (jest-environment-node and more) that
 * measures every test the way the Vitest fixtures do, with the runner-neutral code of src/session:
 *
 * - per test file: the worker's phone (`device`), probed once, and a WebdriverIO session on it
 *   (`driver`), started with the file's first test (or `beforeAll`) and ended when the file is
 *   done, both holding the phone's lease;
 * - per test, from Jest's test events: the phone's lease from `test_started` (before the
 *   `beforeEach` hooks) to `test_done` (after the `afterEach` hooks) — taken outside the test's
 *   timeout, so a test that waits for another worker's test on its phone never times out for it;
 *   the automatic energy window from the body's start to `test_done`, as in Vitest; what the
 *   test measured goes to the Jest energy reporter (side files) without a `recordEnergy()` call;
 * - the globals `energy` (`measure`, `repeat`, `baseline`), `driver` and `device`, and the
 *   energy matchers registered on `expect`; 60 s test and hook timeouts when the config sets none.
 *
 * The options are the Vitest plugin's, in `testEnvironmentOptions`; the run (phones, Appium) is
 * started by `vitest-energy/jest-global-setup`.
 */
import { relative } from 'node:path'
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment'
import type { Circus } from '@jest/types'
import { TestEnvironment as NodeEnvironment } from 'jest-environment-node'
import { energyMatchers } from '../../matchers/index.js'
import {
  appendSideRecord,
  JEST_SIDE_DIR_ENV,
  jestBudgetWriter,
} from '../../reporter/jest-side-files.js'
import { isUpdateRequested } from '../budgets/index.js'
import type { Lease } from '../device/index.js'
import { EnergyError } from '../model/index.js'
import { endDriver, startDriver } from '../session/appium.js'
import { DeviceSession } from '../session/device-session.js'
import { UI_TEST_TIMEOUT_MS } from '../session/options.js'
import { expectedError } from '../session/call-site.js'
import type { ProvidedEnergyOptions } from '../session/target.js'
import { PROGRESS_PORT_ENV } from '../model/progress.js'
import { ProgressChannel, TestProgress } from '../session/progress.js'
import {
  TestEnergy,
  windowsLostError,
  type EnergyApi,
  type WindowEndBehind,
} from '../session/test-energy.js'
import { JestErrors, suiteSetupFailure } from './errors.js'
import { jestEnergyOptions, readRunTarget } from './options.js'

/** Where jest-circus reads a test file's default timeout (what `jest.setTimeout()` writes). */
const TEST_TIMEOUT_SYMBOL = Symbol.for('TEST_TIMEOUT_SYMBOL')

/** The test running now in this file, with its lease and its energy. */
interface CurrentTest {
  readonly test: Circus.TestEntry
  readonly lease: Lease
  readonly energy: TestEnergy
  /** The automatic window was due (the body started with no error before it). */
  bodyStarted: boolean
}

export default class EnergyEnvironment extends NodeEnvironment {
  private readonly options: ProvidedEnergyOptions
  private readonly rootDir: string
  private readonly testPath: string
  private readonly updateBudgets: boolean
  private readonly raiseTimeout: boolean
  private session: DeviceSession | undefined
  private browser: WebdriverIO.Browser | undefined
  /** The run has an Appium server and this file's options do not say `appium: false`. */
  private driverWanted = false
  /** Why the file's session could not start (the `driver` global throws it). */
  private driverFailure: unknown
  private current: CurrentTest | undefined
  /** Tests whose automatic window's end is read in the background (`windowEnd`). */
  private readonly behind: Array<{
    readonly test: string
    readonly behind: WindowEndBehind
    readonly done: Promise<void>
  }> = []
  /** A side record that could not be written for a test left behind: fails the file. */
  private unrecorded: unknown

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context)
    try {
      this.options = jestEnergyOptions(config.projectConfig)
    } catch (error) {
      throw suiteSetupFailure(error)
    }
    this.rootDir = config.projectConfig.rootDir
    this.testPath = context.testPath
    this.updateBudgets =
      isUpdateRequested(process.env) || config.globalConfig.updateSnapshot === 'all'
    // Unset in the config (and on the command line), Jest's default of 5 s applies.
    this.raiseTimeout = config.globalConfig.testTimeout === undefined
  }

  override async setup(): Promise<void> {
    await super.setup()
    const target = readRunTarget(process.env)
    if (target === undefined) {
      throw suiteSetupFailure(
        new EnergyError({
          code: JestErrors.SETUP_MISSING,
          message:
            'the vitest-energy test environment ran without its global setup (no phones were started for this run)',
          hint: "Add globalSetup: 'vitest-energy/jest-global-setup' and globalTeardown: 'vitest-energy/jest-global-teardown' to the Jest config.",
        }),
      )
    }
    try {
      const workerId = Number(process.env['JEST_WORKER_ID'] ?? '1')
      this.session = await DeviceSession.open(this.options, target, workerId)
    } catch (error) {
      throw suiteSetupFailure(error)
    }
    this.driverWanted = this.options.appium !== false && target.appium !== undefined
    // UI tests on a phone do not fit Jest's 5 s (see docs/jest.md); a configured timeout stays.
    if (this.raiseTimeout) Reflect.set(this.global, TEST_TIMEOUT_SYMBOL, UI_TEST_TIMEOUT_MS)
    Object.defineProperty(this.global, 'energy', { value: this.energyGlobal(), configurable: true })
    Object.defineProperty(this.global, 'device', { value: this.session, configurable: true })
    Object.defineProperty(this.global, 'driver', {
      configurable: true,
      get: () => this.driverGlobal(),
    })
  }

  /**
   * Starts the file's WebdriverIO session when its first test starts (inside that test's lease)
   * or its first `beforeAll`/`afterAll` hook does (under a lease of its own), as Vitest starts the
   * `driver` fixture with the first test that uses it — not when the file loads: on a phone that
   * workers share, a session started while another worker's test runs would be started inside
   * that test (and Appium's UiAutomator2 driver keeps one session per phone).
   */
  private async ensureDriver(): Promise<void> {
    if (!this.driverWanted || this.browser !== undefined || this.session === undefined) return
    this.driverFailure = undefined
    try {
      this.browser = await startDriver(this.session)
    } catch (error) {
      this.driverFailure = error
      throw error
    }
  }

  /** The `driver` global: the file's session, once its first test or `beforeAll` has started it. */
  private driverGlobal(): WebdriverIO.Browser {
    if (this.browser !== undefined) return this.browser
    if (this.driverFailure !== undefined) throw this.driverFailure
    if (!this.driverWanted) {
      throw new EnergyError({
        code: 'E_APPIUM_DISABLED',
        message: 'the driver needs an Appium server, and this run started none (appium: false)',
        hint: 'Remove `appium: false` from testEnvironmentOptions in the Jest config.',
      })
    }
    throw new EnergyError({
      code: JestErrors.OUTSIDE_TEST,
      message: 'driver was used before the test file’s first test or beforeAll hook started',
      hint: 'Use driver inside test(...) or a hook: its Appium session starts with the first of them.',
    })
  }

  override async teardown(): Promise<void> {
    try {
      // Normally done at `run_finish`; an error now fails the file (and drops its results).
      const lost = await this.catchUp()
      if (lost !== undefined) throw lost
      if (this.session !== undefined && this.browser !== undefined)
        await endDriver(this.session, this.browser)
    } finally {
      this.browser = undefined
      await super.teardown()
    }
  }

  /**
   * At the file's end: waits for the tests whose windows' ends are read in the background and
   * frees the phone; returns the error that fails the file when one of those windows could not
   * be read (the test's own result stands) or its record could not be written.
   */
  private async catchUp(): Promise<unknown> {
    const left = this.behind.splice(0)
    await Promise.all(left.map(async (b) => b.done))
    await this.session?.catchUp()
    const lost = windowsLostError(left.map((b) => ({ test: b.test, error: b.behind.error() })))
    const error = lost ?? this.unrecorded
    this.unrecorded = undefined
    return error === undefined ? undefined : expectedError(error)
  }

  async handleTestEvent(event: Circus.Event, state: Circus.State): Promise<void> {
    switch (event.name) {
      case 'setup':
        // The energy matchers on the `expect` of this file (global or from @jest/globals).
        ;(event.runtimeGlobals.expect as { extend(matchers: object): void }).extend(energyMatchers)
        return
      case 'hook_start':
        if (event.hook.type === 'beforeAll' || event.hook.type === 'afterAll')
          await this.ensureDriver().catch(() => undefined) // the hook's use of driver throws it
        return
      case 'test_started':
        await this.testStarted(event.test)
        return
      case 'run_finish': {
        // After every test and afterAll hook: an error here fails the file and keeps its tests'
        // results (thrown from teardown, Jest would drop them).
        const lost = await this.catchUp()
        if (lost !== undefined) state.unhandledErrors.push(lost)
        return
      }
      case 'test_fn_start':
        await this.bodyStarted(event.test)
        return
      case 'test_done':
        await this.testDone(event.test)
        return
      default:
        return
    }
  }

  /** Before the `beforeEach` hooks: the phone's lease (no timeout runs yet) and the test's energy. */
  private async testStarted(test: Circus.TestEntry): Promise<void> {
    const session = this.session
    if (session === undefined) return
    if (this.current !== undefined) {
      test.errors.push(
        expectedError(
          new EnergyError({
            code: JestErrors.CONCURRENT,
            message: `'${fullNameOf(test)}' started while '${fullNameOf(this.current.test)}' is still running on ${session.serial}`,
            hint: 'A phone measures one test at a time: use test(...) rather than test.concurrent(...) in files run by the vitest-energy environment.',
          }),
        ),
      )
      return
    }
    const name = test.name
    const fullName = fullNameOf(test)
    const file = relative(this.rootDir, this.testPath).split('\\').join('/')
    const port = Number(process.env[PROGRESS_PORT_ENV] ?? '')
    const progress = new TestProgress(ProgressChannel.for(port > 0 ? port : undefined), {
      phone: session.serial,
      file,
      name,
    })
    let lease: Lease
    try {
      lease = await session.lease(`${file} › ${fullName}`, progress)
    } catch (error) {
      test.errors.push(expectedError(error))
      return
    }
    const energy = new TestEnergy(
      session,
      { filePath: this.testPath, file, name, fullName },
      {
        updateBudgets: () => this.updateBudgets,
        // The Jest energy reporter sets its side-file folder, and says whether it writes the
        // budgets tests ask for (not with its `updateBudgets: false`).
        budgetWriter: jestBudgetWriter(process.env),
        progress,
        // Its side record is written when the window's data arrives (`windowEnd`).
        lateResults: true,
      },
    )
    energy.prepare()
    this.current = { test, lease, energy, bodyStarted: false }
    try {
      await this.ensureDriver()
    } catch (error) {
      test.errors.push(expectedError(error))
    }
  }

  /** The body starts (its timeout not yet): the automatic window opens, as in Vitest. */
  private async bodyStarted(test: Circus.TestEntry): Promise<void> {
    const current = this.current
    // A failed beforeEach: Jest skips the body, and there is nothing to measure.
    if (current?.test !== test || test.errors.length > 0) return
    current.bodyStarted = true
    try {
      await current.energy.openAutoWindow()
    } catch (error) {
      test.errors.push(expectedError(error))
    }
  }

  /**
   * After the `afterEach` hooks: the automatic window closes and the budget is checked (an error
   * fails the test), the energy goes to the reporter, the lease is released, raw data is kept for
   * a failed test.
   */
  private async testDone(test: Circus.TestEntry): Promise<void> {
    const current = this.current
    if (current?.test !== test) return
    this.current = undefined
    const { energy, lease } = current
    let behind: WindowEndBehind | undefined
    try {
      // A measurement the test left running is settled before the next test takes the phone.
      await energy.settleMeasurements()
      if (current.bodyStarted)
        ({ behind } = await energy.close({ testFailed: test.errors.length > 0 }))
    } catch (error) {
      test.errors.push(expectedError(error))
    } finally {
      await energy.abort()
      await lease.release()
      if (behind === undefined) {
        // The phone is released and the raw data settled whatever happens to the side record; a
        // record that cannot be written fails the test (its energy would be missing).
        try {
          this.recordForReporter(test, energy)
        } catch (error) {
          test.errors.push(expectedError(error))
        }
        await energy.settle(test.errors.length > 0)
      } else {
        const testFailed = test.errors.length > 0
        // The window's end is read while the next tests run; the file's end waits for it.
        const windowEnd = behind
        const name = test.name
        this.behind.push({
          test: name,
          behind: windowEnd,
          done: windowEnd.settled.then(async () => {
            try {
              this.recordForReporter(test, energy)
            } catch (error) {
              this.unrecorded ??= error
            }
            await energy.settle(testFailed)
          }),
        })
      }
    }
  }

  /** What the test measured, to the Jest energy reporter's side files (when it runs). */
  private recordForReporter(test: Circus.TestEntry, energy: TestEnergy): void {
    const dir = process.env[JEST_SIDE_DIR_ENV]
    if (dir === undefined || dir === '') return
    appendSideRecord(dir, {
      testPath: this.testPath,
      name: fullNameOf(test),
      meta: energy.summary(),
      attempt: test.invocations,
    })
  }

  /** The `energy` global: the API of the test running now. */
  private energyGlobal(): EnergyApi {
    const now = (what: string): EnergyApi => {
      const current = this.current
      if (current !== undefined) return current.energy.api
      throw new EnergyError({
        code: JestErrors.OUTSIDE_TEST,
        message: `${what} was called outside a test (in beforeAll/afterAll, or at the top of the file)`,
        hint: 'A window needs the phone, which a test holds from its beforeEach hooks to its afterEach hooks: call it in test(...), beforeEach or afterEach.',
      })
    }
    return {
      measure: (fn, options) => now('energy.measure()').measure(fn, options),
      repeat: (n, fn, options) => now('energy.repeat()').repeat(n, fn, options),
      baseline: (options) => now('energy.baseline()').baseline(options),
      get results() {
        return now('energy.results').results
      },
    }
  }
}

/** Jest's full name of a test: its describe blocks and its name joined by spaces. */
function fullNameOf(test: Circus.TestEntry): string {
  const names: string[] = [test.name]
  for (let block = test.parent; block.parent !== undefined; block = block.parent)
    names.unshift(block.name)
  return names.join(' ')
}
