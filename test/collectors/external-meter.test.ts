/** The external-meter collector: the corpus BattOr file, a meter command, and every failure. */
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CollectorErrors, externalMeterCollector } from '../../src/collectors/index.js'
import { clip } from '../../src/collectors/power/external-meter.js'
import { hostNowNs, type AdbDevice } from '../../src/device/index.js'
import { parseMeterText } from '../../src/formats/meter/index.js'
import { isEnergyError, type ClockMapping } from '../../src/model/index.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../src/virtual-device/index.js'
import { adbDevice, contextFor, trapezoidJ } from './_vdev.js'

const BATTOR = join(
  import.meta.dirname,
  '..',
  'fixtures',
  'corpus',
  '5_power_monitor',
  'catapult_battor.txt',
)
const tmp = mkdtempSync(join(tmpdir(), 've-meter-'))

let server: VirtualDeviceServer
let device: AdbDevice

beforeAll(async () => {
  server = await startVirtualDevice({ time: 'fast', seed: 2 })
  device = await adbDevice(server.port, server.serials[0]!)
})
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true })
  await server.close()
})

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (isEnergyError(error)) return error.code
    throw error
  }
  throw new Error('expected an EnergyError')
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('meter file', () => {
  test('corpus BattOr file, unclipped: the parser’s readings shifted onto boottime, same energy', async () => {
    const mapping: ClockMapping = { from: 'host', to: 'boottime', offsetNs: -7e9, uncertaintyNs: 0 }
    const origin = 50e9
    const collector = externalMeterCollector({
      file: BATTOR,
      hostToBoottime: mapping,
      fileStartHostNs: origin,
      clipToWindow: false,
    })
    const context = contextFor(device)
    await collector.start(context)
    const data = await collector.stop(context)
    if (data.kind !== 'series') throw new Error('expected a series')
    const direct = parseMeterText(readFileSync(BATTOR, 'utf8')).series
    expect(data.series.clock).toBe('boottime')
    expect(data.series.source).toBe('external-meter')
    expect(data.series.samples).toHaveLength(direct.samples.length)
    expect(data.series.samples[0]!.tNs).toBe(origin - 7e9)
    expect(data.series.samples.at(-1)!.tNs - data.series.samples[0]!.tNs).toBe(
      direct.samples.at(-1)!.tNs - direct.samples[0]!.tNs,
    )
    expect(trapezoidJ(data.series.samples)).toBeCloseTo(trapezoidJ(direct.samples), 9)
    // 30 624 readings at 2 kHz: 15.3 s at about 1.5 W (≈ 360 mA × 4.1 V) in this capture.
    expect(trapezoidJ(direct.samples) / 15.3115).toBeGreaterThan(0.5)
    expect(trapezoidJ(direct.samples) / 15.3115).toBeLessThan(3)
  })

  test('clipped to the window: the last reading before it, those inside, the first after it', async () => {
    const collector = externalMeterCollector({
      file: BATTOR,
      // the meter started 5 s before the test; the session measures host → boottime itself
      fileStartHostNs: hostNowNs() - 5e9,
    })
    const context = contextFor(device)
    await collector.start(context)
    await sleep(300)
    const data = await collector.stop(context)
    if (data.kind !== 'series') throw new Error('expected a series')
    const n = data.series.samples.length
    // 2 kHz over ≈ 0.3 s: several hundred readings, far fewer than the file's 30 624.
    expect(n).toBeGreaterThan(100)
    expect(n).toBeLessThan(30_000)
  })

  test('Battery Historian file (Unix seconds): placed by the host wall clock', async () => {
    const file = join(tmp, 'historian.txt')
    const nowS = Date.now() / 1000
    const lines: string[] = []
    // 0.25 A at 4 V (1 W) every 0.1 s from 2 s before to 30 s after now
    for (let i = -20; i <= 300; i++) lines.push(`${(nowS + i / 10).toFixed(1)} 0.25 4`)
    writeFileSync(file, `${lines.join('\n')}\n`)
    const mapping: ClockMapping = { from: 'host', to: 'boottime', offsetNs: 1e9, uncertaintyNs: 0 }
    const collector = externalMeterCollector({ file, hostToBoottime: mapping })
    const startHost = hostNowNs()
    await collector.start(contextFor(device))
    await sleep(300)
    const data = await collector.stop(contextFor(device))
    const stopHost = hostNowNs()
    if (data.kind !== 'series') throw new Error('expected a series')
    const { samples } = data.series
    for (const x of samples) expect(x.powerW).toBeCloseTo(1, 9)
    // ≈ 0.3 s at 10 Hz plus one reading on each side; the edges are covered
    expect(samples.length).toBeGreaterThanOrEqual(4)
    expect(samples.length).toBeLessThan(300)
    expect(samples[0]!.tNs).toBeLessThanOrEqual(startHost + 1e9 + 0.2e9)
    expect(samples.at(-1)!.tNs).toBeGreaterThanOrEqual(stopHost + 1e9 - 0.2e9)
  })

  test('CSV without a voltage column: the nominal voltage, flagged', async () => {
    const file = join(tmp, 'monsoon.csv')
    writeFileSync(file, 'Time (s),Main Avg Current (mA)\n0,250\n1,500\n2,250\n')
    const collector = externalMeterCollector({
      file,
      nominalVoltageV: 4,
      clipToWindow: false,
      hostToBoottime: { from: 'host', to: 'boottime', offsetNs: 0, uncertaintyNs: 0 },
    })
    await collector.start(contextFor(device))
    const data = await collector.stop(contextFor(device))
    if (data.kind !== 'series') throw new Error('expected a series')
    expect(data.series.samples.map((x) => x.powerW)).toEqual([1, 2, 1])
    expect(data.warnings.map((w) => w.code)).toEqual(['W_METER_NOMINAL_VOLTAGE'])
  })

  test('a file that does not exist → E_COLLECTOR_METER_FAILED at stop', async () => {
    const collector = externalMeterCollector({ file: join(tmp, 'missing.csv') })
    await collector.start(contextFor(device))
    expect(await codeOf(collector.stop(contextFor(device)))).toBe(CollectorErrors.METER_FAILED)
  })

  test('a file that is no meter format → the meter parser’s error', async () => {
    const file = join(tmp, 'junk.txt')
    writeFileSync(file, 'hello\nworld\n')
    const collector = externalMeterCollector({ file })
    await collector.start(contextFor(device))
    expect(await codeOf(collector.stop(contextFor(device)))).toMatch(/^E_METER_/)
  })

  test('a meter file that ends before the window → E_COLLECTOR_NO_POWER_DATA', async () => {
    const collector = externalMeterCollector({ file: BATTOR, fileStartHostNs: hostNowNs() - 60e9 })
    await collector.start(contextFor(device))
    await sleep(20)
    expect(await codeOf(collector.stop(contextFor(device)))).toBe(CollectorErrors.NO_POWER_DATA)
  })
})

