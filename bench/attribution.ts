/**
 * Attribution throughput: 1 M stack samples + 100 k power samples attributed (sampling method,
 * EDATA Eqs. 3.5–3.8 with Wilson/t intervals) end to end through `attributeTest`, plus the interval
 * method on 100 k calls. Target: ≤ 1 s for the sampling case. Prints the median of several runs.
 *
 *   npx tsx bench/attribution.ts [--runs 5] [--json] [--stacks random|walk]
 *   npx tsx bench/attribution.ts --estimators   # noise-free bias check of the three sampling estimators
 *   npx tsx bench/attribution.ts --phone-only   # only the phone-like case (for profiling it)
 *
 * Also times both estimators with a CPU schedule (sched_switch): 4 threads on 4 CPUs, ≈ 320 k slices;
 * and as on a phone: ODPM rails (three CPU clusters and the System rail, 100 k readings in all)
 * divided per rail (`cpuMethodPower`: fitted floors, per-cluster shares), a schedule on 8 CPUs
 * where other processes run too (kernel threads, services: ≈ 40% of the slices) and each
 * cluster's frequency changes every 5–40 ms (`cpu_frequency`).
 */
import {
  attributeSamples,
  attributeSamplesByRegression,
  attributeTest,
  cpuMethodPower,
  modelledCpuRails,
  modelledMethodPower,
  railCurve,
  withModelFrequencies,
  type CpuPowerModel,
} from '../src/attribution/index.js'
import { coreCurrentsFor } from '../src/session/core-currents.js'
import { defaultPowerProfile } from '../src/virtual-device/sim/power-model.js'
import type {
  CallInterval,
  CpuFrequencyChange,
  CpuSchedule,
  CpuSlice,
  PowerSeries,
  RailSeries,
  StackSample,
} from '../src/model/samples.js'
import { mulberry32 } from '../src/stats/index.js'

const args = process.argv.slice(2)
const runsArg = args.indexOf('--runs')
const runs = runsArg >= 0 ? Number(args[runsArg + 1] ?? 5) : 5
const json = args.includes('--json')
const phoneOnly = args.includes('--phone-only')
const stacksArg = args.indexOf('--stacks')
/** `random` (default, worst case: no two stacks share frames) or `walk` (stacks share bottoms). */
const stacksMode = stacksArg >= 0 && args[stacksArg + 1] === 'walk' ? 'walk' : 'random'

const STACK_SAMPLES = 1_000_000
const POWER_SAMPLES = 100_000
const CALLS = 100_000
const WINDOW_NS = 100e9 // 100 s: 1 kHz power, 10 kHz stack samples (several threads)

function workload() {
  const rand = mulberry32(42)
  const power: PowerSeries = {
    kind: 'instant',
    source: 'bench',
    clock: 'boottime',
    samples: Array.from({ length: POWER_SAMPLES }, (_, i) => ({
      tNs: (i * WINDOW_NS) / (POWER_SAMPLES - 1),
      powerW: 0.5 + 3 * rand(),
    })),
  }
  const methods = Array.from({ length: 2000 }, (_, i) => `com.example.app.C${i % 97}.m${i}`)
  const samples: StackSample[] = []
  const previous = new Map<number, readonly string[]>()
  for (let i = 0; i < STACK_SAMPLES; i++) {
    const depth = 5 + Math.floor(rand() * 25)
    const frames: string[] = []
    if (stacksMode === 'walk') {
      // Like a real profile: keep a random part of the bottom of this thread's previous stack.
      const prev = previous.get(1 + (i % 4)) ?? []
      const keep = Math.min(prev.length, Math.floor(rand() * depth))
      const bottom = prev.slice(prev.length - keep)
      for (let d = keep; d < depth; d++)
        frames.push(methods[Math.floor(rand() * methods.length)] as string)
      frames.push(...bottom)
      previous.set(1 + (i % 4), frames)
    } else {
      for (let d = 0; d < depth; d++)
        frames.push(methods[Math.floor(rand() * methods.length)] as string)
    }
    samples.push({
      tNs: (i * WINDOW_NS) / STACK_SAMPLES,
      threadId: 1 + (i % 4),
      frames,
      periodNs: 100_000,
    })
  }
  const calls: CallInterval[] = []
  const perThread = CALLS / 4
  for (let th = 1; th <= 4; th++) {
    const slot = WINDOW_NS / perThread
    for (let i = 0; i < perThread; i++) {
      const start = i * slot + rand() * slot * 0.1
      calls.push({
        threadId: th,
        method: methods[Math.floor(rand() * methods.length)] as string,
        startNs: start,
        endNs: start + slot * (0.2 + 0.6 * rand()),
        depth: 0,
        clippedStart: false,
        clippedEnd: false,
        unwound: false,
      })
    }
  }
  // What ran on each CPU: thread t on CPU t − 1, in 1 ms slices, 80% busy (≈ 320 k slices).
  const slices: CpuSlice[] = []
  const sliceNs = 1_000_000
  for (let cpu = 0; cpu < 4; cpu++) {
    for (let t = 0; t + sliceNs <= WINDOW_NS; t += sliceNs) {
      if (rand() < 0.8) slices.push({ cpu, tid: cpu + 1, startNs: t, endNs: t + sliceNs * 0.9 })
    }
  }
  const schedule: CpuSchedule = {
    source: 'bench',
    clock: 'boottime',
    slices,
    cpus: [0, 1, 2, 3],
    lostEvents: false,
  }
  return { power, samples, calls, schedule, ...phoneLike(rand) }
}

