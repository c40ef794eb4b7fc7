// One test's energy calls against a scripted phone (no device): a measurement the test did not
// await, or that was still running when the test ended, is settled before the next test — its
// window abandoned (after a bounded wait for its body), the phone's window freed — and the test
// fails with E_MEASURE_NOT_AWAITED only when it never awaited the call; an error of the test's
// own code inside a window is that error, the window abandoned, not a failed window.
// The device side (DeviceSession.measure with a signal, abandonWindow) runs on the virtual device
// in test/vitest/mistakes.e2e.test.ts.
import { afterEach, describe, expect, test, vi } from 'vitest'
import { EnergyError } from '../../src/model/index.js'
import type { TestEnergy } from '../../src/session/test-energy.js'
import { scriptedPhoneFields, scriptedWindow, testEnergyOn } from './_scripted-phone.js'
import type { WindowOutcome } from '../../src/session/window.js'

/** A phone that measures one window at a time, like DeviceSession: the calls it saw, in order. */
function scriptedPhone(windowError?: Error) {
  const log: string[] = []
  let open: string | undefined
  const phone = {
    ...scriptedPhoneFields,
    async measure<T>(
      label: string,
      _baseline: unknown,
      body: () => Promise<T>,
      _progress: unknown,
      options: { readonly signal?: AbortSignal } = {},
    ): Promise<WindowOutcome<T>> {
      if (open !== undefined) throw new Error(`'${label}' while '${open}' is open`)
      open = label
      log.push(`open ${label}`)
      try {
        if (windowError !== undefined) throw windowError
        const value = await body()
        if (options.signal?.aborted === true) {
          log.push(`abandoned ${label}`)
          throw options.signal.reason
        }
        log.push(`closed ${label}`)
        return { result: scriptedWindow(label, 1, 0.5), value, power: undefined as never }
      } finally {
        if (open === label) open = undefined
      }
    },
    async abandonWindow() {
      log.push(`abandonWindow ${open ?? '(none)'}`)
      open = undefined
    },
  }
  return { phone, log, isOpen: () => open !== undefined }
}

function testEnergy(phone: ReturnType<typeof scriptedPhone>['phone']): TestEnergy {
  return testEnergyOn(phone, 'refreshing the feed', 'feed.test.ts')
}

/** A body that runs until `finish()` is called. */
function pendingBody(): { body: () => Promise<void>; finish: () => void } {
  let finish = (): void => undefined
  const done = new Promise<void>((resolve) => (finish = resolve))
  return { body: () => done, finish }
}

async function errorOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

afterEach(() => {
  vi.useRealTimers()
})

describe('a measurement the test left running when it ended', () => {
  test('not awaited: its body may end within the wait, the window is abandoned, not attributed; the test fails with E_MEASURE_NOT_AWAITED', async () => {
    const { phone, log, isOpen } = scriptedPhone()
    const energy = testEnergy(phone)
    const { body, finish } = pendingBody()
    void energy.api.measure(body)
    const settling = errorOf(energy.settleMeasurements())
    finish()
    const error = await settling
    expect(error).toBeInstanceOf(EnergyError)
    expect(error).toMatchObject({ code: 'E_MEASURE_NOT_AWAITED' })
    expect((error as EnergyError).message).toContain(
      "energy.measure() 'refreshing the feed' was not awaited: the test ended while it was still running, so its window was abandoned",
    )
    expect((error as EnergyError).hint).toContain('await energy.measure(…)')
    expect(log).toEqual(['open refreshing the feed', 'abandoned refreshing the feed'])
    expect(isOpen()).toBe(false)
    expect(energy.results).toEqual([
      {
        schemaVersion: 1,
        status: 'skipped',
        label: 'refreshing the feed',
        reason:
          'energy.measure() was not awaited: the test ended while it was still running; its window was abandoned',
      },
    ])
  })

  test('a body that does not end within the wait: the window is abandoned without it, and the phone is free for the next test', async () => {
    vi.useFakeTimers()
    const { phone, log, isOpen } = scriptedPhone()
    const energy = testEnergy(phone)
    const { body, finish } = pendingBody()
    void energy.api.measure(body, { label: 'stuck' })
    const settling = errorOf(energy.settleMeasurements())
    await vi.advanceTimersByTimeAsync(4999)
    expect(log).toEqual(['open stuck'])
    await vi.advanceTimersByTimeAsync(1)
    expect(await settling).toMatchObject({ code: 'E_MEASURE_NOT_AWAITED' })
    expect(log).toEqual(['open stuck', 'abandonWindow stuck'])
    expect(isOpen()).toBe(false)
    expect(energy.results.map((r) => r.status)).toEqual(['skipped'])
    // The body ending later changes nothing the test reported.
    finish()
    await vi.runAllTimersAsync()
    expect(energy.results.map((r) => r.status)).toEqual(['skipped'])
  })

  test('awaited by a test that ended anyway (a timeout): the window is abandoned, with no error of its own', async () => {
    const { phone, log } = scriptedPhone()
    const energy = testEnergy(phone)
    const { body, finish } = pendingBody()
    const awaiting = errorOf(
      (async () => {
        await energy.api.measure(body)
      })(),
    )
    const settling = energy.settleMeasurements()
    finish()
    await expect(settling).resolves.toBeUndefined()
    expect(log).toEqual(['open refreshing the feed', 'abandoned refreshing the feed'])
    expect(energy.results).toMatchObject([
      {
        status: 'skipped',
        reason: 'the test ended while energy.measure() was still running; its window was abandoned',
      },
    ])
    await awaiting
  })

  test('repeat() and baseline() not awaited are settled the same way', async () => {
    vi.useFakeTimers()
    for (const start of [
      (e: TestEnergy) => e.api.repeat(2, () => undefined, { settleMs: 1e9 }),
      (e: TestEnergy) => e.api.baseline({ durationMs: 1e9 }),
    ]) {
      const { phone } = scriptedPhone()
      const energy = testEnergy(phone)
      void start(energy)
      const settling = errorOf(energy.settleMeasurements())
      await vi.advanceTimersByTimeAsync(5000)
      expect((await settling) as EnergyError).toMatchObject({ code: 'E_MEASURE_NOT_AWAITED' })
    }
  })
})

