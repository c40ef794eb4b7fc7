import { describe, expect, test } from 'vitest'
import { AttributionErrors } from '../../src/attribution/errors.js'
import {
  chargeTails,
  energyWeightedSamples,
  tailCumulativeJ,
  tailPowerW,
  type TailInvocation,
} from '../../src/attribution/tails.js'
import { S, codeOf } from './_helpers.js'

const inv = (method: string, startS: number, endS: number, component = 'wifi'): TailInvocation => ({
  method,
  component,
  startNs: startS * S,
  endNs: endS * S,
  tailEnergyJ: 1,
  tailDurationNs: 2 * S,
})

describe('tail energy (vLens Eq. 2)', () => {
  // API_1 ends at t1 = 1 s; API_2 starts at t2 = 1.5 s, before T_tail = 2 s has run out (t3 = 3 s).
  const api = [inv('API_1', 0, 1), inv('API_2', 1.5, 2)]

  test('split-among-overlapping: (t2 − t1)/(t3 − t1) · E_tail to API_1, all of E_tail to API_2', () => {
    const charges = chargeTails(api, 'split-among-overlapping')
    expect(charges).toHaveLength(2)
    const [c1, c2] = charges
    expect(c1?.method).toBe('API_1')
    expect(c1?.energyJ, '(1.5 − 1) / 2 × 1 J').toBeCloseTo(0.25, 12)
    expect(c1?.endNs, 'tail cut where API_2 starts').toBe(1.5 * S)
    expect(c2?.method).toBe('API_2')
    expect(c2?.energyJ).toBeCloseTo(1, 12)
    expect(c2?.endNs).toBe(4 * S)
  })

  test('a gap longer than T_tail charges the whole tail to each invocation', () => {
    const charges = chargeTails([inv('a', 0, 1), inv('b', 5, 6)])
    expect(charges.map((c) => c.energyJ)).toEqual([1, 1])
  })

  test('charge-to-initiator: a burst is charged to the call that woke the component', () => {
    const charges = chargeTails([...api, inv('later', 10, 11)], 'charge-to-initiator')
    expect(charges.map((c) => c.method)).toEqual(['API_1', 'API_1', 'later'])
    expect(charges.reduce((s, c) => s + c.energyJ, 0)).toBeCloseTo(2.25, 12)
  })

  test('leave-unattributed: tails are modelled but nobody is charged', () => {
    const charges = chargeTails(api, 'leave-unattributed')
    expect(charges.every((c) => c.method === undefined)).toBe(true)
    expect(charges.reduce((s, c) => s + c.energyJ, 0)).toBeCloseTo(1.25, 12)
  })

  test('components do not cut each other', () => {
    const charges = chargeTails([inv('net', 0, 1, 'wifi'), inv('gps', 1.5, 2, 'gps')])
    expect(charges.map((c) => c.energyJ)).toEqual([1, 1])
  })

  test('a tail drawn on top of one left on is charged beside it: neither cuts the other', () => {
    const left = inv('WatchLink.pair', 0, 0)
    const rise = { ...inv('FeedRepository.refresh', 0, 0), tailEnergyJ: 0.8, onTop: true }
    const charges = chargeTails([rise, left])
    expect(charges.map((c) => [c.method, c.energyJ])).toEqual([
      ['FeedRepository.refresh', 0.8],
      ['WatchLink.pair', 1],
    ])
    // Without it, the two cut each other as Eq. 2 says: the one listed first gets nothing.
    expect(chargeTails([{ ...rise, onTop: false }, left]).map((c) => c.energyJ)).toEqual([0, 1])
  })

  test('tail power is flat over each charge, and its integral is the charge', () => {
    const charges = chargeTails(api)
    expect(tailPowerW(charges, 1.2 * S), '0.25 J over 0.5 s').toBeCloseTo(0.5, 12)
    expect(tailPowerW(charges, 2.5 * S), '1 J over 2 s').toBeCloseTo(0.5, 12)
    expect(tailCumulativeJ(charges, 100 * S)).toBeCloseTo(1.25, 12)
    expect(tailCumulativeJ(charges, 3 * S), '0.25 + half of 1 J').toBeCloseTo(0.75, 12)
  })

  test('rejects invalid invocations and policies', () => {
    expect(codeOf(() => chargeTails([{ ...inv('a', 1, 0) }]))).toBe(
      AttributionErrors.INVALID_OPTION,
    )
    expect(codeOf(() => chargeTails([{ ...inv('a', 0, 1), tailDurationNs: 0 }]))).toBe(
      AttributionErrors.INVALID_OPTION,
    )
    expect(codeOf(() => chargeTails([], 'everyone' as never))).toBe(
      AttributionErrors.INVALID_OPTION,
    )
  })
})

describe('energy-weighted samples with carry (eprof §III-D)', () => {
  test('0.87 J at 0.1 J per sample → 8 samples, 0.07 J carried', () => {
    const r = energyWeightedSamples([0.87], 0.1)
    expect(r.counts).toEqual([8])
    expect(r.carryJ).toBeCloseTo(0.07, 12)
  })

  test('the carry is added to the next request; nothing is left unreported', () => {
    const r = energyWeightedSamples([0.87, 0.05, 0.3], 0.1)
    expect(r.counts, '0.87 → 8 (0.07); 0.12 → 1 (0.02); 0.32 → 3 (0.02)').toEqual([8, 1, 3])
    expect(r.carryJ).toBeCloseTo(0.02, 12)
    const total = 0.87 + 0.05 + 0.3
    expect(r.counts.reduce((a, b) => a + b, 0) * 0.1 + r.carryJ).toBeCloseTo(total, 12)
  })

  test('rejects a non-positive sample energy and negative requests', () => {
    expect(codeOf(() => energyWeightedSamples([1], 0))).toBe(AttributionErrors.INVALID_OPTION)
    expect(codeOf(() => energyWeightedSamples([-1], 0.1))).toBe(AttributionErrors.INVALID_OPTION)
  })
})
