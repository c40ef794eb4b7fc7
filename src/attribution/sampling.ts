/**
 * Sampling attribution (EDATA Eqs. 3.1–3.8, after ALEA): from stack samples, each method's local
 * (leaf) and non-local (on the stack, not leaf) sample counts give p̂ = n_m / n (Eq. 3.5) and
 * t̂ = p̂ · t_exec (Eq. 3.6, t_exec = Σ sample periods). Energy, by `power`:
 * - `split` (default): each sample is worth its period at the energy per second of its sensor
 *   interval (groups of intervals split by sample count, or — with a CPU schedule — by running
 *   time on the CPUs its thread ran on); ê = Σ of its samples' energies, interval of a sum of n draws.
 * - `reading`: EDATA exactly — pôw, the mean power in effect at the method's samples (Eq. 3.7),
 *   ê = pôw · t̂ (Eq. 3.8); Wilson for p̂, t over distinct sensor readings for the power (§3.5.3.3),
 *   energy bounds from the products of the bounds.
 * A method that appears several times in one stack is counted once per sample. Inclusive = local +
 * non-local.
 */
import type { EnergyWindow, Interval, MethodEnergy } from '../model/energy.js'
import { methodEnergy } from '../model/build.js'
import type { CpuSchedule, CpuSlice, StackSample, StackSampleSet } from '../model/samples.js'
import { NS_PER_S } from '../model/units.js'
import { sensorIntervalBounds, type EnergyCurve } from './curve.js'
import { Cursor, netEnergyJ, partRunning, type PowerPart } from './_parts.js'
import { AttributionErrors, attributionError } from './errors.js'
import { tailPowerW, type TailCharge } from './tails.js'
import { proportionInterval, meanInterval } from './_intervals.js'

export interface SamplingOptions {
  readonly window: EnergyWindow
  /** Subtracted from the power in effect at each sample, W. @default 0 */
  readonly baselinePowerW?: number
  /** Modelled tail power, subtracted from the power at each sample. @default [] */
  readonly tails?: readonly TailCharge[]
  /**
   * CPU time one sample stands for when a sample has no `periodNs`, ns. Without it, samples
   * lacking a period stand for `window duration / samples in the window`.
   */
  readonly samplePeriodNs?: number
  /** Confidence level of the intervals. @default 0.95 */
  readonly level?: number
  /**
   * Power charged to a sample when several threads were sampled at the same time.
   * - `equal` (default): the power in effect is shared 1/N among the N distinct threads that have a
   *   sample within ± half a sample period (vLens Fig. 4's split, applied to samples). Identical
   *   to `device` for single-threaded work.
   * - `device`: each sample gets the whole device's power, as EDATA does (§3.5.1.2 assumes one
   *   thread at a time); multi-threaded work is then over-counted.
   */
  readonly threadShare?: 'equal' | 'device'
  /** How each sample's power is found. @default 'split' (see `SamplingPower`) */
  readonly power?: SamplingPower
  /** With `power: 'split'`: sensor intervals are merged until a group holds this many samples. @default 10 */
  readonly minSamplesPerGroup?: number
  /**
   * With `power: 'split'` and a `schedule`: the power divided part by part (e.g. each SoC rail
   * above its floor, cluster rails with their CPUs) instead of `curve` minus the baseline.
   */
  readonly parts?: readonly PowerPart[]
  /**
   * What ran on each CPU (sched_switch), same clock and thread ids as the samples. With
   * `power: 'split'`, a sample is worth its period × each part's energy per second of running
   * time on the part's CPUs in that sensor interval (other processes' running time included, so
   * their share stays unattributed), on the CPU its thread was running on. No grouping is needed:
   * the running time comes from the scheduler, not from sample counts.
   */
  readonly schedule?: CpuSchedule
  /** Told each sample in the window with the energy it was worth, J (e.g. to build a call tree). */
  readonly onSample?: (sample: StackSample, energyJ: number) => void
}

