/**
 * Scheduler data in Perfetto traces: `ftrace_events` bundles (TracePacket field 1) carrying the
 * kernel's `sched_switch` events, plain (`FtraceEvent.sched_switch`) or compact (`compact_sched`,
 * structure-of-arrays with delta-encoded timestamps and interned comms), and beside them the
 * `power/cpu_frequency` and `power/cpu_idle` events (plain only: perfetto has no compact form).
 * Reference: google/perfetto protos/perfetto/trace/ftrace/ftrace_event_bundle.proto @4958e3c3;
 * trace processor's reading of it in src/trace_processor/importers/ftrace/ftrace_tokenizer.cc
 * (TokenizeFtraceCompactSchedSwitch, HandleFtraceClockSnapshot) at ec5d16b1.
 *
 * Slice rule: on each CPU, the thread a switch selects (`next_pid`) runs from that switch to the
 * CPU's next switch; tid 0 (swapper, idle) is left out. The last switch of a CPU has no known end:
 * its slice ends at the latest boottime timestamp seen anywhere in the trace (trace processor
 * leaves such a slice open, `dur = -1`). Nothing is known on a CPU before its first switch.
 */
import type { ClockName } from '../../model/clock.js'
import { EnergyError } from '../../model/errors.js'
import type {
  CpuFrequencyChange,
  CpuIdleChange,
  CpuSchedule,
  CpuSlice,
} from '../../model/samples.js'
import { FORMAT, arr, corrupt, int, isObj, unsafeInteger, type Obj } from './_fields.js'
import { PerfettoErrors } from './errors.js'

/** Trace processor's CPU limit (kMaxCpuCount): a higher CPU number means a corrupt bundle. */
const MAX_CPUS = 1024
const TWO_POW_63 = 2n ** 63n
const TWO_POW_64 = 2n ** 64n
/** `prio` of a nice-0 task in sched_switch; the encoder writes it for every thread and swapper. */
const DEFAULT_PRIO = 120
/** `prev_state` values the encoder writes: swapper is always runnable, a thread that ran out of work sleeps. */
const TASK_RUNNING = 0
const TASK_INTERRUPTIBLE = 1
/** `cpu_idle.state` when a CPU leaves idle: the kernel's PWR_EVENT_EXIT, (u32)-1. */
const PWR_EVENT_EXIT = 4294967295

interface Switch {
  readonly tNs: number
  readonly tid: number
  /** `next_comm`; `''` when the event has none. */
  readonly comm: string
}

function schedCorrupt(offset: number, message: string): EnergyError {
  return new EnergyError({
    code: PerfettoErrors.SCHED_CORRUPT,
    message,
    hint: 'The scheduler data in this trace is damaged or was written by a buggy producer; re-record it, or record without sched_switch.',
    details: { format: FORMAT, offset },
  })
}

function schedOrder(offset: number, cpu: number, message: string): EnergyError {
  return new EnergyError({
    code: PerfettoErrors.SCHED_ORDER,
    message: `CPU ${cpu}: ${message}`,
    hint: 'sched_switch events of one CPU must be in time order; the trace is damaged, or two ftrace data sources wrote the same CPUs (keep one linux.ftrace data source).',
    details: { format: FORMAT, offset, cpu },
  })
}

/**
 * A compact_sched timestamp delta: uint64 on the wire, and the writer subtracts unchecked
 * (src/traced/probes/ftrace/compact_sched.h AppendTimestamp), so a value of 2^63 or more is a
 * negative delta (time going back), as trace processor's int64 accumulation reads it.
 */
function delta(value: unknown, index: number, offset: number, cpu: number): number {
  const n = Number(value)
  if (Number.isSafeInteger(n) && n >= 0) return n
  let big: bigint
  try {
    big = BigInt(String(value))
  } catch (cause) {
    throw corrupt(offset, `compact_sched switch_timestamp[${index}] is not an integer`, cause)
  }
  if (index > 0 && big >= TWO_POW_63) {
    throw schedOrder(
      offset,
      cpu,
      `compact_sched switch_timestamp[${index}] is a negative delta (${big - TWO_POW_64} ns)`,
    )
  }
  throw unsafeInteger(big, 'switch_timestamp', offset)
}

/**
 * Collects the switches of every `ftrace_events` bundle while the decoder walks the packets, and
 * the latest boottime timestamp of anything in the trace; `finish` turns them into a schedule.
 */
