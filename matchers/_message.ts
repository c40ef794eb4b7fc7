/** Matcher messages: Expected/Received lines with units, then the evidence a reviewer needs. */
import { formatJoules, methodOrigin, type Interval, type MethodEnergy } from '../src/model/index.js'
import type { Subject } from './_subject.js'

export function formatInterval(interval: Interval | undefined, format = formatJoules): string {
  if (interval === undefined) return ''
  return ` (${Math.round(interval.level * 100)}% ${format(interval.low)} – ${format(interval.high)})`
}

/** Sensor and sampling facts, so a surprising figure can be judged. */
export function describeSource(subject: Subject): string {
  if (subject.kind === 'method') return `attribution: ${subject.method.attribution}`
  if (subject.kind === 'repeated-method')
    return `attribution: ${subject.runs[0]?.attribution ?? 'unknown'}, ${subject.runs.length} repetitions`
  const result = subject.kind === 'window' ? subject.result : subject.runs[0]
  if (result === undefined) return 'no windows'
  const s = result.sources
  const parts = [`power: ${s.power}`]
  if (s.sensorRateHz !== undefined) parts.push(`${s.sensorRateHz.toFixed(1)} Hz`)
  parts.push(`${s.sampleCount} samples`)
  if (s.execution !== undefined) parts.push(`execution: ${s.execution}`)
  return parts.join(', ')
}

/**
 * The window's heaviest app methods by inclusive energy, highest first. Native and platform frames
 * (`__start_thread`, `android.os.Looper.loop`) are on every stack and nothing the reader can
 * change: they are listed only when no app method was seen, under their own heading.
 */
export function topMethods(subject: Subject, count = 5): string[] {
  const result =
    subject.kind === 'window'
      ? subject.result
      : subject.kind === 'repeated'
        ? subject.runs[0]
        : undefined
  if (result === undefined || result.methods.length === 0) return []
  const app = result.methods.filter((m) => methodOrigin(m.method) === 'app')
  const shown = (app.length > 0 ? app : result.methods)
    .slice()
    .sort((a, b) => b.inclusiveEnergyJ - a.inclusiveEnergyJ)
    .slice(0, count)
  const what = app.length > 0 ? 'Top app methods' : 'Top frames (no app method was sampled)'
  return [
    `${what} (inclusive${subject.kind === 'repeated' ? ', first repetition' : ''}):`,
    ...shown.map((m: MethodEnergy) => {
      const color = m.color !== undefined && m.color !== 'uncolored' ? `  [${m.color}]` : ''
      return `  ${formatJoules(m.inclusiveEnergyJ).padStart(10)}  ${m.method}${color}`
    }),
  ]
}

export function subjectName(subject: Subject): string {
  if (subject.kind === 'method') return subject.method.method
  if (subject.kind === 'repeated-method') return subject.name
  if (subject.kind === 'repeated')
    return `'${subject.runs[0]?.label ?? ''}' (${subject.runs.length} repetitions)`
  return `'${subject.result.label}'`
}
