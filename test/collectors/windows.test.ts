/**
 * Windows that cannot collide, on one virtual phone reached through adbkit only: each collector
 * stops the recorder it started (by pid) and leaves other windows' recorders running, and nothing
 * of a window stays on the phone once it is closed, abandoned, or failed to start. And the virtual
 * phone says it is virtual, so a real Pixel 6's budgets never apply to it.
 */
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { lookupBudget, parseBudgetFile } from '../../src/budgets/index.js'
import {
  artTracingCollector,
  odpmCollector,
  simpleperfCollector,
} from '../../src/collectors/index.js'
import { probeCapabilities, shell, type AdbDevice } from '../../src/device/index.js'
import { isEnergyError } from '../../src/model/index.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../src/virtual-device/index.js'
import { adbDevice, contextFor, run, TAP } from './_vdev.js'

const DIR = '/data/local/tmp/vitest-energy'
const TRACES = '/data/misc/perfetto-traces'

let server: VirtualDeviceServer
let device: AdbDevice

beforeAll(async () => {
  server = await startVirtualDevice({ time: 'real', seed: 5 })
  device = await adbDevice(server.port, server.serials[0]!)
  await run(device, 'am start -W -n com.example.trails/.MainActivity')
})
afterAll(async () => server.close())

/** The pids of `name` in `ps -A` on the phone. */
async function pidsOf(name: string): Promise<string[]> {
  const table = await run(device, 'ps -A -o PID,NAME')
  return table
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, n]) => n === name)
    .map(([pid]) => pid!)
}

/** What `ls` lists in a device directory (nothing when it is empty or absent). */
async function files(dir: string): Promise<string[]> {
  const r = await shell(device, ['ls', dir])
  return r.exitCode === 0 ? r.stdout.split('\n').filter(Boolean) : []
}

describe('two windows on one phone', () => {
  test('stopping one window’s simpleperf and perfetto leaves the other’s running; both leave no file', async () => {
    const a = contextFor(device, 'wa')
    const b = contextFor(device, 'wb')
    const profilers = { a: simpleperfCollector(), b: simpleperfCollector() }
    const power = {
      a: odpmCollector({ endReading: 'extrapolate' }),
      b: odpmCollector({ endReading: 'extrapolate' }),
    }
    await Promise.all([profilers.a.start(a), power.a.start(a)])
    await Promise.all([profilers.b.start(b), power.b.start(b)])
    const simpleperfs = await pidsOf('simpleperf')
    const perfettos = await pidsOf('perfetto')
    expect(simpleperfs, 'both recorders run').toHaveLength(2)
    expect(perfettos, 'both sessions run').toHaveLength(2)
    expect(await files(TRACES)).toEqual(['vitest-energy-wa.pftrace', 'vitest-energy-wb.pftrace'])

    await run(device, TAP.refresh)
    const [stacksA, railsA] = await Promise.all([profilers.a.stop(a), power.a.stop(a)])
    expect(stacksA.kind).toBe('stacks')
    expect(railsA.kind).toBe('rails')
    const stillSimpleperf = await pidsOf('simpleperf')
    const stillPerfetto = await pidsOf('perfetto')
    expect(stillSimpleperf, 'window b’s recorder still runs').toHaveLength(1)
    expect(simpleperfs).toContain(stillSimpleperf[0])
    expect(stillPerfetto, 'window b’s session still runs').toHaveLength(1)
    expect(perfettos).toContain(stillPerfetto[0])
    expect(await files(TRACES)).toEqual(['vitest-energy-wb.pftrace'])

    await run(device, TAP.refresh)
    const [stacksB, railsB] = await Promise.all([profilers.b.stop(b), power.b.stop(b)])
    expect(stacksB.kind === 'stacks' && stacksB.samples.samples.length).toBeGreaterThan(0)
    expect(railsB.kind === 'rails' && railsB.rails.length).toBeGreaterThan(0)
    expect(await pidsOf('simpleperf')).toEqual([])
    expect(await pidsOf('perfetto')).toEqual([])
    expect(await files(DIR)).toEqual([])
    expect(await files(TRACES)).toEqual([])
  })
})

describe('nothing is left on the phone', () => {
  test('an abandoned window (abort) stops only its own recorders and removes its files', async () => {
    const other = contextFor(device, 'wother')
    const otherProfiler = simpleperfCollector()
    await otherProfiler.start(other)
    const [otherPid] = await pidsOf('simpleperf')

    const c = contextFor(device, 'wabandoned')
    const profiler = simpleperfCollector()
    const power = odpmCollector()
    await Promise.all([profiler.start(c), power.start(c)])
    await run(device, TAP.refresh)
    expect(await pidsOf('simpleperf')).toHaveLength(2)
    await Promise.all([profiler.abort(c), power.abort(c)])
    expect(await pidsOf('simpleperf')).toEqual([otherPid])
    expect(await pidsOf('perfetto')).toEqual([])
    expect(await files(TRACES)).toEqual([])

    await otherProfiler.abort(other)
    expect(await pidsOf('simpleperf')).toEqual([])
    expect(await files(DIR)).toEqual([])
  })

  test('ART tracing: a window that failed to start removes its own file only; close and abort remove theirs', async () => {
    const running = contextFor(device, 'wrunning')
    const refused = contextFor(device, 'wrefused')
    const first = artTracingCollector()
    await first.start(running)
    // Android allows one `am profile` session per app: the second window fails to start.
    const error = await artTracingCollector()
      .start(refused)
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    expect(isEnergyError(error) && error.code).toBe('E_COLLECTOR_RECORDER_FAILED')
    expect(await files(DIR)).toEqual(['wrunning.trace'])
    await run(device, TAP.refresh)
    expect((await first.stop(running)).kind).toBe('calls')
    expect(await files(DIR)).toEqual([])

    const abandoned = contextFor(device, 'wart-abandoned')
    const tracer = artTracingCollector()
    await tracer.start(abandoned)
    expect(await files(DIR)).toEqual(['wart-abandoned.trace'])
    await tracer.abort(abandoned)
    expect(await files(DIR)).toEqual([])
  })

  test('a stop that fails still removes the window’s files', async () => {
    const c = contextFor(device, 'wfails')
    const tracer = artTracingCollector({ stopTimeoutMs: 200 })
    await tracer.start(c)
    // The app dies mid-window: `am profile stop` fails, the trace stays empty.
    await run(device, 'am force-stop com.example.trails')
    await expect(tracer.stop(c)).rejects.toMatchObject({ code: 'E_COLLECTOR_RECORDER_FAILED' })
    expect(await files(DIR)).toEqual([])
    await run(device, 'am start -W -n com.example.trails/.MainActivity')
  })
})

test('the virtual phone says it is virtual: a real Pixel 6’s budget never applies to it', async () => {
  const { model } = await probeCapabilities(device, { perfettoRails: false })
  expect(model).toBe('Pixel 6 (virtual)')
  const golden = fileURLToPath(new URL('../fixtures/budgets/energy-budgets.json', import.meta.url))
  const budgets = parseBudgetFile(await readFile(golden, 'utf8'))
  const key = { file: 'feed.test.ts', name: 'feed > opening the feed' }
  expect(lookupBudget(budgets, { ...key, device: 'Pixel 6' })?.device).toBe('Pixel 6')
  expect(lookupBudget(budgets, { ...key, device: model })?.device).toBe('*')
})
