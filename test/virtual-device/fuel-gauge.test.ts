/**
 * The fuel gauge profiles as the product sees them: `cat` of the sysfs nodes over ADB on a phone in
 * fast mode. Each profile's update period and quantum, and a period-average register against the
 * ground truth of its period (docs/virtual-device.md, "Fuel gauge").
 */
import { describe, expect, onTestFinished, test } from 'vitest'
import { connectAdb, shellScript, type AdbDevice } from '../../src/device/index.js'
import {
  GAUGE_PROFILE_MODELS,
  startVirtualDevice,
  type FuelGaugeOptions,
  type GaugeProfile,
  type VirtualDeviceServer,
} from '../../src/virtual-device/index.js'

const NODE = '/sys/class/power_supply/battery'

/** A phone on battery in fast time with this gauge, closed when the test ends. */
async function phone(
  sensors: FuelGaugeOptions,
  seed = 5,
): Promise<{ device: AdbDevice; server: VirtualDeviceServer }> {
  const server = await startVirtualDevice({ time: 'fast', seed, charger: 'none', sensors })
  onTestFinished(() => server.close())
  const device = (await connectAdb({ port: server.port })).device(server.serials[0] ?? '')
  return { device, server }
}

/** One line of `vdev now` and the nodes' values, every `stepS` of device time, `count` times. */
async function sample(
  device: AdbDevice,
  nodes: readonly string[],
  stepS: number,
  count: number,
): Promise<{ tNs: number; values: number[] }[]> {
  const cats = nodes.map((n) => `${NODE}/${n}`).join(' ')
  const loop = Array.from({ length: count }, (_, i) => i).join(' ')
  const { stdout } = await shellScript(
    device,
    `for i in ${loop}; do vdev now; cat ${cats}; sleep ${stepS}; done`,
  )
  const lines = stdout.trim().split('\n').map(Number)
  const rows: { tNs: number; values: number[] }[] = []
  for (let i = 0; i + nodes.length < lines.length + 1; i += nodes.length + 1) {
    rows.push({ tNs: lines[i] ?? Number.NaN, values: lines.slice(i + 1, i + 1 + nodes.length) })
  }
  return rows
}

/** Device times at which the first node's value changed. */
function changes(rows: readonly { tNs: number; values: number[] }[]): number[] {
  const at: number[] = []
  for (let i = 1; i < rows.length; i++) {
    if (rows[i]?.values[0] !== rows[i - 1]?.values[0]) at.push(rows[i]?.tNs ?? 0)
  }
  return at
}

/** Load for the gauge to see: the app started, a tap that does CPU work and a Wi-Fi burst. */
async function work(device: AdbDevice): Promise<void> {
  await shellScript(
    device,
    'am start -W -n com.example.trails/.MainActivity; input tap 540 1240; input tap 920 155',
  )
}

/** What each profile's `current_now` looks like through cat: its period and its quantum. */
const SEEN: Record<
  GaugeProfile,
  { periodS: number; stepS: number; count: number; unit: 'uA' | 'mA'; quantum: number }
> = {
  typical: { periodS: 1, stepS: 0.05, count: 200, unit: 'uA', quantum: 150 },
  pixel: { periodS: 0.1758, stepS: 0.01, count: 400, unit: 'uA', quantum: 312.5 },
  samsung: { periodS: 0.1758, stepS: 0.01, count: 400, unit: 'mA', quantum: 1 },
  oplus: { periodS: 10, stepS: 0.5, count: 100, unit: 'mA', quantum: 1 },
  'ti-bq27xxx': { periodS: 1, stepS: 0.05, count: 200, unit: 'uA', quantum: 1000 },
  'mediatek-legacy': { periodS: 1, stepS: 0.05, count: 200, unit: 'mA', quantum: 1 },
}

