import { splitLines } from './_lines.js'

/** Which batterystats output a text is, from its first non-empty line; `null` when neither. */
export function sniffBatterystats(text: string): 'checkin' | 'history' | null {
  let seen = 0
  for (const line of splitLines(text)) {
    if (++seen > 50) break
    if (line.trim() === '') continue
    if (/^\d+,[^,]+,[a-z]+,[A-Za-z_]+(,|$)/.test(line)) return 'checkin'
    if (/^Battery History\b/.test(line) || /^\s+(0|[-+][0-9dhms]+)( \(\d+\))? /.test(line)) {
      return 'history'
    }
    return null
  }
  return null
}
