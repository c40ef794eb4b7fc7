import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'

import {
  assembleBatterystatsHistory,
  BatterystatsErrors,
  BatterystatsHistoryDecoder,
  BatterystatsWarnings,
  formatBatterystatsHistory,
  formatHistoryTime,
  historyTimeline,
  parseBatterystatsHistory,
  parseBatterystatsHistoryLines,
  parseHistoryTimeMs,
  sniffBatterystats,
  stateDurationNs,
  timeOnBatteryNs,
  type HistoryRecord,
} from '../../../src/formats/batterystats/index.js'
import { EnergyError } from '../../../src/model/errors.js'
import { expectLinear } from '../_linear.js'

const corpus = join(import.meta.dirname, '../../fixtures/corpus/2_batterystats')
const read = (f: string): string => readFileSync(join(corpus, f), 'utf8')
const golden = JSON.parse(
  readFileSync(
    join(import.meta.dirname, '../../fixtures/batterystats/history-golden.json'),
    'utf8',
  ),
) as Record<
  string,
  {
    records: number
    updates: number
    resets: number
    starts: number
    shutdowns: number
    overflows: number
    times: number
    detailLines: number
    screenOn: number
    screenOff: number
    lastTime: string
    timeReversals: number
  }
>

const records = (text: string): HistoryRecord[] =>
  parseBatterystatsHistory(text).items.filter((i): i is HistoryRecord => i.kind === 'record')

describe('batterystats history corpus (Android 4.4 to 15)', () => {
  test.each(Object.keys(golden))('%s: golden counts, byte-faithful round trip', (file) => {
    const text = read(file)
    const g = golden[file]
    if (g === undefined) throw new Error('no golden')
    const history = parseBatterystatsHistory(text)
    expect(history.header).toMatch(/^Battery History \(/)
    const recs = history.items.filter((i): i is HistoryRecord => i.kind === 'record')
    expect(
      history.items.filter((i) => i.kind === 'unknown'),
      'unknown lines',
    ).toEqual([])
    expect(recs.length, 'records').toBe(g.records)
    const count = (c: string): number => recs.filter((r) => r.command === c).length
    expect(count('update'), 'updates').toBe(g.updates)
    expect(count('reset'), 'resets').toBe(g.resets)
    expect(count('start'), 'starts').toBe(g.starts)
    expect(count('shutdown'), 'shutdowns').toBe(g.shutdowns)
    expect(count('overflow'), 'overflows').toBe(g.overflows)
    expect(count('time'), 'times').toBe(g.times)
    expect(
      recs.reduce((n, r) => n + r.details.length, 0),
      'detail lines',
    ).toBe(g.detailLines)
    const flags = recs
      .flatMap((r) => r.tokens)
      .filter((t) => t.kind === 'flag' && t.name === 'screen')
    expect(flags.filter((t) => t.kind === 'flag' && t.on).length, '+screen').toBe(g.screenOn)
    expect(flags.filter((t) => t.kind === 'flag' && !t.on).length, '-screen').toBe(g.screenOff)
    expect(recs.at(-1)?.tNs).toBe((parseHistoryTimeMs(g.lastTime) ?? NaN) * 1e6)
    expect(historyTimeline(history).timeReversals, 'time reversals').toBe(g.timeReversals)
    // every token has a known shape in the real corpus
    expect(recs.flatMap((r) => r.tokens).filter((t) => t.kind === 'unknown')).toEqual([])
    // writer reproduces the section byte for byte (these files have CRLF or CR CR LF endings)
    const eol = text.includes('\r\r\n') ? '\r\r\n' : text.includes('\r\n') ? '\r\n' : '\n'
    const written = formatBatterystatsHistory(history, { lineEnding: eol })
    expect(text.startsWith(written)).toBe(true)
    expect(text.slice(written.length).replace(/^\r*\n/, '')).toMatch(/^[A-Z]/)
    // streaming one line at a time gives the same items as batch
    const streamed = [...parseBatterystatsHistoryLines(text.split('\n'))].filter(
      (i) => i.kind === 'record' || i.kind === 'unknown',
    )
    expect(streamed).toEqual(history.items)
  })

  test('Android 4.4 overflowing duration fields (+1d00h60m00s533ms) keep their text', () => {
    const recs = records(read('asksven_androidcommon_dumpsys_batterystats_2014.txt'))
    const odd = recs.find((r) => r.line === 5559)
    expect(odd?.timeText).toBe('+1d00h60m00s533ms')
    expect(odd?.tNs).toBe((((24 + 1) * 60 + 0) * 60 * 1000 + 533) * 1e6)
  })

  test('Android 15 Details continuation lines attach to their record', () => {
    const recs = records(read('redmik80pro_android15_batterystats.txt'))
    const withDetails = recs.find((r) => r.details.length > 0)
    expect(withDetails?.tokens).toEqual([{ kind: 'value', name: 'charge', value: '5376' }])
    expect(withDetails?.details[0]).toMatch(/^\s+Details: cpu=1281170u\+1269860s$/)
    expect(withDetails?.details[1]).toMatch(/^\s+\/proc\/stat=/)
  })
})

describe('batterystats history line endings (issue 16)', () => {
  // `adb shell dumpsys batterystats > file` on Windows writes CR CR LF: these two real Samsung-era
  // captures read as 0 records and every line `unknown` before.
  const crcrlf = [
    'hpbl_exercicio_podcast_samsung_batterystats.txt',
    'milechwan_exercicio_podcast_batterystats.txt',
  ]
  const endings = ['\n', '\r\n', '\r\r\n', '\r'] as const
  const lines = (text: string): string[] => text.split(/\r*\n/)
  const join = (ls: readonly string[], pick: (i: number) => string): string => {
    let out = ''
    let prev = ''
    for (let i = 0; i < ls.length; i++) {
      const line = ls[i] ?? ''
      // after a lone CR, an empty line ended by LF is indistinguishable from CRLF: keep CR there
      const eol = prev === '\r' && line === '' ? '\r' : pick(i)
      out += line + eol
      prev = eol
    }
    return out
  }
  test.each(crcrlf)('%s: the CR CR LF capture has CR CR LF endings and reads fully', (file) => {
    const text = read(file)
    expect(text).toContain('\r\r\n')
    const h = parseBatterystatsHistory(text)
    expect(h.items.filter((i) => i.kind === 'unknown')).toEqual([])
    expect(h.items.length).toBe(golden[file]?.records)
  })
  test.each(crcrlf)('%s: \\n, \\r\\n, \\r\\r\\n, \\r and any mix read the same', (file) => {
    const ls = lines(read(file))
    const reference = parseBatterystatsHistory(join(ls, () => '\n'))
    for (const eol of endings)
      expect(parseBatterystatsHistory(join(ls, () => eol))).toEqual(reference)
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...endings), { minLength: 1, maxLength: 64 }), (pat) => {
        const text = join(ls, (i) => pat[i % pat.length] ?? '\n')
        expect(parseBatterystatsHistory(text)).toEqual(reference)
      }),
      { numRuns: 20 },
    )
  })
  test('a CR CR LF pair split across chunks is one line end', () => {
    const text =
      '                    0 (2) 100 +screen\r\r\n             +1s000ms (2) 100 -screen\r\r\n'
    for (let cut = 0; cut <= text.length; cut++) {
      const d = new BatterystatsHistoryDecoder()
      const out = [...d.push(text.slice(0, cut)), ...d.push(text.slice(cut)), ...d.end()]
      expect(out.map((i) => i.kind === 'record' && i.line)).toEqual([1, 2])
    }
  })
})

