/**
 * Stable codes of the device layer (adb client, discovery, shell, transfers, leases, probe, the
 * phone's power profile).
 */
import type { EnergyErrorCode } from '../model/index.js'

export const DeviceErrors = {
  /** Nothing listens on the adb server's host:port (and auto-start was not asked for). */
  ADB_UNREACHABLE: 'E_ADB_UNREACHABLE',
  /** The adb server answered with FAIL or something that is not the ADB protocol. */
  ADB_PROTOCOL: 'E_ADB_PROTOCOL',
  /** No device is attached (or the requested serial is not among them). */
  NO_DEVICE: 'E_NO_DEVICE',
  /** `auto` was asked for but several devices are attached. */
  DEVICE_AMBIGUOUS: 'E_DEVICE_AMBIGUOUS',
  /** The device has not accepted this host's RSA key. */
  DEVICE_UNAUTHORIZED: 'E_DEVICE_UNAUTHORIZED',
  /** The device is listed but offline (booting, or the USB link is broken). */
  DEVICE_OFFLINE: 'E_DEVICE_OFFLINE',
  /** The device went away during a command or a transfer. */
  DEVICE_DISCONNECTED: 'E_DEVICE_DISCONNECTED',
  /** The local data given to push() failed to read. */
  PUSH_SOURCE: 'E_PUSH_SOURCE',
  /** A file to pull does not exist on the device. */
  DEVICE_FILE_MISSING: 'E_DEVICE_FILE_MISSING',
  /** A shell command's output could not be read (exit-status marker missing). */
  SHELL_OUTPUT: 'E_SHELL_OUTPUT',
  /** An argument cannot be passed through the device shell (it contains a NUL byte). */
  SHELL_ARGUMENT: 'E_SHELL_ARGUMENT',
  /** Another worker held the device's lease for longer than `timeoutMs`. */
  LEASE_TIMEOUT: 'E_LEASE_TIMEOUT',
  /** A lease this worker held expired or was taken over: it must not measure (fencing). */
  LEASE_LOST: 'E_LEASE_LOST',
  /** The lease directory cannot be created or written. */
  LEASE_IO: 'E_LEASE_IO',
  /** A device clock could not be read or parsed (e.g. `/proc/timer_list` without root). */
  CLOCK_UNREADABLE: 'E_CLOCK_UNREADABLE',
  /** The app is neither debuggable nor profileable by shell, so it cannot be traced. */
  NOT_PROFILEABLE: 'E_NOT_PROFILEABLE',
  /** The caller aborted a shell command or a transfer (AbortSignal). */
  ABORTED: 'E_ABORTED',
  /** The app is not installed on the device. */
  APP_NOT_INSTALLED: 'E_APP_NOT_INSTALLED',
  /** A file pulled from the phone is not a readable APK (a damaged or truncated zip). */
  APK_UNREADABLE: 'E_APK_UNREADABLE',
  /** An APK's compiled XML entry (res/xml/…, AndroidManifest.xml) cannot be decoded. */
  APK_XML_UNDECODABLE: 'E_APK_XML_UNDECODABLE',
  /** An APK on the phone is larger than the size the device layer pulls. */
  APK_TOO_LARGE: 'E_APK_TOO_LARGE',
} as const satisfies Record<string, EnergyErrorCode>

export type DeviceErrorCode = (typeof DeviceErrors)[keyof typeof DeviceErrors]
