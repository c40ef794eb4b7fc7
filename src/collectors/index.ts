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
export type { OdpmExtras, OdpmOptions } from './power/odpm.js'
export { odpmCollector } from './power/odpm.js'