/**
 * - `reading` (EDATA Eq. 3.7): the power in effect at the sample's time. With a sensor slower than
 *   the code (100 ms ODPM, 10 ms methods) that is the interval's average, idle time included, so
 *   busy methods are charged too little.
 * - `split`: consecutive sensor intervals are grouped until each group holds enough samples, and
 *   each group's net energy is divided among its samples (by thread share). Energy is conserved
 *   (Σ local = net energy of the groups), idle time inside an interval is not charged to anyone
 *   else, and methods whose power differs are still told apart at the group's resolution.
 *   `powerW` is then the group's energy per second of sampled CPU time.
 */
export type SamplingPower = 'reading' | 'split'

/** One of EDATA's per-method estimates (Table 3.2): local, non-local or inclusive. */
export interface SamplingEstimate {
  /** n_m: samples where the method was leaf (local), on the stack but not leaf (non-local), or either. */
  readonly samples: number
  /** p̂ = n_m / n (Eq. 3.5). */
  readonly probability: number
  /** Wilson interval of p̂; absent when n_m = 0 (EDATA prints [-1, -1]). */
  readonly probabilityInterval?: Interval
  /** t̂ = p̂ · t_exec (Eq. 3.6), s. */
  readonly timeS: number
  readonly timeIntervalS?: Interval
  /** pôw: mean net power over the method's samples (Eq. 3.7; with `split`, each sample's share), W. */
  readonly powerW: number
  /**
   * t-based interval over distinct sensor readings (`reading` only: with `split` a sample's power
   * is its share of an interval, not a reading); absent with fewer than 2 distinct readings.
   */
  readonly powerIntervalW?: Interval
  /** Distinct sensor readings among the method's samples (`reading` only; 0 with `split`). */
  readonly distinctReadings: number
  /** ê = pôw · t̂ (Eq. 3.8); with `split`, the sum of the samples' own energies, J. */
  readonly energyJ: number
  /**
   * `reading`: product bounds of the probability and power intervals (absent when either is).
   * `split`: the t interval of a sum of n sampled energies (absent with no sample or n < 2).
   */
  readonly energyIntervalJ?: Interval
}

export interface SamplingDetail {
  readonly method: string
  readonly local: SamplingEstimate
  readonly nonLocal: SamplingEstimate
  readonly inclusive: SamplingEstimate
}

export interface SamplingAttribution {
  /** Per method, `attribution: 'sampling'`, sorted by inclusive energy. */
  readonly methods: readonly MethodEnergy[]
  readonly details: readonly SamplingDetail[]
  /** n: samples inside the window. */
  readonly sampleCount: number
  /** t_exec = Σ periods of the samples in the window, s. */
  readonly execTimeS: number
  /** Σ local ê, J (= t_exec × mean net power over all samples). */
  readonly attributedEnergyJ: number
  /** Samples with an empty call chain (skipped). */
  readonly emptySamples: number
}

/** Sums per method × kind in `Accumulators.sums`. */
const SPLIT_SUMS = 4

const enum Kind {
  Local = 0,
  NonLocal = 1,
  Inclusive = 2,
}