export class SchedCollector {
  private readonly byCpu = new Map<number, Switch[]>()
  private readonly cpus = new Set<number>()
  private readonly lostCpus = new Set<number>()
  private readonly overwritten = new Map<number, number>()
  private readonly mappedClocks = new Set<string>()
  private readonly sequences = new Set<number>()
  /** Latest (boot − ftrace clock) offset per sequence, for bundles that carry no pair of their own. */
  private readonly clockOffsets = new Map<number, number>()
  private hasSched = false
  private endNs = Number.NEGATIVE_INFINITY
  /** `power/cpu_frequency` events (state in kHz, for `cpu_id`). */
  private readonly frequencies: CpuFrequencyChange[] = []
  /** `power/cpu_idle` events (the state entered, -1 on leaving idle, for `cpu_id`). */
  private readonly idle: CpuIdleChange[] = []

  /** A boottime instant the trace vouches for (packet times, clock snapshots, readings, events). */
  noteTime(tNs: number): void {
    if (tNs > this.endNs) this.endNs = tNs
  }

  /** One `FtraceEventBundle` (protobufjs plain object), at `offset` on `sequence`. */
  bundle(b: Obj, offset: number, sequence: number): void {
    const compact = isObj(b.compact_sched) ? b.compact_sched : undefined
    const events = arr(b.event).filter(isObj)
    const hasSwitches = compact !== undefined || events.some((e) => isObj(e.sched_switch))
    const cpu = int(b.cpu, 'ftrace_events.cpu', offset)
    if (cpu === undefined) {
      // Trace processor skips such a bundle; with scheduler data in it, slices would be lost.
      if (!hasSwitches) return
      throw schedCorrupt(offset, 'an ftrace_events bundle with sched_switch data has no `cpu`')
    }
    if (cpu >= MAX_CPUS) {
      throw schedCorrupt(offset, `ftrace_events bundle for CPU ${cpu} (at most ${MAX_CPUS} CPUs)`)
    }
    this.cpus.add(cpu)
    this.sequences.add(sequence)
    if (b.lost_events === true) this.lostCpus.add(cpu)
    const shift = this.clockShift(b, offset, sequence)
    const toBoot = (t: number): number => t + shift

    if (!this.byCpu.has(cpu)) {
      this.byCpu.set(cpu, [])
      // Only a CPU's first bundle says whether older data of that CPU was overwritten (ring buffer).
      const previous = int(
        b.previous_bundle_end_timestamp ?? b.last_read_event_timestamp,
        'previous_bundle_end_timestamp',
        offset,
      )
      if (previous !== undefined && previous > 0) this.overwritten.set(cpu, toBoot(previous))
    }

    const fromCompact: Switch[] = []
    if (compact !== undefined) {
      this.hasSched = true
      const times = arr(compact.switch_timestamp)
      const pids = arr(compact.switch_next_pid)
      const commIndex = arr(compact.switch_next_comm_index)
      const states = arr(compact.switch_prev_state)
      const prios = arr(compact.switch_next_prio)
      const table = arr(compact.intern_table)
      const lengths = [times, pids, commIndex, states, prios].map((a) => a.length)
      if (lengths.some((n) => n !== times.length)) {
        throw schedCorrupt(
          offset,
          `compact_sched arrays differ in length (switch_timestamp ${lengths[0]}, next_pid ${lengths[1]}, next_comm_index ${lengths[2]}, prev_state ${lengths[3]}, next_prio ${lengths[4]})`,
        )
      }
      let t = 0
      for (let i = 0; i < times.length; i++) {
        t += delta(times[i], i, offset, cpu)
        if (!Number.isSafeInteger(t)) throw unsafeInteger(t, 'switch_timestamp', offset)
        const index = int(commIndex[i], 'switch_next_comm_index', offset) ?? 0
        const comm = table[index]
        if (comm === undefined) {
          throw schedCorrupt(
            offset,
            `compact_sched switch ${i} names comm #${index}, but the intern table has ${table.length} entries`,
          )
        }
        const tNs = toBoot(t)
        this.noteTime(tNs)
        fromCompact.push({
          tNs,
          tid: int(pids[i], 'switch_next_pid', offset) ?? 0,
          comm: typeof comm === 'string' ? comm : '',
        })
      }
    }

    const fromEvents: Switch[] = []
    for (const e of events) {
      const t = int(e.timestamp, 'ftrace_event.timestamp', offset)
      if (t !== undefined) this.noteTime(toBoot(t))
      const f = e.cpu_frequency
      if (isObj(f) && t !== undefined) {
        const khz = int(f.state, 'cpu_frequency.state', offset)
        const of = int(f.cpu_id, 'cpu_frequency.cpu_id', offset) ?? cpu
        if (khz !== undefined) this.frequencies.push({ cpu: of, tNs: toBoot(t), khz })
      }
      const idle = e.cpu_idle
      if (isObj(idle) && t !== undefined) {
        const state = int(idle.state, 'cpu_idle.state', offset)
        const of = int(idle.cpu_id, 'cpu_idle.cpu_id', offset) ?? cpu
        if (state !== undefined) {
          this.idle.push({ cpu: of, tNs: toBoot(t), state: state === PWR_EVENT_EXIT ? -1 : state })
        }
      }
      const s = e.sched_switch
      if (!isObj(s)) continue
      this.hasSched = true
      if (t === undefined) {
        throw schedCorrupt(offset, `a sched_switch event on CPU ${cpu} has no timestamp`)
      }
      const previous = fromEvents.at(-1)
      if (previous !== undefined && toBoot(t) < previous.tNs) {
        throw schedOrder(
          offset,
          cpu,
          `sched_switch at ${toBoot(t)} ns follows one at ${previous.tNs} ns in the same bundle`,
        )
      }
      fromEvents.push({
        tNs: toBoot(t),
        tid: int(s.next_pid, 'next_pid', offset) ?? 0,
        comm: typeof s.next_comm === 'string' ? s.next_comm : '',
      })
    }

    const list = this.byCpu.get(cpu) ?? []
    const merged = mergeByTime(fromCompact, fromEvents)
    const last = list.at(-1)
    const first = merged[0]
    if (last !== undefined && first !== undefined && first.tNs < last.tNs) {
      throw schedOrder(
        offset,
        cpu,
        `this bundle starts at ${first.tNs} ns, before the previous bundle's last switch at ${last.tNs} ns`,
      )
    }
    list.push(...merged)
  }

