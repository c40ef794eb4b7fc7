import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'

import {
  BatterystatsCheckinDecoder,
  BatterystatsErrors,
  checkinMahToJ,
  formatBatterystatsCheckin,
  parseBatterystatsCheckin,
  parseCheckinLine,
  summarizeBatterystatsCheckin,
  type CheckinRow,
} from '../../../src/formats/batterystats/index.js'
import { EnergyError } from '../../../src/model/errors.js'
import { expectLinear } from '../_linear.js'

const csv = readFileSync(
  join(import.meta.dirname, '../../fixtures/corpus/2_batterystats/aosp_powermodel_bs_checkin.csv'),
  'utf8',
)

describe('batterystats checkin: AOSP powermodel excerpt (Android 9, vers 32)', () => {
  test('typed rows', () => {
    const s = summarizeBatterystatsCheckin(csv)
    expect(s.rows).toHaveLength(7)
    expect(s.vers).toEqual({
      type: 'vers',
      line: 1,
      checkinVersion: 9,
      uid: 0,
      category: 'i',
      statsVersion: 32,
      parcelVersion: 177,
      startPlatformVersion: 'PPR1.180326.002',
      endPlatformVersion: 'PQ1A.181105.015',
    })
    expect(s.packagesByUid).toEqual({ 10139: ['com.google.android.gm'] })
    expect(s.rows.map((r) => (r.type === 'raw' ? r.rowType : r.type))).toEqual([
      'vers',
      'uid',
      'gn',
      'm',
      'nt',
      'sgt',
      'sst',
    ])
    const nt = s.rows[4]
    expect(nt).toMatchObject({ type: 'raw', uid: 10139, category: 'l', rowType: 'nt' })
    expect(nt?.type === 'raw' ? nt.fields.length : 0).toBe(22)
    expect(s.powerItems).toEqual([])
  })
  test('writer reproduces the file byte for byte', () => {
    expect(formatBatterystatsCheckin(parseBatterystatsCheckin(csv.split('\n')))).toBe(csv)
  })
})

describe('batterystats checkin: pws and pwi', () => {
  const text = [
    '9,0,l,pws,3000,152.3,140,160',
    '9,10079,l,pwi,uid,12.5,0,3.25,1.5',
    '9,0,l,pwi,scrn,40.1,1,0,0',
    '9,0,l,pwi,unacc,2.2',
    '9,h,0,Bl=100,Bs=d,Bh=g,Bp=n,Bt=250,Bv=4200',
    '',
  ].join('\n')
  test('rows are typed, old 2-field pwi kept', () => {
    const s = summarizeBatterystatsCheckin(text)
    expect(s.powerSummary).toEqual([
      {
        type: 'pws',
        line: 1,
        checkinVersion: 9,
        uid: 0,
        category: 'l',
        capacityMah: 3000,
        computedPowerMah: 152.3,
        minDrainedMah: 140,
        maxDrainedMah: 160,
      },
    ])
    expect(s.powerItems[0]).toMatchObject({
      uid: 10079,
      label: 'uid',
      totalMah: 12.5,
      isSystem: false,
      screenMah: 3.25,
      proportionalSmearMah: 1.5,
    })
    expect(s.powerItems[1]).toMatchObject({ label: 'scrn', isSystem: true })
    expect(s.powerItems[2]).toEqual({
      type: 'pwi',
      line: 4,
      checkinVersion: 9,
      uid: 0,
      category: 'l',
      label: 'unacc',
      totalMah: 2.2,
    })
    expect(s.rows[4]).toEqual({
      type: 'history',
      line: 5,
      checkinVersion: 9,
      timeMs: 0,
      changes: ['Bl=100', 'Bs=d', 'Bh=g', 'Bp=n', 'Bt=250', 'Bv=4200'],
    })
    expect(formatBatterystatsCheckin(s.rows)).toBe(text)
  })
  test('mAh to J: 12.5 mAh at 3.85 V = 12.5 × 3.6 × 3.85 J', () => {
    expect(checkinMahToJ(12.5, 3.85)).toBeCloseTo(173.25, 10)
  })
  test('round trip of generated pws/pwi rows (property)', () => {
    const mah = fc.double({ min: 0, max: 1e5, noNaN: true })
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99999 }),
        fc.constantFrom('uid', 'scrn', 'wifi', 'blue', 'cell', 'idle', 'over'),
        mah,
        fc.boolean(),
        mah,
        mah,
        (uid, label, totalMah, isSystem, screenMah, proportionalSmearMah) => {
          const row: CheckinRow = {
            type: 'pwi',
            line: 1,
            checkinVersion: 9,
            uid,
            category: 'l',
            label,
            totalMah,
            isSystem,
            screenMah,
            proportionalSmearMah,
          }
          const text = formatBatterystatsCheckin([row])
          expect([...parseBatterystatsCheckin(text.split('\n'))]).toEqual([row])
        },
      ),
    )
  })
})

