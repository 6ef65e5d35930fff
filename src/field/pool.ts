// The worker pool (piscina). Units are decoded off the main thread; tiles come back on
// SharedArrayBuffers, so neither side copies them. Each capability may add named tasks to the
// worker module (workers/tasks.ts) and run them with `run`.
import { Piscina } from 'piscina'
import { fileURLToPath } from 'node:url'
import { availableParallelism } from 'node:os'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { DecodeResult, DecodeTask } from './tasks.js'

/**
 * The worker module beside this one. Under tap the sources run as TypeScript and a worker can
 * load workers/tasks.ts through tap's loader, but that transpiles every module again in each new
 * thread (about 3 s); the build starts in a tenth of that. So the build is used when it is newer
 * than every source file — it can never be stale — and the TypeScript module otherwise.
 */
function workerFile (): { filename: string, execArgv?: string[] } {
  const here = import.meta.url
  if (!here.endsWith('.ts')) return { filename: fileURLToPath(new URL('../../workers/tasks.js', here)) }
  const compiled = fileURLToPath(new URL('../../dist/workers/tasks.js', here))
  builtIsFresh ??= isNewerThanSources(compiled, [new URL('../../src/', here), new URL('../../workers/', here)])
  // the build needs none of the loaders the test run starts threads with (they take seconds)
  return builtIsFresh
    ? { filename: compiled, execArgv: [] }
    : { filename: fileURLToPath(new URL('../../workers/tasks.ts', here)) }
}

let builtIsFresh: boolean | undefined

function isNewerThanSources (built: string, roots: URL[]): boolean {
  let builtAt: number
  try {
    builtAt = statSync(built).mtimeMs
  } catch {
    return false
  }
  for (const root of roots) {
    const dir = fileURLToPath(root)
    for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if ((name.endsWith('.ts') || name.endsWith('.lua')) && statSync(join(dir, name)).mtimeMs > builtAt) return false
    }
  }
  return true
}

/** The pool's queue is full: the caller should answer 503 and let the client retry, not queue without bound. */
export class PoolBusyError extends Error {
  override readonly name = 'PoolBusyError'
  constructor (readonly queued: number) {
    super(`the worker pool has ${queued} tasks waiting already`)
  }
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
    ...workerFile(),
    minThreads: threads,
    maxThreads: threads,
    maxQueue: options.maxQueue ?? 256,
    idleTimeout: 60_000
  })
  const run = async <R>(name: string, task: unknown): Promise<R> => {
    try {
      return await piscina.run(task, { name }) as R
    } catch (err) {
      // piscina refuses a task with this plain Error when maxQueue tasks are waiting
      if (err instanceof Error && err.message === 'Task queue is at limit') throw new PoolBusyError(piscina.queueSize)
      throw err
    }
  }
  return {
    decode: async (task) => await run<DecodeResult>('decode', task),
    run,
    utilization: () => piscina.utilization,
    queueSize: () => piscina.queueSize,
    threads: () => piscina.threads.length,
    close: () => piscina.close()
  }
}
