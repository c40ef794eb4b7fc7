/** Which batterystats output a text is, from its first non-empty line; `null` when neither. */
export function sniffBatterystats(text: string): 'checkin' | 'history' | null {
  for (const raw of text.split('\n', 50)) {
    const line = raw.replace(/\r$/, '')
    if (line.trim() === '') continue
    if (/^\d+,[^,]+,[a-z]+,[A-Za-z_]+(,|$)/.test(line)) return 'checkin'
    if (/^Battery History\b/.test(line) || /^\s+(0|[-+][0-9dhms]+)( \(\d+\))? /.test(line)) {
      return 'history'
    }
    return null
  }
  return null
}
