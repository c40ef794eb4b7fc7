/** Public surface of the statistics core: pure functions, no I/O. */
export { compare, requiredRepetitions } from './compare.js'
export type { CompareOptions, Comparison, RepetitionEstimate, Verdict } from './compare.js'
export {
  coefficientOfVariation,
  MAD_TO_SD,
  mean,
  median,
  medianAbsoluteDeviation,
  quantile,
  standardDeviation,
  summarize,
  variance,
} from './descriptive.js'
export type { Summary } from './descriptive.js'
export {
  normalCdf,
  normalQuantile,
  regularizedIncompleteBeta,
  studentTCdf,
  studentTQuantile,
} from './distributions.js'
export { StatsErrors } from './errors.js'
export {
  bootstrapDifferenceInterval,
  bootstrapInterval,
  tInterval,
  wilsonInterval,
} from './intervals.js'
export type { BootstrapOptions, ConfidenceInterval } from './intervals.js'
export { madOutliers, tukeyFences } from './outliers.js'
export type { OutlierFlags } from './outliers.js'
export { mulberry32 } from './random.js'
export { robustRegression } from './regression.js'
export type { RobustRegressionOptions, RobustRegressionResult } from './regression.js'
export { sortSamples, toSamples, toSortedSamples } from './samples.js'
export type { Samples, SortedSamples } from './samples.js'
export { mannWhitneyU, welchTTest } from './tests.js'
export type { Alternative, MannWhitneyResult, WelchResult } from './tests.js'
