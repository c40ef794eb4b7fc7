// The warnings of whole windows through attributeTest, on per-rail data read every 100 ms like
// ODPM: each rule fires where it applies and stays quiet where it does not.
import { describe, expect, test } from 'vitest'
import { attributeTest, type AttributeTestInput } from '../../src/attribution/attribute.js'
import { cpuMethodPower } from '../../src/attribution/method-power.js'
import { AttributionWarnings } from '../../src/attribution/warnings.js'
import type { CpuSchedule, CpuSlice, RailSeries, StackSample } from '../../src/model/samples.js'
import { MS, rail, stacks, win } from './_helpers.js'

/** A counter read every 100 ms from 0 to 4 s, drawing `powerW(t)` (W, t in s) in each interval. */
function railOf(name: string, subsystem: string, powerW: (tS: number) => number): RailSeries {
  let energyJ = 0
  const points: [number, number][] = [[0, 0]]
  for (let i = 0; i < 40; i++) {
    energyJ += powerW(i / 10) * 0.1
    points.push([(i + 1) * 100 * MS, energyJ])
  }
  return rail(name, points, subsystem)
}

const cpuIdle = railOf('S4M_VDD_CPUCL0', 'CPU(LITTLE)', () => 0.1)
const displayAt = (w: number) => railOf('VSYS_PWR_DISPLAY', 'Display', () => w)
const modemOff = railOf('VSYS_PWR_MODEM', 'Modem', () => 0)

/** Samples of app code every 1 ms (task-clock at 1000 Hz) from `fromMs`, `count` of them. */
function appSamples(fromMs: number, count: number): StackSample[] {
  return Array.from({ length: count }, (_, i) => ({
    tNs: (fromMs + i) * MS,
    threadId: 1,
    frames: ['com.example.trails.FeedAdapter.bind', '__start_thread'],
    periodNs: MS,
  }))
}

/** A window over per-rail data, attributed the way the Vitest fixture does (SoC rails to methods). */
function windowOf(
  rails: readonly RailSeries[],
  samples: readonly StackSample[],
  options: Partial<AttributeTestInput> & { startMs?: number; endMs?: number } = {},
) {
  const window = win((options.startMs ?? 1000) * MS, (options.endMs ?? 2500) * MS)
  const methodPower = cpuMethodPower(rails, window)
  return attributeTest({
    label: 'window',
    window,
    power: rails,
    baseline: { kind: 'configured', powerW: 1.1 }, // display 1 W + CPU 0.1 W at idle
    execution: { kind: 'samples', samples: stacks(samples) },
    sourceNames: { power: 'odpm', execution: 'simpleperf' },
    ...(methodPower === undefined ? {} : { methodPower }),
    ...options,
  }).result
}

const codes = (r: { readonly warnings: ReadonlyArray<{ readonly code: string }> }) =>
  r.warnings.map((w) => w.code)

describe('W_INVISIBLE_ENERGY', () => {
  test('a bright screen is not invisible energy: no code ran, and nothing methods could get', () => {
    const r = windowOf([cpuIdle, displayAt(2), modemOff], [])
    expect(r.netEnergyJ, 'the screen above its idle level').toBeCloseTo(1.5, 9)
    expect(codes(r)).not.toContain(AttributionWarnings.INVISIBLE_ENERGY)
  })

  test('a radio switched on in the window while no app code ran is, and the message names it', () => {
    const modem = railOf('VSYS_PWR_MODEM', 'Modem', (t) => (t >= 1.5 ? 0.8 : 0))
    const r = windowOf([cpuIdle, displayAt(1), modem], appSamples(1000, 20))
    const w = r.warnings.find((x) => x.code === AttributionWarnings.INVISIBLE_ENERGY)
    expect(w?.message).toContain('the 800 mJ that the CPU, radios and GPS drew above idle')
    expect(w?.message).toContain('the rest (Modem 800 mJ)')
  })

  test('a radio already on when the window opened is left to the fixture’s own warnings', () => {
    const modem = railOf('VSYS_PWR_MODEM', 'Modem', (t) => (t < 2 ? 1 : 0))
    const r = windowOf([cpuIdle, displayAt(1), modem], appSamples(1000, 20))
    expect(codes(r)).not.toContain(AttributionWarnings.INVISIBLE_ENERGY)
  })
})

