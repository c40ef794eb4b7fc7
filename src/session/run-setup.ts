/**
 * A run's setup, once in the main process before any test file, whichever runner runs the tests:
 * decides which phone(s) the run uses, checks that the app under test is on each of them, starts
 * the Appium server and makes the run's folder (what workers share about a phone). A configured
 * serial or an attached phone wins; when no phone is configured or attached, the bundled virtual
 * device starts (and says so in one line). This file is the only one in src/session that may
 * import the virtual device, and only to start it: tests reach it over adb.
 */
import { existsSync, rmSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import {
  adbServerName,
  connectAdb,
  DeviceErrors,
  oneAdbServer,
  phoneKey,
  removeRunLeasesSync,
  shell,
} from '../device/index.js'
import { closeLeaseStores, openLeaseStore } from '../lab/index.js'
import { EnergyError } from '../model/index.js'
import { clearStaleStaging } from './artifacts.js'
import type { ResolvedEnergyOptions } from './options.js'
import { choosePhones } from './phones.js'
import { MEASURED_MARKER, type DeviceTarget, type ProvidedEnergyOptions } from './target.js'

/** A started run: where its phones are, and how to end it. */
export interface StartedRun {
  readonly target: DeviceTarget
  /** Stops what the setup started and removes the run's folder. Never throws. */
  close(): Promise<void>
  /**
   * The synchronous part of `close()`, for an exiting process (Ctrl-C): the run's folder and the
   * phone locks of its workers (killed mid-test, they cannot remove their own). The simulated
   * phones and Appium live in this process and end with it.
   */
  closeSync(): void
  /** Whether a test process has measured an energy window in this run (before `close()`). */
  measured(): boolean
  /**
   * Before a watch-mode rerun: forget what the phones' first windows learnt (the idle baseline,
   * the clock offsets), so each run measures its own, as `vitest run` does — the phone may have
   * changed since (a setting a test left, its temperature).
   */
  startOver(): Promise<void>
}

/**
 * Starts the run. A failure stops what was started and is thrown as it is (the caller prints
 * setup mistakes without a stack). `options.artifactsDir` is absolute.
 */
export async function startRun(options: ProvidedEnergyOptions): Promise<StartedRun> {
  const cleanups: (() => Promise<void>)[] = []
  const close = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
    cleanups.length = 0
  }
  try {
    // Raw data a killed run left half-written (artifacts.ts spills big windows there while a test runs).
    await clearStaleStaging(options.artifactsDir)
    const runDir = await mkdtemp(join(tmpdir(), 'vitest-energy-run-'))
    let removed = false
    const closeSync = (): void => {
      if (removed) return
      removed = true
      removeRunLeasesSync(runDir)
      rmSync(runDir, { recursive: true, force: true })
    }
    // A process that exits without its teardown (Ctrl-C) leaves nothing on disk.
    process.once('exit', closeSync)
    cleanups.push(async () => {
      process.off('exit', closeSync)
      closeSync()
    })
    const run = runId(process.env) ?? basename(runDir)
    // The store answers before anything else starts: a run without it could not take a phone.
    const store = await openLeaseStore(options.leases, { runDir, run })
    cleanups.push(closeLeaseStores)
    const choice = await choosePhones(options, { adbConfigured: options.adbConfigured })
    let target: Omit<DeviceTarget, 'appium'>
    if (choice.kind === 'real') {
      for (const server of choice.unreachable)
        process.stdout.write(
          `vitest-energy: the adb server ${adbServerName(server)} does not answer; this run measures on the ${choice.phones.length} phone${choice.phones.length === 1 ? '' : 's'} of the other servers (vitest-energy doctor checks every server)\n`,
        )
      target = { phones: choice.phones, run, virtual: false, runDir }
    } else {
      const { startVirtualDevice } = await import('../virtual-device/index.js')
      const vdev = await startVirtualDevice({
        ...(options.virtualDevice.appModel === null ? {} : { app: options.virtualDevice.appModel }),
        devices: choice.devices,
        seed: options.virtualDevice.seed,
        // Without rails, on battery: a fuel gauge cannot measure while USB charges the phone.
        ...(options.virtualDevice.rails ? {} : { odpm: false, charger: 'none' as const }),
      })
      cleanups.push(() => vdev.close())
      const n = vdev.serials.length
      process.stdout.write(
        `vitest-energy: ${choice.why}; using the virtual device (${n} simulated phone${n === 1 ? '' : 's'}${options.virtualDevice.rails ? '' : ' without power rails, a fuel gauge only'}) on 127.0.0.1:${vdev.port}\n`,
      )
      target = {
        phones: vdev.serials.map((serial) => ({ host: vdev.host, port: vdev.port, serial })),
        run,
        virtual: true,
        runDir,
      }
    }
    if (options.leases.store !== 'files')
      process.stdout.write(
        `vitest-energy: leases in ${store.description} (run ${run}); a pool of ${target.phones.length} phone${target.phones.length === 1 ? '' : 's'}\n`,
      )
    await assertAppInstalled(options, target)
    const appium = await startAppium(options, target.virtual)
    if (appium !== undefined) cleanups.push(() => appium.close())
    return {
      target: { ...target, ...(appium ? { appium: appium.address } : {}) },
      close,
      closeSync,
      measured: () => existsSync(join(runDir, MEASURED_MARKER)),
      startOver: () => store.forgetRun(),
    }
  } catch (error) {
    await close()
    throw error
  }
}

