/** dumpsys battery, dumpsys powerstats (ODPM channels, PowerStats HAL energy meter), dumpsys power, cmd overlay. */
export { DumpsysErrors } from './errors.js'
export type { DumpsysBatteryState } from './battery.js'
export {
  BATTERY_HEALTH,
  BATTERY_STATUS,
  batteryTemperatureC,
  batteryVoltageV,
  formatDumpsysBattery,
  isPowered,
  parseDumpsysBattery,
} from './battery.js'
export type {
  DumpsysPowerstats,
  PowerStatsChannel,
  PowerStatsEnergyConsumer,
  PowerStatsEntity,
  PowerStatsMeter,
  PowerStatsMeterReading,
} from './powerstats.js'
export {
  formatDumpsysPowerstats,
  formatPowerStatsMeter,
  meterReadingEnergyJ,
  meterReadingFromUws,
  parseDumpsysPowerstats,
} from './powerstats.js'
export type { HeldWakeLock } from './power.js'
export { parseDumpsysPowerWakeLocks } from './power.js'
export type {
  OverlayListEntry,
  OverlayLookup,
  OverlaySettingsItem,
  ResolutionStep,
} from './overlay.js'
export {
  formatOverlayDump,
  formatOverlayList,
  formatOverlayListLine,
  formatOverlayLookup,
  parseOverlayDump,
  parseOverlayList,
  parseOverlayLookup,
  winningStep,
} from './overlay.js'
