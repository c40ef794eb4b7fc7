/**
 * `npm run bench:art-trace [-- --quick]`: ART method trace throughput.
 *
 * 1. Generates a ≥ 500 MB dual-clock trace (--quick: ~20 MB) into a temp file with
 *    `ArtTraceEncoder` and reports records/s.
 * 2. Reads it back in a child process (so peak RSS is the reader's own): decode-only records/s
 *    with a no-op visitor, then the dmtracedump-style summary in one streaming pass, with
 *    `process.resourceUsage().maxRSS`.
 * 3. The read floor (issue 29): a child that only reads the same file in 1 MiB chunks
 *    (`readSync`, bytes untouched), started exactly like the summary's child, alternated with the
 *    summary `--rounds` times (default 3; --quick: 2); medians of both, in-process and as whole
 *    processes, and the summary's time as a ratio to the floor. A plain `node` process reading
 *    the file (no tsx loader) is timed too, as the floor of a whole process.
 * 4. Runs the Debian `dmtracedump` and our summary on the same 2 M-record (~28 MB) file
 *    (--quick: 200 k) and prints the time ratio.
 * Targets: ≥ 25 M records/s decode on one core, peak RSS ≤ 256 MB, the summary ≤ 4× the read
 * floor, ≥ 100× faster than dmtracedump.
 * Temp files are deleted at the end. Figures are what this machine measured, good or bad.
 */
import { spawnSync } from 'node:child_process'
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import os, { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  ArtTraceDecoder,
  ArtTraceEncoder,
  ArtTraceSummarizer,
} from '../src/formats/art-trace/index.js'

const DMTRACEDUMP = '/usr/bin/dmtracedump'
const METHODS = 2000
const THREADS = 4
const MAX_DEPTH = 40
const CHUNK = 1 << 20

/** Writes a well-nested random dual-clock trace of exactly `records` records. */
function generate(
  file: string,
  records: number,
): { seconds: number; cpuSeconds: number; bytes: number } {
  const fd = openSync(file, 'w')
  const started = process.hrtime.bigint()
  const cpu0 = process.cpuUsage()
  const encoder = new ArtTraceEncoder({
    clock: 'dual',
    version: 3,
    threads: Array.from({ length: THREADS }, (_, i) => ({ id: i + 1, name: `worker-${i + 1}` })),
    methods: Array.from({ length: METHODS }, (_, i) => ({
      id: (i + 1) << 2,
      className: `com/example/gen/C${i % 97}`,
      name: `m${i}`,
      signature: '()V',
      file: `C${i % 97}.java`,
    })),
    pid: 4242,
    startTimeUs: 1_000_000,
    elapsedTimeUs: records,
    numRecords: records,
    onChunk: (chunk) => {
      writeSync(fd, chunk)
    },
  })
  const stacks = Array.from({ length: THREADS }, () => new Int32Array(MAX_DEPTH))
  const depth = new Int32Array(THREADS)
  const cpu = new Float64Array(THREADS)
  let open = 0
  let wall = 0
  let seed = 0x2545f491
  let tid = 0
  for (let n = 0; n < records; n++) {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    const r = seed >>> 0
    if ((n & 63) === 0) tid = (r >>> 8) % THREADS
    const remaining = records - n
    let t = tid
    if (remaining <= open) {
      // Close everything that is still open so the file ends well-nested.
      while ((depth[t] ?? 0) === 0) t = (t + 1) % THREADS
    }
    const d = depth[t] ?? 0
    const stack = stacks[t] ?? new Int32Array(0)
    const enter = remaining > open + 1 && (d === 0 || (d < MAX_DEPTH && (r & 1) === 0))
    cpu[t] = (cpu[t] ?? 0) + 1 + (r & 7)
    wall += 1 + ((r >>> 3) & 3)
    if (enter) {
      // Each method calls one of 4 fixed callees (a realistic, small fan-out).
      const caller = d === 0 ? (r >>> 5) % METHODS : (stack[d - 1] ?? 0)
      const callee = (caller * 7 + ((r >>> 11) & 3) + 1) % METHODS
      stack[d] = callee
      depth[t] = d + 1
      open++
      encoder.record(t + 1, (callee + 1) << 2, 0, cpu[t] ?? 0, wall)
    } else {
      const m = stack[d - 1] ?? 0
      depth[t] = d - 1
      open--
      encoder.record(t + 1, (m + 1) << 2, 1, cpu[t] ?? 0, wall)
    }
  }
  encoder.finish()
  closeSync(fd)
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const used = process.cpuUsage(cpu0)
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6, bytes: statSync(file).size }
}

function* chunksOfFile(
  file: string,
  buffer: Uint8Array = new Uint8Array(CHUNK),
): Generator<Uint8Array> {
  const fd = openSync(file, 'r')
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.byteLength, null)
      if (n === 0) return
      yield buffer.subarray(0, n)
    }
  } finally {
    closeSync(fd)
  }
}