export function attributeSamples(
  set: StackSampleSet,
  curve: EnergyCurve,
  options: SamplingOptions,
): SamplingAttribution {
  const { window } = options
  if (
    set.clock !== curve.clock ||
    set.clock !== window.clock ||
    (options.schedule !== undefined && options.schedule.clock !== set.clock)
  ) {
    throw attributionError(
      AttributionErrors.CLOCK_MISMATCH,
      `stack samples are on ${set.clock}, power on ${curve.clock}, window on ${window.clock}${options.schedule === undefined ? '' : `, CPU schedule on ${options.schedule.clock}`}`,
      'Map the samples and the power data onto the window clock before attribution.',
      { format: 'stack samples' },
    )
  }
  const level = options.level ?? 0.95
  if (!(level > 0 && level < 1)) {
    throw attributionError(
      AttributionErrors.INVALID_OPTION,
      `confidence level must be in (0, 1), got ${level}`,
      'Use e.g. 0.95.',
    )
  }
  const baselineW = options.baselinePowerW ?? 0
  const tails = options.tails ?? []
  const samples = set.samples

  // Samples inside the window, in time order (distinct readings are counted along time). When the
  // input is already sorted (the usual case) the window is one index range and nothing is copied.
  let sorted = true
  let lastT = -Infinity
  let first = -1
  let last = -2
  let contiguous = true
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]
    if (s === undefined) continue
    const t = s.tNs
    if (!Number.isFinite(t)) {
      throw attributionError(
        AttributionErrors.NOT_FINITE,
        `stack sample ${i} has a non-finite time (${t})`,
        'Drop the sample in the collector; attribution never guesses times.',
        { format: 'stack samples', index: i },
      )
    }
    if (t < lastT) sorted = false
    lastT = t
    if (t < window.startNs || t > window.endNs) continue
    if (first < 0) first = i
    else if (i !== last + 1) contiguous = false
    last = i
  }
  // Either a contiguous index range [from, from + n) or an explicit list of indices.
  let picked: number[] | undefined
  let from = Math.max(first, 0)
  let n = first < 0 ? 0 : last - first + 1
  if (!(sorted && contiguous)) {
    picked = []
    for (let i = 0; i < samples.length; i++) {
      const t = samples[i]?.tNs
      if (t !== undefined && t >= window.startNs && t <= window.endNs) picked.push(i)
    }
    if (!sorted) picked.sort((a, b) => (samples[a]?.tNs ?? 0) - (samples[b]?.tNs ?? 0) || a - b)
    from = 0
    n = picked.length
  }
  const defaultPeriodNs =
    options.samplePeriodNs ?? (n > 0 ? (window.endNs - window.startNs) / n : 0)
  if (!(defaultPeriodNs >= 0) || !Number.isFinite(defaultPeriodNs)) {
    throw attributionError(
      AttributionErrors.INVALID_OPTION,
      `sample period must be a finite number ≥ 0 ns, got ${defaultPeriodNs}`,
      'Pass the sampling period (e.g. 1e6 ns for 1 kHz task-clock sampling).',
    )
  }

  const acc = new Accumulators((options.power ?? 'split') === 'split')
  const names = acc.names
  const at = (k: number): StackSample | undefined =>
    samples[picked === undefined ? from + k : (picked[k] as number)]

  let execNs = 0
  let emptySamples = 0
  let used = 0
  // With a CPU schedule (and `split`), concurrency comes from the schedule, not from 1/N.
  const share =
    options.threadShare === 'device' ||
    ((options.power ?? 'split') === 'split' && options.schedule !== undefined)
      ? undefined
      : threadShares(samples, picked, from, n, defaultPeriodNs)
  const minSamples = options.minSamplesPerGroup ?? 10
  if (!(Number.isInteger(minSamples) && minSamples >= 1)) {
    throw attributionError(
      AttributionErrors.INVALID_OPTION,
      `minSamplesPerGroup must be an integer ≥ 1, got ${minSamples}`,
      'Use e.g. 10: fewer makes each group noisier, more blurs methods whose power differs.',
    )
  }
  const split =
    (options.power ?? 'split') !== 'split'
      ? undefined
      : options.schedule !== undefined
        ? scheduleSplit(
            at,
            n,
            options.parts ?? [{ curve, baselinePowerW: baselineW, tails }],
            window,
            options.schedule,
            defaultPeriodNs,
          )
        : splitGroups(at, n, curve, window, baselineW, tails, share, defaultPeriodNs, minSamples)
  for (let k = 0; k < n; k++) {
    const s = samples[picked === undefined ? from + k : (picked[k] as number)]
    if (s === undefined) continue
    const frames = s.frames
    const leaf = frames[0]
    if (leaf === undefined) {
      emptySamples++
      continue
    }
    used++
    execNs += s.periodNs ?? defaultPeriodNs
    const powerW =
      split !== undefined
        ? split(k, s)
        : (curve.powerAtW(s.tNs) - baselineW - (tails.length > 0 ? tailPowerW(tails, s.tNs) : 0)) *
          (share === undefined ? 1 : (share[k] as number))
    // What this sample is worth, J: its power over its own period (`split` sums these).
    const sampleJ = (powerW * (s.periodNs ?? defaultPeriodNs)) / NS_PER_S
    options.onSample?.(s, sampleJ)
    const ids = acc.frameIds(s.threadId, frames)
    if (acc.energies) {
      // `split`'s pass over every frame of every sample, with the accumulators' arrays read once
      // per sample (they grow only while `frameIds` meets new names).
      const { stamp, sums } = acc
      const squareJ = sampleJ * sampleJ
      for (let f = 0; f < frames.length; f++) {
        const id = ids[f] as number
        if (stamp[id] === k) continue // recursion / leaf repeated: once per sample
        stamp[id] = k
        const j = SPLIT_SUMS * (3 * id + (f === 0 ? Kind.Local : Kind.NonLocal))
        sums[j] = (sums[j] as number) + 1
        sums[j + 1] = (sums[j + 1] as number) + powerW
        sums[j + 2] = (sums[j + 2] as number) + sampleJ
        sums[j + 3] = (sums[j + 3] as number) + squareJ
      }
      continue
    }
    // EDATA de-duplicates on the power sensor's readings (samples between two updates share one).
    const reading = curve.readingIdAt(s.tNs)
    const leafId = ids[0] as number
    acc.stamp[leafId] = k
    acc.add(3 * leafId + Kind.Local, powerW, reading, sampleJ)
    acc.addReading(3 * leafId + Kind.Inclusive, powerW, reading)
    for (let f = 1; f < frames.length; f++) {
      const id = ids[f] as number
      if (acc.stamp[id] === k) continue // recursion / leaf repeated: once per sample
      acc.stamp[id] = k
      acc.add(3 * id + Kind.NonLocal, powerW, reading, sampleJ)
      acc.addReading(3 * id + Kind.Inclusive, powerW, reading)
    }
  }

  const execTimeS = execNs / NS_PER_S
  if (acc.energies) acc.unpackSums()
  const { count, powerSum, energySum, energySq, readCount, readSum, readSq } = acc
  for (let id = 0; id < names.length; id++) {
    const j = 3 * id
    count[j + Kind.Inclusive] =
      (count[j + Kind.Local] as number) + (count[j + Kind.NonLocal] as number)
    powerSum[j + Kind.Inclusive] =
      (powerSum[j + Kind.Local] as number) + (powerSum[j + Kind.NonLocal] as number)
    energySum[j + Kind.Inclusive] =
      (energySum[j + Kind.Local] as number) + (energySum[j + Kind.NonLocal] as number)
    energySq[j + Kind.Inclusive] =
      (energySq[j + Kind.Local] as number) + (energySq[j + Kind.NonLocal] as number)
  }
  const estimate = (id: number, kind: Kind): SamplingEstimate => {
    const j = 3 * id + kind
    const nm = count[j] as number
    const probability = used > 0 ? nm / used : 0
    const powerW = nm > 0 ? (powerSum[j] as number) / nm : 0
    const timeS = probability * execTimeS
    // `split`: Σ of the samples' own energies (periods may differ); EDATA: pôw · t̂ (Eq. 3.8).
    const energyJ = split !== undefined ? (energySum[j] as number) : powerW * timeS
    const k = readCount[j] as number
    const p = nm > 0 ? proportionInterval(nm, used, level) : undefined
    const pw =
      k >= 2
        ? meanInterval(k, readSum[j] as number, (readSq[j] as number) / (k - 1), level)
        : undefined
    let energyIntervalJ: Interval | undefined
    if (split !== undefined) {
      // ê = Σ over all n samples of yᵢ (a sample's energy, 0 when it is not the method's): the
      // t interval of a sum of n draws, n·ȳ ± t·√(n·s²).
      if (nm > 0 && used >= 2) {
        const sumY = energyJ
        const sumY2 = energySq[j] as number
        const variance = Math.max(0, (sumY2 - (sumY * sumY) / used) / (used - 1))
        const m = meanInterval(used, sumY / used, variance, level)
        energyIntervalJ = { low: m.low * used, high: m.high * used, level }
      }
    } else if (p !== undefined && pw !== undefined) {
      const products = [p.low * pw.low, p.low * pw.high, p.high * pw.low, p.high * pw.high].map(
        (x) => x * execTimeS,
      )
      energyIntervalJ = { low: Math.min(...products), high: Math.max(...products), level }
    }
    return {
      samples: nm,
      probability,
      ...(p === undefined ? {} : { probabilityInterval: p }),
      timeS,
      ...(p === undefined
        ? {}
        : { timeIntervalS: { low: p.low * execTimeS, high: p.high * execTimeS, level } }),
      powerW,
      ...(pw === undefined ? {} : { powerIntervalW: pw }),
      distinctReadings: k,
      energyJ,
      ...(energyIntervalJ === undefined ? {} : { energyIntervalJ }),
    }
  }

  const details: SamplingDetail[] = []
  const methods: MethodEnergy[] = []
  let attributedEnergyJ = 0
  names.forEach((method, id) => {
    const local = estimate(id, Kind.Local)
    const nonLocal = estimate(id, Kind.NonLocal)
    const inclusive = estimate(id, Kind.Inclusive)
    details.push({ method, local, nonLocal, inclusive })
    attributedEnergyJ += local.energyJ
    methods.push(
      methodEnergy({
        method,
        attribution: 'sampling',
        localEnergyJ: local.energyJ,
        nonLocalEnergyJ: nonLocal.energyJ,
        ...(inclusive.energyIntervalJ === undefined
          ? {}
          : { inclusiveIntervalJ: inclusive.energyIntervalJ }),
        ...(local.energyIntervalJ === undefined ? {} : { localIntervalJ: local.energyIntervalJ }),
        localSamples: local.samples,
        nonLocalSamples: nonLocal.samples,
        localTimeS: local.timeS,
        inclusiveTimeS: inclusive.timeS,
      }),
    )
  })
  methods.sort(
    (a, b) => b.inclusiveEnergyJ - a.inclusiveEnergyJ || a.method.localeCompare(b.method),
  )
  return { methods, details, sampleCount: used, execTimeS, attributedEnergyJ, emptySamples }
}

