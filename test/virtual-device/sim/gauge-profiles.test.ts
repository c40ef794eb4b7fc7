/**
 * The fuel gauge's behaviours, read through the phone's shell (`cat`, `dumpsys battery`, perfetto):
 * moving averages' step responses, the OPlus cache, charge counter steps, one gauge seen alike
 * everywhere, determinism, and the options' checks (docs/virtual-device.md, "Fuel gauge").
 */
import { describe, expect, test } from 'vitest'
import { decodePowerTrace, formatPerfettoTextConfig } from '../../../src/formats/perfetto/index.js'
import { isEnergyError } from '../../../src/model/index.js'
import { startVirtualDevice } from '../../../src/virtual-device/index.js'
import {
  GAUGE_PROFILE_MODELS,
  parseGaugeAveraging,
  resolveGauge,
  type FuelGaugeOptions,
} from '../../../src/virtual-device/sim/sensors.js'
import { harness, type Harness } from '../commands/_harness.js'

const NODE = '/sys/class/power_supply/battery'

/** `cat`s of the nodes every `stepS` of device time, `count` times: [boottime ns, ...values]. */
async function sample(
  h: Harness,
  nodes: readonly string[],
  stepS: number,
  count: number,
): Promise<number[][]> {
  const rows: number[][] = []
  for (let i = 0; i < count; i++) {
    const out = (await h.sh(`cat ${nodes.map((n) => `${NODE}/${n}`).join(' ')}`)).out
    rows.push([h.clock.nowNs('boottime'), ...out.trim().split('\n').map(Number)])
    await h.sh(`sleep ${stepS}`)
  }
  return rows
}

const num = async (h: Harness, node: string): Promise<number> =>
  Number((await h.sh(`cat ${NODE}/${node}`)).out)

