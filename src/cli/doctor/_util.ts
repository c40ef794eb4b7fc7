/** Helpers the doctor's checks share: reading command output and errors as evidence. */
import {
  quoteShellArg,
  shellScript,
  type AdbDevice,
  type Evidence,
  type ShellResult,
} from '../../device/index.js'
import type { EnergyError } from '../../model/index.js'

/** An EnergyError's own sentence, without the `[CODE]` prefix and the hint line. */
export function sentence(error: EnergyError): string {
  const text = (error.message.split('\n')[0] ?? '').replace(/^\[E_[A-Z0-9_]+\] /, '')
  // `device X: ` is the message's own prefix; drop it when the sentence names X anyway.
  const prefix = /^device (\S+): /.exec(text)
  return prefix !== null && text.slice(prefix[0].length).includes(prefix[1] ?? '')
    ? text.slice(prefix[0].length)
    : text
}

export function lineOf(result: ShellResult, pattern?: RegExp): string | undefined {
  const lines = result.stdout
    .split('\n')
    .map((l) => l.replace(/\r$/, '').trim())
    .filter((l) => l !== '')
  return pattern === undefined ? lines[0] : lines.find((l) => pattern.test(l))
}

export function evidenceOf(result: ShellResult, line: string | undefined): Evidence {
  return {
    command: result.command.replace(/ 2>&1$/, ''),
    ...(line === undefined ? {} : { line }),
    ...(result.exitCode === 0 ? {} : { exitCode: result.exitCode }),
  }
}

/** Runs a command with stderr merged in (tools print versions and refusals on either stream). */
export function run(device: AdbDevice, argv: readonly string[]): Promise<ShellResult> {
  return shellScript(device, `${argv.map(quoteShellArg).join(' ')} 2>&1`)
}

/** What a check that could not run says: the error's sentence, its hint and its code, as a warning. */
export function warnedBy(error: EnergyError): {
  status: 'warn'
  found: string
  evidence: []
  fix: string
  code: string
} {
  return { status: 'warn', found: sentence(error), evidence: [], fix: error.hint, code: error.code }
}
