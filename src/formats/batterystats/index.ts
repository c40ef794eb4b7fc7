/** batterystats: checkin CSV (`dumpsys batterystats -c`) and history text (`--history`). */
export { BatterystatsErrors, BatterystatsWarnings } from './errors.js'
export type {
  CheckinHistoryRow,
  CheckinPowerItemRow,
  CheckinPowerSummaryRow,
  CheckinRawRow,
  CheckinRow,
  CheckinSummary,
  CheckinUidRow,
  CheckinVersRow,
} from './checkin.js'
export {
  BatterystatsCheckinDecoder,
  checkinMahToJ,
  formatBatterystatsCheckin,
  formatCheckinRow,
  parseBatterystatsCheckin,
  parseCheckinLine,
  summarizeBatterystatsCheckin,
} from './checkin.js'
export type {
  BatteryHistory,
  HistoryCommand,
  HistoryDumpStats,
  HistoryItem,
  HistoryLineItem,
  HistoryRecord,
  HistoryToken,
  HistoryUnknownLine,
} from './history.js'
export {
  assembleBatterystatsHistory,
  BatterystatsHistoryDecoder,
  formatBatterystatsHistory,
  formatHistoryTime,
  formatHistoryToken,
  parseBatterystatsHistory,
  parseBatterystatsHistoryLines,
  parseHistoryTimeMs,
} from './history.js'
export type {
  BatterySample,
  HistoryTimeline,
  HistoryTimelineOptions,
  InstantEvent,
  StateInterval,
} from './timeline.js'
export { historyTimeline, stateDurationNs, timeOnBatteryNs } from './timeline.js'
export { sniffBatterystats } from './sniff.js'
