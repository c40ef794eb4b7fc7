/** Helpers shared by the simulated phone's shell commands. */
import type { ShellInvocation } from '../contract.js'

/** Writes text to stdout. */
export function out(inv: ShellInvocation, text: string): void {
  inv.io.write(text)
}

/** Writes text to stderr. */
export function err(inv: ShellInvocation, text: string): void {
  inv.io.writeErr(text)
}

/**
 * How `cmd`-based services (am, pm, settings, cmd package) report a Java exception: stderr, then
 * exit status 255.
 */
export function javaException(
  inv: ShellInvocation,
  command: string,
  exception: string,
  message: string,
  frame: string,
): number {
  err(
    inv,
    `Exception occurred while executing '${command}':\n${exception}: ${message}\n\tat ${frame}\n`,
  )
  return 255
}

/** Integer argument or undefined. */
export function intArg(value: string | undefined): number | undefined {
  if (value === undefined || !/^-?\d+$/.test(value)) return undefined
  return Number(value)
}

/** Reads an `--flag value` option from argv. */
export function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
