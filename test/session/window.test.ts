// The energy window's own logic with scripted collectors (no device): both recorders start and
// stop together, the power source reads past the end before anything stops, and every failure
// leaves nothing recording — the other recorder is aborted or stopped, the right error surfaces.
import { describe, expect, test } from 'vitest'
import type {
  CollectorContext,
  ExecutionCollector,
  ExecutionData,
  PowerCollector,
  PowerData,
} from '../../src/collectors/index.js'
import { hostNowNs, type AdbDevice, type DeviceClockMapping } from '../../src/device/index.js'
import { EnergyError, isEnergyError } from '../../src/model/index.js'
import { executionFailure, openWindow, type WindowPlan } from '../../src/session/window.js'

type Step = 'ok' | 'reject' | 'throw'

/** A collector whose calls are logged and whose start/stop succeed, reject or throw at once. */
function scripted<T>(
  name: string,
  log: string[],
  data: () => T,
  script: { start?: Step; stop?: Step; stopError?: Error },
): {
  start: (c: CollectorContext) => Promise<void>
  stop: (c: CollectorContext) => Promise<T>
  abort: (c: CollectorContext) => Promise<void>
  name: string
} {
  const act = (what: 'start' | 'stop', step: Step | undefined, error: Error): void => {
    log.push(`${name}.${what}`)
    if (step === 'throw') throw error
  }
  return {
    name,
    // Not `async`: a collector that throws synchronously must be handled too.
    start: (() => {
      act('start', script.start, new Error(`${name} start threw`))
      return script.start === 'reject'
        ? Promise.reject(new Error(`${name} could not start`))
        : Promise.resolve()
    }) as (c: CollectorContext) => Promise<void>,
    stop: (() => {
      const error = script.stopError ?? new Error(`${name} could not stop`)
      act('stop', script.stop, error)
      return script.stop === 'reject' ? Promise.reject(error) : Promise.resolve(data())
    }) as (c: CollectorContext) => Promise<T>,
    abort: async () => {
      log.push(`${name}.abort`)
    },
  }
}

/** One watt for a minute around now, on the host clock (the plan maps host = boottime). */
function series(): PowerData {
  const now = hostNowNs()
  return {
    kind: 'series',
    series: {
      kind: 'instant',
      source: 'fake',
      clock: 'boottime',
      samples: [
        { tNs: now - 30e9, powerW: 1 },
        { tNs: now + 30e9, powerW: 1 },
      ],
    },
    warnings: [],
  }
}

const noSamples = (): ExecutionData => ({
  kind: 'stacks',
  samples: { clock: 'boottime', samples: [], lostCount: 0 },
  warnings: [],
})

function plan(power: PowerCollector, execution?: ExecutionCollector): WindowPlan {
  const boottime: DeviceClockMapping = {
    from: 'host',
    to: 'boottime',
    offsetNs: 0,
    uncertaintyNs: 0,
    roundTripNs: 0,
    method: 'intersection',
    command: 'cat /proc/uptime',
    readings: [],
  }
  return {
    device: { serial: 'fake-1' } as AdbDevice,
    deviceModel: 'Fake',
    app: 'com.example.trails',
    power,
    ...(execution === undefined ? {} : { execution }),
    boottime,
    baseline: { kind: 'none' },
  }
}

const fatal = new EnergyError({
  code: 'E_DEVICE_DISCONNECTED',
  message: 'the phone went away',
  hint: 'plug it in',
})
const recoverable = new EnergyError({
  code: 'E_COLLECTOR_RECORDER_FAILED',
  message: 'simpleperf found no app process',
  hint: 'start the app',
})

