import { describe, expect, test } from 'vitest'
import { harness } from '../commands/_harness.js'

const NODE = '/sys/class/power_supply/battery'

describe('fuel gauge', () => {
  test('holds its value between updates and changes at the update rate', async () => {
    const h = harness({ sensors: { updateHz: 5 } })
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    const values: number[] = []
    const times: number[] = []
    for (let i = 0; i < 20; i++) {
      values.push(Number((await h.sh(`cat ${NODE}/current_now`)).out))
      times.push(h.phone.battery.read(h.clock.nowNs('boottime')).tNs)
      await h.sh('sleep 0.05')
    }
    // 20 reads 50 ms apart span 1 s: the register updated every 200 ms, 5 or 6 distinct periods.
    expect(new Set(times).size).toBeGreaterThanOrEqual(5)
    expect(new Set(times).size).toBeLessThanOrEqual(6)
    for (let i = 1; i < times.length; i++) {
      if (times[i] === times[i - 1]) expect(values[i]).toBe(values[i - 1])
    }
  })

  test('charging while USB powered, discharging after unplug (kernel sign)', async () => {
    // The default gauge averages over 1 s periods: a change shows whole in the period after the
    // one it falls in, up to 2 s later. The status is the charger's, at once.
    const h = harness({ sensors: { noiseUa: 0 } })
    await h.sh('sleep 1')
    expect(Number((await h.sh(`cat ${NODE}/current_now`)).out)).toBeGreaterThan(0)
    expect((await h.sh(`cat ${NODE}/status`)).out).toBe('Charging\n')
    await h.sh('dumpsys battery unplug')
    expect((await h.sh(`cat ${NODE}/status`)).out).toBe('Discharging\n')
    await h.sh('sleep 2')
    expect(Number((await h.sh(`cat ${NODE}/current_now`)).out)).toBeLessThan(0)
    await h.sh('dumpsys battery reset')
    await h.sh('sleep 2')
    expect(Number((await h.sh(`cat ${NODE}/current_now`)).out)).toBeGreaterThan(0)
  })

  test('the value is the last period’s average power over the voltage, quantized', async () => {
    const h = harness({ sensors: { noiseUa: 0, currentStepUa: 156.25 } })
    await h.sh('dumpsys battery unplug')
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    await h.sh('sleep 2.5')
    const t = h.clock.nowNs('boottime')
    const reading = h.phone.battery.read(t)
    // The default (typical) gauge: a 1 s period.
    const avgW = h.phone.sim.averagePowerW(reading.tNs - 1e9, reading.tNs)
    const expectedUa = -(avgW / (reading.voltageUv / 1e6)) * 1e6
    expect(reading.currentUa).toBeCloseTo(expectedUa, 6)
    expect(Math.abs(reading.currentNow - expectedUa)).toBeLessThanOrEqual(156.25 / 2 + 1)
    expect(Number.isInteger(reading.currentNow)).toBe(true)
  })

  test('vendor quirks: sign flipped and mA instead of µA', async () => {
    const plain = harness({ seed: 4, sensors: { noiseUa: 0 } })
    const quirky = harness({
      seed: 4,
      sensors: { noiseUa: 0, currentSign: 'flipped', currentUnit: 'mA' },
    })
    for (const h of [plain, quirky]) {
      await h.sh('dumpsys battery unplug')
      await h.sh('sleep 2')
    }
    const a = Number((await plain.sh(`cat ${NODE}/current_now`)).out)
    const b = Number((await quirky.sh(`cat ${NODE}/current_now`)).out)
    expect(a).toBeLessThan(-10_000)
    expect(b).toBe(Math.trunc(-a / 1000))
  })

  test('noise is seeded: same seed same readings, other seed other readings', async () => {
    const read = async (seed: number) => {
      const h = harness({ seed })
      await h.sh('dumpsys battery unplug')
      const out: number[] = []
      for (let i = 0; i < 5; i++) {
        await h.sh('sleep 0.2')
        out.push(Number((await h.sh(`cat ${NODE}/current_now`)).out))
      }
      return out
    }
    expect(await read(1)).toEqual(await read(1))
    expect(await read(1)).not.toEqual(await read(2))
  })

  test('vendor node name and the USB charger node', async () => {
    const h = harness({ sensors: { node: 'max170xx_battery' } })
    expect((await h.sh('ls /sys/class/power_supply')).out.split(/\s+/)).toContain(
      'max170xx_battery',
    )
    expect(
      Number((await h.sh('cat /sys/class/power_supply/max170xx_battery/voltage_now')).out),
    ).toBeGreaterThan(3e6)
    expect((await h.sh(`cat ${NODE}/voltage_now`)).status).toBe(1)
    expect((await h.sh('cat /sys/class/power_supply/usb/online')).out).toBe('1\n')
    await h.sh('dumpsys battery unplug')
    expect((await h.sh('cat /sys/class/power_supply/usb/online')).out).toBe('0\n')
  })

  test('dumpsys battery set level/usb and the framework view', async () => {
    const h = harness()
    await h.sh('dumpsys battery set level 42')
    await h.sh('dumpsys battery set usb 0')
    const text = (await h.sh('dumpsys battery')).out
    expect(text).toContain("  (UPDATES STOPPED -- use 'reset' to restart)\n")
    expect(text).toContain('  USB powered: false\n')
    expect(text).toContain('  level: 42\n')
    expect(text).toContain('  Max charging current: 0\n')
    const bad = await h.sh('dumpsys battery set colour 1')
    expect(bad.out).toBe('Unknown set option: colour\n')
  })
})
