/**
 * The text key section (`*version`, key=value lines, `*threads`, `*methods`, `*end`), fed one line
 * at a time so the streaming decoder and the streaming summary packet share it.
 *
 * Reference: AOSP art/tools/dmtracedump/tracedump.cc (parseVersion/parseThreads/parseMethods,
 * GrapheneOS/platform_art@0a12631f) and VmTraceParser's method-line rules as kept by Perfetto
 * (google/perfetto@0e7ca5e2 src/trace_processor/importers/art_method/art_method_tokenizer.cc,
 * ParseMethodLine): 6 fields = id class name signature file line; more than 2 fields with field 4
 * starting with `(` = id class name signature [file]; otherwise the old id class file line.
 */
import { EnergyError } from '../../model/index.js'
import { ArtTraceErrors } from './errors.js'
import type { ArtMethod, ArtThread } from './types.js'

const FORMAT = 'ART trace'

type Section = 'start' | 'version' | 'keys' | 'threads' | 'methods' | 'end'

export class KeySectionParser {
  section: Section = 'start'
  textVersion = 0
  readonly keys: Record<string, string> = {}
  readonly threads: ArtThread[] = []
  readonly methods: ArtMethod[] = []

  /** `offset` = byte offset of the line in the file (for errors). Returns true after `*end`. */
  line(raw: string, offset: number): boolean {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    switch (this.section) {
      case 'start':
        if (text !== '*version') throw bad(`expected '*version', found '${clip(text)}'`, offset)
        this.section = 'version'
        return false
      case 'version': {
        const v = Number(text.trim())
        if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(v)) {
          throw bad(`version line '${clip(text)}' is not a number`, offset)
        }
        this.textVersion = v
        this.section = 'keys'
        return false
      }
      case 'keys':
        if (text === '*threads') {
          this.section = 'threads'
          return false
        }
        if (text.startsWith('*')) throw bad(`expected '*threads', found '${clip(text)}'`, offset)
        if (text.trim() === '') return false
        {
          const eq = text.indexOf('=')
          if (eq <= 0) throw bad(`option line '${clip(text)}' is not key=value`, offset)
          this.keys[text.slice(0, eq)] = text.slice(eq + 1)
        }
        return false
      case 'threads':
        if (text === '*methods') {
          this.section = 'methods'
          return false
        }
        if (text.startsWith('*')) throw bad(`expected '*methods', found '${clip(text)}'`, offset)
        if (text.trim() === '') return false
        this.threads.push(parseThreadLine(text, offset))
        return false
      case 'methods':
        if (text === '*end') {
          this.section = 'end'
          return true
        }
        if (text.startsWith('*')) throw bad(`expected '*end', found '${clip(text)}'`, offset)
        if (text.trim() === '') return false
        this.methods.push(parseMethodLine(text, offset))
        return false
      case 'end':
        return true
    }
  }
}

export function parseThreadLine(text: string, offset: number): ArtThread {
  const tab = text.indexOf('\t')
  const idText = tab < 0 ? text : text.slice(0, tab)
  if (!/^\d+$/.test(idText.trim()))
    throw bad(`thread line '${clip(text)}' has no numeric id`, offset)
  return { id: Number(idText.trim()), name: tab < 0 ? '' : text.slice(tab + 1) }
}

/** One `*methods` line (also the payload of a streaming new-method packet, newline optional). */
export function parseMethodLine(raw: string, offset: number): ArtMethod {
  const text = raw.replace(/[\r\n]+$/, '')
  const tokens = text.split('\t')
  const idText = (tokens[0] ?? '').trim()
  if (!/^(0[xX])?[0-9a-fA-F]+$/.test(idText)) {
    throw bad(`method line '${clip(text)}' does not start with a hex method id`, offset)
  }
  const id = Number.parseInt(idText.replace(/^0[xX]/, ''), 16)
  if (!Number.isSafeInteger(id) || id > 0xffffffff) {
    throw bad(`method id '${idText}' does not fit 32 bits`, offset)
  }
  const className = tokens[1]
  if (className === undefined) throw bad(`method line '${clip(text)}' has no class name`, offset)
  if (tokens.length >= 6) {
    const line = Number(tokens[5])
    return {
      id,
      className,
      name: tokens[2] ?? '',
      signature: tokens[3] ?? '',
      file: tokens[4] ?? '',
      ...(Number.isInteger(line) ? { line } : {}),
    }
  }
  if (tokens.length > 3 && (tokens[3] ?? '').startsWith('(')) {
    return {
      id,
      className,
      name: tokens[2] ?? '',
      signature: tokens[3] ?? '',
      ...(tokens[4] !== undefined ? { file: tokens[4] } : {}),
    }
  }
  if (tokens.length === 4) {
    // Old Dalvik lines: id, class, file, line (no method name).
    const line = Number(tokens[3])
    return {
      id,
      className,
      name: '',
      signature: '',
      file: tokens[2] ?? '',
      ...(Number.isInteger(line) ? { line } : {}),
    }
  }
  return { id, className, name: tokens[2] ?? '', signature: '' }
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

function bad(message: string, offset: number): EnergyError {
  return new EnergyError({
    code: ArtTraceErrors.BAD_HEADER,
    message,
    hint: 'The key section is malformed; check the file is a complete trace pulled from the device.',
    details: { format: FORMAT, offset },
  })
}
