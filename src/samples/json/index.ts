// The JSON room's door: what the rest of the samples room (the engine, the pool's task) and its
// tests use of it.
export { pointsFromJson, samplesBodyBounds } from './request.js'
export { samplesJson, type JsonPart } from './answer.js'
export { indexBytes, numberBytes, numberBytesInto, numberBytesLength, numbers, statusBytes } from './columns.js'
export { instantMs } from './instant.js'
