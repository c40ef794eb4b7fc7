/**
 * Builders keep derived fields derived: callers give the independent figures, the builder computes
 * inclusive = local + non-local, net = gross − baseline, unattributed = net − attributed, and so on.
 */
import { CommonErrors, EnergyError } from './errors.js'
import {
  SCHEMA_VERSION,
  type EnergyWarning,
  type MeasuredEnergyResult,
  type MethodEnergy,
} from './energy.js'
import { nsToS } from './units.js'

export type MethodEnergyInput = Omit<MethodEnergy, 'inclusiveEnergyJ' | 'asyncEnergyJ'> & {
  readonly asyncEnergyJ?: number
}

export function methodEnergy(input: MethodEnergyInput): MethodEnergy {
  return {
    ...input,
    asyncEnergyJ: input.asyncEnergyJ ?? 0,
    inclusiveEnergyJ: input.localEnergyJ + input.nonLocalEnergyJ,
  }
}

export type MeasuredInput = Omit<
  MeasuredEnergyResult,
  | 'schemaVersion'
  | 'status'
  | 'durationS'
  | 'averagePowerW'
  | 'baselineEnergyJ'
  | 'netEnergyJ'
  | 'attributedEnergyJ'
  | 'unattributedEnergyJ'
  | 'methods'
  | 'warnings'
> & {
  readonly methods?: readonly MethodEnergy[]
  readonly warnings?: readonly EnergyWarning[]
  /**
   * Net energy charged to methods. Defaults to the sum of the methods' local + async energy, which
   * is the non-overlapping share (inclusive figures overlap along the stack and cannot be summed).
   */
  readonly attributedEnergyJ?: number
}

export function measuredResult(input: MeasuredInput): MeasuredEnergyResult {
  const durationNs = input.window.endNs - input.window.startNs
  if (!(durationNs >= 0)) {
    throw new EnergyError({
      code: CommonErrors.INVARIANT,
      message: `energy window ends before it starts (${input.window.startNs} → ${input.window.endNs} ns)`,
      hint: 'This is a bug in vitest-energy; please report it with the test that produced it.',
    })
  }
  const durationS = nsToS(durationNs)
  const methods = [...(input.methods ?? [])].sort(
    (a, b) => b.inclusiveEnergyJ - a.inclusiveEnergyJ || a.method.localeCompare(b.method),
  )
  const baselineEnergyJ = input.baselinePowerW * durationS
  const netEnergyJ = input.grossEnergyJ - baselineEnergyJ
  const attributedEnergyJ =
    input.attributedEnergyJ ?? methods.reduce((sum, m) => sum + m.localEnergyJ + m.asyncEnergyJ, 0)
  return {
    ...input,
    schemaVersion: SCHEMA_VERSION,
    status: 'measured',
    durationS,
    averagePowerW: durationS > 0 ? input.grossEnergyJ / durationS : 0,
    baselineEnergyJ,
    netEnergyJ,
    attributedEnergyJ,
    unattributedEnergyJ: netEnergyJ - attributedEnergyJ,
    methods,
    warnings: input.warnings ?? [],
  }
}

/** Relative tolerance for floating-point identities (sums of many terms). */
const RELATIVE_EPSILON = 1e-9

function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= RELATIVE_EPSILON * Math.max(1, Math.abs(a), Math.abs(b))
}

/** Lists every invariant a measured result breaks; empty when it is consistent. */
export function invariantViolations(result: MeasuredEnergyResult): string[] {
  const problems: string[] = []
  const numbers: Array<[string, number]> = [
    ['grossEnergyJ', result.grossEnergyJ],
    ['baselinePowerW', result.baselinePowerW],
    ['netEnergyJ', result.netEnergyJ],
    ['durationS', result.durationS],
    ['averagePowerW', result.averagePowerW],
  ]
  for (const [name, value] of numbers) {
    if (!Number.isFinite(value)) problems.push(`${name} is not finite (${value})`)
  }
  if (result.durationS < 0) problems.push('durationS is negative')
  if (!close(result.netEnergyJ, result.grossEnergyJ - result.baselineEnergyJ)) {
    problems.push('netEnergyJ ≠ grossEnergyJ − baselineEnergyJ')
  }
  if (
    !close(
      result.attributedEnergyJ + result.unattributedEnergyJ + result.baselineEnergyJ,
      result.grossEnergyJ,
    )
  ) {
    problems.push('attributed + unattributed + baseline ≠ gross')
  }
  for (const m of result.methods) {
    if (!close(m.inclusiveEnergyJ, m.localEnergyJ + m.nonLocalEnergyJ)) {
      problems.push(`${m.method}: inclusiveEnergyJ ≠ local + non-local`)
    }
    for (const [name, iv] of [
      ['inclusiveIntervalJ', m.inclusiveIntervalJ],
      ['localIntervalJ', m.localIntervalJ],
    ] as const) {
      if (iv !== undefined && !(iv.low <= iv.high)) problems.push(`${m.method}: ${name} low > high`)
    }
  }
  for (let i = 1; i < result.methods.length; i++) {
    const prev = result.methods[i - 1]
    const cur = result.methods[i]
    if (prev !== undefined && cur !== undefined && prev.inclusiveEnergyJ < cur.inclusiveEnergyJ) {
      problems.push('methods are not sorted by inclusive energy')
      break
    }
  }
  return problems
}