describe('batterystats history: Android 8.1 wraps Details onto column 0 (issue 16)', () => {
  const file = join(
    import.meta.dirname,
    '../../fixtures/batterystats/android8.1-pixel-wrapped-details.txt',
  )
  const text = readFileSync(file, 'utf8')
  test('`, SubsystemPowerState …` lines stay with their record and the history reads to its end', () => {
    const h = parseBatterystatsHistory(text)
    const recs = h.items.filter((i): i is HistoryRecord => i.kind === 'record')
    expect(h.items).toHaveLength(20)
    expect(recs.at(-1)?.tNs).toBe(842_033e6)
    const wrapped = recs.filter((r) => r.details.length > 0)
    expect(wrapped.map((r) => r.details.length)).toEqual([3, 3, 3, 3])
    for (const r of wrapped) {
      expect(r.details[0]).toMatch(/^ {17}Details: cpu=/)
      expect(r.details[1]).toMatch(/^ {26}\/proc\/stat=.*, PlatformIdleStat /)
      expect(r.details[2]).toMatch(/^, SubsystemPowerState /)
    }
    expect(h.dumpStats).toEqual({ line: 57, timeOnBatteryNs: 540e9, totalRunTimeNs: 900e9 })
    expect(h.warnings).toEqual([])
    const tl = historyTimeline(h, { endNs: 900e9 })
    expect(timeOnBatteryNs(tl) / 1e9).toBe(540)
    expect(formatBatterystatsHistory(h)).toBe(text.slice(0, text.indexOf('\n\nPer-PID') + 1))
  })
  test('chunked decoding gives the same items', () => {
    const batch = [...parseBatterystatsHistoryLines(text.split('\n'))]
    for (const size of [1, 7, 4096]) {
      const d = new BatterystatsHistoryDecoder()
      const out = []
      for (let i = 0; i < text.length; i += size) out.push(...d.push(text.slice(i, i + size)))
      expect([...out, ...d.end()]).toEqual(batch)
    }
  })
  test('a history cut short at an unknown column-0 line warns twice: cut, and time on battery', () => {
    const cut = text.replaceAll('\n, SubsystemPowerState', '\n; SubsystemPowerState')
    const h = parseBatterystatsHistory(cut)
    expect(h.items).toHaveLength(8)
    expect(h.dumpStats?.timeOnBatteryNs).toBe(540e9)
    expect(h.warnings?.map((w) => w.code)).toEqual([
      BatterystatsWarnings.HISTORY_CUT,
      BatterystatsWarnings.HISTORY_INCOMPLETE,
    ])
    expect(h.warnings?.[0]?.message).toContain('line 12')
    expect(h.warnings?.[1]?.message).toContain('900.000 s on battery')
    expect(h.warnings?.[1]?.message).toContain('says 540.000 s')
  })
  test("a full history that disagrees with the dump's Time on battery warns", () => {
    const off = text.replace('Time on battery: 9m 0s 0ms', 'Time on battery: 9m 5s 0ms')
    expect(parseBatterystatsHistory(off).warnings?.map((w) => w.code)).toEqual([
      BatterystatsWarnings.HISTORY_INCOMPLETE,
    ])
    const close = text.replace('Time on battery: 9m 0s 0ms', 'Time on battery: 9m 0s 999ms')
    expect(parseBatterystatsHistory(close).warnings).toEqual([])
  })
})

