/**
 * Runs once in the main process before any test file: decides which device(s) the run uses and
 * tells the workers. A configured serial or an attached phone wins; when no phone is configured or
 * attached, the bundled virtual device starts (and says so in one line). This file is the only one
 * in src/vitest that may import the virtual device, and only to start it: tests reach it over adb.
 */
import type { TestProject } from 'vitest/node'
import { connectAdb, isListening, listDevices } from '../device/index.js'
import { EnergyError } from '../model/index.js'
import { clearStaleStaging } from './artifacts.js'
import { OPTIONS_KEY, TARGET_KEY, type DeviceTarget } from './context.js'
import type { ResolvedEnergyOptions } from './options.js'

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const options = project.getProvidedContext()[OPTIONS_KEY]
  if (options === undefined) {
    throw new EnergyError({
      code: 'E_PLUGIN_MISSING',
      message: 'the vitest-energy global setup ran without the plugin’s options',
      hint: "Add the plugin: plugins: [energy({ app: 'com.example.app' })] in vitest.config.ts.",
    })
  }
  // Raw data a killed run left half-written (artifacts.ts spills big windows there while a test runs).
  await clearStaleStaging(options.artifactsDir)
  const real = await realTarget(options)
  if (real !== undefined) {
    const appium = await startAppium(options)
    project.provide(TARGET_KEY, { ...real, ...(appium ? { appium: appium.address } : {}) })
    return async () => {
      await appium?.close()
    }
  }
  const { startVirtualDevice } = await import('../virtual-device/index.js')
  const vdev = await startVirtualDevice({
    ...(options.virtualDevice.appModel === null ? {} : { app: options.virtualDevice.appModel }),
    devices: options.virtualDevice.devices,
    seed: options.virtualDevice.seed,
  })
  const why = options.device === 'virtual' ? 'as configured' : 'no phone attached'
  process.stdout.write(
    `vitest-energy: ${why}; using the virtual device (${vdev.serials.length} simulated phone${vdev.serials.length === 1 ? '' : 's'}) on 127.0.0.1:${vdev.port}\n`,
  )
  let appium: Awaited<ReturnType<typeof startAppium>>
  try {
    appium = await startAppium(options)
  } catch (error) {
    await vdev.close()
    throw error
  }
  const target: DeviceTarget = {
    host: '127.0.0.1',
    port: vdev.port,
    serials: [...vdev.serials],
    virtual: true,
    ...(appium ? { appium: appium.address } : {}),
  }
  project.provide(TARGET_KEY, target)
  return async () => {
    await appium?.close()
    await vdev.close()
  }
}

/** Starts Appium on a free loopback port for the `driver` fixture, unless `appium: false`. */
async function startAppium(
  options: ResolvedEnergyOptions,
): Promise<{ address: { host: string; port: number }; close: () => Promise<void> } | undefined> {
  if (options.appium === false) return undefined
  const { startAppiumServer } = await import('./appium-server.js')
  const server = await startAppiumServer()
  return { address: { host: server.host, port: server.port }, close: () => server.close() }
}

/** A real adb server with phones ready, or undefined when the virtual device should be used. */
async function realTarget(options: ResolvedEnergyOptions): Promise<DeviceTarget | undefined> {
  if (options.device === 'virtual') return undefined
  const { host, port } = options.adb
  const listening = await isListening(host, port, 500)
  if (!listening) {
    if (options.device === 'auto') return undefined
    throw new EnergyError({
      code: 'E_ADB_UNREACHABLE',
      message: `device ${options.device} was configured, but no adb server answers on ${host}:${port}`,
      hint: 'Start one with `adb start-server`, or set device: "virtual" to use the simulated phone.',
    })
  }
  const devices = (await listDevices(await connectAdb({ host, port }))).filter(
    (d) => d.state === 'device',
  )
  if (options.device === 'auto') {
    if (devices.length === 0) return undefined
    return { host, port, serials: devices.map((d) => d.serial), virtual: false }
  }
  if (!devices.some((d) => d.serial === options.device)) {
    throw new EnergyError({
      code: 'E_NO_DEVICE',
      message: `device ${options.device} is not attached and ready (attached: ${devices.map((d) => d.serial).join(', ') || 'none'})`,
      hint: 'Check `adb devices`; accept the USB debugging prompt on the phone if it shows "unauthorized".',
    })
  }
  return { host, port, serials: [options.device], virtual: false }
}
