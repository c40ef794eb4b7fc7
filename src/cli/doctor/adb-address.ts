/**
 * Where the adb server is, found the way the `adb` client finds it (packages/modules/adb
 * client/commandline.cpp, adb_commandline): `-H`/`-P` win and silence `ADB_SERVER_SOCKET`; else
 * `ADB_SERVER_SOCKET` (`tcp:[host:]port`); else `ANDROID_ADB_SERVER_ADDRESS` and
 * `ANDROID_ADB_SERVER_PORT`, each filling in what the options left out; else localhost:5037.
 * The plugin reads only its own `adb.host`/`adb.port` options, which `-H`/`-P` stand for here.
 */
import { usageError } from '../_args.js'

/** Where the address came from, for the report. */
export type AdbAddressSource = 'options' | 'ADB_SERVER_SOCKET' | 'environment' | 'default'

export interface AdbAddress {
  readonly host: string
  readonly port: number
  readonly from: AdbAddressSource
  /** The environment variables that set part of it (they do not reach the plugin). */
  readonly envVars: readonly string[]
}

export const DEFAULT_ADB_HOST = '127.0.0.1'
export const DEFAULT_ADB_PORT = 5037

function port(text: string, where: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
    throw usageError(`${where} must be a TCP port from 1 to 65535, got '${text}'`)
  }
  return Number(text)
}

/** `tcp:5037`, `tcp:host:5037`, `tcp:[::1]:5037` as adb's socket specs write them. */
function parseSocketSpec(spec: string): { host?: string; port: number } {
  const match = /^tcp:(?:(\[[^\]]+\]|[^:]+):)?([^:]+)$/.exec(spec)
  if (match === null) {
    throw usageError(
      `ADB_SERVER_SOCKET='${spec}' is not a tcp:[host:]port socket spec (vitest-energy reaches adb over TCP only)`,
    )
  }
  const host = match[1]?.replace(/^\[|\]$/g, '')
  const parsed = port(match[2] ?? '', 'the port in ADB_SERVER_SOCKET')
  return host === undefined ? { port: parsed } : { host, port: parsed }
}

/**
 * The adb server's address from `-H`/`-P` (`options`) and the environment, by adb's own rules.
 * Throws `E_CLI_USAGE` for a port that is not one.
 */
export function resolveAdbAddress(
  options: { readonly host?: string; readonly port?: string },
  env: Readonly<Record<string, string | undefined>>,
): AdbAddress {
  const set = (name: string): string | undefined => {
    const value = env[name]
    return value === undefined || value === '' ? undefined : value
  }
  const optionPort = options.port === undefined ? undefined : port(options.port, '-P')
  if (options.host === undefined && optionPort === undefined) {
    const socket = set('ADB_SERVER_SOCKET')
    if (socket !== undefined) {
      const spec = parseSocketSpec(socket)
      return {
        host: spec.host ?? DEFAULT_ADB_HOST,
        port: spec.port,
        from: 'ADB_SERVER_SOCKET',
        envVars: ['ADB_SERVER_SOCKET'],
      }
    }
  }
  const envHost = set('ANDROID_ADB_SERVER_ADDRESS')
  const envPortText = set('ANDROID_ADB_SERVER_PORT')
  const host = options.host ?? envHost
  const chosenPort =
    optionPort ??
    (envPortText === undefined ? undefined : port(envPortText, 'ANDROID_ADB_SERVER_PORT'))
  const envVars = [
    ...(options.host === undefined && envHost !== undefined ? ['ANDROID_ADB_SERVER_ADDRESS'] : []),
    ...(optionPort === undefined && envPortText !== undefined ? ['ANDROID_ADB_SERVER_PORT'] : []),
  ]
  const fromOptions = options.host !== undefined || optionPort !== undefined
  return {
    host: host ?? DEFAULT_ADB_HOST,
    port: chosenPort ?? DEFAULT_ADB_PORT,
    from: fromOptions ? 'options' : envVars.length > 0 ? 'environment' : 'default',
    envVars,
  }
}

/** Where the address came from, in one phrase: `-H/-P`, `ANDROID_ADB_SERVER_PORT`, … */
export function describeAdbAddressSource(address: AdbAddress): string {
  if (address.from === 'default') return "adb's default"
  return [...(address.from === 'options' ? ['-H/-P'] : []), ...address.envVars].join(' and ')
}