describe('batterystats checkin: history rows after a reset (issue 16)', () => {
  // `dumpsys batterystats -c` taken after a reset starts its history with `9,h,0:RESET:TIME:…`
  // and has records that changed nothing printable (`9,h,3663`): three fields, once rejected as
  // E_BATTERYSTATS_CHECKIN_NOT_CHECKIN, which refused every such file.
  const text = readFileSync(
    join(import.meta.dirname, '../../fixtures/batterystats/checkin-after-reset.csv'),
    'utf8',
  )
  test('h rows are typed: time, command, wall clock, changes', () => {
    const s = summarizeBatterystatsCheckin(text)
    const history = s.rows.filter((r) => r.type === 'history')
    expect(history).toHaveLength(20)
    expect(history[0]).toEqual({
      type: 'history',
      line: 7,
      checkinVersion: 9,
      timeMs: 0,
      command: 'RESET:TIME:1522652080855',
      wallClockMs: 1522652080855,
      changes: [],
    })
    expect(history[2]).toMatchObject({ timeMs: 1203, changes: ['+Ejb=3'] })
    expect(history[3]).toEqual({
      type: 'history',
      line: 10,
      checkinVersion: 9,
      timeMs: 3663,
      changes: [],
    })
    expect(history[5]).toMatchObject({
      timeMs: 0,
      changes: ['Dcpu=3050:1420/10097:1200:300/1000:900:650'],
    })
    expect(history[6]).toMatchObject({
      timeMs: 0,
      changes: ['Dpst=3020', '1410', '30', '0', '20', '44120', ''],
    })
    expect(history.find((r) => r.command === 'TIME:1522652389865')).toMatchObject({
      timeMs: 3000,
      wallClockMs: 1522652389865,
    })
    // times are deltas: their running sum is the history's span
    expect(history.reduce((t, r) => t + r.timeMs, 0)).toBe(842_033)
    // the string pool stays raw, quotes and escapes verbatim
    expect(s.rows[5]).toMatchObject({ type: 'raw', uid: 'hsp', category: '4' })
    expect(s.vers?.statsVersion).toBe(32)
    expect(s.packagesByUid[1000]).toEqual(['android', 'com.android.settings'])
    expect(s.powerItems.map((r) => r.label)).toEqual(['uid', 'scrn', 'wifi'])
  })
  test('writer reproduces the file byte for byte; chunked decoding gives the same rows', () => {
    const rows = summarizeBatterystatsCheckin(text).rows
    expect(formatBatterystatsCheckin(rows)).toBe(text)
    for (const size of [1, 7, 4096]) {
      const d = new BatterystatsCheckinDecoder()
      const out: CheckinRow[] = []
      for (let i = 0; i < text.length; i += size) out.push(...d.push(text.slice(i, i + size)))
      expect([...out, ...d.end()]).toEqual(rows)
    }
  })
  test('START, SHUTDOWN, *OVERFLOW* and negative deltas', () => {
    const rows = [
      ...parseBatterystatsCheckin([
        '9,h,12:START',
        '9,h,0:SHUTDOWN',
        '9,h,5:*OVERFLOW*',
        '9,h,-14,Bv=4100',
      ]),
    ]
    expect(rows.map((r) => (r.type === 'history' ? [r.timeMs, r.command] : r.type))).toEqual([
      [12, 'START'],
      [0, 'SHUTDOWN'],
      [5, '*OVERFLOW*'],
      [-14, undefined],
    ])
    expect(formatBatterystatsCheckin(rows)).toBe(
      '9,h,12:START\n9,h,0:SHUTDOWN\n9,h,5:*OVERFLOW*\n9,h,-14,Bv=4100\n',
    )
  })
})

