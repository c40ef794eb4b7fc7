/**
 * Shell commands on the device with proper quoting and the exit status.
 *
 * adb's legacy `shell:` service passes one command line to `/system/bin/sh -c` and does not
 * transmit the exit status (only the v2 shell protocol does, and adb servers that answer an empty
 * feature list, like older devices, speak legacy). So we append `; echo "<marker>$?"` and strip it.
 */
import { randomBytes } from 'node:crypto'
import { PassThrough, type Readable } from 'node:stream'
import { EnergyError } from '../model/index.js'
import { disconnected, mapAdbError, type AdbDevice } from './client.js'
import { DeviceErrors } from './errors.js'

/** Characters that never need quoting in POSIX sh (mksh, toybox sh). */
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/

/**
 * Quotes one argument for Android's `/system/bin/sh` (mksh; also POSIX sh): single quotes, with
 * each embedded `'` written as `'\''`. Everything else (spaces, `$`, backticks, `\`, newlines,
 * unicode) is literal inside single quotes. NUL bytes cannot be passed through a C string: rejected.
 */
export function quoteShellArg(arg: string): string {
  if (arg.includes('\0')) {
    throw new EnergyError({
      code: DeviceErrors.SHELL_ARGUMENT,
      message: 'a shell argument contains a NUL byte, which no command line can carry',
      hint: 'Remove the NUL character from the test name, path or package name.',
      details: { argument: JSON.stringify(arg).slice(0, 80) },
    })
  }
  if (SAFE_WORD.test(arg)) return arg
  return `'${arg.replace(/'/g, `'\\''`)}'`
}

/** Joins an argv into one quoted command line. */
export function buildCommandLine(argv: readonly string[]): string {
  if (argv.length === 0) {
    throw new EnergyError({
      code: 'E_INVALID_OPTION',
      message: 'an empty argv was given to shell()',
      hint: 'Pass the command name as argv[0].',
    })
  }
  return argv.map(quoteShellArg).join(' ')
}

/** What a finished shell command produced. */
export interface ShellResult {
  /** The command line sent (without the exit-status marker). */
  readonly command: string
  /** Output bytes; legacy adb shell merges stderr into stdout. */
  readonly output: Buffer
  /** `output` decoded as UTF-8. */
  readonly stdout: string
  /** The exit status `$?` of the command line. */
  readonly exitCode: number
}

/** Options of {@link shell} and {@link shellScript}. */
export interface ShellOptions {
  /** Aborting destroys the adb stream (the device-side process gets SIGHUP). */
  readonly signal?: AbortSignal
}

/** Runs `argv` (quoted) on the device and collects its output and exit status. */
export function shell(
  device: AdbDevice,
  argv: readonly string[],
  options: ShellOptions = {},
): Promise<ShellResult> {
  return shellScript(device, buildCommandLine(argv), options)
}

/**
 * Runs a command line written by the caller (pipes, redirects, `;`). The caller quotes any
 * untrusted part with {@link quoteShellArg}.
 */
export async function shellScript(
  device: AdbDevice,
  commandLine: string,
  options: ShellOptions = {},
): Promise<ShellResult> {
  const marker = `__VE_EXIT_${randomBytes(6).toString('hex')}__`
  // `echo` in mksh/toybox prints the marker on its own, after whatever the command wrote; the
  // marker is split with quotes so that a shell echoing its input cannot fake it.
  const full = `${commandLine}; echo "${marker.slice(0, 6)}""${marker.slice(6)}$?"`
  const stream = await abortable(openShell(device, full), device, options.signal)
  const output = await collect(stream, device, options.signal)
  const markerBytes = Buffer.from(marker)
  const at = output.lastIndexOf(markerBytes)
  if (at < 0) {
    throw disconnected(
      device.serial,
      `the shell stream closed before \`${truncate(commandLine)}\` finished (no exit status)`,
    )
  }
  const tail = output
    .subarray(at + markerBytes.length)
    .toString('latin1')
    .replace(/\r?\n$/, '')
  if (!/^\d+$/.test(tail)) {
    throw new EnergyError({
      code: DeviceErrors.SHELL_OUTPUT,
      message: `could not read the exit status of \`${truncate(commandLine)}\` (got ${JSON.stringify(tail.slice(0, 40))})`,
      hint: 'The device shell printed something unexpected after the command; run it with `adb shell` to see.',
      details: { serial: device.serial },
    })
  }
  const body = output.subarray(0, at)
  return {
    command: commandLine,
    output: body,
    stdout: body.toString('utf8'),
    exitCode: Number(tail),
  }
}

/**
 * Opens a long-running shell command and returns its output stream (for on-device polling loops).
 * The stream has an `error` listener that turns adb errors into EnergyErrors re-emitted as `error`.
 */
export async function shellStream(device: AdbDevice, argv: readonly string[]): Promise<Readable> {
  const raw = await openShell(device, buildCommandLine(argv))
  const out = new PassThrough()
  raw.on('error', (error: unknown) =>
    out.destroy(
      mapAdbError(error, {
        host: device.client.host,
        port: device.client.port,
        serial: device.serial,
      }),
    ),
  )
  // Closing our end (destroy) closes the adb socket, which hangs up the device-side command.
  out.on('close', () => raw.destroy())
  raw.pipe(out)
  return out
}

async function openShell(device: AdbDevice, commandLine: string): Promise<Readable> {
  try {
    return await device.raw.shell(commandLine)
  } catch (error) {
    throw mapAdbError(error, {
      host: device.client.host,
      port: device.client.port,
      serial: device.serial,
    })
  }
}

function abortedError(device: AdbDevice): EnergyError {
  return new EnergyError({
    code: DeviceErrors.ABORTED,
    message: 'the shell command was aborted',
    hint: 'The caller cancelled it; nothing to do.',
    details: { serial: device.serial },
  })
}

/** Opening can take as long as the command (the server may answer OKAY late): abort that too. */
function abortable(
  opening: Promise<Readable>,
  device: AdbDevice,
  signal?: AbortSignal,
): Promise<Readable> {
  if (signal === undefined) return opening
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      reject(abortedError(device))
      // Hang up the connection once it exists.
      opening.then((stream) => stream.destroy()).catch(() => undefined)
    }
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    opening.then(
      (stream) => {
        signal.removeEventListener('abort', onAbort)
        resolve(stream)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

function collect(stream: Readable, device: AdbDevice, signal?: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const onAbort = (): void => {
      reject(abortedError(device))
      stream.destroy()
    }
    if (signal?.aborted === true) return onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    stream.on('data', (chunk: Buffer | string) => {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
    })
    stream.once('error', (error: unknown) => {
      signal?.removeEventListener('abort', onAbort)
      reject(
        mapAdbError(error, {
          host: device.client.host,
          port: device.client.port,
          serial: device.serial,
        }),
      )
    })
    stream.once('end', () => {
      signal?.removeEventListener('abort', onAbort)
      resolve(Buffer.concat(chunks))
    })
  })
}

function truncate(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s
}
