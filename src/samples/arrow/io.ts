// What lazy.ts loads on the first Arrow request: the request reader and the answer writer, the
// only modules that import apache-arrow.
export { pointsFromArrow } from './request.js'
export { ArrowSamplesWriter } from './writer.js'
