/**
 * `vitest-energy` command dispatch. Subcommands load lazily, so `trace` does not pay for Appium.
 * `runCommand` is what tests call; only main.ts owns `process.exit`.
 */
import { createRequire } from 'node:module'
import { EnergyError, isEnergyError } from '../model/index.js'
import { CliErrors, type CliCommand, type CliIo } from './_command.js'

const commands: Record<string, () => Promise<CliCommand>> = {
  classify: () => import('./commands/classify.js').then((m) => m.classifyCommand),
  demo: () => import('./commands/demo.js').then((m) => m.demoCommand),
  doctor: () => import('./commands/doctor.js').then((m) => m.doctorCommand),
  trace: () => import('./commands/trace.js').then((m) => m.traceCommand),
  'virtual-device': () =>
    import('./commands/virtual-device.js').then((m) => m.virtualDeviceCommand),
}

export function commandNames(): string[] {
  return Object.keys(commands).sort()
}

export async function renderUsage(): Promise<string> {
  const lines = ['Usage: vitest-energy <command> [options]', '', 'Commands:']
  for (const [name, load] of Object.entries(commands).sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`  ${name.padEnd(16)}${(await load()).summary}`)
  }
  lines.push(
    '',
    'Options:',
    `  ${'-h, --help'.padEnd(16)}this help`,
    `  ${'-v, --version'.padEnd(16)}the installed vitest-energy version`,
    '',
    'Run `vitest-energy <command> --help` for a command’s options.',
    '',
  )
  return lines.join('\n')
}

/** The package's version, from its own package.json (found by name, so src/ and dist/ agree). */
export function packageVersion(): string {
  const pkg = createRequire(import.meta.url)('vitest-energy/package.json') as { version: string }
  return pkg.version
}

export async function runCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(await renderUsage())
    return name === undefined ? 1 : 0
  }
  if (name === '--version' || name === '-v') {
    io.out(`${packageVersion()}\n`)
    return 0
  }
  const load = commands[name]
  if (load === undefined) {
    io.err(
      formatError(
        new EnergyError({
          code: CliErrors.UNKNOWN_COMMAND,
          message: `unknown command '${name}'`,
          hint: `Use one of: ${commandNames().join(', ')}.`,
        }),
      ),
    )
    return 2
  }
  const command = await load()
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.usage)
    return 0
  }
  try {
    return await command.run(rest, io)
  } catch (error) {
    if (isEnergyError(error)) {
      io.err(formatError(error))
      if (error.code === CliErrors.USAGE) io.err(`\n${command.usage}`)
      return error.code === CliErrors.USAGE ? 2 : 1
    }
    throw error
  }
}

function formatError(error: EnergyError): string {
  return `vitest-energy: ${error.message}\n`
}
