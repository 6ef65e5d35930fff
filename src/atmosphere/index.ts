// Public API of the atmosphere room: pure float64 physics on a plain list of levels (docs/DESIGN.md §4).
export * from './constants.js'
export { geometricHeight } from './height.js'
export {
  saturationVapourPressureLiquid, ncepSaturationVapourPressure, ncepSaturationLiquid, ncepSaturationIce
} from './saturation.js'
export { specificHumidityFromNcepRh, vapourPressure, relativeHumidityLiquid, dewPointLiquid } from './humidity.js'
export { moistAirDensity } from './density.js'
export { windSpeed, windDirectionFrom } from './wind.js'
export {
  type LevelInput, type ColumnInput, type LevelSeries, type ColumnSource, type Column, createColumn
} from './column.js'
export { fillColumn, buildColumn } from './fill.js'
export {
  type AltitudeReference, type VerticalCoverage, verticalCoverage, isWithinCoverage, toMsl, toAgl
} from './coverage.js'
export { findLevel, onLevel, levelFraction, lerp } from './levels.js'
export {
  SURFACE_FIELDS, SURFACE_NODE_CAPACITY, WIND_FIELD_HEIGHT_M, type SurfaceVariable, joinSurfaceLayer,
  meetsSurfaceMinimum, powerLawShare, SURFACE_TOLERANCES, TOLERANCE_UNITS, surfaceNodesUsed, surfaceLayerNodes,
  type SurfaceLayerNodes
} from './surface-layer.js'
export {
  LEVEL_FIELDS, LEVEL_FIELD_COUNT, type LevelField, writeLevel, columnValuesAt,
  AT_U, AT_V, AT_T, AT_Q, AT_LNP, AT_P
} from './interpolate.js'
export {
  type AtmosphereLevel, type ProfileRequest, type GroundFacts, type ProfileOk, type OutsideVerticalRange,
  type UnusableSourceColumn, type ProfileResult, groundFacts, writeLevels, computeProfile, levelAt
} from './profile.js'
export * from './methods.js'
