/** Error codes of the collectors. */
export const CollectorErrors = {
  /** A collector was stopped without having been started (a bug in the caller). */
  NOT_STARTED: 'E_COLLECTOR_NOT_STARTED',
  /** The device-side recorder ended early or printed something unexpected. */
  RECORDER_FAILED: 'E_COLLECTOR_RECORDER_FAILED',
  /** No power readings arrived during the window. */
  NO_POWER_DATA: 'E_COLLECTOR_NO_POWER_DATA',
  /** The chosen power source is not available on this device. */
  SOURCE_UNAVAILABLE: 'E_POWER_SOURCE_UNAVAILABLE',
  /** The batterystats model has no power_profile.xml (none given, none readable on the device). */
  PROFILE_UNAVAILABLE: 'E_COLLECTOR_PROFILE_UNAVAILABLE',
  /** The external meter's file cannot be read, or its command failed to start or exited with an error. */
  METER_FAILED: 'E_COLLECTOR_METER_FAILED',
  /** The external meter was configured with neither (or both) a file and a command. */
  METER_CONFIG: 'E_COLLECTOR_METER_CONFIG',
  /** A collector option is out of range (an ODPM poll period perfetto would not honour). */
  INVALID_OPTION: 'E_COLLECTOR_INVALID_OPTION',
} as const