describe('W_INVISIBLE_ENERGY with the CPU schedule (sched_switch)', () => {
  // The little cluster's rail: 0.1 W idle, 0.5 W from 1.2 s to 2.2 s; the app (tid 1) runs 20 ms.
  const busyCpu = railOf('S4M_VDD_CPUCL0', 'CPU(LITTLE)', (t) => (t >= 1.2 && t < 2.2 ? 0.5 : 0.1))
  const rails = [busyCpu, displayAt(1), modemOff]
  const scheduleOf = (slices: CpuSlice[]): CpuSchedule => ({
    source: 'test',
    clock: 'boottime',
    slices,
    cpus: [0, 1, 2, 3],
    lostEvents: false,
  })
  const app: CpuSlice = { cpu: 0, tid: 1, comm: 'main', startNs: 1000 * MS, endNs: 1020 * MS }
  const windowWith = (schedule?: CpuSchedule) => {
    const window = win(1000 * MS, 2500 * MS)
    const methodPower = cpuMethodPower(rails, window, undefined, [[0, 1, 2, 3]])
    return windowOf(rails, appSamples(1000, 20), {
      ...(methodPower === undefined ? {} : { methodPower }),
      ...(schedule === undefined ? {} : { schedule }),
    })
  }

  test('what other processes drew on the CPUs is theirs: the app is charged little, and not warned about the rest', () => {
    const others = scheduleOf([
      app,
      { cpu: 1, tid: 566, comm: 'surfaceflinger', startNs: 1200 * MS, endNs: 2200 * MS },
      { cpu: 2, tid: 95, comm: 'kworker/u16:2', startNs: 1200 * MS, endNs: 1700 * MS },
    ])
    const r = windowWith(others)
    // The 0.4 J above the rail's idle level went to surfaceflinger and the kworker, not the app.
    expect(r.attributedEnergyJ).toBeLessThan(0.01)
    expect(codes(r)).not.toContain(AttributionWarnings.INVISIBLE_ENERGY)
  })

  test('energy no thread accounts for still warns, names what other threads drew, and does not blame another process', () => {
    // The rail is up from 1.2 s to 2.2 s but sched_switch shows only a short kworker burst then.
    const idle = scheduleOf([
      app,
      { cpu: 2, tid: 95, comm: 'kworker/u16:2', startNs: 1200 * MS, endNs: 1210 * MS },
    ])
    const w = windowWith(idle).warnings.find((x) => x.code === AttributionWarnings.INVISIBLE_ENERGY)
    expect(w?.message).toMatch(
      /other threads drew on the CPUs \(kworker\/u16:2 [\d.]+ mJ\) not counted/,
    )
    expect(w?.message).toContain('neither app code nor another thread ran on the CPUs')
    expect(w?.message).not.toContain('another process')
  })
})

describe('W_UNDERSAMPLED', () => {
  test('names the plugin option `samplingHz` with simpleperf', () => {
    const r = windowOf([cpuIdle, displayAt(1), modemOff], appSamples(1000, 80))
    const w = r.warnings.find((x) => x.code === AttributionWarnings.UNDERSAMPLED)
    expect(w?.message).toContain('Only 80 stack samples')
    expect(w?.message).toContain('Raise `samplingHz` to ≈ 2500 Hz')
  })

  test('does not fire when the app ran no code, nor on a repetition', () => {
    expect(codes(windowOf([cpuIdle, displayAt(1), modemOff], []))).not.toContain(
      AttributionWarnings.UNDERSAMPLED,
    )
    const repeated = windowOf([cpuIdle, displayAt(1), modemOff], appSamples(1000, 80), {
      label: 'scroll #2',
    })
    expect(codes(repeated)).not.toContain(AttributionWarnings.UNDERSAMPLED)
  })
})

