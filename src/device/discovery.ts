/**
 * Device discovery: `host:devices-l`, and picking one device by serial or `auto`.
 * Reference: adb's `list_transports` (packages/modules/adb/transport.cpp, `append_transport`):
 * `serial<pad>state [usb:<path>] [product:<p> model:<m> device:<d>] [transport_id:<n>]`.
 */
import { CommonErrors, EnergyError } from '../model/index.js'
import type { RawDeviceWithPath } from './_adbkit.js'
import { mapAdbError, offline, unauthorized, type AdbClient, type AdbDevice } from './client.js'
import { DeviceErrors } from './errors.js'

/** States `adb devices` prints. `device` is the only one that accepts commands. */
export type DeviceState =
  | 'device'
  | 'offline'
  | 'unauthorized'
  | 'authorizing'
  | 'connecting'
  | 'recovery'
  | 'sideload'
  | 'bootloader'
  | 'rescue'
  | 'no-permissions'
  | 'unknown'

/** One attached device as the adb server lists it. */
export interface DeviceInfo {
  readonly serial: string
  readonly state: DeviceState
  /**
   * `model:` with adb's underscores turned back into single spaces (`Pixel 6`). adb replaced every
   * character outside `[A-Za-z0-9.-]` with `_`, so this is lossy (`Pixel 6 (virtual)` reads
   * `Pixel 6 virtual`): budgets key on `getprop ro.product.model`, not on this. Absent while
   * unauthorized.
   */
  readonly model?: string
  readonly product?: string
  /** `device:` codename, e.g. `oriole`. */
  readonly device?: string
  /** `usb:` path, absent for TCP and emulator devices. */
  readonly usb?: string
  readonly transportId?: string
}

const KNOWN_STATES: readonly DeviceState[] = [
  'device',
  'offline',
  'unauthorized',
  'authorizing',
  'connecting',
  'recovery',
  'sideload',
  'bootloader',
  'rescue',
]

/** Re-reads adbkit's positional split as the `key:value` tokens adb actually prints. */
export function parseDeviceRow(row: RawDeviceWithPath): DeviceInfo {
  const tokens = [row.path, row.product, row.model, row.device, row.transportId].filter(
    (t): t is string => typeof t === 'string' && t.length > 0,
  )
  let state: DeviceState
  if ((KNOWN_STATES as readonly string[]).includes(row.type)) state = row.type as DeviceState
  else if (row.type === 'no') state = 'no-permissions'
  else state = 'unknown'
  const fields: Record<string, string> = {}
  for (const token of tokens) {
    const colon = token.indexOf(':')
    if (colon > 0) fields[token.slice(0, colon)] = token.slice(colon + 1)
  }
  const info: {
    -readonly [K in keyof DeviceInfo]: DeviceInfo[K]
  } = { serial: row.id, state }
  if (fields['model'] !== undefined) info.model = fields['model'].replace(/_+/g, ' ').trim()
  if (fields['product'] !== undefined) info.product = fields['product']
  if (fields['device'] !== undefined) info.device = fields['device']
  if (fields['usb'] !== undefined) info.usb = fields['usb']
  if (fields['transport_id'] !== undefined) info.transportId = fields['transport_id']
  return info
}

/** Every device the server knows, in the server's order. */
export async function listDevices(client: AdbClient): Promise<DeviceInfo[]> {
  let rows: RawDeviceWithPath[]
  try {
    rows = await client.raw.listDevicesWithPaths()
  } catch (error) {
    throw mapAdbError(error, { host: client.host, port: client.port })
  }
  return rows.map(parseDeviceRow)
}

/** Options of {@link pickDevice}. */
export interface PickOptions {
  /**
   * A serial, or `auto` for the only attached device.
   * @default process.env.ANDROID_SERIAL (as adb reads it), else 'auto'
   */
  readonly serial?: string
}

/**
 * Chooses the device to measure on and checks it is usable. `auto` needs exactly one device;
 * unauthorized and offline devices get their own errors so the user knows what to do.
 */
export async function pickDevice(client: AdbClient, options: PickOptions = {}): Promise<AdbDevice> {
  const fromEnv = process.env['ANDROID_SERIAL']
  const wanted = options.serial ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : 'auto')
  const devices = await listDevices(client)
  const where = `${client.host}:${client.port}`
  let chosen: DeviceInfo | undefined
  if (wanted === 'auto') {
    if (devices.length === 0) {
      throw new EnergyError({
        code: DeviceErrors.NO_DEVICE,
        message: `no device is attached to the adb server on ${where}`,
        hint:
          'Plug in a phone with USB debugging on (check `adb devices -l`), `adb connect <host>` ' +
          'a remote one, or start the virtual device.',
        details: { host: client.host, port: client.port },
      })
    }
    if (devices.length > 1) {
      throw new EnergyError({
        code: DeviceErrors.DEVICE_AMBIGUOUS,
        message: `${devices.length} devices are attached (${devices
          .map((d) => `${d.serial} ${d.state}`)
          .join(', ')}) and none was chosen`,
        hint: 'Pick one by serial (the `serial` option or ANDROID_SERIAL), or detach the others.',
        details: { host: client.host, port: client.port, count: devices.length },
      })
    }
    chosen = devices[0]
  } else {
    chosen = devices.find((d) => d.serial === wanted)
    if (chosen === undefined) {
      throw new EnergyError({
        code: DeviceErrors.NO_DEVICE,
        message: `device ${wanted} is not attached to the adb server on ${where} (attached: ${
          devices.length === 0 ? 'none' : devices.map((d) => d.serial).join(', ')
        })`,
        hint: 'Check the serial against `adb devices -l`, or use `auto` with a single device.',
        details: { host: client.host, port: client.port, serial: wanted },
      })
    }
  }
  if (chosen === undefined) {
    throw new EnergyError({
      code: CommonErrors.INVARIANT,
      message: 'no device was chosen from a non-empty list',
      hint: 'This is a bug in vitest-energy; please report it with `adb devices -l` output.',
    })
  }
  return checkUsable(client, chosen)
}

function checkUsable(client: AdbClient, info: DeviceInfo): AdbDevice {
  switch (info.state) {
    case 'device':
      return client.device(info.serial)
    case 'unauthorized':
    case 'authorizing':
      throw unauthorized(info.serial)
    case 'offline':
    case 'connecting':
      throw offline(info.serial)
    default:
      throw new EnergyError({
        code: DeviceErrors.DEVICE_OFFLINE,
        message: `the device is in state '${info.state}', not 'device'`,
        hint:
          info.state === 'no-permissions'
            ? 'Fix the udev rules / plugdev group for the USB device, then re-plug it.'
            : 'Reboot the device into Android (`adb reboot`), then re-run.',
        details: { serial: info.serial, state: info.state },
      })
  }
}
