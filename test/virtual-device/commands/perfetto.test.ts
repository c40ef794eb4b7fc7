import { describe, expect, test } from 'vitest'
import { decodePowerTrace } from '../../../src/formats/perfetto/index.js'
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
    const from = h.clock.nowNs('boottime')
    await h.sh(`input tap ${centerOf(h.phone, 'refresh')}`)
    await h.sh('sleep 3')
    const to = h.clock.nowNs('boottime')
    await h.sh(`kill ${pid}`)
    await settle()
    expect((await h.sh('pidof perfetto')).status).not.toBe(0)
    const trace = decodePowerTrace(h.device.fs.readFile('/data/local/tmp/power.pftrace'))
    const rails = trace.rails
    expect(rails.map((r) => r.rail)).toContain('VSYS_PWR_DISPLAY')
    const display = rails.find((r) => r.rail === 'VSYS_PWR_DISPLAY')
    expect(display?.readings).toHaveLength(13) // 0, 250, ..., 3000 ms
    const gt = h.phone.sim.groundTruth(from, to)
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

  test('works through a shell pipe and honours duration_ms', async () => {
    const h = harness()
    const config = CONFIG.replace('buffers', 'duration_ms: 2000\nbuffers').replace(/\n/g, ' ')
    const r = await h.sh(`echo '${config}' | perfetto -c - --txt -o /data/local/tmp/d.pftrace`)
    expect(r.status).toBe(0)
    const trace = decodePowerTrace(h.device.fs.readFile('/data/local/tmp/d.pftrace'))
    expect(trace.rails[0]?.readings).toHaveLength(9)
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
