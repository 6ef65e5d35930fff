// The Arrow room's door: what the rest of the samples room uses of it. Nothing here imports
// apache-arrow: the reader and the writer come through loadArrow, on the first Arrow request.
export { loadArrow } from './lazy.js'
export type { ArrowQuery } from './request.js'