describe('batterystats history in a bugreport (issue 16)', () => {
  const pixel = readFileSync(
    join(import.meta.dirname, '../../fixtures/batterystats/android8.1-pixel-wrapped-details.txt'),
    'utf8',
  )
  const separator = '-'.repeat(79)
  const service = (name: string, body: string[]): string[] => [
    separator,
    `DUMP OF SERVICE ${name}:`,
    ...body,
    `--------- 0.012s was the duration of dumpsys ${name}, ending at: 2018-04-02 08:36:24`,
  ]
  // `dumpsys alarm` prints history-shaped lines: a 3-digit count after a duration
  const alarm = service('alarm', [
    'Current Alarm Manager state:',
    '  Alarm Stats:',
    '  1000:android +1m13s611ms running, 113 wakeups:',
    '    +5s123ms 100 wakes 100 alarms, last -2m1s311ms:',
    '      *walarm*:android.intent.action.TIME_TICK',
  ])
  const bugreport = (batterystats: string | undefined): string =>
    [
      '========================================================',
      '== dumpstate: 2018-04-02 08:36:20',
      '========================================================',
      '',
      'Build: OPM1.171019.021',
      '------ DUMPSYS (/system/bin/dumpsys) ------',
      ...alarm,
      ...(batterystats === undefined ? [] : service('batterystats', batterystats.split('\n'))),
      ...service('battery', ['Current Battery Service state:', '  AC powered: true']),
      '------ CHECKIN BATTERYSTATS (/system/bin/dumpsys -T 30000 batterystats -c) ------',
      '9,0,i,vers,32,177,OPM1.171019.021,OPM1.171019.021',
      '',
    ].join('\n')
  test('the batterystats section is read, not the alarm lines before it', () => {
    const alone = parseBatterystatsHistory(pixel)
    const h = parseBatterystatsHistory(bugreport(pixel))
    expect(h.items.map((i) => ({ ...i, line: 0 }))).toEqual(
      alone.items.map((i) => ({ ...i, line: 0 })),
    )
    expect(h.items[0]?.line).toBe(alone.items[0]!.line + 16)
    expect(h.dumpStats?.timeOnBatteryNs).toBe(540e9)
    expect(h.warnings).toEqual([])
  })
  test('the section ends the parse even without the statistics block', () => {
    const historyOnly = pixel.slice(0, pixel.indexOf('\n\nPer-PID'))
    const h = parseBatterystatsHistory(bugreport(historyOnly))
    expect(h.items).toHaveLength(20)
    expect(h.dumpStats).toBeUndefined()
    expect(h.warnings).toEqual([])
  })
  const refusal = (text: string): EnergyError => {
    try {
      parseBatterystatsHistory(text)
    } catch (e) {
      expect(e).toBeInstanceOf(EnergyError)
      return e as EnergyError
    }
    throw new Error('parsed')
  }
  test('a bugreport without a batterystats section is refused, not "OK, nothing"', () => {
    const e = refusal(bugreport(undefined))
    expect(e.code).toBe(BatterystatsErrors.BUGREPORT_NO_BATTERYSTATS)
    expect(e.details.line).toBe(2)
    expect(e.hint).toContain('dumpsys batterystats')
    // all-services `adb shell dumpsys` output, no dumpstate header: the same
    const all = ['Currently running services:', '  alarm', ...alarm, ''].join('\n')
    expect(refusal(all).code).toBe(BatterystatsErrors.BUGREPORT_NO_BATTERYSTATS)
  })
  test('a batterystats section without a history is refused with its line', () => {
    const e = refusal(bugreport('Discharge step durations:\n  #0: +5m10s880ms to 99'))
    expect(e.code).toBe(BatterystatsErrors.HISTORY_NOT_FOUND)
    expect(e.details.line).toBe(16)
  })
  test('chunked decoding gives the same items and the same refusals', () => {
    for (const text of [bugreport(pixel), bugreport(undefined)]) {
      const one = (() => {
        try {
          return [...parseBatterystatsHistoryLines(text.split('\n'))]
        } catch (e) {
          return (e as EnergyError).code
        }
      })()
      const d = new BatterystatsHistoryDecoder()
      const chunked = (() => {
        try {
          const out = []
          for (let i = 0; i < text.length; i += 13) out.push(...d.push(text.slice(i, i + 13)))
          return [...out, ...d.end()]
        } catch (e) {
          return (e as EnergyError).code
        }
      })()
      expect(chunked).toEqual(one)
    }
  })
})

