/**
 * The fixtures users write tests with:
 *
 *   import { test, expect } from 'vitest-energy'
 *   test('opening the feed', async ({ energy }) => {
 *     const run = await energy.measure(async () => { … })
 *     expect(run).toConsumeLessThan(2.5)
 *   })
 *
 * - `device` (worker): the connection to this worker's phone, probed once.
 * - `phone` (test, automatic): the phone's lease for the whole test, its hooks included, so tests
 *   sharing a phone never overlap. Released whatever happens.
 * - `energy` (test): opens a window around the test automatically (unless the test measures
 *   explicit windows), and writes every window's result to `task.meta.energy` for the reporter.
 */
import { join, relative } from 'node:path'
import { expect, test as baseTest } from 'vitest'
import { configureEnergyMatchers } from '../../matchers/index.js'
import { checkTestBudget, isUpdateRequested } from '../budgets/index.js'
import { idlePowerW, type Baseline } from '../attribution/index.js'
import type { Lease } from '../device/index.js'
import {
  EnergyError,
  summarize,
  type EnergyResult,
  type MeasuredEnergyResult,
} from '../model/index.js'
import { DeviceSession } from './device-session.js'
import { closeDriver, createDriver } from './driver.js'
import { EnergyRun, RepeatedEnergyRun } from './run.js'
import { failedResult, type OpenWindow, type WindowBaseline, type WindowOutcome } from './window.js'
import { ArtifactStore } from './artifacts.js'

export interface RepeatOptions {
  /** Unmeasured runs first, to warm caches and JIT. @default 1 */
  readonly warmup?: number
  /** Idle time between repetitions so tails settle, ms. @default 1000 */
  readonly settleMs?: number
  /** Label of the windows. @default the test name */
  readonly label?: string
}

export interface EnergyApi {
  /** Measures `fn` in its own window. The first call replaces the automatic window. */
  measure<T>(fn: () => Promise<T> | T, options?: { readonly label?: string }): Promise<EnergyRun>
  /** Measures `fn` n times (after warm-up, with settle time between runs). */
  repeat(
    n: number | undefined,
    fn: () => Promise<unknown> | unknown,
    options?: RepeatOptions,
  ): Promise<RepeatedEnergyRun>
  /** Measures the idle phone for `durationMs` and uses it as the baseline for this test's windows. */
  baseline(options?: { readonly durationMs?: number }): Promise<EnergyRun>
  /** Every window this test has measured so far. */
  readonly results: readonly EnergyResult[]
}

interface WorkerFixtures {
  device: DeviceSession
  /** A WebdriverIO session on this worker's phone through the run's Appium server. */
  driver: WebdriverIO.Browser
}

interface TestFixtures {
  energy: EnergyApi
  /**
   * Exclusive use of this worker's phone for the whole test, hooks included (automatic): tests
   * that share a phone never drive it, or measure, inside each other.
   */
  phone: Lease
}

