/**
 * `dumpsys powerstats`, the PowerStats HAL dump and `dumpsys power` on the simulated phone, driven
 * through the shell: layouts as a Pixel 6 on Android 13 prints them, read back with our parsers and
 * cross-checked against the simulation's ground truth.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import {
  meterReadingEnergyJ,
  parseDumpsysPowerstats,
  type PowerStatsMeterReading,
} from '../../../src/formats/dumpsys/index.js'
import { formatAndroidDuration } from '../../../src/virtual-device/commands/dumpsys-power.js'
import { RAIL_SUBSYSTEMS } from '../../../src/virtual-device/sim/power-model.js'
import { centerOf, harness, type Harness } from './_harness.js'

const HAL = 'android.hardware.power.stats.IPowerStats/default'
const golden = (name: string): string =>
  readFileSync(new URL(`../../fixtures/virtual-device/${name}`, import.meta.url), 'utf8')

/** Every rail's reading by name. */
function readings(text: string): Map<string, PowerStatsMeterReading> {
  const meter = parseDumpsysPowerstats(text).meter
  if (meter === undefined) throw new Error('no energy meter table')
  return new Map(meter.readings.map((r) => [r.rail, r]))
}

/**
 * Largest error of a meter difference, J: each reading is a float32 of the µWs counter (half an
 * ulp) printed to 0.01 mWs (half of that), and the counter itself is floored to 1 µWs.
 */
function meterToleranceJ(counterUws: number): number {
  const ulpUws = 2 ** (Math.floor(Math.log2(Math.max(1, counterUws))) - 23)
  return 2 * (ulpUws / 2 + 5 + 1) * 1e-6
}

describe('dumpsys powerstats (framework PowerStatsService, Android 13)', () => {
  test('prints the channel list like Android 13 (flush left) and no readings (golden)', async () => {
    const h = harness()
    const r = await h.sh('dumpsys powerstats')
    expect(r).toEqual({ out: golden('dumpsys-powerstats-android13.txt'), err: '', status: 0 })
    expect(r.out).not.toMatch(/energy measurements|Energy \(uWs\)|Timestamp/)
    // PrintWriter, not IndentingPrintWriter: no item is indented.
    for (const line of r.out.split('\n')) expect(line).not.toMatch(/^\s/)
  })

  test('parseDumpsysPowerstats finds every simulated rail as a channel', async () => {
    const h = harness()
    const parsed = parseDumpsysPowerstats((await h.sh('dumpsys powerstats')).out)
    const rails = h.phone.sim.railNames()
    expect(parsed.channels).toEqual(
      rails.map((name, id) => ({ id, name, subsystem: RAIL_SUBSYSTEMS[name] ?? 'Other' })),
    )
    expect(parsed.consumers.map((c) => c.name)).toContain('DISPLAY')
    expect(parsed.meter).toBeUndefined()
  })

  test('arguments select outputs that are not simulated: nothing is printed', async () => {
    const h = harness()
    expect(await h.sh('dumpsys powerstats --proto')).toEqual({ out: '', err: '', status: 0 })
  })
})

