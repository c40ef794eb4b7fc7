/**
 * The adb client: a thin typed wrapper over adbkit that never starts a real adb daemon by surprise.
 * adbkit runs `<bin> start-server` when the port refuses connections; we check the port first and
 * hand adbkit a binary path that cannot exist unless the caller asked for auto-start.
 */
import { connect } from 'node:net'
import { EnergyError } from '../model/index.js'
import { createRawClient, type RawAdbClient, type RawDeviceClient } from './_adbkit.js'
import { DeviceErrors } from './errors.js'

/** Options of {@link connectAdb}. */
export interface AdbConnectOptions {
  /** adb server host. @default '127.0.0.1' */
  readonly host?: string
  /** adb server port (`adb -P`). @default 5037 */
  readonly port?: number
  /** The adb binary, used only when `startServer` is true. @default 'adb' */
  readonly bin?: string
  /**
   * Start the adb server (`<bin> -P <port> start-server`) when nothing listens on the port. Off by
   * default so that tests never spawn a real daemon by surprise. @default false
   */
  readonly startServer?: boolean
  /** How long to wait for the port check, ms. @default 2000 */
  readonly connectTimeoutMs?: number
}

/** A connected adb server. Cheap: every call opens its own short TCP connection. */
export interface AdbClient {
  readonly host: string
  readonly port: number
  /** The server's protocol version (`host:version`, 41 for current adb). */
  version(): Promise<number>
  /** A handle on one device by serial; it does not check that the device exists. */
  device(serial: string): AdbDevice
  /** @internal the adbkit client, for the other device modules. */
  readonly raw: RawAdbClient
}

/** A device reached through an adb server. */
export interface AdbDevice {
  readonly serial: string
  readonly client: AdbClient
  /** @internal the adbkit device client. */
  readonly raw: RawDeviceClient
}

/** adbkit sees this as `bin` when auto-start is off: spawning it fails with ENOTDIR, never runs adb. */
const NO_AUTOSTART_BIN = '/dev/null/vitest-energy-adb-autostart-disabled'

/** Connects to an adb server (real, or the virtual device's) after checking that it listens. */
export async function connectAdb(options: AdbConnectOptions = {}): Promise<AdbClient> {
  const host = options.host ?? '127.0.0.1'
  const port = options.port ?? 5037
  const startServer = options.startServer ?? false
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new EnergyError({
      code: 'E_INVALID_OPTION',
      message: `adb port ${String(port)} is not a TCP port`,
      hint: 'Give a port between 1 and 65535 (adb uses 5037 unless started with -P).',
    })
  }
  if (!startServer) {
    const listening = await isListening(host, port, options.connectTimeoutMs ?? 2000)
    if (!listening) throw unreachable(host, port)
  }
  const raw = createRawClient({
    host,
    port,
    bin: startServer ? (options.bin ?? 'adb') : NO_AUTOSTART_BIN,
  })
  const client: AdbClient = {
    host,
    port,
    raw,
    async version() {
      try {
        return await raw.version()
      } catch (error) {
        throw mapAdbError(error, { host, port })
      }
    },
    device(serial: string): AdbDevice {
      return { serial, client, raw: raw.getDevice(serial) }
    },
  }
  return client
}

/** True when a TCP connection to host:port is accepted within `timeoutMs`. */
export function isListening(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port })
    const done = (ok: boolean): void => {
      socket.removeAllListeners()
      socket.on('error', () => undefined)
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(timeoutMs, () => done(false))
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
  })
}

export function unreachable(host: string, port: number, cause?: unknown): EnergyError {
  return new EnergyError({
    code: DeviceErrors.ADB_UNREACHABLE,
    message: `no adb server on ${host}:${port}`,
    hint:
      'Run `adb start-server` (or `adb -P <port> start-server`), or set the adb host/port, ' +
      'or use the virtual device (`vitest-energy virtual-device`). A lab host: check that it is ' +
      'up and its `adb -a nodaemon server` runs (docs/scale.md).',
    details: { host, port },
    cause,
  })
}

/** Where an adb call was going, for error messages. */
export interface AdbErrorContext {
  readonly host: string
  readonly port: number
  readonly serial?: string
  readonly path?: string
}

/**
 * Turns adbkit's errors (FailError, PrematureEOFError, socket errors) into EnergyErrors. Codes are
 * chosen from the adb server's own FAIL texts (`device offline`, `device unauthorized.`,
 * `device 'X' not found`).
 */
export function mapAdbError(error: unknown, context: AdbErrorContext): EnergyError {
  if (error instanceof EnergyError) return error
  const message = error instanceof Error ? error.message : String(error)
  const errno = (error as { code?: unknown } | null)?.code
  const serial = context.serial
  const details = { host: context.host, port: context.port, serial }
  if (errno === 'ECONNREFUSED') return unreachable(context.host, context.port, error)
  // adbkit answers a refused connection by starting a server: with auto-start off, that spawn of
  // NO_AUTOSTART_BIN fails (ENOTDIR: a path under /dev/null), and means the same thing: a lab
  // host that went down mid-run.
  if (errno === 'ENOTDIR' && (error as { syscall?: unknown } | null)?.syscall === 'spawn')
    return unreachable(context.host, context.port, error)
  if (/unauthorized/i.test(message)) return unauthorized(serial ?? '?', error)
  if (/device offline/i.test(message)) return offline(serial ?? '?', error)
  if (/not found|no devices|device .* not found/i.test(message)) {
    return new EnergyError({
      code: DeviceErrors.NO_DEVICE,
      message: `adb server on ${context.host}:${context.port} has no device ${serial ?? ''}`.trim(),
      hint: 'Check `adb devices -l`: plug the phone in, enable USB debugging, or fix the serial.',
      details,
      cause: error,
    })
  }
  if (
    errno === 'ECONNRESET' ||
    errno === 'EPIPE' ||
    (error instanceof Error && error.name === 'PrematureEOFError')
  ) {
    return disconnected(serial ?? '?', `the connection closed early (${message})`, error)
  }
  return new EnergyError({
    code: DeviceErrors.ADB_PROTOCOL,
    message: `adb server on ${context.host}:${context.port} failed: ${message}`,
    hint: 'Run the same command with `adb` by hand to see whether the server or device is at fault.',
    details,
    cause: error,
  })
}

export function unauthorized(serial: string, cause?: unknown): EnergyError {
  return new EnergyError({
    code: DeviceErrors.DEVICE_UNAUTHORIZED,
    message: 'the device has not authorized this computer',
    hint: 'Unlock the phone and accept the "Allow USB debugging?" RSA prompt, then re-run.',
    details: { serial },
    cause,
  })
}

export function offline(serial: string, cause?: unknown): EnergyError {
  return new EnergyError({
    code: DeviceErrors.DEVICE_OFFLINE,
    message: 'the device is offline',
    hint: 'Wait for it to finish booting, reconnect the cable (or `adb reconnect`), then re-run.',
    details: { serial },
    cause,
  })
}

export function disconnected(serial: string, what: string, cause?: unknown): EnergyError {
  return new EnergyError({
    code: DeviceErrors.DEVICE_DISCONNECTED,
    message: `the device went away: ${what}`,
    hint: 'Check the cable/network link and `adb devices`; the test window was abandoned.',
    details: { serial },
    cause,
  })
}
