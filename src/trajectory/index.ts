// Public API of the trajectory room: what other rooms may use of it.
export {
  east, END_NAMES, ensembleWords, type EnsembleWords, type FlightMark, flightMarks, flightPath, geojson, kml,
  type MarkKind, MIN_LANDINGS_FOR_SPREAD, spreadShown
} from './formats.js'
export { TrajectoryService } from './service.js'
export { ENSEMBLE_SPREAD_DEFAULTS } from './spread-defaults.js'
export { FlightInputError } from './request.js'
export { STEP_S } from './models.js'
export { type TawhiriAnswer, type TawhiriFile, tawhiriCsv, tawhiriKml } from './tawhiri-files.js'
