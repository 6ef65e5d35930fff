// @aloft/client: a typed client for aloft (README.md beside this folder).
export {
  ARROW_STREAM, createClient, unitsOf, type AloftClient, type CallOptions, type ClientOptions
} from './client.js'
export { describeProblem, ProblemError, UnreachableError, type Problem } from './problem.js'
export { retryAfterSeconds } from './transport.js'
export { NOT_CALLED, OPERATIONS } from './operations.js'
export { fieldPath, inWords, placeInWords, type ErrorItem, type WordStyle } from './error-words.js'
export type * from './types.js'
export type { components, operations, paths } from './openapi.js'
