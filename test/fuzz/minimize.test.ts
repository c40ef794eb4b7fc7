// The fuzzer's minimizer (fuzz/minimize.ts) on failures whose cause is known, so what it must
// shrink them to is known too.
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { minimize } from '../../fuzz/minimize.js'

const enc = new TextEncoder()
const noise = (length: number): Uint8Array =>
  Uint8Array.from({ length }, (_, i) => 0x61 + ((i * 7919) % 23)) // no 'X', 'Y' or 'Z'

/** A chunked decoder's kind of bug: fails when "XY" is split between its X and its Y. */
const splitXY = async (input: Uint8Array, points: readonly number[]): Promise<boolean> =>
  points.some((p) => input[p - 1] === 0x58 && input[p] === 0x59)

test('a failure that needs a split point keeps it through the cuts around it: "X|Y"', async () => {
  const input = noise(50_000)
  input.set(enc.encode('XY'), 30_000)
  const found = await minimize(input, [7, 12_345, 30_001, 45_000], splitXY)
  expect(new TextDecoder().decode(found.input)).toBe('XY')
  expect(found.points).toEqual([1])
})

test('a failure that needs bytes only loses every other byte and every split point', async () => {
  const input = noise(20_000)
  input.set(enc.encode('Z'), 123)
  input.set(enc.encode('Z'), 17_000)
  const twoZ = async (b: Uint8Array): Promise<boolean> => b.filter((x) => x === 0x5a).length >= 2
  const found = await minimize(input, [5, 500, 19_000], twoZ)
  expect(new TextDecoder().decode(found.input)).toBe('ZZ')
  expect(found.points).toEqual([])
})

test('property: the result still fails, is no longer than the input, and its points are inside it', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ minLength: 1, maxLength: 400 }),
      fc.uniqueArray(fc.integer({ min: 1, max: 399 }), { maxLength: 8 }),
      fc.integer({ min: 0, max: 255 }),
      async (input, anyPoints, byte) => {
        // Split points as the fuzzer makes them: distinct, sorted, inside the input.
        const points = anyPoints.filter((p) => p < input.length).sort((a, b) => a - b)
        const fails = async (b: Uint8Array, p: readonly number[]): Promise<boolean> =>
          b.includes(byte) || p.length > 2
        fc.pre(await fails(input, points))
        const found = await minimize(input, points, fails)
        expect(await fails(found.input, found.points)).toBe(true)
        expect(found.input.length).toBeLessThanOrEqual(input.length)
        for (const p of found.points) expect(p > 0 && p < found.input.length).toBe(true)
        expect(found.points).toEqual([...new Set(found.points)].sort((a, b) => a - b))
      },
    ),
  )
})

test('the limits stop it: at most `attempts` candidates', async () => {
  let tried = 0
  const found = await minimize(
    noise(10_000),
    [],
    async () => {
      tried++
      return false
    },
    { attempts: 50 },
  )
  expect(tried).toBe(50)
  expect(found.input.length).toBe(10_000)
})
