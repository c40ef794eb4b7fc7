// The ODPM collector's wait for a reading past the window's end: the poll phase predicted from
// the clock mapping and a perfetto clock snapshot (unit and property tests), checked end to end
// on the virtual device in real time, whose perfetto polls in traced_probes' phase.
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { odpmCollector, type PowerData } from '../../src/collectors/index.js'
import {
  readCpuFrequencies,
  readingOffsetsNs,
  uncoveredEndMs,
  untilPollAfterMs,
  widerOffsets,
  withStartFrequencies,
} from '../../src/collectors/power/odpm.js'
import {
  hostNowNs,
  mapDeviceClock,
  shell,
  type AdbDevice,
  type DeviceClockMapping,
} from '../../src/device/index.js'
import { isEnergyError, type RailSeries } from '../../src/model/index.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../src/virtual-device/index.js'
import { adbDevice, contextFor, run, TAP } from './_vdev.js'

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

function mapping(offsetNs: number, uncertaintyNs: number): DeviceClockMapping {
  return {
    from: 'host',
    to: 'boottime',
    offsetNs,
    uncertaintyNs,
    roundTripNs: 2 * uncertaintyNs,
    method: 'intersection',
    command: 'cat /proc/uptime',
    readings: [],
  }
}

function rail(name: string, ...tMs: number[]): RailSeries {
  return {
    kind: 'cumulative',
    rail: name,
    source: 'odpm',
    clock: 'boottime',
    readings: tMs.map((t, i) => ({ tNs: t * 1e6, energyJ: i })),
  }
}

describe('untilPollAfterMs', () => {
  test('a whole period plus the slack when the phase is unknown', () => {
    expect(untilPollAfterMs(5e9, 100, undefined)).toBe(110)
    expect(untilPollAfterMs(5e9, 250, { hostToBoottime: mapping(0, 0) }, 4)).toBe(254)
  })

  test('until the next multiple of the period on the monotonic clock', () => {
    // host 1.000 s = boottime 3.020 s = monotonic 2.020 s: the next poll is at monotonic 2.100 s.
    const phase = { hostToBoottime: mapping(2.02e9, 0), monotonicToBoottimeNs: 1e9 }
    expect(untilPollAfterMs(1e9, 100, phase, 0)).toBeCloseTo(80, 6)
    expect(untilPollAfterMs(1e9, 100, phase)).toBeCloseTo(90, 6)
    // Exactly on a poll: that poll counts (perfetto reads at the multiple itself).
    expect(untilPollAfterMs(1.08e9, 100, phase, 0)).toBeCloseTo(0, 6)
  })

  test('property: wherever the clock really is within the mapping, the wait reaches the next poll', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e12 }),
        fc.integer({ min: -1e12, max: 1e12 }),
        fc.integer({ min: 0, max: 1e12 }),
        fc.integer({ min: 0, max: 20e6 }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.constantFrom(100, 250, 1000),
        (endHostNs, offsetNs, monoToBootNs, uncertaintyNs, where, pollMs) => {
          const phase = {
            hostToBoottime: mapping(offsetNs, uncertaintyNs),
            monotonicToBoottimeNs: monoToBootNs,
          }
          const waitMs = untilPollAfterMs(endHostNs, pollMs, phase, 0)
          // The device's true monotonic time at the window's end, anywhere in the mapping's bounds.
          const trueEndMonoNs = endHostNs + offsetNs + where * uncertaintyNs - monoToBootNs
          const nextPollNs = Math.ceil(trueEndMonoNs / (pollMs * 1e6)) * pollMs * 1e6
          expect(trueEndMonoNs + waitMs * 1e6).toBeGreaterThanOrEqual(nextPollNs - 1)
          // …and never more than one period plus twice the uncertainty.
          expect(waitMs).toBeLessThanOrEqual(pollMs + (2 * uncertaintyNs) / 1e6 + 1e-6)
        },
      ),
    )
  })
})