describe(`dumpsys ${HAL} (PowerStats HAL energy meter)`, () => {
  test('is listed by dumpsys -l and prints the meter table for every rail', async () => {
    const h = harness()
    expect((await h.sh('dumpsys -l')).out).toContain(`  ${HAL}\n`)
    const r = await h.sh(`dumpsys ${HAL}`)
    expect(r.status).toBe(0)
    expect(r.out).toMatch(
      /^\n============= PowerStats HAL 2\.0 energy meter ==============\n {27}Channel {4}Cumulative Energy\n/,
    )
    expect(r.out.endsWith('========== End of PowerStats HAL 2.0 energy meter ==========\n')).toBe(
      true,
    )
    const byRail = readings(r.out)
    expect([...byRail.keys()]).toEqual(h.phone.sim.railNames())
    for (const [rail, reading] of byRail) {
      expect(reading.channel).toBe(`[${rail}]:${RAIL_SUBSYSTEMS[rail] ?? 'Other'}`)
      expect(reading.energyMws, rail).toBeGreaterThanOrEqual(0)
    }
    // The screen has been on since boot (hours of uptime): its counter is large.
    expect(byRail.get('VSYS_PWR_DISPLAY')?.energyMws).toBeGreaterThan(1e6)
  })

  test('with the channel list, the parser reads both dumps together', async () => {
    const h = harness()
    const text = (await h.sh(`dumpsys powerstats; dumpsys ${HAL}`)).out
    const parsed = parseDumpsysPowerstats(text)
    expect(parsed.channels.map((c) => c.name)).toEqual(parsed.meter?.readings.map((r) => r.rail))
  })

  test('the difference of two dumps is the ground-truth rail energy in between', async () => {
    const h = harness()
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    const fromNs = h.clock.nowNs('boottime')
    const a = readings((await h.sh(`dumpsys ${HAL}`)).out)
    await h.sh(`input tap ${centerOf(h.phone, 'refresh')}; sleep 3`)
    const toNs = h.clock.nowNs('boottime')
    const b = readings((await h.sh(`dumpsys ${HAL}`)).out)
    const gt = h.phone.sim.groundTruth(fromNs, toNs)
    let moved = 0
    for (const [rail, j] of Object.entries(gt.rails)) {
      const before = a.get(rail)
      const after = b.get(rail)
      if (before === undefined || after === undefined) throw new Error(`${rail} missing`)
      const delta = meterReadingEnergyJ(after) - meterReadingEnergyJ(before)
      expect(Math.abs(delta - j), rail).toBeLessThanOrEqual(meterToleranceJ(after.energyMws * 1000))
      if (j > 0.01) moved++
    }
    expect(moved).toBeGreaterThan(2)
  })

  test('delta: elapsed ms and per-rail change since the previous delta dump', async () => {
    const h = harness()
    const first = parseDumpsysPowerstats((await h.sh(`dumpsys ${HAL} delta`)).out).meter
    expect(first?.elapsedMs).toBe(0)
    expect(first?.readings.every((r) => r.deltaMws === 0)).toBe(true)
    const fromNs = h.clock.nowNs('boottime')
    // A plain dump in between does not move the delta baseline.
    await h.sh(`sleep 1; dumpsys ${HAL} >/dev/null; sleep 1.5`)
    const toNs = h.clock.nowNs('boottime')
    const second = parseDumpsysPowerstats((await h.sh(`dumpsys ${HAL} delta`)).out).meter
    expect(second?.elapsedMs).toBe(2500)
    const gt = h.phone.sim.groundTruth(fromNs, toNs)
    for (const r of second?.readings ?? []) {
      const j = gt.rails[r.rail] ?? Number.NaN
      expect(Math.abs((r.deltaMws ?? Number.NaN) / 1000 - j), r.rail).toBeLessThanOrEqual(
        meterToleranceJ(r.energyMws * 1000),
      )
    }
  })
})

describe('dumpsys power', () => {
  test('formatAndroidDuration matches android.util.TimeUtils.formatDuration', () => {
    expect(formatAndroidDuration(0)).toBe('0')
    expect(formatAndroidDuration(-5)).toBe('-5ms')
    expect(formatAndroidDuration(-12_345)).toBe('-12s345ms')
    expect(formatAndroidDuration(60_005)).toBe('+1m0s5ms')
    expect(formatAndroidDuration(-(26 * 3_600_000 + 7))).toBe('-1d2h0m0s7ms')
  })

  async function exportTapped(h: Harness): Promise<number> {
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    await h.sh(`input tap ${centerOf(h.phone, 'export')}`)
    await h.sh(`input tap ${centerOf(h.phone, 'export-gpx')}`)
    const lock = h.phone.sim.hardware.find((x) => x.kind === 'wakelock')
    if (lock === undefined) throw new Error('the export action acquired no wake lock')
    return lock.startNs
  }

  test('no wake lock before the export; the leaked one is listed with ACQ, uid and pid', async () => {
    const h = harness()
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    const before = (await h.sh('dumpsys power')).out
    expect(before).toMatch(/^POWER MANAGER \(dumpsys power\)\n\nPower Manager State:\n/)
    expect(before).toContain('\nWake Locks: size=0\n\nSuspend Blockers: size=4\n')
    const acquiredNs = await exportTapped(h)
    // Sleep so that exactly 12.345 s have passed since acquisition.
    const waitNs = acquiredNs + 12_345_000_000 - h.clock.nowNs('boottime')
    expect(waitNs).toBeGreaterThan(0)
    h.clock.advance(waitNs)
    const pid = h.phone.appProcess?.pid
    const text = (await h.sh('dumpsys power')).out
    expect(text).toContain(
      `\nWake Locks: size=1\n  PARTIAL_WAKE_LOCK              'trails:export' ACQ=-12s345ms (uid=10187 pid=${pid})\n\n`,
    )
    expect(text).toContain('  PowerManagerService.WakeLocks: ref count=1\n')
  })

  test('held over a minute it is LONG; force-stop releases it', async () => {
    const h = harness()
    await exportTapped(h)
    await h.sh('sleep 61')
    expect((await h.sh('dumpsys power')).out).toMatch(
      /\nWake Locks: size=1\n {2}PARTIAL_WAKE_LOCK {14}'trails:export' ACQ=-1m1s\d+ms LONG \(uid=10187 pid=\d+\)\n\n/,
    )
    await h.sh('am force-stop com.example.trails')
    expect((await h.sh('dumpsys power')).out).toContain('\nWake Locks: size=0\n\n')
  })
})
