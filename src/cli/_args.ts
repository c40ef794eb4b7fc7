/** Argument parsing shared by the commands: node's parseArgs, with usage errors as EnergyError. */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { EnergyError } from '../model/index.js'
import { CliErrors } from './_command.js'

/** `parseArgs` in strict mode; a bad flag becomes an `E_CLI_USAGE` error instead of a TypeError. */
export function parseCommandArgs<const C extends ParseArgsConfig>(
  args: readonly string[],
  config: C,
): ReturnType<typeof parseArgs<C & { strict: true }>> {
  try {
    return parseArgs<C & { strict: true }>({ ...config, args: [...args], strict: true })
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error))
  }
}

export function usageError(message: string): EnergyError {
  return new EnergyError({ code: CliErrors.USAGE, message, hint: 'See the usage below.' })
}
