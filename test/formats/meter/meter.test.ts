import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'

import {
  energyLeftRectJ,
  formatBattorText,
  formatHistorianPowerMonitor,
  MeterErrors,
  meanPowerW,
  parseMeterText,
  sniffMeterFormat,
} from '../../../src/formats/meter/index.js'
import { EnergyError } from '../../../src/model/errors.js'
import { expectLinear } from '../_linear.js'
import { sharedCorpus } from '../_shared-corpus.js'

const corpus = join(import.meta.dirname, '../../fixtures/corpus/5_power_monitor')
const fixtures = join(import.meta.dirname, '../../fixtures/meter')
const readCorpus = (f: string): string => readFileSync(join(corpus, f), 'utf8')
const readFixture = (f: string): string => readFileSync(join(fixtures, f), 'utf8')

function expectCode(fn: () => unknown, code: string): EnergyError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(EnergyError)
    const err = e as EnergyError
    expect(err.code).toBe(code)
    expect(err.hint).not.toBe('')
    return err
  }
  throw new Error(`expected ${code}`)
}

/*
 * Golden values computed independently with awk (see docs/formats/meter.md):
 *   awk '!/^#/ && NF==3 {n++; p+=$2*$3/1e6; ...} END {printf "%d %.9f", n, p/n}'
 * catapult_battor.txt:           30624 samples, mean 0.731199241 W, last t 15311.5 ms,
 *                                left-rectangle energy 11.195767565 J
 * catapult_battor_test_data.txt: 12 samples, mean 0.061163407 W, last t 1.1 ms,
 *                                left-rectangle energy 0.000069390 J
 */
describe('BattOr text (real captures)', () => {
  test('catapult_battor.txt: 2 kHz, 30 624 samples', () => {
    const c = parseMeterText(readCorpus('catapult_battor.txt'))
    expect(c.format).toBe('battor')
    expect(c.series.clock).toBe('host')
    expect(c.series.source).toBe('external-meter')
    expect(c.series.samples).toHaveLength(30624)
    expect(c.header.sample_rate).toBe('2000 Hz, gain 5.0x')
    expect(c.header.voltage_range).toBe('[0.0, 6144.0] mV')
    expect(c.voltageMeasured).toBe(true)
    expect(meanPowerW(c.series)).toBeCloseTo(0.731199241, 8)
    expect(energyLeftRectJ(c.series)).toBeCloseTo(11.195767565, 7)
    expect(c.series.samples[1]).toEqual({
      tNs: 500_000,
      powerW: (322.777778 / 1000) * (4116 / 1000),
    })
    expect(c.series.samples.at(-1)?.tNs).toBe(15311.5e6)
  })
  test('catapult_battor_test_data.txt: 10 kHz, 12 samples', () => {
    const c = parseMeterText(readCorpus('catapult_battor_test_data.txt'))
    expect(c.series.samples).toHaveLength(12)
    expect(c.header.sample_rate).toBe('10000 Hz, gain 10.1x')
    expect(meanPowerW(c.series)).toBeCloseTo(0.061163407, 8)
    expect(energyLeftRectJ(c.series)).toBeCloseTo(0.00006939, 9)
    expect(c.currentA?.[0]).toBeCloseTo(0.0065, 12)
    expect(c.voltageV?.[0]).toBeCloseTo(4.3077, 12)
  })
})

