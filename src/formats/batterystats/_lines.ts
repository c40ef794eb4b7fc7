/**
 * Line splitting shared by the batterystats parsers, one-shot and streaming alike, so both see the
 * same lines whatever the chunking.
 *
 * Line ends: `\n`, `\r\n`, `\r\r\n` (what `adb shell dumpsys batterystats > file` writes on
 * Windows: the device's CRLF with the host's CR added), any run of CRs before a LF, and a lone
 * `\r` (a run of k CRs not followed by LF ends k lines). Text after the last line end is a line
 * only when it is not empty.
 *
 * Memory is bounded and time linear however the text is chunked: a line is kept as a list of chunk
 * pieces joined once at its end, and at most `maxLength + 1` characters of it are kept. A longer
 * line comes out cut to `maxLength + 1` characters, so a reader sees that it is too long
 * (`line.length > maxLength`) in both modes and can refuse it or pass over it.
 */
import { EnergyError } from '../../model/errors.js'
import { BatterystatsErrors } from './errors.js'

/** Longest line the batterystats parsers read: 1 MiB of characters (the terminator excluded). */
export const MAX_LINE_LENGTH = 1024 * 1024

const CR = 13
const LF = 10

/** Push-style splitter: `push(chunk)` returns the lines completed so far, `end()` the last one. */
export class LineSplitter {
  private parts: string[] = []
  /** Characters kept in `parts` (at most `maxLength + 1`). */
  private kept = 0
  /** CRs seen after the current line, not yet known to be one `\r…\r\n` or several lone `\r`. */
  private crs = 0

  constructor(private readonly maxLength: number = MAX_LINE_LENGTH) {}

  push(chunk: string): string[] {
    const out: string[] = []
    const n = chunk.length
    let i = 0
    while (i < n) {
      if (this.crs > 0) {
        const c = chunk.charCodeAt(i)
        if (c === CR) {
          this.crs++
          i++
        } else if (c === LF) {
          this.crs = 0
          out.push(this.take())
          i++
        } else this.loneCrs(out)
        continue
      }
      let j = i
      while (j < n) {
        const c = chunk.charCodeAt(j)
        if (c === CR || c === LF) break
        j++
      }
      this.append(chunk, i, j)
      if (j === n) break
      if (chunk.charCodeAt(j) === LF) out.push(this.take())
      else this.crs = 1
      i = j + 1
    }
    return out
  }

  end(): string[] {
    const out: string[] = []
    if (this.crs > 0) this.loneCrs(out)
    else if (this.kept > 0) out.push(this.take())
    return out
  }

  /** A run of CRs not followed by LF: each ends a line (the first ends the current one). */
  private loneCrs(out: string[]): void {
    out.push(this.take())
    for (let k = 1; k < this.crs; k++) out.push('')
    this.crs = 0
  }

  private append(chunk: string, from: number, to: number): void {
    const room = this.maxLength + 1 - this.kept
    const end = Math.min(to, from + room)
    if (end <= from) return
    this.parts.push(chunk.slice(from, end))
    this.kept += end - from
  }

  private take(): string {
    const line = this.parts.length === 1 ? (this.parts[0] ?? '') : this.parts.join('')
    this.parts = []
    this.kept = 0
    return line
  }
}

/** The lines of a whole text, by the same rules as `LineSplitter` (lazily, 64 KiB at a time). */
export function* splitLines(text: string, maxLength: number = MAX_LINE_LENGTH): Generator<string> {
  const splitter = new LineSplitter(maxLength)
  const step = 64 * 1024
  for (let i = 0; i < text.length; i += step) yield* splitter.push(text.slice(i, i + step))
  yield* splitter.end()
}

/** A line as given by a caller (`text.split('\n')`): without its trailing CRs. */
export function stripCrs(line: string): string {
  let end = line.length
  while (end > 0 && line.charCodeAt(end - 1) === CR) end--
  return end === line.length ? line : line.slice(0, end)
}

/**
 * The error for a line longer than `MAX_LINE_LENGTH`, the same in one-shot and streaming mode (so
 * it does not say how long: a streamed line is only kept up to the limit).
 */
export function lineTooLong(format: string, line: number): EnergyError {
  return new EnergyError({
    code: BatterystatsErrors.LINE_TOO_LONG,
    message: `line ${line} is longer than ${MAX_LINE_LENGTH} characters (1 MiB)`,
    hint: 'This is not batterystats text, or its line breaks were lost: capture `adb shell dumpsys batterystats` again and pass it unmodified.',
    details: { format, line, limit: MAX_LINE_LENGTH },
  })
}
