/**
 * Helpers shared by the trace decoder's parts: typed reads of protobufjs plain objects (64-bit
 * fields arrive as decimal strings) and the decoder's corruption error.
 */
import { EnergyError } from '../../model/errors.js'
import { PerfettoErrors } from './errors.js'

export const FORMAT = 'Perfetto trace'

export type Obj = Record<string, unknown>

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

export function corrupt(offset: number, message: string, cause?: unknown): EnergyError {
  return new EnergyError({
    code: PerfettoErrors.CORRUPT,
    message,
    hint: 'The trace is damaged; pull it again from the device (or re-record it).',
    details: { format: FORMAT, offset },
    ...(cause === undefined ? {} : { cause }),
  })
}

export function unsafeInteger(value: unknown, field: string, offset: number): EnergyError {
  return new EnergyError({
    code: PerfettoErrors.UNSAFE_INTEGER,
    message: `field \`${field}\` = ${String(value)} exceeds 2^53 and cannot be represented exactly`,
    hint: 'This value is outside what the tool supports; report it with the trace attached.',
    details: { format: FORMAT, offset },
  })
}

export function int(value: unknown, field: string, offset: number): number | undefined {
  if (value === undefined || value === null) return undefined
  const n = typeof value === 'string' ? Number(value) : value
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    throw corrupt(offset, `field \`${field}\` is not a number`)
  }
  if (!Number.isSafeInteger(n)) throw unsafeInteger(value, field, offset)
  return n
}
