/** Matcher messages: Expected/Received lines with units, then the evidence a reviewer needs. */
import { formatJoules, type Interval, type MethodEnergy } from '../src/model/index.js'
import type { Subject } from './_subject.js'

export function formatInterval(interval: Interval | undefined, format = formatJoules): string {
  if (interval === undefined) return ''
  return ` (${Math.round(interval.level * 100)}% ${format(interval.low)} – ${format(interval.high)})`
}

/** Sensor and sampling facts, so a surprising figure can be judged. */
export function describeSource(subject: Subject): string {
  if (subject.kind === 'method') return `attribution: ${subject.method.attribution}`
  const s = subject.result.sources
  const parts = [`power: ${s.power}`]
  if (s.sensorRateHz !== undefined) parts.push(`${s.sensorRateHz.toFixed(1)} Hz`)
  parts.push(`${s.sampleCount} samples`)
  if (s.execution !== undefined) parts.push(`execution: ${s.execution}`)
  return parts.join(', ')
}

export function topMethods(subject: Subject, count = 5): string[] {
  if (subject.kind !== 'window' || subject.result.methods.length === 0) return []
  return [
    'Top methods (inclusive):',
    ...subject.result.methods.slice(0, count).map((m: MethodEnergy) => {
      const color = m.color !== undefined && m.color !== 'uncolored' ? `  [${m.color}]` : ''
      return `  ${formatJoules(m.inclusiveEnergyJ).padStart(10)}  ${m.method}${color}`
    }),
  ]
}

export function subjectName(subject: Subject): string {
  return subject.kind === 'method' ? subject.method.method : `'${subject.result.label}'`
}
