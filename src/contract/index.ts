// Public API of the contract room: what other rooms may use of it.
export {
  DESCENT_DENSITIES, PROFILES, TRAJECTORY_LIMITS, TRAJECTORY_WARNINGS, type TrajectoryPoint, TrajectoryRequest,
  type TrajectoryResponse, type TrajectoryWarning
} from './trajectory.js'
export { LIMITS, MAX_PROBLEM_ERRORS } from './limits.js'
export { allowValue, type Listener, routeById, type RouteSpec, servedRoutes } from './routes.js'
export { validate } from './validate.js'
export { buildOpenApi } from './openapi.js'
export { compileSerializer, type Serializer } from './serialize.js'
export { PROBLEM_CODES, type ProblemCodeName, problemType } from './codes.js'
export {
  type AccountInfo, ALTITUDE_REFERENCES, type AtmosphereRequest, type AtmosphereResponse, type BetaUsage,
  type Capabilities, type CreatedAccount, type CreatedKey, type Health, KEY_PAGE, type KeyInfo, type KeyList,
  KeyListQuery, type NewAccount, type NewKey, type Problem, QUALITY_OPTIONS, type ValidationErrorItem,
  type VerticalCoverage
} from './schemas.js'
export {
  ARROW_STREAM, type Interpolation, INTERPOLATIONS, SAMPLE_FIELDS, SAMPLE_STATUSES, type SampleField, SamplesRequest,
  type SamplesResponse, type SampleUnit
} from './samples.js'
export { daysInMonth } from './calendar.js'
