/**
 * The summary's WebAssembly kernel (src/formats/art-trace/_summary-kernel.wat): the committed
 * bytes are the source's, and its figures equal a plain per-record reference (the JavaScript
 * summarizer it replaced, record by record) on random record streams that the call-tree property
 * test does not make: 32-bit wraps and clocks stepping back, exits with an empty stack, recursion,
 * calls left open, ids above the direct table (hashed, some above 2^31), more methods and deeper
 * stacks than the first tables hold, thread filters; through every path into the kernel (record by
 * record, chunks copied in, chunks read into `readBuffer`), in every record layout.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  ArtTraceDecoder,
  ArtTraceErrors,
  ArtTraceSummarizer,
  parseArtTrace,
  summarizeArtTrace,
  summarizeArtTraceChunks,
  writeArtTrace,
  type ArtClock,
  type ArtMethodInput,
  type ArtMethodSummary,
  type ArtTrace,
  type ArtTraceRecord,
} from '../../../src/formats/art-trace/index.js'
import { EnergyError } from '../../../src/model/index.js'
import { chunksOf, LAYOUTS } from './_helpers.js'

const ROOT = join(import.meta.dirname, '../../..')

test('the committed kernel is what _summary-kernel.wat assembles to', () => {
  const run = spawnSync(process.execPath, ['bin/build-art-summary-kernel.js', '--check'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
  expect(run.stderr).toBe('')
  expect(run.status).toBe(0)
})

interface Sums {
  calls: number
  inclCpu: number
  exclCpu: number
  inclWall: number
  exclWall: number
}

/**
 * dmtracedump's profile record by record, as the JavaScript summarizer computed it; `backward`
 * counts the clock values clamped to the thread's last.
 */
function reference(
  trace: ArtTrace,
  only?: ReadonlySet<number>,
): Map<number, Sums> & { backward?: number } {
  const WRAP = 2 ** 32
  const HALF_WRAP = 2 ** 31
  interface Frame {
    readonly id: number
    readonly recursive: boolean
    readonly cpu: number
    readonly wall: number
  }
  interface Thread {
    stack: Frame[]
    rawCpu: number
    rawWall: number
    cpuOffset: number
    wallOffset: number
    lastCpu: number
    lastWall: number
  }
  const sums: Map<number, Sums> & { backward?: number } = new Map<number, Sums>()
  let backward = 0
  const of = (id: number): Sums => {
    let s = sums.get(id)
    if (s === undefined) {
      s = { calls: 0, inclCpu: 0, exclCpu: 0, inclWall: 0, exclWall: 0 }
      sums.set(id, s)
    }
    return s
  }
  const threads = new Map<number, Thread>()
  for (const r of trace.records) {
    if (only !== undefined && !only.has(r.threadId)) continue
    const rawCpu = r.threadCpuUs ?? 0
    const rawWall = r.wallUs ?? 0
    let t = threads.get(r.threadId)
    if (t === undefined) {
      t = {
        stack: [],
        rawCpu,
        rawWall,
        cpuOffset: 0,
        wallOffset: 0,
        lastCpu: rawCpu,
        lastWall: rawWall,
      }
      threads.set(r.threadId, t)
    }
    if (rawCpu < t.rawCpu && t.rawCpu - rawCpu > HALF_WRAP) t.cpuOffset += WRAP
    if (rawWall < t.rawWall && t.rawWall - rawWall > HALF_WRAP) t.wallOffset += WRAP
    t.rawCpu = rawCpu
    t.rawWall = rawWall
    const cpu = Math.max(rawCpu + t.cpuOffset, t.lastCpu)
    const wall = Math.max(rawWall + t.wallOffset, t.lastWall)
    if (rawCpu + t.cpuOffset < t.lastCpu) backward++
    if (rawWall + t.wallOffset < t.lastWall) backward++
    const s = of(r.methodId)
    const top = t.stack.at(-1)
    if (r.action === 'enter') {
      if (top !== undefined) {
        of(top.id).exclCpu += cpu - t.lastCpu
        of(top.id).exclWall += wall - t.lastWall
      }
      const recursive = t.stack.some((f) => f.id === r.methodId)
      t.stack.push({ id: r.methodId, recursive, cpu, wall })
    } else {
      if (top !== undefined && top.id !== r.methodId) throw new Error('mismatched exit')
      t.stack.pop()
      if (top?.recursive !== true) {
        s.inclCpu += cpu - (top?.cpu ?? 0)
        s.inclWall += wall - (top?.wall ?? 0)
      }
      s.calls++
      s.exclCpu += cpu - t.lastCpu
      s.exclWall += wall - t.lastWall
    }
    t.lastCpu = cpu
    t.lastWall = wall
  }
  // Calls still open end at their thread's last event, bottom frame first, threads by id.
  for (const [, t] of [...threads].sort((a, b) => a[0] - b[0])) {
    for (const f of t.stack) {
      const s = of(f.id)
      if (!f.recursive) {
        s.inclCpu += t.lastCpu - f.cpu
        s.inclWall += t.lastWall - f.wall
      }
      s.calls++
    }
  }
  sums.backward = backward
  return sums
}

