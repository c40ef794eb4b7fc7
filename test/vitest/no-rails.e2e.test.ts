// A phone without power rails, end to end: a virtual phone with only a fuel gauge (a Pixel's
// Maxim gauge, so that the calibration's phases stay short), on battery, whose silicon departs from
// the power profile it keeps in its framework-res.apk overlay. A Vitest project reached by serial
// and adb port reads that profile from the phone, calibrates the CPU model with busy loops when its
// first test takes the phone, and reports per-method energy with where it came from; the figures
// are checked against the phone's ground truth.
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'
import type { MeasuredEnergyResult } from '../../src/model/index.js'
import {
  startVirtualDevice,
  type GroundTruth,
  type VirtualDeviceServer,
} from '../../src/virtual-device/index.js'
import { energyRunArgs, projectEnv } from './_project-env.js'

const root = fileURLToPath(new URL('../fixtures/no-rails-project/', import.meta.url))
const vitestBin = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))
const cli = fileURLToPath(new URL('../../bin/vitest-energy.js', import.meta.url))

let phone: VirtualDeviceServer
let dir: string

beforeAll(async () => {
  phone = await startVirtualDevice({
    odpm: false,
    charger: 'none',
    sensors: { profile: 'pixel' },
    seed: 7,
    serialPrefix: 'norails',
  })
  dir = await mkdtemp(join(tmpdir(), 'vitest-energy-norails-'))
})

afterAll(async () => {
  await phone?.close()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

/**
 * Runs the project on the phone (calibration: 'keep'), its reports and kept files in `dir`; its
 * output and its progress lines (on stderr outside a terminal).
 */
async function runProject(): Promise<string> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [vitestBin, ...energyRunArgs(dir)],
      {
        cwd: root,
        env: projectEnv(dir, {
          PHONE_SERIAL: phone.serials[0] ?? '',
          PHONE_ADB_PORT: String(phone.port),
          CALIBRATION: 'keep',
        }),
        timeout: 240_000,
      },
    )
    return `${stdout}\n${stderr}`
  } catch (error) {
    throw new Error(`the project failed:\n${(error as { stdout?: string }).stdout ?? error}`)
  }
}

