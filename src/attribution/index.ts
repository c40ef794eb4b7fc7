export type {
  AfterWindowPolicy,
  AttributeTestInput,
  ExecutionInput,
  TestAttribution,
} from './attribute.js'
export { attributeTest, clipCharges, mergeAsync } from './attribute.js'
export { componentOfRail, componentsFromRails } from './components.js'
export type { CurveOptions, EdgePolicy, EnergyCurve, Integration } from './curve.js'
export { powerCurve, railCurve, railsCurve } from './curve.js'
export type { AttributionErrorCode } from './errors.js'
export { AttributionErrors } from './errors.js'
export type {
  CallEnergy,
  IntervalAttribution,
  IntervalOptions,
  IntervalSplit,
  ThreadShare,
} from './interval.js'
export type { CoreCurrents, PowerPart } from './_parts.js'
export { attributeIntervals } from './interval.js'
export type {
  RegressionAttribution,
  RegressionCoefficient,
  RegressionOptions,
  RegressionWindow,
  RegressionWindowResult,
} from './regression.js'
export { attributeRegression, regressionWindowOf } from './regression.js'
export type {
  SamplingAttribution,
  SamplingDetail,
  SamplingEstimate,
  SamplingOptions,
  SamplingPower,
} from './sampling.js'
export { attributeSamples } from './sampling.js'
export type {
  SamplingRegressionAttribution,
  SamplingRegressionOptions,
} from './sampling-regression.js'
export { attributeSamplesByRegression } from './sampling-regression.js'
export type { TailCharge, TailInvocation, TailPolicy, WeightedSamples } from './tails.js'
export { chargeTails, energyWeightedSamples, tailCumulativeJ, tailPowerW } from './tails.js'
export type { IdleNoise } from './noise.js'
export { idleNoise, netEnergyIntervalJ, netNoiseHalfWidthJ } from './noise.js'
export type { Baseline, TestEnergy, TestEnergyInput } from './test-energy.js'
export { curveFor, idlePowerW, idleRailPowersW, testEnergy } from './test-energy.js'
export type { WarningFacts, WarningThresholds } from './warnings.js'
export { AttributionWarnings, attributionWarnings } from './warnings.js'
export type { InitiatedBurst, InitiatorOptions, Initiators, OngoingBurst } from './initiators.js'
export {
  ASYNC_COMPONENTS,
  findInitiators,
  lowestRailPowerW,
  TAILS_OUTLIVE_PROCESS,
} from './initiators.js'
export { clusterOfRail, cpuMethodPower, followsCpu } from './method-power.js'
export type { MethodPower } from './method-power.js'
export type { ReportDetailInput, ThinnedPower, ThinOptions } from './timeline.js'
export { activityLanes, reportDetail, thinPower } from './timeline.js'
export type { CallTreeOptions } from './call-tree.js'
export { CallTreeBuilder } from './call-tree.js'
export type { ClusterModel, CpuModelEnergies, CpuModelScales, CpuPowerModel } from './cpu-model.js'
export {
  cpuModelEnergies,
  modelledClusterRail,
  modelledCpuRails,
  modelledMethodPower,
  MODELLED_ACTIVE_RAIL,
  nominalScales,
  withModelFrequencies,
} from './cpu-model.js'
export type { CalibrationSpan, CpuCalibrationFit, GaugeCalibrationFit } from './calibration.js'
export {
  fitCpuScales,
  fitGaugeCalibration,
  MAX_SCALE_RELATIVE_SE,
  PROFILE_RELATIVE_SD,
} from './calibration.js'
export type { GaugeAveraging, GaugeCurveOptions } from './gauge.js'
export { gaugeCurve, gaugeUpdatePeriodNs, gaugeUpdates, periodAverages } from './gauge.js'
