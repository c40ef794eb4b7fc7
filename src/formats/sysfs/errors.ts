/** Error codes of the sysfs power_supply parsers. */
export const SysfsErrors = {
  /** A numeric node holds something that is not an integer (e.g. `current_now` = `abc`). */
  BAD_VALUE: 'E_SYSFS_BAD_VALUE',
  /** A node read returned nothing (the driver does not implement it, or the read raced). */
  EMPTY: 'E_SYSFS_EMPTY',
  /** A `uevent` line is not `KEY=value`. */
  BAD_UEVENT_LINE: 'E_SYSFS_BAD_UEVENT_LINE',
  /** `normalizeCurrent` got an unknown unit or sign. */
  BAD_NORMALIZATION: 'E_SYSFS_BAD_NORMALIZATION',
} as const satisfies Record<string, `E_${string}`>