describe('batterystats history tokens', () => {
  test('PETrA example: first update record, token by token', () => {
    const recs = records(read('petra_batterystats_example.txt'))
    expect(recs[0]).toMatchObject({
      command: 'reset',
      wallClock: '2016-07-17-22-21-06',
      tNs: 0,
      readInts: 9,
    })
    expect(recs[1]?.batteryLevel).toBe(100)
    expect(recs[1]?.tokens).toEqual([
      { kind: 'value', name: 'status', value: 'full' },
      { kind: 'value', name: 'health', value: 'good' },
      { kind: 'value', name: 'plug', value: 'none' },
      { kind: 'value', name: 'temp', value: '370' },
      { kind: 'value', name: 'volt', value: '4317' },
      { kind: 'flag', on: true, name: 'running' },
      { kind: 'flag', on: true, name: 'wake_lock' },
      { kind: 'flag', on: true, name: 'phone_scanning' },
      { kind: 'value', name: 'phone_state', value: 'out' },
      { kind: 'flag', on: true, name: 'wifi_running' },
      { kind: 'flag', on: true, name: 'wifi' },
      { kind: 'value', name: 'wifi_signal_strength', value: '3' },
      { kind: 'value', name: 'wifi_suppl', value: 'completed' },
      { kind: 'tagged', prefix: '', name: 'top', uid: 'u0a14', tag: 'com.android.launcher' },
    ])
  })
  test('quoted tags with spaces stay one token', () => {
    const h = parseBatterystatsHistory(
      '  +1s000ms (2) 050 +tmpwhitelist=u0a179:"a6f187 android.bluetooth.a2dp" -wifi\n',
    )
    const r = h.items[0] as HistoryRecord
    expect(r.tokens).toEqual([
      {
        kind: 'tagged',
        prefix: '+',
        name: 'tmpwhitelist',
        uid: 'u0a179',
        tag: 'a6f187 android.bluetooth.a2dp',
      },
      { kind: 'flag', on: false, name: 'wifi' },
    ])
  })
  test('without a header, other indented numbered lines do not start the section', () => {
    const text =
      'Daily stats:\n  1 something else\n  +5s bogus\n                    0 (2) 100 +screen\n'
    const h = parseBatterystatsHistory(text)
    expect(h.items).toHaveLength(1)
    expect(h.items[0]).toMatchObject({ kind: 'record', line: 4, batteryLevel: 100 })
  })
  test('(n) is optional and lines without it round-trip', () => {
    const text = '                    0 100 +screen\n             +1s002ms 099 -screen\n'
    const h = parseBatterystatsHistory(text)
    expect(h.items).toHaveLength(2)
    expect((h.items[1] as HistoryRecord).readInts).toBeUndefined()
    expect(formatBatterystatsHistory(h)).toBe(text)
  })
  test('unknown record bodies and odd tokens are kept, not fatal', () => {
    const text =
      'Battery History (0% used, 1KB used of 4096KB):\n' +
      '                    0 (2) SOMETHING NEW\n' +
      '             +1s000ms (2) 100 =odd +ok\n'
    const h = parseBatterystatsHistory(text)
    expect(h.items[0]).toMatchObject({ kind: 'unknown', line: 2 })
    expect((h.items[1] as HistoryRecord).tokens).toEqual([
      { kind: 'unknown', text: '=odd' },
      { kind: 'flag', on: true, name: 'ok' },
    ])
    expect(formatBatterystatsHistory(h)).toBe(text)
  })
})