describe('readings stamped off the poll grid', () => {
  test('readingOffsetsNs: signed offsets from the nearest grid point, the session-start reading left out', () => {
    // boottime − monotonic = 5 s; grid points at monotonic multiples of 100 ms.
    const off = 5e9
    const rails = [
      rail('A', 5_000.037, 5_100 + 2, 5_200 - 1, 5_300),
      rail('B', 5_000.037, 5_100, 5_200 + 0.5),
    ]
    const o = readingOffsetsNs(rails, off, 100)
    expect(o?.minNs).toBeCloseTo(-1e6, 0)
    expect(o?.maxNs).toBeCloseTo(2e6, 0)
    expect(readingOffsetsNs([rail('A', 5_000)], off, 100)).toBe(undefined)
    expect(widerOffsets(o, { minNs: -3e6, maxNs: 0 })).toEqual({ minNs: -3e6, maxNs: o?.maxNs })
    expect(widerOffsets(undefined, o)).toBe(o)
  })

  test('readingOffsetsNs: a stalled poll (tens of ms late, or nearer the next grid point) is not planned for', () => {
    const off = 5e9
    // Steady 1–2 ms late; one poll 60 ms late (−40 ms from the next point), one 30 ms late.
    const steady = [5_100 + 1, 5_200 + 2, 5_300 + 1, 5_400 + 2]
    const o = readingOffsetsNs(
      [rail('A', 5_000.037, ...steady, 5_500 + 60, 5_700 + 30, 5_800 + 1)],
      off,
      100,
    )
    expect(o?.minNs).toBeCloseTo(1e6, 0)
    expect(o?.maxNs).toBeCloseTo(2e6, 0)
    // A systematic shift is kept: every reading 30 ms late is the steady state, not a stall.
    const shifted = readingOffsetsNs([rail('A', 5_000.037, 5_130, 5_231, 5_330, 5_432)], off, 100)
    expect(shifted?.minNs).toBeCloseTo(30e6, 0)
    expect(shifted?.maxNs).toBeCloseTo(32e6, 0)
  })

  test('property: the wait reaches the first poll whose reading is stamped at or after the end, as late as readings run', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e12 }),
        fc.integer({ min: 0, max: 1e12 }),
        fc.integer({ min: 0, max: 5e6 }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.integer({ min: -40e6, max: 40e6 }),
        fc.integer({ min: 0, max: 40e6 }),
        (endHostNs, monoToBootNs, uncertaintyNs, where, loNs, spreadNs) => {
          const pollNs = 100e6
          const offsets = { minNs: loNs, maxNs: Math.min(49e6, loNs + spreadNs) }
          const phase = {
            hostToBoottime: mapping(monoToBootNs, uncertaintyNs),
            monotonicToBoottimeNs: monoToBootNs,
            readingOffsetsNs: offsets,
          }
          const waitMs = untilPollAfterMs(endHostNs, 100, phase, 0)
          const trueEndMonoNs = endHostNs + where * uncertaintyNs
          // The first grid point whose reading, stamped as early as seen, is not before the end…
          const pollMonoNs = Math.ceil((trueEndMonoNs - offsets.minNs) / pollNs) * pollNs
          // …has run, as late as seen, when the wait is over.
          expect(trueEndMonoNs + waitMs * 1e6).toBeGreaterThanOrEqual(
            pollMonoNs + Math.max(0, offsets.maxNs) - 1,
          )
          expect(waitMs * 1e6).toBeLessThanOrEqual(
            pollNs + Math.max(0, offsets.maxNs) - offsets.minNs + 2 * uncertaintyNs + 1,
          )
        },
      ),
    )
  })
})

describe('uncoveredEndMs', () => {
  const m = mapping(1e9, 0.5e6)
  test('undefined when every rail has a reading at or after the end', () => {
    // window end: host 0.25 s → boottime 1.25 s
    expect(uncoveredEndMs([rail('A', 1100, 1200, 1300), rail('B', 1200, 1251)], 0.25e9, m)).toBe(
      undefined,
    )
  })
  test('whole-ms stamps and the mapping uncertainty are tolerated', () => {
    expect(uncoveredEndMs([rail('A', 1100, 1249)], 0.25e9, m)).toBe(undefined)
  })
  test('the shortfall in ms when the last common reading is before the end', () => {
    expect(uncoveredEndMs([rail('A', 1100, 1300), rail('B', 1100, 1200)], 0.25e9, m)).toBe(50)
  })
})

