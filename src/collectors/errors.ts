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
} as const
