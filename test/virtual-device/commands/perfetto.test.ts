import { describe, expect, test } from 'vitest'
import { decodePowerTrace } from '../../../src/formats/perfetto/index.js'
import { withoutRepeats } from '../../../src/collectors/power/rail-repeats.js'
import { pollTimesNs } from '../../../src/virtual-device/commands/perfetto.js'
import { centerOf, harness } from './_harness.js'

const CONFIG = `buffers { size_kb: 8192 fill_policy: RING_BUFFER }
data_sources {
  config {
    name: "android.power"
    android_power_config {
      battery_poll_ms: 250
      battery_counters: BATTERY_COUNTER_CURRENT
      battery_counters: BATTERY_COUNTER_CHARGE
      battery_counters: BATTERY_COUNTER_VOLTAGE
      collect_power_rails: true
    }
  }
}
`

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
}

describe('perfetto android.power', () => {
  test('--background prints the pid; kill -TERM ends the session and writes a decodable trace', async () => {
    const h = harness()
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    const start = await h.sh(
      'perfetto -c - --txt -o /data/local/tmp/power.pftrace --background',
      CONFIG,
    )
    expect(start.status).toBe(0)
    expect(start.out).toMatch(/^\d+\n$/)
    const pid = Number(start.out.trim())
    await h.sh(`input tap ${centerOf(h.phone, 'refresh')}`)
    await h.sh('sleep 3')
    await h.sh(`kill ${pid}`)
    await settle()
    expect((await h.sh('pidof perfetto')).status).not.toBe(0)
    const trace = decodePowerTrace(h.device.fs.readFile('/data/local/tmp/power.pftrace'))
    const rails = trace.rails
    expect(rails.map((r) => r.rail)).toContain('VSYS_PWR_DISPLAY')
    const display = rails.find((r) => r.rail === 'VSYS_PWR_DISPLAY')
    expect(display?.readings).toHaveLength(13) // 0, 250, ..., 3000 ms
    // Rail readings carry the HAL's whole-ms timestamp; the battery packets the poll's exact time.
    const polls = trace.battery[0]?.readings ?? []
    const gt = h.phone.sim.groundTruth(polls[0]?.tNs ?? 0, polls.at(-1)?.tNs ?? 0)
    for (const series of rails) {
      const first = series.readings[0]
      const last = series.readings.at(-1)
      const delta = (last?.energyJ ?? 0) - (first?.energyJ ?? 0)
      expect(Math.abs(delta - (gt.rails[series.rail] ?? 0)), series.rail).toBeLessThan(2e-6)
    }
    const battery = trace.battery[0]
    expect(battery?.readings).toHaveLength(13)
    expect(battery?.readings[0]?.voltageV).toBeGreaterThan(3.4)
  })

  test('polls at the start, then on multiples of the period on CLOCK_MONOTONIC, and not at the stop', async () => {
    const h = harness()
    // Start off the poll phase: 90 ms past a multiple of 250 ms on the monotonic clock.
    const phaseMs = (h.clock.nowNs('monotonic') / 1e6) % 250
    await h.sh(`sleep ${(((340 - phaseMs) % 250) / 1000).toFixed(6)}`)
    const startMonoMs = h.clock.nowNs('monotonic') / 1e6
    const bootMinusMonoNs = h.clock.nowNs('boottime') - h.clock.nowNs('monotonic')
    const start = await h.sh(
      'perfetto -c - --txt -o /data/local/tmp/p.pftrace --background',
      CONFIG,
    )
    await h.sh('sleep 1.2')
    await h.sh(`kill ${start.out.trim()}`)
    await settle()
    const readings = decodePowerTrace(h.device.fs.readFile('/data/local/tmp/p.pftrace')).rails[0]
      ?.readings
    const monoMs = (readings ?? []).map((r) => (r.tNs - bootMinusMonoNs) / 1e6)
    expect(monoMs[0]).toBeCloseTo(startMonoMs, 0)
    // 160 ms after the start, then every 250 ms: 5 polls in the 1.2 s, none when the session stops.
    expect(monoMs.slice(1).map((t) => Math.round(t - (monoMs[0] ?? 0)))).toEqual([
      160, 410, 660, 910, 1160,
    ])
    // On the multiple itself, give or take the start's sub-ms remainder (perfetto counts whole ms).
    for (const t of monoMs.slice(1)) expect(t % 250).toBeLessThan(1)
  })

  test('a session starting on a poll boundary reads once there, not twice', () => {
    const h = harness()
    const bootMinusMonoNs = h.clock.nowNs('boottime') - h.clock.nowNs('monotonic')
    const onPollNs = Math.ceil((h.clock.nowNs('monotonic') + 1e9) / 1e8) * 1e8 + bootMinusMonoNs
    for (const startNs of [onPollNs - 1, onPollNs, onPollNs + 1, onPollNs + 0.5e6]) {
      const times = pollTimesNs(h.phone, 100, startNs, startNs + 1e9)
      expect(times[0]).toBe(startNs)
      for (let i = 1; i < times.length; i++) {
        const gapNs = times[i]! - times[i - 1]!
        expect(gapNs).toBeGreaterThanOrEqual(1e6)
        expect(gapNs).toBeLessThanOrEqual(100e6)
      }
      expect(times.length).toBeGreaterThanOrEqual(10)
    }
  })

  test('works through a shell pipe and honours duration_ms', async () => {
    const h = harness()
    const config = CONFIG.replace('buffers', 'duration_ms: 2000\nbuffers').replace(/\n/g, ' ')
    const r = await h.sh(`echo '${config}' | perfetto -c - --txt -o /data/local/tmp/d.pftrace`)
    expect(r.status).toBe(0)
    const trace = decodePowerTrace(h.device.fs.readFile('/data/local/tmp/d.pftrace'))
    expect(trace.rails[0]?.readings).toHaveLength(9)
  })

  test('phone physics: rail stamps fall off the poll grid (late Ticks, the HAL’s own refresh time), battery packets at the Tick; simple physics: on the grid', async () => {
    const offsets = async (physics: 'phone' | 'simple') => {
      const h = harness({ physics })
      await h.sh('am start -W -n com.example.trails/.MainActivity')
      const bootMinusMonoNs = h.clock.nowNs('boottime') - h.clock.nowNs('monotonic')
      const config = CONFIG.replace('battery_poll_ms: 250', 'battery_poll_ms: 100')
      const start = await h.sh(
        'perfetto -c - --txt -o /data/local/tmp/g.pftrace --background',
        config,
      )
      await h.sh(`input tap ${centerOf(h.phone, 'refresh')}`)
      await h.sh('sleep 3')
      await h.sh(`kill ${start.out.trim()}`)
      await settle()
      const trace = decodePowerTrace(h.device.fs.readFile('/data/local/tmp/g.pftrace'))
      // Signed offset (ms) of each reading after the session's first from the nearest point of the
      // 100 ms grid on CLOCK_MONOTONIC.
      const off = (tNs: number) => {
        const ms = (tNs - bootMinusMonoNs) / 1e6
        return ms - Math.round(ms / 100) * 100
      }
      return {
        // The driver's cached repeats (a poll < 50 ms after the start's read) dropped, as the
        // collector does.
        rails: withoutRepeats(trace.rails).flatMap((r) =>
          r.readings.slice(1).map((x) => off(x.tNs)),
        ),
        battery: (trace.battery[0]?.readings ?? []).slice(1).map((x) => off(x.tNs)),
      }
    }
    const simple = await offsets('simple')
    // Whole-ms stamps of the grid points.
    expect(Math.max(...simple.rails.map(Math.abs))).toBeLessThanOrEqual(1)
    // One offset throughout: the session start's sub-ms remainder (polls are whole ms apart).
    expect(new Set(simple.battery.map((o) => o.toFixed(6))).size).toBe(1)
    const phone = await offsets('phone')
    // Late by a part of a ms to a few ms, never before the due time (beyond the whole-ms stamp).
    expect(Math.min(...phone.rails)).toBeGreaterThanOrEqual(-1)
    expect(Math.max(...phone.rails)).toBeGreaterThan(1)
    expect(Math.max(...phone.rails)).toBeLessThan(50)
    expect(Math.min(...phone.battery)).toBeGreaterThan(0)
    expect(new Set(phone.battery.map((o) => o.toFixed(3))).size).toBeGreaterThan(5)
  })

  test('a malformed config or missing -o fails like perfetto', async () => {
    const h = harness()
    const bad = await h.sh(
      'perfetto -c - --txt -o /data/local/tmp/x.pftrace',
      'data_sources { config {',
    )
    expect(bad.status).toBe(1)
    expect(bad.err).toContain('Failed to parse config')
    expect((await h.sh('perfetto -c - --txt', CONFIG)).err).toBe(
      'Either --out or --upload is required\n',
    )
  })
})