function expectEqual(
  methods: readonly ArtMethodSummary[],
  want: Map<number, Sums>,
  clock: ArtClock,
): void {
  const cpu = clock !== 'wall'
  const wall = clock !== 'thread-cpu'
  const got = new Map(methods.map((m) => [Number(m.id), m]))
  expect([...got.keys()].sort((a, b) => a - b)).toEqual([...want.keys()].sort((a, b) => a - b))
  for (const [id, s] of want.entries()) {
    const m = got.get(id)
    expect(
      [m?.calls, m?.inclusiveCpuUs, m?.exclusiveCpuUs, m?.inclusiveWallUs, m?.exclusiveWallUs],
      `0x${id.toString(16)}`,
    ).toEqual([
      s.calls,
      cpu ? s.inclCpu : null,
      cpu ? s.exclCpu : null,
      wall ? s.inclWall : null,
      wall ? s.exclWall : null,
    ])
  }
}

/** Pushes `bytes` through `readBuffer` in chunks of `size` (as `vitest-energy trace` reads). */
function summarizeInPlace(bytes: Uint8Array, size: number, only?: ReadonlySet<number>) {
  const summarizer = new ArtTraceSummarizer(only)
  const decoder = new ArtTraceDecoder({ onRecord: summarizer.visitor })
  const buffer = summarizer.readBuffer
  for (let at = 0; at < bytes.byteLength; at += size) {
    const chunk = bytes.subarray(at, Math.min(bytes.byteLength, at + size))
    buffer.set(chunk)
    decoder.push(buffer.subarray(0, chunk.byteLength))
    // Whatever the decoder kept, it copied.
    buffer.fill(0xee, 0, chunk.byteLength)
  }
  const summary = summarizer.finish(decoder.end(), decoder.recordClock)
  return Object.assign(summary, { backwardSteps: summarizer.backwardSteps })
}

/** 300 method ids: below the direct table's 2^22, above it, above 2^31. */
const IDS = Array.from({ length: 300 }, (_, i) =>
  i % 3 === 0 ? (i + 1) << 2 : i % 3 === 1 ? 0x00500000 + (i << 2) : 0x80000000 + (i << 6),
)
const METHODS: ArtMethodInput[] = IDS.map((id, i) => ({
  id,
  className: `com/example/C${i % 7}`,
  name: `m${i}`,
  signature: '()V',
}))

interface Step {
  readonly thread: number
  readonly kind: number
  readonly method: number
  readonly dt: number
}

const stream = fc.record({
  layout: fc.constantFrom(...LAYOUTS),
  steps: fc.array(
    fc.record({
      thread: fc.integer({ min: 1, max: 3 }),
      kind: fc.integer({ min: 0, max: 99 }),
      method: fc.nat({ max: IDS.length - 1 }),
      dt: fc.integer({ min: 0, max: 50 }),
    }),
    { minLength: 20, maxLength: 600, size: 'max' },
  ),
  /** Deep recursion first on thread 1 (more frames than a stack starts with), or not. */
  deep: fc.boolean(),
  cpuStart: fc.constantFrom(0, 2 ** 32 - 300),
  wallStart: fc.constantFrom(1000, 2 ** 32 - 1000),
  chunk: fc.integer({ min: 1, max: 400 }),
})

