// The worker pool (piscina). Units are decoded off the main thread; tiles come back on
// SharedArrayBuffers, so neither side copies them.
import { Piscina } from 'piscina'
import { fileURLToPath } from 'node:url'
import { availableParallelism } from 'node:os'
import type { DecodeResult, DecodeTask, InterpolateTask } from './tasks.js'
import type { ProfileResult } from '../atmosphere/index.js'

/** The compiled worker module. Under tap (TypeScript sources) the build output is used. */
function workerFile (): string {
  const here = import.meta.url
  if (here.endsWith('.ts')) return fileURLToPath(new URL('../../dist/workers/profile.js', here))
  return fileURLToPath(new URL('../../workers/profile.js', here))
}

export interface PoolOptions {
  threads?: number
  /** Tasks waiting beyond this are refused (the caller answers 503). */
  maxQueue?: number
}

export interface WorkerPool {
  decode: (task: DecodeTask) => Promise<DecodeResult>
  interpolate: (task: InterpolateTask) => Promise<ProfileResult>
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
    interpolate: (task) => piscina.run(task, { name: 'interpolate' }) as Promise<ProfileResult>,
    utilization: () => piscina.utilization,
    queueSize: () => piscina.queueSize,
    threads: () => piscina.threads.length,
    close: () => piscina.close()
  }
}
