/** What every `vitest-energy <command>` implements. Commands are pure apart from `io`. */
import type { Screen } from '../../reporter/screen.js'

export interface CliIo {
  /** Writes to standard output (no newline added). */
  readonly out: (text: string) => void
  /** Writes to standard error (no newline added). */
  readonly err: (text: string) => void
  readonly cwd: string
  /** Aborted on Ctrl-C, for long-running commands (virtual-device, demo). */
  readonly signal: AbortSignal
  /** The environment variables a command may read (adb's, Appium's). @default {} */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Standard output's terminal: colours per NO_COLOR / FORCE_COLOR / TTY. @default no colours */
  readonly screen?: Screen
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