describe('resolveGauge', () => {
  test('typical is the default; options override the profile, the charge counter field by field', () => {
    expect(resolveGauge()).toEqual(GAUGE_PROFILE_MODELS.typical)
    expect(resolveGauge({ profile: 'pixel', updateHz: 5 })).toMatchObject({
      profile: 'pixel',
      periodMs: 200,
      currentStepUa: 312.5,
    })
    const merged = resolveGauge({ chargeCounter: { refreshMs: 5000 } })
    expect(merged.chargeCounter).toEqual({
      stepUah: undefined,
      stepPercent: 1,
      refreshMs: 5000,
      unit: 'uAh',
    })
    expect(
      resolveGauge({ profile: 'samsung', chargeCounter: { stepUah: 500 } }).chargeCounter,
    ).toMatchObject({ stepUah: 500, stepPercent: undefined, refreshMs: 30_000 })
    expect(resolveGauge({ profile: 'oplus', cache: 'none' }).cache).toBe('none')
  })

  test('parseGaugeAveraging reads the CLI forms', () => {
    expect(parseGaugeAveraging('period')).toEqual({ kind: 'period' })
    expect(parseGaugeAveraging('iir:11250')).toEqual({ kind: 'iir', tauMs: 11_250 })
    expect(parseGaugeAveraging('boxcar:2000')).toEqual({ kind: 'boxcar', windowMs: 2000 })
    for (const bad of ['iir', 'iir:', 'iir:-1', 'iir:0', 'median:5', 'boxcar:1e3']) {
      expect(parseGaugeAveraging(bad), bad).toBeUndefined()
    }
  })

  const BAD: [string, unknown, string][] = [
    ['profile', { profile: 'nokia' }, 'must be one of typical, pixel, samsung'],
    ['updateHz', { updateHz: 0 }, 'must be a finite number > 0'],
    ['updateHz', { updateHz: 5, periodMs: 200 }, 'give one'],
    ['periodMs', { periodMs: Number.NaN }, 'must be a finite number > 0'],
    ['periodMs', { periodMs: 0.5 }, 'from 1 ms to 1 h'],
    ['averaging.kind', { averaging: { kind: 'median' } }, 'must be one of period, instant'],
    ['averaging', { averaging: 'iir' }, "must be { kind: 'period'"],
    ['averaging.windowMs', { averaging: { kind: 'boxcar', windowMs: -1 } }, '> 0'],
    ['averaging.tauMs', { averaging: { kind: 'iir' } }, '> 0'],
    ['averaging.tauMs', { periodMs: 1, averaging: { kind: 'iir', tauMs: 10_000 } }, '2000'],
    ['currentAvg.tauMs', { currentAvg: { kind: 'iir', tauMs: 0 } }, '> 0'],
    ['currentStepUa', { currentStepUa: -1 }, '≥ 0'],
    ['noiseUa', { noiseUa: Number.POSITIVE_INFINITY }, '≥ 0'],
    ['currentSign', { currentSign: 'up' }, 'kernel, flipped'],
    ['currentUnit', { currentUnit: 'A' }, 'uA, mA'],
    ['cache', { cache: 'sometimes' }, "'none' or { periodMs"],
    ['cache.periodMs', { cache: { periodMs: 0 } }, '> 0'],
    [
      'cache.bypassWhileCharging',
      { cache: { periodMs: 1, bypassWhileCharging: 1 } },
      'true or false',
    ],
    ['chargeCounter', { chargeCounter: { stepUah: 1, stepPercent: 1 } }, 'not both'],
    ['chargeCounter.stepPercent', { chargeCounter: { stepPercent: 150 } }, 'at most 100'],
    ['chargeCounter.refreshMs', { chargeCounter: { refreshMs: -5 } }, '≥ 0'],
    ['chargeCounter.unit', { chargeCounter: { unit: 'mAh' } }, 'uAh, percent'],
    ['initialSoc', { initialSoc: 1.5 }, 'from 0 to 1'],
    ['chargeCurrentUa', { chargeCurrentUa: -1 }, '≥ 0'],
    ['node', { node: '../power' }, 'a directory name'],
    ['clockDrift', { clockDrift: 0.7 }, '(−0.5, 0.5)'],
    ['profle', { profle: 'pixel' }, 'is not an option'],
  ]

  test.each(BAD)('sensors.%s: E_VDEV_BAD_OPTION naming it', (option, sensors, why) => {
    let error: unknown
    try {
      resolveGauge(sensors as FuelGaugeOptions)
    } catch (e) {
      error = e
    }
    expect(isEnergyError(error) && error.code).toBe('E_VDEV_BAD_OPTION')
    if (!isEnergyError(error)) return
    expect(error.details.option).toBe(`sensors.${option}`)
    expect(error.message).toContain(`fuel gauge: option 'sensors.${option}'`)
    expect(error.message).toContain(why)
    expect(error.hint).toContain('docs/virtual-device.md')
  })

  test('startVirtualDevice and createSimPhone refuse them before any phone runs', async () => {
    await expect(
      startVirtualDevice({
        time: 'fast',
        sensors: { profile: 'nokia' } as unknown as FuelGaugeOptions,
      }),
    ).rejects.toMatchObject({ code: 'E_VDEV_BAD_OPTION', details: { option: 'sensors.profile' } })
    expect(() => harness({ sensors: { updateHz: -5 } })).toThrowError(
      expect.objectContaining({ code: 'E_VDEV_BAD_OPTION' }) as Error,
    )
  })
})

