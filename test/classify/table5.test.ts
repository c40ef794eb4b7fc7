/** Couto 2014, §5.4 and Table 5: the worked example, under both presets and both methodB variants. */
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import {
  classify,
  parseSpectrumInput,
  PRESETS,
  type ClassificationResult,
} from '../../src/classify/index.js'

const load = (variant: string) =>
  parseSpectrumInput(
    JSON.parse(
      readFileSync(
        new URL(`../fixtures/classify/couto-table5-${variant}.json`, import.meta.url),
        'utf8',
      ),
    ),
    variant,
  )

const method = (r: ClassificationResult, name: string) => {
  const m = r.methods.find((x) => x.name === `com.app1.Main.${name}`)
  if (m === undefined) throw new Error(`missing ${name}`)
  return m
}

describe.each(['text', 'table'])("Table 5, methodB as in the thesis's %s", (variant) => {
  const input = load(variant)
  test.each(PRESETS)('preset %s', (preset) => {
    const r = classify(input.tests, { preset, allMethods: input.allMethods ?? [] })
    expect(r.excessive, 'excessive tests').toEqual(['test1', 'test4', 'test10', 'test19'])
    expect(r.threshold, 'mean power (W)').toBeCloseTo(0.8, 12)
    const a = method(r, 'methodA')
    expect([a.n11, a.n10, a.color], 'methodA').toEqual([0, 16, 'green'])
    const b = method(r, 'methodB')
    expect([b.n11, b.n10, b.p, b.color], 'methodB: 3 of 4').toEqual([3, 1, 0.75, 'red'])
    const c = method(r, 'methodC')
    expect([c.n11, c.n10, c.p, c.color], 'methodC: 2 of 10').toEqual([2, 8, 0.2, 'yellow'])
    const never = r.methods.find((m) => m.name === 'com.app1.Other.neverCalled')
    expect(never?.color, 'never executed').toBe(preset === 'couto2014' ? 'uncolored' : 'green')
  })
  test('the same colours when the excessive tests are given explicitly', () => {
    const r = classify(input.tests, { excessive: ['test1', 'test4', 'test10', 'test19'] })
    expect(r.errorVector).toBe('override')
    expect(r.threshold).toBeNull()
    expect(r.methods.map((m) => m.color)).toEqual(['green', 'red', 'yellow'])
  })
})

test('class colours: Main has one of each colour → yellow under couto2014 (no > 50% majority), green under greendroid-code (g ≥ ⌊3/2⌋)', () => {
  const input = load('text')
  const couto = classify(input.tests, { preset: 'couto2014' })
  const gd = classify(input.tests, { preset: 'greendroid-code' })
  expect(couto.classes, 'couto2014').toEqual([
    { name: 'com.app1.Main', color: 'yellow', members: 3 },
  ])
  expect(gd.classes, 'greendroid-code').toEqual([
    { name: 'com.app1.Main', color: 'green', members: 3 },
  ])
  expect(couto.packages, 'package follows its one class').toEqual([
    { name: 'com.app1', color: 'yellow', members: 1 },
  ])
})

test('methodB coefficients by hand (n11 = 3, n10 = 1, n01 = 1, n00 = 15)', () => {
  const b = method(classify(load('table').tests), 'methodB')
  expect([b.n11, b.n10, b.n01, b.n00], 'counts').toEqual([3, 1, 1, 15])
  expect(b.ochiai, 'Ochiai = 3/√(4·4)').toBeCloseTo(0.75, 14)
  expect(b.tarantula, 'Tarantula = (3/4)/(3/4 + 1/16)').toBeCloseTo(0.75 / 0.8125, 14)
  expect(b.jaccard, 'Jaccard = 3/5').toBeCloseTo(0.6, 14)
  expect(b.dstar, 'DStar = 9/2').toBeCloseTo(4.5, 14)
})
