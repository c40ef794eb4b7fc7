import { splitLines } from './_lines.js'

/**
 * Which batterystats output a text is, from its first non-empty line; `null` when neither. A
 * bugreport (`=…=` then `== dumpstate: …`) is `history`: the history parser reads its
 * `DUMP OF SERVICE batterystats:` section.
 */
export function sniffBatterystats(text: string): 'checkin' | 'history' | null {
  let seen = 0
  let banner = false
  for (const line of splitLines(text)) {
    if (++seen > 50) break
    if (line.trim() === '') continue
    if (banner) return /^== dumpstate: /.test(line) ? 'history' : null
    if (/^\d+,(?:[^,]+,[a-z]+,[A-Za-z_]+(?:,|$)|h(?:sp)?,)/.test(line)) return 'checkin'
    if (/^Battery History\b/.test(line) || /^\s+(0|[-+][0-9dhms]+)( \(\d+\))? /.test(line)) {
      return 'history'
    }
    if (!/^=+$/.test(line)) return null
    banner = true
  }
  return null
}