/** Pixel 6's layout: CPUs 0–3 little, 4–5 mid, 6–7 big. */
const CLUSTERS = [
  [0, 1, 2, 3],
  [4, 5],
  [6, 7],
] as const

/**
 * The phone-like case: the app's threads 1–4 on CPUs 0, 2, 4 and 6 in 1 ms slices, other
 * processes' slices (50 µs–2 ms) between them on all 8 CPUs, each cluster's frequency changing
 * every 5–40 ms, and four ODPM rails of 25 k cumulative readings each (4 ms apart).
 */
function phoneLike(rand: () => number) {
  const slices: CpuSlice[] = []
  for (let cpu = 0; cpu < 8; cpu++) {
    const app = cpu % 2 === 0 ? cpu / 2 + 1 : undefined
    let t = 0
    while (t < WINDOW_NS) {
      const other = app === undefined || rand() < 0.3
      const len = other ? 50_000 + rand() * 1_950_000 : 1_000_000
      if (rand() < 0.8) {
        const tid = other ? 1000 + Math.floor(rand() * 40) : (app as number)
        slices.push({ cpu, tid, startNs: t, endNs: Math.min(WINDOW_NS, t + len) })
      }
      t += len + rand() * 200_000
    }
  }
  const frequencies: CpuFrequencyChange[] = []
  for (const cpus of CLUSTERS) {
    for (let t = 0; t < WINDOW_NS; t += 5e6 + rand() * 35e6) {
      const khz = 300_000 + Math.floor(rand() * 8) * 300_000
      for (const cpu of cpus) frequencies.push({ cpu, tNs: t, khz })
    }
  }
  frequencies.sort((a, b) => a.tNs - b.tNs || a.cpu - b.cpu)
  const readingsPerRail = POWER_SAMPLES / 4
  const rail = (name: string, subsystem: string): RailSeries => {
    const readings = [{ tNs: 0, energyJ: 0 }]
    for (let i = 1; i < readingsPerRail; i++) {
      const prev = readings[i - 1] as { energyJ: number }
      readings.push({
        tNs: (i * WINDOW_NS) / (readingsPerRail - 1),
        energyJ: prev.energyJ + 0.004 * (0.05 + 0.5 * rand()),
      })
    }
    return {
      kind: 'cumulative',
      rail: name,
      subsystem,
      source: 'odpm',
      clock: 'boottime',
      readings,
    }
  }
  const rails = [
    rail('S4M_VDD_CPUCL0', 'CPU(LITTLE)'),
    rail('S3M_VDD_CPUCL1', 'CPU(MID)'),
    rail('S2M_VDD_CPUCL2', 'CPU(BIG)'),
    rail('S5M_VDD_INT', 'System'),
  ]
  const phoneSchedule: CpuSchedule = {
    source: 'bench',
    clock: 'boottime',
    slices: slices.sort((a, b) => a.cpu - b.cpu || a.startNs - b.startNs),
    cpus: [0, 1, 2, 3, 4, 5, 6, 7],
    lostEvents: false,
    frequencies,
  }
  return { rails, phoneSchedule }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}

