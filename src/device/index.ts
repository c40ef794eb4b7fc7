export type { AdbServerAddress, PhoneAddress } from './address.js'
export { adbServerName, oneAdbServer, phoneKey, phoneName } from './address.js'
export type { AdbClient, AdbConnectOptions, AdbDevice, AdbErrorContext } from './client.js'
export { connectAdb, isListening, mapAdbError } from './client.js'
export type { DeviceInfo, DeviceState, PickOptions } from './discovery.js'
export { listDevices, parseDeviceRow, pickDevice } from './discovery.js'
export type { DeviceErrorCode } from './errors.js'
export { DeviceErrors } from './errors.js'
export type { ShellOptions, ShellResult } from './shell.js'
export { buildCommandLine, quoteShellArg, shell, shellScript, shellStream } from './shell.js'
export type { DeviceFileStat, PullOptions, PushOptions, TransferProgress } from './transfer.js'
export { pull, pullToFile, push, statFile } from './transfer.js'
export type { Lease, LeaseHolder, LeaseOptions } from './lease.js'
export {
  acquireLease,
  defaultLeaseDir,
  isAlive,
  leaseFileName,
  leaseLost,
  readLeaseHolderSync,
  removeRunLeasesSync,
  withLease,
} from './lease.js'
export type { ClockMappingOptions, ClockReading, DeviceClock, DeviceClockMapping } from './clock.js'
export {
  estimateOffset,
  hostNowNs,
  mapDeviceClock,
  mappingAgeNs,
  parseEpochDate,
  parseProcUptime,
  parseTimerListNow,
  readDeviceClock,
} from './clock.js'
export type {
  AppCapability,
  Capabilities,
  ChargingCapability,
  CurrentSign,
  CurrentUnit,
  Evidence,
  FuelGaugeCapability,
  OdpmCapability,
  ProbeOptions,
  ToolCapability,
} from './probe.js'
export type { ApkXmlAttribute, ApkXmlElement, OverlayManifest } from './apk.js'
export {
  ANDROID_NS,
  apkXmlToText,
  decodeBinaryXml,
  overlayOf,
  readApkEntry,
  readApkXml,
} from './apk.js'
export type {
  FindPowerProfileOptions,
  FoundPowerProfile,
  PowerProfileSource,
} from './power-profile.js'
export {
  DEVICE_PROFILE_PATHS,
  FRAMEWORK_RES,
  MAX_APK_BYTES,
  OVERLAY_DIRS,
  POWER_PROFILE_ENTRY,
  POWER_PROFILE_FIX,
  describePowerProfileSource,
  findPowerProfile,
} from './power-profile.js'
export type { AutoPowerSource, PowerSourceChoice } from './power-source.js'
export { autoPowerSource } from './power-source.js'
export {
  assertProfileable,
  currentSignOf,
  currentUnitOf,
  notProfileable,
  parseDumpsysPackage,
  probeCapabilities,
  resolveLauncherActivity,
  voltageUnitOf,
} from './probe.js'
