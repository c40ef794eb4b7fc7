/**
 * Names what a text that is not report-sample output looks like, from its first non-blank line,
 * so the error says what the user passed. Shapes: AOSP simpleperf `scripts/report_sample.py` (and
 * Linux `perf script`): `comm\ttid [cpu] secs.usecs: period event:` per sample, optionally after a
 * `# ========` / `# cmdline : …` header block (corpus `*.perf-script`, firefoxprofiler
 * `simple-perf.txt`); `simpleperf debug-unwind` reports (`sample_time: …`); folded stacks
 * (`a;b;c 123`, `scripts/stackcollapse.py`); JSON (Gecko profile from `gecko_profile_generator.py`);
 * an ART method trace.
 */

/** Text `report_sample.py` / `perf script` prints: refused with its own error code. */
const PERF_SCRIPT_SAMPLE = /^\S.*?\s\d+(?:\/\d+)?\s+\[\d+\]\s+\d+\.\d+:\s+(?:\d+\s+)?\S+:\s*$/
const PERF_SCRIPT_HEADER = /^# (?:=+|cmdline :.*)$/

/** True when `line` (the first non-blank line) is perf-script text. */
export function isPerfScriptLine(line: string): boolean {
  return PERF_SCRIPT_HEADER.test(line) || PERF_SCRIPT_SAMPLE.test(line)
}

/** A short description of other known shapes, for the error message; undefined if unknown. */
export function describeOtherText(line: string): string | undefined {
  if (line.startsWith('PERFILE2')) return 'a raw perf.data recording'
  if (line.startsWith('SIMPLEPERF')) return 'report-sample *protobuf* (magic SIMPLEPERF)'
  if (/^sample_time: \d+$/.test(line)) return 'a `simpleperf debug-unwind` report'
  if (line.startsWith('*version') || line.startsWith('SLOW')) return 'an ART method trace'
  if (/^\s*[{[]/.test(line)) return 'JSON (a Gecko / Firefox Profiler profile?)'
  if (/^[^\s;][^;]*(?:;[^;]+)* \d+$/.test(line)) return 'folded stacks (`frame;frame;… count`)'
  return undefined
}