describe('openWindow with scripted collectors', () => {
  test('the power source reads past the end before anything stops; both stop; the result is attributed', async () => {
    const log: string[] = []
    const power: PowerCollector = {
      ...scripted('power', log, series, {}),
      awaitEndReading: async () => {
        log.push('power.awaitEndReading')
      },
    }
    const execution = scripted('execution', log, noSamples, {})
    const window = await openWindow(plan(power, execution), 'test')
    const { result } = await window.closeWithData()
    expect(log.slice(0, 2).sort()).toEqual(['execution.start', 'power.start'])
    expect(log[2]).toBe('power.awaitEndReading')
    expect(log.slice(3).sort()).toEqual(['execution.stop', 'power.stop'])
    expect(result.grossEnergyJ).toBeGreaterThan(0)
  })

  test('a recorder that fails to start (rejecting or throwing) aborts the one that started', async () => {
    for (const step of ['reject', 'throw'] as const) {
      const log: string[] = []
      const power = scripted('power', log, series, {})
      const execution = scripted('execution', log, noSamples, { start: step })
      await expect(openWindow(plan(power, execution), 't')).rejects.toThrow(/execution/)
      expect(log).toContain('power.abort')
      expect(log).not.toContain('execution.abort')
    }
  })

  test('the method recorder failing recoverably leaves a window without per-method figures', async () => {
    const log: string[] = []
    const power = scripted('power', log, series, {})
    const execution = scripted('execution', log, noSamples, {
      stop: 'reject',
      stopError: recoverable,
    })
    const result = await (await openWindow(plan(power, execution), 't')).close()
    expect(result.warnings.map((w) => w.code)).toContain('W_EXECUTION_FAILED')
    expect(log).toContain('power.stop')
  })

  test("the recorder's failure for an app that was not running says so, and what to do", () => {
    const said = executionFailure(
      "[E_COLLECTOR_RECORDER_FAILED] device vdev-0001: simpleperf report-sample failed (exit 1): simpleperf E record_file_reader.cpp:78] failed to open record file '/data/local/tmp/x.perf.data': No such file or directory; recorder said: simpleperf E cmd_record.cpp:1147] Can't find process of app com.example.trails",
    )
    expect(said).toMatch(/^com\.example\.trails was not running when the window opened/)
    expect(said).toContain('start it before measuring')
    // Anything else: the recorder's first line, as it said it.
    expect(executionFailure('[E_X] simpleperf died\nat line 2')).toBe('[E_X] simpleperf died')
  })

  test('a disconnected phone or a non-project error from the method recorder fails the window, after the power recorder has stopped', async () => {
    for (const [step, error] of [
      ['reject', fatal],
      ['throw', new TypeError('a bug')],
    ] as const) {
      const log: string[] = []
      const power = scripted('power', log, series, {})
      const execution = scripted('execution', log, noSamples, { stop: step, stopError: error })
      const window = await openWindow(plan(power, execution), 't')
      await expect(window.close()).rejects.toBe(error)
      expect(log).toContain('power.stop')
    }
  })

  test('the power recorder failing to stop fails the window with its error; the other still stops', async () => {
    const log: string[] = []
    const power = scripted('power', log, series, { stop: 'throw', stopError: recoverable })
    const execution = scripted('execution', log, noSamples, {})
    const window = await openWindow(plan(power, execution), 't')
    const error: unknown = await window.close().catch((e: unknown) => e)
    expect(isEnergyError(error) && error.code).toBe('E_COLLECTOR_RECORDER_FAILED')
    expect(log).toContain('execution.stop')
  })

  test('awaitEndReading failing does not stop the stops', async () => {
    const log: string[] = []
    const power: PowerCollector = {
      ...scripted('power', log, series, {}),
      awaitEndReading: () => Promise.reject(new Error('no reading')),
    }
    const window = await openWindow(plan(power), 't')
    const result = await window.close()
    expect(log).toEqual(['power.start', 'power.stop'])
    expect(result.status).toBe('measured')
  })

  test('the end-of-window checks run after the end reading, alongside the stops, and their warnings come first', async () => {
    const log: string[] = []
    let releaseStop: () => void = () => undefined
    const stopHeld = new Promise<void>((resolve) => (releaseStop = resolve))
    const power: PowerCollector = {
      ...scripted('power', log, series, {}),
      awaitEndReading: async () => {
        log.push('power.awaitEndReading')
      },
      // The stop waits for the check: the window would hang if it ran the check after the stops.
      stop: async () => {
        log.push('power.stop')
        await stopHeld
        return series()
      },
    }
    const window = await openWindow(
      {
        ...plan(power),
        atEnd: async () => {
          log.push('atEnd')
          releaseStop()
          return [{ code: 'W_WAKELOCK_HELD', severity: 'warning', message: 'a lock is held' }]
        },
      },
      't',
    )
    const result = await window.close()
    expect(log.indexOf('atEnd')).toBeGreaterThan(log.indexOf('power.awaitEndReading'))
    expect(result.warnings[0]?.code).toBe('W_WAKELOCK_HELD')
  })

  test('an end-of-window check that fails adds nothing and fails nothing', async () => {
    const log: string[] = []
    const window = await openWindow(
      { ...plan(scripted('power', log, series, {})), atEnd: () => Promise.reject(new Error('x')) },
      't',
    )
    const result = await window.close()
    expect(result.status).toBe('measured')
    expect(result.warnings.map((w) => w.code)).not.toContain('W_WAKELOCK_HELD')
  })
})