describe('same readings, every format', () => {
  const reference = parseMeterText(readCorpus('catapult_battor_test_data.txt'))
  const refPowers = reference.series.samples.map((s) => s.powerW)
  test.each([
    ['monsoon_from_battor_test_data.csv', 'monsoon-csv', 'host'],
    ['monsoon_semicolon_crlf.csv', 'monsoon-csv', 'host'],
    ['historian_seconds_from_battor_test_data.txt', 'historian', 'realtime'],
    ['historian_ms.txt', 'historian', 'realtime'],
  ] as const)('%s', (file, format, clock) => {
    const text = readFixture(file)
    expect(sniffMeterFormat(text)).toBe(format)
    const c = parseMeterText(text)
    expect(c.format).toBe(format)
    expect(c.series.clock).toBe(clock)
    expect(c.series.samples).toHaveLength(12)
    c.series.samples.forEach((s, i) => expect(s.powerW).toBeCloseTo(refPowers[i] ?? NaN, 6))
    expect(meanPowerW(c.series)).toBeCloseTo(0.061163407, 6)
  })
  test('CSV time base and Historian epoch', () => {
    const csv = parseMeterText(readFixture('monsoon_from_battor_test_data.csv'))
    expect(csv.series.samples.map((s) => s.tNs)).toEqual(reference.series.samples.map((s) => s.tNs))
    const h = parseMeterText(readFixture('historian_seconds_from_battor_test_data.txt'))
    expect(h.series.samples[1]?.tNs).toBe(1486567349e9 + 100_000)
    const ms = parseMeterText(readFixture('historian_ms.txt'))
    expect(ms.series.samples[0]?.tNs).toBe(1486567349100 * 1e6)
  })
  test('whole-second Historian lines are spread evenly over each second; nominal voltage', () => {
    const text = readFixture('historian_whole_seconds_no_volts.txt')
    expectCode(() => parseMeterText(text), MeterErrors.NO_VOLTAGE)
    const c = parseMeterText(text, { nominalVoltageV: 4 })
    expect(c.voltageMeasured).toBe(false)
    // epoch ns exceed 2^53: values are the nearest doubles (a 256 ns grid), as JS arithmetic gives
    const base = 1486567349e9
    expect(c.series.samples.map((s) => s.tNs)).toEqual(
      [0, 250e6, 500e6, 750e6, 1e9, 1.5e9].map((d) => base + d),
    )
    expect(c.series.samples[0]?.powerW).toBeCloseTo(0.48, 12)
  })
  test('power-only CSV needs no voltage', () => {
    const c = parseMeterText('Time (ms),Main Avg Power (mW)\n0,1000\n1,1500\n')
    expect(c.series.samples).toEqual([
      { tNs: 0, powerW: 1 },
      { tNs: 1e6, powerW: 1.5 },
    ])
    expect(c.currentA).toBeUndefined()
  })
  test('sample order invariant (property): any increasing BattOr series parses back exactly', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 1, max: 1000 }),
            fc.integer({ min: 0, max: 3000 }),
            fc.integer({ min: 3000, max: 4400 }),
          ),
          {
            minLength: 1,
            maxLength: 50,
          },
        ),
        (rows) => {
          let t = 0
          const lines = rows.map(([dt, mA, mV]) => {
            t += dt
            return `${t / 10} ${mA} ${mV}`
          })
          const c = parseMeterText(['# BattOr', ...lines, ''].join('\n'))
          expect(c.series.samples).toHaveLength(rows.length)
          for (let i = 1; i < c.series.samples.length; i++) {
            expect(c.series.samples[i]?.tNs).toBeGreaterThan(
              c.series.samples[i - 1]?.tNs ?? Infinity,
            )
          }
          rows.forEach(([, mA, mV], i) =>
            expect(c.series.samples[i]?.powerW).toBeCloseTo((mA * mV) / 1e6, 12),
          )
        },
      ),
    )
  })
})