  /** ns to add to this bundle's ftrace timestamps to put them on boottime. */
  private clockShift(b: Obj, offset: number, sequence: number): number {
    const clock = b.ftrace_clock
    if (clock === undefined || clock === 'FTRACE_CLOCK_UNSPECIFIED' || clock === 0) return 0
    const name =
      typeof clock === 'string' ? clock.replace(/^FTRACE_CLOCK_/, '') : `#${String(clock)}`
    const ftraceNs = int(b.ftrace_timestamp, 'ftrace_timestamp', offset)
    const bootNs = int(b.boot_timestamp, 'boot_timestamp', offset)
    // Same best-effort fit as trace processor: the (ftrace, boot) pair read with the bundle; later
    // bundles of the sequence without one reuse the last pair.
    if (ftraceNs !== undefined && bootNs !== undefined) {
      this.clockOffsets.set(sequence, bootNs - ftraceNs)
    }
    const shift = this.clockOffsets.get(sequence)
    if (shift === undefined) {
      throw new EnergyError({
        code: PerfettoErrors.UNSUPPORTED_CLOCK,
        message: `ftrace_events bundle on ftrace clock ${name} has no (ftrace_timestamp, boot_timestamp) pair to map it to boottime`,
        hint: 'Record ftrace on the default boot clock (drop use_monotonic_raw_clock / preserve_ftrace_buffer from ftrace_config), with perfetto v19+.',
        details: { format: FORMAT, offset },
      })
    }
    this.mappedClocks.add(name)
    return shift
  }

