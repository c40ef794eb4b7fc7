/** Argument parsing shared by the commands: node's parseArgs, with usage errors as EnergyError. */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { EnergyError } from '../model/index.js'
import { CliErrors } from './_command.js'

export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[],
  options: T,
  allowPositionals = true,
) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals, strict: true })
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error))
  }
}

export function usageError(message: string): EnergyError {
  return new EnergyError({
    code: CliErrors.USAGE,
    message,
    hint: 'See the usage below.',
  })
}
