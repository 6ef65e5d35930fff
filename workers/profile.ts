// The piscina worker: named tasks `decode` and `interpolate` (see src/profile/tasks.ts).
export { decode, interpolate } from '../src/profile/tasks.js'