  /**
   * The schedule, when the trace has scheduler data or its config asked for it (`requested`: then
   * even a session where every CPU stayed idle yields an empty schedule), and its warnings.
   * `droppedSequences`: sequences with `previous_packet_dropped` after their first packet.
   */
  finish(
    requested: boolean,
    droppedSequences: ReadonlySet<number>,
  ): { readonly schedule?: CpuSchedule; readonly warnings: readonly string[] } {
    if (!this.hasSched && !requested) return { warnings: [] }
    const warnings: string[] = []
    const cpus = [...this.cpus].sort((a, b) => a - b)
    if (this.lostCpus.size > 0) {
      warnings.push(
        `the kernel lost ftrace events on CPU ${[...this.lostCpus].sort((a, b) => a - b).join(', ')} (lost_events): scheduler slices there may be missing or too long`,
      )
    }
    const dropped = [...this.sequences].filter((s) => droppedSequences.has(s))
    for (const sequence of dropped) {
      warnings.push(
        `packets were lost on the ftrace sequence ${sequence} (previous_packet_dropped): scheduler slices may be missing or too long`,
      )
    }
    for (const [cpu, previousNs] of [...this.overwritten].sort((a, b) => a[0] - b[0])) {
      warnings.push(
        `ftrace data of CPU ${cpu} before ${previousNs} ns was overwritten (ring buffer): its schedule is known only from its first switch on`,
      )
    }
    if (this.mappedClocks.size > 0) {
      warnings.push(
        `sched_switch times on ftrace clock ${[...this.mappedClocks].join(', ')} were mapped to boottime with each bundle's (ftrace_timestamp, boot_timestamp) pair (best effort)`,
      )
    }
    const slices: CpuSlice[] = []
    for (const cpu of cpus) {
      const switches = this.byCpu.get(cpu) ?? []
      switches.forEach((s, i) => {
        const endNs = switches[i + 1]?.tNs ?? this.endNs
        if (s.tid === 0 || !(endNs > s.tNs)) return
        slices.push({
          cpu,
          tid: s.tid,
          ...(s.comm === '' ? {} : { comm: s.comm }),
          startNs: s.tNs,
          endNs,
        })
      })
    }
    return {
      schedule: {
        source: 'perfetto.sched_switch',
        clock: 'boottime',
        slices,
        cpus,
        lostEvents: this.lostCpus.size > 0 || dropped.length > 0,
        ...(this.frequencies.length === 0
          ? {}
          : { frequencies: [...this.frequencies].sort((a, b) => a.tNs - b.tNs || a.cpu - b.cpu) }),
        // Stable: a CPU's events at one instant keep their trace order (an exit before an entry).
        ...(this.idle.length === 0
          ? {}
          : { idle: [...this.idle].sort((a, b) => a.tNs - b.tNs || a.cpu - b.cpu) }),
      },
      warnings,
    }
  }
}