describe('each profile through cat over ADB', () => {
  test.each(Object.keys(SEEN) as GaugeProfile[])(
    '%s: update period and quantum',
    async (profile) => {
      const seen = SEEN[profile]
      // Noise well above the quantum, so that every update shows as a new value.
      const { device } = await phone({ profile, noiseUa: 20_000 })
      await work(device)
      const rows = await sample(device, ['current_now'], seen.stepS, seen.count)
      const at = changes(rows)
      expect(at.length, 'updates seen').toBeGreaterThanOrEqual(4)
      // An update may repeat the last value (quantized noise): a gap is then a whole number of
      // periods. The gauge's own clock drifts within ±0.5% with the phone physics, and a change is
      // seen at the first sample after it.
      const gapsS = at.slice(1).map((t, i) => (t - (at[i] ?? 0)) / 1e9)
      const periods = gapsS.map((g) => Math.max(1, Math.round(g / seen.periodS)))
      for (const [i, g] of gapsS.entries()) {
        const m = periods[i] ?? 1
        expect(Math.abs(g - m * seen.periodS), `gap ${g} s`).toBeLessThan(
          m * seen.periodS * 0.01 + seen.stepS + 1e-6,
        )
      }
      expect(periods.filter((m) => m === 1).length, 'most gaps one period').toBeGreaterThan(
        0.8 * periods.length,
      )
      const meanS = gapsS.reduce((a, b) => a + b, 0) / periods.reduce((a, b) => a + b, 0)
      expect(Math.abs(meanS - seen.periodS), `mean period ${meanS} s`).toBeLessThan(
        seen.periodS * 0.01 + seen.stepS / gapsS.length,
      )
      const values = rows.map((r) => r.values[0] ?? Number.NaN)
      for (const v of values) {
        expect(Number.isInteger(v), `${v} is an integer`).toBe(true)
        // On the quantum's lattice (µA values of a fractional quantum are truncated).
        expect(Math.abs(v - Math.round(v / seen.quantum) * seen.quantum)).toBeLessThan(1)
        // Discharging, kernel sign; µA values are ≥ 20 000 in magnitude, mA ones below.
        expect(v, 'negative while discharging').toBeLessThan(0)
        expect(Math.abs(v) >= 20_000, `${v} read as ${seen.unit}`).toBe(seen.unit === 'uA')
      }
      // The lattice is the quantum itself, not a multiple of it.
      expect(values.some((v) => Math.round(v / seen.quantum) % 2 !== 0)).toBe(true)
    },
  )
})

describe('a period-average register against the ground truth', () => {
  test.each(['typical', 'pixel', 'ti-bq27xxx', 'samsung'] as const)(
    '%s: current_now is the average power of the period before its update over voltage_now',
    async (profile) => {
      const { device, server } = await phone({ profile, noiseUa: 0, clockDrift: 0 })
      const battery = server.devices[0]?.phone.battery
      if (battery === undefined) throw new Error('no phone')
      const model = GAUGE_PROFILE_MODELS[profile]
      const periodNs = model.periodMs * 1e6
      let checked = 0
      for (let i = 0; i < 8; i++) {
        await work(device)
        const { stdout } = await shellScript(
          device,
          `sleep 0.${3 + i}; vdev now; cat ${NODE}/current_now ${NODE}/voltage_now`,
        )
        const [nowNs = 0, current = 0, voltageUv = 0] = stdout.trim().split('\n').map(Number)
        const updateNs = battery.read(nowNs).updateNs
        const truth = JSON.parse(
          (
            await shellScript(
              device,
              `vdev ground-truth --from ${Math.round(updateNs - periodNs)} --to ${updateNs}`,
            )
          ).stdout,
        ) as { totalEnergyJ: number }
        const powerW = truth.totalEnergyJ / (periodNs / 1e9)
        const expectedUa = -(powerW / (voltageUv / 1e6)) * 1e6
        const perUnit = model.currentUnit === 'mA' ? 1000 : 1
        // Within half a quantum, and the truncation to whole units.
        expect(Math.abs(current * perUnit - expectedUa), `${profile} at ${nowNs}`).toBeLessThan(
          model.currentStepUa / 2 + perUnit + 1e-6,
        )
        checked++
      }
      expect(checked).toBe(8)
    },
  )
})
