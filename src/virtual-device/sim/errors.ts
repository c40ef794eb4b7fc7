/**
 * Error codes of the simulated phone (app model, physics, sensors, sim-owned shell commands).
 * Every user-facing failure here is an `EnergyError` carrying one of these codes.
 */
import type { EnergyErrorCode } from '../../model/index.js'

export const SimErrors = {
  /** The app model JSON does not match the schema; `details.path` names the field. */
  APP_MODEL_INVALID: 'E_VDEV_APP_MODEL_INVALID',
  /** The app model file could not be read or is not JSON. */
  APP_MODEL_UNREADABLE: 'E_VDEV_APP_MODEL_UNREADABLE',
  /** The app model is schema-valid but inconsistent (unknown screen in `navigate`, duplicate ids). */
  APP_MODEL_INCONSISTENT: 'E_VDEV_APP_MODEL_INCONSISTENT',
  /** The power profile lacks what the physics needs (CPU clusters, speeds, per-speed current). */
  POWER_PROFILE_UNUSABLE: 'E_VDEV_POWER_PROFILE_UNUSABLE',
  /** A ground-truth window is malformed (to < from, not finite, in the future). */
  BAD_WINDOW: 'E_VDEV_BAD_WINDOW',
  /** An option of `startVirtualDevice` is out of range. */
  BAD_OPTION: 'E_VDEV_BAD_OPTION',
} as const satisfies Record<string, EnergyErrorCode>
