/** Error codes of the virtual device's ADB server. */
import type { EnergyErrorCode } from '../../model/errors.js'

export const AdbServerErrors = {
  /** `startAdbServer` was asked to listen on a non-loopback address. */
  NOT_LOOPBACK: 'E_VDEV_ADB_NOT_LOOPBACK',
  /** The server could not listen (port in use, permission). */
  LISTEN_FAILED: 'E_VDEV_ADB_LISTEN_FAILED',
  /** Two devices with the same serial on one server. */
  DUPLICATE_SERIAL: 'E_VDEV_ADB_DUPLICATE_SERIAL',
} as const satisfies Record<string, EnergyErrorCode>