describe('meter negative', () => {
  test('unknown format', () => {
    expectCode(
      () => parseMeterText(readCorpus('physalia_fdroid_profiler_db.csv')),
      MeterErrors.UNKNOWN_FORMAT,
    )
    expectCode(() => parseMeterText(''), MeterErrors.UNKNOWN_FORMAT)
  })
  test('truncated BattOr file: the cut last line is an error with its line number', () => {
    const text = readCorpus('catapult_battor_test_data.txt')
    const cut = text.slice(0, text.lastIndexOf(' '))
    expect(expectCode(() => parseMeterText(cut), MeterErrors.BAD_ROW).details.line).toBe(16)
  })
  test('corrupted value', () => {
    const text = readCorpus('catapult_battor_test_data.txt').replace('0.30 12.2', '0.30 1x.2')
    expect(expectCode(() => parseMeterText(text), MeterErrors.BAD_ROW).details.line).toBe(8)
  })
  test('time going backwards', () => {
    const text = '# BattOr\n0.0 1 4000\n0.2 1 4000\n0.1 1 4000\n'
    expect(
      expectCode(() => parseMeterText(text), MeterErrors.TIME_NOT_INCREASING).details.line,
    ).toBe(4)
  })
  test('header only', () => {
    expectCode(() => parseMeterText('# BattOr\n# sample_rate 2000 Hz\n'), MeterErrors.EMPTY)
  })
  test('CSV without unit, without current, with short rows', () => {
    const noUnit = expectCode(
      () => parseMeterText('Time (s),Main Avg Current,Main Avg Voltage (V)\n0,1,4\n'),
      MeterErrors.UNKNOWN_UNIT,
    )
    expect(noUnit.details.column).toBe('Main Avg Current')
    expectCode(() => parseMeterText('Time (s),Temperature (C)\n0,25\n'), MeterErrors.MISSING_COLUMN)
    const short = expectCode(
      () => parseMeterText('Time (s),Main Avg Current (mA),Main Avg Voltage (V)\n0,1,4\n0.1,2\n'),
      MeterErrors.BAD_ROW,
    )
    expect(short.details.line).toBe(3)
  })
  test('Historian mixed styles', () => {
    expectCode(
      () => parseMeterText('1486567349.5 0.1 4.0\n1486567350 0.1 4.0\n'),
      MeterErrors.BAD_ROW,
    )
    expectCode(
      () => parseMeterText('1486567349.5 0.1 4.0\n1486567349.7 0.1\n'),
      MeterErrors.BAD_ROW,
    )
    expectCode(() => parseMeterText('1486567349.5 0.1 4.0\nnot a line\n'), MeterErrors.BAD_ROW)
  })
  test('bad nominal voltage', () => {
    expectCode(
      () =>
        parseMeterText(readFixture('historian_whole_seconds_no_volts.txt'), { nominalVoltageV: 0 }),
      MeterErrors.NO_VOLTAGE,
    )
  })
})

describe('meter robustness (fuzz)', () => {
  const seeds = [
    readCorpus('catapult_battor_test_data.txt'),
    readFixture('monsoon_from_battor_test_data.csv'),
    readFixture('historian_seconds_from_battor_test_data.txt'),
  ]
  const onlyEnergyErrors = (input: string): void => {
    try {
      parseMeterText(input, { nominalVoltageV: 4 })
    } catch (e) {
      expect(e).toBeInstanceOf(EnergyError)
    }
  }
  test('arbitrary text either parses or throws EnergyError', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), onlyEnergyErrors))
  })
  test('truncations and corruptions of each format', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...seeds),
        fc.nat(),
        fc.nat(),
        fc.constantFrom(',', ' ', 'x', '9', '.', '\n', '-'),
        (seed, cut, at, ch) => {
          onlyEnergyErrors(seed.slice(0, cut % (seed.length + 1)))
          const i = at % seed.length
          onlyEnergyErrors(seed.slice(0, i) + ch + seed.slice(i + 1))
        },
      ),
      { numRuns: 300 },
    )
  })
  test('quoted CSV cells', () => {
    const c = parseMeterText(
      '"Time (s)","Main Avg Current (mA)","Main Avg Voltage (V)"\n"0","100","4"\n',
    )
    expect(c.series.samples).toEqual([{ tNs: 0, powerW: 0.4 }])
  })
})

