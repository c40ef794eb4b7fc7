/** Public surface of the spectrum-based red/yellow/green classifier. */
export { classify } from './classify.js'
export type {
  ClassificationResult,
  ClassifiedGroup,
  ClassifiedMethod,
  ClassifyOptions,
  Coefficient,
} from './classify.js'
export { dstar, energyWeightedOchiai, jaccard, ochiai, tarantula } from './coefficients.js'
export type { Spectrum2x2 } from './coefficients.js'
export { ERROR_VECTOR_MODES, errorVector } from './error-vector.js'
export type { ErrorVector, ErrorVectorMode, ErrorVectorOptions } from './error-vector.js'
export { ClassifyErrors } from './errors.js'
export { renderClassificationTable } from './format.js'
export { toHierarchy } from './hierarchy.js'
export type { HierarchyLeaf, HierarchyNode } from './hierarchy.js'
export {
  appendToKnowledgeBase,
  emptyKnowledgeBase,
  loadKnowledgeBase,
  parseKnowledgeBase,
  saveKnowledgeBase,
  summarizeKnowledgeBase,
} from './knowledge-base.js'
export type { KnowledgeBase, KnowledgeBaseScope, KnowledgeBaseSummary } from './knowledge-base.js'
export { isGreen, isRed, isYellow } from './predicates.js'
export type { Colored } from './predicates.js'
export { aggregateColor, methodColor, PRESETS } from './rules.js'
export type { HitCounts, Preset } from './rules.js'
export { methodOwner, parseSpectrumInput, spectrumFromResults, testSpectrum } from './spectrum.js'
export type { MethodHit, MethodOwner, SpectrumInput, TestSpectrum } from './spectrum.js'