describe('batterystats history: a --history-start dump (NEXT:)', () => {
  // The shape BatteryStats.dumpHistoryLocked prints for `--history-start 12345990` (Android 13):
  // a TIME: line and the first record as a full state, then changes, then NEXT: <last + 1>.
  const text = [
    'Battery History (0% used, 120B used of 4096KB, 3 strings using 126B):',
    '               +321ms (2) TIME: 2023-11-14-22-13-20',
    '               +321ms (2) 087 status=charging health=good plug=usb temp=290 volt=4096 +gps +screen +plugged brightness=dim',
    '             +3s185ms (2) 087 -gps',
    '  NEXT: 12348856',
    '',
    '',
  ].join('\n')

  test('NEXT: is the history time of the last record + 1; the records stay records', () => {
    const h = parseBatterystatsHistory(text)
    expect(h.next).toBe(12348856)
    expect(h.warnings).toEqual([])
    const rs = records(text)
    expect(rs.map((r) => r.command)).toEqual(['time', 'update', 'update'])
    expect(rs[2]?.details, 'NEXT: is not a continuation line').toEqual([])
  })

  test('round trip and chunked decoding give the same', () => {
    const h = parseBatterystatsHistory(text)
    expect(formatBatterystatsHistory(h)).toBe(text.slice(0, text.indexOf('\n\n') + 1))
    const decoder = new BatterystatsHistoryDecoder()
    const items = [...text].flatMap((c) => decoder.push(c))
    items.push(...decoder.end())
    expect(assembleBatterystatsHistory(items)).toEqual(h)
  })

  test('a --history dump has no NEXT:; a NEXT: too long for a safe integer is not one', () => {
    expect(parseBatterystatsHistory(read('emanafa_bstats1.log')).next).toBeUndefined()
    const h = parseBatterystatsHistory(text.replace('NEXT: 12348856', 'NEXT: 1234567890123456789'))
    expect(h.next).toBeUndefined()
  })
})

describe('batterystats history time tokens', () => {
  test.each([
    ['0', 0],
    ['+107ms', 107],
    ['+2s895ms', 2895],
    ['+1m02s345ms', 62_345],
    ['+1h01m43s698ms', 3_703_698],
    ['+4d22h52m29s039ms', (((4 * 24 + 22) * 60 + 52) * 60 + 29) * 1000 + 39],
    ['-5s000ms', -5000],
  ])('%s = %d ms', (text, ms) => {
    expect(parseHistoryTimeMs(text)).toBe(ms)
    expect(formatHistoryTime(ms)).toBe(text)
  })
  test.each(['+', '+5s', '1s000ms', '+1x02s', '+ms', '+1m2', '00'])('%s is malformed', (t) => {
    expect(parseHistoryTimeMs(t)).toBeUndefined()
  })
  test('a time too large to be exact in ms is malformed (the message quotes 40 characters)', () => {
    const huge = `+${'9'.repeat(400)}ms`
    expect(parseHistoryTimeMs(huge)).toBeUndefined()
    expect(parseHistoryTimeMs(`+${2 ** 53}ms`)).toBeUndefined()
    expect(parseHistoryTimeMs(`+${2 ** 53 - 1}ms`)).toBe(2 ** 53 - 1)
    const text = `Battery History (x):\n                    0 (9) RESET:\n  ${huge} (2) 100 +screen\n`
    expect(() => parseBatterystatsHistory(text)).toThrow(`"+${'9'.repeat(39)}…"`)
  })
  test('format/parse round trip (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (ms) => {
        expect(parseHistoryTimeMs(formatHistoryTime(ms))).toBe(ms)
      }),
    )
  })
})

