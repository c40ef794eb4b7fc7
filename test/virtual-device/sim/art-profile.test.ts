import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { parseArtTrace } from '../../../src/formats/art-trace/index.js'
import { centerOf, harness } from '../commands/_harness.js'

const WIDGETS = ['feed-list', 'refresh', 'map', 'feed', 'settings', 'export', 'export-gpx']

describe('ART traces agree with the ground truth', () => {
  test('property: well nested per thread, and per-method exclusive thread-CPU matches self CPU', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.constantFrom(...WIDGETS), { minLength: 1, maxLength: 6 }),
        async (seed, taps) => {
          const h = harness({ seed })
          await h.sh('am start -W -n com.example.trails/.MainActivity')
          await h.sh('sleep 1')
          const from = h.clock.nowNs('boottime')
          await h.sh('am profile start com.example.trails /data/local/tmp/p.trace')
          for (const desc of taps) {
            const widget = h.phone.sim.currentScreen()?.widgets.find((w) => w.contentDesc === desc)
            if (widget !== undefined) await h.sh(`input tap ${centerOf(h.phone, desc)}`)
            await h.sh('sleep 1')
          }
          await h.sh('am profile stop com.example.trails')
          const to = h.clock.nowNs('boottime')
          const trace = parseArtTrace(h.device.fs.readFile('/data/local/tmp/p.trace'))
          const names = new Map(trace.methods.map((m) => [m.id, `${m.className}.${m.name}`]))
          const stacks = new Map<number, { method: string; last: number }[]>()
          const exclUs = new Map<string, number>()
          const calls = new Map<string, number>()
          for (const r of trace.records) {
            const t = r.threadCpuUs ?? 0
            const stack = stacks.get(r.threadId) ?? []
            stacks.set(r.threadId, stack)
            const top = stack.at(-1)
            if (top !== undefined)
              exclUs.set(top.method, (exclUs.get(top.method) ?? 0) + t - top.last)
            const name = names.get(r.methodId) ?? '?'
            if (r.action === 'enter') {
              stack.push({ method: name, last: t })
              calls.set(name, (calls.get(name) ?? 0) + 1)
            } else {
              expect(top?.method, 'exit matches the innermost enter').toBe(name)
              stack.pop()
            }
            const parent = stack.at(-1)
            if (parent !== undefined) parent.last = t
          }
          for (const stack of stacks.values()) expect(stack).toEqual([])
          const gt = h.phone.sim.groundTruth(from, to)
          for (const m of gt.methods) {
            expect(calls.get(m.method) ?? 0, m.method).toBe(m.calls)
            const us = exclUs.get(m.method) ?? 0
            // Event times are floored to µs: at most 2 µs of error per call.
            expect(Math.abs(us * 1000 - m.selfCpuNs), m.method).toBeLessThanOrEqual(2000 * m.calls)
          }
        },
      ),
      { numRuns: 25 },
    )
  })
})