/** Each sample's power, asked in time order (sample k after the samples before it), W. */
type SamplePower = (k: number, sample: StackSample) => number

/**
 * `power: 'split'` with a CPU schedule: for each part, each sensor interval's net energy per
 * second of running time on the part's CPUs (all processes; `runningWeight`); a sample gets, per
 * part, that rate in its interval if its thread ran on one of the part's CPUs at the sample's
 * time. Samples whose thread is not in the schedule at that time get only the parts that follow
 * every CPU. Computed as the pass asks for each sample (no per-sample arrays: with 1 M samples
 * they are tens of MB that V8 counts as external memory and answers with a full collection).
 */
/** How far from the window a slice can still place one of its samples (a sample's own period). */
const NEAR_WINDOW_NS = 1e9

function scheduleSplit(
  at: (k: number) => StackSample | undefined,
  n: number,
  parts: readonly PowerPart[],
  window: EnergyWindow,
  schedule: CpuSchedule,
  defaultPeriodNs: number,
): SamplePower {
  // Each sampled thread's slices in time order, to find the CPU it ran on at a sample.
  const sampled = new Set<number>()
  for (let k = 0; k < n; k++) {
    const s = at(k)
    if (s !== undefined && s.frames.length > 0) sampled.add(s.threadId)
  }
  const byTid = new Map<number, CpuSlice[]>()
  const slices = schedule.slices
  // Only the slices near the window: a window cut from a long trace costs its own stretch.
  const fromNs = window.startNs - NEAR_WINDOW_NS
  const toNs = window.endNs + NEAR_WINDOW_NS
  for (let i = 0; i < slices.length; i++) {
    const slice = slices[i] as CpuSlice
    if (slice.endNs < fromNs || slice.startNs > toNs || !sampled.has(slice.tid)) continue
    let list = byTid.get(slice.tid)
    if (list === undefined) {
      list = []
      byTid.set(slice.tid, list)
    }
    list.push(slice)
  }
  // Their starts, searched from the thread's previous sample (samples come in time order).
  const threads = new Map<number, { readonly list: CpuSlice[]; readonly starts: Cursor }>()
  for (const [tid, list] of byTid) {
    // Already in time order when the thread stayed on one CPU (the schedule is sorted per CPU).
    let ordered = true
    for (let i = 1; i < list.length && ordered; i++) {
      ordered = (list[i - 1] as CpuSlice).startNs <= (list[i] as CpuSlice).startNs
    }
    if (!ordered) list.sort((a, b) => a.startNs - b.startNs)
    threads.set(tid, { list, starts: new Cursor(Float64Array.from(list, (x) => x.startNs)) })
  }
  const cpuAt = (tid: number, tNs: number, toleranceNs: number): number => {
    const thread = threads.get(tid)
    if (thread === undefined) return -1
    const list = thread.list
    const lo = Math.max(0, thread.starts.index(tNs))
    // The slice that contains the sample, else the nearest within the tolerance.
    let best = -1
    let bestGap = toleranceNs
    for (let i = Math.max(0, lo - 1); i <= Math.min(list.length - 1, lo + 1); i++) {
      const c = list[i] as CpuSlice
      const gap = tNs < c.startNs ? c.startNs - tNs : tNs >= c.endNs ? tNs - c.endNs : 0
      if (gap <= bestGap) {
        best = c.cpu
        bestGap = gap
      }
    }
    return best
  }
  const split = parts.map((part) => {
    const { bounds, energyJ, rateAt } = partRunning(part, schedule, window, parts)
    return {
      // The part's CPUs as a mask (1 at each of its CPU numbers), or every CPU.
      mask: part.cpus === undefined ? undefined : cpuMask(part.cpus),
      interval: new Cursor(bounds),
      energyJ,
      rateAt,
    }
  })
  return (_k, s) => {
    const t = s.tNs
    // The CPU its thread ran on, −1 when the schedule does not say.
    const cpu = cpuAt(s.threadId, t, (s.periodNs ?? defaultPeriodNs) / 2)
    let powerW = 0
    for (let p = 0; p < split.length; p++) {
      const { mask, interval, energyJ, rateAt } = split[p] as (typeof split)[number]
      if (mask !== undefined && !(cpu >= 0 && mask[cpu] === 1)) continue
      const j = Math.min(energyJ.length - 1, Math.max(0, interval.index(t)))
      // Energy per second of (weighted) running time on the part, W.
      const rate = rateAt(cpu, t, j)
      if (Number.isFinite(rate) && rate > 0) powerW += (energyJ[j] as number) * rate * NS_PER_S
    }
    return powerW
  }
}

