import { expect, test } from 'vitest'
import { appMethodsFirst, methodOrigin } from '../../src/model/index.js'

test('tells app code from platform frames and native symbols', () => {
  expect(methodOrigin('com.example.trails.FeedAdapter.bind')).toBe('app')
  expect(methodOrigin('com.example.trails.Feed.<init>')).toBe('app')
  expect(methodOrigin('android.os.Looper.loop')).toBe('platform')
  expect(methodOrigin('java.lang.Thread.run')).toBe('platform')
  expect(methodOrigin('__start_thread')).toBe('native')
  expect(methodOrigin('art_quick_invoke_stub')).toBe('native')
  expect(methodOrigin('android::uirenderer::renderthread::RenderThread::threadLoop()')).toBe(
    'native',
  )
})

test('puts app methods first and keeps the order within each group', () => {
  const methods = [
    '__start_thread',
    'android.app.ActivityThread.main',
    'com.a.B.c',
    'com.a.B.d',
  ].map((method) => ({ method }))
  expect(appMethodsFirst(methods, 3).map((m) => m.method)).toEqual([
    'com.a.B.c',
    'com.a.B.d',
    '__start_thread',
  ])
})

test('shiftCallTrace moves wall times onto another clock and keeps thread-CPU times', async () => {
  const { shiftCallTrace } = await import('../../src/model/index.js')
  const trace = {
    clock: 'monotonic' as const,
    threads: [{ id: 1, name: 'main' }],
    overflowed: false,
    mode: 'sampling' as const,
    calls: [
      {
        threadId: 1,
        method: 'a.B.c',
        startNs: 10,
        endNs: 30,
        cpuStartNs: 1,
        cpuEndNs: 5,
        depth: 0,
        clippedStart: false,
        clippedEnd: false,
        unwound: false,
      },
    ],
  }
  const moved = shiftCallTrace(trace, 1000, 'boottime')
  expect(moved.clock).toBe('boottime')
  expect(moved.calls[0]).toMatchObject({ startNs: 1010, endNs: 1030, cpuStartNs: 1, cpuEndNs: 5 })
  expect(trace.calls[0]!.startNs, 'input untouched').toBe(10)
})