describe('batterystats history timeline', () => {
  test('E-MANAFA log: hand-checked intervals', () => {
    const tl = historyTimeline(parseBatterystatsHistory(read('emanafa_bstats1.log')))
    expect(tl.startNs).toBe(0)
    expect(tl.endNs).toBe(150_413e6)
    expect(tl.anchors).toEqual([{ tNs: 0, wallClock: '2015-02-17-05-36-04' }])
    const wl = tl.intervals.filter((i) => i.name === 'wake_lock')
    expect(wl[0]).toEqual({
      name: 'wake_lock',
      uid: '1000',
      tag: '*alarm*:android.intent.action.TIME_TICK',
      startNs: 55_041e6,
      endNs: 55_167e6,
      openAtEnd: false,
    })
    // top=1000:"com.android.settings" at 0 (unprefixed), closed by -top at +2m24s902ms
    expect(tl.intervals.find((i) => i.name === 'top')).toEqual({
      name: 'top',
      uid: '1000',
      tag: 'com.android.settings',
      startNs: 0,
      endNs: 144_902e6,
      openAtEnd: false,
    })
    // +screen at +2m22s913ms still on at the end
    expect(tl.intervals.find((i) => i.name === 'screen')).toEqual({
      name: 'screen',
      startNs: 142_913e6,
      endNs: 150_413e6,
      openAtEnd: true,
    })
    expect(tl.intervals.find((i) => i.name === 'brightness')?.value).toBe('medium')
    expect(stateDurationNs(tl, 'screen')).toBe(7_500e6)
    expect(tl.instants).toContainEqual({
      tNs: 142_913e6,
      name: 'screenwake',
      uid: '1000',
      tag: 'android.policy:POWER',
    })
    // volt=7794 (a gauge glitch in the real file) is reported as is, in V
    expect(tl.battery).toEqual([
      { tNs: 0, levelPercent: 42, voltageV: 3.897, temperatureC: 29.2 },
      { tNs: 128_461e6, levelPercent: 43, voltageV: 7.794, temperatureC: 29.2 },
    ])
  })
  test('PETrA example: wifi_running and top app', () => {
    const tl = historyTimeline(parseBatterystatsHistory(read('petra_batterystats_example.txt')))
    expect(stateDurationNs(tl, 'wifi_running')).toBe(7_432e6)
    expect(stateDurationNs(tl, 'screen')).toBe(7_432e6 - 3_487e6)
    expect(
      tl.intervals.filter((i) => i.name === 'top').map((i) => [i.tag, i.startNs, i.endNs]),
    ).toEqual([
      ['com.android.launcher', 0, 7_432e6],
      ['ch.smalltech.battery.free', 7_432e6, 7_432e6],
    ])
  })
  test('Android 15 capture: screen on/off intervals match +screen/-screen and never overlap', () => {
    const tl = historyTimeline(
      parseBatterystatsHistory(read('redmik80pro_android15_batterystats3.txt')),
    )
    const screen = tl.intervals.filter((i) => i.name === 'screen')
    for (let i = 1; i < screen.length; i++) {
      expect(screen[i]?.startNs).toBeGreaterThanOrEqual(screen[i - 1]?.endNs ?? 0)
    }
    for (const i of tl.intervals) expect(i.endNs).toBeGreaterThanOrEqual(i.startNs)
    // the real file goes back in time once (+3h37m37s544ms then +3h37m37s530ms, lines 3029-3030)
    expect(tl.timeReversals).toBeGreaterThanOrEqual(1)
    expect(tl.intervals.some((i) => i.name === 'mobile_radio')).toBe(true)
    expect(tl.intervals.some((i) => i.name === 'data_conn' && i.value === 'nr')).toBe(true)
  })
})

describe('batterystats history negative', () => {
  const expectCode = (fn: () => unknown, code: string): EnergyError => {
    try {
      fn()
    } catch (e) {
      expect(e).toBeInstanceOf(EnergyError)
      expect((e as EnergyError).code).toBe(code)
      expect((e as EnergyError).hint).not.toBe('')
      return e as EnergyError
    }
    throw new Error('no error')
  }
  test('malformed time token names the line', () => {
    const text = read('petra_batterystats_example.txt').replace('+3s487ms', '+3x487ms')
    const e = expectCode(() => parseBatterystatsHistory(text), BatterystatsErrors.HISTORY_BAD_TIME)
    expect(e.details.line).toBe(6)
    expect(e.message).toContain('+3x487ms')
  })
  test('corrupted digits in a time token', () => {
    const text =
      'Battery History (x):\n                    0 (9) RESET:TIME: 2016\n  +1h2 (2) 100 +screen\n'
    expect(
      expectCode(() => parseBatterystatsHistory(text), BatterystatsErrors.HISTORY_BAD_TIME).details
        .line,
    ).toBe(3)
  })
  test('not a batterystats dump', () => {
    expectCode(
      () => parseBatterystatsHistory(read('aosp_powermodel_bs_checkin.csv')),
      BatterystatsErrors.HISTORY_NOT_FOUND,
    )
    expectCode(() => parseBatterystatsHistory(''), BatterystatsErrors.HISTORY_NOT_FOUND)
  })
  test('truncated mid-line: the partial last line is kept, no crash', () => {
    const text = read('petra_batterystats_example.txt')
    const cut = text.slice(0, text.indexOf('ch.smalltech') + 5)
    const h = parseBatterystatsHistory(cut)
    const last = h.items.at(-1) as HistoryRecord
    expect(last.tokens.at(-1)).toEqual({ kind: 'unknown', text: '+top=u0a122:"ch.sm' })
  })
})

