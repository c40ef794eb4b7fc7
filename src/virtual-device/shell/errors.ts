/** Error codes of the virtual device's file system, process table and device factory. */
import type { EnergyErrorCode } from '../../model/errors.js'

export const VirtualDeviceShellErrors = {
  /** A path does not exist (errno ENOENT). */
  NO_SUCH_FILE: 'E_VDEV_FS_ENOENT',
  /** A directory was used where a file was expected, or the reverse (EISDIR / ENOTDIR). */
  WRONG_KIND: 'E_VDEV_FS_KIND',
  /** A path is not writable (EACCES / EROFS) or a node is read-only. */
  NOT_WRITABLE: 'E_VDEV_FS_READONLY',
  /** A directory is not empty (ENOTEMPTY). */
  NOT_EMPTY: 'E_VDEV_FS_NOTEMPTY',
  /** A path is not absolute or not valid. */
  BAD_PATH: 'E_VDEV_FS_BAD_PATH',
  /** `createDevice` got an invalid serial or option. */
  BAD_DEVICE_OPTION: 'E_VDEV_BAD_DEVICE_OPTION',
} as const satisfies Record<string, EnergyErrorCode>

/** errno names as the shell commands print them (`strerror` text). */
export const ERRNO_TEXT = {
  ENOENT: 'No such file or directory',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  EACCES: 'Permission denied',
  EROFS: 'Read-only file system',
  ENOTEMPTY: 'Directory not empty',
  EEXIST: 'File exists',
  ESRCH: 'No such process',
  EINVAL: 'Invalid argument',
} as const

export type Errno = keyof typeof ERRNO_TEXT
