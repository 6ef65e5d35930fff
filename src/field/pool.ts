// The worker pool (piscina). Units are decoded off the main thread; tiles come back on
// SharedArrayBuffers, so neither side copies them. Each capability may add named tasks to the
// worker module (workers/tasks.ts) and run them with `run`.
import { Piscina } from 'piscina'
import { fileURLToPath } from 'node:url'
import { availableParallelism } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import type { DecodeResult, DecodeTask } from './tasks.js'

/**
 * The compiled worker module (dist/workers/tasks.js beside dist/src/field/pool.js), started with
 * no Node options: it needs no loader, and the hooks a parent may be started with (a test
 * runner's import hooks) take seconds in each new thread.
 */
const WORKER = { filename: fileURLToPath(new URL('../../workers/tasks.js', import.meta.url)), execArgv: [] }

/** The pool's queue is full: the caller should answer 503 and let the client retry, not queue without bound. */
export class PoolBusyError extends Error {
  override readonly name = 'PoolBusyError'
  constructor (readonly queued: number) {
    super(`the worker pool has ${queued} tasks waiting already`)
  }
}

/**
 * The named tasks of the worker module; workers/tasks.ts exports one function under each name
 * (it fails to compile otherwise), so a name here cannot drift from it.
 */
export type TaskName = 'decode' | 'ping' | 'interpolate' | 'samples' | 'samplesJsonColumn'

/**
 * What workers/tasks.ts posts once its module graph has been evaluated. Node 20 aborts the whole
 * process (`v8::Module::IsGraphAsync must be used on an instantiated module`) when a worker is
 * terminated while it is still loading its ES module, as a SIGTERM right after start-up would do;
 * closing waits for this from every thread first.
 */
export const WORKER_LOADED = 'aloft-worker-loaded'
/** How long closing waits for threads still loading their module (they load in well under a second). */
const LOAD_WAIT_MS = 10_000

export interface PoolOptions {
  threads?: number
  /** Tasks waiting beyond this are refused (the caller answers 503). */
  maxQueue?: number
}

export interface WorkerPool {
  decode: (task: DecodeTask) => Promise<DecodeResult>
  /** Runs the named task of the worker module (its result type is the task's). */
  run: <R>(name: TaskName, task: unknown) => Promise<R>
  utilization: () => number
  queueSize: () => number
  threads: () => number
  close: () => Promise<void>
}

export function createPool (options: PoolOptions = {}): WorkerPool {
  const threads = options.threads ?? Math.max(1, availableParallelism())
  const maxQueue = options.maxQueue ?? 256
  const piscina = new Piscina({ ...WORKER, minThreads: threads, maxThreads: threads, maxQueue, idleTimeout: 60_000 })
  let loaded = 0
  const allLoaded = new Promise<void>((resolve) => {
    piscina.on('message', (m: unknown) => { if (m === WORKER_LOADED && ++loaded >= threads) resolve() })
  })
  const run = async <R>(name: TaskName, task: unknown): Promise<R> => {
    // refused here, from the pool's own count, before piscina would refuse it with an Error told
    // apart only by its message (a task is queued only when every thread is busy)
    if (piscina.queueSize >= maxQueue) throw new PoolBusyError(piscina.queueSize)
    return await piscina.run(task, { name }) as R
  }
  return {
    decode: async (task) => await run<DecodeResult>('decode', task),
    run,
    utilization: () => piscina.utilization,
    queueSize: () => piscina.queueSize,
    threads: () => piscina.threads.length,
    close: async () => {
      await Promise.race([allLoaded, sleep(LOAD_WAIT_MS, undefined, { ref: false })])
      await piscina.close()
    }
  }
}