/**
 * Fails the run before any test when the app under test is missing from a phone: otherwise every
 * test fails on its own (or, without `driver`, passes measuring an idle phone).
 */
async function assertAppInstalled(
  options: ResolvedEnergyOptions,
  target: Omit<DeviceTarget, 'appium'>,
): Promise<void> {
  const missing: string[] = []
  const one = oneAdbServer(target.phones)
  for (const phone of target.phones) {
    const client = await connectAdb(phone)
    const result = await shell(client.device(phone.serial), ['pm', 'path', options.app])
    if (result.exitCode !== 0 || !/^package:/m.test(result.stdout))
      missing.push(one ? phone.serial : phoneKey(phone))
  }
  if (missing.length === 0) return
  throw new EnergyError({
    code: DeviceErrors.APP_NOT_INSTALLED,
    message: `${options.app} is not installed on ${missing.join(', ')}${target.virtual ? ' (the virtual device runs the app model given in virtualDevice.appModel; the bundled one is com.example.trails)' : ''}`,
    hint: target.virtual
      ? "Set app to the package of the virtual device's app model, or give virtualDevice.appModel an app model whose package is your app."
      : 'Install the app under test (`adb install -r app.apk`), or correct the `app` option (`adb shell pm list packages` lists what is installed).',
    details: { package: options.app, serials: missing.join(', ') },
  })
}

/**
 * The id the runners of one run share: VITEST_ENERGY_RUN_ID, else the CI's own id of the pipeline
 * (GitHub Actions: run and attempt; GitLab: pipeline), else none (each runner is its own run).
 */
export function runId(env: NodeJS.ProcessEnv): string | undefined {
  const given = env['VITEST_ENERGY_RUN_ID']
  if (given !== undefined && given !== '') return given
  if (env['GITHUB_RUN_ID'] !== undefined)
    return `github-${env['GITHUB_RUN_ID']}-${env['GITHUB_RUN_ATTEMPT'] ?? '1'}`
  if (env['CI_PIPELINE_ID'] !== undefined) return `gitlab-${env['CI_PIPELINE_ID']}`
  return undefined
}

/** Starts Appium on a free loopback port for the tests' `driver`, unless `appium: false`. */
async function startAppium(
  options: ResolvedEnergyOptions,
  virtual: boolean,
): Promise<{ address: { host: string; port: number }; close: () => Promise<void> } | undefined> {
  if (options.appium === false) return undefined
  const { adbClientAvailable, startAppiumServer } = await import('./appium-server.js')
  if (options.appium.automationName === null && virtual && !adbClientAvailable()) {
    process.stdout.write(
      'vitest-energy: no adb client on this machine, so the virtual device is driven with the VirtualDevice driver; install adb (apt-get install adb, or the Android SDK platform-tools) to use UiAutomator2, as on a real phone\n',
    )
  }
  const server = await startAppiumServer()
  return { address: { host: server.host, port: server.port }, close: () => server.close() }
}