describe('meter writers', () => {
  test('BattOr writer reproduces the real capture byte for byte', () => {
    const text = readCorpus('catapult_battor.txt')
    expect(formatBattorText(parseMeterText(text))).toBe(text)
  })
  test('BattOr writer with 2 decimals reproduces the 10 kHz test file except number formatting', () => {
    const text = readCorpus('catapult_battor_test_data.txt')
    const again = parseMeterText(formatBattorText(parseMeterText(text), 2))
    expect(again.series).toEqual(parseMeterText(text).series)
  })
  test('Historian ms writer round-trips (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 1, max: 5000 }),
            fc.integer({ min: -3000, max: 3000 }),
            fc.integer({ min: 3000, max: 4400 }),
          ),
          { minLength: 1, maxLength: 40 },
        ),
        (rows) => {
          let ms = 1_700_000_000_000
          const lines = rows.map(([dt, mA, mV]) => `${(ms += dt)} ${mA} ${mV}`)
          const text = `${lines.join('\n')}\n`
          const c = parseMeterText(text)
          expect(c.format).toBe('historian')
          const again = parseMeterText(formatHistorianPowerMonitor(c))
          expect(again.series.samples.map((s) => s.tNs)).toEqual(c.series.samples.map((s) => s.tNs))
          again.series.samples.forEach((s, i) =>
            expect(s.powerW).toBeCloseTo(c.series.samples[i]?.powerW ?? NaN, 9),
          )
        },
      ),
      { numRuns: 100 },
    )
  })
  test('writers refuse captures without current/voltage', () => {
    const c = parseMeterText('Time (ms),Main Avg Power (mW)\n0,1000\n1,1500\n')
    expectCode(() => formatBattorText(c), MeterErrors.NO_VOLTAGE)
    expectCode(() => formatHistorianPowerMonitor(c), MeterErrors.NO_VOLTAGE)
  })
})

describe('meter parsers are linear in their input (issue 16)', () => {
  test('a CSV header full of `(`', () => {
    expectLinear((n) => `Time (s),${'('.repeat(n)}Current\n0,1\n`, parseMeterText, 8000)
    expectLinear((n) => `Time (s),Main Current ${'('.repeat(n)}mA)\n0,1\n`, parseMeterText, 8000)
  })
  test('a CSV cell that is a long digit run', () => {
    expectLinear(
      (n) => `Time (s),Main (mA),Main Voltage (V)\n${'1'.repeat(n)}x,1,1\n`,
      parseMeterText,
      8000,
    )
  })
  test('a Historian line with a long digit run', () => {
    expectLinear(
      (n) => `1 ${'1'.repeat(n)}x\n`,
      (t) => parseMeterText(t, { format: 'historian' }),
      8000,
    )
    expectLinear((n) => `1 2 ${'3'.repeat(n)}x\n`, parseMeterText, 8000)
  })
  test('a BattOr header line with carriage returns inside', () => {
    expectLinear((n) => `# BattOr\n#${'a'.repeat(n)}\rb\rc\n0 1 1\n`, parseMeterText, 8000)
  })
  test('the unit is still the text in the last parentheses', () => {
    const c = parseMeterText('Time (ms), Main Avg Current ( mA ) ,Main Avg Voltage (V)\n0,1000,4\n')
    expect(c.series.samples).toEqual([{ tNs: 0, powerW: 4 }])
    expectCode(
      () => parseMeterText('Time (s),Current (m)A)\n0,1\n', { nominalVoltageV: 4 }),
      MeterErrors.UNKNOWN_UNIT,
    )
    expectCode(() => parseMeterText('Time (s),Current ()\n0,1\n'), MeterErrors.UNKNOWN_UNIT)
  })
})

describe('shared corpus 5_power_monitor (../shared/corpus) through the meter parser', () => {
  const shared = sharedCorpus('5_power_monitor')
  const capture = (file: string): ReturnType<typeof parseMeterText> =>
    parseMeterText(readFileSync(join(shared?.dir ?? '', file), 'latin1'))
  test.skipIf(shared === undefined)(
    'the BattOr captures parse; every other file is refused as none of the meter formats',
    () => {
      expect(capture('catapult_battor.txt').series.samples).toHaveLength(30624)
      expect(capture('catapult_battor_test_data.txt').series.samples).toHaveLength(12)
      const others = (shared?.files ?? []).filter((f) => !f.startsWith('catapult_battor'))
      // Perfetto traces and textprotos, systrace text, Physalia result tables (no header, one
      // energy figure per run), a table of per-trace averages: none is a meter capture
      expect(others).toHaveLength(18)
      for (const file of others) {
        const e = expectCode(() => capture(file), MeterErrors.UNKNOWN_FORMAT)
        expect(e.message, file).toContain('not a BattOr text file')
      }
    },
  )
})