describe('options', () => {
  test('a poll period perfetto would not honour is refused with a clear error', () => {
    for (const pollMs of [50, 99, 100.5]) {
      try {
        odpmCollector({ pollMs })
        expect.unreachable()
      } catch (error) {
        expect(isEnergyError(error) && error.code).toBe('E_COLLECTOR_INVALID_OPTION')
        expect((error as Error).message).toContain(`pollMs ${pollMs}`)
      }
    }
    expect(() => odpmCollector({ pollMs: 250 })).not.toThrow()
  })
})

describe('on the virtual device (real time)', () => {
  let server: VirtualDeviceServer
  let device: AdbDevice
  let boottime: DeviceClockMapping
  let monotonicToBoottimeNs: number | undefined

  beforeAll(async () => {
    server = await startVirtualDevice({ devices: 1, seed: 11 })
    device = await adbDevice(server.port, server.serials[0]!)
    boottime = await mapDeviceClock(device, 'boottime')
  })
  afterAll(async () => server.close())

  async function window(
    id: string,
    bodyMs: number,
    phase: boolean,
    endReading: 'wait' | 'extrapolate' = 'wait',
  ): Promise<{ data: PowerData & { kind: 'rails' }; endBootNs: number }> {
    const collector = odpmCollector({
      endReading,
      pollPhase: {
        hostToBoottime: boottime,
        ...(phase && monotonicToBoottimeNs !== undefined ? { monotonicToBoottimeNs } : {}),
      },
    })
    await collector.start(contextFor(device, id))
    await sleep(bodyMs)
    const endBootNs = hostNowNs() + boottime.offsetNs
    await collector.awaitEndReading?.(contextFor(device, id))
    const data = await collector.stop(contextFor(device, id))
    if (data.kind !== 'rails') throw new Error('expected rails')
    return { data, endBootNs }
  }

  test('the clock snapshot gives boottime − monotonic; windows then wait for a poll past the end, and the last reading covers it', async () => {
    const first = await window('first', 300, false)
    monotonicToBoottimeNs = first.data.monotonicToBoottimeNs
    expect(monotonicToBoottimeNs).toBeTypeOf('number')
    // The virtual phone (phone physics) stamps readings when the HAL's driver refreshed, a little
    // after the poll was due (late Ticks); never before it, give or take whole-ms rounding (the
    // driver's cached repeats are dropped).
    expect(first.data.readingOffsetsNs?.minNs).toBeGreaterThanOrEqual(-1e6)
    expect(first.data.readingOffsetsNs?.maxNs).toBeGreaterThan(0)
    expect(first.data.readingOffsetsNs?.maxNs).toBeLessThan(50e6)
    // Window lengths that put the end at many phases of the 100 ms poll.
    for (const [i, bodyMs] of [230, 260, 317, 345, 389, 402, 455, 471].entries()) {
      const { data, endBootNs } = await window(`w${i}`, bodyMs, true)
      expect(data.warnings.map((w) => w.code)).not.toContain('W_ODPM_END_UNCOVERED')
      for (const r of data.rails) {
        const last = r.readings.at(-1)!.tNs
        // covered (HAL stamps are whole ms). How soon after the end the stop comes is latency, not
        // correctness (the energy is integrated up to the window's end), and in real time it
        // depends on the machine's load: bench/fixture-overhead.ts measures the end wait.
        expect(last, r.rail).toBeGreaterThanOrEqual(endBootNs - boottime.uncertaintyNs - 1e6)
      }
    }
  })

  test("the session records sched_switch and cpu_frequency: the schedule carries the governor's frequency changes", async () => {
    await run(device, 'am start -W -n com.example.trails/.MainActivity')
    const collector = odpmCollector({ endReading: 'extrapolate' })
    await collector.start(contextFor(device, 'freq'))
    await run(device, `${TAP.refresh}; sleep 0.4`)
    const data = await collector.stop(contextFor(device, 'freq'))
    if (data.kind !== 'rails') throw new Error('expected rails')
    expect(data.schedule?.slices.length).toBeGreaterThan(0)
    const changes = data.schedule?.frequencies ?? []
    expect(changes.length).toBeGreaterThan(0)
    expect(new Set(changes.map((c) => c.cpu)).size).toBeGreaterThan(1)
    // ftrace reports changes only: each CPU's frequency when the session started comes first,
    // before any slice, as the governor had decided it (scaling_cur_freq).
    const sim = server.devices[0]!.phone.sim
    const firstNs = Math.min(...(data.schedule?.slices ?? []).map((s) => s.startNs))
    const start = changes.filter((c) => c.tNs < firstNs)
    expect(start.map((c) => c.cpu)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    for (const c of start) {
      const cluster = sim.power.clusters.find(
        (k) => c.cpu >= k.firstCore && c.cpu < k.firstCore + k.cores,
      )!
      expect(cluster.speedsKhz).toContain(c.khz)
      expect(c.khz).toBe(sim.governors[cluster.index]!.freqAt(c.tNs + 1))
    }
  })

  test('readCpuFrequencies: every CPU of every policy at its scaling_cur_freq; without them the schedule is left as it is', async () => {
    const khz = await readCpuFrequencies(contextFor(device, 'cur'))
    expect([...(khz?.keys() ?? [])].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    const sim = server.devices[0]!.phone.sim
    for (const cluster of sim.power.clusters) {
      expect(cluster.speedsKhz).toContain(khz?.get(cluster.firstCore))
    }
    const empty = {
      slices: [],
      frequencies: [],
      cpus: [],
      clock: 'boottime',
      source: 'x',
      lostEvents: false,
    } as const
    expect(withStartFrequencies(empty, undefined, [])).toBe(empty)
  })

  test("endReading: 'extrapolate' stops at once: the last reading usually precedes the end, and that is not warned about", async () => {
    let before = 0
    for (const [i, bodyMs] of [230, 260, 317, 345, 389, 402].entries()) {
      const { data, endBootNs } = await window(`x${i}`, bodyMs, true, 'extrapolate')
      expect(data.warnings.map((w) => w.code)).not.toContain('W_ODPM_END_UNCOVERED')
      const last = Math.min(...data.rails.map((r) => r.readings.at(-1)!.tNs))
      if (last < endBootNs - 1e6) before++
    }
    // A poll can land in the ms between the end and the stop; most windows have none after the end.
    expect(before).toBeGreaterThanOrEqual(4)
  })

  test('a stop that times out fails with a clear error and leaves nothing recording', async () => {
    const collector = odpmCollector({ stopTimeoutMs: 0, endReading: 'extrapolate' })
    await collector.start(contextFor(device, 'stuck'))
    const error: unknown = await collector
      .stop(contextFor(device, 'stuck'))
      .catch((e: unknown) => e)
    expect(isEnergyError(error) && error.code).toBe('E_COLLECTOR_RECORDER_FAILED')
    expect((error as Error).message).toMatch(
      /did not exit within 0 ms of SIGTERM .*; it was killed/,
    )
    const { stdout } = await shell(device, ['ps', '-A'])
    expect(stdout).not.toMatch(/\bperfetto\b/)
  })

  test('a session killed by something else leaves an empty trace: a recorder failure that says what to check', async () => {
    const collector = odpmCollector({ endReading: 'extrapolate' })
    await collector.start(contextFor(device, 'killed'))
    await shell(device, ['sh', '-c', 'kill -9 $(pidof perfetto)'])
    const error: unknown = await collector
      .stop(contextFor(device, 'killed'))
      .catch((e: unknown) => e)
    expect(isEnergyError(error) && error.code).toBe('E_COLLECTOR_RECORDER_FAILED')
    expect((error as Error).message).toMatch(/handed back an empty trace/)
    expect(isEnergyError(error) && error.hint).toMatch(/adb shell ps -A \| grep perfetto/)
  })
})