describe('batterystats history robustness (fuzz)', () => {
  const seed = read('emanafa_bstats1.log')
  const onlyEnergyErrors = (input: string): void => {
    try {
      historyTimeline(parseBatterystatsHistory(input))
    } catch (e) {
      expect(e).toBeInstanceOf(EnergyError)
    }
  }
  test('arbitrary text either parses or throws EnergyError', () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), onlyEnergyErrors))
  })
  test('truncations and corruptions of a real dump', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: seed.length }),
        fc.integer({ min: 0, max: seed.length - 1 }),
        fc.constantFrom('+', '-', '"', 'x', '9', ' ', '\n', '='),
        (cut, at, ch) => {
          onlyEnergyErrors(seed.slice(0, cut))
          onlyEnergyErrors(seed.slice(0, at) + ch + seed.slice(at + 1))
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('batterystats history push decoder', () => {
  const chunked = (text: string, size: number): unknown[] => {
    const d = new BatterystatsHistoryDecoder()
    const out: unknown[] = []
    for (let i = 0; i < text.length; i += size) out.push(...d.push(text.slice(i, i + size)))
    out.push(...d.end())
    return out
  }
  test.each([1, 7, 4096])('chunks of %d give the batch result (Android 15 capture)', (size) => {
    const text = read('redmik80pro_android15_batterystats0.txt')
    const batch = [...parseBatterystatsHistoryLines(text.split('\n'))]
    expect(chunked(text, size)).toEqual(batch)
  })
  test('random chunking of the Android 4.4 capture (property)', () => {
    const text = read('emanafa_bstats1.log')
    const batch = [...parseBatterystatsHistoryLines(text.split('\n'))]
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 40 }),
        (sizes) => {
          const d = new BatterystatsHistoryDecoder()
          const out: unknown[] = []
          let pos = 0
          for (let k = 0; pos < text.length; k++) {
            const size = sizes[k % sizes.length] ?? 1
            out.push(...d.push(text.slice(pos, pos + size)))
            pos += size
          }
          out.push(...d.end())
          expect(out).toEqual(batch)
        },
      ),
      { numRuns: 50 },
    )
  })
  test('input without a trailing newline', () => {
    const text = '                    0 (2) 100 +screen\n             +1s000ms (2) 100 -screen'
    expect(chunked(text, 5)).toEqual([...parseBatterystatsHistoryLines(text.split('\n'))])
    expect(chunked(text, 5)).toHaveLength(2)
  })
})

