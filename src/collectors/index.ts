export type {
  Collector,
  CollectorContext,
  ExecutionCollector,
  ExecutionData,
  PowerCollector,
  PowerData,
} from './types.js'
export { CollectorErrors } from './errors.js'
export type { FuelGaugeOptions, FuelGaugeReading } from './power/fuel-gauge.js'
export { fuelGaugeCollector } from './power/fuel-gauge.js'
export type { ArtTracingOptions } from './execution/art.js'
export { artTracingCollector } from './execution/art.js'
export type { SimpleperfOptions } from './execution/simpleperf.js'
export { simpleperfCollector } from './execution/simpleperf.js'
export type { OdpmOptions, ReadingOffsets } from './power/odpm.js'
export { odpmCollector, widerOffsets } from './power/odpm.js'
export type {
  BatterystatsModelCurrents,
  BatterystatsOptions,
  ModelledComponent,
} from './power/batterystats.js'
export {
  batterystatsCollector,
  batterystatsPowerSeries,
  brightnessBin,
  componentCurrentsMa,
  readPowerProfile,
  modelCurrents,
} from './power/batterystats.js'
export type { BrightnessChange, ComponentRailsOptions } from './power/components.js'
export {
  COMPONENT_RAIL_SOURCE,
  componentRails,
  MODELLED_COMPONENT_RAILS,
} from './power/components.js'
export type {
  BatteryHistoryRead,
  BatteryHistoryReader,
  BatteryHistoryReadOptions,
  BatterystatsAnchor,
  ComponentModelOptions,
} from './power/battery-history.js'
export {
  batteryHistoryReader,
  readComponentRails,
  resetBatterystats,
} from './power/battery-history.js'
export {
  powerstatsCollector,
  railsFromSnapshots,
  readPowerstatsSnapshot,
} from './power/powerstats.js'
export type { PowerstatsSnapshot } from './power/powerstats.js'
export type { ExternalMeterOptions } from './power/external-meter.js'
export { externalMeterCollector } from './power/external-meter.js'