export const test = baseTest.extend<TestFixtures & WorkerFixtures>({
  device: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      await use(await DeviceSession.open())
    },
    { scope: 'worker' },
  ],
  driver: [
    async ({ device }, use) => {
      const appium = device.target.appium
      const options = device.options.appium
      if (appium === undefined || options === false) {
        throw new EnergyError({
          code: 'E_APPIUM_DISABLED',
          message:
            'the driver fixture needs an Appium server, and this run started none (appium: false)',
          hint: 'Remove `appium: false` from the vitest-energy plugin options.',
        })
      }
      // Started and ended holding the phone's lease: a session start launches the app and its end
      // force-stops it, which must never happen inside another worker's test on the same phone.
      const browser = await device.withLease('starting the Appium session', () =>
        createDriver({
          appiumHost: appium.host,
          appiumPort: appium.port,
          serial: device.serial,
          app: device.options.app,
          appActivity: options.appActivity,
          automationName:
            options.automationName ?? (device.target.virtual ? 'VirtualDevice' : 'UiAutomator2'),
          adbHost: device.target.host,
          adbPort: device.target.port,
          capabilities: options.capabilities,
        }),
      )
      try {
        await use(browser)
      } finally {
        await device.withLease('ending the Appium session', () => closeDriver(browser))
      }
    },
    { scope: 'worker' },
  ],
  phone: [
    async ({ device, task }, use) => {
      // Taken in the setup file's aroundEach (no timeout): waiting here never fails the test.
      const lease = await device.lease(`${task.file.name} › ${task.name}`, progressOf(task.name))
      try {
        await use(lease)
      } finally {
        await lease.release()
      }
    },
    { auto: true },
  ],
  // `phone` is listed so the lease is held before the first window opens.
  energy: async ({ device, task, phone }, use) => {
    // Budgets (docs/budgets.md): toStayWithinBudget() reads the configured file.
    configureEnergyMatchers({
      budgetsFile: device.options.budgets,
      inconclusive: device.options.inconclusive,
    })
    const results: EnergyResult[] = []
    const progress = progressOf(task.name)
    let auto: OpenWindow | undefined
    let testBaseline: Baseline | undefined
    // Raw data of this test's windows, kept at the end when `artifacts` says so.
    const kept =
      device.options.artifacts === 'never'
        ? undefined
        : new ArtifactStore(join(device.options.artifactsDir, '.staging'))
    if (kept !== undefined)
      device.artifactSink = (window, name, data) => kept.add(window, name, data)
    let failed = false
    try {
      const baseline = async (): Promise<WindowBaseline> =>
        testBaseline ?? (await device.baseline(progress))
      if (device.options.autoWindow) {
        try {
          auto = await device.open(task.name, await baseline(), progress)
        } catch (error) {
          results.push(failedResult(task.name, error))
          throw error
        }
      }
      const dropAuto = async (): Promise<void> => {
        const a = auto
        auto = undefined
        await a?.abort()
      }
      const measuredOutcome = async <T>(
        label: string,
        fn: () => Promise<T> | T,
        execution = true,
      ): Promise<WindowOutcome<T>> => {
        await dropAuto()
        try {
          const outcome = await device.measure(
            label,
            await baseline(),
            async () => fn(),
            progress,
            {
              execution,
            },
          )
          results.push(outcome.result)
          return outcome
        } catch (error) {
          results.push(failedResult(label, error))
          throw error
        }
      }
      const measured = async <T>(
        label: string,
        fn: () => Promise<T> | T,
        execution = true,
      ): Promise<MeasuredEnergyResult> => (await measuredOutcome(label, fn, execution)).result
      const api: EnergyApi = {
        results,
        async measure(fn, options) {
          return new EnergyRun(await measured(options?.label ?? task.name, fn))
        },
        async repeat(n, fn, options = {}) {
          const count = n ?? device.options.repeats
          const label = options.label ?? task.name
          await dropAuto()
          for (let i = 0; i < (options.warmup ?? 1); i++) await fn()
          const runs: MeasuredEnergyResult[] = []
          for (let i = 0; i < count; i++) {
            if (count > 1) progress(`repetition ${i + 1}/${count}`)
            await sleep(options.settleMs ?? 1000)
            runs.push(await measured(`${label} #${i + 1}`, fn))
          }
          return new RepeatedEnergyRun(runs)
        },
        async baseline(options) {
          const durationMs = options?.durationMs ?? device.idleWindowMs
          // An idle window: nothing of the app's to sample.
          const idle = await measuredOutcome('idle baseline', () => sleep(durationMs), false)
          // The idle level, not the mean: work still running at the start must not raise it.
          testBaseline = {
            kind: 'configured',
            powerW: idlePowerW({
              window: idle.result.window,
              power: idle.power.kind === 'series' ? idle.power.series : idle.power.rails,
            }),
          }
          return new EnergyRun(idle.result)
        },
      }
      await use(api)
      if (auto !== undefined) {
        const a = auto
        auto = undefined
        try {
          results.push(await a.close())
        } catch (error) {
          results.push(failedResult(task.name, error))
          throw error
        }
      }
      // Budgets (docs/budgets.md): check the test's net energy once its windows are closed.
      if (device.options.checkBudgets && !budgetUpdateMode()) {
        checkTestBudget(results, {
          testPath: task.file.filepath,
          name: task.fullTestName ?? task.name,
          budgetsFile: device.options.budgets,
          inconclusive: device.options.inconclusive,
        })
      }
    } catch (error) {
      failed = true
      throw error
    } finally {
      await auto?.abort().catch(() => undefined)
      task.meta.energy = summarize(results)
      device.artifactSink = undefined
      // Released here too (idempotent), not only by `phone`: Vitest stops running fixture
      // teardowns at the first that throws, and this one throws to fail the test (a window that
      // could not close, a budget exceeded). Hooks have all run by now.
      await phone.release()
      const keep =
        device.options.artifacts === 'always' ||
        (device.options.artifacts === 'on-failure' &&
          (failed || task.result?.state === 'fail' || results.some((r) => r.status === 'failed')))
      if (kept !== undefined && keep && kept.count > 0) {
        // Never let a full disk hide the test's own outcome: say so and go on.
        await kept
          .keep({
            dir: device.options.artifactsDir,
            testFile: task.file.name,
            testName: task.fullTestName ?? task.name,
          })
          .then((folder) => {
            const shown = relative(process.cwd(), folder)
            progress(`raw data kept in ${shown.startsWith('..') ? folder : shown}`)
          })
          .catch((error: unknown) =>
            progress(`could not keep all the raw data: ${(error as Error).message}`),
          )
      } else {
        await kept?.discard()
      }
    }
  },
})

/** The progress line of a test: what it waits for or works on, on stderr. */
function progressOf(testName: string): (message: string) => void {
  return (message) => void process.stderr.write(`  ⋯ ${testName}: ${message}\n`)
}

/** `vitest -u` (the snapshot state's update mode) or VITEST_ENERGY_UPDATE=1: budgets get rewritten. */
function budgetUpdateMode(): boolean {
  const state = expect.getState() as unknown as { snapshotState?: { _updateSnapshot?: unknown } }
  return isUpdateRequested(process.env) || state.snapshotState?._updateSnapshot === 'all'
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