describe('meter command', () => {
  // Prints BattOr text: 250 mA at 4000 mV (1 W) every 10 ms, t in ms since the script started.
  const script = [
    "const t0 = performance.now(); process.stdout.write('# BattOr\\n# sample_rate 100 Hz\\n');",
    'const tick = () => process.stdout.write(`${(performance.now() - t0).toFixed(3)} 250 4000\\n`);',
    "tick(); const id = setInterval(tick, 10); process.on('SIGTERM', () => { clearInterval(id); tick(); process.exit(0) });",
  ].join(' ')

  test('spawned at start, stopped at stop: 1 W throughout, readings on boottime in order', async () => {
    const collector = externalMeterCollector({ command: [process.execPath, '-e', script] })
    const context = contextFor(device)
    await collector.start(context)
    await sleep(1000) // leaves node time to start on a loaded machine
    const data = await collector.stop(context)
    if (data.kind !== 'series') throw new Error('expected a series')
    const { samples } = data.series
    expect(samples.length).toBeGreaterThan(5)
    for (const s of samples) expect(s.powerW).toBeCloseTo(1, 9)
    const spanS = (samples.at(-1)!.tNs - samples[0]!.tNs) / 1e9
    expect(trapezoidJ(samples)).toBeCloseTo(spanS, 9)
    for (let i = 1; i < samples.length; i++)
      expect(samples[i]!.tNs).toBeGreaterThan(samples[i - 1]!.tNs)
  })

  test('a command that dies early with an error → E_COLLECTOR_METER_FAILED with its stderr', async () => {
    const collector = externalMeterCollector({
      // sh starts in milliseconds, so it has surely exited by the stop
      command: ['/bin/sh', '-c', 'echo meter unplugged >&2; exit 3'],
    })
    await collector.start(contextFor(device))
    await sleep(500)
    const error = await collector.stop(contextFor(device)).catch((e: unknown) => e)
    expect(isEnergyError(error) && error.code).toBe(CollectorErrors.METER_FAILED)
    expect(String(error)).toContain('meter unplugged')
  })

  test('a command that does not exist → E_COLLECTOR_METER_FAILED at start', async () => {
    const collector = externalMeterCollector({ command: [join(tmp, 'no-such-meter')] })
    expect(await codeOf(collector.start(contextFor(device)))).toBe(CollectorErrors.METER_FAILED)
  })

  test('abort stops the command and forgets the window', async () => {
    const collector = externalMeterCollector({ command: [process.execPath, '-e', script] })
    await collector.start(contextFor(device))
    await collector.abort(contextFor(device))
    expect(await codeOf(collector.stop(contextFor(device)))).toBe(CollectorErrors.NOT_STARTED)
  })
})

test('neither or both of file and command → E_COLLECTOR_METER_CONFIG', () => {
  for (const options of [{}, { file: BATTOR, command: ['x'] }, { command: [] }]) {
    try {
      externalMeterCollector(options)
      throw new Error('expected an EnergyError')
    } catch (error) {
      expect(isEnergyError(error) && error.code).toBe(CollectorErrors.METER_CONFIG)
    }
  }
})

test('clip keeps the window covered and drops nothing inside it (property)', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 50 }),
      fc.integer({ min: -100, max: 10_100 }),
      fc.integer({ min: 0, max: 5_000 }),
      (times, from, length) => {
        const samples = [...times].sort((a, b) => a - b).map((tNs) => ({ tNs, powerW: 1 }))
        const to = from + length
        const kept = clip(samples, from, to)
        // nothing inside the window is lost
        for (const s of samples) if (s.tNs >= from && s.tNs <= to) expect(kept).toContain(s)
        // the edges are covered whenever the data covers them
        if (samples[0]!.tNs <= from) expect(kept[0]!.tNs).toBeLessThanOrEqual(from)
        if (samples.at(-1)!.tNs >= to) expect(kept.at(-1)!.tNs).toBeGreaterThanOrEqual(to)
        // at most one reading on each side of the window
        expect(kept.filter((s) => s.tNs < from).length).toBeLessThanOrEqual(1)
        expect(kept.filter((s) => s.tNs > to).length).toBeLessThanOrEqual(1)
      },
    ),
  )
})
