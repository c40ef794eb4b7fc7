/**
 * `simpleperf record -e task-clock` on the simulated app: a thread is sampled each time its own
 * on-CPU time since the recording started crosses another period (1e9 / freq ns), so a thread that
 * ran less than one period is never sampled. The callchain is the call stack at that instant,
 * leaf first, ending in the ART and bionic frames real unwinds end in.
 */
import type { SimpleperfFrame, SimpleperfSample } from '../../formats/simpleperf/index.js'
import { methodOrigin } from '../../model/index.js'
import type { CallRecord, ExecSlice, Simulation } from './simulation.js'

export interface SamplerRequest {
  readonly pid: number
  /** Boottime window, ns. */
  readonly startNs: number
  readonly stopNs: number
  /** Samples per second of on-CPU time per thread (`-f`). */
  readonly frequencyHz: number
  /** Sample clock offset from boottime (monotonic_raw/monotonic − boottime), ns. */
  readonly clockOffsetNs: number
  /** Where the app's compiled code lives (odex path) for the `file:` of Java frames. */
  readonly odexPath: string
}

const LIBART = '/apex/com.android.art/lib64/libart.so'
const LIBC = '/apex/com.android.runtime/lib64/bionic/libc.so'
const BOOT_FRAMEWORK = '/system/framework/arm64/boot-framework.oat'
const LIBHWUI = '/system/lib64/libhwui.so'
const LIBUTILS = '/system/lib64/libutils.so'

function vaddr(text: string): string {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0
  return ((h & 0x3ffffc) + 0x10000).toString(16)
}

function tail(threadName: string): SimpleperfFrame[] {
  const frames: SimpleperfFrame[] = []
  if (threadName === 'RenderThread') {
    // hwui's render thread is native: its loop, then libutils' thread entry.
    frames.push(
      {
        vaddrInFile: '27a0c4',
        file: LIBHWUI,
        symbol: 'android::uirenderer::renderthread::RenderThread::threadLoop()',
      },
      { vaddrInFile: '13c88', file: LIBUTILS, symbol: 'android::Thread::_threadLoop(void*)' },
      { vaddrInFile: 'cb3fc', file: LIBC, symbol: '__start_thread' },
    )
    return frames
  }
  if (threadName === 'main') {
    frames.push(
      { vaddrInFile: '6c2b24', file: BOOT_FRAMEWORK, symbol: 'android.os.Looper.loop' },
      { vaddrInFile: '5b1f30', file: BOOT_FRAMEWORK, symbol: 'android.app.ActivityThread.main' },
    )
  } else {
    frames.push({ vaddrInFile: '2f8c10', file: BOOT_FRAMEWORK, symbol: 'java.lang.Thread.run' })
  }
  frames.push(
    { vaddrInFile: '218968', file: LIBART, symbol: 'art_quick_invoke_stub' },
    { vaddrInFile: 'cb3fc', file: LIBC, symbol: '__start_thread' },
  )
  return frames
}

/** Samples of the app's threads in the window, time-ordered. */
export function sampleTaskClock(sim: Simulation, request: SamplerRequest): SimpleperfSample[] {
  // Periodic work that fell due before the stop is scheduled lazily: bring it in first.
  sim.materialize(request.stopNs)
  const periodNs = Math.max(1, Math.round(1e9 / request.frequencyHz))
  const threads = new Map(sim.threadList().map((t) => [t.tid, t.name]))
  const acc = new Map<number, { cpuNs: number; next: number }>()
  const samples: SimpleperfSample[] = []
  // Only the slices that may reach into the window, not the whole session's.
  const slices: ExecSlice[] = []
  sim.visitSlices(request.startNs, request.stopNs, (s) => {
    if (threads.has(s.tid) && s.endNs > request.startNs && s.startNs < request.stopNs)
      slices.push(s)
  })
  slices.sort((a, b) => a.startNs - b.startNs || a.tid - b.tid)
  for (const slice of slices) {
    const call = sim.calls[slice.callId]
    if (call === undefined || call.cancelled) continue
    const s = Math.max(slice.startNs, request.startNs)
    const e = Math.min(slice.endNs, request.stopNs)
    if (e <= s) continue
    const state = acc.get(slice.tid) ?? { cpuNs: 0, next: periodNs }
    acc.set(slice.tid, state)
    while (state.cpuNs + (e - s) >= state.next) {
      const t = s + (state.next - state.cpuNs)
      const name = threads.get(slice.tid) ?? ''
      samples.push({
        eventType: 'task-clock',
        timeNs: Math.round(t + request.clockOffsetNs),
        eventCount: periodNs,
        threadId: slice.tid,
        threadName: name.slice(0, 15),
        frames: [...stackOf(sim, call, request.odexPath), ...tail(name)],
      })
      state.next += periodNs
    }
    state.cpuNs += e - s
  }
  return samples.sort((a, b) => a.timeNs - b.timeNs || a.threadId - b.threadId)
}

function stackOf(sim: Simulation, leaf: CallRecord, odex: string): SimpleperfFrame[] {
  const frames: SimpleperfFrame[] = []
  let call: CallRecord | undefined = leaf
  while (call !== undefined) {
    const file = methodOrigin(call.method) === 'native' ? LIBHWUI : odex
    frames.push({ vaddrInFile: vaddr(call.method), file, symbol: call.method })
    call = call.parentId >= 0 ? sim.calls[call.parentId] : undefined
  }
  return frames
}
