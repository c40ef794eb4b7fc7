/**
 * `vitest-energy trace <file>`: per-method inclusive/exclusive times of an ART method trace, the
 * numbers `dmtracedump` prints, as a table or as JSON. Reads the file in chunks (constant memory),
 * so traces larger than memory work; the parsing itself stays in src/formats/art-trace.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { resolve } from 'node:path'
import {
  ArtTraceDecoder,
  ArtTraceErrors,
  ArtTraceSummarizer,
  selectThreads,
  type ArtMethodSummary,
  type ArtTraceInfo,
  type ArtTraceSummary,
} from '../../formats/art-trace/index.js'
import { EnergyError } from '../../model/index.js'
import type { CliCommand } from '../_command.js'
import { parseCommandArgs, usageError } from '../_args.js'

const usage = `Usage: vitest-energy trace <file.trace> [options]

Per-method call counts and inclusive/exclusive times (µs) of an ART method trace
(am profile start / Debug.startMethodTracing; legacy v1-v3 and --streaming files),
computed like dmtracedump.

Options:
  --format <name>   table (default) | json
  --thread <name>   only this thread (name or numeric id)
  --top <n>         table rows to show (default 30; json always lists every method)
`

const CHUNK_BYTES = 1 << 20

export const traceCommand: CliCommand = {
  name: 'trace',
  summary: 'per-method times of an ART method trace (like dmtracedump)',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      allowPositionals: true,
      options: {
        format: { type: 'string', default: 'table' },
        thread: { type: 'string' },
        top: { type: 'string', default: '30' },
      },
    })
    if (positionals.length !== 1 || positionals[0] === undefined) {
      throw usageError('expected exactly one <file.trace>')
    }
    const format = values.format
    if (format !== 'json' && format !== 'table') {
      throw usageError(`unknown format '${format}' (use table | json)`)
    }
    const top = Number(values.top)
    if (!Number.isInteger(top) || top < 1) throw usageError(`--top must be a positive integer`)
    const file = resolve(io.cwd, positionals[0])
    let only: ReadonlySet<number> | undefined
    if (values.thread !== undefined) {
      // The thread table may come after the records (streaming), so read it in a first pass.
      const header = decodeFile(file, new ArtTraceDecoder())
      only = selectThreads(header.threads, values.thread)
    }
    const summarizer = new ArtTraceSummarizer(only)
    const decoder = new ArtTraceDecoder({ onRecord: summarizer.visitor })
    // Read straight into the summarizer's memory: its records are summarized without a copy.
    const info = decodeFile(file, decoder, summarizer.readBuffer)
    const summary = summarizer.finish(info, decoder.recordClock)
    for (const warning of info.warnings) io.err(`warning: ${warning}\n`)
    if (format === 'json') {
      io.out(`${JSON.stringify(summary, null, 2)}\n`)
    } else {
      io.out(renderTraceTable(summary, info, decoder.recordCount, top))
    }
    return 0
  },
}

function decodeFile(
  file: string,
  decoder: ArtTraceDecoder,
  buffer: Uint8Array = new Uint8Array(CHUNK_BYTES),
): ArtTraceInfo {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch (error) {
    throw unreadable(file, error instanceof Error ? error.message : String(error), error)
  }
  try {
    // Opening a directory succeeds on Linux; only the first read would fail (EISDIR).
    if (fstatSync(fd).isDirectory()) throw unreadable(file, 'it is a directory, not a trace file')
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.byteLength, null)
      if (n === 0) break
      decoder.push(buffer.subarray(0, n))
    }
    return decoder.end()
  } finally {
    closeSync(fd)
  }
}

function unreadable(file: string, why: string, cause?: unknown): EnergyError {
  return new EnergyError({
    code: ArtTraceErrors.FILE_UNREADABLE,
    message: `cannot read '${file}': ${why}`,
    hint: 'Check the path; pull the trace first with `adb pull /data/local/tmp/<name>.trace`.',
    details: { format: 'ART trace' },
    ...(cause === undefined ? {} : { cause }),
  })
}

/** Pure: the table `vitest-energy trace` prints. */
export function renderTraceTable(
  summary: ArtTraceSummary,
  info: ArtTraceInfo,
  recordCount: number,
  top: number,
): string {
  const lines: string[] = []
  const vm = info.vm === undefined ? '' : `, vm=${info.vm}`
  lines.push(
    `ART trace: ${info.layout} v${info.version}, clock=${info.clock}${vm}, ${recordCount} records, ${summary.threads.length} threads, ${summary.methods.length} methods`,
  )
  if (info.elapsedTimeUs !== undefined) lines.push(`elapsed: ${info.elapsedTimeUs} µs`)
  if (info.overflow) {
    lines.push(
      'WARNING: data-file-overflow=true: the buffer filled, the end of the trace is missing',
    )
  }
  lines.push('')
  const cols = ['calls', 'incl cpu µs', 'excl cpu µs', 'incl wall µs', 'excl wall µs']
  lines.push(`${cols.map((c) => c.padStart(12)).join(' ')}  method`)
  const cell = (v: number | null): string => (v === null ? '-' : String(v)).padStart(12)
  const shown = summary.methods.slice(0, top)
  for (const m of shown) {
    lines.push(
      `${cell(m.calls)} ${cell(m.inclusiveCpuUs)} ${cell(m.exclusiveCpuUs)} ${cell(m.inclusiveWallUs)} ${cell(m.exclusiveWallUs)}  ${methodLabel(m)}`,
    )
  }
  if (summary.methods.length > shown.length) {
    lines.push(`… ${summary.methods.length - shown.length} more (--top, or --format json)`)
  }
  lines.push('')
  return lines.join('\n')
}

function methodLabel(m: ArtMethodSummary): string {
  const cls = m.className.replaceAll('/', '.')
  return m.name === '' ? `${cls} [${m.id}]` : `${cls}.${m.name} ${m.signature}`
}
