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
export type { BatterystatsModelCurrents, BatterystatsOptions } from './power/batterystats.js'
export {
  batterystatsCollector,
  batterystatsPowerSeries,
  readPowerProfile,
  modelCurrents,
} from './power/batterystats.js'
export {
  powerstatsCollector,
  railsFromSnapshots,
  readPowerstatsSnapshot,
} from './power/powerstats.js'
export type { PowerstatsSnapshot } from './power/powerstats.js'
export type { ExternalMeterOptions } from './power/external-meter.js'
export { externalMeterCollector } from './power/external-meter.js'