describe('moving averages: the step of unplugging a 450 mA charger', () => {
  /** A phone charging at rest, then unplugged on an update of its 100 ms register. */
  async function unplugStep(sensors: FuelGaugeOptions) {
    const h = harness({ sensors: { periodMs: 100, noiseUa: 0, currentStepUa: 0, ...sensors } })
    await h.sh('sleep 30.03') // boottime 12375.7 s: on the 100 ms grid, long after any start-up
    const before = await num(h, 'current_now')
    await h.sh('dumpsys battery unplug')
    const after = (await sample(h, ['current_now'], 0.1, 80)).map((r) => r[1] ?? Number.NaN)
    await h.sh('sleep 60')
    const final = await num(h, 'current_now')
    // after[m]: m register updates past the step, as a share of the step still to come.
    return { before, final, remaining: after.map((v) => (v - final) / (before - final)) }
  }

  test('iir: 63% of the step after τ, 95% after 3τ', async () => {
    const { before, final, remaining } = await unplugStep({
      averaging: { kind: 'iir', tauMs: 2000 },
    })
    expect(before - final, 'the charger current').toBeCloseTo(450_000, -3)
    expect(remaining[0], 'nothing before the first update after the step').toBeCloseTo(1, 2)
    expect(remaining[20], 'after τ = 20 periods').toBeCloseTo(Math.exp(-1), 2)
    expect(remaining[60], 'after 3τ').toBeCloseTo(Math.exp(-3), 2)
    for (let m = 1; m < remaining.length; m++) {
      expect(remaining[m] ?? 0, 'monotone decay').toBeLessThan(remaining[m - 1] ?? 0)
    }
  })

  test('boxcar: a linear ramp over its window, done after it', async () => {
    const { remaining } = await unplugStep({ averaging: { kind: 'boxcar', windowMs: 2000 } })
    expect(remaining[10], 'half the window').toBeCloseTo(0.5, 2)
    expect(remaining[20], 'the whole window').toBeCloseTo(0, 2)
    expect(remaining[40]).toBeCloseTo(0, 2)
  })

  test('period (the default kind): all of the step at the first whole period after it', async () => {
    const { remaining } = await unplugStep({})
    expect(remaining[0]).toBeCloseTo(1, 2)
    expect(remaining[1]).toBeCloseTo(0, 2)
  })

  test("pixel's current_avg: Maxim's AvgCurrent, τ = 11.25 s, beside a fast current_now", async () => {
    const h = harness({ sensors: { profile: 'pixel', noiseUa: 0, currentStepUa: 0 } })
    await h.sh('sleep 120')
    const before = await num(h, 'current_avg')
    const nowBefore = await num(h, 'current_now')
    await h.sh('dumpsys battery unplug')
    await h.sh('sleep 0.5')
    const nowAfter = await num(h, 'current_now')
    await h.sh('sleep 10.75') // τ after the step
    const atTau = await num(h, 'current_avg')
    await h.sh('sleep 200')
    const final = await num(h, 'current_avg')
    const nowFinal = await num(h, 'current_now')
    expect((nowAfter - nowFinal) / (nowBefore - nowFinal), 'current_now: all of it').toBeLessThan(
      0.01,
    )
    expect((atTau - final) / (before - final)).toBeCloseTo(Math.exp(-1), 1)
  })
})

describe('a vendor cache (oplus)', () => {
  test('on battery the value moves every 10 s, to what the gauge held at the refresh; charging it is live', async () => {
    const options = { profile: 'oplus', noiseUa: 20_000 } as const
    const cached = harness({ seed: 3, sensors: options })
    const live = harness({ seed: 3, sensors: { ...options, cache: 'none' } })
    await cached.sh('am start -W -n com.example.trails/.MainActivity')
    await live.sh('am start -W -n com.example.trails/.MainActivity')
    // Charging: reads go to the gauge (a 1 s register).
    const charging = await sample(cached, ['current_now'], 0.1, 40)
    await live.sh('sleep 4')
    const changesCharging = charging.filter((r, i) => i > 0 && r[1] !== charging[i - 1]?.[1])
    expect(changesCharging.length, 'about one change a second').toBeGreaterThanOrEqual(3)
    await cached.sh('dumpsys battery unplug')
    await live.sh('dumpsys battery unplug')
    const tUnplug = cached.clock.nowNs('boottime')
    // The cache still holds a reading from before the unplug: the charging current.
    expect(await num(cached, 'current_now'), 'the last refresh was charging').toBeGreaterThan(0)
    const rows = await sample(cached, ['current_now'], 0.25, 160)
    const changeTimes = rows
      .filter((r, i) => i > 0 && r[1] !== rows[i - 1]?.[1])
      .map((r) => r[0] ?? 0)
    expect(changeTimes.length).toBeGreaterThanOrEqual(3)
    for (const t of changeTimes) {
      // Simple physics: the cache's timer ticks on multiples of 10 s of boottime.
      expect(t % 10e9, 'changes right after a 10 s refresh').toBeLessThan(0.25e9)
    }
    // Each value is what the uncached gauge showed at the refresh before it.
    for (const [t = 0, v] of rows) {
      const refreshNs = Math.floor(t / 10e9) * 10e9
      if (refreshNs < tUnplug) continue
      expect(v).toBe(live.phone.battery.read(refreshNs).currentNow)
    }
  })
})

