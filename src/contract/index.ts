// Public API of the contract room: what other rooms may use of it.
export {
  DESCENT_DENSITIES, FLIGHT_OUTCOMES, type FlightOutcome, PROFILES, TRAJECTORY_LIMITS, TRAJECTORY_WARNINGS,
  type TrajectoryPoint, TrajectoryRequest, type TrajectoryResponse, type TrajectoryWarning
} from './trajectory.js'
export { ALTITUDE_REFERENCES, LIMITS, MAX_PROBLEM_ERRORS } from './limits.js'
export { allowValue, type Listener, type Method, routeById, type RouteSpec, servedRoutes } from './routes.js'
export { validate } from './validate.js'
export { buildOpenApi } from './openapi.js'
export { compileSerializer, type Serializer } from './serialize.js'
export { PROBLEM_CODES, type ProblemCodeName, problemType, tawhiriError } from './codes.js'
export { type AtmosphereRequest, type AtmosphereResponse, QUALITY_OPTIONS, type VerticalCoverage } from './profile.js'
export {
  type AccountInfo, type BetaUsage, type CreatedAccount, type CreatedKey, KEY_PAGE, type KeyInfo, type KeyList,
  KeyListQuery, type NewAccount, type NewKey
} from './accounts.js'
export { type Problem, type ValidationErrorItem } from './problem.js'
// the words live with the client, which ships them to callers; the CLI and the explorer say them too
export {
  type ErrorItem, fieldPath, inWords, placeInWords, type WordStyle
} from '../../clients/typescript/src/error-words.js'
export { type Capabilities } from './capabilities.js'
export { type Health, type HostProcesses } from './health.js'
export {
  ARROW_STREAM, type Interpolation, INTERPOLATIONS, SAMPLE_FIELDS, SAMPLE_STATUSES, type SampleField, SamplesRequest,
  type SamplesResponse, type SampleUnit
} from './samples.js'
export { daysInMonth } from './calendar.js'
export { isDecimal } from './decimal.js'
export { rfc3339, rfc3339Kept } from './rfc3339.js'
export {
  DatasetCheck, KEY_PATH_PREFIX, ReverseResponse, Ruaumoko, TAWHIRI_MIN_RATE, TawhiriError, type TawhiriFormat,
  TAWHIRI_FORMATS
} from './tawhiri.js'