/** Records from random steps: enters, matching exits and unwinds, exits on an empty stack. */
function recordsOf(
  steps: readonly Step[],
  deep: boolean,
  cpuStart: number,
  wallStart: number,
): ArtTraceRecord[] {
  const stacks = new Map<number, number[]>()
  const cpu = new Map<number, number>()
  let wall = wallStart
  const out: ArtTraceRecord[] = []
  const push = (thread: number, id: number, action: ArtTraceRecord['action'], dt: number) => {
    const t = (cpu.get(thread) ?? cpuStart + thread) + dt
    cpu.set(thread, t)
    wall += dt
    // A few clocks step back (clamped, not wraps): a little, or by just under half the range.
    const back = dt === 7 ? 3 : dt === 11 ? 0x7ff00000 : 0
    const wallBack = dt === 9 ? 2000 : 0
    out.push({
      threadId: thread,
      methodId: id,
      action,
      threadCpuUs: (t - back + 2 ** 32) % 2 ** 32,
      wallUs: (wall - wallBack + 2 ** 32) % 2 ** 32,
    })
  }
  if (deep) {
    const stack: number[] = []
    for (let i = 0; i < 150; i++) {
      const id = IDS[i % 5] ?? 4
      stack.push(id)
      push(1, id, 'enter', 1)
    }
    stacks.set(1, stack)
  }
  for (const s of steps) {
    const stack = stacks.get(s.thread) ?? []
    stacks.set(s.thread, stack)
    const id = IDS[s.method] ?? 4
    if (s.kind < 55) {
      stack.push(id)
      push(s.thread, id, 'enter', s.dt)
    } else if (stack.length > 0) {
      push(s.thread, stack.pop() ?? 4, s.kind < 90 ? 'exit' : 'unwind', s.dt)
    } else {
      // An exit with an empty stack: a call open when tracing started.
      push(s.thread, id, 'exit', s.dt)
    }
  }
  return out
}

describe('the kernel equals the per-record reference', () => {
  test('on random record streams, by every path, with and without a thread filter', () => {
    fc.assert(
      fc.property(stream, ({ layout, steps, deep, cpuStart, wallStart, chunk }) => {
        const records = recordsOf(steps, deep, cpuStart, wallStart).map((r) => ({
          threadId: r.threadId,
          methodId: r.methodId,
          action: r.action,
          ...(layout.clock !== 'wall' ? { threadCpuUs: r.threadCpuUs } : {}),
          ...(layout.clock !== 'thread-cpu' ? { wallUs: r.wallUs } : {}),
        }))
        const bytes = writeArtTrace({
          ...layout,
          threads: [1, 2, 3].map((id) => ({ id, name: `T${id}` })),
          methods: METHODS,
          records,
          startTimeUs: 5_000_000,
          elapsedTimeUs: 1000,
        })
        const trace = parseArtTrace(bytes)
        const want = reference(trace)
        const summary = summarizeArtTrace(trace)
        expectEqual(summary.methods, want, layout.clock)
        expect(summarizeArtTraceChunks(chunksOf(bytes, chunk))).toEqual(summary)
        const { backwardSteps, ...inPlace } = summarizeInPlace(bytes, chunk)
        expect(inPlace).toEqual(summary)
        expect(backwardSteps, 'clamped clock values').toBe(want.backward)
        const { backwardSteps: _, ...whole } = summarizeInPlace(bytes, 1 << 20)
        expect(whole).toEqual(summary)

        const only = new Set([2, 3])
        const filtered = summarizeArtTrace(trace, { thread: 2 })
        expectEqual(filtered.methods, reference(trace, new Set([2])), layout.clock)
        expectEqual(
          summarizeInPlace(bytes, chunk, only).methods,
          reference(trace, only),
          layout.clock,
        )
        const { backwardSteps: __, ...filteredInPlace } = summarizeInPlace(bytes, chunk, only)
        expect(summarizeArtTraceChunks(chunksOf(bytes, chunk), only)).toEqual(filteredInPlace)
      }),
      { numRuns: 120 },
    )
  })

  test('a mismatched exit is the same error by every path', () => {
    const records: ArtTraceRecord[] = [
      { threadId: 1, methodId: IDS[0] ?? 4, action: 'enter', threadCpuUs: 1, wallUs: 1 },
      { threadId: 1, methodId: IDS[1] ?? 4, action: 'enter', threadCpuUs: 2, wallUs: 2 },
      { threadId: 1, methodId: IDS[0] ?? 4, action: 'exit', threadCpuUs: 3, wallUs: 3 },
    ]
    const bytes = writeArtTrace({
      version: 3,
      clock: 'dual',
      threads: [{ id: 1, name: 'main' }],
      methods: METHODS,
      records,
      startTimeUs: 0,
      elapsedTimeUs: 3,
    })
    const messages = [
      () => summarizeArtTrace(parseArtTrace(bytes)),
      () => summarizeArtTraceChunks(chunksOf(bytes, 5)),
      () => summarizeInPlace(bytes, 1 << 20),
    ].map((f) => {
      try {
        f()
      } catch (error) {
        expect(error).toBeInstanceOf(EnergyError)
        expect((error as EnergyError).code).toBe(ArtTraceErrors.MISMATCHED_EXIT)
        return (error as EnergyError).message
      }
      return 'no error'
    })
    expect(messages[0]).toMatch(/thread 1: exit from method 0x4 while 0x500004 is on top/)
    expect(new Set(messages).size).toBe(1)
  })
})
