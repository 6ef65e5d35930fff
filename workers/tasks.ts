// The piscina worker module: every named task a pool thread runs (pool.run(task, { name })).
import { parentPort } from 'node:worker_threads'
import { WORKER_LOADED, type TaskName } from '../src/field/index.js'
import { decode as decodeTask, ping as pingTask } from '../src/field/tasks.js'
import { interpolate as interpolateTask } from '../src/profile/task.js'
import { samples as samplesTask, samplesJsonColumn as samplesJsonColumnTask } from '../src/samples/task.js'

/** One function per name the pool runs: a name missing here, or one the pool does not know, fails to compile. */
const TASKS = {
  decode: decodeTask,
  ping: pingTask,
  interpolate: interpolateTask,
  samples: samplesTask,
  samplesJsonColumn: samplesJsonColumnTask
} satisfies Record<TaskName, (task: never) => unknown>

export const { decode, ping, interpolate, samples, samplesJsonColumn } = TASKS

// the pool waits for this before it terminates a thread (src/field/pool.ts)
parentPort?.postMessage(WORKER_LOADED)