/** 1 at each of `cpus` (non-negative integers; others are never a sample's CPU). */
function cpuMask(cpus: readonly number[]): Uint8Array {
  const valid = cpus.filter((c) => Number.isInteger(c) && c >= 0 && c < 1 << 16)
  const mask = new Uint8Array(Math.max(0, ...valid) + 1)
  for (const c of valid) mask[c] = 1
  return mask
}

/**
 * `power: 'split'`: sensor intervals (window edges and every reading inside) are merged in time
 * order until a group holds `minSamples` samples with frames (a short last group joins the one
 * before); each sample gets its group's net energy × its weight / the group's total weight, as a
 * power over its period (weight = thread share × period).
 */
function splitGroups(
  at: (k: number) => StackSample | undefined,
  n: number,
  curve: EnergyCurve,
  window: EnergyWindow,
  baselineW: number,
  tails: readonly TailCharge[],
  share: Float64Array | undefined,
  defaultPeriodNs: number,
  minSamples: number,
): SamplePower {
  const bounds = sensorIntervalBounds(curve, window)
  const whole: PowerPart = { curve, baselinePowerW: baselineW, tails }
  // Groups as [first sample, end sample) and [start, end) times.
  const groups: Array<{ from: number; to: number; startNs: number; endNs: number }> = []
  let k = 0
  let startNs = window.startNs
  let first = 0
  let count = 0
  for (let j = 1; j < bounds.length; j++) {
    const endNs = bounds[j] as number
    const last = j === bounds.length - 1
    for (; k < n; k++) {
      const s = at(k)
      if (s === undefined) continue
      if (!last && s.tNs >= endNs) break
      if (s.frames.length > 0) count++
    }
    if (count >= minSamples || last) {
      const short = count < minSamples && groups.length > 0
      const prev = groups[groups.length - 1]
      if (short && prev !== undefined) {
        prev.to = k
        prev.endNs = endNs
      } else groups.push({ from: first, to: k, startNs, endNs })
      first = k
      startNs = endNs
      count = 0
    }
  }
  const powerW = new Float64Array(n)
  groups.forEach((g) => {
    let weight = 0
    for (let i = g.from; i < g.to; i++) {
      const s = at(i)
      if (s === undefined || s.frames.length === 0) continue
      weight += (share === undefined ? 1 : (share[i] as number)) * (s.periodNs ?? defaultPeriodNs)
    }
    const energyJ = netEnergyJ(whole, g.startNs, g.endNs)
    for (let i = g.from; i < g.to; i++) {
      // energy × (share × period) / weight, per second of the sample's period.
      powerW[i] =
        weight > 0
          ? (energyJ * (share === undefined ? 1 : (share[i] as number)) * NS_PER_S) / weight
          : 0
    }
  })
  return (k) => powerW[k] as number
}

