/**
 * What a matcher can be given, and which figure it reads. Matchers accept a measured window (the
 * `EnergyResult` an `energy.measure()` run carries), a method's `MethodEnergy`, or anything that
 * exposes one of those as `energyResult` (the fixture's run objects do).
 */
import type { Interval, MeasuredEnergyResult, MethodEnergy } from '../src/model/index.js'

export type Subject =
  | { readonly kind: 'window'; readonly result: MeasuredEnergyResult }
  | { readonly kind: 'method'; readonly method: MethodEnergy; readonly sensor?: string }

/** A subject that cannot be judged: the message says why (failed window, skipped, wrong type). */
export interface Unjudgeable {
  readonly kind: 'unjudgeable'
  readonly reason: string
}

export function resolveSubject(received: unknown): Subject | Unjudgeable {
  const value = unwrap(received)
  if (typeof value !== 'object' || value === null) {
    return { kind: 'unjudgeable', reason: `expected an energy result, received ${describe(value)}` }
  }
  const record = value as Record<string, unknown>
  if (record['status'] === 'measured') {
    return { kind: 'window', result: value as MeasuredEnergyResult }
  }
  if (record['status'] === 'failed') {
    const error = record['error'] as { message?: string } | undefined
    return {
      kind: 'unjudgeable',
      reason: `the energy window failed: ${error?.message ?? 'unknown error'}`,
    }
  }
  if (record['status'] === 'skipped') {
    return {
      kind: 'unjudgeable',
      reason: `the energy window was skipped: ${String(record['reason'])}`,
    }
  }
  if (typeof record['method'] === 'string' && typeof record['inclusiveEnergyJ'] === 'number') {
    return { kind: 'method', method: value as MethodEnergy }
  }
  return {
    kind: 'unjudgeable',
    reason: `expected an energy result or a method's energy, received ${describe(value)}`,
  }
}

function unwrap(received: unknown): unknown {
  if (typeof received === 'object' && received !== null && 'energyResult' in received) {
    return (received as { energyResult: unknown }).energyResult
  }
  return received
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object')
    return `an object with keys ${Object.keys(value).slice(0, 5).join(', ')}`
  return `${typeof value} ${String(value)}`
}

/** Which part of a window's energy a budget applies to. */
export type Scope = 'net' | 'gross' | `rail:${string}` | `component:${string}`

export interface Figure {
  readonly valueJ: number
  readonly intervalJ?: Interval
  /** What the figure is, for messages: `net`, `rail S4M_VDD_CPUCL0`, `inclusive`. */
  readonly label: string
}

export function energyFigure(subject: Subject, scope: Scope = 'net'): Figure | Unjudgeable {
  if (subject.kind === 'method') {
    const m = subject.method
    return {
      valueJ: m.inclusiveEnergyJ,
      ...(m.inclusiveIntervalJ === undefined ? {} : { intervalJ: m.inclusiveIntervalJ }),
      label: `inclusive, ${m.attribution}`,
    }
  }
  const r = subject.result
  if (scope === 'net') {
    return {
      valueJ: r.netEnergyJ,
      ...(r.netIntervalJ ? { intervalJ: r.netIntervalJ } : {}),
      label: 'net',
    }
  }
  if (scope === 'gross') return { valueJ: r.grossEnergyJ, label: 'gross' }
  if (scope.startsWith('rail:')) {
    const name = scope.slice('rail:'.length)
    const rail = r.rails.find((x) => x.rail === name)
    if (rail === undefined) {
      const known = r.rails.map((x) => x.rail).join(', ') || 'none (the power source has no rails)'
      return {
        kind: 'unjudgeable',
        reason: `no rail named '${name}' in this window; rails: ${known}`,
      }
    }
    return { valueJ: rail.energyJ, label: `rail ${name}` }
  }
  const name = scope.slice('component:'.length)
  const component = r.components.find((x) => x.component === name)
  if (component === undefined) {
    const known = r.components.map((x) => x.component).join(', ') || 'none'
    return {
      kind: 'unjudgeable',
      reason: `no component '${name}' in this window; components: ${known}`,
    }
  }
  return { valueJ: component.energyJ, label: `component ${name}` }
}

export function isUnjudgeable(value: unknown): value is Unjudgeable {
  return (
    typeof value === 'object' && value !== null && (value as Unjudgeable).kind === 'unjudgeable'
  )
}