describe('batterystats checkin negative', () => {
  const code = (fn: () => unknown): { code: string; line: number | undefined; msg: string } => {
    try {
      fn()
    } catch (e) {
      expect(e).toBeInstanceOf(EnergyError)
      const err = e as EnergyError
      expect(err.hint).not.toBe('')
      expect(err.details.format).toBe('batterystats checkin')
      return { code: err.code, line: err.details.line, msg: err.message }
    }
    throw new Error('no error')
  }
  test('human-readable dump is not checkin', () => {
    const r = code(() => [...parseBatterystatsCheckin(['Battery History (0% used):'])])
    expect(r.code).toBe(BatterystatsErrors.CHECKIN_NOT_CHECKIN)
    expect(r.line).toBe(1)
  })
  test('truncated pws row names its line', () => {
    const r = code(() => [
      ...parseBatterystatsCheckin(['9,0,i,vers,32,177,a,b', '9,0,l,pws,3000,1']),
    ])
    expect(r).toMatchObject({ code: BatterystatsErrors.CHECKIN_SHORT_ROW, line: 2 })
  })
  test('corrupted number names the field', () => {
    const r = code(() => parseCheckinLine('9,0,l,pwi,scrn,4O.1,1,0,0', 7))
    expect(r).toMatchObject({ code: BatterystatsErrors.CHECKIN_BAD_NUMBER, line: 7 })
    expect(r.msg).toContain('totalMah')
    expect(r.msg).toContain('4O.1')
  })
  test('numbers: the accepted forms, and a long digit run is checked in linear time (issue 16)', () => {
    for (const ok of ['0', '-3', '12.5', '12.', '.5', '-0.25', '1e3', '2.5E-2', '7e+1']) {
      expect(parseCheckinLine(`9,0,l,pwi,scrn,${ok}`, 1)).toMatchObject({ totalMah: Number(ok) })
    }
    for (const bad of ['', '-', '.', '1..2', '1e', '1e+', 'e3', '--1', '1.2.3', ' 1', '0x10']) {
      expect(code(() => parseCheckinLine(`9,0,l,pwi,scrn,${bad}`, 1)).code).toBe(
        BatterystatsErrors.CHECKIN_BAD_NUMBER,
      )
    }
    const digits = '1'.repeat(200_000)
    const long = code(() => parseCheckinLine(`9,0,l,pwi,scrn,${digits}x`, 1))
    expect(long.code).toBe(BatterystatsErrors.CHECKIN_BAD_NUMBER)
    expect(long.msg).toContain('… (200001 characters)')
    expect(long.msg.length).toBeLessThan(400)
    // the old regex (\d+\.?\d*) took ~0.7 s for 20,000 digits, 4× per doubling
    expectLinear(
      (n) => `9,0,l,pwi,scrn,${'1'.repeat(n)}x`,
      (line) => parseCheckinLine(line, 1),
      2000,
    )
    expectLinear(
      (n) => `9,0,l,pws,${'1'.repeat(n)}.${'1'.repeat(n)}e${'1'.repeat(n)}x,1,1,1`,
      (line) => parseCheckinLine(line, 1),
      2000,
    )
  })
  test('truncated in the middle of the 4 leading fields', () => {
    expect(code(() => parseCheckinLine('9,0', 3)).code).toBe(BatterystatsErrors.CHECKIN_NOT_CHECKIN)
  })
  test('a history row without a time, or with a bad one', () => {
    expect(code(() => parseCheckinLine('9,h', 4))).toMatchObject({
      code: BatterystatsErrors.CHECKIN_SHORT_ROW,
      line: 4,
    })
    const r = code(() => parseCheckinLine('9,h,12x:RESET:TIME:1', 5))
    expect(r).toMatchObject({ code: BatterystatsErrors.CHECKIN_BAD_NUMBER, line: 5 })
    expect(r.msg).toContain('"12x"')
  })
  test('CR CR LF, lone CR and mixed line endings read as LF (issue 16)', () => {
    const rows = summarizeBatterystatsCheckin(csv).rows
    const ls = csv.split('\n')
    for (const eol of ['\r\n', '\r\r\n', '\r']) {
      expect(summarizeBatterystatsCheckin(ls.join(eol)).rows).toEqual(rows)
    }
    const mixed = ls.map((l, i) => l + (['\n', '\r\n', '\r\r\n', '\r'][i % 4] ?? '')).join('')
    expect(summarizeBatterystatsCheckin(mixed).rows).toEqual(rows)
    const d = new BatterystatsCheckinDecoder()
    const streamed = [...mixed].flatMap((ch) => d.push(ch))
    expect([...streamed, ...d.end()]).toEqual(rows)
  })
  test('CRLF and blank lines are tolerated', () => {
    expect([...parseBatterystatsCheckin(['', '9,0,i,uid,1000,android\r'])]).toEqual([
      {
        type: 'uid',
        line: 2,
        checkinVersion: 9,
        uid: 0,
        category: 'i',
        appUid: 1000,
        packageName: 'android',
      },
    ])
  })
})