/**
 * 1/N for each sample, N = distinct threads with a sample within ± half the mean sample period
 * (a sliding window over time-ordered samples). `undefined` when every sample is alone (N = 1).
 */
function threadShares(
  samples: readonly StackSample[],
  picked: readonly number[] | undefined,
  from: number,
  n: number,
  defaultPeriodNs: number,
): Float64Array | undefined {
  const t = new Float64Array(n)
  // Threads as dense indices, so the sliding window counts in a typed array (no Map per sample).
  const thread = new Int32Array(n)
  const index = new Map<number, number>()
  let periodSum = 0
  for (let k = 0; k < n; k++) {
    const s = samples[picked === undefined ? from + k : (picked[k] as number)]
    t[k] = s?.tNs ?? 0
    const id = s?.threadId ?? 0
    let i = index.get(id)
    if (i === undefined) {
      i = index.size
      index.set(id, i)
    }
    thread[k] = i
    periodSum += s?.periodNs ?? defaultPeriodNs
  }
  const half = n > 0 ? periodSum / n / 2 : 0
  if (!(half > 0) || index.size < 2) return undefined
  const share = new Float64Array(n)
  const counts = new Int32Array(index.size)
  let distinct = 0
  let lo = 0
  let hi = 0
  let shared = false
  for (let k = 0; k < n; k++) {
    const tk = t[k] as number
    while (hi < n && (t[hi] as number) < tk + half) {
      const th = thread[hi] as number
      if (counts[th] === 0) distinct++
      counts[th] = (counts[th] as number) + 1
      hi++
    }
    while (lo < hi && (t[lo] as number) <= tk - half) {
      const th = thread[lo] as number
      counts[th] = (counts[th] as number) - 1
      if (counts[th] === 0) distinct--
      lo++
    }
    const threads = Math.max(1, distinct)
    if (threads > 1) shared = true
    share[k] = 1 / threads
  }
  return shared ? share : undefined
}

