/** Matcher messages: Expected/Received lines with units, then the evidence a reviewer needs. */
import {
  formatJoules,
  methodOrigin,
  type Interval,
  type MeasuredEnergyResult,
  type MethodEnergy,
} from '../src/model/index.js'
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
 * Where the window's energy went, largest first — its components (gross), then anything an earlier
 * window left on (a radio, the GPS) with the method that switched it on — so that a failure leads
 * with what cost the most, before the methods.
 */
export function biggestCosts(subject: Subject, count = 4): string[] {
  const result = windowOf(subject)
  if (result === undefined) return []
  const components = result.components
    .filter((c) => c.energyJ > 0)
    .slice()
    .sort((a, b) => b.energyJ - a.energyJ)
    .slice(0, count)
  const carried = result.warnings.filter((w) => w.code === 'W_ASYNC_CARRIED_OVER')
  if (components.length === 0 && carried.length === 0) return []
  const first = subject.kind === 'repeated' ? ', first repetition' : ''
  return [
    ...(components.length === 0
      ? []
      : [
          `Where it went (gross, by component${first}): ${components
            .map((c) => `${c.component} ${formatJoules(c.energyJ)}`)
            .join(' · ')}`,
        ]),
    ...carried.map((w) => `  ⚠ carried over from an earlier window: ${w.message}`),
  ]
}

function windowOf(subject: Subject): MeasuredEnergyResult | undefined {
  return subject.kind === 'window'
    ? subject.result
    : subject.kind === 'repeated'
      ? subject.runs[0]
      : undefined
}

/**
 * The window's heaviest app methods by inclusive energy, highest first. Native and platform frames
 * (`__start_thread`, `android.os.Looper.loop`) are on every stack and nothing the reader can
 * change: they are listed only when no app method was seen, under their own heading.
 */
export function topMethods(subject: Subject, count = 5): string[] {
  const result = windowOf(subject)
  if (result === undefined || result.methods.length === 0) return []
  const app = result.methods.filter((m) => methodOrigin(m.method) === 'app')
  // A radio a method switched on can cost far more than its CPU work: ranked by both.
  const cost = (m: MethodEnergy): number => m.inclusiveEnergyJ + m.asyncEnergyJ
  const shown = (app.length > 0 ? app : result.methods)
    .slice()
    .sort((a, b) => cost(b) - cost(a))
    .slice(0, count)
  const what = app.length > 0 ? 'Top app methods' : 'Top frames (no app method was sampled)'
  return [
    `${what} (inclusive${subject.kind === 'repeated' ? ', first repetition' : ''}):`,
    ...shown.map((m: MethodEnergy) => {
      const color = m.color !== undefined && m.color !== 'uncolored' ? `  [${m.color}]` : ''
      const tail =
        m.asyncEnergyJ > 0 ? `  +${formatJoules(m.asyncEnergyJ)} asynchronous (radio, GPS)` : ''
      return `  ${formatJoules(m.inclusiveEnergyJ).padStart(10)}  ${m.method}${tail}${color}`
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