/**
 * The read floor as a stand-alone ES module for `node --input-type=module -e` (no tsx): the same
 * 1 MiB `readSync` loop as `chunksOfFile`, bytes untouched.
 */
const PLAIN_FLOOR = `import { openSync, readSync, closeSync } from 'node:fs'
const fd = openSync(process.argv[1], 'r')
const buffer = new Uint8Array(${CHUNK})
let bytes = 0
for (let n; (n = readSync(fd, buffer, 0, ${CHUNK}, null)) > 0; ) bytes += n
closeSync(fd)
console.log(bytes)`

/** Child mode: `--child <floor|decode|summarize> <file>` prints one JSON line. */
function child(mode: string, file: string): void {
  const started = process.hrtime.bigint()
  const cpu0 = process.cpuUsage()
  let records = 0
  if (mode === 'floor') {
    // The read floor: the same chunks, nothing done with the bytes.
    let bytes = 0
    for (const chunk of chunksOfFile(file)) bytes += chunk.byteLength
    records = bytes
  } else if (mode === 'decode') {
    let sink = 0
    const decoder = new ArtTraceDecoder({
      onRecord: (_tid, _method, action) => {
        sink += action
        records++
      },
    })
    for (const chunk of chunksOfFile(file)) decoder.push(chunk)
    decoder.end()
    if (sink < 0) console.log('unreachable')
  } else {
    // As `vitest-energy trace` does: the same 1 MiB readSync chunks, read into the summarizer's
    // own memory (`readBuffer`), where its WebAssembly kernel summarizes them without a copy.
    const summarizer = new ArtTraceSummarizer()
    const decoder = new ArtTraceDecoder({ onRecord: summarizer.visitor })
    if (summarizer.readBuffer.byteLength !== CHUNK) throw new Error('readBuffer is not 1 MiB')
    for (const chunk of chunksOfFile(file, summarizer.readBuffer)) decoder.push(chunk)
    const summary = summarizer.finish(decoder.end(), decoder.recordClock)
    if (summary.methods.length === 0) throw new Error('empty summary')
    records = decoder.recordCount
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const cpu = process.cpuUsage(cpu0)
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  const maxRssMB = process.resourceUsage().maxRSS / 1024
  console.log(JSON.stringify({ mode, records, seconds, cpuSeconds, maxRssMB }))
}

interface ChildResult {
  readonly mode: string
  /** Records decoded (`floor`: bytes read). */
  readonly records: number
  readonly seconds: number
  /** User + system CPU time of the work (the machine may be shared: wall time then overstates). */
  readonly cpuSeconds: number
  readonly maxRssMB: number
  readonly processSeconds: number
}

function runChild(mode: string, file: string): ChildResult {
  const self = fileURLToPath(import.meta.url)
  const started = process.hrtime.bigint()
  const run = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', mode, file], {
    encoding: 'utf8',
  })
  const processSeconds = Number(process.hrtime.bigint() - started) / 1e9
  if (run.status !== 0) throw new Error(`child ${mode} failed: ${run.stderr}`)
  const line = run.stdout.trim().split('\n').pop() ?? '{}'
  return { ...(JSON.parse(line) as Omit<ChildResult, 'processSeconds'>), processSeconds }
}

/** Whole-process seconds of a plain `node` (no tsx loader) reading `file` in 1 MiB chunks. */
function plainFloor(file: string): number {
  const started = process.hrtime.bigint()
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', PLAIN_FLOOR, file], {
    encoding: 'utf8',
  })
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  if (run.status !== 0) throw new Error(`plain floor failed: ${run.stderr}`)
  return seconds
}