test('the profile from the phone, a calibration, and per-method energy that is the CPU model’s', async () => {
  const stdout = await runProject()
  expect(stdout).toMatch(/calibrating the CPU model of norails-0001/)
  // The terminal says where methods' energy came from.
  expect(stdout).toMatch(/methods: CPU model calibrated on the phone; profile: /)
  expect(stdout).toMatch(
    /CPU model Pixel 6 \(virtual\) \(norails-0001\): calibrated with busy loops \(little [\d.]+×, mid [\d.]+×, big [\d.]+× the profile's currents; cpu\.active [\d.]+×\)$/m,
  )
  expect(stdout).toMatch(/profile: .*overlay.*\.apk/)
  const report = JSON.parse(await readFile(join(dir, 'energy.json'), 'utf8')) as EnergyReport
  const windows = report.tests.flatMap((t) =>
    t.results.filter((r): r is MeasuredEnergyResult => r.status === 'measured'),
  )
  expect(windows).toHaveLength(2)
  const errors: number[] = []
  const device = phone.devices[0]
  if (device === undefined) throw new Error('no phone')
  // cpu.active, which the phase's short spans tell only roughly, is this phone's and not the
  // profile's: its silicon draws 0.71× the profile's current; keeping 1 overcharged every light
  // method by ~8%.
  const trueActive = device.phone.silicon.cpuActive.factor
  expect(Math.abs(trueActive - 1)).toBeGreaterThan(0.2)
  for (const w of windows) {
    expect(w.sources.power).toBe('fuel-gauge')
    expect(w.sources.methodEnergy?.kind).toBe('cpu-model')
    expect(w.sources.methodEnergy?.calibration).toBe('active')
    expect(w.sources.methodEnergy?.profile).toMatch(/overlay/)
    const activeScale = w.sources.methodEnergy?.activeScale ?? 1
    expect(Math.abs(activeScale - trueActive), 'cpu.active').toBeLessThan(
      Math.abs(1 - trueActive) / 2,
    )
    // The rest of the phone as components: the CPU model's, the screen and radios modelled from
    // the battery history, and what the gauge measured beyond them; together the gross.
    const components = new Map(w.components.map((c) => [c.component, c.energyJ]))
    expect(components.get('cpu')).toBeGreaterThan(0)
    expect(components.get('screen')).toBeGreaterThan(0)
    expect([...components.values()].reduce((a, j) => a + j, 0)).toBeCloseTo(w.grossEnergyJ, 6)
    // The phone's own account of the same window.
    const truth: GroundTruth = device.phone.sim.groundTruth(w.window.startNs, w.window.endNs)
    expect(Math.abs(w.grossEnergyJ / truth.totalEnergyJ - 1), 'gross').toBeLessThan(0.03)
    const own = truth.methods.filter(
      (m) =>
        m.method.startsWith('com.example.trails.') &&
        m.inclusiveEnergyJ >= 0.1 * truth.appCpuEnergyJ &&
        m.selfEnergyJ >= 0.05 * m.inclusiveEnergyJ,
    )
    expect(own.length).toBeGreaterThan(0)
    for (const m of own) {
      const estimate = w.methods.find((x) => x.method === m.method)
      expect(estimate, m.method).toBeDefined()
      const error = Math.abs((estimate?.inclusiveEnergyJ ?? 0) / m.inclusiveEnergyJ - 1)
      errors.push(error)
      // Each method: no order-of-magnitude slip (the screen's or a radio's energy on a method).
      // Measured: 0.1–3.2% on a quiet machine (24 method-windows, 4 runs), up to 6.6% with two
      // busy loops beside it; before cpu.active was calibrated, 0.3–9.8%, and 16.7% once under
      // the whole suite's load.
      expect(error, m.method).toBeLessThan(0.2)
      // Never the screen's or a radio's: a method's figure is its own CPU work.
      expect(estimate?.localEnergyJ ?? 0).toBeGreaterThanOrEqual(0)
    }
  }
  // Together: measured 0.019 quiet, 0.020–0.033 loaded (≈ 0.06 before cpu.active was calibrated).
  // The accuracy benchmark's target for this figure is 0.10 (docs/accuracy.md).
  const mmre = errors.reduce((a, e) => a + e, 0) / errors.length
  expect(mmre, `per-method MMRE over ${errors.length} method-windows`).toBeLessThan(0.07)
}, 300_000)

test("calibration: 'keep' — the next run on the same phone model and build reuses it", async () => {
  expect(await readdir(join(dir, 'calibration'))).toHaveLength(1)
  const stdout = await runProject()
  expect(stdout).not.toMatch(/calibrating the CPU model/)
  expect(stdout).toMatch(/methods: CPU model calibrated on the phone/)
}, 300_000)

test('doctor on the same phone names the profile it found and how methods are measured', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      cli,
      'doctor',
      '-P',
      String(phone.port),
      '--serial',
      phone.serials[0] ?? '',
      '--app',
      'com.example.trails',
    ],
    { timeout: 120_000 },
  ).catch((error: { stdout: string }) => ({ stdout: error.stdout }))
  expect(stdout).toMatch(/power profile/i)
  expect(stdout).toMatch(/overlay.*\.apk/)
  expect(stdout).toMatch(/CPU model/)
}, 180_000)

test("virtualDevice: { rails: false } — the plugin's own virtual phone measures with its fuel gauge", async () => {
  const own = await mkdtemp(join(tmpdir(), 'vitest-energy-norails-own-'))
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [vitestBin, ...energyRunArgs(own)],
      {
        cwd: root,
        // Without a calibration: this is about the phone the option gives, not the model's scales.
        env: projectEnv(own, { VIRTUAL_NO_RAILS: '1', CALIBRATION: 'none' }),
        timeout: 240_000,
      },
    )
    expect(stdout).toMatch(
      /using the virtual device \(1 simulated phone without power rails, a fuel gauge only\)/,
    )
    const report = JSON.parse(await readFile(join(own, 'energy.json'), 'utf8')) as EnergyReport
    const windows = report.tests.flatMap((t) =>
      t.results.filter((r): r is MeasuredEnergyResult => r.status === 'measured'),
    )
    expect(windows).toHaveLength(2)
    for (const w of windows) {
      expect(w.sources.power).toBe('fuel-gauge')
      expect(w.sources.methodEnergy?.kind).toBe('cpu-model')
    }
  } finally {
    await rm(own, { recursive: true, force: true })
  }
}, 300_000)
