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
 *
 * What a test's energy does lives in `src/session/` (shared with the Jest environment); this file
 * maps it onto Vitest's fixtures.
 */
// The `WebdriverIO` namespace of `driver`'s type is webdriverio's global declaration: referenced
// (and kept in the emitted .d.ts) so that a user's project sees it without importing webdriverio.
/// <reference types="webdriverio" preserve="true" />
import { expect, inject, test as baseTest } from 'vitest'
import { isUpdateRequested, providedBudgetWriter } from '../budgets/index.js'
import type { Lease } from '../device/index.js'
import { EnergyError } from '../model/index.js'
import { endDriver, startDriver } from '../session/appium.js'
import { DeviceSession } from '../session/device-session.js'
import { ProgressChannel, TestProgress } from '../session/progress.js'
import { TestEnergy, type EnergyApi, type WindowEndBehind } from '../session/test-energy.js'
import { leaveBehind } from './behind.js'
import {
  BUDGET_WRITER_KEY,
  LATE_RESULTS_KEY,
  OPTIONS_KEY,
  PROGRESS_KEY,
  TARGET_KEY,
} from './context.js'
import { appendLateResult } from '../../reporter/late-results.js'
import { markEnergyTest } from './wrong-import.js'
import { expectedError } from '../session/call-site.js'

export interface WorkerFixtures {
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

/** Each test's progress, made with its lease by `phone`, for its `energy`. */
const testProgress = new WeakMap<object, TestProgress>()

export const test = baseTest.extend<TestFixtures & WorkerFixtures>({
  device: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const options = inject(OPTIONS_KEY)
      const target = inject(TARGET_KEY)
      if (options === undefined || target === undefined) {
        throw new EnergyError({
          code: 'E_PLUGIN_MISSING',
          message: 'the energy fixtures need the vitest-energy plugin',
          hint: "Add plugins: [energy({ app: 'com.example.app' })] from 'vitest-energy/plugin' to vitest.config.ts.",
        })
      }
      const poolId = Number(process.env['VITEST_POOL_ID'] ?? '1')
      await use(await DeviceSession.open(options, target, poolId))
    },
    { scope: 'worker' },
  ],
  driver: [
    async ({ device }, use) => {
      // Started and ended holding the phone's lease (src/session/appium.ts).
      const browser = await startDriver(device)
      try {
        await use(browser)
      } finally {
        await endDriver(device, browser)
      }
    },
    { scope: 'worker' },
  ],
  phone: [
    async ({ device, task }, use) => {
      markEnergyTest(task)
      const progress = new TestProgress(ProgressChannel.for(inject(PROGRESS_KEY)?.port), {
        phone: device.serial,
        file: task.file.name,
        name: task.name,
      })
      testProgress.set(task, progress)
      // Taken in the setup file's aroundEach (no timeout): waiting here never fails the test.
      const lease = await device.lease(`${task.file.name} › ${task.name}`, progress)
      try {
        await use(lease)
      } finally {
        await lease.release()
      }
    },
    { auto: true },
  ],
  // `phone` is listed so the lease is held before the first window opens.
  energy: async ({ device, task, phone, onTestFinished }, use) => {
    // Whether the test's onTestFinished callbacks have run (see the end of this fixture).
    let finishedCallbacksRan = false
    onTestFinished(() => {
      finishedCallbacksRan = true
    })
    const energy = new TestEnergy(
      device,
      {
        filePath: task.file.filepath,
        file: task.file.name,
        name: task.name,
        fullName: task.fullTestName ?? task.name,
      },
      {
        updateBudgets: budgetUpdateMode,
        budgetWriter: providedBudgetWriter(inject(BUDGET_WRITER_KEY)),
        progress: testProgress.get(task),
        lateResults: true,
      },
    )
    let failed = false
    let teardownError: unknown
    let used = false
    let behind: WindowEndBehind | undefined
    try {
      await energy.open()
      used = true
      await use(energy.api)
      // A measurement the test left running is settled before the next test takes the phone.
      await energy.settleMeasurements()
      ;({ behind } = await energy.close({ testFailed: task.result?.state === 'fail' }))
    } catch (error) {
      failed = true
      teardownError = error
    } finally {
      await energy.abort()
      task.meta.energy = energy.summary()
      // Released here too (idempotent), not only by `phone`: Vitest stops running fixture
      // teardowns at the first that throws, and this one can throw to fail the test (a window that
      // could not close, a budget exceeded). Hooks have all run by now.
      await phone.release()
      const testFailed = failed || task.result?.state === 'fail'
      if (behind === undefined) await energy.settle(testFailed)
      else {
        // The window's end is read while the next tests run; the file's end waits for it.
        const { settled } = behind
        leaveBehind({
          task,
          device,
          behind,
          done: settled.then(async () => {
            const meta = energy.summary()
            task.meta.energy = meta
            // To the reporter now: a run stopped before the file ends keeps this window.
            const lateDir = inject(LATE_RESULTS_KEY)
            if (lateDir !== undefined) appendLateResult(lateDir, task.id, meta)
            await energy.settle(testFailed)
          }),
        })
      }
    }
    if (!failed) return
    // Vitest 4 reports a teardown that throws twice when an aroundEach hook wraps the test (the
    // setup file's does): a failure thrown from onTestFinished is reported once. Thrown here when
    // those callbacks have run already (the fixture was made for a user's aroundEach), or when the
    // fixture failed before the test started (a setup error, reported once).
    if (!used || finishedCallbacksRan) throw expectedError(teardownError)
    onTestFinished(() => {
      throw expectedError(teardownError)
    })
  },
})

/** `vitest -u` (the snapshot state's update mode) or VITEST_ENERGY_UPDATE=1: budgets get rewritten. */
function budgetUpdateMode(): boolean {
  const state = expect.getState() as unknown as { snapshotState?: { _updateSnapshot?: unknown } }
  return isUpdateRequested(process.env) || state.snapshotState?._updateSnapshot === 'all'
}