/** Two time-sorted lists as one (a bundle may hold both encodings; a stable merge keeps ties in order). */
function mergeByTime(a: readonly Switch[], b: readonly Switch[]): Switch[] {
  if (b.length === 0) return [...a]
  if (a.length === 0) return [...b]
  const out: Switch[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    const x = a[i]
    const y = b[j]
    if (y === undefined || (x !== undefined && x.tNs <= y.tNs)) {
      if (x !== undefined) out.push(x)
      i++
    } else {
      out.push(y)
      j++
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Encoding

/** Scheduler data for {@link encodePowerTrace}: a `CpuSchedule` fits, plus how to write it. */
export interface PowerTraceSchedule {
  /**
   * What ran where, on boottime. Slices of one CPU must not overlap; a gap between them is idle
   * time (written as a switch to `swapper/<cpu>`, tid 0, which is not allowed in a slice).
   * Adjacent slices of the same thread are written as one.
   */
  readonly slices: readonly CpuSlice[]
  /** CPUs that get a bundle, also when they ran nothing. @default the CPUs of `slices` */
  readonly cpus?: readonly number[]
  /** Must be `boottime` when given (the default ftrace clock). */
  readonly clock?: ClockName
  /** Flag every bundle `lost_events`. @default false */
  readonly lostEvents?: boolean
  /**
   * `power/cpu_frequency` events to write, each into its CPU's bundle (kHz as the event's `state`).
   * @default none
   */
  readonly frequencies?: readonly CpuFrequencyChange[]
  /**
   * `power/cpu_idle` events to write, each into its CPU's bundle (state -1, leaving idle, as the
   * kernel's 4294967295). @default none
   */
  readonly idle?: readonly CpuIdleChange[]
  /**
   * `compact_sched` (the default since perfetto v42) or one `FtraceEvent` per switch.
   * @default true
   */
  readonly compact?: boolean
  /**
   * When the session stopped, boottime ns: a closing clock snapshot is written there, and a slice
   * reaching it stays open (no switch), as in a real trace. @default the latest slice end
   */
  readonly endNs?: number
}

interface EncodedSwitch {
  readonly tNs: number
  readonly prevTid: number
  readonly prevComm: string
  readonly prevState: number
  readonly nextTid: number
  readonly nextComm: string
}

/**
 * The `ftrace_events` bundles (protobufjs plain objects, one per CPU) that record `schedule`, and
 * the session end. `fail` builds the encoder's input error.
 */
export function scheduleBundles(
  schedule: PowerTraceSchedule,
  fail: (message: string) => EnergyError,
): { readonly bundles: readonly Obj[]; readonly endNs: number | undefined } {
  if (schedule.clock !== undefined && schedule.clock !== 'boottime') {
    throw fail(`schedule is on clock ${schedule.clock}; ftrace writes boottime`)
  }
  const byCpu = new Map<number, CpuSlice[]>()
  for (const cpu of schedule.cpus ?? []) {
    if (!Number.isInteger(cpu) || cpu < 0 || cpu >= MAX_CPUS) {
      throw fail(`CPU ${cpu} is not a CPU number`)
    }
    byCpu.set(cpu, [])
  }
  let latest: number | undefined
  for (const s of schedule.slices) {
    if (!Number.isInteger(s.cpu) || s.cpu < 0 || s.cpu >= MAX_CPUS) {
      throw fail(`slice on CPU ${s.cpu}, which is not a CPU number`)
    }
    if (!Number.isSafeInteger(s.tid) || s.tid <= 0) {
      throw fail(`slice of tid ${s.tid} on CPU ${s.cpu}: a thread id is positive (idle is a gap)`)
    }
    if (
      !Number.isSafeInteger(s.startNs) ||
      !Number.isSafeInteger(s.endNs) ||
      s.startNs < 0 ||
      s.endNs < s.startNs
    ) {
      throw fail(
        `slice of tid ${s.tid} on CPU ${s.cpu} runs [${s.startNs}, ${s.endNs}); times are integer ns with start ≤ end`,
      )
    }
    if (s.endNs === s.startNs) continue
    latest = Math.max(latest ?? 0, s.endNs)
    const list = byCpu.get(s.cpu)
    if (list === undefined) byCpu.set(s.cpu, [s])
    else list.push(s)
  }
  const endNs = schedule.endNs ?? latest
  if (endNs !== undefined && !Number.isSafeInteger(endNs)) {
    throw fail(`schedule end ${endNs} ns is not an integer ns`)
  }
  if (endNs !== undefined && latest !== undefined && endNs < latest) {
    throw fail(`schedule end ${endNs} ns is before its last slice ends (${latest} ns)`)
  }
  for (const c of schedule.idle ?? []) {
    if (!Number.isInteger(c.cpu) || c.cpu < 0 || c.cpu >= MAX_CPUS) {
      throw fail(`cpu_idle on CPU ${c.cpu}, which is not a CPU number`)
    }
    if (!Number.isSafeInteger(c.tNs) || c.tNs < 0) {
      throw fail(`cpu_idle on CPU ${c.cpu} at ${c.tNs} ns; times are integer ns`)
    }
    if (!Number.isInteger(c.state) || c.state < -1 || c.state >= PWR_EVENT_EXIT) {
      throw fail(`cpu_idle state ${c.state} on CPU ${c.cpu}: a state is 0 or more, or -1 (exit)`)
    }
  }
  const compact = schedule.compact ?? true
  const bundles: Obj[] = []
  for (const [cpu, slices] of [...byCpu].sort((a, b) => a[0] - b[0])) {
    const switches = switchesOf(cpu, slices, endNs ?? 0, fail)
    const frequencies = frequencyEventsOf(cpu, schedule.frequencies ?? [])
    const { exits, enters } = idleEventsOf(cpu, schedule.idle ?? [])
    // At one instant, as the kernel orders them: a CPU leaves idle, switches to the thread, (its
    // policy changes frequency,) and a CPU that switched to swapper then enters idle.
    const events = byTimestamp([
      ...exits,
      ...(compact ? [] : eventsOf(switches)),
      ...frequencies,
      ...enters,
    ])
    bundles.push({
      cpu,
      ...(schedule.lostEvents === true ? { lost_events: true } : {}),
      // What perfetto v47+ writes into a CPU's first bundle: no earlier data was dropped.
      previous_bundle_end_timestamp: 0,
      ...(compact && switches.length > 0 ? { compact_sched: compactOf(switches) } : {}),
      ...(events.length === 0 ? {} : { event: events }),
    })
  }
  return { bundles, endNs }
}

function switchesOf(
  cpu: number,
  input: readonly CpuSlice[],
  endNs: number,
  fail: (message: string) => EnergyError,
): EncodedSwitch[] {
  const idle = `swapper/${cpu}`
  const slices = [...input].sort((a, b) => a.startNs - b.startNs)
  const out: EncodedSwitch[] = []
  // What runs on the CPU now, and until when (undefined: idle).
  let current: { tid: number; comm: string; endNs: number } | undefined
  const to = (tNs: number, tid: number, comm: string): void => {
    out.push({
      tNs,
      prevTid: current?.tid ?? 0,
      prevComm: current?.comm ?? idle,
      prevState: current === undefined ? TASK_RUNNING : TASK_INTERRUPTIBLE,
      nextTid: tid,
      nextComm: comm,
    })
  }
  for (const s of slices) {
    const comm = s.comm ?? ''
    if (current !== undefined && s.startNs < current.endNs) {
      throw fail(
        `slices on CPU ${cpu} overlap: tid ${s.tid} starts at ${s.startNs} ns while tid ${current.tid} runs until ${current.endNs} ns`,
      )
    }
    if (
      current !== undefined &&
      s.startNs === current.endNs &&
      s.tid === current.tid &&
      comm === current.comm
    ) {
      current.endNs = s.endNs
      continue
    }
    if (current !== undefined && s.startNs > current.endNs) {
      to(current.endNs, 0, idle)
      current = undefined
    }
    to(s.startNs, s.tid, comm)
    current = { tid: s.tid, comm, endNs: s.endNs }
  }
  if (current !== undefined && current.endNs < endNs) to(current.endNs, 0, idle)
  return out
}

function compactOf(switches: readonly EncodedSwitch[]): Obj {
  const table: string[] = []
  const index = new Map<string, number>()
  const intern = (comm: string): number => {
    let i = index.get(comm)
    if (i === undefined) {
      i = table.length
      table.push(comm)
      index.set(comm, i)
    }
    return i
  }
  const commIndex = switches.map((s) => intern(s.nextComm))
  // The first timestamp is absolute, each next one relative to its predecessor.
  const times = switches.map((s, i) => s.tNs - (switches[i - 1]?.tNs ?? 0))
  return {
    intern_table: table,
    switch_timestamp: times,
    switch_prev_state: switches.map((s) => s.prevState),
    switch_next_pid: switches.map((s) => s.nextTid),
    switch_next_prio: switches.map(() => DEFAULT_PRIO),
    switch_next_comm_index: commIndex,
  }
}

function eventsOf(switches: readonly EncodedSwitch[]): Obj[] {
  return switches.map((s) => ({
    timestamp: s.tNs,
    pid: s.prevTid,
    sched_switch: {
      prev_comm: s.prevComm,
      prev_pid: s.prevTid,
      prev_prio: DEFAULT_PRIO,
      prev_state: s.prevState,
      next_comm: s.nextComm,
      next_pid: s.nextTid,
      next_prio: DEFAULT_PRIO,
    },
  }))
}

/** A CPU's `cpu_frequency` events (the kernel traces a policy's change once per CPU). */
function frequencyEventsOf(cpu: number, changes: readonly CpuFrequencyChange[]): Obj[] {
  return changes
    .filter((c) => c.cpu === cpu)
    .map((c) => ({ timestamp: c.tNs, pid: 0, cpu_frequency: { state: c.khz, cpu_id: cpu } }))
}

/** A CPU's `cpu_idle` events: leaving idle (state 4294967295) and entering a state. */
function idleEventsOf(
  cpu: number,
  changes: readonly CpuIdleChange[],
): { readonly exits: Obj[]; readonly enters: Obj[] } {
  const exits: Obj[] = []
  const enters: Obj[] = []
  for (const c of changes) {
    if (c.cpu !== cpu) continue
    const state = c.state === -1 ? PWR_EVENT_EXIT : c.state
    ;(c.state === -1 ? exits : enters).push({
      timestamp: c.tNs,
      pid: 0,
      cpu_idle: { state, cpu_id: cpu },
    })
  }
  return { exits, enters }
}

/** Events of one bundle in time order (stable: ties keep the order they are given in). */
function byTimestamp(events: Obj[]): Obj[] {
  return events.sort((a, b) => Number(a.timestamp) - Number(b.timestamp))
}
