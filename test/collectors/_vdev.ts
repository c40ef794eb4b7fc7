/** Shared helpers: a virtual device reached only through adbkit (src/device), and its ground truth. */
import { connectAdb, shell, type AdbDevice } from '../../src/device/index.js'
import type { CollectorContext } from '../../src/collectors/index.js'
import type { PowerSample } from '../../src/model/index.js'
import type { GroundTruth } from '../../src/virtual-device/index.js'

export async function adbDevice(port: number, serial: string): Promise<AdbDevice> {
  return (await connectAdb({ port })).device(serial)
}

export function contextFor(device: AdbDevice, windowId = 'w1'): CollectorContext {
  return { device, app: 'com.example.trails', deviceDir: '/data/local/tmp/vitest-energy', windowId }
}

export async function run(device: AdbDevice, command: string): Promise<string> {
  const r = await shell(device, ['sh', '-c', command])
  if (r.exitCode !== 0) throw new Error(`${command} exited ${r.exitCode}: ${r.stdout}`)
  return r.stdout
}

export async function nowNs(device: AdbDevice): Promise<number> {
  return Number((await run(device, 'vdev now')).trim())
}

export async function groundTruth(
  device: AdbDevice,
  fromNs: number,
  toNs: number,
): Promise<GroundTruth> {
  return JSON.parse(
    await run(device, `vdev ground-truth --from ${Math.round(fromNs)} --to ${Math.round(toNs)}`),
  ) as GroundTruth
}

/** Trapezoid energy of a series, J. */
export function trapezoidJ(samples: readonly PowerSample[]): number {
  let e = 0
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!
    const b = samples[i]!
    e += ((a.powerW + b.powerW) / 2) * ((b.tNs - a.tNs) / 1e9)
  }
  return e
}

/** Demo-app taps (bounds from test/fixtures/virtual-device/trails-app.json). */
export const TAP = {
  refresh: 'input tap 920 155',
  navSync: 'input tap 540 2325',
  syncNow: 'input tap 540 485',
  navSettings: 'input tap 756 2325',
  brightnessHigh: 'input tap 290 485',
} as const
