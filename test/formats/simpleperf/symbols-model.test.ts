import { describe, expect, test } from 'vitest'
import {
  SimpleperfErrors,
  javaMethodName,
  normalizeFrameName,
  parseReportSampleText,
  toStackSampleSet,
} from '../../../src/formats/simpleperf/index.js'
import { expectEnergyError, fixtureText } from './_helpers.js'

describe('javaMethodName', () => {
  const java: Array<[string, string]> = [
    ['com.example.Foo.bar', 'com.example.Foo.bar'],
    ['void com.example.Foo.bar(int)', 'com.example.Foo.bar'],
    [
      'boolean android.os.Handler.sendMessage(android.os.Message)',
      'android.os.Handler.sendMessage',
    ],
    ['java.lang.String[] a.B.c(int[], long)', 'a.B.c'],
    ['com.example.Foo.bar [DEDUPED]', 'com.example.Foo.bar'],
    ['com.example.Foo.bar(int) [DEDUPED]', 'com.example.Foo.bar'],
    [
      'android.view.ViewRootImpl$TraversalRunnable.run',
      'android.view.ViewRootImpl$TraversalRunnable.run',
    ],
    [
      'android.view.-$$Lambda$ViewRootImpl$7A_3tkr_Kw4TZAeIUGVlOoTcZhg.run',
      'android.view.-$$Lambda$ViewRootImpl$7A_3tkr_Kw4TZAeIUGVlOoTcZhg.run',
    ],
    ['java.lang.Object.<init>', 'java.lang.Object.<init>'],
    ['void com.example.Foo.<clinit>()', 'com.example.Foo.<clinit>'],
  ]
  test.each(java)('%s → %s', (symbol, expected) => {
    expect(javaMethodName(symbol)).toBe(expected)
    expect(normalizeFrameName(symbol, '/data/app/base.apk!/classes.dex')).toBe(expected)
  })

  const native = [
    'art_quick_invoke_stub',
    'art_quick_invoke_static_stub',
    'art::ArtMethod::Invoke(art::Thread*, unsigned int*, unsigned int, art::JValue*, char const*)',
    'void art::gc::collector::ConcurrentCopying::Process<false>(art::mirror::Object*, art::MemberOffset)',
    'android::uirenderer::renderthread::RenderThread::threadLoop()',
    '__start_thread',
    'main',
    'memcpy.llvm.1234567',
    'foo.cold',
    'libGLESv2_adreno.so[+29c3f0]',
    '*libGLESv2_adreno.so[+29c3f0]',
    '',
    '<init>.x',
  ]
  test.each(native)('native %j stays as printed', (symbol) => {
    expect(javaMethodName(symbol)).toBeUndefined()
    expect(normalizeFrameName(symbol)).toBe(symbol)
  })

  test('kernel and shared-object frames are native even when dotted', () => {
    expect(javaMethodName('do_page_fault.cfi', '[kernel.kallsyms]')).toBeUndefined()
    expect(javaMethodName('sys.call', '[kernel.kallsyms]')).toBeUndefined()
    expect(javaMethodName('a.b', '/system/lib64/libfoo.so')).toBeUndefined()
    expect(javaMethodName('a.b', '[JIT app cache]')).toBe('a.b')
  })
})

describe('toStackSampleSet', () => {
  const report = parseReportSampleText(fixtureText('simpleperf/report_sample_show_callchain.txt'))

  test('frames leaf first with Java names, period from task-clock, lost count', () => {
    const set = toStackSampleSet(report)
    expect(set.clock).toBe('monotonic')
    expect(set.lostCount).toBe(2)
    expect(set.samples).toHaveLength(3)
    expect(set.samples[1]).toEqual({
      tNs: 4398127615234,
      threadId: 12345,
      threadName: 'com.example.energy',
      frames: [
        'com.example.energy.Feed.render',
        'com.example.energy.Feed$Adapter.onBind',
        'art_quick_invoke_stub',
        'android.app.ActivityThread.main',
        '__libc_init',
      ],
      periodNs: 250000,
    })
    expect(set.samples[2]?.frames).toEqual(['do_page_fault.cfi'])
  })

  test('clock from options, then from a meta clockid key', () => {
    expect(toStackSampleSet(report, { clock: 'monotonic_raw' }).clock).toBe('monotonic_raw')
    const withMeta = parseReportSampleText('meta_info:\n  clockid: boottime\n')
    expect(toStackSampleSet(withMeta).clock).toBe('boottime')
  })

  test('perf clock cannot be aligned and is refused', () => {
    const perf = parseReportSampleText('meta_info:\n  clockid: perf\n')
    expectEnergyError(() => toStackSampleSet(perf), SimpleperfErrors.UNKNOWN_CLOCK)
  })

  test('non-time events carry no period; filtering by event type; raw symbols on request', () => {
    const cycles = {
      ...report,
      samples: report.samples.map((s) => ({ ...s, eventType: 'cpu-cycles' })),
    }
    expect(toStackSampleSet(cycles).samples.every((s) => s.periodNs === undefined)).toBe(true)
    expect(toStackSampleSet(report, { eventType: 'cpu-cycles' }).samples).toEqual([])
    expect(toStackSampleSet(report, { javaMethodNames: false }).samples[1]?.frames[1]).toBe(
      'com.example.energy.Feed$Adapter.onBind [DEDUPED]',
    )
  })
})