/**
 * Per method × kind (local, non-local, inclusive) accumulators in flat typed arrays: sample count,
 * power sum, and the running mean / M2 (Welford) of the distinct sensor readings' power.
 * Inclusive count and power sum are local + non-local (disjoint per sample) and are filled in at
 * the end; during the pass only its distinct readings are tracked.
 */
class Accumulators {
  /** @param energies keep Σ and Σ² of the samples' energies (`split`). */
  constructor(readonly energies: boolean) {}
  /**
   * Method name → id, as a null-prototype object's own properties rather than a `Map`: V8 looks
   * a string key up there about twice as fast (the key is internalized once, then compared by
   * identity), and this lookup runs once per frame of every sample.
   */
  private readonly ids: Record<string, number> = Object.create(null) as Record<string, number>
  readonly names: string[] = []
  count = new Float64Array(3 * 64)
  powerSum = new Float64Array(3 * 64)
  /** Σ and Σ² of each sample's energy, power × its own period (`split`). */
  energySum = new Float64Array(3 * 64)
  energySq = new Float64Array(3 * 64)
  readCount = new Float64Array(3 * 64)
  readSum = new Float64Array(3 * 64)
  readSq = new Float64Array(3 * 64)
  lastReading = new Float64Array(3 * 64).fill(Number.NaN)
  /** Last sample index that touched the method (recursion is counted once per sample). */
  stamp = new Int32Array(64).fill(-1)
  /**
   * `split`'s pass: count, power sum, energy sum and Σ energy² side by side per method × kind, so
   * a frame's four sums share a cache line (four arrays indexed by 6000 methods × kinds do not);
   * `unpackSums` moves them to `count` … `energySq` after the pass.
   */
  sums = new Float64Array(SPLIT_SUMS * 3 * 64)

