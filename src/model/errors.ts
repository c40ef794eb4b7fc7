/**
 * The project's one error type. Every user-facing failure is an `EnergyError` with a stable `code`
 * (documented in docs/errors.md), a message that says what happened, and a `hint` that says what
 * to do. Structured fields (`offset`, `line`, `serial`, ...) go in `details` so tools can read them.
 */

/** Stable machine-readable codes start with `E_`. Each area declares its own in its errors.ts. */
export type EnergyErrorCode = `E_${string}`

/** Where in an input a parser stopped; byte offsets for binary formats, 1-based lines for text. */
export interface EnergyErrorDetails {
  /** Name of the format or input (e.g. `ART trace`, `power_profile.xml`). */
  readonly format?: string
  /** Byte offset into the input where the problem was found. */
  readonly offset?: number
  /** 1-based line number for text inputs. */
  readonly line?: number
  /** Device serial for device-side failures. */
  readonly serial?: string
  /** Any further JSON-safe facts. */
  readonly [key: string]: string | number | boolean | undefined
}

export interface EnergyErrorOptions {
  readonly code: EnergyErrorCode
  /** What happened, in one sentence. */
  readonly message: string
  /** What the user should do about it. */
  readonly hint: string
  readonly details?: EnergyErrorDetails
  readonly cause?: unknown
}

export class EnergyError extends Error {
  override readonly name = 'EnergyError'
  readonly code: EnergyErrorCode
  readonly hint: string
  readonly details: EnergyErrorDetails

  constructor(options: EnergyErrorOptions) {
    super(formatMessage(options), options.cause === undefined ? {} : { cause: options.cause })
    this.code = options.code
    this.hint = options.hint
    this.details = options.details ?? {}
  }

  /** JSON-safe form, for task.meta and reports. */
  toJSON(): SerializedEnergyError {
    return { code: this.code, message: this.message, hint: this.hint, details: { ...this.details } }
  }
}

export interface SerializedEnergyError {
  readonly code: EnergyErrorCode
  readonly message: string
  readonly hint: string
  readonly details: EnergyErrorDetails
}

function formatMessage({ code, message, hint, details }: EnergyErrorOptions): string {
  const where: string[] = []
  if (details?.format !== undefined) where.push(details.format)
  if (details?.line !== undefined) where.push(`line ${details.line}`)
  if (details?.offset !== undefined) where.push(`byte ${details.offset}`)
  if (details?.serial !== undefined) where.push(`device ${details.serial}`)
  const prefix = where.length > 0 ? `${where.join(', ')}: ` : ''
  return `[${code}] ${prefix}${message}\n  → ${hint}`
}

export function isEnergyError(error: unknown): error is EnergyError {
  return error instanceof EnergyError
}

/** Codes that belong to no single area. */
export const CommonErrors = {
  /** An option or config value is invalid. */
  INVALID_OPTION: 'E_INVALID_OPTION',
  /** A domain invariant was violated: a bug in vitest-energy, not in the user's setup. */
  INVARIANT: 'E_INVARIANT',
} as const satisfies Record<string, EnergyErrorCode>