describe('end(): the window ends now, its power data is read in the background', () => {
  test('the method recorder stops at the end; the power source reads past it afterwards, told when the window ended', async () => {
    const log: string[] = []
    let endAsked: number | undefined
    let letReadingLand: () => void = () => undefined
    const reading = new Promise<void>((resolve) => (letReadingLand = resolve))
    const power: PowerCollector = {
      ...scripted('power', log, series, {}),
      awaitEndReading: async (_context, endHostNs) => {
        log.push('power.awaitEndReading')
        endAsked = endHostNs
        await reading
      },
    }
    const execution = scripted('execution', log, noSamples, {})
    const window = await openWindow(plan(power, execution), 't')
    const before = hostNowNs()
    const { result } = await window.end()
    const after = hostNowNs()
    // end() has returned: the method recorder has stopped, the power source has not.
    expect(log).toContain('execution.stop')
    expect(log).not.toContain('power.stop')
    letReadingLand()
    const measured = await result
    expect(log.indexOf('power.stop')).toBeGreaterThan(log.indexOf('power.awaitEndReading'))
    expect(endAsked).toBeGreaterThanOrEqual(before)
    expect(endAsked).toBeLessThanOrEqual(after)
    expect(measured.window.endNs).toBe(endAsked)
    expect(measured.status).toBe('measured')
  })

  test('the attribution waits for the phone state that earlier windows read in the background tell', async () => {
    const log: string[] = []
    let tell: () => void = () => undefined
    const told = new Promise<void>((resolve) => (tell = resolve))
    const power: PowerCollector = {
      ...scripted('power', log, series, {}),
      awaitEndReading: async () => undefined,
    }
    const window = await openWindow(
      {
        ...plan(power),
        latestAsyncState: async () => {
          log.push('latestAsyncState')
          await told
          log.push('told')
          return { carriedOver: new Map(), railFloorsW: new Map() }
        },
      },
      't',
    )
    const { result } = await window.end()
    let done = false
    void result.then(() => (done = true))
    await new Promise((r) => setTimeout(r, 20))
    expect(done).toBe(false)
    tell()
    expect((await result).status).toBe('measured')
    expect(log.slice(-2)).toEqual(['latestAsyncState', 'told'])
  })

  test('a power source that reads only when it stops is stopped by end() itself', async () => {
    const log: string[] = []
    const window = await openWindow(plan(scripted('power', log, series, {})), 't')
    await window.end()
    expect(log).toEqual(['power.start', 'power.stop'])
  })

  test('a disconnected phone at the end rejects end() and leaves nothing recording', async () => {
    const log: string[] = []
    const power: PowerCollector = {
      ...scripted('power', log, series, {}),
      awaitEndReading: async () => undefined,
    }
    const execution = scripted('execution', log, noSamples, { stop: 'reject', stopError: fatal })
    const window = await openWindow(plan(power, execution), 't')
    await expect(window.end()).rejects.toBe(fatal)
    expect(log).toContain('power.abort')
  })

  test('the power source failing after the end rejects the result with its error', async () => {
    const log: string[] = []
    const power: PowerCollector = {
      ...scripted('power', log, series, { stop: 'reject', stopError: recoverable }),
      awaitEndReading: async () => undefined,
    }
    const window = await openWindow(plan(power), 't')
    const { result } = await window.end()
    await expect(result).rejects.toBe(recoverable)
  })
})
