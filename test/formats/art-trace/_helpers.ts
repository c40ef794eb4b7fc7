/** Shared by the ART trace tests: dmtracedump runner and output parsers, scenarios, chunking. */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type {
  ArtAction,
  ArtClock,
  ArtMethodInput,
  ArtThread,
  ArtTraceRecord,
  ArtTraceWriteInput,
} from '../../../src/formats/art-trace/index.js'

export const DMTRACEDUMP = '/usr/bin/dmtracedump'
export const hasDmtracedump = existsSync(DMTRACEDUMP)
if (!hasDmtracedump) {
  console.warn(
    `NOTICE: ${DMTRACEDUMP} not found: cross-checks against dmtracedump are SKIPPED (apt-get install dmtracedump)`,
  )
}

export const CORPUS = join(import.meta.dirname, '../../fixtures/corpus/3_method_traces')
/**
 * The shared corpus next to the checkout (`../shared/corpus`, PROVENANCE.md §7): real traces
 * under MPL-2.0 among them, read in place rather than copied into test/fixtures.
 */
export const SHARED_CORPUS = join(import.meta.dirname, '../../../../shared/corpus/3_method_traces')
export const hasSharedCorpus = existsSync(SHARED_CORPUS)
export const GOLDEN = join(import.meta.dirname, '../../fixtures/art-trace')

/** Runs dmtracedump on bytes (written to a temp file); returns stdout. */
export function dmtracedump(bytes: Uint8Array, dump: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'art-trace-'))
  const file = join(dir, 'x.trace')
  try {
    writeFileSync(file, bytes)
    return execFileSync(DMTRACEDUMP, dump ? ['-o', file] : [file], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export interface ListedRecord {
  readonly threadId: number
  readonly action: ArtAction
  readonly timeUs: number
  /** `class.name signature` as dmtracedump prints it. */
  readonly label: string
}

const ACTIONS: Record<string, ArtAction> = { ent: 'enter', xit: 'exit', unr: 'unwind' }

/** Parses `dmtracedump -o` ("Trace (threadID action usecs class.method signature):") lines. */
export function parseDmtraceListing(text: string): ListedRecord[] {
  const start = text.indexOf('Trace (threadID action usecs class.method signature):')
  if (start < 0) throw new Error(`no trace listing in dmtracedump output:\n${text.slice(0, 500)}`)
  const out: ListedRecord[] = []
  for (const line of text.slice(start).split('\n').slice(1)) {
    if (line === '') continue
    const m = /^\s*(\d+) (ent|xit|unr)[ !] +(\d+)[ +-]\.*(.*)$/.exec(line)
    if (m === null) throw new Error(`unparsed dmtracedump line: ${line}`)
    out.push({
      threadId: Number(m[1]),
      action: ACTIONS[m[2] ?? ''] ?? 'exit',
      timeUs: Number(m[3]),
      label: m[4] ?? '',
    })
  }
  return out
}

export interface ProfiledMethod {
  exclusiveUs?: number
  inclusiveUs?: number
  calls?: number
}

/**
 * Per-method figures from dmtracedump's profile: the "Inclusive elapsed times" main lines
 * (`[i] pct% calls+recur usecs label`) and the "summed over all the classes" method section
 * (`excl incl pct pct calls+recur [i] label`). Methods with zero time are not printed by it.
 */
export function parseDmtraceProfile(text: string): Map<string, ProfiledMethod> {
  const out = new Map<string, ProfiledMethod>()
  const get = (label: string): ProfiledMethod => {
    let entry = out.get(label)
    if (entry === undefined) {
      entry = {}
      out.set(label, entry)
    }
    return entry
  }
  const inclStart = text.indexOf('Inclusive elapsed times for each method')
  const classStart = text.indexOf('Exclusive elapsed time for each class')
  const methodStart = text.indexOf('Exclusive elapsed time for each method, summed')
  if (inclStart < 0) throw new Error(`no profile in dmtracedump output:\n${text.slice(0, 500)}`)
  for (const line of text.slice(inclStart, classStart < 0 ? undefined : classStart).split('\n')) {
    const m = /^\[(\d+)\]\s+[\d.]+%\s+(\d+)\+(\d+)\s+(\d+) (.+)$/.exec(line)
    if (m === null || m[5] === '(toplevel)') continue
    const entry = get(m[5] ?? '')
    entry.calls = Number(m[2]) + Number(m[3])
    entry.inclusiveUs = Number(m[4])
  }
  if (methodStart >= 0) {
    for (const line of text.slice(methodStart).split('\n')) {
      const m = /^\s*(\d+)\s+(\d+)\s+[\d.]+\s+[\d.]+\s+(\d+)\+(\d+)\s+\[\d+\] (.+)$/.exec(line)
      if (m === null) continue
      const entry = get(m[5] ?? '')
      entry.exclusiveUs = Number(m[1])
      entry.inclusiveUs = Number(m[2])
      entry.calls = Number(m[3]) + Number(m[4])
    }
  }
  return out
}

/** Splits bytes into chunks of `size`. */
export function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let i = 0; i < bytes.byteLength; i += size) out.push(bytes.subarray(i, i + size))
  return out
}