describe('charge_counter steps', () => {
  test('typical: 1% of the full capacity, refreshed every 60 s, capacity with it', async () => {
    const h = harness({ sensors: { initialSoc: 0.86502 } })
    await h.sh('dumpsys battery unplug')
    const full = await num(h, 'charge_full_design')
    const rows = await sample(h, ['charge_counter', 'capacity'], 1, 200)
    const counters = new Set(rows.map((r) => r[1]))
    expect([...counters]).toEqual([0.87 * full, 0.86 * full].map(Math.round))
    const step = rows.findIndex((r) => r[1] !== rows[0]?.[1])
    expect(step, 'the counter stepped').toBeGreaterThan(0)
    const t = rows[step]?.[0] ?? 0
    expect(t % 60e9, 'at a 60 s refresh').toBeLessThan(1e9)
    expect(rows[step]?.[2], 'capacity steps with it').toBe(86)
    expect(rows[step - 1]?.[2]).toBe(87)
  })

  test('pixel: 1 mAh steps at the register updates', async () => {
    const h = harness({ sensors: { profile: 'pixel' } })
    await h.sh('dumpsys battery unplug')
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    const rows = await sample(h, ['charge_counter'], 1, 120)
    const values = rows.map((r) => r[1] ?? 0)
    for (const v of values) expect(v % 1000).toBe(0)
    const steps = values
      .slice(1)
      .map((v, i) => v - (values[i] ?? 0))
      .filter((d) => d !== 0)
    expect(steps.length, 'it moves within two minutes').toBeGreaterThanOrEqual(2)
    for (const d of steps) expect(d, 'discharging, 1 mAh at a time').toBe(-1000)
  })

  test('samsung: 0.1% of the capacity, refreshed every 30 s', async () => {
    const h = harness({ sensors: { profile: 'samsung', initialSoc: 0.87 } })
    await h.sh('dumpsys battery unplug')
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    const full = await num(h, 'charge_full_design')
    const rows = await sample(h, ['charge_counter'], 1, 150)
    const changed = rows.filter((r, i) => i > 0 && r[1] !== rows[i - 1]?.[1])
    expect(changed.length).toBeGreaterThanOrEqual(1)
    for (const r of changed) expect((r[0] ?? 0) % 30e9).toBeLessThan(1e9)
    for (const r of rows) {
      const steps = (r[1] ?? 0) / (full / 1000)
      expect(Math.abs(steps - Math.round(steps)), 'on the 0.1% lattice').toBeLessThan(1e-6)
    }
  })

  test('mediatek-legacy: the node holds the state of charge in %, not µAh', async () => {
    const h = harness({ sensors: { profile: 'mediatek-legacy' } })
    const [counter, capacity] = [await num(h, 'charge_counter'), await num(h, 'capacity')]
    expect(counter).toBe(capacity)
    expect(counter).toBe(87)
    expect((await h.sh('dumpsys battery')).out).toContain('  Charge counter: 87\n')
  })
})