  unpackSums(): void {
    const { sums, count, powerSum, energySum, energySq } = this
    for (let j = 0; j < count.length; j++) {
      const i = SPLIT_SUMS * j
      count[j] = sums[i] as number
      powerSum[j] = sums[i + 1] as number
      energySum[j] = sums[i + 2] as number
      energySq[j] = sums[i + 3] as number
    }
  }

  /** Per thread: the previous sample's frames and their ids (for suffix reuse). */
  private readonly previous = new Map<number, { frames: readonly string[]; ids: Int32Array }>()
  private scratch: Int32Array = new Int32Array(64)

  /**
   * Ids of a stack's frames (leaf first). Consecutive samples of a thread usually share the bottom
   * of the stack (main loop, looper, handler), so the common suffix with that thread's previous
   * sample reuses its ids instead of hashing the names again. The returned array is valid until
   * the next call.
   */
  frameIds(threadId: number, frames: readonly string[]): Int32Array {
    const n = frames.length
    let prev = this.previous.get(threadId)
    if (prev === undefined) {
      prev = { frames: [], ids: new Int32Array(64) }
      this.previous.set(threadId, prev)
    }
    if (n > this.scratch.length) this.scratch = new Int32Array(Math.max(n, this.scratch.length * 2))
    const cur = this.scratch
    const prevFrames = prev.frames
    const prevIds = prev.ids
    let i = n - 1
    let j = prevFrames.length - 1
    while (i >= 0 && j >= 0 && frames[i] === prevFrames[j]) {
      cur[i] = prevIds[j] as number
      i--
      j--
    }
    for (; i >= 0; i--) cur[i] = this.id(frames[i] as string)
    // This sample's ids become the thread's previous ones; its old buffer is the next scratch.
    this.scratch = prevIds.length >= cur.length ? prevIds : new Int32Array(cur.length)
    prev.ids = cur
    prev.frames = frames
    return cur
  }

  id(name: string): number {
    const known = this.ids[name]
    if (known !== undefined) return known
    const id = this.names.length
    this.ids[name] = id
    this.names.push(name)
    if (id >= this.stamp.length) this.grow(this.stamp.length * 2)
    return id
  }

  add(j: number, powerW: number, reading: number, energyJ: number): void {
    this.count[j] = (this.count[j] as number) + 1
    this.powerSum[j] = (this.powerSum[j] as number) + powerW
    // Per frame of 1 M samples: `split` keeps energy sums, EDATA's `reading` its distinct readings.
    if (this.energies) {
      this.energySum[j] = (this.energySum[j] as number) + energyJ
      this.energySq[j] = (this.energySq[j] as number) + energyJ * energyJ
    } else this.addReading(j, powerW, reading)
  }

  addReading(j: number, powerW: number, reading: number): void {
    if (this.lastReading[j] === reading) return
    this.lastReading[j] = reading
    const c = (this.readCount[j] as number) + 1
    this.readCount[j] = c
    const mean = this.readSum[j] as number
    const delta = powerW - mean
    const next = mean + delta / c
    this.readSum[j] = next
    this.readSq[j] = (this.readSq[j] as number) + delta * (powerW - next)
  }

  private grow(cap: number): void {
    const widen = (a: Float64Array<ArrayBuffer>, fill = 0): Float64Array<ArrayBuffer> => {
      const b = new Float64Array(3 * cap).fill(fill)
      b.set(a)
      return b
    }
    this.count = widen(this.count)
    this.powerSum = widen(this.powerSum)
    this.energySum = widen(this.energySum)
    this.energySq = widen(this.energySq)
    this.readCount = widen(this.readCount)
    this.readSum = widen(this.readSum)
    this.readSq = widen(this.readSq)
    this.lastReading = widen(this.lastReading, Number.NaN)
    const sums = new Float64Array(SPLIT_SUMS * 3 * cap)
    sums.set(this.sums)
    this.sums = sums
    const s = new Int32Array(cap).fill(-1)
    s.set(this.stamp)
    this.stamp = s
  }
}