describe('batterystats checkin robustness (fuzz)', () => {
  test('arbitrary lines and corruptions either parse or throw EnergyError', () => {
    const onlyEnergyErrors = (input: string): void => {
      try {
        summarizeBatterystatsCheckin(input)
      } catch (e) {
        expect(e).toBeInstanceOf(EnergyError)
      }
    }
    fc.assert(fc.property(fc.string({ maxLength: 200 }), onlyEnergyErrors))
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.constantFrom(',', 'x', '9', '\n', '.'), (cut, at, ch) => {
        onlyEnergyErrors(csv.slice(0, cut % (csv.length + 1)))
        const i = at % csv.length
        onlyEnergyErrors(csv.slice(0, i) + ch + csv.slice(i + 1))
      }),
      { numRuns: 300 },
    )
  })
})

describe('batterystats checkin: long lines (issue 16)', () => {
  const MIB = 1024 * 1024
  const outcome = (run: () => unknown): unknown => {
    try {
      return run()
    } catch (e) {
      expect(e).toBeInstanceOf(EnergyError)
      return { code: (e as EnergyError).code, line: (e as EnergyError).details.line }
    }
  }
  const chunked = (text: string, size: number): unknown =>
    outcome(() => {
      const d = new BatterystatsCheckinDecoder()
      const rows: CheckinRow[] = []
      for (let i = 0; i < text.length; i += size) rows.push(...d.push(text.slice(i, i + size)))
      return [...rows, ...d.end()]
    })
  const uid = (nameLength: number): string => `9,0,i,uid,1000,${'a'.repeat(nameLength)}`
  const fixed = '9,0,i,uid,1000,'.length
  test('a line over 1 MiB is E_BATTERYSTATS_LINE_TOO_LONG with its line, one-shot and chunked', () => {
    const text = `9,0,i,vers,32,177,a,b\n${uid(MIB - fixed + 1)}\n9,0,l,pws,1,1,1,1\n`
    const one = outcome(() => summarizeBatterystatsCheckin(text).rows)
    expect(one).toEqual({ code: BatterystatsErrors.LINE_TOO_LONG, line: 2 })
    for (const size of [4096, 3 * MIB]) expect(chunked(text, size)).toEqual(one)
  })
  test('1 MiB exactly is read; the decoder is linear on one long line in small chunks', () => {
    const text = `${uid(MIB - fixed)}\n`
    const rows = chunked(text, 100)
    expect(rows).toEqual(summarizeBatterystatsCheckin(text).rows)
    expect(rows).toHaveLength(1)
    expectLinear(
      (n) => `${uid(n)}\n`,
      (t) => chunked(t, 100),
      20_000,
    )
  })
})

describe('batterystats checkin push decoder', () => {
  test.each([1, 7, 4096])('chunks of %d give the batch rows', (size) => {
    const d = new BatterystatsCheckinDecoder()
    const rows: CheckinRow[] = []
    for (let i = 0; i < csv.length; i += size) rows.push(...d.push(csv.slice(i, i + size)))
    rows.push(...d.end())
    expect(rows).toEqual([...parseBatterystatsCheckin(csv.split('\n'))])
  })
})
