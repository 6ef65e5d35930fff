// What src/samples/arrow.ts loads on the first Arrow request.
export { pointsFromArrow } from './arrow-request.js'
export { ArrowSamplesWriter } from './arrow-writer.js'
