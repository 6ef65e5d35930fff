// Public API of the samples room: what other rooms may use of it.
export { type HeldSamples, SamplesEngine, type SamplesResult, TooManyUnitsError } from './engine.js'
export { MemoryBusyError } from './arena.js'
export { type ArrowQuery, ArrowSamplesWriter, pointsFromArrow } from './arrow.js'
export { type JsonPart, pointsFromJson, type PointsOrErrors, samplesBodyBounds } from './json.js'
export { OK, OUT_GROUND, OUTSIDE_SOURCE } from './kernel.js'
export type { SampleOptions, SamplePoints } from './points.js'
export type { PlanSource } from './plan.js'
export { samplesProvenance } from './provenance.js'
