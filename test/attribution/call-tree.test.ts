// The window's call tree for flame graphs: built from stack samples (with the energy attribution
// gave each) or a method trace's calls, asynchronous energy under its own node, trimmed to a
// bounded number of nodes with the rest folded into `other` so every level still sums up.
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { attributeTest } from '../../src/attribution/attribute.js'
import { CallTreeBuilder } from '../../src/attribution/call-tree.js'
import { attributeIntervals } from '../../src/attribution/interval.js'
import { powerCurve } from '../../src/attribution/curve.js'
import type { CallTreeNode, StackSample } from '../../src/model/index.js'
import { MS, S, call, sample, series, stacks, trace, win } from './_helpers.js'

/** Every node's inclusive energy is its self energy plus its children's. */
function sumsUp(n: CallTreeNode): boolean {
  const children = n.children ?? []
  const sum = n.selfEnergyJ + children.reduce((s, c) => s + c.inclusiveEnergyJ, 0)
  return (
    Math.abs(sum - n.inclusiveEnergyJ) <= 1e-9 * Math.max(1, Math.abs(sum)) &&
    children.every(sumsUp)
  )
}

function count(n: CallTreeNode): number {
  return 1 + (n.children ?? []).reduce((s, c) => s + count(c), 0)
}

const strip = (n: CallTreeNode): unknown => ({
  name: n.name,
  kind: n.kind,
  self: +n.selfEnergyJ.toFixed(9),
  inclusive: +n.inclusiveEnergyJ.toFixed(9),
  ...(n.children === undefined ? {} : { children: n.children.map(strip) }),
})

