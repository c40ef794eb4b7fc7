/** Invariants of the classifier on random spectra. */
import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import {
  classify,
  parseKnowledgeBase,
  parseSpectrumInput,
  PRESETS,
  testSpectrum,
  type TestSpectrum,
} from '../../src/classify/index.js'
import { isEnergyError } from '../../src/model/index.js'

const METHODS = ['a.B.m1', 'a.B.m2', 'a.C.m3', 'd.E.m4', 'd.E.m5', 'F.m6']

const spectra = fc
  .array(fc.tuple(fc.integer({ min: 1, max: 50 }), fc.subarray(METHODS)), {
    minLength: 1,
    maxLength: 25,
  })
  .map((rows) =>
    rows.map(([power, methods], i) =>
      testSpectrum({ id: `t${i}`, energyJ: power / 10, durationS: 1, methods }),
    ),
  )

const colours = (tests: readonly TestSpectrum[], preset: (typeof PRESETS)[number]) =>
  Object.fromEntries(
    classify(tests, { preset, allMethods: METHODS }).methods.map((m) => [m.name, m.color]),
  )

test('test order does not matter (property)', () => {
  fc.assert(
    fc.property(spectra, fc.nat(), (tests, seed) => {
      const shuffled = [...tests].sort(
        (a, b) =>
          ((a.id.length * 31 + seed) % 7) - ((b.id.length * 31 + seed) % 7) ||
          (a.id < b.id ? 1 : -1),
      )
      for (const preset of PRESETS)
        expect(colours(shuffled, preset)).toEqual(colours(tests, preset))
    }),
  )
})

test('counts partition the tests, and colours follow the counts (property)', () => {
  fc.assert(
    fc.property(spectra, (tests) => {
      const r = classify(tests, { allMethods: METHODS })
      for (const m of r.methods) {
        expect(m.n11 + m.n01, 'excessive tests').toBe(r.excessive.length)
        expect(m.n11 + m.n10 + m.n01 + m.n00, 'all tests').toBe(tests.length)
        const ran = tests.filter((t) => t.methods.some((h) => h.name === m.name)).length
        expect(m.n11 + m.n10, 'tests that ran it').toBe(ran)
        if (ran === 0) expect(m.color).toBe('uncolored')
        else if (m.n11 === 0) expect(m.color).toBe('green')
        else expect(m.color).toBe(m.p >= 0.7 - 1e-12 ? 'red' : 'yellow')
      }
      expect(
        r.excessive.every(
          (id) => (tests.find((t) => t.id === id)?.averagePowerW ?? 0) > (r.threshold ?? Infinity),
        ),
      ).toBe(true)
    }),
  )
})

describe('parsers never crash on arbitrary input', () => {
  const onlyEnergyErrors = (fn: () => unknown) => {
    try {
      fn()
    } catch (error) {
      expect(isEnergyError(error), String(error)).toBe(true)
    }
  }
  test('parseSpectrumInput: any JSON value, and near-miss spectra (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (json) => onlyEnergyErrors(() => parseSpectrumInput(json))),
    )
    const nearMiss = fc.record(
      {
        tests: fc.array(
          fc.record(
            {
              id: fc.oneof(fc.string(), fc.integer()),
              energyJ: fc.jsonValue(),
              durationS: fc.jsonValue(),
              methods: fc.oneof(fc.array(fc.oneof(fc.string(), fc.jsonValue())), fc.jsonValue()),
            },
            { requiredKeys: [] },
          ),
        ),
        knowledgeBase: fc.jsonValue(),
        excessive: fc.jsonValue(),
      },
      { requiredKeys: ['tests'] },
    )
    fc.assert(fc.property(nearMiss, (json) => onlyEnergyErrors(() => parseSpectrumInput(json))))
  })
  test('parseKnowledgeBase: any text (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (text) => onlyEnergyErrors(() => parseKnowledgeBase(text)),
      ),
    )
  })
})