export const METHODS: readonly ArtMethodInput[] = [
  {
    id: 0x1000,
    className: 'com/example/App',
    name: 'onClick',
    signature: '(Landroid/view/View;)V',
    file: 'App.java',
    line: 12,
  },
  {
    id: 0x1004,
    className: 'com/example/Net',
    name: 'fetch',
    signature: '()[B',
    file: 'Net.java',
    line: 40,
  },
  {
    id: 0x1008,
    className: 'com/example/Json',
    name: 'parse',
    signature: '([B)Ljava/lang/Object;',
    file: 'Json.java',
    line: 7,
  },
  {
    id: 0x100c,
    className: 'com/example/Json',
    name: 'value',
    signature: '(I)Ljava/lang/Object;',
    file: 'Json.java',
    line: 30,
  },
  {
    id: 0x1010,
    className: 'java/lang/Throwable',
    name: '<init>',
    signature: '()V',
    file: 'Throwable.java',
    line: 83,
  },
  {
    id: 0x1014,
    className: 'com/example/Db',
    name: 'query',
    signature: '(Ljava/lang/String;)I',
    file: 'Db.java',
  },
  { id: 0x1018, className: 'com/example/Start', name: 'run', signature: '()V' },
]

export const THREADS: readonly ArtThread[] = [
  { id: 1, name: 'main' },
  { id: 7, name: 'AsyncTask #1' },
  { id: 12, name: 'Binder:123_2' },
]

type Step = readonly [
  tid: number,
  action: ArtAction,
  methodIndex: number,
  dtCpu: number,
  dtWall: number,
]

/**
 * A hand-written scenario exercising everything dmtracedump handles: a call open at trace start
 * (exit without enter), nesting, direct and indirect recursion, unwinding, two interleaved
 * threads, and calls still open at the end.
 */
const STEPS: readonly Step[] = [
  [1, 'exit', 6, 3, 5], // Start.run was open when tracing started
  [1, 'enter', 0, 2, 2],
  [1, 'enter', 1, 4, 9],
  [7, 'enter', 5, 1, 1],
  [1, 'exit', 1, 30, 400],
  [1, 'enter', 2, 2, 3],
  [1, 'enter', 3, 5, 6],
  [7, 'exit', 5, 11, 20],
  [1, 'enter', 3, 4, 4], // recursion
  [1, 'enter', 2, 2, 2], // indirect recursion parse -> value -> value -> parse
  [1, 'enter', 4, 3, 3],
  [1, 'exit', 4, 6, 7],
  [1, 'unwind', 2, 1, 1],
  [1, 'unwind', 3, 1, 1],
  [1, 'exit', 3, 2, 2],
  [1, 'exit', 2, 7, 8],
  [12, 'enter', 5, 2, 2],
  [1, 'exit', 0, 3, 3],
  [12, 'enter', 3, 4, 4],
  [12, 'exit', 3, 5, 5],
  [1, 'enter', 5, 2, 2], // open at the end
  [12, 'enter', 2, 1, 9], // open at the end, nested in the open Db.query
]

/** The scenario as writer input for a clock; times accumulate per thread (cpu) / globally (wall). */
/** Writer input whose records are an array. */
export type Scenario = ArtTraceWriteInput & { readonly records: readonly ArtTraceRecord[] }

export function scenario(
  clock: ArtClock,
  overrides: Omit<Partial<ArtTraceWriteInput>, 'records'> = {},
): Scenario {
  const cpu = new Map<number, number>()
  let wall = 100
  const records: ArtTraceRecord[] = STEPS.map(([tid, action, index, dtCpu, dtWall]) => {
    const method = METHODS[index]
    if (method === undefined) throw new Error('bad scenario')
    const threadCpu = (cpu.get(tid) ?? -dtCpu) + dtCpu
    cpu.set(tid, threadCpu)
    wall += dtWall
    return {
      threadId: tid,
      methodId: method.id,
      action,
      ...(clock !== 'wall' ? { threadCpuUs: threadCpu } : {}),
      ...(clock !== 'thread-cpu' ? { wallUs: wall } : {}),
    }
  })
  return {
    clock,
    threads: THREADS,
    methods: METHODS,
    records,
    pid: 4321,
    startTimeUs: 1_700_000_000_000,
    elapsedTimeUs: wall + 50,
    ...overrides,
  }
}

/**
 * dmtracedump's label for a method: `class.name signature`. Quirk: dmtracedump splits off file
 * and line only when both are present, so for ART's 5-column lines (no line number) the
 * "signature" it prints is `signature<TAB>file`.
 */
export function dmLabel(m: {
  readonly className: string
  readonly name: string
  readonly signature: string
  readonly file?: string
  readonly line?: number
}): string {
  const sig =
    m.file !== undefined && m.line === undefined ? `${m.signature}\t${m.file}` : m.signature
  return `${m.className}.${m.name} ${sig}`
}

export function labelOf(methodId: number, methods: readonly ArtMethodInput[] = METHODS): string {
  const m = methods.find((x) => x.id === methodId)
  if (m === undefined) throw new Error(`no method ${methodId}`)
  return dmLabel(m)
}

/** Every record layout a writer can produce: version, clock, and the streaming format or not. */
export const LAYOUTS: ReadonlyArray<{
  readonly version: 1 | 2 | 3
  readonly clock: ArtClock
  readonly streaming: boolean
}> = [
  { version: 1, clock: 'wall', streaming: false },
  { version: 1, clock: 'thread-cpu', streaming: false },
  { version: 2, clock: 'wall', streaming: false },
  { version: 2, clock: 'thread-cpu', streaming: true },
  { version: 3, clock: 'dual', streaming: false },
  { version: 3, clock: 'dual', streaming: true },
  { version: 3, clock: 'wall', streaming: true },
]