describe('CallTreeBuilder', () => {
  test('stack samples: root → thread → outermost frame → … → leaf, energy at the leaf', () => {
    const b = new CallTreeBuilder()
    const main = (frames: string[]): StackSample => ({ ...sample(0, frames), threadName: 'main' })
    b.addSample(main(['bind', 'onBind', 'loop']), 0.3)
    b.addSample(main(['onBind', 'loop']), 0.1)
    b.addSample(main(['decode', 'loop']), 0.2)
    b.addSample({ ...sample(0, ['run']), threadId: 7 }, 0.4)
    b.addSample(main([]), 5) // no frames: nothing to place
    const tree = b.build({ asyncJ: new Map([['sync', 0.25]]), minShare: 0 }) as CallTreeNode
    expect(strip(tree)).toEqual({
      name: 'attributed to methods',
      kind: 'root',
      self: 0,
      inclusive: 1.25,
      children: [
        {
          name: 'main',
          kind: 'thread',
          self: 0,
          inclusive: 0.6,
          children: [
            {
              name: 'loop',
              kind: 'method',
              self: 0,
              inclusive: 0.6,
              children: [
                {
                  name: 'onBind',
                  kind: 'method',
                  self: 0.1,
                  inclusive: 0.4,
                  children: [{ name: 'bind', kind: 'method', self: 0.3, inclusive: 0.3 }],
                },
                { name: 'decode', kind: 'method', self: 0.2, inclusive: 0.2 },
              ],
            },
          ],
        },
        {
          name: 'thread 7',
          kind: 'thread',
          self: 0,
          inclusive: 0.4,
          children: [{ name: 'run', kind: 'method', self: 0.4, inclusive: 0.4 }],
        },
        {
          name: 'asynchronous',
          kind: 'async',
          self: 0,
          inclusive: 0.25,
          children: [{ name: 'sync', kind: 'method', self: 0.25, inclusive: 0.25 }],
        },
      ],
    })
  })

  test('nothing added: no tree', () => {
    expect(new CallTreeBuilder().build()).toBeUndefined()
  })

  test('a method trace: callers from the nesting of each thread’s calls', () => {
    const t = trace([
      call(1, 'loop', 0, 100 * MS, 0),
      call(1, 'onBind', 10 * MS, 40 * MS, 1),
      call(1, 'bind', 20 * MS, 30 * MS, 2),
      call(1, 'decode', 50 * MS, 60 * MS, 1),
      call(2, 'run', 0, 50 * MS, 0),
    ])
    const power = powerCurve(
      series([
        [0, 2],
        [100 * MS, 2],
      ]),
    )
    const attributed = attributeIntervals(t, power, { window: win(0, 100 * MS), split: 'time' })
    const b = new CallTreeBuilder()
    b.addCalls(t, attributed.calls)
    const tree = b.build({ minShare: 0 }) as CallTreeNode
    expect(tree.children?.map((c) => c.name)).toEqual(['t1', 't2'])
    const loop = tree.children?.[0]?.children?.[0] as CallTreeNode
    expect(loop.name).toBe('loop')
    expect(loop.children?.map((c) => c.name)).toEqual(['onBind', 'decode'])
    expect(loop.children?.[0]?.children?.map((c) => c.name)).toEqual(['bind'])
    expect(tree.inclusiveEnergyJ).toBeCloseTo(attributed.attributedEnergyJ, 12)
    expect(sumsUp(tree)).toBe(true)
  })

  test('trimmed: small nodes fold into one `other` per parent; the totals stay', () => {
    const b = new CallTreeBuilder()
    b.addSample(sample(0, ['big', 'root']), 0.9)
    for (let i = 0; i < 50; i++) b.addSample(sample(0, [`tiny${i}`, 'root']), 0.001)
    const tree = b.build({ minShare: 0.01 }) as CallTreeNode
    const root = tree.children?.[0]?.children?.[0] as CallTreeNode
    expect(root.children?.map((c) => c.name)).toEqual(['big', 'other'])
    expect(root.children?.[1]?.inclusiveEnergyJ).toBeCloseTo(0.05, 12)
    expect(tree.inclusiveEnergyJ).toBeCloseTo(0.95, 12)
    // The share is of the window's net energy when that is larger.
    const b2 = new CallTreeBuilder()
    b2.addSample(sample(0, ['a']), 0.01)
    b2.addSample(sample(0, ['b']), 0.02)
    const small = b2.build({ minShare: 0.01, referenceJ: 10 }) as CallTreeNode
    expect(small.children?.map((c) => c.name)).toEqual(['other'])
  })

  test('property: any tree is trimmed to ≤ maxNodes, sums up at every level, keeps its total', () => {
    const frame = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g')
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 1, max: 3 }),
            fc.array(frame, { minLength: 1, maxLength: 8 }),
            fc.double({ min: -0.1, max: 1, noNaN: true }),
          ),
          { minLength: 1, maxLength: 300 },
        ),
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 0.05, noNaN: true }),
        (stacksIn, maxNodes, minShare) => {
          const b = new CallTreeBuilder()
          let total = 0
          for (const [thread, frames, j] of stacksIn) {
            b.addSample({ ...sample(0, frames), threadId: thread }, j)
            total += j
          }
          const tree = b.build({ maxNodes, minShare }) as CallTreeNode
          expect(count(tree)).toBeLessThanOrEqual(Math.max(maxNodes, 2))
          expect(sumsUp(tree)).toBe(true)
          expect(Math.abs(tree.inclusiveEnergyJ - total)).toBeLessThanOrEqual(
            1e-9 * Math.max(1, Math.abs(total)),
          )
        },
      ),
      { numRuns: 300 },
    )
  })

  test('built during attribution: the tree holds what the samples were charged', () => {
    const samples = Array.from({ length: 400 }, (_, i) =>
      sample(i * 2.5 * MS, i % 3 === 0 ? ['decode', 'loop'] : ['bind', 'onBind', 'loop'], 2.5 * MS),
    )
    const b = new CallTreeBuilder()
    const out = attributeTest({
      label: 'x',
      window: win(0, 1 * S),
      power: series([
        [0, 1.5],
        [1 * S, 2.5],
      ]),
      baseline: { kind: 'configured', powerW: 1 },
      execution: {
        kind: 'samples',
        samples: stacks(samples),
        onSampleEnergy: (s, j) => b.addSample(s, j),
      },
    })
    const tree = b.build({ minShare: 0 }) as CallTreeNode
    const local = out.result.methods.reduce((s, m) => s + m.localEnergyJ, 0)
    expect(tree.inclusiveEnergyJ).toBeCloseTo(local, 12)
    const bind = out.result.methods.find((m) => m.method === 'bind')
    const loop = tree.children?.[0]?.children?.[0]
    const onBind = loop?.children?.find((c) => c.name === 'onBind')
    expect(onBind?.children?.[0]?.selfEnergyJ).toBeCloseTo(bind?.localEnergyJ ?? NaN, 12)
  })
})
