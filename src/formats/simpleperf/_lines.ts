/**
 * Line splitting for report-sample text: the batterystats splitter, so that every text format
 * of the project reads line ends the same way (`\n`, `\r\n`, `\r\r\n` from a Windows `adb shell
 * … > file`, any run of CRs before a LF, a lone `\r`) and the one-shot parser and the chunked
 * decoder see the same lines whatever the chunking. It keeps at most `maxLength + 1` characters
 * of a line, joining a line's pieces once at its end: linear and bounded however text arrives.
 *
 * It lives in `../batterystats/_lines.ts` for now; it belongs in `src/formats/` once both
 * folders' owners move it there.
 */
export { LineSplitter, splitLines, stripCrs } from '../batterystats/_lines.js'
