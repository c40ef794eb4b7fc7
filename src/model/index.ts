import type {} from './task-meta.js'
export type { ClockMapping, ClockName } from './clock.js'
export { invertMapping, mapTime, shiftCallTrace } from './clock.js'
export type {
  AttributionMethod,
  BatteryContext,
  Component,
  ComponentEnergy,
  EnergyAccounting,
  EnergyResult,
  EnergyWarning,
  EnergyWindow,
  FailedEnergyResult,
  Interval,
  MeasuredEnergyResult,
  MethodColor,
  MethodEnergy,
  RailEnergy,
  SkippedEnergyResult,
  SourceInfo,
  MethodEnergySource,
  CpuModelObservation,
  CpuModelRunFit,
  WarningSeverity,
} from './energy.js'
export { ownNetEnergy, SCHEMA_VERSION, workWindows } from './energy.js'
export type { MeasuredInput, MethodEnergyInput } from './build.js'
export { invariantViolations, measuredResult, methodEnergy } from './build.js'
export type { SummaryOptions, TestEnergyMeta } from './summary.js'
export type {
  ActivityLane,
  CallTreeNode,
  CarriedInEnergy,
  PowerTimeline,
  TimelineSeries,
} from './timeline.js'
export { CALL_TREE_MAX_NODES, TIMELINE_MAX_BUCKETS, TIMELINE_MAX_LANES } from './timeline.js'
export type { LimitCheck, LimitTarget, LimitUnit, LimitVerdict } from './limits.js'
export { limitUse } from './limits.js'
export { parseTestEnergyMeta, summarize } from './summary.js'
export type {
  EnergyErrorCode,
  EnergyErrorDetails,
  EnergyErrorOptions,
  SerializedEnergyError,
} from './errors.js'
export { CommonErrors, EnergyError, isEnergyError } from './errors.js'
export type {
  CallInterval,
  CallTrace,
  PowerSample,
  PowerSeries,
  RailReading,
  RailSeries,
  StackSample,
  StackSampleSet,
  CpuFrequencyChange,
  CpuIdleChange,
  CpuSchedule,
  CpuSlice,
} from './samples.js'
export * as units from './units.js'
export type {
  Amperes,
  Brand,
  Joules,
  Microseconds,
  Nanoseconds,
  Seconds,
  Volts,
  Watts,
} from './units.js'
export {
  describeMethodEnergy,
  formatJoules,
  formatJoulesWithInterval,
  formatPercent,
  formatSeconds,
  formatWatts,
} from './format.js'
export type { MethodOrigin } from './methods.js'
export { appMethodsFirst, methodOrigin } from './methods.js'
export { closestName } from './suggest.js'
export { safeSegment, testFolderName, testFolderSuffix } from './artifact-names.js'
