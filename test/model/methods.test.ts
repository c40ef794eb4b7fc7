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