describe('W_SLOW_SENSOR', () => {
  const rails = [cpuIdle, displayAt(1), modemOff]
  test('a 0.42 s window on 10 Hz rails: lengthen or repeat, never "use ODPM"', () => {
    const r = windowOf(rails, [], { startMs: 1050, endMs: 1470 })
    const w = r.warnings.find((x) => x.code === AttributionWarnings.SLOW_SENSOR)
    expect(w?.message).toContain('of this 0.42 s window lies in the sensor intervals its edges cut')
    // The rails' rate over their whole record, 10 Hz (not the 4 updates inside 0.42 s): 10 sensor
    // intervals make the edges ≤ 20% of any window.
    expect(w?.message).toContain('the power rails update at 10 Hz')
    expect(w?.message).toContain('lengthen it to ≥ 1.00 s or repeat it')
    expect(w?.message).not.toMatch(/ODPM|odpm|faster/)
  })

  test('polls that slip: the advice holds for the longest interval, not the mean one', () => {
    // Read every 100 ms but for one 130 ms stretch (a late poll), as real rails are: a window of
    // 10 mean intervals can still have more than 20% at its edges; one of 10 longest ones cannot.
    const times = Array.from({ length: 40 }, (_, i) => (i < 20 ? i * 100 : i * 100 + 30))
    const slipping = (name: string, subsystem: string, powerW: number): RailSeries =>
      rail(
        name,
        times.map((tMs) => [tMs * MS, (powerW * tMs) / 1000] as const),
        subsystem,
      )
    const late = [
      slipping('S4M_VDD_CPUCL0', 'CPU(LITTLE)', 0.1),
      slipping('VSYS_PWR_DISPLAY', 'Display', 1),
    ]
    const r = windowOf(late, [], { startMs: 1050, endMs: 1470 })
    const w = r.warnings.find((x) => x.code === AttributionWarnings.SLOW_SENSOR)
    expect(w?.message).toContain('lengthen it to ≥ 1.30 s or repeat it')
  })

  test("a 30 ms window between two polls names the rails' rate, not the 0 updates inside it", () => {
    const r = windowOf(rails, [], { startMs: 1130, endMs: 1160 })
    const w = r.warnings.find((x) => x.code === AttributionWarnings.SLOW_SENSOR)
    expect(w?.message).toContain('the power rails update at 10 Hz')
    expect(w?.message).not.toContain('0.0 Hz')
  })

  test('not when readings fall on the window’s edges, nor on a repetition', () => {
    expect(codes(windowOf(rails, [], { startMs: 1000, endMs: 1400 }))).not.toContain(
      AttributionWarnings.SLOW_SENSOR,
    )
    const repeated = windowOf(rails, [], { startMs: 1050, endMs: 1470, label: 'scroll #3' })
    expect(codes(repeated)).not.toContain(AttributionWarnings.SLOW_SENSOR)
  })
})

describe('W_NEGATIVE_NET', () => {
  test('a phone at its idle level: a net of rounding size is not negative energy', () => {
    const r = windowOf([cpuIdle, displayAt(1), modemOff], [], {
      baseline: { kind: 'configured', powerW: 1.1 + 1e-8 },
    })
    expect(r.netEnergyJ).toBeLessThan(0)
    expect(r.netEnergyJ).toBeGreaterThan(-1e-6)
    expect(codes(r)).not.toContain(AttributionWarnings.NEGATIVE_NET)
  })

  test('a dim screen under a bright idle baseline: a readable figure and the display’s power', () => {
    const r = windowOf([cpuIdle, displayAt(0.5), modemOff], [])
    const w = r.warnings.find((x) => x.code === AttributionWarnings.NEGATIVE_NET)
    expect(w?.message).toContain(
      'Below idle: net energy is negative (-750 mJ, beyond its noise of ± 1.00 µJ)',
    )
    expect(w?.message).toContain('the display drew 500 mW on average here')
  })

  test('a net inside the noise of a fluctuating window is not judged by its sign', () => {
    const jumpy = railOf(
      'S4M_VDD_CPUCL0',
      'CPU(LITTLE)',
      (t) => [0, 0.15, 0.3][Math.round(t * 10) % 3] ?? 0,
    )
    // Mean CPU power 0.15 W against a baseline that assumes 0.16 W: net −15 mJ over 1.5 s, while
    // the intervals' powers spread by ≈ 0.22 W (noise ± 0.17 J).
    const r = windowOf([jumpy, displayAt(1), modemOff], [], {
      baseline: { kind: 'configured', powerW: 1.16 },
    })
    expect(r.netEnergyJ).toBeLessThan(0)
    expect(codes(r)).not.toContain(AttributionWarnings.NEGATIVE_NET)
  })
})