/**
 * Load-independent reference: the irreducible part of sampling attribution, one Map lookup per
 * frame (method name → id) over the same 1 M stacks. The shared machine's load moves both figures
 * together, so their ratio is the comparable number.
 */
function referenceMs(samples: readonly StackSample[]): number {
  const t0 = performance.now()
  const ids = new Map<string, number>()
  let sum = 0
  for (const s of samples) {
    for (const f of s.frames) {
      let id = ids.get(f)
      if (id === undefined) {
        id = ids.size
        ids.set(f, id)
      }
      sum += id
    }
  }
  const ms = performance.now() - t0
  if (sum < 0) console.log(sum)
  return ms
}

/**
 * EDATA's random workload without noise: six methods (1–3.5 W) picked at random every `sliceMs`,
 * 1 kHz stack samples, 2 minutes, a cumulative counter read at `hz`. Prints the per-method MMRE of
 * EDATA's Eq. 3.7 estimator and of regression power over sensor intervals.
 */
function estimators(): void {
  for (const [sliceMs, hz] of [
    [10, 10],
    [10, 2],
    [100, 2],
    [100, 10],
  ] as const) {
    const rand = mulberry32(3)
    const powerW = [1, 1.5, 2, 2.5, 3, 3.5]
    const T = 120e9
    const sliceNs = sliceMs * 1e6
    const slices: number[] = []
    for (let t = 0; t < T; t += sliceNs) slices.push(Math.floor(rand() * powerW.length))
    const at = (t: number): number =>
      slices[Math.min(slices.length - 1, Math.floor(t / sliceNs))] as number
    const truth = powerW.map(() => 0)
    slices.forEach(
      (m) => (truth[m] = (truth[m] as number) + ((powerW[m] as number) * sliceMs) / 1000),
    )
    const readings: Array<{ tNs: number; energyJ: number }> = []
    let e = 0
    const step = 1e9 / hz
    for (let t = 0; t <= T; t += step) {
      readings.push({ tNs: t, energyJ: e })
      for (let u = t; u < t + step; u += sliceNs) e += ((powerW[at(u)] as number) * sliceMs) / 1000
    }
    const curve = railCurve({
      kind: 'cumulative',
      rail: 'VSYS',
      source: 'odpm',
      clock: 'boottime',
      readings,
    })
    const samples: StackSample[] = []
    for (let t = 0.5e6; t < T; t += 1e6)
      samples.push({ tNs: t, threadId: 1, frames: [`m${at(t)}`], periodNs: 1e6 })
    const set = { clock: 'boottime' as const, samples, lostCount: 0 }
    const window = { clock: 'boottime' as const, startNs: 0, endNs: T }
    const mmre = (ms: ReadonlyArray<{ method: string; localEnergyJ: number }>): number =>
      truth.reduce(
        (s, t, m) =>
          s + Math.abs((ms.find((x) => x.method === `m${m}`)?.localEnergyJ ?? 0) - t) / t,
        0,
      ) / truth.length
    const edata = mmre(attributeSamples(set, curve, { window, power: 'reading' }).methods)
    const split = mmre(attributeSamples(set, curve, { window }).methods)
    const regression = mmre(attributeSamplesByRegression(set, curve, { window }).methods)
    console.log(
      `${sliceMs} ms slices, counter ${hz} Hz: MMRE EDATA Eq. 3.7 ${edata.toFixed(3)}, split (default) ${split.toFixed(3)}, regression ${regression.toFixed(3)}`,
    )
  }
}

if (args.includes('--estimators')) {
  estimators()
  process.exit(0)
}

