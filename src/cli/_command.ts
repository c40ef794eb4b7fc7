/** What every `vitest-energy <command>` implements. Commands are pure apart from `io`. */

export interface CliIo {
  /** Writes to standard output (no newline added). */
  readonly out: (text: string) => void
  /** Writes to standard error (no newline added). */
  readonly err: (text: string) => void
  readonly cwd: string
  /** Aborted on Ctrl-C, for long-running commands (virtual-device, demo). */
  readonly signal: AbortSignal
}

export interface CliCommand {
  readonly name: string
  /** One line for the command list. */
  readonly summary: string
  /** Full usage text shown by `vitest-energy <command> --help` and on usage errors. */
  readonly usage: string
  /** Returns the process exit code. Throw `EnergyError` with code `E_CLI_USAGE` for bad arguments. */
  run(args: readonly string[], io: CliIo): Promise<number>
}

export const CliErrors = {
  USAGE: 'E_CLI_USAGE',
  UNKNOWN_COMMAND: 'E_CLI_UNKNOWN_COMMAND',
} as const