describe('batterystats history: long lines (issue 16)', () => {
  const MIB = 1024 * 1024
  const head =
    'Battery History (0% used):\n                    0 (9) RESET:TIME: 2016-07-17-22-21-06\n'
  const record = (tagLength: number): string =>
    `             +1s000ms (2) 100 +top=u0a1:"${'x'.repeat(tagLength)}"\n`
  const prefix = '             +1s000ms (2) 100 +top=u0a1:""'.length
  const outcome = (run: () => unknown): unknown => {
    try {
      return run()
    } catch (e) {
      expect(e).toBeInstanceOf(EnergyError)
      const err = e as EnergyError
      return { code: err.code, line: err.details.line, message: err.message }
    }
  }
  const chunked = (text: string, size: number): unknown =>
    outcome(() => {
      const d = new BatterystatsHistoryDecoder()
      const out = []
      for (let i = 0; i < text.length; i += size) out.push(...d.push(text.slice(i, i + size)))
      return assembleBatterystatsHistory([...out, ...d.end()])
    })
  test('a history line over 1 MiB is E_BATTERYSTATS_LINE_TOO_LONG, the same one-shot and chunked', () => {
    const text = head + record(MIB - prefix + 1) + '\n'
    const one = outcome(() => parseBatterystatsHistory(text))
    expect(one).toMatchObject({ code: BatterystatsErrors.LINE_TOO_LONG, line: 3 })
    for (const size of [4096, 100_000, 3 * MIB]) expect(chunked(text, size)).toEqual(one)
    expect(outcome(() => [...parseBatterystatsHistoryLines(text.split('\n'))])).toEqual(one)
  })
  test('a line of exactly 1 MiB is read', () => {
    const text = head + record(MIB - prefix) + '\n'
    const h = parseBatterystatsHistory(text)
    expect(h.items).toHaveLength(2)
    expect(chunked(text, 4096)).toEqual(h)
  })
  test('outside the history section a long line is passed over, in both modes', () => {
    const long = 'y'.repeat(2 * MIB)
    const plain = `${head}\nDaily stats:\n`
    const text = `${long}\n${head}\nDaily stats:\n  ${long}\n`
    const h = parseBatterystatsHistory(text)
    expect(h.items.map((i) => ({ ...i, line: i.line - 1 }))).toEqual(
      parseBatterystatsHistory(plain).items,
    )
    expect(chunked(text, 65_536)).toEqual(h)
  })
  test('the decoder is linear on one long line in small chunks', () => {
    // it re-joined the carried partial line on every chunk: 6.5 s for 1 MB in 100-character chunks
    const text = head + record(1_000_000)
    expect(chunked(text, 100)).toMatchObject({ items: [{ kind: 'record' }, { kind: 'record' }] })
    expectLinear(
      (n) => head + record(n),
      (t) => chunked(t, 100),
      20_000,
    )
  })
})

describe('sniffBatterystats', () => {
  test.each(Object.keys(golden))('%s is history', (file) => {
    expect(sniffBatterystats(read(file))).toBe('history')
  })
  test('checkin and others', () => {
    expect(sniffBatterystats(read('aosp_powermodel_bs_checkin.csv'))).toBe('checkin')
    expect(sniffBatterystats('9,hsp,0,1000,"*alarm*"\n')).toBe('checkin')
    expect(sniffBatterystats('9,h,0:RESET:TIME:1522652080855\r\r\n')).toBe('checkin')
    expect(sniffBatterystats('=====\n== dumpstate: 2018-04-02 08:36:20\n=====\n')).toBe('history')
    expect(sniffBatterystats('=====\nsomething else\n')).toBeNull()
    expect(sniffBatterystats('Current Battery Service state:\n')).toBeNull()
    expect(sniffBatterystats('')).toBeNull()
  })
})

describe("timeline vs the dump's own statistics (independent cross-check)", () => {
  // "Total run time" and "Time on battery" printed by the same dump (Statistics since last charge)
  // against the timeline's plugged intervals, extended to the dump time.
  test.each([
    ['petra_batterystats_example.txt', 58.783, 58.772],
    ['redmik80pro_android15_batterystats0.txt', 24.014, 1.811],
    ['redmik80pro_android15_batterystats.txt', 3703.726, 3691.254],
    ['hpbl_exercicio_podcast_samsung_batterystats.txt', 537.406, 494.616],
    ['milechwan_exercicio_podcast_batterystats.txt', 5983.351, 5830.405],
  ])('%s: time on battery within 0.1 s', (file, totalRunS, onBatteryS) => {
    const history = parseBatterystatsHistory(read(file))
    // the parser reads the same two figures from the dump and finds no disagreement
    expect(history.dumpStats?.totalRunTimeNs).toBe(Math.round(totalRunS * 1000) * 1e6)
    expect(history.dumpStats?.timeOnBatteryNs).toBe(Math.round(onBatteryS * 1000) * 1e6)
    expect(history.warnings).toEqual([])
    const tl = historyTimeline(history, { endNs: totalRunS * 1e9 })
    expect(tl.endNs).toBe(totalRunS * 1e9)
    const onBattery = (tl.endNs - tl.startNs - stateDurationNs(tl, 'plugged')) / 1e9
    expect(Math.abs(onBattery - onBatteryS)).toBeLessThan(0.1)
  })
  test('PETrA example: screen on (on battery) within 20 ms of "Screen on: 55s 285ms"', () => {
    const tl = historyTimeline(parseBatterystatsHistory(read('petra_batterystats_example.txt')), {
      endNs: 58.783e9,
    })
    expect(Math.abs(stateDurationNs(tl, 'screen') / 1e9 - 55.285)).toBeLessThan(0.02)
  })
  test('endNs earlier than the last record is ignored', () => {
    const h = parseBatterystatsHistory(read('emanafa_bstats1.log'))
    expect(historyTimeline(h, { endNs: 1 }).endNs).toBe(150_413e6)
  })
})
