// The piscina worker module: every named task a pool thread runs (pool.run(task, { name })).
export { decode, ping } from '../src/field/tasks.js'
export { interpolate } from '../src/profile/task.js'
export { samples, samplesJsonColumn } from '../src/samples/task.js'
