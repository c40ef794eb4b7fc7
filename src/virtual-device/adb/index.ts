/** The virtual device's ADB server (host protocol, shell and sync services). */
export {
  startAdbServer,
  isLoopback,
  ADB_SERVER_VERSION,
  type AdbServer,
  type AdbServerOptions,
} from './server.js'
export { AdbServerErrors } from './errors.js'
export {
  encodeData,
  encodeFail,
  encodeLength,
  encodeOkay,
  syncFrame,
  syncHeader,
  SYNC_DATA_MAX,
} from './wire.js'