const w = workload()
const window = { clock: 'boottime' as const, startNs: 0, endNs: WINDOW_NS }
const samplingMs: number[] = []
/** CPU time of this process (user + system) per sampling run: less sensitive to other processes. */
const samplingCpuMs: number[] = []
const intervalMs: number[] = []
const scheduleSamplingMs: number[] = []
const scheduleIntervalMs: number[] = []
const phoneSamplingMs: number[] = []
const phoneIntervalMs: number[] = []
/** No rails: the same schedule priced by the CPU model; one 100 s window, and ten 10 s ones. */
const noRailsWholeMs: number[] = []
const noRailsTenMs: number[] = []
const currents = coreCurrentsFor(defaultPowerProfile(), CLUSTERS).currents ?? []
const CPU_MODEL: CpuPowerModel = {
  clusters: currents.map((c, i) => ({ cpus: CLUSTERS[i] ?? [], currents: c })),
  activeMa: 12.37,
}
/** Each tenth of the samples, as a recorder running through ten windows would hand them over. */
const tenths = Array.from({ length: 10 }, (_, i) => ({
  kind: 'samples' as const,
  samples: {
    clock: 'boottime' as const,
    lostCount: 0,
    samples: w.samples.filter(
      (x) => x.tNs >= (i * WINDOW_NS) / 10 && x.tNs < ((i + 1) * WINDOW_NS) / 10,
    ),
  },
}))
/** A window on a phone without rails, as src/session/window.ts attributes it. */
function noRailsWindow(
  win: { clock: 'boottime'; startNs: number; endNs: number },
  execution: typeof samplesInput | (typeof tenths)[number] = samplesInput,
): unknown {
  const schedule = withModelFrequencies(CPU_MODEL, w.phoneSchedule, win)
  const rails = modelledCpuRails(
    CPU_MODEL,
    schedule,
    win,
    { clusters: [1.1, 0.9, 1.05], active: 1 },
    3.85,
  )
  return attributeTest({
    label: 'bench',
    window: win,
    power: w.power,
    schedule,
    methodPower: modelledMethodPower(rails, CPU_MODEL),
    execution,
  })
}
const refMs: number[] = []
let methodsSeen = 0
const samplesInput = {
  kind: 'samples',
  samples: { clock: 'boottime', samples: w.samples, lostCount: 0 },
} as const
const traceInput = {
  kind: 'trace',
  trace: { clock: 'boottime', threads: [], calls: w.calls, overflowed: false, mode: 'sampling' },
} as const
/** Wall time of one call, ms. */
function timed(fn: () => unknown): number {
  const t0 = performance.now()
  fn()
  return performance.now() - t0
}
for (let r = 0; r < runs; r++) {
  if (!phoneOnly) otherCases()
  // As on a phone: rails divided one by one (their floors fitted), other processes in the schedule.
  // A new schedule object per call, as each window has: what attribution keeps per schedule
  // (slices per part, their weights) is paid in every timed call.
  const onPhone = () => {
    const schedule = { ...w.phoneSchedule }
    return {
      label: 'bench',
      window,
      power: w.rails,
      schedule,
      methodPower: cpuMethodPower(w.rails, window, undefined, CLUSTERS, schedule),
    }
  }
  phoneSamplingMs.push(timed(() => attributeTest({ ...onPhone(), execution: samplesInput })))
  phoneIntervalMs.push(
    timed(() => attributeTest({ ...onPhone(), execution: { ...traceInput, split: 'activity' } })),
  )
  noRailsWholeMs.push(timed(() => noRailsWindow(window)))
  noRailsTenMs.push(
    timed(() => {
      for (let i = 0; i < 10; i++) {
        noRailsWindow(
          { clock: 'boottime', startNs: (i * WINDOW_NS) / 10, endNs: ((i + 1) * WINDOW_NS) / 10 },
          tenths[i],
        )
      }
    }),
  )
}
/** One run of the cases without rails. */
function otherCases(): void {
  refMs.push(referenceMs(w.samples))
  const cpu0 = process.cpuUsage()
  samplingMs.push(
    timed(() => {
      const a = attributeTest({ label: 'bench', window, power: w.power, execution: samplesInput })
      methodsSeen = a.result.methods.length
    }),
  )
  const cpu = process.cpuUsage(cpu0)
  samplingCpuMs.push((cpu.user + cpu.system) / 1000)
  intervalMs.push(
    timed(() => attributeTest({ label: 'bench', window, power: w.power, execution: traceInput })),
  )
  // The same with the CPU schedule (the interval method needs `split: 'activity'` to use it).
  // A new schedule object per call: nothing kept per schedule carries over between timed calls.
  const withSchedule = () => ({
    label: 'bench',
    window,
    power: w.power,
    schedule: { ...w.schedule },
  })
  scheduleSamplingMs.push(
    timed(() => attributeTest({ ...withSchedule(), execution: samplesInput })),
  )
  scheduleIntervalMs.push(
    timed(() =>
      attributeTest({ ...withSchedule(), execution: { ...traceInput, split: 'activity' } }),
    ),
  )
}
const result = {
  stackSamples: STACK_SAMPLES,
  stacks: stacksMode,
  powerSamples: POWER_SAMPLES,
  calls: CALLS,
  methods: methodsSeen,
  runs,
  samplingMedianMs: median(samplingMs),
  samplingMinMs: Math.min(...samplingMs),
  samplingCpuMedianMs: median(samplingCpuMs),
  samplingTargetMs: 1000,
  samplingRatioToTarget: median(samplingMs) / 1000,
  referenceMedianMs: median(refMs),
  samplingRatioToReference: median(samplingMs) / median(refMs),
  intervalMedianMs: median(intervalMs),
  scheduleSlices: w.schedule.slices.length,
  scheduleSamplingMedianMs: median(scheduleSamplingMs),
  scheduleIntervalMedianMs: median(scheduleIntervalMs),
  phoneSlices: w.phoneSchedule.slices.length,
  phoneOtherSlices: w.phoneSchedule.slices.filter((x) => x.tid >= 1000).length,
  phoneFrequencyChanges: w.phoneSchedule.frequencies?.length ?? 0,
  phoneSamplingMedianMs: median(phoneSamplingMs),
  phoneIntervalMedianMs: median(phoneIntervalMs),
  noRailsWholeMedianMs: median(noRailsWholeMs),
  noRailsTenWindowsMedianMs: median(noRailsTenMs),
  node: process.version,
}
if (json) console.log(JSON.stringify(result, null, 2))
else if (phoneOnly) console.log(phoneLine())
else {
  console.log(
    `sampling: ${STACK_SAMPLES.toLocaleString('en')} ${stacksMode} stack samples + ${POWER_SAMPLES.toLocaleString('en')} power samples, ${methodsSeen} methods`,
  )
  console.log(
    `  median ${result.samplingMedianMs.toFixed(0)} ms (min ${result.samplingMinMs.toFixed(0)} ms) over ${runs} runs (CPU time median ${result.samplingCpuMedianMs.toFixed(0)} ms, includes GC threads); target ≤ 1000 ms → ratio ${result.samplingRatioToTarget.toFixed(2)}`,
  )
  console.log(
    `  reference (one Map lookup per frame, ${(w.samples.reduce((n, s) => n + s.frames.length, 0) / 1e6).toFixed(1)} M frames): median ${result.referenceMedianMs.toFixed(0)} ms → attribution/reference ${result.samplingRatioToReference.toFixed(2)}`,
  )
  console.log(
    `interval: ${CALLS.toLocaleString('en')} calls on 4 threads + ${POWER_SAMPLES.toLocaleString('en')} power samples: median ${result.intervalMedianMs.toFixed(0)} ms`,
  )
  console.log(
    `with a CPU schedule (${result.scheduleSlices.toLocaleString('en')} slices): sampling median ${result.scheduleSamplingMedianMs.toFixed(0)} ms, interval median ${result.scheduleIntervalMedianMs.toFixed(0)} ms`,
  )
  console.log(phoneLine())
}
function phoneLine(): string {
  return `${railsLine()}\n${noRailsLine()}`
}
function noRailsLine(): string {
  return `no rails (the same schedule priced by the CPU model, 1 M samples): one 100 s window median ${result.noRailsWholeMedianMs.toFixed(0)} ms; the trace cut into ten 10 s windows (each with its own samples), all ten median ${result.noRailsTenWindowsMedianMs.toFixed(0)} ms (ratio ${(result.noRailsTenWindowsMedianMs / result.noRailsWholeMedianMs).toFixed(2)})`
}
function railsLine(): string {
  return `phone-like (4 ODPM rails, ${result.phoneSlices.toLocaleString('en')} slices on 8 CPUs of which ${result.phoneOtherSlices.toLocaleString('en')} other processes', ${result.phoneFrequencyChanges.toLocaleString('en')} cpu_frequency changes): sampling median ${result.phoneSamplingMedianMs.toFixed(0)} ms (target ≤ 1000 ms), interval median ${result.phoneIntervalMedianMs.toFixed(0)} ms`
}
