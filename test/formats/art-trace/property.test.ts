/**
 * Property tests over random well-nested call sequences on several threads, in every version,
 * clock and layout: writer → parser round trip, chunked = batch, and the summary / call
 * intervals equal an independent oracle computed from the call trees.
 */
import fc from 'fast-check'
import { expect, test } from 'vitest'
import {
  parseArtTrace,
  readArtCallTrace,
  summarizeArtTrace,
  summarizeArtTraceChunks,
  writeArtTrace,
  type ArtMethodInput,
  type ArtTraceRecord,
} from '../../../src/formats/art-trace/index.js'
import { chunksOf, LAYOUTS } from './_helpers.js'

interface Node {
  readonly m: number
  readonly kids: readonly Node[]
  readonly unwind: boolean
  readonly pre: number
  readonly post: number
}

const { node } = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.record({
    m: fc.integer({ min: 0, max: 4 }),
    kids: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant([]),
      fc.array(tie('node'), { maxLength: 3 }),
    ),
    unwind: fc.boolean(),
    pre: fc.integer({ min: 0, max: 40 }),
    post: fc.integer({ min: 0, max: 40 }),
  }),
}))

const METHODS: ArtMethodInput[] = [0, 1, 2, 3, 4].map((i) => ({
  id: 0x2000 + 4 * i,
  className: `com/example/C${i}`,
  name: `m${i}`,
  signature: '()V',
  file: `C${i}.java`,
  line: i + 1,
}))

interface Oracle {
  calls: number
  inclCpu: number
  exclCpu: number
  inclWall: number
  exclWall: number
}

interface Event {
  readonly tid: number
  readonly m: number
  readonly action: 'enter' | 'exit' | 'unwind'
  readonly cpu: number
  readonly wall: number
}

/** Flattens one thread's trees into timed events and accumulates the oracle. */
function flatten(
  tid: number,
  trees: readonly Node[],
  wallStart: number,
  oracle: Map<number, Oracle>,
) {
  const events: Event[] = []
  const intervals: Array<{
    m: number
    depth: number
    cpu0: number
    cpu1: number
    unwound: boolean
  }> = []
  let cpu = 0
  const visit = (n: Node, depth: number, ancestors: readonly number[]): [number, number] => {
    cpu += n.pre
    const start = cpu
    events.push({ tid, m: n.m, action: 'enter', cpu, wall: wallStart + 2 * cpu })
    let kidsTotal = 0
    for (const kid of n.kids) {
      const [s, e] = visit(kid, depth + 1, [...ancestors, n.m])
      kidsTotal += e - s
    }
    cpu += n.post
    events.push({
      tid,
      m: n.m,
      action: n.unwind ? 'unwind' : 'exit',
      cpu,
      wall: wallStart + 2 * cpu,
    })
    const o = oracle.get(n.m) ?? { calls: 0, inclCpu: 0, exclCpu: 0, inclWall: 0, exclWall: 0 }
    const d = cpu - start
    o.calls++
    if (!ancestors.includes(n.m)) {
      o.inclCpu += d
      o.inclWall += 2 * d
    }
    o.exclCpu += d - kidsTotal
    o.exclWall += 2 * (d - kidsTotal)
    oracle.set(n.m, o)
    intervals.push({ m: n.m, depth, cpu0: start, cpu1: cpu, unwound: n.unwind })
    return [start, cpu]
  }
  for (const tree of trees) visit(tree, 0, [])
  return { events, intervals }
}

const arbitrary = fc.record({
  layout: fc.constantFrom(...LAYOUTS),
  threads: fc.array(fc.array(node, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
  merge: fc.array(fc.nat(), { maxLength: 400 }),
  wallStart: fc.integer({ min: 0, max: 2 ** 31 }),
})

test('round trip, chunking, summary and call intervals agree with the call-tree oracle', () => {
  fc.assert(
    fc.property(arbitrary, ({ layout, threads, merge, wallStart }) => {
      const oracle = new Map<number, Oracle>()
      const perThread = threads.map((trees, i) => flatten(i + 1, trees, wallStart + i, oracle))
      // Interleave threads arbitrarily, keeping each thread's own order.
      const queues = perThread.map((t) => [...t.events])
      const events: Event[] = []
      let k = 0
      while (queues.some((q) => q.length > 0)) {
        const open = queues.filter((q) => q.length > 0)
        const q = open[(merge[k++] ?? 0) % open.length]
        const e = q?.shift()
        if (e !== undefined) events.push(e)
      }
      const records: ArtTraceRecord[] = events.map((e) => ({
        threadId: e.tid,
        methodId: 0x2000 + 4 * e.m,
        action: e.action,
        ...(layout.clock !== 'wall' ? { threadCpuUs: e.cpu } : {}),
        ...(layout.clock !== 'thread-cpu' ? { wallUs: e.wall } : {}),
      }))
      const bytes = writeArtTrace({
        ...layout,
        threads: threads.map((_, i) => ({ id: i + 1, name: `T${i + 1}` })),
        methods: METHODS,
        records,
        startTimeUs: 5_000_000,
        elapsedTimeUs: 1000,
      })
      const trace = parseArtTrace(bytes)
      expect(trace.records).toEqual(records)

      const summary = summarizeArtTrace(trace)
      expect(summarizeArtTraceChunks(chunksOf(bytes, 13))).toEqual(summary)
      expect(summary.methods).toHaveLength(oracle.size)
      for (const m of summary.methods) {
        const o = oracle.get((Number(m.id) - 0x2000) / 4)
        expect(o).toBeDefined()
        expect(m.calls).toBe(o?.calls)
        const cpu = layout.clock !== 'wall'
        const wall = layout.clock !== 'thread-cpu'
        expect(m.inclusiveCpuUs).toBe(cpu ? o?.inclCpu : null)
        expect(m.exclusiveCpuUs).toBe(cpu ? o?.exclCpu : null)
        expect(m.inclusiveWallUs).toBe(wall ? o?.inclWall : null)
        expect(m.exclusiveWallUs).toBe(wall ? o?.exclWall : null)
      }

      const calls = readArtCallTrace(trace)
      expect(calls.calls).toHaveLength(records.filter((r) => r.action === 'enter').length)
      expect(calls.warnings).toEqual([])
      for (const [i, t] of perThread.entries()) {
        const mine = calls.calls.filter((c) => c.threadId === i + 1)
        const want = [...t.intervals].sort((a, b) => a.cpu0 - b.cpu0 || a.depth - b.depth)
        const toUs = (ns: number) => ns / 1000
        const startOf = (c: (typeof mine)[number]) =>
          layout.clock === 'thread-cpu'
            ? toUs(c.startNs)
            : layout.clock === 'wall'
              ? (toUs(c.startNs) - 5_000_000 - wallStart - i) / 2
              : toUs(c.cpuStartNs ?? -1)
        expect(
          mine.map((c) => [c.method, c.depth, startOf(c), c.unwound, c.clippedStart, c.clippedEnd]),
        ).toEqual(
          want.map((w) => [
            `com.example.C${w.m}.m${w.m}`,
            w.depth,
            w.cpu0,
            w.unwound,
            false,
            false,
          ]),
        )
      }
    }),
    { numRuns: 200 },
  )
})