const fmt = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 1 })

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name)
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} takes a positive integer`)
  return value
}

function main(): void {
  const quick = process.argv.includes('--quick')
  const bigRecords = quick ? 1_500_000 : 38_000_000 // × 14 B = 21 MB / 532 MB
  const compareRecords = quick ? 200_000 : 2_000_000
  const dir = mkdtempSync(join(tmpdir(), 'bench-art-trace-'))
  try {
    const big = join(dir, 'big.trace')
    const gen = generate(big, bigRecords)
    const rate = (n: number, seconds: number): string => `${fmt(n / seconds / 1e6)} M records/s`
    console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg()[0]?.toFixed(1)}`)
    console.log(
      `generate: ${fmt(bigRecords)} records, ${fmt(gen.bytes / 1e6)} MB: ${rate(bigRecords, gen.seconds)} wall, ${rate(bigRecords, gen.cpuSeconds)} per CPU-second (target ≥ 5 M/s)`,
    )
    const decode = runChild('decode', big)
    console.log(
      `decode (no-op visitor, 1 MiB chunks from the file): ${rate(decode.records, decode.seconds)} wall, ${rate(decode.records, decode.cpuSeconds)} per CPU-second, peak RSS ${fmt(decode.maxRssMB)} MB`,
    )
    // The read floor and the summary side by side, alternated so that load changes hit both.
    const rounds = option('--rounds', quick ? 2 : 3)
    const floors: ChildResult[] = []
    const summaries: ChildResult[] = []
    const plain: number[] = []
    for (let round = 0; round < rounds; round++) {
      const floor = runChild('floor', big)
      if (floor.records !== gen.bytes) throw new Error(`floor read ${floor.records} bytes`)
      floors.push(floor)
      summaries.push(runChild('summarize', big))
      plain.push(plainFloor(big))
      const f = floors[round]
      const m = summaries[round]
      if (f !== undefined && m !== undefined) {
        console.log(
          `  round ${round + 1}/${rounds}: floor ${f.seconds.toFixed(3)} s in-process / ${f.processSeconds.toFixed(3)} s process; summary ${m.seconds.toFixed(3)} s / ${m.processSeconds.toFixed(3)} s; plain node floor ${plain[round]?.toFixed(3)} s process`,
        )
      }
    }
    const floorIn = median(floors.map((r) => r.seconds))
    const floorProcess = median(floors.map((r) => r.processSeconds))
    const floorRss = Math.max(...floors.map((r) => r.maxRssMB))
    const plainProcess = median(plain)
    const sumIn = median(summaries.map((r) => r.seconds))
    const sumCpu = median(summaries.map((r) => r.cpuSeconds))
    const sumProcess = median(summaries.map((r) => r.processSeconds))
    const sumRss = Math.max(...summaries.map((r) => r.maxRssMB))
    const records = summaries[0]?.records ?? 0
    console.log(
      `read floor (1 MiB readSync chunks, bytes untouched, child started like the summary's): ${floorIn.toFixed(3)} s in-process (${fmt(gen.bytes / floorIn / 1e6)} MB/s), ${floorProcess.toFixed(3)} s whole process, peak RSS ${fmt(floorRss)} MB; plain node process (no tsx): ${plainProcess.toFixed(3)} s (medians of ${rounds})`,
    )
    console.log(
      `summarize (dmtracedump-style profile, one streaming pass): ${sumIn.toFixed(3)} s in-process = ${rate(records, sumIn)} wall, ${rate(records, sumCpu)} per CPU-second, ${sumProcess.toFixed(3)} s whole process, peak RSS ${fmt(sumRss)} MB (targets ≤ 4× the read floor, ≤ 256 MB)`,
    )
    console.log(
      `summary / read floor: ${(sumIn / floorIn).toFixed(2)}× in-process, ${(sumProcess / floorProcess).toFixed(2)}× whole processes started alike, ${(sumProcess / plainProcess).toFixed(2)}× against the plain node process (target ≤ 4×)`,
    )
    rmSync(big)

    const small = join(dir, 'compare.trace')
    const cmp = generate(small, compareRecords)
    if (!existsSync(DMTRACEDUMP)) {
      console.log(`dmtracedump: ${DMTRACEDUMP} not installed, comparison skipped`)
      return
    }
    // bash's `time` gives dmtracedump's own CPU time; its profile goes to /dev/null.
    const started = process.hrtime.bigint()
    const dm = spawnSync(
      'bash',
      ['-c', `TIMEFORMAT='%U %S'; time ${DMTRACEDUMP} "$1" > /dev/null`, 'bash', small],
      { encoding: 'utf8' },
    )
    const dmSeconds = Number(process.hrtime.bigint() - started) / 1e9
    if (dm.status !== 0) throw new Error(`dmtracedump failed: ${dm.stderr}`)
    const [user = 0, sys = 0] = (dm.stderr.trim().split('\n').pop() ?? '').split(' ').map(Number)
    const dmCpuSeconds = user + sys
    const ours = runChild('summarize', small)
    console.log(
      `compare on ${fmt(compareRecords)} records (${fmt(cmp.bytes / 1e6)} MB): dmtracedump ${dmSeconds.toFixed(3)} s wall / ${dmCpuSeconds.toFixed(3)} s CPU; ours ${ours.seconds.toFixed(3)} s wall / ${ours.cpuSeconds.toFixed(3)} s CPU in-process (${ours.processSeconds.toFixed(3)} s wall as a process incl. Node+tsx start-up)`,
    )
    console.log(
      `ratio (dmtracedump / ours): ${fmt(dmSeconds / ours.seconds)}× wall, ${fmt(dmCpuSeconds / ours.cpuSeconds)}× CPU, ${fmt(dmSeconds / ours.processSeconds)}× whole processes (target ≥ 100×)`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const at = process.argv.indexOf('--child')
if (at >= 0) child(process.argv[at + 1] ?? 'decode', process.argv[at + 2] ?? '')
else main()
