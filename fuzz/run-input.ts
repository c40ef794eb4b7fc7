/**
 * Runs one input through a target and says what happened, in a form two runs can be compared by:
 * the digest of what was parsed, the code of an `EnergyError` (a refusal, which is fine), or a
 * crash (anything else thrown). Shared by the fuzzer's worker and the regression test.
 */
import { isEnergyError } from '../src/model/index.js'
import type { FuzzTarget } from './targets.js'

export type Outcome =
  | { readonly kind: 'parsed'; readonly digest: string }
  | { readonly kind: 'refused'; readonly code: string }
  | { readonly kind: 'crash'; readonly message: string }

export interface InputReport {
  readonly oneShot: Outcome
  /** The chunked decoder on the given split points, and on the whole input as one chunk. */
  readonly chunked?: { readonly split: Outcome; readonly whole: Outcome }
}

function outcome(run: () => unknown): Outcome {
  try {
    return { kind: 'parsed', digest: JSON.stringify(run()) ?? 'undefined' }
  } catch (error) {
    if (isEnergyError(error)) return { kind: 'refused', code: error.code }
    const e = error as Error
    return {
      kind: 'crash',
      message: `${e?.name ?? 'Error'}: ${e?.message ?? String(error)}`.slice(0, 500),
    }
  }
}

function chunksAt(input: Uint8Array, points: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = []
  let from = 0
  for (const p of points) {
    chunks.push(input.subarray(from, p))
    from = p
  }
  chunks.push(input.subarray(from))
  return chunks
}

export function runInput(
  target: FuzzTarget,
  input: Uint8Array,
  points: readonly number[],
): InputReport {
  const oneShot = outcome(() => target.oneShot(input))
  const chunked = target.chunked
  if (chunked === undefined) return { oneShot }
  return {
    oneShot,
    chunked: {
      split: outcome(() => chunked(chunksAt(input, points))),
      whole: outcome(() => chunked([input])),
    },
  }
}

/** What is wrong with a report, or undefined when the parser behaved. */
export function problem(target: FuzzTarget, report: InputReport): string | undefined {
  const crash = [report.oneShot, report.chunked?.split, report.chunked?.whole].find(
    (o) => o?.kind === 'crash',
  )
  if (crash?.kind === 'crash') return `crash: ${crash.message}`
  const c = report.chunked
  if (c === undefined) return undefined
  if (!same(c.split, c.whole))
    return `mismatch: chunked ${show(c.split)} vs one chunk ${show(c.whole)}`
  if (target.agree === true && report.oneShot.kind === 'parsed' && !same(report.oneShot, c.whole)) {
    return `mismatch: one-shot ${show(report.oneShot)} vs decoder ${show(c.whole)}`
  }
  return undefined
}

function same(a: Outcome, b: Outcome): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

function show(o: Outcome): string {
  if (o.kind === 'refused') return o.code
  if (o.kind === 'crash') return o.message
  return o.digest.length > 80 ? `${o.digest.slice(0, 80)}…` : o.digest
}
