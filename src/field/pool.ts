// The worker pool (piscina). Units are decoded off the main thread; tiles come back on
// SharedArrayBuffers, so neither side copies them. Each capability may add named tasks to the
// worker module (workers/tasks.ts) and run them with `run`.
import { Piscina } from 'piscina'
import { fileURLToPath } from 'node:url'
import { availableParallelism } from 'node:os'
import type { DecodeResult, DecodeTask } from './tasks.js'

/**
 * The worker module beside this one. Under tap the sources run as TypeScript and workers inherit
 * tap's loader, so the .ts module is used: never a stale build.
 */
function workerFile (): string {
  const here = import.meta.url
  return fileURLToPath(new URL(here.endsWith('.ts') ? '../../workers/tasks.ts' : '../../workers/tasks.js', here))
}

export interface PoolOptions {
  threads?: number
  /** Tasks waiting beyond this are refused (the caller answers 503). */
  maxQueue?: number
}

export interface WorkerPool {
  decode: (task: DecodeTask) => Promise<DecodeResult>
  /** Runs the named task of the worker module (its result type is the task's). */
  run: <R>(name: string, task: unknown) => Promise<R>
  utilization: () => number
  queueSize: () => number
  threads: () => number
  close: () => Promise<void>
}

export function createPool (options: PoolOptions = {}): WorkerPool {
  const threads = options.threads ?? Math.max(1, availableParallelism())
  const piscina = new Piscina({
    filename: workerFile(),
    minThreads: threads,
    maxThreads: threads,
    maxQueue: options.maxQueue ?? 256,
    idleTimeout: 60_000
  })
  return {
    decode: (task) => piscina.run(task, { name: 'decode' }) as Promise<DecodeResult>,
    run: <R>(name: string, task: unknown) => piscina.run(task, { name }) as Promise<R>,
    utilization: () => piscina.utilization,
    queueSize: () => piscina.queueSize,
    threads: () => piscina.threads.length,
    close: () => piscina.close()
  }
}
