/**
 * Line splitting shared by the batterystats parsers, one-shot and streaming alike, so both see the
 * same lines whatever the chunking.
 *
 * Line ends: `\n`, `\r\n`, `\r\r\n` (what `adb shell dumpsys batterystats > file` writes on
 * Windows: the device's CRLF with the host's CR added), any run of CRs before a LF, and a lone
 * `\r` (a run of k CRs not followed by LF ends k lines). Text after the last line end is a line
 * only when it is not empty.
 *
 * A line is kept as a list of chunk pieces joined once at its end (linear in the line's length
 * however it is chunked), and at most `maxLength + 1` characters of it are kept: a longer line
 * comes out cut to `maxLength + 1` characters.
 */

const CR = 13
const LF = 10

/** Push-style splitter: `push(chunk)` returns the lines completed so far, `end()` the last one. */
export class LineSplitter {
  private parts: string[] = []
  /** Characters kept in `parts` (at most `maxLength + 1`). */
  private kept = 0
  /** CRs seen after the current line, not yet known to be one `\r…\r\n` or several lone `\r`. */
  private crs = 0

  constructor(private readonly maxLength: number = Number.POSITIVE_INFINITY) {}

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
export function* splitLines(
  text: string,
  maxLength: number = Number.POSITIVE_INFINITY,
): Generator<string> {
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
