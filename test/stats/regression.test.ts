import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import { robustRegression } from '../../src/stats/index.js'
import { isEnergyError } from '../../src/model/index.js'

function design(rows: number): number[][] {
  // windows × (intercept, method A calls, method B calls): independent columns
  return Array.from({ length: rows }, (_, i) => [1, i % 5, ((i * 7) % 3) + (i % 2)])
}

describe('robust regression (bisquare IRLS)', () => {
  test('recovers exact coefficients on noise-free data', () => {
    const X = design(20)
    const y = X.map((r) => 2 + 3 * r[1]! - 0.5 * r[2]!)
    const fit = robustRegression(X, y)
    expect(fit.coefficients[0], 'β0').toBeCloseTo(2, 10)
    expect(fit.coefficients[1], 'β1').toBeCloseTo(3, 10)
    expect(fit.coefficients[2], 'β2').toBeCloseTo(-0.5, 10)
    expect(fit.outliers, 'no outliers').toEqual([])
    expect(fit.converged, 'converged').toBe(true)
  })
  test('ignores a gross outlier (a GC spike) that ruins OLS', () => {
    const X = design(20)
    const y = X.map((r, i) => 2 + 3 * r[1]! - 0.5 * r[2]! + 0.05 * Math.sin(i * 12.9898))
    y[7]! += 100
    const fit = robustRegression(X, y)
    expect(fit.outliers, 'the spike').toEqual([7])
    expect(fit.weights[7], 'zero weight').toBe(0)
    expect(fit.coefficients[1], 'β1').toBeCloseTo(3, 1)
    expect(fit.coefficients[2], 'β2').toBeCloseTo(-0.5, 1)
    expect(fit.scale, 'robust scale ~ noise').toBeLessThan(0.1)
  })
  test('properties: exact recovery and outlier immunity for random coefficients', () => {
    fc.assert(
      fc.property(
        fc.tuple(
          fc.double({ min: -50, max: 50, noNaN: true }),
          fc.double({ min: -50, max: 50, noNaN: true }),
          fc.double({ min: -50, max: 50, noNaN: true }),
        ),
        fc.integer({ min: 0, max: 19 }),
        fc.double({ min: 500, max: 5000, noNaN: true }),
        (beta, at, spike) => {
          const X = design(20)
          const y = X.map((r) => beta[0] + beta[1] * r[1]! + beta[2] * r[2]!)
          const clean = robustRegression(X, y)
          clean.coefficients.forEach((b, j) => expect(b).toBeCloseTo(beta[j]!, 6))
          y[at]! += spike
          const dirty = robustRegression(X, y)
          dirty.coefficients.forEach((b, j) => expect(b).toBeCloseTo(beta[j]!, 6))
          expect(dirty.outliers).toEqual([at])
        },
      ),
      { numRuns: 60 },
    )
  })
  test('rank deficiency names the collinear and never-varying columns', () => {
    const X = design(10).map((r) => [...r, 2 * r[1]! + r[2]!, 0])
    try {
      robustRegression(
        X,
        X.map(() => 1),
        { columnNames: ['intercept', 'Feed.bind', 'Map.draw', 'Feed.render', 'Sync.run'] },
      )
      expect.unreachable()
    } catch (error) {
      expect(isEnergyError(error) && error.code).toBe('E_STATS_RANK_DEFICIENT')
      const message = (error as Error).message
      expect(message, 'names the all-zero column').toMatch(/never used \(all zero\): Sync\.run/)
      expect(message, 'names the collinear column').toMatch(
        /collinear with earlier columns: Feed\.render/,
      )
    }
  })
  test('a constant column next to an intercept is collinear', () => {
    const X = design(10).map((r) => [...r, 3])
    expect(() =>
      robustRegression(
        X,
        X.map(() => 1),
      ),
    ).toThrow(/collinear with earlier columns: x3/)
  })
  test('shape errors', () => {
    expect(() => robustRegression([[1, 2]], [1, 2])).toThrow(/E_STATS_SHAPE_MISMATCH/)
    expect(() => robustRegression([[1, 2], [1]], [1, 2])).toThrow(/E_STATS_SHAPE_MISMATCH/)
    expect(() => robustRegression([[1, 2]], [1])).toThrow(/E_STATS_RANK_DEFICIENT/)
    expect(() => robustRegression(design(5), [1, 2, 3, 4, 5], { columnNames: ['a'] })).toThrow(
      /E_STATS_SHAPE_MISMATCH/,
    )
  })
})

test('arbitrary designs either fit with finite coefficients or throw an EnergyError (property)', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 4 }).chain((p) =>
        fc.tuple(
          fc.array(fc.array(fc.integer({ min: -3, max: 3 }), { minLength: p, maxLength: p }), {
            minLength: 1,
            maxLength: 12,
          }),
          fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), {
            minLength: 12,
            maxLength: 12,
          }),
        ),
      ),
      ([X, ys]) => {
        const y = ys.slice(0, X.length)
        try {
          const fit = robustRegression(X, y)
          for (const b of fit.coefficients) expect(Number.isFinite(b)).toBe(true)
          for (const w of fit.weights) expect(w >= 0 && w <= 1).toBe(true)
        } catch (error) {
          expect(isEnergyError(error), String(error)).toBe(true)
        }
      },
    ),
  )
})