describe('one gauge, seen alike through sysfs, dumpsys battery and perfetto', () => {
  const CONFIG = formatPerfettoTextConfig({
    buffers: [{ sizeKb: 4096, fillPolicy: 'RING_BUFFER', unknownFields: [] }],
    dataSources: [
      {
        name: 'android.power',
        androidPowerConfig: {
          batteryPollMs: 250,
          batteryCounters: [
            'BATTERY_COUNTER_CURRENT',
            'BATTERY_COUNTER_CURRENT_AVG',
            'BATTERY_COUNTER_CHARGE',
            'BATTERY_COUNTER_CAPACITY_PERCENT',
            'BATTERY_COUNTER_VOLTAGE',
          ],
          unknownFields: [],
        },
        unknownFields: [],
        dataSourceUnknownFields: [],
      },
    ],
    unknownFields: [],
  })
  test.each(['typical', 'oplus', 'samsung'] as const)('%s', async (profile) => {
    const h = harness({ physics: 'phone', sensors: { profile } })
    await h.sh('dumpsys battery unplug')
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    const hasAvg = GAUGE_PROFILE_MODELS[profile].currentAvg !== 'none'
    const nodes = ['current_now', 'charge_counter', 'capacity', 'voltage_now']
    if (hasAvg) nodes.push('current_avg')
    else expect((await h.sh(`cat ${NODE}/current_avg`)).status).toBe(1)
    const pid = Number(
      (await h.sh('perfetto -c - --txt -o /data/local/tmp/b.pftrace --background', CONFIG)).out,
    )
    await h.sh('input tap 540 1240')
    const rows = await sample(h, nodes, 0.05, 240)
    await h.sh(`kill ${pid}`)
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
    const polls = decodePowerTrace(h.device.fs.readFile('/data/local/tmp/b.pftrace')).battery[0]
      ?.readings
    expect(polls?.length).toBeGreaterThan(40)
    let compared = 0
    for (const p of polls ?? []) {
      // The node's value at the poll, where the samples either side of it agree.
      const after = rows.findIndex((r) => (r[0] ?? 0) >= p.tNs)
      const a = rows[after - 1]
      const b = rows[after]
      if (a === undefined || b === undefined || a.slice(1).join() !== b.slice(1).join()) continue
      compared++
      expect(Math.round((p.currentA ?? Number.NaN) * 1e6), 'current').toBe(a[1])
      expect(Math.round(((p.chargeC ?? Number.NaN) * 1e6) / 3600), 'charge').toBe(a[2])
      expect(p.capacityPercent, 'capacity').toBe(a[3])
      expect(Math.round((p.voltageV ?? Number.NaN) * 1e6), 'voltage').toBe(a[4])
      if (hasAvg) expect(Math.round((p.currentAvgA ?? Number.NaN) * 1e6), 'avg').toBe(a[5])
      else expect(p.currentAvgA, 'no current_avg node: no average').toBeUndefined()
    }
    expect(compared, 'polls compared').toBeGreaterThan(0.5 * (polls?.length ?? 0))
    // dumpsys battery at the same instant as the nodes (fast time stands still between commands).
    const [counter, capacity, voltageUv] = (
      await h.sh(`cat ${NODE}/charge_counter ${NODE}/capacity ${NODE}/voltage_now`)
    ).out
      .trim()
      .split('\n')
      .map(Number)
    const dump = (await h.sh('dumpsys battery')).out
    expect(dump).toContain(`  Charge counter: ${counter}\n`)
    expect(dump).toContain(`  level: ${capacity}\n`)
    expect(dump).toContain(`  voltage: ${Math.round((voltageUv ?? 0) / 1000)}\n`)
  })
})

describe('determinism', () => {
  const SENSORS: FuelGaugeOptions = {
    profile: 'pixel',
    averaging: { kind: 'iir', tauMs: 2000 },
  }

  async function run(seed: number, poll: boolean) {
    const h = harness({ seed, physics: 'phone', sensors: SENSORS })
    await h.sh('dumpsys battery unplug')
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    const start = h.clock.nowNs('boottime')
    for (let i = 0; i < 100; i++) {
      if (i % 25 === 0) await h.sh('input tap 920 155')
      if (poll) await h.sh(`cat ${NODE}/current_now ${NODE}/current_avg`)
      await h.sh('sleep 0.05')
    }
    // Read afterwards, in reverse order: the past as it was.
    const values: (number | undefined)[] = []
    for (let t = h.clock.nowNs('boottime'); t >= start; t -= 37_000_000) {
      const g = h.phone.battery.read(t)
      values.push(g.currentNow, g.chargeCounter, g.voltageUv, h.phone.battery.readCurrentAvg(t))
    }
    return values
  }

  test('the same seed gives the same readings, whichever were read while it ran', async () => {
    const polled = await run(4, true)
    expect(await run(4, false)).toEqual(polled)
    expect(await run(5, false)).not.toEqual(polled)
  })
})