describe('a measurement the test never awaited, finished before the end', () => {
  test('its rejection is no unhandled error: the test fails with E_MEASURE_NOT_AWAITED', async () => {
    const { phone } = scriptedPhone()
    const energy = testEnergy(phone)
    void energy.api.measure(() => Promise.reject(new Error('element not found')))
    await new Promise((resolve) => setImmediate(resolve))
    const error = await errorOf(energy.settleMeasurements())
    expect((error as EnergyError).message).toContain(
      'was not awaited: the test never saw its result or its error',
    )
  })

  test('awaited in any way (await, Promise.all, .then, .catch) is not an error', async () => {
    const { phone } = scriptedPhone()
    const energy = testEnergy(phone)
    await energy.api.measure(() => undefined, { label: 'a' })
    await Promise.all([energy.api.measure(() => undefined, { label: 'b' })])
    await energy.api.measure(() => undefined, { label: 'c' }).then(() => undefined)
    await energy.api.measure(() => undefined, { label: 'd' }).catch(() => undefined)
    const r = await energy.api.repeat(2, () => undefined, { settleMs: 0, warmup: 0 })
    expect(r.runs).toHaveLength(2)
    await expect(energy.settleMeasurements()).resolves.toBeUndefined()
    expect(energy.results.map((x) => [x.label, x.status])).toEqual([
      ['a', 'measured'],
      ['b', 'measured'],
      ['c', 'measured'],
      ['d', 'measured'],
      ['refreshing the feed #1', 'measured'],
      ['refreshing the feed #2', 'measured'],
    ])
  })
})

describe("an error of the test's own code inside a window", () => {
  test('is what the measurement rejects with; the window is abandoned and says why, not E_WINDOW_FAILED', async () => {
    const { phone } = scriptedPhone()
    const energy = testEnergy(phone)
    const own = new Error(
      'Can\'t call click on element with selector "~x" because element wasn\'t found',
    )
    expect(await errorOf(energy.api.measure(() => Promise.reject(own)))).toBe(own)
    expect(energy.results).toEqual([
      {
        schemaVersion: 1,
        status: 'skipped',
        label: 'refreshing the feed',
        reason:
          'the test failed inside energy.measure() before its window closed; the window was abandoned',
      },
    ])
    await expect(energy.settleMeasurements()).resolves.toBeUndefined()
  })

  test('a failure of the window itself is still a failed window (E_WINDOW_FAILED when it is not an EnergyError)', async () => {
    const { phone } = scriptedPhone(new Error('perfetto exited'))
    const energy = testEnergy(phone)
    await errorOf(energy.api.measure(() => undefined))
    expect(energy.results).toMatchObject([
      {
        status: 'failed',
        error: { code: 'E_WINDOW_FAILED', message: expect.stringContaining('perfetto exited') },
      },
    ])
  })
})
